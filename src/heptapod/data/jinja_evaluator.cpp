// Runs a Jinja syntax tree (see jinja_evaluator.h).
#include "heptapod/data/jinja_evaluator.h"

#include <map>
#include <memory>

#include "heptapod/data/jinja_builtins.h"
#include "heptapod/data/jinja_pystring.h"

namespace heptapod::jinja {

namespace {

struct Scope {
  const Scope* parent = nullptr;
  std::map<std::string, Value> variables;

  const Value* find(const std::string& name) const {
    for (const Scope* s = this; s; s = s->parent) {
      const auto it = s->variables.find(name);
      if (it != s->variables.end()) return &it->second;
    }
    return nullptr;
  }
};

enum class Flow { normal, loop_break, loop_continue };

class Evaluator {
 public:
  Evaluator(const nlohmann::ordered_json& variables, std::time_t now) {
    for (const char* name : {"raise_exception", "strftime_now", "namespace", "range", "dict"})
      root_.variables[name] = global_function(name, now);
    for (const auto& [name, value] : variables.items()) root_.variables[name] = from_json(value);
  }

  std::string run(const Body& body) {
    std::string out;
    exec(body, template_scope_, out);
    return out;
  }

 private:
  // --- statements ---

  Flow exec(const Body& body, Scope& scope, std::string& out) {
    for (const StmtPtr& s : body) {
      const Flow flow = exec(*s, scope, out);
      if (flow != Flow::normal) return flow;
    }
    return Flow::normal;
  }

  Flow exec(const Stmt& s, Scope& scope, std::string& out) {
    try {
      return exec_statement(s, scope, out);
    } catch (const RenderError& e) {
      throw RenderFailure(s.line, e.what());
    }
  }

  Flow exec_statement(const Stmt& s, Scope& scope, std::string& out) {
    switch (s.kind) {
      case StmtKind::text: out += s.text; return Flow::normal;
      case StmtKind::output: out += eval(*s.expr, scope).str(); return Flow::normal;
      case StmtKind::if_chain:
        for (std::size_t i = 0; i < s.conditions.size(); ++i) {
          if (eval(*s.conditions[i], scope).truthy()) return exec(s.bodies[i], scope, out);
        }
        if (s.bodies.size() > s.conditions.size()) return exec(s.bodies.back(), scope, out);
        return Flow::normal;
      case StmtKind::for_loop: exec_for(s, scope, out); return Flow::normal;
      case StmtKind::set:
        if (s.attribute_target) {
          const Value* object = scope.find(s.targets[0]);
          if (!object || !object->is_dict() || object->as_dict()->flavor != DictObject::Flavor::namespace_object)
            throw RenderError("cannot assign attribute '" + s.targets[1] + "' on non-namespace object");
          object->as_dict()->set(s.targets[1], eval(*s.expr, scope));
        } else {
          assign(s, eval(*s.expr, scope), scope);
        }
        return Flow::normal;
      case StmtKind::set_block: {
        std::string text;
        Scope inner{&scope, {}};
        exec(s.bodies[0], inner, text);
        scope.variables[s.targets[0]] = Value(std::move(text));
        return Flow::normal;
      }
      case StmtKind::macro: scope.variables[s.text] = macro(s); return Flow::normal;
      case StmtKind::loop_break: return Flow::loop_break;
      case StmtKind::loop_continue: return Flow::loop_continue;
      case StmtKind::generation: {
        Scope inner{&scope, {}};
        exec(s.bodies[0], inner, out);
        return Flow::normal;
      }
    }
    return Flow::normal;
  }

  // Binds a for or set target: one name, or several unpacked from a sequence of as many items.
  static void assign(const Stmt& s, const Value& value, Scope& scope) {
    if (!s.tuple_target) {
      scope.variables[s.targets[0]] = value;
      return;
    }
    if (!value.is_string() && !value.is_list() && !value.is_mapping())
      throw RenderError("cannot unpack non-iterable " + value.type_name() + " object");
    const std::vector<Value> items = iterate(value);
    if (items.size() != s.targets.size()) {
      throw RenderError(items.size() > s.targets.size()
                            ? "too many values to unpack (expected " + std::to_string(s.targets.size()) + ")"
                            : "not enough values to unpack (expected " + std::to_string(s.targets.size()) + ", got " +
                                  std::to_string(items.size()) + ")");
    }
    for (std::size_t i = 0; i < items.size(); ++i) scope.variables[s.targets[i]] = items[i];
  }

  void exec_for(const Stmt& s, Scope& scope, std::string& out) {
    const Value iterable = eval(*s.expr, scope);
    if (iterable.is_none() || iterable.is_number() || iterable.is_function())
      throw RenderError("'" + iterable.type_name() + "' object is not iterable");
    std::vector<Value> items = iterate(iterable);
    if (!s.conditions.empty()) {  // `for x in y if c`: the loop sees only the items that pass
      std::vector<Value> kept;
      for (Value& item : items) {
        Scope probe{&scope, {}};
        assign(s, item, probe);
        if (eval(*s.conditions[0], probe).truthy()) kept.push_back(std::move(item));
      }
      items = std::move(kept);
    }
    if (items.empty()) {
      if (s.bodies.size() > 1) exec(s.bodies[1], scope, out);
      return;
    }
    const auto n = static_cast<std::int64_t>(items.size());
    for (std::int64_t i = 0; i < n; ++i) {
      Scope iteration{&scope, {}};
      assign(s, items[static_cast<std::size_t>(i)], iteration);
      Value loop = make_dict(DictObject::Flavor::loop);
      DictObject& l = *loop.as_dict();
      l.set("index", Value(i + 1));
      l.set("index0", Value(i));
      l.set("revindex", Value(n - i));
      l.set("revindex0", Value(n - i - 1));
      l.set("first", Value(i == 0));
      l.set("last", Value(i == n - 1));
      l.set("length", Value(n));
      l.set("depth", Value(1));
      l.set("depth0", Value(0));
      if (i > 0) l.set("previtem", items[static_cast<std::size_t>(i - 1)]);
      if (i < n - 1) l.set("nextitem", items[static_cast<std::size_t>(i + 1)]);
      iteration.variables["loop"] = loop;
      if (exec(s.bodies[0], iteration, out) == Flow::loop_break) break;
    }
  }

  Value macro(const Stmt& s) {
    return make_function(s.text, [this, &s](const CallArgs& args) {
      const std::vector<std::string>& parameters = s.targets;
      const BoundArgs bound(args, "macro '" + s.text + "'", parameters);
      Scope scope{&template_scope_, {}};
      for (std::size_t i = 0; i < parameters.size(); ++i) {
        if (bound.has(i))
          scope.variables[parameters[i]] = bound[i];
        else if (s.defaults[i])
          scope.variables[parameters[i]] = eval(*s.defaults[i], scope);
        else
          scope.variables[parameters[i]] = Value(Undefined{"'" + parameters[i] + "' is undefined"});
      }
      std::string text;
      exec(s.bodies[0], scope, text);
      return Value(std::move(text));
    });
  }

  // --- expressions ---

  Value eval(const Expr& e, const Scope& scope) {
    try {
      return eval_expression(e, scope);
    } catch (const RenderError& error) {
      throw RenderFailure(e.line, error.what());
    }
  }

  CallArgs arguments(const Expr& e, std::size_t first, const Scope& scope) {
    CallArgs args;
    const std::size_t keyword_start = e.args.size() - e.keywords.size();
    for (std::size_t i = first; i < keyword_start; ++i) args.positional.push_back(eval(*e.args[i], scope));
    for (std::size_t i = keyword_start; i < e.args.size(); ++i)
      args.keyword.emplace_back(e.keywords[i - keyword_start], eval(*e.args[i], scope));
    return args;
  }

  std::optional<std::int64_t> slice_bound(const Expr* bound, const Scope& scope) {
    if (!bound) return std::nullopt;
    const Value v = eval(*bound, scope);
    if (v.is_none()) return std::nullopt;
    if (v.is_int()) return v.as_int();
    if (v.is_bool()) return v.as_bool() ? 1 : 0;
    throw RenderError("slice indices must be integers or None, not " + v.type_name());
  }

  Value eval_expression(const Expr& e, const Scope& scope) {
    switch (e.kind) {
      case ExprKind::literal: return e.literal;
      case ExprKind::name: {
        const Value* v = scope.find(e.name);
        return v ? *v : Value(Undefined{"'" + e.name + "' is undefined"});
      }
      case ExprKind::list:
      case ExprKind::tuple: {
        std::vector<Value> items;
        for (const ExprPtr& item : e.args) items.push_back(eval(*item, scope));
        return make_list(std::move(items), e.kind == ExprKind::tuple);
      }
      case ExprKind::dict: {
        Value dict = make_dict();
        for (std::size_t i = 0; i < e.args.size(); i += 2) {
          const Value key = eval(*e.args[i], scope);
          if (!key.is_string()) throw RenderError("dict keys other than strings are not supported");
          dict.as_dict()->set(key.as_string(), eval(*e.args[i + 1], scope));
        }
        return dict;
      }
      case ExprKind::attribute: return get_attribute(eval(*e.args[0], scope), e.name);
      case ExprKind::item: return get_item(eval(*e.args[0], scope), eval(*e.args[1], scope));
      case ExprKind::slice: return slice(e, scope);
      case ExprKind::call: {
        const Value callee = eval(*e.args[0], scope);
        callee.require_defined();
        if (!callee.is_function()) throw RenderError("'" + callee.type_name() + "' object is not callable");
        return callee.as_function()->call(arguments(e, 1, scope));
      }
      case ExprKind::filter: return find_filter(e.name)(eval(*e.args[0], scope), arguments(e, 1, scope));
      case ExprKind::test: {
        const bool result = find_test(e.name)(eval(*e.args[0], scope), arguments(e, 1, scope));
        return Value(result != e.negated);
      }
      case ExprKind::logical_not: return Value(!eval(*e.args[0], scope).truthy());
      case ExprKind::negate:
      case ExprKind::unary_plus: {
        const Value v = eval(*e.args[0], scope);
        v.require_defined();
        if (!v.is_number())
          throw RenderError(std::string("bad operand type for unary ") + (e.kind == ExprKind::negate ? "-" : "+") +
                            ": '" + v.type_name() + "'");
        if (e.kind == ExprKind::unary_plus) return v.is_bool() ? Value(static_cast<std::int64_t>(v.as_bool())) : v;
        return binary_operation("-", Value(0), v);
      }
      case ExprKind::binary: {
        if (e.name == "and" || e.name == "or") {
          Value left = eval(*e.args[0], scope);
          if (left.truthy() == (e.name == "or")) return left;
          return eval(*e.args[1], scope);
        }
        return binary_operation(e.name, eval(*e.args[0], scope), eval(*e.args[1], scope));
      }
      case ExprKind::compare: {
        Value left = eval(*e.args[0], scope);
        for (std::size_t i = 0; i < e.ops.size(); ++i) {
          Value right = eval(*e.args[i + 1], scope);
          if (!compare(e.ops[i], left, right)) return Value(false);
          left = std::move(right);
        }
        return Value(true);
      }
      case ExprKind::conditional:
        if (eval(*e.args[1], scope).truthy()) return eval(*e.args[0], scope);
        return e.args[2] ? eval(*e.args[2], scope) : Value(Undefined{"the inline if's condition was false"});
    }
    return Value();
  }

  static bool compare(const std::string& op, const Value& left, const Value& right) {
    if (op == "==") return equal(left, right);
    if (op == "!=") return !equal(left, right);
    if (op == "<") return less(left, right);
    if (op == ">") return less(right, left);
    if (op == "<=") return less(left, right) || equal(left, right);
    if (op == ">=") return less(right, left) || equal(left, right);
    if (op == "in") return contains(right, left);
    return !contains(right, left);  // "not in"
  }

  Value slice(const Expr& e, const Scope& scope) {
    const Value object = eval(*e.args[0], scope);
    object.require_defined();
    const auto start = slice_bound(e.args[1].get(), scope);
    const auto stop = slice_bound(e.args[2].get(), scope);
    const auto step = slice_bound(e.args[3].get(), scope);
    if (object.is_string()) {
      const std::u32string text = py::decode(object.as_string());
      std::u32string out;
      for (std::int64_t i : py::slice_indices(static_cast<std::int64_t>(text.size()), start, stop, step))
        out += text[static_cast<std::size_t>(i)];
      return Value(py::encode(out));
    }
    if (object.is_list()) {
      const auto& items = object.as_list()->items;
      std::vector<Value> out;
      for (std::int64_t i : py::slice_indices(static_cast<std::int64_t>(items.size()), start, stop, step))
        out.push_back(items[static_cast<std::size_t>(i)]);
      return make_list(std::move(out), object.as_list()->tuple);
    }
    throw RenderError("'" + object.type_name() + "' object is not subscriptable");
  }

  Scope root_;                             // the global functions and the variables passed in
  Scope template_scope_{&root_, {}};       // the template's own assignments, which shadow them
};

}  // namespace

std::string render(const Body& body, const nlohmann::ordered_json& variables, std::time_t now) {
  return Evaluator(variables, now).run(body);
}

}  // namespace heptapod::jinja
