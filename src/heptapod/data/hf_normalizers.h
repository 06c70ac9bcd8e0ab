// The normalizers of a tokenizer.json ("normalizer"): NFC, NFD, NFKC, NFKD (utf8proc), Lowercase, Strip,
// Prepend, Replace (a string or a regular expression) and Sequence (read as its steps in order). The others
// (BertNormalizer, StripAccents, Nmt, Precompiled, ByteLevel) are refused by name. Each step rewrites the
// text of one part of the input (the text between added tokens), as Hugging Face's tokenizers do.
#pragma once

#include <string>
#include <variant>
#include <vector>

#include "heptapod/data/hf_json.h"
#include "heptapod/data/hf_regex.h"
#include "heptapod/data/unicode_text.h"

namespace heptapod::hf {

struct UnicodeForm {
  unicode::Form form;
};
struct Lowercase {};  // Unicode's lower case of each character (U+0130 becomes "i" and U+0307)
struct Strip {        // white space at either end (the White_Space property)
  bool left = true, right = true;
};
struct Prepend {  // before any non-empty text
  std::string prefix;
};
struct Replace {  // every match of the pattern, left to right, by `content`
  Regex pattern;
  std::string content;
};
using Normalizer = std::variant<UnicodeForm, Lowercase, Strip, Prepend, Replace>;

// A Replace step (the normalizer's and the decoder's): "pattern" and "content". A regular expression's
// content is taken literally, so "$" in it (a group reference to newer tokenizers) is refused.
Replace read_replace(const JsonNode& node);
// The text with every match replaced.
std::string replace_all(const Replace& r, const std::string& text);

// The "normalizer" node (absent or null: none) as its steps in order.
std::vector<Normalizer> read_normalizers(const JsonNode& tokenizer_json);

// The text after every step.
std::string normalize(const std::vector<Normalizer>& steps, std::string text);

}  // namespace heptapod::hf
