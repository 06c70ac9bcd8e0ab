// jinja2's tests (`x is defined`, `x is string`, `x is divisibleby 3`, ...) as chat templates use them, with
// jinja2's answers on undefined values (see jinja_builtins.h).
#include <map>

#include "heptapod/data/jinja_builtins.h"
#include "heptapod/data/jinja_pystring.h"

namespace heptapod::jinja {

namespace {

const Value& other(const CallArgs& args, const char* test) {
  if (args.positional.size() != 1 || !args.keyword.empty())
    throw RenderError(std::string("test '") + test + "' takes exactly one argument");
  return args.positional[0];
}

void no_arguments(const CallArgs& args, const char* test) {
  if (!args.positional.empty() || !args.keyword.empty())
    throw RenderError(std::string("test '") + test + "' takes no arguments");
}

bool divisible(const Value& value, const Value& by) { return equal(binary_operation("%", value, by), Value(0)); }

// str.islower() / str.isupper(): some cased character, and every cased one already in that case.
bool in_case(const Value& value, bool upper) {
  const std::string text = value.str();
  const std::string mapped = upper ? py::upper(text) : py::lower(text);
  const std::string opposite = upper ? py::lower(text) : py::upper(text);
  return mapped == text && opposite != text;
}

#define HEPTAPOD_SIMPLE_TEST(name, expression)          \
  bool name(const Value& v, const CallArgs& args) {      \
    no_arguments(args, #name);                           \
    return expression;                                   \
  }

HEPTAPOD_SIMPLE_TEST(test_defined, !v.is_undefined())
HEPTAPOD_SIMPLE_TEST(test_undefined, v.is_undefined())
HEPTAPOD_SIMPLE_TEST(test_none, v.is_none())
HEPTAPOD_SIMPLE_TEST(test_string, v.is_string())
HEPTAPOD_SIMPLE_TEST(test_number, v.is_number())
HEPTAPOD_SIMPLE_TEST(test_integer, v.is_int())
HEPTAPOD_SIMPLE_TEST(test_float, v.is_float())
HEPTAPOD_SIMPLE_TEST(test_boolean, v.is_bool())
HEPTAPOD_SIMPLE_TEST(test_true, v.is_bool() && v.as_bool())
HEPTAPOD_SIMPLE_TEST(test_false, v.is_bool() && !v.as_bool())
HEPTAPOD_SIMPLE_TEST(test_mapping, v.is_mapping())
HEPTAPOD_SIMPLE_TEST(test_callable, v.is_function())
// Python's iter() accepts strings, sequences, dicts, jinja2's Undefined and its loop object.
HEPTAPOD_SIMPLE_TEST(test_iterable, v.is_undefined() || v.is_string() || v.is_list() ||
                                        (v.is_dict() && v.as_dict()->flavor != DictObject::Flavor::namespace_object))
// len() and __getitem__: strings, sequences, dicts and jinja2's Undefined.
HEPTAPOD_SIMPLE_TEST(test_sequence, v.is_undefined() || v.is_string() || v.is_list() || v.is_mapping())
HEPTAPOD_SIMPLE_TEST(test_even, divisible(v, Value(2)))
HEPTAPOD_SIMPLE_TEST(test_odd, !divisible(v, Value(2)))
HEPTAPOD_SIMPLE_TEST(test_lower, in_case(v, false))
HEPTAPOD_SIMPLE_TEST(test_upper, in_case(v, true))

#undef HEPTAPOD_SIMPLE_TEST

bool test_divisibleby(const Value& v, const CallArgs& args) { return divisible(v, other(args, "divisibleby")); }
bool test_eq(const Value& v, const CallArgs& args) { return equal(v, other(args, "eq")); }
bool test_ne(const Value& v, const CallArgs& args) { return !equal(v, other(args, "ne")); }
bool test_lt(const Value& v, const CallArgs& args) { return less(v, other(args, "lt")); }
bool test_gt(const Value& v, const CallArgs& args) { return less(other(args, "gt"), v); }
bool test_le(const Value& v, const CallArgs& args) {
  const Value& o = other(args, "le");
  return less(v, o) || equal(v, o);
}
bool test_ge(const Value& v, const CallArgs& args) {
  const Value& o = other(args, "ge");
  return less(o, v) || equal(v, o);
}
bool test_in(const Value& v, const CallArgs& args) { return contains(other(args, "in"), v); }

const std::map<std::string, TestFunction>& tests() {
  static const std::map<std::string, TestFunction> table = {
      {"defined", test_defined},   {"undefined", test_undefined}, {"none", test_none},
      {"string", test_string},     {"number", test_number},       {"integer", test_integer},
      {"float", test_float},       {"boolean", test_boolean},     {"true", test_true},
      {"false", test_false},       {"mapping", test_mapping},     {"callable", test_callable},
      {"iterable", test_iterable}, {"sequence", test_sequence},   {"even", test_even},
      {"odd", test_odd},           {"lower", test_lower},         {"upper", test_upper},
      {"divisibleby", test_divisibleby},
      {"eq", test_eq},             {"equalto", test_eq},          {"==", test_eq},
      {"ne", test_ne},             {"!=", test_ne},
      {"lt", test_lt},             {"lessthan", test_lt},         {"<", test_lt},
      {"gt", test_gt},             {"greaterthan", test_gt},      {">", test_gt},
      {"le", test_le},             {"<=", test_le},
      {"ge", test_ge},             {">=", test_ge},
      {"in", test_in},
  };
  return table;
}

}  // namespace

TestFunction find_test(const std::string& name) {
  const auto it = tests().find(name);
  return it == tests().end() ? nullptr : it->second;
}

bool apply_test(const std::string& name, const Value& input, const CallArgs& args) {
  const TestFunction test = find_test(name);
  if (!test) throw RenderError("test '" + name + "' is not supported");
  return test(input, args);
}

}  // namespace heptapod::jinja
