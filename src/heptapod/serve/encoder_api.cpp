// OpenAI's embeddings and the native classification API: request fields, inputs and replies.
#include "heptapod/serve/encoder_api.h"

#include <cstdio>
#include <cstring>


namespace heptapod {

namespace {

using nlohmann::json;

// The request's size against the server's limits: inputs (max_sentences) and characters.
void check_size(const EncoderCall& call, const RequestLimits& l, const std::string& field) {
  const std::size_t n = call.inputs.size();
  if (n > static_cast<std::size_t>(l.max_sentences))
    throw field_error(field, std::to_string(n) + " inputs exceed the limit of " + std::to_string(l.max_sentences));
  std::size_t chars = 0;
  for (const std::string& t : call.inputs.texts)
    for (unsigned char c : t) chars += (c & 0xC0) != 0x80;
  if (chars > static_cast<std::size_t>(l.max_characters))
    throw field_error(field, std::to_string(chars) + " characters exceed the limit of " + std::to_string(l.max_characters));
}

}  // namespace

bool same_task(const EncoderTask& a, const EncoderTask& b) {
  return a.classify == b.classify && a.embed.pooling == b.embed.pooling && a.embed.normalize == b.embed.normalize &&
         a.embed.batch_tokens == b.embed.batch_tokens && a.classes.top_k == b.classes.top_k &&
         a.classes.batch_tokens == b.classes.batch_tokens;
}

std::vector<EncoderResult> run_encoder_task(Encoder& encoder, const std::vector<EncoderInput>& inputs,
                                            const EncoderTask& task) {
  std::vector<EncoderResult> out(inputs.size());
  if (task.classify) {
    std::vector<Classification> classes = encoder.classify_inputs(inputs, task.classes);
    for (std::size_t i = 0; i < out.size(); ++i) out[i].classification = std::move(classes[i]);
  } else {
    std::vector<std::vector<float>> vectors = encoder.embed_inputs(inputs, task.embed);
    for (std::size_t i = 0; i < out.size(); ++i) out[i].vector = std::move(vectors[i]);
  }
  return out;
}

EncoderCall parse_embeddings(const json& body, const ServerOptions& server) {
  only_known_fields(body, {"model", "input", "encoding_format", "dimensions", "user"});
  EncoderCall call;
  call.model = string_field(body, "model").value_or("");
  call.inputs = text_or_tokens_field(body, "input");
  const std::string format = string_field(body, "encoding_format").value_or("float");
  if (format != "float" && format != "base64") throw field_error("encoding_format", "\"float\" or \"base64\"");
  call.base64 = format == "base64";
  string_field(body, "user");  // any string
  check_size(call, server.limits, "input");
  call.timeout = server.limits.timeout;
  return call;
}

EncoderCall parse_classify(const json& body, const ServerOptions& server) {
  only_known_fields(body, {"model", "text", "top_k", "timeout_ms"});
  EncoderCall call;
  call.model = string_field(body, "model").value_or("");
  std::optional<TextField> text = text_field(body, "text");
  if (!text || text->texts.empty()) throw field_error("text", "required: a string or an array of strings");
  call.inputs.texts = std::move(text->texts);
  call.task.classify = true;
  call.task.classes.top_k = int_field(body, "top_k", 1, 1, 1 << 20);
  check_size(call, server.limits, "text");
  call.timeout = timeout_field(body, server.limits.timeout);
  return call;
}

std::vector<EncoderInput> encoder_inputs(const EncoderCall& call, const Encoder& encoder, bool strict,
                                         const json& body) {
  const ModelConfig& c = encoder.config();
  if (has_field(body, "dimensions") && body["dimensions"] != json(encoder.embedding_width(call.task.embed)))
    throw field_error("dimensions", "this model's vectors have " + std::to_string(encoder.embedding_width(call.task.embed)) +
                                        " dimensions");
  const std::string field = call.task.classify ? "text" : "input";
  std::vector<EncoderInput> inputs;
  if (call.inputs.tokens_given) {
    for (const std::vector<int>& ids : call.inputs.tokens) {
      for (int t : ids)
        if (t >= c.src_vocab_size)
          throw field_error(field, "token " + std::to_string(t) + " is outside the model's " + std::to_string(c.src_vocab_size) +
                               "-token vocabulary");
      inputs.push_back(layout_text(ids, c.encoder_input_limit(), c.bos_id, c.eos_id));
    }
  } else {
    try {
      inputs = encoder.encode_lines(call.inputs.texts, false, field);
    } catch (const Error& e) {
      throw field_error(field, e.what());
    }
  }
  // A model that cuts its inputs itself (sentence-transformers' max_seq_length) is read as its library reads it.
  if (strict && c.max_input_tokens == 0)
    for (std::size_t i = 0; i < inputs.size(); ++i)
      if (inputs[i].truncated)
        throw field_error(field, "input " + std::to_string(i) + " is longer than the model's " +
                             std::to_string(c.encoder_input_limit()) + " positions");
  return inputs;
}

std::string base64_encode(const void* data, std::size_t bytes) {
  static constexpr char kDigits[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  const auto* p = static_cast<const unsigned char*>(data);
  std::string out;
  out.reserve((bytes + 2) / 3 * 4);
  for (std::size_t i = 0; i < bytes; i += 3) {
    const unsigned v = p[i] << 16 | (i + 1 < bytes ? p[i + 1] << 8 : 0) | (i + 2 < bytes ? p[i + 2] : 0);
    out += kDigits[v >> 18 & 63];
    out += kDigits[v >> 12 & 63];
    out += i + 1 < bytes ? kDigits[v >> 6 & 63] : '=';
    out += i + 2 < bytes ? kDigits[v & 63] : '=';
  }
  return out;
}

json embeddings_reply(const EncoderCall& call, const std::vector<EncoderInput>& inputs,
                      const std::vector<EncoderResult>& out, const std::string& model) {
  json data = json::array();
  long long tokens = 0;
  for (const EncoderInput& in : inputs) tokens += static_cast<long long>(in.tokens.size());
  for (std::size_t i = 0; i < out.size(); ++i) {
    const std::vector<float>& v = out[i].vector;
    json embedding;
    if (call.base64) {
      std::vector<unsigned char> bytes(v.size() * 4);  // little-endian float32, whatever the host's order
      for (std::size_t j = 0; j < v.size(); ++j) {
        std::uint32_t u;
        std::memcpy(&u, &v[j], 4);
        for (int b = 0; b < 4; ++b) bytes[j * 4 + static_cast<std::size_t>(b)] = static_cast<unsigned char>(u >> (8 * b));
      }
      embedding = base64_encode(bytes.data(), bytes.size());
    } else {
      embedding = v;
    }
    data.push_back({{"object", "embedding"}, {"index", i}, {"embedding", std::move(embedding)}});
  }
  return {{"object", "list"}, {"data", data}, {"model", model}, {"usage", {{"prompt_tokens", tokens}, {"total_tokens", tokens}}}};
}

json classification_json(const Classification& c) {
  json top = json::array();
  for (const ClassScore& s : c.top) {
    char probability[32];
    std::snprintf(probability, sizeof probability, "%.6f", static_cast<double>(s.probability));
    top.push_back({{"label", s.label}, {"probability", std::stod(probability)}});
  }
  return {{"labels", c.labels}, {"top", top}};
}

json classify_reply(const std::vector<EncoderResult>& out, const std::string& model) {
  json classes = json::array();
  for (const EncoderResult& r : out) classes.push_back(classification_json(r.classification));
  return {{"model", model}, {"classifications", classes}};
}

}  // namespace heptapod
