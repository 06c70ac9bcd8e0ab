// Python's arithmetic, jinja2's `~` and Python's `in` on template values (see jinja_builtins.h).
#include <cmath>
#include <limits>

#include "heptapod/data/jinja_builtins.h"

namespace heptapod::jinja {

namespace {

[[noreturn]] void unsupported(const std::string& op, const Value& a, const Value& b) {
  throw RenderError("unsupported operand type(s) for " + op + ": '" + a.type_name() + "' and '" + b.type_name() +
                    "'");
}

std::int64_t as_integer(const Value& v) { return v.is_bool() ? static_cast<std::int64_t>(v.as_bool()) : v.as_int(); }

void require_no_overflow(bool overflowed) {
  if (overflowed) throw RenderError("integer result does not fit in 64 bits");
}

Value repeat(const Value& sequence, std::int64_t times) {
  if (sequence.is_string()) {
    std::string out;
    for (std::int64_t i = 0; i < times; ++i) out += sequence.as_string();
    return Value(std::move(out));
  }
  std::vector<Value> items;
  for (std::int64_t i = 0; i < times; ++i)
    items.insert(items.end(), sequence.as_list()->items.begin(), sequence.as_list()->items.end());
  return make_list(std::move(items), sequence.as_list()->tuple);
}

// Python's float floor division and modulo (Objects/floatobject.c's float_divmod).
std::pair<double, double> float_divmod(double a, double b) {
  double mod = std::fmod(a, b);
  double div = (a - mod) / b;
  if (mod != 0.0) {
    if ((b < 0) != (mod < 0)) {
      mod += b;
      div -= 1.0;
    }
  } else {
    mod = std::copysign(0.0, b);
  }
  double floordiv;
  if (div != 0.0) {
    floordiv = std::floor(div);
    if (div - floordiv > 0.5) floordiv += 1.0;
  } else {
    floordiv = std::copysign(0.0, a / b);
  }
  return {floordiv, mod};
}

Value arithmetic(const std::string& op, const Value& a, const Value& b) {
  const bool integers = !a.is_float() && !b.is_float();
  if (op == "/") {
    if (b.number() == 0.0) throw RenderError("division by zero");
    return Value(a.number() / b.number());
  }
  if (op == "//" || op == "%") {
    if (b.number() == 0.0) throw RenderError(op == "%" ? "integer modulo by zero" : "integer division by zero");
    if (integers) {
      const std::int64_t x = as_integer(a), y = as_integer(b);
      require_no_overflow(x == std::numeric_limits<std::int64_t>::min() && y == -1);
      std::int64_t q = x / y, r = x % y;
      if (r != 0 && ((r < 0) != (y < 0))) {
        r += y;
        --q;
      }
      return Value(op == "//" ? q : r);
    }
    const auto [q, r] = float_divmod(a.number(), b.number());
    return Value(op == "//" ? q : r);
  }
  if (op == "**") {
    if (integers && as_integer(b) >= 0) {
      std::int64_t result = 1, base = as_integer(a);
      for (std::int64_t e = as_integer(b); e > 0; --e) require_no_overflow(__builtin_mul_overflow(result, base, &result));
      return Value(result);
    }
    return Value(std::pow(a.number(), b.number()));
  }
  if (integers) {
    std::int64_t result = 0;
    const std::int64_t x = as_integer(a), y = as_integer(b);
    if (op == "+")
      require_no_overflow(__builtin_add_overflow(x, y, &result));
    else if (op == "-")
      require_no_overflow(__builtin_sub_overflow(x, y, &result));
    else
      require_no_overflow(__builtin_mul_overflow(x, y, &result));
    return Value(result);
  }
  if (op == "+") return Value(a.number() + b.number());
  if (op == "-") return Value(a.number() - b.number());
  return Value(a.number() * b.number());
}

}  // namespace

Value binary_operation(const std::string& op, const Value& a, const Value& b) {
  if (op == "~") return Value(a.str() + b.str());
  a.require_defined();
  b.require_defined();
  if (a.is_number() && b.is_number()) return arithmetic(op, a, b);
  if (op == "+") {
    if (a.is_string() && b.is_string()) return Value(a.as_string() + b.as_string());
    if (a.is_list() && b.is_list() && a.as_list()->tuple == b.as_list()->tuple) {
      std::vector<Value> items = a.as_list()->items;
      items.insert(items.end(), b.as_list()->items.begin(), b.as_list()->items.end());
      return make_list(std::move(items), a.as_list()->tuple);
    }
    if (a.is_string()) throw RenderError("can only concatenate str (not \"" + b.type_name() + "\") to str");
    if (a.is_list())
      throw RenderError("can only concatenate " + a.type_name() + " (not \"" + b.type_name() + "\") to " + a.type_name());
  }
  if (op == "*") {
    const bool a_sequence = a.is_string() || a.is_list(), b_sequence = b.is_string() || b.is_list();
    if (a_sequence && (b.is_int() || b.is_bool())) return repeat(a, as_integer(b));
    if (b_sequence && (a.is_int() || a.is_bool())) return repeat(b, as_integer(a));
  }
  if (op == "%" && a.is_string()) throw RenderError("printf-style formatting of strings ('%') is not supported");
  unsupported(op, a, b);
}

bool contains(const Value& container, const Value& item) {
  if (container.is_undefined()) return false;
  if (container.is_string()) {
    if (!item.is_string())
      throw RenderError("'in <string>' requires string as left operand, not " + item.type_name());
    return container.as_string().find(item.as_string()) != std::string::npos;
  }
  if (container.is_list()) {
    for (const Value& v : container.as_list()->items) {
      if (equal(v, item)) return true;
    }
    return false;
  }
  if (container.is_mapping()) return item.is_string() && container.as_dict()->find(item.as_string()) != nullptr;
  throw RenderError("argument of type '" + container.type_name() + "' is not iterable");
}

}  // namespace heptapod::jinja
