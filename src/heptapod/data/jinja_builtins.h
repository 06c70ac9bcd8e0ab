// The built-in filters, tests, methods and attribute lookup of the chat-template engine, with jinja2's (and
// Python's) semantics. The parser asks which names exist, so that a template using anything else is refused
// before it renders.
#pragma once

#include <ctime>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "heptapod/data/jinja_value.h"

namespace heptapod::jinja {

// A call's arguments bound to named parameters as Python binds them; a missing one reads as undefined.
// Too many, unknown or repeated arguments are errors naming `function`.
class BoundArgs {
 public:
  BoundArgs(const CallArgs& args, const std::string& function, const std::vector<std::string>& parameters);
  bool has(std::size_t i) const { return given_[i]; }
  const Value& operator[](std::size_t i) const { return values_[i]; }
  // The argument as an int / a bool / a str, or `fallback` when absent (a TypeError naming it otherwise).
  std::int64_t integer(std::size_t i, std::int64_t fallback) const;
  bool boolean(std::size_t i, bool fallback) const;
  std::optional<std::string> text(std::size_t i) const;  // absent or None: nullopt

 private:
  std::string function_;
  std::vector<std::string> parameters_;
  std::vector<Value> values_;
  std::vector<bool> given_;
};

using FilterFunction = Value (*)(const Value& input, const CallArgs& args);
using TestFunction = bool (*)(const Value& input, const CallArgs& args);

// The filter or test of that name, or null (the parser refuses unknown names).
FilterFunction find_filter(const std::string& name);
TestFunction find_test(const std::string& name);
// Applies a test by name (select, reject, selectattr and rejectattr take tests by name at render time).
bool apply_test(const std::string& name, const Value& input, const CallArgs& args);

// Whether some supported type has a method of that name (the parser refuses calls of other methods).
bool is_method_name(const std::string& name);
// jinja2's `object.name`: a method bound to the object, else the attribute or dict item, else undefined.
// A Python method of the object's type that the engine lacks is an error rather than a wrong answer.
Value get_attribute(const Value& object, const std::string& name);
// jinja2's `object[key]`: items of dicts and sequences (negative indexes count from the end), else the attribute.
Value get_item(const Value& object, const Value& key);

// The global functions: raise_exception(message), strftime_now(format) (local time at `now`), namespace(...),
// range(...) and dict(...).
bool is_global_function(const std::string& name);
Value global_function(const std::string& name, std::time_t now);

// Python's `+ - * / // % **` and jinja2's `~` on two values.
Value binary_operation(const std::string& op, const Value& left, const Value& right);
// Python's `item in container`.
bool contains(const Value& container, const Value& item);

}  // namespace heptapod::jinja
