// Cross-request batching of translations: a BatchQueue (serve/batch_queue.h) whose worker owns a Translator
// and runs the waiting requests that share their search options as one search batch (the Translator sorts
// their sentences by length and cuts them under its token budget).
//
//   heptapod::Translator translator("model.htp", {heptapod::ComputeType::Int8});
//   heptapod::TranslationQueue queue(translator, {});
//   auto future = queue.submit({"hola mundo"}, heptapod::TranslateOptions{});  // from any thread
//   std::cout << future.get()[0].hypotheses[0].text << "\n";
#pragma once

#include <string>

#include "heptapod/decode/translator.h"
#include "heptapod/serve/batch_queue.h"

namespace heptapod {

// Whether two requests' options give the same search, so that their sentences may share a batch.
bool same_search(const TranslateOptions& a, const TranslateOptions& b);

class TranslationQueue : public BatchQueue<std::string, TranslateOptions, Translation> {
 public:
  // The translator must outlive the queue and is used by the queue's worker alone from now on.
  TranslationQueue(Translator& translator, const QueueOptions& options);
};

}  // namespace heptapod
