// Python's str operations on UTF-8 text (see jinja_pystring.h).
#include "heptapod/data/jinja_pystring.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>

#include "heptapod/data/jinja_value.h"
#include "heptapod/data/unicode_text.h"
#include "heptapod/data/utf8.h"

namespace heptapod::jinja::py {

std::u32string decode(std::string_view text) {
  const std::vector<char32_t> points = decode_utf8(text);
  return std::u32string(points.begin(), points.end());
}

std::string encode(std::u32string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char32_t c : text) append_utf8(c, out);
  return out;
}

bool is_space(char32_t c) { return unicode::is_white_space(c) || (c >= 0x1C && c <= 0x1F); }

std::string strip(std::string_view text, const std::optional<std::string>& chars, bool left, bool right) {
  const std::u32string s = decode(text);
  const std::u32string set = chars ? decode(*chars) : std::u32string();
  auto stripped = [&](char32_t c) { return chars ? set.find(c) != std::u32string::npos : is_space(c); };
  std::size_t begin = 0, end = s.size();
  if (left) {
    while (begin < end && stripped(s[begin])) ++begin;
  }
  if (right) {
    while (end > begin && stripped(s[end - 1])) --end;
  }
  return encode(std::u32string_view(s).substr(begin, end - begin));
}

namespace {

void require_separator(const std::optional<std::string>& sep) {
  if (sep && sep->empty()) throw RenderError("split: empty separator");
}

}  // namespace

std::vector<std::string> split(std::string_view text, const std::optional<std::string>& sep, std::int64_t maxsplit) {
  require_separator(sep);
  std::vector<std::string> parts;
  if (sep) {
    std::size_t start = 0;
    while (maxsplit < 0 || static_cast<std::int64_t>(parts.size()) < maxsplit) {
      const std::size_t at = text.find(*sep, start);
      if (at == std::string_view::npos) break;
      parts.emplace_back(text.substr(start, at - start));
      start = at + sep->size();
    }
    parts.emplace_back(text.substr(start));
    return parts;
  }
  const std::u32string s = decode(text);
  std::size_t i = 0;
  while (true) {
    while (i < s.size() && is_space(s[i])) ++i;
    if (i == s.size()) break;
    if (maxsplit >= 0 && static_cast<std::int64_t>(parts.size()) == maxsplit) {
      parts.push_back(encode(std::u32string_view(s).substr(i)));
      break;
    }
    std::size_t j = i;
    while (j < s.size() && !is_space(s[j])) ++j;
    parts.push_back(encode(std::u32string_view(s).substr(i, j - i)));
    i = j;
  }
  return parts;
}

std::vector<std::string> rsplit(std::string_view text, const std::optional<std::string>& sep,
                                std::int64_t maxsplit) {
  require_separator(sep);
  std::vector<std::string> parts;
  if (sep) {
    std::size_t end = text.size();
    while (maxsplit < 0 || static_cast<std::int64_t>(parts.size()) < maxsplit) {
      if (end < sep->size()) break;
      const std::size_t at = text.rfind(*sep, end - sep->size());
      if (at == std::string_view::npos) break;
      parts.emplace_back(text.substr(at + sep->size(), end - at - sep->size()));
      end = at;
    }
    parts.emplace_back(text.substr(0, end));
  } else {
    const std::u32string s = decode(text);
    std::size_t j = s.size();
    while (true) {
      while (j > 0 && is_space(s[j - 1])) --j;
      if (j == 0) break;
      if (maxsplit >= 0 && static_cast<std::int64_t>(parts.size()) == maxsplit) {
        parts.push_back(encode(std::u32string_view(s).substr(0, j)));
        break;
      }
      std::size_t i = j;
      while (i > 0 && !is_space(s[i - 1])) --i;
      parts.push_back(encode(std::u32string_view(s).substr(i, j - i)));
      j = i;
    }
  }
  std::reverse(parts.begin(), parts.end());
  return parts;
}

std::vector<std::string> splitlines(std::string_view text) {
  const std::u32string s = decode(text);
  auto is_break = [](char32_t c) {
    return c == U'\n' || c == U'\r' || c == 0x0B || c == 0x0C || (c >= 0x1C && c <= 0x1E) || c == 0x85 ||
           c == 0x2028 || c == 0x2029;
  };
  std::vector<std::string> lines;
  std::size_t start = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (!is_break(s[i])) continue;
    lines.push_back(encode(std::u32string_view(s).substr(start, i - start)));
    if (s[i] == U'\r' && i + 1 < s.size() && s[i + 1] == U'\n') ++i;
    start = i + 1;
  }
  if (start < s.size()) lines.push_back(encode(std::u32string_view(s).substr(start)));
  return lines;
}

std::string replace(std::string_view text, std::string_view old, std::string_view replacement, std::int64_t count) {
  std::string out;
  std::int64_t done = 0;
  if (old.empty()) {  // Python puts the replacement before every code point and at the end
    const std::u32string s = decode(text);
    for (char32_t c : s) {
      if (count < 0 || done < count) {
        out += replacement;
        ++done;
      }
      append_utf8(c, out);
    }
    if (count < 0 || done < count) out += replacement;
    return out;
  }
  std::size_t start = 0;
  while (count < 0 || done < count) {
    const std::size_t at = text.find(old, start);
    if (at == std::string_view::npos) break;
    out.append(text.substr(start, at - start));
    out.append(replacement);
    start = at + old.size();
    ++done;
  }
  out.append(text.substr(start));
  return out;
}

std::int64_t find(std::string_view text, std::string_view sub) {
  const std::size_t at = text.find(sub);
  return at == std::string_view::npos ? -1 : static_cast<std::int64_t>(count_code_points(text.substr(0, at)));
}

std::int64_t rfind(std::string_view text, std::string_view sub) {
  const std::size_t at = text.rfind(sub);
  return at == std::string_view::npos ? -1 : static_cast<std::int64_t>(count_code_points(text.substr(0, at)));
}

std::int64_t count(std::string_view text, std::string_view sub) {
  if (sub.empty()) return static_cast<std::int64_t>(count_code_points(text)) + 1;
  std::int64_t n = 0;
  for (std::size_t at = text.find(sub); at != std::string_view::npos; at = text.find(sub, at + sub.size())) ++n;
  return n;
}

namespace {

// Code points whose Python case mappings are not one code point to one (Unicode's SpecialCasing.txt, and the
// final sigma Python lowers by context): refused rather than mapped wrong.
bool has_special_casing(char32_t c) {
  if (c == 0xDF || c == 0x130 || c == 0x149 || c == 0x1F0 || c == 0x390 || c == 0x3A3 || c == 0x3B0 ||
      c == 0x587)
    return true;
  if ((c >= 0x1E96 && c <= 0x1E9A) || (c >= 0x1F50 && c <= 0x1F56 && c % 2 == 0)) return true;
  if (c >= 0x1F80 && c <= 0x1FFC) {
    if (c <= 0x1FAF) return true;
    static const char32_t greek[] = {0x1FB2, 0x1FB3, 0x1FB4, 0x1FB6, 0x1FB7, 0x1FBC, 0x1FC2, 0x1FC3, 0x1FC4,
                                     0x1FC6, 0x1FC7, 0x1FCC, 0x1FD2, 0x1FD3, 0x1FD6, 0x1FD7, 0x1FE2, 0x1FE3,
                                     0x1FE4, 0x1FE6, 0x1FE7, 0x1FF2, 0x1FF3, 0x1FF4, 0x1FF6, 0x1FF7, 0x1FFC};
    return std::find(std::begin(greek), std::end(greek), c) != std::end(greek);
  }
  return (c >= 0xFB00 && c <= 0xFB06) || (c >= 0xFB13 && c <= 0xFB17);
}

std::u32string decode_for_case(std::string_view text, const char* operation) {
  std::u32string s = decode(text);
  for (char32_t c : s) {
    if (has_special_casing(c)) {
      std::string character;
      append_utf8(c, character);
      throw RenderError(std::string(operation) + " of '" + character +
                        "' needs Unicode's special casing, which is not supported");
    }
  }
  return s;
}

}  // namespace

std::string upper(std::string_view text) {
  std::u32string s = decode_for_case(text, "upper()");
  for (char32_t& c : s) c = unicode::to_upper(c);
  return encode(s);
}

std::string lower(std::string_view text) {
  std::u32string s = decode_for_case(text, "lower()");
  for (char32_t& c : s) c = unicode::to_lower(c);
  return encode(s);
}

std::string title(std::string_view text) {
  std::u32string s = decode_for_case(text, "title()");
  bool previous_is_cased = false;
  for (char32_t& c : s) {
    const bool cased = unicode::is_cased(c);
    c = previous_is_cased ? unicode::to_lower(c) : unicode::to_title(c);
    previous_is_cased = cased;
  }
  return encode(s);
}

std::string capitalize(std::string_view text) {
  std::u32string s = decode_for_case(text, "capitalize()");
  for (std::size_t i = 0; i < s.size(); ++i) s[i] = i == 0 ? unicode::to_title(s[i]) : unicode::to_lower(s[i]);
  return encode(s);
}

std::string jinja_title(std::string_view text) {
  std::u32string s = decode_for_case(text, "title");
  auto separator = [](char32_t c) { return is_space(c) || c == U'-' || c == U'(' || c == U'{' || c == U'[' || c == U'<'; };
  // Each run of separators and each run of other characters is an item; an item's first character goes to upper
  // case and the rest to lower case (separators have no case).
  for (std::size_t i = 0; i < s.size();) {
    const bool sep = separator(s[i]);
    std::size_t j = i;
    while (j < s.size() && separator(s[j]) == sep) ++j;
    for (std::size_t k = i; k < j; ++k) s[k] = k == i ? unicode::to_upper(s[k]) : unicode::to_lower(s[k]);
    i = j;
  }
  return encode(s);
}

std::string repr(std::string_view text) {
  const bool has_single = text.find('\'') != std::string_view::npos;
  const bool has_double = text.find('"') != std::string_view::npos;
  const char quote = has_single && !has_double ? '"' : '\'';
  std::string out(1, quote);
  for (char32_t c : decode(text)) {
    if (c == static_cast<char32_t>(quote) || c == U'\\') {
      out += '\\';
      append_utf8(c, out);
    } else if (c == U'\n') {
      out += "\\n";
    } else if (c == U'\r') {
      out += "\\r";
    } else if (c == U'\t') {
      out += "\\t";
    } else if (unicode::is_printable(c)) {
      append_utf8(c, out);
    } else {
      char buffer[16];
      if (c < 0x100)
        std::snprintf(buffer, sizeof buffer, "\\x%02x", static_cast<unsigned>(c));
      else if (c < 0x10000)
        std::snprintf(buffer, sizeof buffer, "\\u%04x", static_cast<unsigned>(c));
      else
        std::snprintf(buffer, sizeof buffer, "\\U%08x", static_cast<unsigned>(c));
      out += buffer;
    }
  }
  out += quote;
  return out;
}

std::string float_repr(double value) {
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value < 0 ? "-inf" : "inf";
  // The shortest digits that read back as `value`, as d.ddde[+-]x, then laid out as Python's repr does: fixed
  // for decimal exponents -4 .. 15 (with ".0" when there is no fraction), scientific otherwise.
  char buffer[64];
  const auto result = std::to_chars(buffer, buffer + sizeof buffer, value, std::chars_format::scientific);
  std::string text(buffer, result.ptr);
  std::string sign;
  if (text[0] == '-') {
    sign = "-";
    text.erase(0, 1);
  }
  const std::size_t e = text.find('e');
  const int exponent = std::stoi(text.substr(e + 1));
  std::string digits = text.substr(0, e);
  digits.erase(std::remove(digits.begin(), digits.end(), '.'), digits.end());
  if (exponent >= -4 && exponent < 16) {
    std::string out;
    if (exponent < 0) {
      out = "0." + std::string(static_cast<std::size_t>(-exponent - 1), '0') + digits;
    } else if (static_cast<std::size_t>(exponent) + 1 >= digits.size()) {
      out = digits + std::string(static_cast<std::size_t>(exponent) + 1 - digits.size(), '0') + ".0";
    } else {
      out = digits.substr(0, static_cast<std::size_t>(exponent) + 1) + "." +
            digits.substr(static_cast<std::size_t>(exponent) + 1);
    }
    return sign + out;
  }
  std::string mantissa = digits.substr(0, 1);
  if (digits.size() > 1) mantissa += "." + digits.substr(1);
  char exp[16];
  std::snprintf(exp, sizeof exp, "e%c%02d", exponent < 0 ? '-' : '+', exponent < 0 ? -exponent : exponent);
  return sign + mantissa + exp;
}

std::vector<std::int64_t> slice_indices(std::int64_t size, std::optional<std::int64_t> start,
                                        std::optional<std::int64_t> stop, std::optional<std::int64_t> step) {
  const std::int64_t s = step.value_or(1);
  if (s == 0) throw RenderError("slice step cannot be zero");
  // Python's PySlice_AdjustIndices.
  auto adjust = [&](std::optional<std::int64_t> index, std::int64_t fallback) {
    if (!index) return fallback;
    std::int64_t i = *index;
    if (i < 0) {
      i += size;
      if (i < 0) i = s < 0 ? -1 : 0;
    } else if (i >= size) {
      i = s < 0 ? size - 1 : size;
    }
    return i;
  };
  const std::int64_t first = adjust(start, s < 0 ? size - 1 : 0);
  const std::int64_t last = adjust(stop, s < 0 ? -1 : size);
  std::vector<std::int64_t> indices;
  for (std::int64_t i = first; s > 0 ? i < last : i > last; i += s) indices.push_back(i);
  return indices;
}

}  // namespace heptapod::jinja::py
