// UTF-8 validation (RFC 3629) and decoding.
#include "heptapod/data/utf8.h"

namespace heptapod {

namespace {
// What a lead byte starts: the sequence's length (0: no sequence) and the range of its second byte.
struct Lead {
  std::size_t length = 0;
  unsigned lo = 0x80, hi = 0xBF;
};

Lead lead_of(unsigned c) {
  if (c < 0x80) return {1};
  if (c >= 0xC2 && c <= 0xDF) return {2};
  if (c == 0xE0) return {3, 0xA0, 0xBF};
  if (c == 0xED) return {3, 0x80, 0x9F};
  if ((c >= 0xE1 && c <= 0xEC) || c == 0xEE || c == 0xEF) return {3};
  if (c == 0xF0) return {4, 0x90, 0xBF};
  if (c >= 0xF1 && c <= 0xF3) return {4};
  if (c == 0xF4) return {4, 0x80, 0x8F};
  return {};
}

// The number of bytes at s[i] that begin a well-formed sequence (at least 1): the whole sequence when it is
// valid, else its longest valid prefix (Unicode's "maximal subpart"), or the lone byte.
std::size_t well_formed_prefix(std::string_view s, std::size_t i) {
  const auto b = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
  const Lead lead = lead_of(b(i));
  if (lead.length <= 1 || i + 1 >= s.size() || b(i + 1) < lead.lo || b(i + 1) > lead.hi) return 1;
  std::size_t n = 2;
  while (n < lead.length && i + n < s.size() && b(i + n) >= 0x80 && b(i + n) <= 0xBF) ++n;
  return n;
}
}  // namespace

std::size_t utf8_sequence_length(std::string_view s, std::size_t i) {
  const std::size_t n = lead_of(static_cast<unsigned char>(s[i])).length;
  return n > 0 && well_formed_prefix(s, i) == n ? n : 0;
}

char32_t utf8_code_point(std::string_view s, std::size_t i, std::size_t n) {
  char32_t cp = static_cast<unsigned char>(s[i]) & (n == 1 ? 0x7F : n == 2 ? 0x1F : n == 3 ? 0x0F : 0x07);
  for (std::size_t k = 1; k < n; ++k) cp = (cp << 6) | (static_cast<unsigned char>(s[i + k]) & 0x3F);
  return cp;
}

void append_utf8(char32_t c, std::string& out) {
  if (c < 0x80) {
    out += static_cast<char>(c);
  } else if (c < 0x800) {
    out += static_cast<char>(0xC0 | (c >> 6));
    out += static_cast<char>(0x80 | (c & 0x3F));
  } else if (c < 0x10000) {
    out += static_cast<char>(0xE0 | (c >> 12));
    out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (c & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (c >> 18));
    out += static_cast<char>(0x80 | ((c >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (c & 0x3F));
  }
}

std::string replace_invalid_utf8(std::string_view bytes) {
  static constexpr std::string_view kReplacement = "\xEF\xBF\xBD";
  std::string out;
  out.reserve(bytes.size());
  for (std::size_t i = 0; i < bytes.size();) {
    const std::size_t n = utf8_sequence_length(bytes, i);
    if (n > 0) {
      out.append(bytes.substr(i, n));
      i += n;
    } else {
      out.append(kReplacement);
      i += well_formed_prefix(bytes, i);
    }
  }
  return out;
}

std::size_t find_invalid_utf8(std::string_view text) {
  for (std::size_t i = 0; i < text.size();) {
    const std::size_t n = utf8_sequence_length(text, i);
    if (n == 0) return i;
    i += n;
  }
  return std::string_view::npos;
}

std::vector<char32_t> decode_utf8(std::string_view text) {
  std::vector<char32_t> out;
  for (std::size_t i = 0; i < text.size();) {
    const std::size_t n = utf8_sequence_length(text, i);
    if (n == 0) {
      out.push_back(0xFFFD);
      ++i;
      continue;
    }
    out.push_back(utf8_code_point(text, i, n));
    i += n;
  }
  return out;
}

std::size_t count_code_points(std::string_view text) {
  std::size_t n = 0;
  for (const char c : text) n += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  return n;
}

std::string token_text(std::string_view bytes) {
  if (find_invalid_utf8(bytes) == std::string_view::npos) return std::string(bytes);
  static constexpr char kHex[] = "0123456789abcdef";
  std::string text = "bytes:";
  for (const char c : bytes) {
    const auto b = static_cast<unsigned char>(c);
    text += {'\\', 'x', kHex[b >> 4], kHex[b & 15]};
  }
  return text;
}

}  // namespace heptapod
