// The encoder APIs: OpenAI's POST /v1/embeddings (vectors as floats or base64, as its clients ask) and the
// native POST /v1/classify (labels with probabilities, as `heptapod classify --json` prints them). Each parses
// a body into an EncoderCall checked against the server's limits, and turns the encoder's results into its
// reply. Both kinds of request share one queue per model (EncoderTask says which call a batch makes).
#pragma once

#include <chrono>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "heptapod/decode/encoder.h"
#include "heptapod/serve/request_body.h"
#include "heptapod/serve/server_options.h"

namespace heptapod {

// What one batch of an encoder model's queue computes: vectors, or a classifier's classes.
struct EncoderTask {
  bool classify = false;
  EmbedOptions embed;
  ClassifyOptions classes;
};
bool same_task(const EncoderTask& a, const EncoderTask& b);

// One input's result: its vector (embedding) or its classes (classification).
struct EncoderResult {
  std::vector<float> vector;
  Classification classification;
};

// Runs a batch of inputs on the encoder as `task` says: one result per input, in order.
std::vector<EncoderResult> run_encoder_task(Encoder& encoder, const std::vector<EncoderInput>& inputs,
                                            const EncoderTask& task);

// One request, whichever API it came in through.
struct EncoderCall {
  std::string model;                           // as sent; empty: the server's only model of the kind
  TextOrTokens inputs;                         // texts, or (OpenAI's) token ids
  EncoderTask task;
  bool base64 = false;                         // embeddings: encoding_format "base64"
  std::chrono::milliseconds timeout{0};
};

// POST /v1/embeddings: model, input (string, array of strings, array of ids, array of arrays of ids),
// encoding_format ("float" or "base64"), dimensions (null or the model's width), user. Other fields are a 400
// naming them.
EncoderCall parse_embeddings(const nlohmann::json& body, const ServerOptions& server);
// POST /v1/classify: model, text (string or array; a pair classifier's "first<TAB>second"), top_k, timeout_ms.
EncoderCall parse_classify(const nlohmann::json& body, const ServerOptions& server);

// The call's inputs as the encoder reads them. strict (OpenAI's API): an input longer than the model's
// learned positions is a 400 naming "input" (the native API cuts it, as `heptapod classify` does), unless the
// model cuts its inputs itself (max_input_tokens: a sentence-transformers model's max_seq_length, as the library
// does); a token id outside the vocabulary is a 400. Also checks `dimensions` against the model's width.
std::vector<EncoderInput> encoder_inputs(const EncoderCall& call, const Encoder& encoder, bool strict,
                                         const nlohmann::json& body);

// {"object": "list", "data": [{"object": "embedding", "index", "embedding"}], "model", "usage"}: each vector a
// JSON array of floats, or base64 of its little-endian float32 bytes.
nlohmann::json embeddings_reply(const EncoderCall& call, const std::vector<EncoderInput>& inputs,
                                const std::vector<EncoderResult>& out, const std::string& model);
// {"model", "classifications": [{"labels": [...], "top": [{"label", "probability"}]}]}.
nlohmann::json classify_reply(const std::vector<EncoderResult>& out, const std::string& model);
// `heptapod classify --json`'s object for one text.
nlohmann::json classification_json(const Classification& c);

// RFC 4648 base64 of bytes.
std::string base64_encode(const void* data, std::size_t bytes);

}  // namespace heptapod
