// Splits a Jinja template into text and the tokens of its tags, with the white space rules transformers renders
// chat templates under: trim_blocks (the newline after a block or comment tag goes), lstrip_blocks (spaces and
// tabs before a block or comment tag at the start of a line go), `{%-`/`-%}` (and `{{-`, `-}}`, `{#-`, `-#}`) strip
// all white space beside the tag, `{%+`/`+%}` keep it; newlines read as "\n" and one newline ending the
// template is dropped (jinja2's keep_trailing_newline=False).
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace heptapod::jinja {

// A template that does not parse: the message and the line (1-based) it names.
class SyntaxError : public std::runtime_error {
 public:
  SyntaxError(int line, const std::string& message) : std::runtime_error(message), line(line) {}
  int line;
};

enum class TokenKind {
  text,            // template text outside tags (`text` holds it)
  variable_begin,  // {{
  variable_end,    // }}
  block_begin,     // {%
  block_end,       // %}
  name,            // identifiers and keywords
  string,          // a string literal, escapes decoded
  integer,
  floating,
  op,              // an operator or punctuation: + - * / // % ** ~ == != < <= > >= = ( ) [ ] { } , . : |
  end,             // the end of the template
};

struct Token {
  TokenKind kind;
  std::string text;  // the text, name, decoded string or operator
  int line = 1;
  std::int64_t integer = 0;
  double floating = 0.0;
};

// Throws SyntaxError on an unclosed tag, comment or string, a bad escape or an unknown character.
std::vector<Token> lex(std::string_view source);

}  // namespace heptapod::jinja
