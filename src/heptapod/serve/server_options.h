// What `heptapod serve` is configured with: where it listens, how many connections and threads it holds, the
// deadlines of a request's header and body, the limits every request is checked against, the cross-request
// batching of each model's queue and the continuous batch of each language model.
#pragma once

#include <chrono>
#include <cstddef>
#include <string>
#include <vector>

#include "heptapod/decode/translator.h"
#include "heptapod/serve/http_front_end.h"
#include "heptapod/serve/served_model.h"
#include "heptapod/serve/translation_queue.h"

namespace heptapod {

// Limits on one request's content (its size is the front end's); breaking one is a 4xx reply naming the limit.
struct RequestLimits {
  int max_characters = 20000;            // characters (code points) of all texts of a request; 400 beyond
  int max_sentences = 256;               // lines of all texts of a request; 400 beyond
  int max_beam = 16, max_nbest = 16;     // per-request search options above these are 400
  int max_extra_length = 256;
  int max_prompt_tokens = 1024;          // a generation prompt's tokens (OpenAI's API: 400 beyond; native: cut)
  int max_new_tokens = 512;              // the largest max_tokens a generation request may ask for
  std::chrono::milliseconds timeout{30000};  // a request not answered by then is 504 (requests may ask less)
};

struct ServerOptions {
  FrontEndOptions http;              // address, connections, deadlines, body size (413)
  RequestLimits limits;
  QueueOptions queue;                // per translation or encoder model
  int max_batch_rows = 64;           // per language model: samples of its running batch
  int max_prefill_tokens = 2048;     // per language model: prompt tokens joining its batch in one step
  TranslateOptions defaults;         // search options of translation requests that set none
  // Compute type of every model. Unset: the type a low-precision file stores, and int8 for a float32 file
  // (int8 and bfloat16 are batch-invariant, so batching across requests cannot change any reply; float32's
  // GEMM path depends on the batch's row count, and scores then differ in the fourth decimal).
  ModelLoadOptions load;
  std::string api_keys_file;         // non-empty: model requests need one of its keys (403 otherwise)
};

}  // namespace heptapod
