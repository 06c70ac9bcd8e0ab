// The syntax tree of a parsed Jinja template: expressions and statements, each with the line it starts on.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "heptapod/data/jinja_value.h"

namespace heptapod::jinja {

struct Expr;
struct Stmt;
using ExprPtr = std::unique_ptr<Expr>;
using StmtPtr = std::unique_ptr<Stmt>;
using Body = std::vector<StmtPtr>;

enum class ExprKind {
  literal,      // `literal`
  name,         // `name`
  list,         // args: the items
  tuple,        // args: the items
  dict,         // args: key, value, key, value, ...
  attribute,    // args[0].name
  item,         // args[0][args[1]]
  slice,        // args[0][args[1]:args[2]:args[3]] (absent bounds are null)
  call,         // args[0](args[1..]); the last keywords.size() arguments are the keyword ones
  filter,       // args[0] | name(args[1..]), keywords as for call
  test,         // args[0] is [not] name(args[1..]), keywords as for call
  logical_not,  // not args[0]
  negate,       // -args[0]
  unary_plus,   // +args[0]
  binary,       // args[0] `name` args[1]: + - * / // % ** ~ and or
  compare,      // args[0] ops[0] args[1] ops[1] args[2] ...: == != < <= > >= in "not in"
  conditional,  // args[0] if args[1] else args[2] (args[2] null without else)
};

struct Expr {
  ExprKind kind;
  int line = 1;
  Value literal;
  std::string name;
  std::vector<ExprPtr> args;
  std::vector<std::string> keywords;
  std::vector<std::string> ops;
  bool negated = false;  // `is not`
};

enum class StmtKind {
  text,        // `text` as written
  output,      // {{ expr }}
  if_chain,    // conditions[i] selects bodies[i]; a further body is the else
  for_loop,    // for targets in expr [if conditions[0]]: bodies[0], else bodies[1]
  set,         // set targets = expr (one name, a tuple of names, or `name.attribute` when attribute_target)
  set_block,   // set targets[0] %} bodies[0] {% endset
  macro,       // macro name(targets with defaults) bodies[0]
  loop_break,
  loop_continue,
  generation,  // {% generation %} bodies[0] {% endgeneration %}: renders its body
};

struct Stmt {
  StmtKind kind;
  int line = 1;
  std::string text;  // text; the macro's name
  ExprPtr expr;
  std::vector<ExprPtr> conditions;
  std::vector<Body> bodies;
  std::vector<std::string> targets;
  bool attribute_target = false;  // set: targets = {object name, attribute}
  bool tuple_target = false;      // for/set: unpack into targets
  std::vector<ExprPtr> defaults;  // macro: one per parameter (null: none)
};

}  // namespace heptapod::jinja
