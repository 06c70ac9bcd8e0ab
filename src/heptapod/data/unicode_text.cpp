// Unicode categories, case and decomposition through utf8proc.
#include "heptapod/data/unicode_text.h"

#include <utf8proc.h>

#include <cstdlib>
#include <memory>

#include "heptapod/core/error.h"

#include "heptapod/data/utf8.h"

namespace heptapod::unicode {

namespace {
utf8proc_category_t category(char32_t c) {
  return c > 0x10FFFF ? UTF8PROC_CATEGORY_CN : utf8proc_category(static_cast<utf8proc_int32_t>(c));
}
}  // namespace

bool is_letter(char32_t c) {
  const auto k = category(c);
  return k >= UTF8PROC_CATEGORY_LU && k <= UTF8PROC_CATEGORY_LO;
}

bool is_number(char32_t c) {
  const auto k = category(c);
  return k >= UTF8PROC_CATEGORY_ND && k <= UTF8PROC_CATEGORY_NO;
}

bool is_white_space(char32_t c) {
  return (c >= 0x09 && c <= 0x0D) || c == 0x20 || c == 0x85 || c == 0xA0 || c == 0x1680 ||
         (c >= 0x2000 && c <= 0x200A) || c == 0x2028 || c == 0x2029 || c == 0x202F || c == 0x205F || c == 0x3000;
}

bool is_control(char32_t c) {
  const auto k = category(c);
  return k == UTF8PROC_CATEGORY_CC || k == UTF8PROC_CATEGORY_CF;
}

bool is_punctuation(char32_t c) {
  const auto k = category(c);
  return k >= UTF8PROC_CATEGORY_PC && k <= UTF8PROC_CATEGORY_PO;
}

bool is_nonspacing_mark(char32_t c) { return category(c) == UTF8PROC_CATEGORY_MN; }

bool is_word_character(char32_t c) {
  const auto k = category(c);
  return is_letter(c) || (k >= UTF8PROC_CATEGORY_MN && k <= UTF8PROC_CATEGORY_ME) || k == UTF8PROC_CATEGORY_ND ||
         k == UTF8PROC_CATEGORY_NL || k == UTF8PROC_CATEGORY_PC || c == 0x200C || c == 0x200D ||
         (c >= 0x24B6 && c <= 0x24E9) || (c >= 0x1F130 && c <= 0x1F149) || (c >= 0x1F150 && c <= 0x1F169) ||
         (c >= 0x1F170 && c <= 0x1F189);
}

bool is_cjk_ideograph(char32_t c) {
  return (c >= 0x4E00 && c <= 0x9FFF) || (c >= 0x3400 && c <= 0x4DBF) || (c >= 0x20000 && c <= 0x2A6DF) ||
         (c >= 0x2A700 && c <= 0x2B73F) || (c >= 0x2B740 && c <= 0x2B81F) || (c >= 0x2B820 && c <= 0x2CEAF) ||
         (c >= 0xF900 && c <= 0xFAFF) || (c >= 0x2F800 && c <= 0x2FA1F);
}

char32_t to_lower(char32_t c) {
  return c > 0x10FFFF ? c : static_cast<char32_t>(utf8proc_tolower(static_cast<utf8proc_int32_t>(c)));
}

char32_t to_upper(char32_t c) {
  return c > 0x10FFFF ? c : static_cast<char32_t>(utf8proc_toupper(static_cast<utf8proc_int32_t>(c)));
}

char32_t to_title(char32_t c) {
  return c > 0x10FFFF ? c : static_cast<char32_t>(utf8proc_totitle(static_cast<utf8proc_int32_t>(c)));
}

bool is_cased(char32_t c) {
  const auto k = category(c);
  return k == UTF8PROC_CATEGORY_LU || k == UTF8PROC_CATEGORY_LL || k == UTF8PROC_CATEGORY_LT;
}

bool is_printable(char32_t c) {
  if (c == U' ') return true;
  switch (category(c)) {
    case UTF8PROC_CATEGORY_CC: case UTF8PROC_CATEGORY_CF: case UTF8PROC_CATEGORY_CS: case UTF8PROC_CATEGORY_CO:
    case UTF8PROC_CATEGORY_CN: case UTF8PROC_CATEGORY_ZL: case UTF8PROC_CATEGORY_ZP: case UTF8PROC_CATEGORY_ZS:
      return false;
    default:
      return true;
  }
}

void append_decomposition(char32_t c, std::vector<char32_t>& out) {
  utf8proc_int32_t buffer[8];  // no canonical decomposition is longer than 4 code points
  int last = 0;
  const utf8proc_ssize_t n = c > 0x10FFFF ? -1
                                          : utf8proc_decompose_char(static_cast<utf8proc_int32_t>(c), buffer, 8,
                                                                    UTF8PROC_DECOMPOSE, &last);
  if (n <= 0 || n > 8) {
    out.push_back(c);
    return;
  }
  for (utf8proc_ssize_t i = 0; i < n; ++i) out.push_back(static_cast<char32_t>(buffer[i]));
}

std::string normalized(std::string_view text, Form form) {
  const int options = UTF8PROC_STABLE | (form == Form::NFC || form == Form::NFKC ? UTF8PROC_COMPOSE : UTF8PROC_DECOMPOSE) |
                      (form == Form::NFKC || form == Form::NFKD ? UTF8PROC_COMPAT : 0);
  utf8proc_uint8_t* out = nullptr;
  const utf8proc_ssize_t n = utf8proc_map(reinterpret_cast<const utf8proc_uint8_t*>(text.data()),
                                          static_cast<utf8proc_ssize_t>(text.size()), &out,
                                          static_cast<utf8proc_option_t>(options));
  const std::unique_ptr<utf8proc_uint8_t, void (*)(void*)> owned(out, std::free);
  require(n >= 0, std::string("Unicode normalization failed: ") + utf8proc_errmsg(n));
  return std::string(reinterpret_cast<const char*>(out), static_cast<std::size_t>(n));
}

}  // namespace heptapod::unicode
