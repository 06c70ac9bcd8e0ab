// BLEU as sacreBLEU 2.x computes it, and the Python string rules (UTF-8, whitespace, lowercase) it rests on.
// See bleu.h for the exact behaviour replicated and where it comes from.
#include "heptapod/eval/bleu.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <unordered_map>

#include "heptapod/core/error.h"

namespace heptapod::eval {

// ---- UTF-8 ------------------------------------------------------------------------------------------------

bool decode_utf8(std::string_view text, std::u32string& out, std::size_t* bad_offset) {
  out.clear();
  out.reserve(text.size());
  const auto* s = reinterpret_cast<const unsigned char*>(text.data());
  const std::size_t n = text.size();
  std::size_t i = 0;
  while (i < n) {
    const unsigned char b = s[i];
    if (b < 0x80) {
      out.push_back(b);
      ++i;
      continue;
    }
    int len = 0;
    char32_t cp = 0;
    unsigned char lo = 0x80, hi = 0xBF;  // the allowed range of the second byte (Unicode table 3-7)
    if (b >= 0xC2 && b <= 0xDF) {
      len = 2, cp = b & 0x1F;
    } else if (b >= 0xE0 && b <= 0xEF) {
      len = 3, cp = b & 0x0F;
      if (b == 0xE0) lo = 0xA0;  // no overlongs
      if (b == 0xED) hi = 0x9F;  // no surrogates
    } else if (b >= 0xF0 && b <= 0xF4) {
      len = 4, cp = b & 0x07;
      if (b == 0xF0) lo = 0x90;  // no overlongs
      if (b == 0xF4) hi = 0x8F;  // nothing past U+10FFFF
    } else {
      if (bad_offset) *bad_offset = i;
      return false;
    }
    if (i + len > n) {
      if (bad_offset) *bad_offset = i;
      return false;
    }
    for (int k = 1; k < len; ++k) {
      const unsigned char c = s[i + k];
      const bool ok = k == 1 ? (c >= lo && c <= hi) : (c >= 0x80 && c <= 0xBF);
      if (!ok) {
        if (bad_offset) *bad_offset = i;
        return false;
      }
      cp = (cp << 6) | (c & 0x3F);
    }
    out.push_back(cp);
    i += len;
  }
  return true;
}

bool is_valid_utf8(std::string_view text, std::size_t* bad_offset) {
  std::u32string scratch;
  return decode_utf8(text, scratch, bad_offset);
}

std::u32string to_u32(std::string_view utf8) {
  std::u32string out;
  std::size_t bad = 0;
  require(decode_utf8(utf8, out, &bad), "invalid UTF-8 at byte " + std::to_string(bad + 1));
  return out;
}

void require_utf8(std::string_view text, const std::string& where) {
  std::size_t bad = 0;
  if (!is_valid_utf8(text, &bad)) throw Error(where + ": invalid UTF-8 at byte " + std::to_string(bad + 1));
}

namespace {

void append_utf8(std::string& out, char32_t c) {
  if (c < 0x80) {
    out.push_back(static_cast<char>(c));
  } else if (c < 0x800) {
    out.push_back(static_cast<char>(0xC0 | (c >> 6)));
    out.push_back(static_cast<char>(0x80 | (c & 0x3F)));
  } else if (c < 0x10000) {
    out.push_back(static_cast<char>(0xE0 | (c >> 12)));
    out.push_back(static_cast<char>(0x80 | ((c >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (c & 0x3F)));
  } else {
    out.push_back(static_cast<char>(0xF0 | (c >> 18)));
    out.push_back(static_cast<char>(0x80 | ((c >> 12) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | ((c >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (c & 0x3F)));
  }
}

// Decodes the code point starting at s[i] of valid UTF-8 and returns its byte length.
int next_code_point(std::string_view s, std::size_t i, char32_t& cp) {
  const auto b = static_cast<unsigned char>(s[i]);
  int len = b < 0x80 ? 1 : b < 0xE0 ? 2 : b < 0xF0 ? 3 : 4;
  if (i + len > s.size()) len = static_cast<int>(s.size() - i);  // only on invalid input
  cp = len == 1 ? b : len == 2 ? (b & 0x1F) : len == 3 ? (b & 0x0F) : (b & 0x07);
  for (int k = 1; k < len; ++k) cp = (cp << 6) | (static_cast<unsigned char>(s[i + k]) & 0x3F);
  return len;
}

}  // namespace

std::string to_utf8(std::u32string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char32_t c : text) append_utf8(out, c);
  return out;
}

// ---- Python whitespace ------------------------------------------------------------------------------------

bool is_python_space(char32_t c) {
  if (c <= 0x20) return c == 0x20 || (c >= 0x09 && c <= 0x0D) || (c >= 0x1C && c <= 0x1F);
  if (c < 0x85) return false;
  return c == 0x85 || c == 0xA0 || c == 0x1680 || (c >= 0x2000 && c <= 0x200A) || c == 0x2028 || c == 0x2029 ||
         c == 0x202F || c == 0x205F || c == 0x3000;
}

std::vector<std::string_view> python_split(std::string_view text) {
  std::vector<std::string_view> words;
  std::size_t i = 0, start = std::string_view::npos;
  while (i < text.size()) {
    char32_t cp;
    const int len = next_code_point(text, i, cp);
    if (is_python_space(cp)) {
      if (start != std::string_view::npos) words.push_back(text.substr(start, i - start));
      start = std::string_view::npos;
    } else if (start == std::string_view::npos) {
      start = i;
    }
    i += len;
  }
  if (start != std::string_view::npos) words.push_back(text.substr(start));
  return words;
}

std::string_view python_rstrip(std::string_view text) {
  std::size_t end = 0, i = 0;  // end: one past the last non-space code point
  while (i < text.size()) {
    char32_t cp;
    const int len = next_code_point(text, i, cp);
    i += len;
    if (!is_python_space(cp)) end = i;
  }
  return text.substr(0, end);
}

// ---- Python str.lower() -----------------------------------------------------------------------------------

namespace {

// Python 3.11's str.lower() (Unicode 14.0.0) for every code point that maps to one code point, as runs:
// code points first, first + stride, ..., last map to themselves + delta. Generated by enumerating
// chr(c).lower() for all c; the only multi-code-point mapping (U+0130) is handled in code.
struct LowerRun {
  char32_t first, last;
  int stride, delta;
};
constexpr LowerRun kLowerRuns[] = {
    {0x41, 0x5A, 1, 32},         {0xC0, 0xD6, 1, 32},         {0xD8, 0xDE, 1, 32},         {0x100, 0x12E, 2, 1},
    {0x132, 0x136, 2, 1},        {0x139, 0x147, 2, 1},        {0x14A, 0x176, 2, 1},        {0x178, 0x178, 1, -121},
    {0x179, 0x17D, 2, 1},        {0x181, 0x181, 1, 210},      {0x182, 0x184, 2, 1},        {0x186, 0x186, 1, 206},
    {0x187, 0x187, 1, 1},        {0x189, 0x18A, 1, 205},      {0x18B, 0x18B, 1, 1},        {0x18E, 0x18E, 1, 79},
    {0x18F, 0x18F, 1, 202},      {0x190, 0x190, 1, 203},      {0x191, 0x191, 1, 1},        {0x193, 0x193, 1, 205},
    {0x194, 0x194, 1, 207},      {0x196, 0x196, 1, 211},      {0x197, 0x197, 1, 209},      {0x198, 0x198, 1, 1},
    {0x19C, 0x19C, 1, 211},      {0x19D, 0x19D, 1, 213},      {0x19F, 0x19F, 1, 214},      {0x1A0, 0x1A4, 2, 1},
    {0x1A6, 0x1A6, 1, 218},      {0x1A7, 0x1A7, 1, 1},        {0x1A9, 0x1A9, 1, 218},      {0x1AC, 0x1AC, 1, 1},
    {0x1AE, 0x1AE, 1, 218},      {0x1AF, 0x1AF, 1, 1},        {0x1B1, 0x1B2, 1, 217},      {0x1B3, 0x1B5, 2, 1},
    {0x1B7, 0x1B7, 1, 219},      {0x1B8, 0x1B8, 1, 1},        {0x1BC, 0x1BC, 1, 1},        {0x1C4, 0x1C4, 1, 2},
    {0x1C5, 0x1C5, 1, 1},        {0x1C7, 0x1C7, 1, 2},        {0x1C8, 0x1C8, 1, 1},        {0x1CA, 0x1CA, 1, 2},
    {0x1CB, 0x1DB, 2, 1},        {0x1DE, 0x1EE, 2, 1},        {0x1F1, 0x1F1, 1, 2},        {0x1F2, 0x1F4, 2, 1},
    {0x1F6, 0x1F6, 1, -97},      {0x1F7, 0x1F7, 1, -56},      {0x1F8, 0x21E, 2, 1},        {0x220, 0x220, 1, -130},
    {0x222, 0x232, 2, 1},        {0x23A, 0x23A, 1, 10795},    {0x23B, 0x23B, 1, 1},        {0x23D, 0x23D, 1, -163},
    {0x23E, 0x23E, 1, 10792},    {0x241, 0x241, 1, 1},        {0x243, 0x243, 1, -195},     {0x244, 0x244, 1, 69},
    {0x245, 0x245, 1, 71},       {0x246, 0x24E, 2, 1},        {0x370, 0x372, 2, 1},        {0x376, 0x376, 1, 1},
    {0x37F, 0x37F, 1, 116},      {0x386, 0x386, 1, 38},       {0x388, 0x38A, 1, 37},       {0x38C, 0x38C, 1, 64},
    {0x38E, 0x38F, 1, 63},       {0x391, 0x3A1, 1, 32},       {0x3A3, 0x3AB, 1, 32},       {0x3CF, 0x3CF, 1, 8},
    {0x3D8, 0x3EE, 2, 1},        {0x3F4, 0x3F4, 1, -60},      {0x3F7, 0x3F7, 1, 1},        {0x3F9, 0x3F9, 1, -7},
    {0x3FA, 0x3FA, 1, 1},        {0x3FD, 0x3FF, 1, -130},     {0x400, 0x40F, 1, 80},       {0x410, 0x42F, 1, 32},
    {0x460, 0x480, 2, 1},        {0x48A, 0x4BE, 2, 1},        {0x4C0, 0x4C0, 1, 15},       {0x4C1, 0x4CD, 2, 1},
    {0x4D0, 0x52E, 2, 1},        {0x531, 0x556, 1, 48},       {0x10A0, 0x10C5, 1, 7264},   {0x10C7, 0x10C7, 1, 7264},
    {0x10CD, 0x10CD, 1, 7264},   {0x13A0, 0x13EF, 1, 38864},  {0x13F0, 0x13F5, 1, 8},      {0x1C90, 0x1CBA, 1, -3008},
    {0x1CBD, 0x1CBF, 1, -3008},  {0x1E00, 0x1E94, 2, 1},      {0x1E9E, 0x1E9E, 1, -7615},  {0x1EA0, 0x1EFE, 2, 1},
    {0x1F08, 0x1F0F, 1, -8},     {0x1F18, 0x1F1D, 1, -8},     {0x1F28, 0x1F2F, 1, -8},     {0x1F38, 0x1F3F, 1, -8},
    {0x1F48, 0x1F4D, 1, -8},     {0x1F59, 0x1F5F, 2, -8},     {0x1F68, 0x1F6F, 1, -8},     {0x1F88, 0x1F8F, 1, -8},
    {0x1F98, 0x1F9F, 1, -8},     {0x1FA8, 0x1FAF, 1, -8},     {0x1FB8, 0x1FB9, 1, -8},     {0x1FBA, 0x1FBB, 1, -74},
    {0x1FBC, 0x1FBC, 1, -9},     {0x1FC8, 0x1FCB, 1, -86},    {0x1FCC, 0x1FCC, 1, -9},     {0x1FD8, 0x1FD9, 1, -8},
    {0x1FDA, 0x1FDB, 1, -100},   {0x1FE8, 0x1FE9, 1, -8},     {0x1FEA, 0x1FEB, 1, -112},   {0x1FEC, 0x1FEC, 1, -7},
    {0x1FF8, 0x1FF9, 1, -128},   {0x1FFA, 0x1FFB, 1, -126},   {0x1FFC, 0x1FFC, 1, -9},     {0x2126, 0x2126, 1, -7517},
    {0x212A, 0x212A, 1, -8383},  {0x212B, 0x212B, 1, -8262},  {0x2132, 0x2132, 1, 28},     {0x2160, 0x216F, 1, 16},
    {0x2183, 0x2183, 1, 1},      {0x24B6, 0x24CF, 1, 26},     {0x2C00, 0x2C2F, 1, 48},     {0x2C60, 0x2C60, 1, 1},
    {0x2C62, 0x2C62, 1, -10743}, {0x2C63, 0x2C63, 1, -3814},  {0x2C64, 0x2C64, 1, -10727}, {0x2C67, 0x2C6B, 2, 1},
    {0x2C6D, 0x2C6D, 1, -10780}, {0x2C6E, 0x2C6E, 1, -10749}, {0x2C6F, 0x2C6F, 1, -10783}, {0x2C70, 0x2C70, 1, -10782},
    {0x2C72, 0x2C72, 1, 1},      {0x2C75, 0x2C75, 1, 1},      {0x2C7E, 0x2C7F, 1, -10815}, {0x2C80, 0x2CE2, 2, 1},
    {0x2CEB, 0x2CED, 2, 1},      {0x2CF2, 0x2CF2, 1, 1},      {0xA640, 0xA66C, 2, 1},      {0xA680, 0xA69A, 2, 1},
    {0xA722, 0xA72E, 2, 1},      {0xA732, 0xA76E, 2, 1},      {0xA779, 0xA77B, 2, 1},      {0xA77D, 0xA77D, 1, -35332},
    {0xA77E, 0xA786, 2, 1},      {0xA78B, 0xA78B, 1, 1},      {0xA78D, 0xA78D, 1, -42280}, {0xA790, 0xA792, 2, 1},
    {0xA796, 0xA7A8, 2, 1},      {0xA7AA, 0xA7AA, 1, -42308}, {0xA7AB, 0xA7AB, 1, -42319}, {0xA7AC, 0xA7AC, 1, -42315},
    {0xA7AD, 0xA7AD, 1, -42305}, {0xA7AE, 0xA7AE, 1, -42308}, {0xA7B0, 0xA7B0, 1, -42258}, {0xA7B1, 0xA7B1, 1, -42282},
    {0xA7B2, 0xA7B2, 1, -42261}, {0xA7B3, 0xA7B3, 1, 928},    {0xA7B4, 0xA7C2, 2, 1},      {0xA7C4, 0xA7C4, 1, -48},
    {0xA7C5, 0xA7C5, 1, -42307}, {0xA7C6, 0xA7C6, 1, -35384}, {0xA7C7, 0xA7C9, 2, 1},      {0xA7D0, 0xA7D0, 1, 1},
    {0xA7D6, 0xA7D8, 2, 1},      {0xA7F5, 0xA7F5, 1, 1},      {0xFF21, 0xFF3A, 1, 32},     {0x10400, 0x10427, 1, 40},
    {0x104B0, 0x104D3, 1, 40},   {0x10570, 0x1057A, 1, 39},   {0x1057C, 0x1058A, 1, 39},   {0x1058C, 0x10592, 1, 39},
    {0x10594, 0x10595, 1, 39},   {0x10C80, 0x10CB2, 1, 64},   {0x118A0, 0x118BF, 1, 32},   {0x16E40, 0x16E5F, 1, 32},
    {0x1E900, 0x1E921, 1, 34},
};

char32_t lower_one(char32_t c) {
  if (c < 0x80) return (c >= 'A' && c <= 'Z') ? c + 32 : c;
  const auto* end = std::end(kLowerRuns);
  const auto* it =
      std::upper_bound(std::begin(kLowerRuns), end, c, [](char32_t v, const LowerRun& r) { return v < r.first; });
  if (it == std::begin(kLowerRuns)) return c;
  --it;
  if (c > it->last || (c - it->first) % it->stride != 0) return c;
  return static_cast<char32_t>(static_cast<int>(c) + it->delta);
}

}  // namespace

std::u32string python_lower(std::u32string_view text) {
  std::u32string out;
  out.reserve(text.size());
  for (char32_t c : text) {
    if (c == 0x130) {  // LATIN CAPITAL LETTER I WITH DOT ABOVE -> i + COMBINING DOT ABOVE
      out.push_back(U'i');
      out.push_back(0x307);
    } else {
      out.push_back(lower_one(c));
    }
  }
  return out;
}

std::string python_lower(std::string_view utf8) { return to_utf8(python_lower(to_u32(utf8))); }

// ---- 13a tokenizer ----------------------------------------------------------------------------------------

namespace {

// Python's str.replace(from, to): every non-overlapping occurrence, left to right.
std::string replace_all(std::string_view text, std::string_view from, std::string_view to) {
  std::string out;
  out.reserve(text.size());
  std::size_t pos = 0;
  for (;;) {
    const std::size_t hit = text.find(from, pos);
    if (hit == std::string_view::npos) break;
    out.append(text.substr(pos, hit - pos));
    out.append(to);
    pos = hit + from.size();
  }
  out.append(text.substr(pos));
  return out;
}

bool is_digit(char c) { return c >= '0' && c <= '9'; }

// The class ([\{-\~\[-\` -\&\(-\+\:-\@\/]) of tokenizer_re.py: 0x7B-0x7E, 0x5B-0x60, 0x20-0x26,
// 0x28-0x2B, 0x3A-0x40 and '/'. Not in it: ' , - . digits letters.
bool is_13a_symbol(char c) {
  const auto u = static_cast<unsigned char>(c);
  return (u >= 0x7B && u <= 0x7E) || (u >= 0x5B && u <= 0x60) || (u >= 0x20 && u <= 0x26) || (u >= 0x28 && u <= 0x2B) ||
         (u >= 0x3A && u <= 0x40) || u == '/';
}

}  // namespace

std::string tokenize_13a(std::string_view line) {
  std::string s = replace_all(line, "<skipped>", "");
  s = replace_all(s, "-\n", "");
  s = replace_all(s, "\n", " ");
  if (s.find('&') != std::string::npos) {
    s = replace_all(s, "&quot;", "\"");
    s = replace_all(s, "&amp;", "&");
    s = replace_all(s, "&lt;", "<");
    s = replace_all(s, "&gt;", ">");
  }
  s = " " + s + " ";

  // a. ([\{-\~\[-\` -\&\(-\+\:-\@\/]) -> " \1 "
  std::string a;
  a.reserve(s.size() * 2);
  for (char c : s) {
    if (is_13a_symbol(c)) {
      a.push_back(' ');
      a.push_back(c);
      a.push_back(' ');
    } else {
      a.push_back(c);
    }
  }
  // b. ([^0-9])([\.,]) -> "\1 \2 ". Byte-wise is exact: the second character is ASCII, so a match can only
  // start on the last byte of a code point, and the scan resumes after the same two characters.
  std::string b;
  b.reserve(a.size() * 2);
  for (std::size_t i = 0; i < a.size();) {
    if (i + 1 < a.size() && !is_digit(a[i]) && (a[i + 1] == '.' || a[i + 1] == ',')) {
      b.push_back(a[i]);
      b.push_back(' ');
      b.push_back(a[i + 1]);
      b.push_back(' ');
      i += 2;
    } else {
      b.push_back(a[i++]);
    }
  }
  // c. ([\.,])([^0-9]) -> " \1 \2". Byte-wise a match takes only the lead byte of a following multi-byte
  // character; its continuation bytes can never start a match, so the output is the same.
  std::string c;
  c.reserve(b.size() * 2);
  for (std::size_t i = 0; i < b.size();) {
    if (i + 1 < b.size() && (b[i] == '.' || b[i] == ',') && !is_digit(b[i + 1])) {
      c.push_back(' ');
      c.push_back(b[i]);
      c.push_back(' ');
      c.push_back(b[i + 1]);
      i += 2;
    } else {
      c.push_back(b[i++]);
    }
  }
  // d. ([0-9])(-) -> "\1 \2 "
  std::string d;
  d.reserve(c.size() * 2);
  for (std::size_t i = 0; i < c.size();) {
    if (i + 1 < c.size() && is_digit(c[i]) && c[i + 1] == '-') {
      d.push_back(c[i]);
      d.append(" - ");
      i += 2;
    } else {
      d.push_back(c[i++]);
    }
  }
  // ' '.join(line.split())
  std::string out;
  out.reserve(d.size());
  for (std::string_view word : python_split(d)) {
    if (!out.empty()) out.push_back(' ');
    out.append(word);
  }
  return out;
}

// ---- BLEU -------------------------------------------------------------------------------------------------

namespace {

using NgramCounts = std::unordered_map<std::string, std::int64_t>;

// All n-grams of orders 1..max_order of a line, as their tokens joined by single spaces (tokens never hold
// whitespace, so the key is unambiguous), and the number of tokens.
NgramCounts extract_ngrams(std::string_view line, int max_order, std::int64_t& length) {
  const std::vector<std::string_view> tokens = python_split(line);
  length = static_cast<std::int64_t>(tokens.size());
  NgramCounts counts;
  std::string key;
  for (int n = 1; n <= max_order; ++n) {
    for (std::size_t i = 0; i + n <= tokens.size(); ++i) {
      key.assign(tokens[i]);
      for (int k = 1; k < n; ++k) {
        key.push_back(' ');
        key.append(tokens[i + k]);
      }
      ++counts[key];
    }
  }
  return counts;
}

// Number of tokens of an n-gram key.
int ngram_order(const std::string& key) { return 1 + static_cast<int>(std::count(key.begin(), key.end(), ' ')); }

std::string format_fixed(double value, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, value);
  return buf;
}

double my_log(double x) { return x == 0.0 ? -9999999999.0 : std::log(x); }

void check_streams(const std::vector<std::string>& hypotheses,
                   const std::vector<std::vector<std::string>>& references) {
  require(!references.empty(), "no reference stream given");
  for (std::size_t k = 0; k < references.size(); ++k)
    require(references[k].size() == hypotheses.size(),
            "reference stream " + std::to_string(k + 1) + " has " + std::to_string(references[k].size()) +
                " segments but there are " + std::to_string(hypotheses.size()) + " hypotheses");
}

}  // namespace

BleuSmoothing parse_bleu_smoothing(const std::string& name) {
  if (name == "exp") return BleuSmoothing::kExp;
  if (name == "none") return BleuSmoothing::kNone;
  if (name == "floor") return BleuSmoothing::kFloor;
  if (name == "add-k") return BleuSmoothing::kAddK;
  throw Error("unknown BLEU smoothing method '" + name + "' (expected exp, none, floor or add-k)");
}

std::string bleu_preprocess(std::string_view line, const BleuOptions& options) {
  std::string text = options.lowercase ? python_lower(line) : std::string(line);
  const std::string_view stripped = python_rstrip(text);
  if (options.tokenize == "13a") return tokenize_13a(stripped);
  if (options.tokenize == "none") return std::string(stripped);
  throw Error("unknown BLEU tokenizer '" + options.tokenize + "' (expected 13a or none)");
}

BleuStats bleu_statistics(const std::vector<std::string>& hypotheses,
                          const std::vector<std::vector<std::string>>& references, const BleuOptions& options) {
  require(options.max_ngram_order >= 1, "BLEU max n-gram order must be at least 1");
  check_streams(hypotheses, references);
  const int max_order = options.max_ngram_order;
  BleuStats stats;
  stats.counts.assign(max_order, 0);
  stats.totals.assign(max_order, 0);
  for (std::size_t i = 0; i < hypotheses.size(); ++i) {
    // References: drop empty ones, merge n-gram counts by maximum, keep every length.
    NgramCounts ref_ngrams;
    std::vector<std::int64_t> ref_lens;
    for (std::size_t k = 0; k < references.size(); ++k) {
      const std::string& ref = references[k][i];
      if (ref.empty()) continue;
      require_utf8(ref, "reference " + std::to_string(k + 1) + " line " + std::to_string(i + 1));
      std::int64_t len = 0;
      const NgramCounts ngrams = extract_ngrams(bleu_preprocess(ref, options), max_order, len);
      ref_lens.push_back(len);
      if (ref_lens.size() == 1) {
        ref_ngrams = ngrams;
      } else {
        for (const auto& [ngram, count] : ngrams) {
          std::int64_t& best = ref_ngrams[ngram];
          best = std::max(best, count);
        }
      }
    }
    require(!ref_lens.empty(), "segment " + std::to_string(i + 1) + " has no non-empty reference");

    require_utf8(hypotheses[i], "hypothesis line " + std::to_string(i + 1));
    std::int64_t hyp_len = 0;
    const NgramCounts hyp_ngrams = extract_ngrams(bleu_preprocess(hypotheses[i], options), max_order, hyp_len);

    // The closest reference length, the shorter one on a tie.
    std::int64_t closest_diff = -1, closest_len = -1;
    for (std::int64_t len : ref_lens) {
      const std::int64_t diff = std::abs(hyp_len - len);
      if (closest_diff == -1 || diff < closest_diff) {
        closest_diff = diff;
        closest_len = len;
      } else if (diff == closest_diff && len < closest_len) {
        closest_len = len;
      }
    }
    stats.hyp_len += hyp_len;
    stats.ref_len += closest_len;

    for (const auto& [ngram, count] : hyp_ngrams) {
      const int n = ngram_order(ngram);
      stats.totals[n - 1] += count;
      const auto it = ref_ngrams.find(ngram);
      if (it != ref_ngrams.end()) stats.counts[n - 1] += std::min(count, it->second);
    }
  }
  return stats;
}

BleuScore compute_bleu(const BleuStats& stats, const BleuOptions& options) {
  const int max_order = options.max_ngram_order;
  require(static_cast<int>(stats.counts.size()) == max_order && static_cast<int>(stats.totals.size()) == max_order,
          "BLEU statistics do not match the max n-gram order");
  double smooth_value = 0;
  if (options.smooth == BleuSmoothing::kFloor) smooth_value = options.smooth_value.value_or(0.1);
  if (options.smooth == BleuSmoothing::kAddK) smooth_value = options.smooth_value.value_or(1.0);

  BleuScore s;
  s.counts = stats.counts;
  s.totals = stats.totals;
  s.hyp_len = stats.hyp_len;
  s.ref_len = stats.ref_len;
  s.ratio = stats.ref_len ? static_cast<double>(stats.hyp_len) / static_cast<double>(stats.ref_len) : 0.0;
  const double sys_len = static_cast<double>(stats.hyp_len), ref_len = static_cast<double>(stats.ref_len);
  if (stats.hyp_len < stats.ref_len)
    s.bp = stats.hyp_len > 0 ? std::exp(1.0 - ref_len / sys_len) : 0.0;
  else
    s.bp = 1.0;
  s.precisions.assign(max_order, 0.0);

  // No matches at all: 0, without smoothing (sacreBLEU #141).
  if (std::all_of(stats.counts.begin(), stats.counts.end(), [](std::int64_t c) { return c == 0; })) {
    s.score = 0.0;
    return s;
  }

  double smooth_mteval = 1.0;
  int eff_order = max_order;
  for (int n = 1; n <= max_order; ++n) {
    double correct = static_cast<double>(stats.counts[n - 1]);
    double total = static_cast<double>(stats.totals[n - 1]);
    if (options.smooth == BleuSmoothing::kAddK && n > 1) {
      correct += smooth_value;
      total += smooth_value;
    }
    if (total == 0) break;
    if (options.effective_order) eff_order = n;
    if (correct == 0) {
      if (options.smooth == BleuSmoothing::kExp) {
        smooth_mteval *= 2;
        s.precisions[n - 1] = 100.0 / (smooth_mteval * total);
      } else if (options.smooth == BleuSmoothing::kFloor) {
        s.precisions[n - 1] = 100.0 * smooth_value / total;
      }
    } else {
      s.precisions[n - 1] = 100.0 * correct / total;
    }
  }
  double log_sum = 0.0;
  for (int n = 0; n < eff_order; ++n) log_sum += my_log(s.precisions[n]);
  s.score = s.bp * std::exp(log_sum / eff_order);
  return s;
}

std::string bleu_signature(const BleuOptions& options, const std::string& nrefs) {
  std::string smooth;
  switch (options.smooth) {
    case BleuSmoothing::kExp:
      smooth = "exp";
      break;
    case BleuSmoothing::kNone:
      smooth = "none";
      break;
    case BleuSmoothing::kFloor:
      smooth = "floor[" + format_fixed(options.smooth_value.value_or(0.1), 2) + "]";
      break;
    case BleuSmoothing::kAddK:
      smooth = "add-k[" + format_fixed(options.smooth_value.value_or(1.0), 2) + "]";
      break;
  }
  return "nrefs:" + nrefs + "|case:" + (options.lowercase ? "lc" : "mixed") +
         "|eff:" + (options.effective_order ? "yes" : "no") + "|tok:" + options.tokenize + "|smooth:" + smooth +
         "|version:" + kSacrebleuVersion;
}

std::string count_references(const std::vector<std::vector<std::string>>& references, std::size_t segments) {
  if (segments == 0) return std::to_string(references.size());
  std::size_t first = 0;
  for (std::size_t i = 0; i < segments; ++i) {
    std::size_t n = 0;
    for (const auto& stream : references)
      if (i < stream.size() && !stream[i].empty()) ++n;
    if (i == 0)
      first = n;
    else if (n != first)
      return "var";
  }
  return std::to_string(first);
}

BleuScore corpus_bleu(const std::vector<std::string>& hypotheses,
                      const std::vector<std::vector<std::string>>& references, const BleuOptions& options) {
  BleuScore s = compute_bleu(bleu_statistics(hypotheses, references, options), options);
  s.signature = bleu_signature(options, count_references(references, hypotheses.size()));
  return s;
}

std::string BleuScore::format(int width) const {
  std::string precs;
  for (std::size_t n = 0; n < precisions.size(); ++n) {
    if (n) precs += "/";
    precs += format_fixed(precisions[n], 1);
  }
  return "BLEU = " + format_fixed(score, width) + " " + precs + " (BP = " + format_fixed(bp, 3) +
         " ratio = " + format_fixed(ratio, 3) + " hyp_len = " + std::to_string(hyp_len) +
         " ref_len = " + std::to_string(ref_len) + ")";
}

}  // namespace heptapod::eval
