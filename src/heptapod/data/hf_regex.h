// The regular expressions of tokenizer.json (Split pre-tokenizers, Replace normalizers and decoders) through
// PCRE2 (UTF-8, Unicode properties, JIT-compiled where the platform has it), with the meaning Hugging Face's
// tokenizers give them: they compile these patterns with Oniguruma, whose \s, \w and \h differ from PCRE2's,
// so those are rewritten into the classes Oniguruma means (\s: U+0009-U+000D, U+0085 and the separators Z*;
// \w: letters, marks, numbers and connector punctuation; \h: a hexadecimal digit), and ^ and $ match at line
// ends as in Oniguruma's (Ruby's) syntax. What PCRE2 cannot say the same way (a class nested in a class, &&)
// is refused.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "heptapod/data/hf_json.h"

namespace heptapod::hf {

// A match: the byte range [first, second) of the text.
using Match = std::pair<std::size_t, std::size_t>;

class Regex {
 public:
  // A pattern in Oniguruma's syntax; `where` names it in errors (an invalid pattern, \S, \W or \H inside a
  // character class, a nested class, an intersection).
  static Regex pattern(const std::string& pattern, const std::string& where);
  // A literal string (a pattern's "String" form).
  static Regex literal(const std::string& text, const std::string& where);

  // The leftmost-first, non-overlapping matches in valid UTF-8 text, left to right. An empty match right
  // after the previous match is skipped, as Rust's regex crates do.
  std::vector<Match> find_all(std::string_view text) const;

 private:
  struct Code;
  Regex(const std::string& pattern, bool literal, const std::string& where);
  std::shared_ptr<const Code> code_;
};

// A node's "pattern": {"String": s} or {"Regex": r} (Split, Replace).
Regex read_pattern(const JsonNode& node);

// An Oniguruma pattern rewritten for PCRE2 (exposed for its tests); `where` names it in errors.
std::string onig_to_pcre2(const std::string& pattern, const std::string& where);

}  // namespace heptapod::hf
