// LibreTranslate's and the native request and reply formats.
#include "heptapod/serve/translation_api.h"

#include <algorithm>
#include <map>
#include <set>

namespace heptapod {

namespace {

using nlohmann::json;

std::size_t code_points(const std::string& text) {
  std::size_t n = 0;
  for (unsigned char c : text) n += (c & 0xC0) != 0x80;
  return n;
}

// The call's texts from the field `name`, with the server's default search options and timeout.
TranslationCall call_from(const json& body, const std::string& name, const ServerOptions& server) {
  std::optional<TextField> text = text_field(body, name);
  if (!text) throw HttpError(400, "Invalid request: missing " + name + " parameter");
  TranslationCall call;
  call.texts = std::move(text->texts);
  call.texts_array = text->is_array;
  call.source = string_field(body, "source").value_or("");
  call.target = string_field(body, "target").value_or("");
  call.api_key = string_field(body, "api_key").value_or("");
  call.options = server.defaults;
  call.timeout = server.limits.timeout;
  return call;
}

// Joins the lines of text t of hypothesis rank `rank` (the best where a line has fewer).
std::string joined(const TranslationCall& call, const std::vector<Translation>& out, std::size_t first_line,
                   std::size_t t, std::size_t rank) {
  std::string text;
  for (std::size_t i = 0; i < call.line_counts[t]; ++i) {
    if (i) text += '\n';
    const Translation& tr = out[first_line + i];
    if (!tr.hypotheses.empty()) text += tr.hypotheses[std::min(rank, tr.hypotheses.size() - 1)].text;
  }
  return text;
}

}  // namespace

void split_lines(TranslationCall& call) {
  call.lines.clear();
  call.line_counts.clear();
  for (const std::string& text : call.texts) {
    std::size_t at = 0, count = 0;
    for (;;) {
      const std::size_t end = text.find('\n', at);
      std::string line = text.substr(at, end == std::string::npos ? std::string::npos : end - at);
      if (!line.empty() && line.back() == '\r') line.pop_back();
      call.lines.push_back(std::move(line));
      ++count;
      if (end == std::string::npos) break;
      at = end + 1;
    }
    call.line_counts.push_back(count);
  }
}

void check_limits(const TranslationCall& call, const RequestLimits& limits) {
  std::size_t chars = 0;
  for (const std::string& t : call.texts) chars += code_points(t);
  if (chars > static_cast<std::size_t>(limits.max_characters))
    throw HttpError(400, "Invalid request: request (" + std::to_string(chars) + " characters) exceeds text limit (" +
                             std::to_string(limits.max_characters) + ")");
  if (call.lines.size() > static_cast<std::size_t>(limits.max_sentences))
    throw HttpError(400, "Invalid request: request (" + std::to_string(call.lines.size()) +
                             " lines) exceeds the sentence limit (" + std::to_string(limits.max_sentences) + ")");
}

TranslationCall parse_libretranslate(const json& body, const ServerOptions& server) {
  TranslationCall call = call_from(body, "q", server);
  const std::string format = string_field(body, "format").value_or("text");
  if (format != "text") throw HttpError(400, "Invalid request: field format: \"" + format + "\" is not supported (text only)");
  call.alternatives = int_field(body, "alternatives", 0, 0, server.limits.max_nbest - 1);
  SearchOptions& s = call.options.search;
  s.nbest = std::max(s.nbest, call.alternatives + 1);
  s.beam = std::max(s.beam, s.nbest);
  split_lines(call);
  check_limits(call, server.limits);
  return call;
}

json libretranslate_reply(const TranslationCall& call, const std::vector<Translation>& out, const ModelSpec& model) {
  json texts = json::array(), alternatives = json::array();
  std::size_t line = 0;
  for (std::size_t t = 0; t < call.texts.size(); ++t) {
    texts.push_back(joined(call, out, line, t, 0));
    json alt = json::array();
    // As many alternatives as every line of the text has (fewer when the search found fewer).
    std::size_t have = static_cast<std::size_t>(call.alternatives);
    for (std::size_t i = 0; i < call.line_counts[t]; ++i)
      if (!out[line + i].hypotheses.empty()) have = std::min(have, out[line + i].hypotheses.size() - 1);
    for (std::size_t r = 1; r <= have; ++r) alt.push_back(joined(call, out, line, t, r));
    alternatives.push_back(std::move(alt));
    line += call.line_counts[t];
  }
  json reply;
  reply["translatedText"] = call.texts_array ? texts : texts[0];
  if (call.alternatives > 0) reply["alternatives"] = call.texts_array ? alternatives : alternatives[0];
  if (call.source == "auto") {
    json detected = {{"language", model.named() ? model.source : "auto"}, {"confidence", 100}};
    reply["detectedLanguage"] = call.texts_array ? json(std::vector<json>(call.texts.size(), detected)) : detected;
  }
  return reply;
}

TranslationCall parse_native(const json& body, const ServerOptions& server) {
  TranslationCall call = call_from(body, "text", server);
  if (const std::optional<std::string> model = string_field(body, "model")) {
    const std::optional<PairName> pair = split_pair_name(*model);
    if (!pair)
      throw HttpError(400, "Invalid request: field model: must read SOURCE-TARGET or SOURCE-TARGET:VARIANT, e.g. es-en");
    call.model = *model;
    call.source = pair->source;
    call.target = pair->target;
  }
  for (std::size_t i = 0; i < call.texts.size(); ++i)
    if (call.texts[i].find('\n') != std::string::npos)
      throw HttpError(400, "Invalid request: field text" + (call.texts_array ? "[" + std::to_string(i) + "]" : "") +
                               ": one sentence per element, without line breaks");
  const RequestLimits& limits = server.limits;
  SearchOptions& s = call.options.search;
  s.nbest = int_field(body, "nbest", s.nbest, 1, limits.max_nbest);
  s.beam = std::max(int_field(body, "beam", s.beam, 1, limits.max_beam), s.nbest);
  if (s.beam > limits.max_beam)
    throw HttpError(400, "Invalid request: field nbest: needs a beam of " + std::to_string(s.beam) + ", above the limit " +
                             std::to_string(limits.max_beam));
  s.length_penalty = static_cast<float>(number_field(body, "alpha", s.length_penalty, 0, 10));
  s.max_extra_length = int_field(body, "max_extra_length", s.max_extra_length, 0, limits.max_extra_length);
  s.min_length = int_field(body, "min_length", s.min_length, 0, limits.max_extra_length);
  call.alignments = bool_field(body, "alignments", false);
  call.tokens = bool_field(body, "tokens", false);
  call.timeout = timeout_field(body, limits.timeout);
  split_lines(call);
  check_limits(call, limits);
  return call;
}

json native_reply(const TranslationCall& call, const std::vector<Translation>& out, const ModelSpec& model) {
  json translations = json::array();
  for (const Translation& t : out) {
    json hypotheses = json::array();
    for (const TranslatedHypothesis& h : t.hypotheses) {
      json item = {{"text", h.text}, {"score", h.score}, {"log_prob", h.log_prob}};
      if (call.alignments) item["alignment"] = h.alignment;
      if (call.tokens) item["tokens"] = h.tokens;
      hypotheses.push_back(std::move(item));
    }
    json entry = {{"hypotheses", std::move(hypotheses)}};
    if (!t.warning.empty()) entry["warning"] = t.warning;
    translations.push_back(std::move(entry));
  }
  return {{"model", model.id()}, {"translations", std::move(translations)}};
}

json languages_reply(const std::vector<ModelSpec>& models, const std::vector<std::vector<std::string>>& multilingual) {
  // Every language a client may name, targets without a model from them included (with no targets).
  std::map<std::string, std::set<std::string>> targets;
  for (const ModelSpec& m : models) {
    const std::string source = m.named() ? m.source : "src", target = m.named() ? m.target : "tgt";
    targets[source].insert(target);
    targets[target];
  }
  for (const std::vector<std::string>& codes : multilingual)
    for (const std::string& source : codes)
      for (const std::string& target : codes)
        if (target != source) targets[source].insert(target);
  json reply = json::array();
  for (const auto& [code, to] : targets)
    reply.push_back({{"code", code}, {"name", language_name(code)}, {"targets", std::vector<std::string>(to.begin(), to.end())}});
  return reply;
}

}  // namespace heptapod
