// Parses a Jinja template into its syntax tree, with jinja2's grammar and operator precedence. Refuses (a
// SyntaxError naming the line) what the engine cannot render: unknown statements, filters, tests, methods and
// global functions, as well as plain syntax errors and unclosed blocks.
#pragma once

#include <string_view>

#include "heptapod/data/jinja_ast.h"

namespace heptapod::jinja {

Body parse(std::string_view source);

}  // namespace heptapod::jinja
