// Token log-probabilities as Heptapod's, OpenAI's completions' and OpenAI's chat completions' JSON.
#include "heptapod/serve/log_probs_json.h"

#include <string>

#include "heptapod/data/utf8.h"

namespace heptapod {

namespace {

using nlohmann::json;

// A token's text and bytes as OpenAI names them.
struct TokenName {
  std::string text;
  json bytes = json::array();
};

TokenName token_name(const Vocabulary& vocab, int id) {
  const std::string bytes = vocab.token_bytes(id);
  TokenName name{token_text(bytes)};
  for (const char c : bytes) name.bytes.push_back(static_cast<unsigned char>(c));
  return name;
}

// Each record as entry(id, log_prob) with "top_logprobs": its top ones as entries.
template <typename Entry>
json records_json(std::span<const TokenLogProb> records, const Entry& entry) {
  json out = json::array();
  for (const TokenLogProb& r : records) {
    json one = entry(r.id, r.log_prob);
    json top = json::array();
    for (const auto& [id, log_prob] : r.top) top.push_back(entry(id, log_prob));
    one["top_logprobs"] = std::move(top);
    out.push_back(std::move(one));
  }
  return out;
}

}  // namespace

json token_log_probs_json(std::span<const TokenLogProb> records, const Vocabulary& vocab) {
  return records_json(records, [&](int id, float log_prob) {
    TokenName name = token_name(vocab, id);
    return json{{"token", std::move(name.text)}, {"id", id}, {"bytes", std::move(name.bytes)}, {"logprob", log_prob}};
  });
}

json completion_logprobs(std::span<const TokenLogProb> records, const Vocabulary& vocab, std::string_view new_text,
                         std::size_t before) {
  json tokens = json::array(), token_logprobs = json::array(), top_logprobs = json::array(),
       text_offset = json::array();
  for (const TokenLogProb& r : records) {
    tokens.push_back(token_name(vocab, r.id).text);
    token_logprobs.push_back(r.log_prob);
    json top = json::object();
    for (const auto& [id, log_prob] : r.top) top[token_name(vocab, id).text] = log_prob;
    top[token_name(vocab, r.id).text] = r.log_prob;  // the token taken, among them or not
    top_logprobs.push_back(std::move(top));
    text_offset.push_back(before + count_code_points(new_text.substr(0, std::min(r.text_offset, new_text.size()))));
  }
  return {{"tokens", tokens}, {"token_logprobs", token_logprobs}, {"top_logprobs", top_logprobs},
          {"text_offset", text_offset}};
}

json chat_logprobs(std::span<const TokenLogProb> records, const Vocabulary& vocab) {
  return {{"content", records_json(records, [&](int id, float log_prob) {
             TokenName name = token_name(vocab, id);
             return json{{"token", std::move(name.text)}, {"logprob", log_prob}, {"bytes", std::move(name.bytes)}};
           })}};
}

}  // namespace heptapod
