// OpenAI's completions and the native generation API: request fields, prompts, replies and stream events.
#include "heptapod/serve/generation_api.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <ctime>
#include <mutex>
#include <random>

#include "heptapod/data/utf8.h"
#include "heptapod/serve/log_probs_json.h"

namespace heptapod {

namespace {

using nlohmann::json;

// A field allowed only at its neutral value: missing, null, or equal to one of `neutral`.
void neutral_only(const json& body, const std::string& name, const std::vector<json>& neutral) {
  if (!has_field(body, name)) return;
  for (const json& n : neutral)
    if (body[name] == n) return;
  throw field_error(name, "only " + (neutral.empty() ? std::string("null") : neutral.front().dump()) + " is supported");
}

// stop: null, a string, or an array of up to 4 non-empty strings.
std::vector<std::string> stop_field(const json& body) {
  std::optional<TextField> stop = text_field(body, "stop");
  if (!stop) return {};
  if (stop->texts.size() > 4) throw field_error("stop", "at most 4 stop strings");
  for (const std::string& s : stop->texts)
    if (s.empty()) throw field_error("stop", "a stop string is empty");
  return stop->texts;
}

std::uint64_t random_seed() {
  static std::mutex mutex;
  static std::mt19937_64 engine{std::random_device{}()};
  std::lock_guard lock(mutex);
  return engine();
}

json output_json(const GeneratedText& g) {
  return {{"text", g.text},         {"new_text", g.new_text}, {"new_tokens", g.new_tokens},
          {"log_prob", g.log_prob}, {"score", g.score},       {"end", g.end}};
}

}  // namespace

CompletionId new_completion_id(const std::string& prefix) {
  char hex[32];
  std::snprintf(hex, sizeof hex, "%016" PRIx64 "%08" PRIx64, random_seed(), random_seed() & 0xFFFFFFFFu);
  return {prefix + std::string(hex), static_cast<std::int64_t>(std::time(nullptr))};
}

GenerationCall parse_completion(const json& body, const ServerOptions& server) {
  only_known_fields(body, {"model", "prompt", "max_tokens", "temperature", "top_p", "n", "stop", "seed", "stream",
                           "stream_options", "echo", "top_k", "repetition_penalty", "logprobs", "best_of",
                           "frequency_penalty", "presence_penalty", "logit_bias", "suffix", "user"});
  const RequestLimits& l = server.limits;
  GenerationCall call;
  call.model = string_field(body, "model").value_or("");
  call.prompts = text_or_tokens_field(body, "prompt");
  GenerateOptions& o = call.options;
  o.beam = 0;
  o.max_tokens = int_field(body, "max_tokens", 16, 1, l.max_new_tokens);
  o.sampling.temperature = static_cast<float>(number_field(body, "temperature", 1.0, 0.0, 2.0));
  o.sampling.top_p = static_cast<float>(number_field(body, "top_p", 1.0, 0.0, 1.0));
  if (o.sampling.top_p <= 0) throw field_error("top_p", "must be above 0");
  o.sampling.top_k = int_field(body, "top_k", 0, 0, 1 << 30);
  const std::optional<std::int64_t> seed = int64_field(body, "seed");
  o.sampling.seed = seed ? static_cast<std::uint64_t>(*seed) : random_seed();
  o.nbest = int_field(body, "n", 1, 1, l.max_nbest);
  o.guards.repetition_penalty = static_cast<float>(number_field(body, "repetition_penalty", 1.0, 1e-3, 100.0));
  o.stop = stop_field(body);
  o.max_prompt_tokens = l.max_prompt_tokens;
  call.stream = bool_field(body, "stream", false);
  call.echo = bool_field(body, "echo", false);
  if (has_field(body, "stream_options")) {
    const json& so = body["stream_options"];
    if (!so.is_object()) throw field_error("stream_options", "must be an object");
    if (!call.stream) throw field_error("stream_options", "only with stream: true");
    for (const auto& [name, value] : so.items())
      if (name != "include_usage") throw field_error("stream_options", "unknown option " + name);
    call.include_usage = bool_field(so, "include_usage", false);
  }
  o.logprobs = int_field(body, "logprobs", -1, 0, 5);
  if (o.logprobs >= 0 && call.echo)
    throw field_error("logprobs", "not supported with echo (the prompt's tokens are not scored); ask for logprobs "
                                  "without echo and prepend the prompt yourself");
  neutral_only(body, "best_of", {json(o.nbest)});
  neutral_only(body, "frequency_penalty", {json(0), json(0.0)});
  neutral_only(body, "presence_penalty", {json(0), json(0.0)});
  neutral_only(body, "logit_bias", {json::object()});
  neutral_only(body, "suffix", {json("")});
  string_field(body, "user");  // any string
  call.timeout = l.timeout;
  return call;
}

GenerationCall parse_generate(const json& body, const ServerOptions& server) {
  only_known_fields(body, {"model", "prompt", "max_tokens", "beam", "nbest", "length_penalty", "temperature", "top_k",
                           "top_p", "seed", "repetition_penalty", "no_repeat_ngram", "stop", "stream", "timeout_ms"});
  const RequestLimits& l = server.limits;
  GenerationCall call;
  call.model = string_field(body, "model").value_or("");
  std::optional<TextField> prompt = text_field(body, "prompt");
  if (!prompt || prompt->texts.empty()) throw field_error("prompt", "required: a string or an array of strings");
  call.prompts.texts = std::move(prompt->texts);
  GenerateOptions& o = call.options;
  o.max_tokens = int_field(body, "max_tokens", o.max_tokens, 1, l.max_new_tokens);
  o.beam = int_field(body, "beam", 0, 0, l.max_beam);
  o.nbest = int_field(body, "nbest", 1, 1, l.max_nbest);
  if (o.beam > 0 && o.nbest > o.beam) throw field_error("nbest", "at most the beam when searching");
  o.length_penalty = static_cast<float>(number_field(body, "length_penalty", o.length_penalty, 0.0, 10.0));
  o.sampling.temperature = static_cast<float>(number_field(body, "temperature", o.sampling.temperature, 0.0, 100.0));
  o.sampling.top_k = int_field(body, "top_k", o.sampling.top_k, 0, 1 << 30);
  o.sampling.top_p = static_cast<float>(number_field(body, "top_p", o.sampling.top_p, 0.0, 1.0));
  if (o.sampling.top_p <= 0) throw field_error("top_p", "must be above 0");
  const std::optional<std::int64_t> seed = int64_field(body, "seed");
  if (seed) o.sampling.seed = static_cast<std::uint64_t>(*seed);
  o.guards.repetition_penalty =
      static_cast<float>(number_field(body, "repetition_penalty", o.guards.repetition_penalty, 1e-3, 100.0));
  o.guards.no_repeat_ngram = int_field(body, "no_repeat_ngram", 0, 0, 64);
  o.stop = stop_field(body);
  o.max_prompt_tokens = l.max_prompt_tokens;
  call.stream = bool_field(body, "stream", false);
  call.timeout = timeout_field(body, l.timeout);
  return call;
}

std::vector<KeptPrompt> keep_prompts(const GenerationCall& call, const Generator& generator, bool strict) {
  const ModelConfig& c = generator.config();
  const Vocabulary& vocab = generator.vocabulary();
  const GenerateOptions& o = call.options;
  std::vector<KeptPrompt> kept;
  if (!strict) {
    for (const std::string& p : call.prompts.texts) kept.push_back(generator.keep_prompt(p, o));
    return kept;
  }
  const std::vector<int> banned = banned_output_ids(c);
  for (std::size_t i = 0; i < call.prompts.size(); ++i) {
    KeptPrompt k;
    k.tokens = call.prompts.tokens_given ? call.prompts.tokens[i] : vocab.encode(call.prompts.texts[i]);
    for (int t : k.tokens)
      if (t >= c.tgt_vocab_size || t == c.eos_id || std::count(banned.begin(), banned.end(), t))
        throw field_error("prompt", "token " + std::to_string(t) + " is not an ordinary token of the model's " +
                                std::to_string(c.tgt_vocab_size) + "-token vocabulary");
    const auto length = static_cast<int>(k.tokens.size());
    if (length > o.max_prompt_tokens)
      throw field_error("prompt", "a prompt of " + std::to_string(length) + " tokens; this server takes at most " +
                              std::to_string(o.max_prompt_tokens));
    const int context = c.position_limit();
    if (length + o.max_tokens > context)
      throw HttpError(400,
                      "This model's maximum context length is " + std::to_string(context) +
                          " tokens, however you requested " + std::to_string(length + o.max_tokens) + " tokens (" +
                          std::to_string(length) + " in your prompt; " + std::to_string(o.max_tokens) +
                          " for the completion). Please reduce your prompt or completion length.",
                      0, "max_tokens");
    k.text = vocab.decode(k.tokens);
    kept.push_back(std::move(k));
  }
  return kept;
}

json completion_usage(const std::vector<KeptPrompt>& prompts, const std::vector<Generation>& out) {
  long long prompt = 0, completion = 0;
  for (const KeptPrompt& p : prompts) prompt += static_cast<long long>(p.tokens.size());
  for (const Generation& g : out)
    for (const GeneratedText& t : g.outputs) completion += t.new_tokens;
  return {{"prompt_tokens", prompt}, {"completion_tokens", completion}, {"total_tokens", prompt + completion}};
}

std::string finish_reason(const GeneratedText& g) { return g.end == "length" ? "length" : "stop"; }

json completion_reply(const GenerationCall& call, const std::vector<KeptPrompt>& prompts,
                      const std::vector<Generation>& out, const std::string& model, const CompletionId& id,
                      const Vocabulary& vocab) {
  json choices = json::array();
  for (std::size_t p = 0; p < out.size(); ++p)
    for (std::size_t s = 0; s < out[p].outputs.size(); ++s) {
      const GeneratedText& g = out[p].outputs[s];
      const std::string before = call.echo ? prompts[p].text : "";
      json logprobs = nullptr;
      if (call.options.logprobs >= 0)
        logprobs = completion_logprobs(g.token_log_probs, vocab, g.new_text, count_code_points(before));
      choices.push_back({{"text", before + g.new_text},
                         {"index", p * static_cast<std::size_t>(call.options.nbest) + s},
                         {"logprobs", std::move(logprobs)},
                         {"finish_reason", finish_reason(g)}});
    }
  return {{"id", id.id},       {"object", "text_completion"}, {"created", id.created},
          {"model", model},    {"choices", choices},          {"usage", completion_usage(prompts, out)}};
}

json completion_chunk(const CompletionId& id, const std::string& model, std::size_t index, const std::string& text,
                      const std::string& finish_reason, const json& logprobs) {
  json choice = {{"text", text}, {"index", index}, {"logprobs", logprobs}, {"finish_reason", nullptr}};
  if (!finish_reason.empty()) choice["finish_reason"] = finish_reason;
  return {{"id", id.id},    {"object", "text_completion"},       {"created", id.created},
          {"model", model}, {"choices", json::array({choice})}};
}

json generate_reply(const std::vector<KeptPrompt>& prompts, std::vector<Generation> out, const std::string& model) {
  const json usage = completion_usage(prompts, out);
  json generations = json::array();
  for (Generation& g : out) {
    // Samples come in draw order; rank them as the Generator does (best score first, ties in draw order).
    std::stable_sort(g.outputs.begin(), g.outputs.end(), [](const auto& a, const auto& b) { return a.score > b.score; });
    json outputs = json::array();
    for (const GeneratedText& t : g.outputs) outputs.push_back(output_json(t));
    json one = {{"outputs", outputs}};
    if (!g.warning.empty()) one["warning"] = g.warning;
    generations.push_back(std::move(one));
  }
  return {{"model", model}, {"generations", generations}, {"usage", usage}};
}

std::string sse_event(const json& data) {
  return "data: " + data.dump(-1, ' ', false, json::error_handler_t::replace) + "\n\n";
}

}  // namespace heptapod
