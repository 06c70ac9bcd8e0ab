// Template values with Python's truthiness, equality, ordering, str() and repr() (see jinja_value.h).
#include "heptapod/data/jinja_value.h"

#include "heptapod/data/jinja_pystring.h"
#include "heptapod/data/utf8.h"

namespace heptapod::jinja {

bool Value::is_mapping() const { return is_dict() && as_dict()->flavor == DictObject::Flavor::dict; }

double Value::number() const {
  if (is_bool()) return as_bool() ? 1.0 : 0.0;
  if (is_int()) return static_cast<double>(as_int());
  return as_float();
}

bool Value::truthy() const {
  if (is_undefined() || is_none()) return false;
  if (is_bool()) return as_bool();
  if (is_int()) return as_int() != 0;
  if (is_float()) return as_float() != 0.0;
  if (is_string()) return !as_string().empty();
  if (is_list()) return !as_list()->items.empty();
  if (is_dict()) return as_dict()->flavor != DictObject::Flavor::dict || !as_dict()->items.empty();
  return true;
}

namespace {

std::string join_repr(const std::vector<Value>& items) {
  std::string out;
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (i > 0) out += ", ";
    out += items[i].repr();
  }
  return out;
}

std::string dict_repr(const DictObject& dict) {
  std::string out = "{";
  for (std::size_t i = 0; i < dict.items.size(); ++i) {
    if (i > 0) out += ", ";
    out += py::repr(dict.items[i].first) + ": " + dict.items[i].second.repr();
  }
  return out + "}";
}

}  // namespace

std::string Value::str() const {
  if (is_undefined()) return "";
  if (is_string()) return as_string();
  return repr();
}

std::string Value::repr() const {
  if (is_undefined()) return "Undefined";  // jinja2's Undefined.__repr__
  if (is_none()) return "None";
  if (is_bool()) return as_bool() ? "True" : "False";
  if (is_int()) return std::to_string(as_int());
  if (is_float()) return py::float_repr(as_float());
  if (is_string()) return py::repr(as_string());
  if (is_list()) {
    const ListObject& list = *as_list();
    if (list.tuple) return "(" + join_repr(list.items) + (list.items.size() == 1 ? ",)" : ")");
    return "[" + join_repr(list.items) + "]";
  }
  if (is_dict()) {
    const DictObject& dict = *as_dict();
    if (dict.flavor == DictObject::Flavor::namespace_object) return "<Namespace " + dict_repr(dict) + ">";
    if (dict.flavor == DictObject::Flavor::loop) return "<LoopContext>";
    return dict_repr(dict);
  }
  return "<function " + as_function()->name + ">";
}

std::string Value::type_name() const {
  if (is_undefined()) return "undefined";
  if (is_none()) return "NoneType";
  if (is_bool()) return "bool";
  if (is_int()) return "int";
  if (is_float()) return "float";
  if (is_string()) return "str";
  if (is_list()) return as_list()->tuple ? "tuple" : "list";
  if (is_dict()) {
    switch (as_dict()->flavor) {
      case DictObject::Flavor::namespace_object: return "Namespace";
      case DictObject::Flavor::loop: return "LoopContext";
      case DictObject::Flavor::dict: return "dict";
    }
  }
  return "function";
}

void Value::require_defined() const {
  if (is_undefined()) throw RenderError(undefined_why());
}

const Value* DictObject::find(const std::string& key) const {
  for (const auto& item : items) {
    if (item.first == key) return &item.second;
  }
  return nullptr;
}

void DictObject::set(const std::string& key, Value value) {
  for (auto& item : items) {
    if (item.first == key) {
      item.second = std::move(value);
      return;
    }
  }
  items.emplace_back(key, std::move(value));
}

Value make_list(std::vector<Value> items, bool tuple) {
  auto list = std::make_shared<ListObject>();
  list->items = std::move(items);
  list->tuple = tuple;
  return Value(list);
}

Value make_dict(DictObject::Flavor flavor) {
  auto dict = std::make_shared<DictObject>();
  dict->flavor = flavor;
  return Value(dict);
}

Value make_function(std::string name, std::function<Value(const CallArgs&)> call) {
  return Value(std::make_shared<const Function>(Function{std::move(name), std::move(call)}));
}

bool equal(const Value& a, const Value& b) {
  if (a.is_undefined() || b.is_undefined()) return a.is_undefined() && b.is_undefined();
  if (a.is_number() && b.is_number()) {
    if (a.is_float() || b.is_float()) return a.number() == b.number();
    const std::int64_t x = a.is_bool() ? a.as_bool() : a.as_int();
    const std::int64_t y = b.is_bool() ? b.as_bool() : b.as_int();
    return x == y;
  }
  if (a.is_none() || b.is_none()) return a.is_none() && b.is_none();
  if (a.is_string() && b.is_string()) return a.as_string() == b.as_string();
  if (a.is_list() && b.is_list()) {
    const ListObject& x = *a.as_list();
    const ListObject& y = *b.as_list();
    if (x.tuple != y.tuple || x.items.size() != y.items.size()) return false;
    for (std::size_t i = 0; i < x.items.size(); ++i) {
      if (!equal(x.items[i], y.items[i])) return false;
    }
    return true;
  }
  if (a.is_dict() && b.is_dict()) {
    const DictObject& x = *a.as_dict();
    const DictObject& y = *b.as_dict();
    if (x.flavor != DictObject::Flavor::dict || y.flavor != DictObject::Flavor::dict) return &x == &y;
    if (x.items.size() != y.items.size()) return false;
    for (const auto& [key, value] : x.items) {
      const Value* other = y.find(key);
      if (!other || !equal(value, *other)) return false;
    }
    return true;
  }
  if (a.is_function() && b.is_function()) return a.as_function() == b.as_function();
  return false;
}

bool less(const Value& a, const Value& b) {
  a.require_defined();
  b.require_defined();
  if (a.is_number() && b.is_number()) {
    if (a.is_float() || b.is_float()) return a.number() < b.number();
    const std::int64_t x = a.is_bool() ? a.as_bool() : a.as_int();
    const std::int64_t y = b.is_bool() ? b.as_bool() : b.as_int();
    return x < y;
  }
  if (a.is_string() && b.is_string()) return a.as_string() < b.as_string();  // UTF-8 keeps code point order
  if (a.is_list() && b.is_list() && a.as_list()->tuple == b.as_list()->tuple) {
    const auto& x = a.as_list()->items;
    const auto& y = b.as_list()->items;
    for (std::size_t i = 0; i < x.size() && i < y.size(); ++i) {
      if (!equal(x[i], y[i])) return less(x[i], y[i]);
    }
    return x.size() < y.size();
  }
  throw RenderError("'<' not supported between instances of '" + a.type_name() + "' and '" + b.type_name() + "'");
}

std::vector<Value> iterate(const Value& value) {
  if (value.is_undefined()) return {};
  if (value.is_list()) return value.as_list()->items;
  if (value.is_mapping()) {
    std::vector<Value> keys;
    for (const auto& item : value.as_dict()->items) keys.emplace_back(item.first);
    return keys;
  }
  if (value.is_string()) {
    std::vector<Value> characters;
    for (char32_t c : py::decode(value.as_string())) {
      std::string character;
      append_utf8(c, character);
      characters.emplace_back(std::move(character));
    }
    return characters;
  }
  throw RenderError("'" + value.type_name() + "' object is not iterable");
}

std::int64_t length(const Value& value) {
  if (value.is_undefined()) return 0;
  if (value.is_string()) return static_cast<std::int64_t>(count_code_points(value.as_string()));
  if (value.is_list()) return static_cast<std::int64_t>(value.as_list()->items.size());
  if (value.is_mapping()) return static_cast<std::int64_t>(value.as_dict()->items.size());
  throw RenderError("object of type '" + value.type_name() + "' has no len()");
}

Value from_json(const nlohmann::ordered_json& json) {
  switch (json.type()) {
    case nlohmann::ordered_json::value_t::null: return Value(nullptr);
    case nlohmann::ordered_json::value_t::boolean: return Value(json.get<bool>());
    case nlohmann::ordered_json::value_t::number_integer: return Value(json.get<std::int64_t>());
    case nlohmann::ordered_json::value_t::number_unsigned: {
      const auto u = json.get<std::uint64_t>();
      if (u > static_cast<std::uint64_t>(INT64_MAX)) throw RenderError("integer " + json.dump() + " is too large");
      return Value(static_cast<std::int64_t>(u));
    }
    case nlohmann::ordered_json::value_t::number_float: return Value(json.get<double>());
    case nlohmann::ordered_json::value_t::string: return Value(json.get<std::string>());
    case nlohmann::ordered_json::value_t::array: {
      std::vector<Value> items;
      for (const auto& item : json) items.push_back(from_json(item));
      return make_list(std::move(items));
    }
    case nlohmann::ordered_json::value_t::object: {
      Value dict = make_dict();
      for (const auto& [key, item] : json.items()) dict.as_dict()->set(key, from_json(item));
      return dict;
    }
    default: throw RenderError("a binary JSON value cannot be a template variable");
  }
}

}  // namespace heptapod::jinja
