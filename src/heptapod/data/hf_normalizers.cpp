// Reading and applying tokenizer.json's normalizers.
#include "heptapod/data/hf_normalizers.h"

#include "heptapod/data/utf8.h"

namespace heptapod::hf {

namespace {

constexpr const char* kSupported = "NFC, NFD, NFKC, NFKD, Lowercase, Strip, Prepend, Replace, Sequence";

void read_into(const JsonNode& node, std::vector<Normalizer>& out) {
  const std::string type = node.type();
  if (type == "Sequence") {
    for (const JsonNode& step : node.items("normalizers")) read_into(step, out);
  } else if (type == "NFC" || type == "NFD" || type == "NFKC" || type == "NFKD") {
    out.push_back(UnicodeForm{type == "NFC"    ? unicode::Form::NFC
                              : type == "NFD"  ? unicode::Form::NFD
                              : type == "NFKC" ? unicode::Form::NFKC
                                               : unicode::Form::NFKD});
  } else if (type == "Lowercase") {
    out.push_back(Lowercase{});
  } else if (type == "Strip") {
    out.push_back(Strip{node.boolean("strip_left", true), node.boolean("strip_right", true)});
  } else if (type == "Prepend") {
    out.push_back(Prepend{node.text("prepend")});
  } else if (type == "Replace") {
    out.push_back(read_replace(node));
  } else {
    node.unsupported("normalizer", type, kSupported);
  }
}

std::string lowercase(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (const char32_t c : decode_utf8(text)) {
    if (c == 0x130) {  // its full lower case is two characters, as Rust's char::to_lowercase gives it
      out += "i\xcc\x87";
      continue;
    }
    append_utf8(unicode::to_lower(c), out);
  }
  return out;
}

std::string strip(std::string_view text, const Strip& s) {
  std::size_t begin = 0, end = text.size();
  while (s.left && begin < end) {
    const std::size_t n = utf8_sequence_length(text, begin);
    if (!unicode::is_white_space(utf8_code_point(text, begin, n))) break;
    begin += n;
  }
  while (s.right && end > begin) {
    std::size_t start = end - 1;
    while (start > begin && (static_cast<unsigned char>(text[start]) & 0xC0) == 0x80) --start;
    if (!unicode::is_white_space(utf8_code_point(text, start, end - start))) break;
    end = start;
  }
  return std::string(text.substr(begin, end - begin));
}

}  // namespace

Replace read_replace(const JsonNode& node) {
  const std::string content = node.text("content");
  if (node.child("pattern").has("Regex") && content.find('$') != std::string::npos)
    node.fail("a Replace whose content \"" + content + "\" has \"$\" (a group reference) is not supported");
  return Replace{read_pattern(node), content};
}

std::string replace_all(const Replace& r, const std::string& text) {
  std::string out;
  std::size_t done = 0;
  for (const auto& [begin, end] : r.pattern.find_all(text)) {
    out.append(text, done, begin - done);
    out += r.content;
    done = end;
  }
  out.append(text, done);
  return out;
}

std::vector<Normalizer> read_normalizers(const JsonNode& tokenizer_json) {
  std::vector<Normalizer> steps;
  if (tokenizer_json.has("normalizer")) read_into(tokenizer_json.child("normalizer"), steps);
  return steps;
}

std::string normalize(const std::vector<Normalizer>& steps, std::string text) {
  for (const Normalizer& step : steps) {
    if (const auto* u = std::get_if<UnicodeForm>(&step)) text = unicode::normalized(text, u->form);
    else if (std::holds_alternative<Lowercase>(step)) text = lowercase(text);
    else if (const auto* s = std::get_if<Strip>(&step)) text = strip(text, *s);
    else if (const auto* p = std::get_if<Prepend>(&step)) text = text.empty() ? text : p->prefix + text;
    else text = replace_all(std::get<Replace>(step), text);
  }
  return text;
}

}  // namespace heptapod::hf
