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

// Code points of valid UTF-8 text (call find_invalid_utf8 first).
std::vector<char32_t> decode_utf8(std::string_view text);

// The number of code points of valid UTF-8 text: its bytes that do not continue a sequence.
std::size_t count_code_points(std::string_view text);

}  // namespace heptapod
