// The Jinja lexer with transformers' white space settings (see jinja_lexer.h).
#include "heptapod/data/jinja_lexer.h"

#include <algorithm>
#include <cctype>
#include <charconv>

#include "heptapod/data/jinja_pystring.h"
#include "heptapod/data/utf8.h"

namespace heptapod::jinja {

namespace {

// "\r\n" and "\r" read as "\n"; one final newline is dropped.
std::string normalized_source(std::string_view source) {
  std::string out;
  out.reserve(source.size());
  for (std::size_t i = 0; i < source.size(); ++i) {
    if (source[i] == '\r') {
      out += '\n';
      if (i + 1 < source.size() && source[i + 1] == '\n') ++i;
    } else {
      out += source[i];
    }
  }
  if (!out.empty() && out.back() == '\n') out.pop_back();
  return out;
}

bool all_space(std::string_view text) {
  for (char32_t c : py::decode(text)) {
    if (!py::is_space(c)) return false;
  }
  return true;
}

// The byte length of the white space (str.isspace()) at text[i...].
std::size_t space_run(std::string_view text, std::size_t i) {
  std::size_t j = i;
  while (j < text.size()) {
    const std::size_t n = utf8_sequence_length(text, j);
    if (n == 0 || !py::is_space(utf8_code_point(text, j, n))) break;
    j += n;
  }
  return j - i;
}

class Lexer {
 public:
  explicit Lexer(std::string_view source) : src_(normalized_source(source)) {}

  std::vector<Token> run() {
    bool line_starting = true;  // the text ahead begins a line (jinja2's lstrip_blocks rule)
    while (pos_ < src_.size()) {
      const std::size_t start = next_tag(pos_);
      std::string data = src_.substr(pos_, start - pos_);
      const int data_line = line_;
      advance_to(start);
      if (start == src_.size()) {
        emit_text(std::move(data), data_line);
        break;
      }
      const char kind = src_[start + 1];
      const char sign = start + 2 < src_.size() && (src_[start + 2] == '-' || src_[start + 2] == '+')
                            ? src_[start + 2]
                            : '\0';
      if (sign == '-') {
        data = py::strip(data, std::nullopt, false, true);
      } else if (sign != '+' && kind != '{') {  // lstrip_blocks
        const std::size_t line_start = data.rfind('\n') == std::string::npos ? 0 : data.rfind('\n') + 1;
        if ((line_start > 0 || line_starting) && all_space(std::string_view(data).substr(line_start)))
          data.erase(line_start);
      }
      emit_text(std::move(data), data_line);
      advance_to(start + 2 + (sign ? 1 : 0));
      if (kind == '#')
        line_starting = comment();
      else
        line_starting = tag(kind == '{');
    }
    tokens_.push_back({TokenKind::end, "", line_, 0, 0.0});
    return std::move(tokens_);
  }

 private:
  std::size_t next_tag(std::size_t from) const {
    for (std::size_t i = src_.find('{', from); i != std::string::npos; i = src_.find('{', i + 1)) {
      if (i + 1 < src_.size() && (src_[i + 1] == '{' || src_[i + 1] == '%' || src_[i + 1] == '#')) return i;
    }
    return src_.size();
  }

  void advance_to(std::size_t to) {
    line_ += static_cast<int>(std::count(src_.begin() + static_cast<std::ptrdiff_t>(pos_),
                                         src_.begin() + static_cast<std::ptrdiff_t>(to), '\n'));
    pos_ = to;
  }

  void emit_text(std::string data, int line) {
    if (!data.empty()) tokens_.push_back({TokenKind::text, std::move(data), line, 0, 0.0});
  }

  // After a closing `-X}` all white space goes; after a block's or comment's plain `X}` one newline
  // (trim_blocks). Returns whether what was consumed ends with a newline.
  bool close(std::size_t end_of_marker, char sign, bool trim_newline) {
    std::size_t to = end_of_marker;
    if (sign == '-')
      to += space_run(src_, to);
    else if (sign != '+' && trim_newline && to < src_.size() && src_[to] == '\n')
      ++to;
    const bool newline = to > end_of_marker && src_[to - 1] == '\n';
    advance_to(to);
    return newline;
  }

  bool comment() {
    const int open_line = line_;
    const std::size_t end = src_.find("#}", pos_);
    if (end == std::string::npos) throw SyntaxError(open_line, "comment '{#' is never closed (expected '#}')");
    const char sign = end > pos_ && (src_[end - 1] == '-' || src_[end - 1] == '+') ? src_[end - 1] : '\0';
    return close(end + 2, sign, true);
  }

  // The tokens of one {{ ... }} or {% ... %}; the end marker counts only while brackets are balanced.
  bool tag(bool variable) {
    const int open_line = line_;
    const char closer = variable ? '}' : '%';
    tokens_.push_back({variable ? TokenKind::variable_begin : TokenKind::block_begin, "", line_, 0, 0.0});
    std::string brackets;
    while (true) {
      advance_to(pos_ + space_run(src_, pos_));
      if (pos_ >= src_.size())
        throw SyntaxError(open_line, std::string("tag '") + (variable ? "{{" : "{%") +
                                         "' is never closed (expected '" + (variable ? "}}" : "%}") + "')");
      if (brackets.empty()) {
        for (char sign : {'-', '+', '\0'}) {
          if (sign == '+' && variable) continue;
          const std::size_t at = pos_ + (sign ? 1 : 0);
          if ((!sign || src_[pos_] == sign) && at + 1 < src_.size() && src_[at] == closer && src_[at + 1] == '}') {
            tokens_.push_back({variable ? TokenKind::variable_end : TokenKind::block_end, "", line_, 0, 0.0});
            return close(at + 2, sign, !variable);
          }
        }
      }
      token(brackets);
    }
  }

  void token(std::string& brackets) {
    const char c = src_[pos_];
    if (c == '\'' || c == '"') return string_literal(c);
    if (std::isdigit(static_cast<unsigned char>(c))) return number();
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      std::size_t end = pos_;
      while (end < src_.size() && (std::isalnum(static_cast<unsigned char>(src_[end])) || src_[end] == '_')) ++end;
      tokens_.push_back({TokenKind::name, src_.substr(pos_, end - pos_), line_, 0, 0.0});
      pos_ = end;
      return;
    }
    static const char* const operators[] = {"//", "**", "==", "!=", "<=", ">=", "+", "-", "*", "/", "%", "~", "<",
                                            ">",  "=",  "(",  ")",  "[",  "]",  "{", "}", ",", ".", ":", "|", ";"};
    for (const char* op : operators) {
      const std::string_view text(op);
      if (src_.compare(pos_, text.size(), text) != 0) continue;
      if (text == "(" || text == "[" || text == "{") {
        brackets += text[0];
      } else if (text == ")" || text == "]" || text == "}") {
        const char opener = text == ")" ? '(' : text == "]" ? '[' : '{';
        if (brackets.empty() || brackets.back() != opener)
          throw SyntaxError(line_, "unexpected '" + std::string(text) + "'");
        brackets.pop_back();
      }
      tokens_.push_back({TokenKind::op, std::string(text), line_, 0, 0.0});
      pos_ += text.size();
      return;
    }
    const std::size_t n = std::max<std::size_t>(1, utf8_sequence_length(src_, pos_));
    throw SyntaxError(line_, "unexpected character '" + src_.substr(pos_, n) + "'");
  }

  // Digits with optional '_' between them, from pos; returns the end.
  std::size_t digits(std::size_t from) const {
    std::size_t end = from;
    while (end < src_.size() && (std::isdigit(static_cast<unsigned char>(src_[end])) ||
                                 (src_[end] == '_' && end + 1 < src_.size() &&
                                  std::isdigit(static_cast<unsigned char>(src_[end + 1])) && end > from)))
      ++end;
    return end;
  }

  void number() {
    std::size_t end = digits(pos_);
    bool is_float = false;
    if (end + 1 < src_.size() && src_[end] == '.' && std::isdigit(static_cast<unsigned char>(src_[end + 1]))) {
      end = digits(end + 1);
      is_float = true;
    }
    if (end < src_.size() && (src_[end] == 'e' || src_[end] == 'E')) {
      std::size_t e = end + 1;
      if (e < src_.size() && (src_[e] == '+' || src_[e] == '-')) ++e;
      if (e < src_.size() && std::isdigit(static_cast<unsigned char>(src_[e]))) {
        end = digits(e);
        is_float = true;
      }
    }
    std::string text = src_.substr(pos_, end - pos_);
    text.erase(std::remove(text.begin(), text.end(), '_'), text.end());
    Token t{is_float ? TokenKind::floating : TokenKind::integer, text, line_, 0, 0.0};
    if (is_float) {
      std::from_chars(text.data(), text.data() + text.size(), t.floating);
    } else if (std::from_chars(text.data(), text.data() + text.size(), t.integer).ec != std::errc()) {
      throw SyntaxError(line_, "integer literal " + text + " is too large");
    }
    tokens_.push_back(std::move(t));
    pos_ = end;
  }

  // Python's unicode-escape decoding of a literal's body.
  void string_literal(char quote) {
    const int open_line = line_;
    std::string value;
    std::size_t i = pos_ + 1;
    auto fail = [&](const std::string& what) { throw SyntaxError(open_line, what); };
    auto hex_escape = [&](std::size_t count) {
      if (i + count >= src_.size()) fail("truncated \\x, \\u or \\U escape in a string");
      unsigned long code = 0;
      for (std::size_t k = 1; k <= count; ++k) {
        const char h = src_[i + k];
        if (!std::isxdigit(static_cast<unsigned char>(h))) fail("truncated \\x, \\u or \\U escape in a string");
        const int digit = std::isdigit(static_cast<unsigned char>(h)) ? h - '0' : std::tolower(h) - 'a' + 10;
        code = code * 16 + static_cast<unsigned long>(digit);
      }
      if (code > 0x10FFFF || (code >= 0xD800 && code <= 0xDFFF)) fail("a string escape names no character");
      append_utf8(static_cast<char32_t>(code), value);
      i += count + 1;
    };
    while (true) {
      if (i >= src_.size()) fail("string literal is never closed");
      const char c = src_[i];
      if (c == quote) break;
      if (c != '\\') {
        value += c;
        ++i;
        continue;
      }
      if (i + 1 >= src_.size()) fail("string literal is never closed");
      const char e = src_[++i];
      switch (e) {
        case '\n': ++i; break;
        case '\\': value += '\\'; ++i; break;
        case '\'': value += '\''; ++i; break;
        case '"': value += '"'; ++i; break;
        case 'a': value += '\a'; ++i; break;
        case 'b': value += '\b'; ++i; break;
        case 'f': value += '\f'; ++i; break;
        case 'n': value += '\n'; ++i; break;
        case 'r': value += '\r'; ++i; break;
        case 't': value += '\t'; ++i; break;
        case 'v': value += '\v'; ++i; break;
        case 'x': hex_escape(2); break;
        case 'u': hex_escape(4); break;
        case 'U': hex_escape(8); break;
        case 'N': throw SyntaxError(open_line, "\\N{...} escapes are not supported");
        default:
          if (e >= '0' && e <= '7') {
            unsigned code = 0;
            for (int k = 0; k < 3 && i < src_.size() && src_[i] >= '0' && src_[i] <= '7'; ++k, ++i)
              code = code * 8 + static_cast<unsigned>(src_[i] - '0');
            append_utf8(static_cast<char32_t>(code), value);
          } else if (static_cast<unsigned char>(e) >= 0x80) {
            fail("a backslash before a non-ASCII character in a string is not supported");
          } else {  // Python keeps an unknown escape as written
            value += '\\';
            value += e;
            ++i;
          }
      }
    }
    tokens_.push_back({TokenKind::string, std::move(value), open_line, 0, 0.0});
    advance_to(i + 1);
  }

  std::string src_;
  std::size_t pos_ = 0;
  int line_ = 1;
  std::vector<Token> tokens_;
};

}  // namespace

std::vector<Token> lex(std::string_view source) { return Lexer(source).run(); }

}  // namespace heptapod::jinja
