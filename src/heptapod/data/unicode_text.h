// The Unicode facts pre-trained tokenizers cut text by (GPT-2's byte-level BPE, BERT's WordPiece, tokenizer.json's
// pipelines): general categories, white space, lower case, decomposition and the normalization forms, from
// utf8proc's tables.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace heptapod::unicode {

bool is_letter(char32_t c);       // category L*
bool is_number(char32_t c);       // category N*
bool is_white_space(char32_t c);  // the White_Space property
bool is_control(char32_t c);      // category Cc or Cf
bool is_punctuation(char32_t c);  // category P*
bool is_nonspacing_mark(char32_t c);  // category Mn
// A word character as Rust's regex \w has it: Alphabetic (letters, letter numbers, and the circled and
// squared Latin letters), marks, decimal digits, connector punctuation and the joiners U+200C and U+200D.
bool is_word_character(char32_t c);
// BERT's "Chinese characters": the CJK Unified Ideographs blocks and their extensions A-E, and the
// compatibility ideographs.
bool is_cjk_ideograph(char32_t c);

char32_t to_lower(char32_t c);  // the simple lower-case mapping
char32_t to_upper(char32_t c);  // the simple upper-case mapping
char32_t to_title(char32_t c);  // the simple title-case mapping
bool is_cased(char32_t c);      // category Lu, Ll or Lt
// Python's str.isprintable() for one code point: not in Cc, Cf, Cs, Co, Cn, Zl, Zp, nor Zs other than the space.
bool is_printable(char32_t c);
// The canonical decomposition (NFD) of one code point, appended to `out`.
void append_decomposition(char32_t c, std::vector<char32_t>& out);

// Valid UTF-8 text in one of Unicode's four normalization forms.
enum class Form { NFC, NFD, NFKC, NFKD };
std::string normalized(std::string_view text, Form form);

}  // namespace heptapod::unicode
