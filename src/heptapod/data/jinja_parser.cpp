// jinja2's grammar over the lexer's tokens (see jinja_parser.h). Precedence, loosest first: `x if c else y`,
// or, and, not, comparisons (== != < <= > >= in, not in), + -, ~, * / // %, **, unary - +, then postfix
// (.attr, [index], [a:b:c], (call)) and filters / tests (`| f`, `is t`), as jinja2's parser has them.
#include "heptapod/data/jinja_parser.h"

#include <algorithm>
#include <set>
#include <utility>

#include "heptapod/data/jinja_builtins.h"
#include "heptapod/data/jinja_lexer.h"

namespace heptapod::jinja {

namespace {

bool is_end_keyword(const std::string& name) {
  return name == "elif" || name == "else" || name.rfind("end", 0) == 0;
}

class Parser {
 public:
  explicit Parser(std::string_view source) : tokens_(lex(source)) {}

  Body run() {
    Body body = parse_body({}, nullptr);
    for (const auto& [name, line] : called_names_) {
      if (!is_global_function(name) && !macros_.count(name))
        throw SyntaxError(line, "function '" + name + "' is not supported");
    }
    return body;
  }

 private:
  // --- tokens ---
  const Token& current() const { return tokens_[i_]; }
  const Token& peek(std::size_t ahead = 1) const { return tokens_[std::min(i_ + ahead, tokens_.size() - 1)]; }
  bool at_op(const char* op) const { return current().kind == TokenKind::op && current().text == op; }
  bool at_name(const char* name) const { return current().kind == TokenKind::name && current().text == name; }
  const Token& next() { return tokens_[i_ < tokens_.size() - 1 ? i_++ : i_]; }

  static std::string describe(const Token& t) {
    switch (t.kind) {
      case TokenKind::text: return "text";
      case TokenKind::variable_begin: return "'{{'";
      case TokenKind::variable_end: return "'}}'";
      case TokenKind::block_begin: return "'{%'";
      case TokenKind::block_end: return "'%}'";
      case TokenKind::string: return "a string";
      case TokenKind::integer:
      case TokenKind::floating: return "a number";
      case TokenKind::end: return "the end of the template";
      default: return "'" + t.text + "'";
    }
  }
  [[noreturn]] void fail_here(const std::string& expected) const {
    throw SyntaxError(current().line, "expected " + expected + ", got " + describe(current()));
  }
  void expect_op(const char* op) {
    if (!at_op(op)) fail_here(std::string("'") + op + "'");
    next();
  }
  void expect_block_end() {
    if (current().kind != TokenKind::block_end) fail_here("the end of the statement ('%}')");
    next();
  }
  std::string expect_name(const char* what) {
    if (current().kind != TokenKind::name) fail_here(what);
    return next().text;
  }

  static ExprPtr node(ExprKind kind, int line) {
    auto e = std::make_unique<Expr>();
    e->kind = kind;
    e->line = line;
    return e;
  }
  static StmtPtr statement(StmtKind kind, int line) {
    auto s = std::make_unique<Stmt>();
    s->kind = kind;
    s->line = line;
    return s;
  }

  // --- statements ---

  // Statements up to one of `ends` (the end tag's name is left current, after its '{%'), or to the end of the
  // template when `ends` is empty. `opener` names the open block in the error when the template ends first.
  Body parse_body(const std::vector<std::string>& ends, const Stmt* opener) {
    Body body;
    while (true) {
      const Token& t = current();
      if (t.kind == TokenKind::end) {
        if (ends.empty()) return body;
        throw SyntaxError(opener->line, "'" + block_name(*opener) + "' opened on line " +
                                            std::to_string(opener->line) + " is never closed (expected '" +
                                            ends.back() + "')");
      }
      if (t.kind == TokenKind::text) {
        auto s = statement(StmtKind::text, t.line);
        s->text = t.text;
        body.push_back(std::move(s));
        next();
      } else if (t.kind == TokenKind::variable_begin) {
        next();
        auto s = statement(StmtKind::output, t.line);
        s->expr = parse_tuple(true);
        if (current().kind != TokenKind::variable_end) fail_here("the end of the print tag ('}}')");
        next();
        body.push_back(std::move(s));
      } else if (t.kind == TokenKind::block_begin) {
        next();
        const std::string name = expect_name("a statement name");
        if (std::find(ends.begin(), ends.end(), name) != ends.end()) {
          --i_;  // leave the end tag's name current
          return body;
        }
        if (is_end_keyword(name)) {
          std::string where;
          if (opener) where = " inside '" + block_name(*opener) + "' (expected '" + ends.back() + "')";
          throw SyntaxError(current().line, "unexpected '" + name + "'" + where);
        }
        body.push_back(parse_statement(name, t.line));
      } else {
        fail_here("text or a tag");
      }
    }
  }

  static std::string block_name(const Stmt& s) {
    switch (s.kind) {
      case StmtKind::if_chain: return "if";
      case StmtKind::for_loop: return "for";
      case StmtKind::set_block: return "set";
      case StmtKind::macro: return "macro";
      case StmtKind::generation: return "generation";
      default: return "block";
    }
  }

  // Consumes `{% name %}` whose name is current (after parse_body stopped at it); returns the name.
  std::string end_tag() { return next().text; }

  StmtPtr parse_statement(const std::string& name, int line) {
    if (name == "if") return parse_if(line);
    if (name == "for") return parse_for(line);
    if (name == "set") return parse_set(line);
    if (name == "macro") return parse_macro(line);
    if (name == "generation") {
      auto s = statement(StmtKind::generation, line);
      expect_block_end();
      s->bodies.push_back(parse_body({"endgeneration"}, s.get()));
      end_tag();
      expect_block_end();
      return s;
    }
    if (name == "break" || name == "continue") {
      if (loop_depth_ == 0) throw SyntaxError(line, "'" + name + "' outside of a for loop");
      expect_block_end();
      return statement(name == "break" ? StmtKind::loop_break : StmtKind::loop_continue, line);
    }
    throw SyntaxError(line, "statement '" + name + "' is not supported");
  }

  StmtPtr parse_if(int line) {
    auto s = statement(StmtKind::if_chain, line);
    s->conditions.push_back(parse_tuple(false));
    expect_block_end();
    while (true) {
      s->bodies.push_back(parse_body({"elif", "else", "endif"}, s.get()));
      const std::string tag = end_tag();
      if (tag == "elif") {
        s->conditions.push_back(parse_tuple(false));
        expect_block_end();
      } else if (tag == "else") {
        expect_block_end();
        s->bodies.push_back(parse_body({"endif"}, s.get()));
        end_tag();
        expect_block_end();
        return s;
      } else {
        expect_block_end();
        return s;
      }
    }
  }

  // Names, or names separated by commas (optionally in parentheses), as for and set assign them.
  void parse_targets(Stmt& s) {
    const bool parenthesized = at_op("(");
    if (parenthesized) next();
    s.targets.push_back(expect_name("a variable name"));
    while (at_op(",")) {
      next();
      s.tuple_target = true;
      if (current().kind != TokenKind::name) break;  // a trailing comma
      s.targets.push_back(next().text);
    }
    if (parenthesized) {
      s.tuple_target = true;
      expect_op(")");
    }
  }

  StmtPtr parse_for(int line) {
    auto s = statement(StmtKind::for_loop, line);
    parse_targets(*s);
    if (!at_name("in")) fail_here("'in'");
    next();
    s->expr = parse_tuple(false);
    if (at_name("if")) {
      next();
      s->conditions.push_back(parse_expression(true));
    }
    if (at_name("recursive")) throw SyntaxError(current().line, "recursive for loops are not supported");
    expect_block_end();
    ++loop_depth_;
    s->bodies.push_back(parse_body({"else", "endfor"}, s.get()));
    --loop_depth_;
    if (end_tag() == "else") {
      expect_block_end();
      s->bodies.push_back(parse_body({"endfor"}, s.get()));  // break and continue belong to the loop body only
      end_tag();
    }
    expect_block_end();
    return s;
  }

  StmtPtr parse_set(int line) {
    auto s = statement(StmtKind::set, line);
    if (current().kind == TokenKind::name && peek().kind == TokenKind::op && peek().text == ".") {
      s->targets.push_back(next().text);
      next();
      s->targets.push_back(expect_name("an attribute name"));
      s->attribute_target = true;
    } else {
      parse_targets(*s);
    }
    if (current().kind == TokenKind::block_end && !s->attribute_target && !s->tuple_target) {
      s->kind = StmtKind::set_block;
      next();
      s->bodies.push_back(parse_body({"endset"}, s.get()));
      end_tag();
      expect_block_end();
      return s;
    }
    if (at_op("|")) throw SyntaxError(current().line, "filters on a block set are not supported");
    expect_op("=");
    s->expr = parse_tuple(true);
    expect_block_end();
    return s;
  }

  StmtPtr parse_macro(int line) {
    auto s = statement(StmtKind::macro, line);
    s->text = expect_name("a macro name");
    macros_.insert(s->text);
    expect_op("(");
    while (!at_op(")")) {
      if (!s->targets.empty()) expect_op(",");
      if (at_op(")")) break;
      s->targets.push_back(expect_name("a parameter name"));
      if (at_op("=")) {
        next();
        s->defaults.push_back(parse_expression(true));
      } else {
        if (!s->defaults.empty() && s->defaults.back())
          throw SyntaxError(current().line, "a macro parameter without a default follows one with a default");
        s->defaults.push_back(nullptr);
      }
    }
    next();
    expect_block_end();
    const int saved_depth = loop_depth_;
    loop_depth_ = 0;
    s->bodies.push_back(parse_body({"endmacro"}, s.get()));
    loop_depth_ = saved_depth;
    end_tag();
    expect_block_end();
    return s;
  }

  // --- expressions ---

  bool at_tuple_end() const {
    const Token& t = current();
    return t.kind == TokenKind::variable_end || t.kind == TokenKind::block_end ||
           (t.kind == TokenKind::op && t.text == ")");
  }

  // expr, expr, ... : one expression, or a tuple when a comma appears.
  ExprPtr parse_tuple(bool with_conditional) {
    const int line = current().line;
    std::vector<ExprPtr> items;
    bool tuple = false;
    while (!at_tuple_end()) {
      items.push_back(parse_expression(with_conditional));
      if (!at_op(",")) break;
      next();
      tuple = true;
    }
    if (!tuple) {
      if (items.empty()) fail_here("an expression");
      return std::move(items[0]);
    }
    auto e = node(ExprKind::tuple, line);
    e->args = std::move(items);
    return e;
  }

  ExprPtr parse_expression(bool with_conditional) {
    return with_conditional ? parse_conditional() : parse_or();
  }

  ExprPtr parse_conditional() {
    ExprPtr value = parse_or();
    while (at_name("if")) {
      const int line = current().line;
      next();
      auto e = node(ExprKind::conditional, line);
      e->args.push_back(std::move(value));
      e->args.push_back(parse_or());
      if (at_name("else")) {
        next();
        e->args.push_back(parse_conditional());
      } else {
        e->args.push_back(nullptr);
      }
      value = std::move(e);
    }
    return value;
  }

  ExprPtr binary(const std::string& op, ExprPtr left, ExprPtr right, int line) {
    auto e = node(ExprKind::binary, line);
    e->name = op;
    e->args.push_back(std::move(left));
    e->args.push_back(std::move(right));
    return e;
  }

  ExprPtr parse_or() {
    ExprPtr left = parse_and();
    while (at_name("or")) {
      const int line = next().line;
      left = binary("or", std::move(left), parse_and(), line);
    }
    return left;
  }

  ExprPtr parse_and() {
    ExprPtr left = parse_not();
    while (at_name("and")) {
      const int line = next().line;
      left = binary("and", std::move(left), parse_not(), line);
    }
    return left;
  }

  ExprPtr parse_not() {
    if (at_name("not")) {
      auto e = node(ExprKind::logical_not, next().line);
      e->args.push_back(parse_not());
      return e;
    }
    return parse_compare();
  }

  ExprPtr parse_compare() {
    const int line = current().line;
    ExprPtr first = parse_math1();
    ExprPtr e;
    while (true) {
      std::string op;
      const Token& t = current();
      if (t.kind == TokenKind::op &&
          (t.text == "==" || t.text == "!=" || t.text == "<" || t.text == "<=" || t.text == ">" || t.text == ">=")) {
        op = t.text;
        next();
      } else if (at_name("in")) {
        op = "in";
        next();
      } else if (at_name("not") && peek().kind == TokenKind::name && peek().text == "in") {
        op = "not in";
        next();
        next();
      } else {
        break;
      }
      if (!e) {
        e = node(ExprKind::compare, line);
        e->args.push_back(std::move(first));
      }
      e->ops.push_back(op);
      e->args.push_back(parse_math1());
    }
    return e ? std::move(e) : std::move(first);
  }

  ExprPtr parse_math1() {
    ExprPtr left = parse_concat();
    while (at_op("+") || at_op("-")) {
      const Token& t = next();
      left = binary(t.text, std::move(left), parse_concat(), t.line);
    }
    return left;
  }

  ExprPtr parse_concat() {
    ExprPtr left = parse_math2();
    while (at_op("~")) {
      const int line = next().line;
      left = binary("~", std::move(left), parse_math2(), line);
    }
    return left;
  }

  ExprPtr parse_math2() {
    ExprPtr left = parse_pow();
    while (at_op("*") || at_op("/") || at_op("//") || at_op("%")) {
      const Token& t = next();
      left = binary(t.text, std::move(left), parse_pow(), t.line);
    }
    return left;
  }

  ExprPtr parse_pow() {
    ExprPtr left = parse_unary(true);
    while (at_op("**")) {
      const int line = next().line;
      left = binary("**", std::move(left), parse_unary(true), line);
    }
    return left;
  }

  ExprPtr parse_unary(bool with_filter) {
    ExprPtr e;
    if (at_op("-") || at_op("+")) {
      const Token& t = next();
      e = node(t.text == "-" ? ExprKind::negate : ExprKind::unary_plus, t.line);
      e->args.push_back(parse_unary(false));
    } else {
      e = parse_primary();
    }
    e = parse_postfix(std::move(e));
    if (with_filter) e = parse_filter_expression(std::move(e));
    return e;
  }

  ExprPtr literal(Value v, int line) {
    auto e = node(ExprKind::literal, line);
    e->literal = std::move(v);
    return e;
  }

  ExprPtr parse_primary() {
    const Token& t = current();
    const int line = t.line;
    if (t.kind == TokenKind::name) {
      next();
      if (t.text == "true" || t.text == "True") return literal(Value(true), line);
      if (t.text == "false" || t.text == "False") return literal(Value(false), line);
      if (t.text == "none" || t.text == "None") return literal(Value(nullptr), line);
      auto e = node(ExprKind::name, line);
      e->name = t.text;
      return e;
    }
    if (t.kind == TokenKind::string) {
      std::string text;
      while (current().kind == TokenKind::string) text += next().text;  // adjacent literals join
      return literal(Value(std::move(text)), line);
    }
    if (t.kind == TokenKind::integer) return literal(Value(next().integer), line);
    if (t.kind == TokenKind::floating) return literal(Value(next().floating), line);
    if (at_op("(")) {
      next();
      if (at_op(")")) {
        next();
        return node(ExprKind::tuple, line);
      }
      ExprPtr inner = parse_tuple(true);
      expect_op(")");
      return inner;
    }
    if (at_op("[")) {
      next();
      auto e = node(ExprKind::list, line);
      while (!at_op("]")) {
        if (!e->args.empty()) expect_op(",");
        if (at_op("]")) break;
        e->args.push_back(parse_expression(true));
      }
      next();
      return e;
    }
    if (at_op("{")) {
      next();
      auto e = node(ExprKind::dict, line);
      while (!at_op("}")) {
        if (!e->args.empty()) expect_op(",");
        if (at_op("}")) break;
        e->args.push_back(parse_expression(true));
        expect_op(":");
        e->args.push_back(parse_expression(true));
      }
      next();
      return e;
    }
    fail_here("an expression");
  }

  ExprPtr parse_postfix(ExprPtr e) {
    while (true) {
      if (at_op(".")) {
        const int line = next().line;
        if (current().kind == TokenKind::integer) {
          auto item = node(ExprKind::item, line);
          item->args.push_back(std::move(e));
          item->args.push_back(literal(Value(next().integer), line));
          e = std::move(item);
          continue;
        }
        auto attribute = node(ExprKind::attribute, line);
        attribute->name = expect_name("an attribute name");
        attribute->args.push_back(std::move(e));
        e = std::move(attribute);
      } else if (at_op("[")) {
        e = parse_subscript(std::move(e));
      } else if (at_op("(")) {
        e = parse_call(std::move(e));
      } else {
        return e;
      }
    }
  }

  ExprPtr parse_subscript(ExprPtr object) {
    const int line = next().line;  // '['
    std::vector<ExprPtr> bounds;
    int colons = 0;
    ExprPtr index;
    while (!at_op("]")) {
      if (at_op(":")) {
        if (++colons > 2) fail_here("']'");
        if (bounds.size() < static_cast<std::size_t>(colons)) bounds.push_back(nullptr);
        next();
        continue;
      }
      if (bounds.size() > static_cast<std::size_t>(colons)) fail_here("':' or ']'");
      bounds.push_back(parse_expression(true));
    }
    next();
    if (colons == 0) {
      if (bounds.empty()) throw SyntaxError(line, "expected an index inside '[]'");
      auto e = node(ExprKind::item, line);
      e->args.push_back(std::move(object));
      e->args.push_back(std::move(bounds[0]));
      return e;
    }
    bounds.resize(3);
    auto e = node(ExprKind::slice, line);
    e->args.push_back(std::move(object));
    for (auto& b : bounds) e->args.push_back(std::move(b));
    return e;
  }

  // (positional..., name=value...) appended to e->args and e->keywords.
  void parse_arguments(Expr& e) {
    expect_op("(");
    const std::size_t before = e.args.size();
    while (!at_op(")")) {
      if (e.args.size() > before) expect_op(",");
      if (at_op(")")) break;
      if (at_op("*") || at_op("**"))
        throw SyntaxError(current().line, "*args and **kwargs in calls are not supported");
      if (current().kind == TokenKind::name && peek().kind == TokenKind::op && peek().text == "=") {
        e.keywords.push_back(next().text);
        next();
        e.args.push_back(parse_expression(true));
      } else {
        if (!e.keywords.empty())
          throw SyntaxError(current().line, "a positional argument follows a keyword argument");
        e.args.push_back(parse_expression(true));
      }
    }
    next();
  }

  ExprPtr parse_call(ExprPtr callee) {
    auto e = node(ExprKind::call, current().line);
    if (callee->kind == ExprKind::name) called_names_.emplace_back(callee->name, callee->line);
    if (callee->kind == ExprKind::attribute && !is_method_name(callee->name))
      throw SyntaxError(callee->line, "method '" + callee->name + "' is not supported");
    e->args.push_back(std::move(callee));
    parse_arguments(*e);
    return e;
  }

  ExprPtr parse_filter_expression(ExprPtr e) {
    while (true) {
      if (at_op("|")) {
        const int line = next().line;
        auto f = node(ExprKind::filter, line);
        f->name = expect_name("a filter name");
        if (!find_filter(f->name)) throw SyntaxError(line, "filter '" + f->name + "' is not supported");
        f->args.push_back(std::move(e));
        if (at_op("(")) parse_arguments(*f);
        e = std::move(f);
      } else if (at_name("is")) {
        e = parse_test(std::move(e));
      } else if (at_op("(")) {
        e = parse_call(std::move(e));
      } else {
        return e;
      }
    }
  }

  ExprPtr parse_test(ExprPtr value) {
    const int line = next().line;  // 'is'
    auto t = node(ExprKind::test, line);
    if (at_name("not")) {
      next();
      t->negated = true;
    }
    t->name = expect_name("a test name");
    if (!find_test(t->name)) throw SyntaxError(line, "test '" + t->name + "' is not supported");
    t->args.push_back(std::move(value));
    const Token& c = current();
    if (at_op("(")) {
      parse_arguments(*t);
    } else if ((c.kind == TokenKind::name && c.text != "else" && c.text != "or" && c.text != "and" &&
                c.text != "is") ||
               c.kind == TokenKind::string || c.kind == TokenKind::integer || c.kind == TokenKind::floating ||
               at_op("[") || at_op("{")) {
      t->args.push_back(parse_postfix(parse_primary()));
    }
    return t;
  }

  std::vector<Token> tokens_;
  std::size_t i_ = 0;
  int loop_depth_ = 0;
  std::set<std::string> macros_;
  std::vector<std::pair<std::string, int>> called_names_;
};

}  // namespace

Body parse(std::string_view source) { return Parser(source).run(); }

}  // namespace heptapod::jinja
