// UTF-8 validation and decoding for user text.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace heptapod {

// Byte offset of the first invalid UTF-8 sequence (overlong forms, surrogates and code points past
// U+10FFFF are invalid), or std::string_view::npos when the text is valid.
std::size_t find_invalid_utf8(std::string_view text);

// The length of the valid UTF-8 sequence at text[i] (i < text.size()), or 0 when none starts there.
std::size_t utf8_sequence_length(std::string_view text, std::size_t i);

// Valid UTF-8 text from any bytes: every maximal ill-formed subsequence becomes one U+FFFD, as Python's
// bytes.decode("utf-8", "replace") and Hugging Face's decoders do.
std::string replace_invalid_utf8(std::string_view bytes);

// A token's bytes (Vocabulary::token_bytes) as text to show: the bytes themselves when they are valid UTF-8,
// else "bytes:" and every byte as \xNN (OpenAI's form for a token that holds part of a character).
std::string token_text(std::string_view bytes);

// The code point of the n-byte valid sequence at text[i] (n from utf8_sequence_length).
char32_t utf8_code_point(std::string_view text, std::size_t i, std::size_t n);

// Appends the UTF-8 bytes of code point c.
void append_utf8(char32_t c, std::string& out);

// Code points of valid UTF-8 text (call find_invalid_utf8 first).
std::vector<char32_t> decode_utf8(std::string_view text);

// The number of code points of valid UTF-8 text: its bytes that do not continue a sequence.
std::size_t count_code_points(std::string_view text);

// A text's length as bits per character and per byte divide it: the characters (code points) and bytes of
// its documents or lines, each one's end counted as one of each (its newline).
struct TextLength {
  long long characters = 0, bytes = 0;
  void add(std::string_view document) {
    characters += static_cast<long long>(count_code_points(document)) + 1;
    bytes += static_cast<long long>(document.size()) + 1;
  }
  double per_character(double bits) const { return bits / static_cast<double>(characters > 0 ? characters : 1); }
  double per_byte(double bits) const { return bits / static_cast<double>(bytes > 0 ? bytes : 1); }
};

}  // namespace heptapod
