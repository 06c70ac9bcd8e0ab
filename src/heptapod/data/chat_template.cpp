// Chat templates through the Jinja subset (see chat_template.h).
#include "heptapod/data/chat_template.h"

#include <algorithm>

#include "heptapod/core/error.h"
#include "heptapod/data/jinja_evaluator.h"
#include "heptapod/data/jinja_lexer.h"
#include "heptapod/data/jinja_parser.h"
#include "heptapod/data/utf8.h"

namespace heptapod {

namespace {

std::string at_line(const std::string& where, int line, const std::string& message) {
  return where + ": line " + std::to_string(line) + ": " + message;
}

}  // namespace

ChatTemplate::ChatTemplate(std::string source, std::string where) : source_(std::move(source)), where_(std::move(where)) {
  // Text, not bytes: the first invalid UTF-8 sequence or NUL byte is refused by its line.
  const std::size_t bad = std::min(find_invalid_utf8(source_), source_.find('\0'));
  if (bad != std::string::npos) {
    const int line = 1 + static_cast<int>(std::count(source_.begin(), source_.begin() + static_cast<std::ptrdiff_t>(bad), '\n'));
    throw Error(at_line(where_, line, source_[bad] == '\0' ? "the template holds a NUL byte" : "the template is not valid UTF-8"));
  }
  try {
    body_ = std::make_unique<jinja::Body>(jinja::parse(source_));
  } catch (const jinja::SyntaxError& e) {
    throw Error(at_line(where_, e.line, e.what()));
  }
}

ChatTemplate::~ChatTemplate() = default;
ChatTemplate::ChatTemplate(ChatTemplate&&) noexcept = default;
ChatTemplate& ChatTemplate::operator=(ChatTemplate&&) noexcept = default;

std::string ChatTemplate::render(const nlohmann::ordered_json& variables, std::time_t now) const {
  require(variables.is_object(), where_ + ": the template's variables must be a JSON object");
  try {
    return jinja::render(*body_, variables, now);
  } catch (const jinja::RenderFailure& e) {
    throw Error(at_line(where_, e.line, e.what()));
  } catch (const jinja::RenderError& e) {  // a variable that cannot be a template value
    throw Error(where_ + ": " + e.what());
  }
}

std::string ChatTemplate::render(const nlohmann::ordered_json& variables) const {
  return render(variables, std::time(nullptr));
}

}  // namespace heptapod
