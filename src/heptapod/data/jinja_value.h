// The values a Jinja chat template computes with, as Python has them under jinja2: undefined, None, booleans,
// integers, floats, strings, lists and tuples, ordered dicts (and the namespace and loop objects built on them),
// and callables. Python's truthiness, equality, ordering, str() and repr() live here; tojson is in jinja_json.h.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace heptapod::jinja {

// A failure while rendering (Python's TypeError, UndefinedError, ...). The evaluator adds the template's name
// and the line before it leaves the engine as a heptapod::Error.
class RenderError : public std::runtime_error {
 public:
  explicit RenderError(const std::string& message) : std::runtime_error(message) {}
};

class Value;
struct ListObject;
struct DictObject;
struct Function;
using ListPtr = std::shared_ptr<ListObject>;
using DictPtr = std::shared_ptr<DictObject>;
using FunctionPtr = std::shared_ptr<const Function>;

// jinja2's default Undefined: prints as "", is falsy and empty, and fails on any other use with `why`
// ("'x' is undefined", "'dict object' has no attribute 'y'").
struct Undefined {
  std::string why;
};

class Value {
 public:
  Value() : v_(Undefined{"the value is undefined"}) {}
  Value(Undefined u) : v_(std::move(u)) {}
  Value(std::nullptr_t) : v_(nullptr) {}
  Value(bool b) : v_(b) {}
  Value(std::int64_t i) : v_(i) {}
  Value(int i) : v_(static_cast<std::int64_t>(i)) {}
  Value(double d) : v_(d) {}
  Value(std::string s) : v_(std::move(s)) {}
  Value(const char* s) : v_(std::string(s)) {}
  Value(ListPtr l) : v_(std::move(l)) {}
  Value(DictPtr d) : v_(std::move(d)) {}
  Value(FunctionPtr f) : v_(std::move(f)) {}

  bool is_undefined() const { return std::holds_alternative<Undefined>(v_); }
  bool is_none() const { return std::holds_alternative<std::nullptr_t>(v_); }
  bool is_bool() const { return std::holds_alternative<bool>(v_); }
  bool is_int() const { return std::holds_alternative<std::int64_t>(v_); }
  bool is_float() const { return std::holds_alternative<double>(v_); }
  bool is_number() const { return is_int() || is_float() || is_bool(); }  // Python's numbers include bool
  bool is_string() const { return std::holds_alternative<std::string>(v_); }
  bool is_list() const { return std::holds_alternative<ListPtr>(v_); }  // lists and tuples
  bool is_dict() const { return std::holds_alternative<DictPtr>(v_); }  // dicts, namespaces, loops
  bool is_mapping() const;  // a plain dict (jinja2's `mapping` test)
  bool is_function() const { return std::holds_alternative<FunctionPtr>(v_); }

  const std::string& undefined_why() const { return std::get<Undefined>(v_).why; }
  bool as_bool() const { return std::get<bool>(v_); }
  std::int64_t as_int() const { return std::get<std::int64_t>(v_); }
  double as_float() const { return std::get<double>(v_); }
  const std::string& as_string() const { return std::get<std::string>(v_); }
  const ListPtr& as_list() const { return std::get<ListPtr>(v_); }
  const DictPtr& as_dict() const { return std::get<DictPtr>(v_); }
  const FunctionPtr& as_function() const { return std::get<FunctionPtr>(v_); }
  // An int, bool or float as a double (the caller checks is_number()).
  double number() const;

  // Python's bool(x).
  bool truthy() const;
  // Python's str(x) and repr(x); undefined prints as "" (str) and "Undefined" (repr).
  std::string str() const;
  std::string repr() const;
  // Python's type name, for error messages ("str", "int", "list", "dict", "NoneType", "undefined").
  std::string type_name() const;
  // Throws the UndefinedError an undefined value carries; a no-op for any other value.
  void require_defined() const;

 private:
  std::variant<Undefined, std::nullptr_t, bool, std::int64_t, double, std::string, ListPtr, DictPtr, FunctionPtr>
      v_;
};

struct ListObject {
  std::vector<Value> items;
  bool tuple = false;  // prints as (a, b) and never equals a list
};

struct DictObject {
  enum class Flavor { dict, namespace_object, loop };
  Flavor flavor = Flavor::dict;
  std::vector<std::pair<std::string, Value>> items;  // in insertion order

  const Value* find(const std::string& key) const;
  void set(const std::string& key, Value value);
};

// The arguments of a call: positional, then keyword in the order written.
struct CallArgs {
  std::vector<Value> positional;
  std::vector<std::pair<std::string, Value>> keyword;
};

// A callable value: a global function, a macro or a bound method.
struct Function {
  std::string name;
  std::function<Value(const CallArgs&)> call;
};

Value make_list(std::vector<Value> items, bool tuple = false);
Value make_dict(DictObject::Flavor flavor = DictObject::Flavor::dict);
Value make_function(std::string name, std::function<Value(const CallArgs&)> call);

// Python's x == y (1 == 1.0 == True; a tuple never equals a list; undefined equals only undefined).
bool equal(const Value& a, const Value& b);
// Python's x < y for numbers, strings and sequences; anything else is a TypeError.
bool less(const Value& a, const Value& b);
// The items `for x in value` visits: a list's items, a dict's keys, a string's characters; undefined is empty.
std::vector<Value> iterate(const Value& value);
// Python's len(): code points of a string, items of a list or dict; undefined has 0.
std::int64_t length(const Value& value);

// A JSON document as template values (objects keep their key order).
Value from_json(const nlohmann::ordered_json& json);

}  // namespace heptapod::jinja
