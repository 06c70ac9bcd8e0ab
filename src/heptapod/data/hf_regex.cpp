// PCRE2 compiled once per pattern, matched with a fresh match block per call (so one Regex serves any
// number of threads), JIT first and the interpreter where the JIT has no stack left.
#include "heptapod/data/hf_regex.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include <algorithm>

#include "heptapod/core/error.h"
#include "heptapod/data/utf8.h"

namespace heptapod::hf {

namespace {

// Oniguruma's classes, as PCRE2 class members (inside [...]) and as whole classes.
struct OnigClass {
  char letter;
  const char* members;
};
constexpr OnigClass kOnigClasses[] = {
    {'s', "\\x{9}-\\x{d}\\x{85}\\p{Z}"},
    {'w', "\\p{L}\\p{M}\\p{N}\\p{Pc}"},
    {'h', "0-9a-fA-F"},
};

const char* onig_members(char letter) {
  for (const OnigClass& c : kOnigClasses)
    if (c.letter == letter) return c.members;
  return nullptr;
}

std::string pcre2_message(int code) {
  PCRE2_UCHAR buffer[256];
  pcre2_get_error_message(code, buffer, sizeof buffer);
  return reinterpret_cast<const char*>(buffer);
}

}  // namespace

std::string onig_to_pcre2(const std::string& p, const std::string& where) {
  std::string out;
  bool in_class = false;
  for (std::size_t i = 0; i < p.size(); ++i) {
    const char c = p[i];
    if (c != '\\' || i + 1 == p.size()) {
      if (c == '[' && !in_class) {
        in_class = true;
        out += c;
        if (i + 1 < p.size() && p[i + 1] == '^') out += p[++i];
        if (i + 1 < p.size() && p[i + 1] == ']') out += p[++i];  // a leading ] is a member
        continue;
      }
      if (c == '[' && in_class) {  // a POSIX class is the same in both; a nested class is Oniguruma's alone
        const std::size_t end = p.compare(i, 2, "[:") == 0 ? p.find(":]", i + 2) : std::string::npos;
        require(end != std::string::npos, where + ": a character class inside a character class is not supported");
        out += p.substr(i, end + 2 - i);
        i = end + 1;
        continue;
      }
      require(!(in_class && c == '&' && i + 1 < p.size() && p[i + 1] == '&'),
              where + ": the intersection of character classes (&&) is not supported");
      if (c == ']' && in_class) in_class = false;
      out += c;
      continue;
    }
    const char e = p[++i];
    const char lower = static_cast<char>(e | 0x20);
    if (const char* members = onig_members(lower)) {
      const bool negated = e != lower;
      if (in_class) {
        require(!negated, where + ": \\" + std::string(1, e) + " inside a character class is not supported");
        out += members;
      } else {
        out += negated ? "[^" : "[";
        out += members;
        out += ']';
      }
    } else if (e == 'u' && i + 4 < p.size()) {  // \uHHHH, Oniguruma's (Ruby's) code point escape
      out += "\\x{" + p.substr(i + 1, 4) + "}";
      i += 4;
    } else {
      out += '\\';
      out += e;
    }
  }
  return out;
}

struct Regex::Code {
  pcre2_code* code = nullptr;
  ~Code() { pcre2_code_free(code); }
};

Regex::Regex(const std::string& pattern, bool literal, const std::string& where) {
  require(!pattern.empty(), where + ": an empty pattern is not supported");
  const std::string text = literal ? pattern : onig_to_pcre2(pattern, where);
  int error = 0;
  PCRE2_SIZE offset = 0;
  auto code = std::make_shared<Code>();
  code->code = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(text.data()), text.size(),
                             PCRE2_UTF | (literal ? PCRE2_LITERAL : PCRE2_UCP | PCRE2_MULTILINE), &error, &offset,
                             nullptr);
  require(code->code != nullptr, where + ": the pattern \"" + pattern + "\" is not a valid regular expression (" +
                                     pcre2_message(error) + " at offset " + std::to_string(offset) + ")");
  pcre2_jit_compile(code->code, PCRE2_JIT_COMPLETE);  // where the JIT is missing, pcre2_match interprets
  code_ = std::move(code);
}

Regex Regex::pattern(const std::string& pattern, const std::string& where) { return Regex(pattern, false, where); }

Regex Regex::literal(const std::string& text, const std::string& where) { return Regex(text, true, where); }

std::vector<Match> Regex::find_all(std::string_view text) const {
  std::unique_ptr<pcre2_match_data, void (*)(pcre2_match_data*)> data(
      pcre2_match_data_create_from_pattern(code_->code, nullptr), pcre2_match_data_free);
  require(data != nullptr, "out of memory for a regular expression match");
  const auto subject = reinterpret_cast<PCRE2_SPTR>(text.data());
  std::vector<Match> matches;
  std::uint32_t options = PCRE2_NO_UTF_CHECK;
  std::size_t start = 0;
  while (start <= text.size()) {
    int rc = pcre2_match(code_->code, subject, text.size(), start, options, data.get(), nullptr);
    if (rc == PCRE2_ERROR_JIT_STACKLIMIT) {
      options |= PCRE2_NO_JIT;
      rc = pcre2_match(code_->code, subject, text.size(), start, options, data.get(), nullptr);
    }
    if (rc == PCRE2_ERROR_NOMATCH) break;
    require(rc >= 0, "regular expression matching failed: " + pcre2_message(rc));
    const PCRE2_SIZE* range = pcre2_get_ovector_pointer(data.get());
    const std::size_t begin = range[0], end = range[1];
    if (end > begin) {
      matches.emplace_back(begin, end);
      start = end;
      continue;
    }
    if (matches.empty() || matches.back().second != begin) matches.emplace_back(begin, end);
    if (begin == text.size()) break;
    start = begin + std::max<std::size_t>(1, utf8_sequence_length(text, begin));  // past the empty match
  }
  return matches;
}

Regex read_pattern(const JsonNode& node) {
  const JsonNode pattern = node.child("pattern");
  if (pattern.has("String")) return Regex::literal(pattern.text("String"), pattern.where() + ".String");
  if (pattern.has("Regex")) return Regex::pattern(pattern.text("Regex"), pattern.where() + ".Regex");
  pattern.fail("must be {\"String\": ...} or {\"Regex\": ...}");
}

}  // namespace heptapod::hf
