// jinja2's attribute and item lookup, and the str and dict methods chat templates call (see jinja_builtins.h).
// Python methods the engine lacks (str.zfill, list.append, dict.update, ...) are refused when looked up, not
// mistaken for missing attributes.
#include <algorithm>
#include <set>

#include "heptapod/data/jinja_builtins.h"
#include "heptapod/data/jinja_pystring.h"

namespace heptapod::jinja {

namespace {

const std::set<std::string>& python_str_methods() {
  static const std::set<std::string> names = {
      "capitalize", "casefold",  "center",     "count",     "encode",    "endswith",   "expandtabs", "find",
      "format",     "format_map", "index",     "isalnum",   "isalpha",   "isascii",    "isdecimal",  "isdigit",
      "isidentifier", "islower", "isnumeric",  "isprintable", "isspace", "istitle",    "isupper",    "join",
      "ljust",      "lower",     "lstrip",     "maketrans", "partition", "removeprefix", "removesuffix", "replace",
      "rfind",      "rindex",    "rjust",      "rpartition", "rsplit",   "rstrip",     "split",      "splitlines",
      "startswith", "strip",     "swapcase",   "title",     "translate", "upper",      "zfill"};
  return names;
}
const std::set<std::string>& python_dict_methods() {
  static const std::set<std::string> names = {"clear", "copy", "fromkeys", "get", "items", "keys", "pop",
                                              "popitem", "setdefault", "update", "values"};
  return names;
}
const std::set<std::string>& python_list_methods() {
  static const std::set<std::string> names = {"append", "clear", "copy",   "count", "extend", "index",
                                              "insert", "pop",   "remove", "reverse", "sort"};
  return names;
}

const std::set<std::string>& str_methods() {
  static const std::set<std::string> names = {"startswith", "endswith", "split",      "rsplit",    "strip",
                                              "lstrip",     "rstrip",   "upper",      "lower",     "title",
                                              "capitalize", "replace",  "find",       "rfind",     "count",
                                              "join",       "splitlines"};
  return names;
}
const std::set<std::string>& dict_methods() {
  static const std::set<std::string> names = {"items", "keys", "values", "get"};
  return names;
}

// startswith/endswith(prefix or tuple of prefixes).
bool affix_matches(const std::string& text, const Value& affix, bool start, const char* method) {
  std::vector<Value> candidates;
  if (affix.is_list() && affix.as_list()->tuple)
    candidates = affix.as_list()->items;
  else
    candidates.push_back(affix);
  for (const Value& c : candidates) {
    if (!c.is_string())
      throw RenderError(std::string(method) + " first arg must be str or a tuple of str, not " + c.type_name());
    const std::string& s = c.as_string();
    if (s.size() <= text.size() && text.compare(start ? 0 : text.size() - s.size(), s.size(), s) == 0) return true;
  }
  return false;
}

Value strings(const std::vector<std::string>& parts) {
  std::vector<Value> items(parts.begin(), parts.end());
  return make_list(std::move(items));
}

Value call_str_method(const std::string& text, const std::string& name, const CallArgs& args) {
  const std::string function = "str." + name + "()";
  if (name == "startswith" || name == "endswith") {
    const BoundArgs a(args, function, {"prefix"});
    if (!a.has(0)) throw RenderError(function + " takes exactly one argument");
    return Value(affix_matches(text, a[0], name == "startswith", name.c_str()));
  }
  if (name == "split" || name == "rsplit") {
    const BoundArgs a(args, function, {"sep", "maxsplit"});
    const auto parts = name == "split" ? py::split(text, a.text(0), a.integer(1, -1))
                                       : py::rsplit(text, a.text(0), a.integer(1, -1));
    return strings(parts);
  }
  if (name == "strip" || name == "lstrip" || name == "rstrip") {
    const BoundArgs a(args, function, {"chars"});
    return Value(py::strip(text, a.text(0), name != "rstrip", name != "lstrip"));
  }
  if (name == "splitlines") {
    const BoundArgs a(args, function, {});
    return strings(py::splitlines(text));
  }
  if (name == "upper" || name == "lower" || name == "title" || name == "capitalize") {
    const BoundArgs a(args, function, {});
    if (name == "upper") return Value(py::upper(text));
    if (name == "lower") return Value(py::lower(text));
    if (name == "title") return Value(py::title(text));
    return Value(py::capitalize(text));
  }
  if (name == "replace") {
    const BoundArgs a(args, function, {"old", "new", "count"});
    if (!a.has(1)) throw RenderError(function + " takes at least 2 arguments");
    const auto old = a.text(0), replacement = a.text(1);
    if (!old || !replacement) throw RenderError(function + " arguments must be str");
    return Value(py::replace(text, *old, *replacement, a.integer(2, -1)));
  }
  if (name == "find" || name == "rfind" || name == "count") {
    const BoundArgs a(args, function, {"sub"});
    const auto sub = a.text(0);
    if (!sub) throw RenderError(function + " takes one str argument");
    if (name == "find") return Value(py::find(text, *sub));
    if (name == "rfind") return Value(py::rfind(text, *sub));
    return Value(py::count(text, *sub));
  }
  // join
  const BoundArgs a(args, function, {"iterable"});
  std::string out;
  bool first = true;
  for (const Value& item : iterate(a[0])) {
    if (!item.is_string()) throw RenderError("sequence item: expected str instance, " + item.type_name() + " found");
    if (!first) out += text;
    out += item.as_string();
    first = false;
  }
  return Value(std::move(out));
}

Value call_dict_method(const DictPtr& dict, const std::string& name, const CallArgs& args) {
  const std::string function = "dict." + name + "()";
  if (name == "get") {
    const BoundArgs a(args, function, {"key", "default"});
    if (!a.has(0)) throw RenderError(function + " takes at least 1 argument");
    const Value* found = a[0].is_string() ? dict->find(a[0].as_string()) : nullptr;
    return found ? *found : (a.has(1) ? a[1] : Value(nullptr));
  }
  const BoundArgs a(args, function, {});
  std::vector<Value> items;
  for (const auto& [key, value] : dict->items) {
    if (name == "keys")
      items.emplace_back(key);
    else if (name == "values")
      items.push_back(value);
    else
      items.push_back(make_list({Value(key), value}, true));
  }
  return make_list(std::move(items));
}

Value no_attribute(const Value& object, const std::string& name) {
  return Value(Undefined{"'" + object.type_name() + " object' has no attribute '" + name + "'"});
}

}  // namespace

bool is_method_name(const std::string& name) { return str_methods().count(name) || dict_methods().count(name); }

Value get_attribute(const Value& object, const std::string& name) {
  object.require_defined();
  if (object.is_string()) {
    if (str_methods().count(name)) {
      const std::string text = object.as_string();
      return make_function("str." + name, [text, name](const CallArgs& args) { return call_str_method(text, name, args); });
    }
    if (python_str_methods().count(name)) throw RenderError("str method '" + name + "' is not supported");
    return no_attribute(object, name);
  }
  if (object.is_dict()) {
    const DictPtr& dict = object.as_dict();
    if (dict->flavor == DictObject::Flavor::dict) {
      if (dict_methods().count(name))
        return make_function("dict." + name, [dict, name](const CallArgs& args) { return call_dict_method(dict, name, args); });
      if (python_dict_methods().count(name)) throw RenderError("dict method '" + name + "' is not supported");
    }
    if (dict->flavor == DictObject::Flavor::loop && name == "cycle") throw RenderError("loop.cycle is not supported");
    const Value* found = dict->find(name);
    return found ? *found : no_attribute(object, name);
  }
  if (object.is_list() && python_list_methods().count(name))
    throw RenderError(object.type_name() + " method '" + name + "' is not supported");
  return no_attribute(object, name);
}

Value get_item(const Value& object, const Value& key) {
  object.require_defined();
  key.require_defined();
  if (object.is_mapping()) {
    if (key.is_string()) {
      const Value* found = object.as_dict()->find(key.as_string());
      if (found) return *found;
      return get_attribute(object, key.as_string());
    }
    return Value(Undefined{"'dict object' has no attribute " + key.repr()});
  }
  if (object.is_dict()) return key.is_string() ? get_attribute(object, key.as_string()) : no_attribute(object, key.repr());
  if ((object.is_list() || object.is_string()) && (key.is_int() || key.is_bool())) {
    std::int64_t i = key.is_int() ? key.as_int() : key.as_bool();
    if (object.is_list()) {
      const auto& items = object.as_list()->items;
      const auto n = static_cast<std::int64_t>(items.size());
      if (i < 0) i += n;
      if (i < 0 || i >= n) return Value(Undefined{object.type_name() + " index out of range"});
      return items[static_cast<std::size_t>(i)];
    }
    const std::u32string text = py::decode(object.as_string());
    const auto n = static_cast<std::int64_t>(text.size());
    if (i < 0) i += n;
    if (i < 0 || i >= n) return Value(Undefined{"string index out of range"});
    return Value(py::encode(text.substr(static_cast<std::size_t>(i), 1)));
  }
  if (key.is_string()) return get_attribute(object, key.as_string());
  return no_attribute(object, key.repr());
}

}  // namespace heptapod::jinja
