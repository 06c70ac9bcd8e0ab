// Renders a parsed Jinja template with jinja2's semantics: a for loop's body runs in a scope of its own each
// iteration (so `set` inside it does not leak out; namespace() objects carry values across), macros see the
// template's variables, `loop` offers index, index0, revindex, revindex0, first, last, length, previtem, nextitem,
// depth and depth0, `{% generation %}` renders its body, and undefined values behave as jinja2's default Undefined.
#pragma once

#include <nlohmann/json.hpp>

#include <ctime>
#include <stdexcept>
#include <string>

#include "heptapod/data/jinja_ast.h"

namespace heptapod::jinja {

// A failure while rendering, at the line of the innermost expression or statement that failed.
class RenderFailure : public std::runtime_error {
 public:
  RenderFailure(int line, const std::string& message) : std::runtime_error(message), line(line) {}
  int line;
};

// `variables` must be a JSON object; `now` is what strftime_now formats (as local time).
std::string render(const Body& body, const nlohmann::ordered_json& variables, std::time_t now);

}  // namespace heptapod::jinja
