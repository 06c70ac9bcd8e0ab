// jinja2's filters as chat templates use them, with jinja2 3.1's signatures and semantics; tojson is
// transformers' json.dumps version (see jinja_builtins.h, jinja_json.h).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>

#include "heptapod/data/jinja_builtins.h"
#include "heptapod/data/jinja_json.h"
#include "heptapod/data/jinja_pystring.h"

namespace heptapod::jinja {

namespace {

// jinja2's make_attrgetter: "a.b.0" looks up a, then b, then item 0.
Value attribute_path(Value value, const std::string& path) {
  for (const std::string& part : py::split(path, std::string("."), -1)) {
    const bool digits = !part.empty() && std::all_of(part.begin(), part.end(), [](char c) { return c >= '0' && c <= '9'; });
    value = get_item(value, digits ? Value(static_cast<std::int64_t>(std::stoll(part))) : Value(part));
  }
  return value;
}

// The sort / unique / min / max key: the item or its attribute, strings lower-cased unless case_sensitive.
Value key_of(const Value& item, const std::optional<std::string>& attribute, bool case_sensitive) {
  Value key = attribute ? attribute_path(item, *attribute) : item;
  if (!case_sensitive && key.is_string()) key = Value(py::lower(key.as_string()));
  return key;
}

Value filter_trim(const Value& v, const CallArgs& args) {
  const BoundArgs a(args, "trim", {"chars"});
  return Value(py::strip(v.str(), a.text(0), true, true));
}

Value filter_length(const Value& v, const CallArgs& args) {
  const BoundArgs a(args, "length", {});
  return Value(length(v));
}

Value filter_default(const Value& v, const CallArgs& args) {
  const BoundArgs a(args, "default", {"default_value", "boolean"});
  if (v.is_undefined() || (a.boolean(1, false) && !v.truthy())) return a.has(0) ? a[0] : Value("");
  return v;
}

Value filter_tojson(const Value& v, const CallArgs& args) {
  const BoundArgs a(args, "tojson", {"ensure_ascii", "indent", "separators", "sort_keys"});
  JsonOptions options;
  options.ensure_ascii = a.boolean(0, false);
  if (a.has(1) && !a[1].is_none()) {
    if (a[1].is_string())
      options.indent = a[1].as_string();
    else
      options.indent = std::string(static_cast<std::size_t>(std::max<std::int64_t>(0, a.integer(1, 0))), ' ');
  }
  if (a.has(2) && !a[2].is_none()) {
    const std::vector<Value> parts = a[2].is_list() ? a[2].as_list()->items : std::vector<Value>();
    if (parts.size() != 2 || !parts[0].is_string() || !parts[1].is_string())
      throw RenderError("tojson: separators must be a pair of strings");
    options.item_separator = parts[0].as_string();
    options.key_separator = parts[1].as_string();
  }
  options.sort_keys = a.boolean(3, false);
  return Value(to_json(v, options));
}

Value text_filter(const Value& v, const CallArgs& args, const char* name, std::string (*f)(std::string_view)) {
  const BoundArgs a(args, name, {});
  return Value(f(v.str()));
}
Value filter_lower(const Value& v, const CallArgs& args) { return text_filter(v, args, "lower", py::lower); }
Value filter_upper(const Value& v, const CallArgs& args) { return text_filter(v, args, "upper", py::upper); }
Value filter_capitalize(const Value& v, const CallArgs& args) {
  return text_filter(v, args, "capitalize", py::capitalize);
}
Value filter_title(const Value& v, const CallArgs& args) { return text_filter(v, args, "title", py::jinja_title); }

Value filter_string(const Value& v, const CallArgs& args) {
  const BoundArgs a(args, "string", {});
  return Value(v.str());
}

Value filter_safe(const Value& v, const CallArgs& args) {
  const BoundArgs a(args, "safe", {});
  return Value(v.str());
}

Value filter_join(const Value& v, const CallArgs& args) {
  const BoundArgs a(args, "join", {"d", "attribute"});
  const std::string separator = a.text(0).value_or("");
  std::string out;
  bool first = true;
  for (const Value& item : iterate(v)) {
    if (!first) out += separator;
    out += (a.text(1) ? attribute_path(item, *a.text(1)) : item).str();
    first = false;
  }
  return Value(std::move(out));
}

Value filter_first(const Value& v, const CallArgs& args) {
  const BoundArgs a(args, "first", {});
  const std::vector<Value> items = iterate(v);
  return items.empty() ? Value(Undefined{"No first item, sequence was empty."}) : items.front();
}

Value filter_last(const Value& v, const CallArgs& args) {
  const BoundArgs a(args, "last", {});
  const std::vector<Value> items = iterate(v);
  return items.empty() ? Value(Undefined{"No last item, sequence was empty."}) : items.back();
}

Value filter_list(const Value& v, const CallArgs& args) {
  const BoundArgs a(args, "list", {});
  return make_list(iterate(v));
}

Value filter_items(const Value& v, const CallArgs& args) {
  const BoundArgs a(args, "items", {});
  if (v.is_undefined()) return make_list({});
  if (!v.is_mapping()) throw RenderError("Can only get item pairs from a mapping.");
  std::vector<Value> pairs;
  for (const auto& [key, value] : v.as_dict()->items) pairs.push_back(make_list({Value(key), value}, true));
  return make_list(std::move(pairs));
}

// Python's float(x) for the float and int filters; nullopt when it fails.
std::optional<double> python_float(const Value& v) {
  if (v.is_number()) return v.number();
  if (!v.is_string()) return std::nullopt;
  std::string text = py::strip(v.as_string(), std::nullopt, true, true);
  text.erase(std::remove(text.begin(), text.end(), '_'), text.end());
  if (text.empty() || text.find_first_of("xXpP") != std::string::npos) return std::nullopt;  // no hex floats
  char* end = nullptr;
  const double d = std::strtod(text.c_str(), &end);
  if (end != text.c_str() + text.size()) return std::nullopt;
  return d;
}

Value filter_int(const Value& v, const CallArgs& args) {
  const BoundArgs a(args, "int", {"default", "base"});
  if (a.has(1) && a.integer(1, 10) != 10) throw RenderError("int: bases other than 10 are not supported");
  if (v.is_int()) return v;
  if (v.is_bool()) return Value(static_cast<std::int64_t>(v.as_bool()));
  if (v.is_string()) {  // int("42"), int(" 4_2 ")
    std::string text = py::strip(v.as_string(), std::nullopt, true, true);
    const bool sign = !text.empty() && (text[0] == '+' || text[0] == '-');
    const std::string digits = text.substr(sign ? 1 : 0);
    bool valid = !digits.empty() && digits.front() != '_' && digits.back() != '_' &&
                 digits.find("__") == std::string::npos &&
                 std::all_of(digits.begin(), digits.end(), [](char c) { return (c >= '0' && c <= '9') || c == '_'; });
    if (valid) {
      text.erase(std::remove(text.begin(), text.end(), '_'), text.end());
      errno = 0;
      const long long n = std::strtoll(text.c_str(), nullptr, 10);
      if (errno == ERANGE) throw RenderError("int: " + text + " does not fit in 64 bits");
      return Value(static_cast<std::int64_t>(n));
    }
  }
  const auto d = python_float(v);  // jinja2 then tries int(float(value)): "42.23"|int is 42
  if (d && std::isfinite(*d)) {
    if (std::fabs(*d) >= 9.2e18) throw RenderError("int: the value does not fit in 64 bits");
    return Value(static_cast<std::int64_t>(std::trunc(*d)));
  }
  return a.has(0) ? a[0] : Value(0);
}

Value filter_float(const Value& v, const CallArgs& args) {
  const BoundArgs a(args, "float", {"default"});
  const auto d = python_float(v);
  if (d) return Value(*d);
  return a.has(0) ? a[0] : Value(0.0);
}

Value filter_abs(const Value& v, const CallArgs& args) {
  const BoundArgs a(args, "abs", {});
  v.require_defined();
  if (v.is_float()) return Value(std::fabs(v.as_float()));
  if (v.is_int() || v.is_bool()) {
    const std::int64_t n = v.is_int() ? v.as_int() : v.as_bool();
    if (n == INT64_MIN) throw RenderError("abs: the value does not fit in 64 bits");
    return Value(n < 0 ? -n : n);
  }
  throw RenderError("bad operand type for abs(): '" + v.type_name() + "'");
}

Value filter_round(const Value& v, const CallArgs& args) {
  const BoundArgs a(args, "round", {"precision", "method"});
  const std::int64_t precision = a.integer(0, 0);
  const std::string method = a.text(1).value_or("common");
  v.require_defined();
  if (!v.is_number()) throw RenderError("round: '" + v.type_name() + "' is not a number");
  if (precision < 0 || precision > 300) throw RenderError("round: precision must be 0 .. 300");
  if (method == "common") {
    if (!v.is_float()) return v.is_bool() ? Value(static_cast<std::int64_t>(v.as_bool())) : v;  // round(int, n) is int
    // Python rounds the exact binary value half to even at `precision` decimals, as printf does.
    char buffer[512];
    std::snprintf(buffer, sizeof buffer, "%.*f", static_cast<int>(precision), v.as_float());
    return Value(std::strtod(buffer, nullptr));
  }
  if (method != "ceil" && method != "floor") throw RenderError("round: method must be common, ceil or floor");
  const double scale = std::pow(10.0, static_cast<double>(precision));
  const double x = v.number() * scale;
  return Value((method == "ceil" ? std::ceil(x) : std::floor(x)) / scale);
}

Value filter_replace(const Value& v, const CallArgs& args) {
  const BoundArgs a(args, "replace", {"old", "new", "count"});
  if (!a.has(1)) throw RenderError("replace takes at least 2 arguments");
  const std::int64_t count = a.has(2) && !a[2].is_none() ? a.integer(2, -1) : -1;
  return Value(py::replace(v.str(), a[0].str(), a[1].str(), count));
}

Value filter_reverse(const Value& v, const CallArgs& args) {
  const BoundArgs a(args, "reverse", {});
  if (v.is_string()) {
    std::u32string text = py::decode(v.as_string());
    std::reverse(text.begin(), text.end());
    return Value(py::encode(text));
  }
  std::vector<Value> items = iterate(v);
  std::reverse(items.begin(), items.end());
  return make_list(std::move(items));
}

Value filter_sort(const Value& v, const CallArgs& args) {
  const BoundArgs a(args, "sort", {"reverse", "case_sensitive", "attribute"});
  const bool reverse = a.boolean(0, false), case_sensitive = a.boolean(1, false);
  std::vector<std::pair<Value, Value>> keyed;
  for (const Value& item : iterate(v)) keyed.emplace_back(key_of(item, a.text(2), case_sensitive), item);
  // Python's sort is stable in both directions (reverse=True keeps equal items in their order).
  std::stable_sort(keyed.begin(), keyed.end(), [reverse](const auto& x, const auto& y) {
    return reverse ? less(y.first, x.first) : less(x.first, y.first);
  });
  std::vector<Value> items;
  for (auto& [key, item] : keyed) items.push_back(std::move(item));
  return make_list(std::move(items));
}

Value filter_unique(const Value& v, const CallArgs& args) {
  const BoundArgs a(args, "unique", {"case_sensitive", "attribute"});
  std::vector<Value> seen, items;
  for (const Value& item : iterate(v)) {
    const Value key = key_of(item, a.text(1), a.boolean(0, false));
    if (std::none_of(seen.begin(), seen.end(), [&](const Value& s) { return equal(s, key); })) {
      seen.push_back(key);
      items.push_back(item);
    }
  }
  return make_list(std::move(items));
}

Value extreme(const Value& v, const CallArgs& args, const char* name, bool largest) {
  const BoundArgs a(args, name, {"case_sensitive", "attribute"});
  const std::vector<Value> items = iterate(v);
  if (items.empty()) return Value(Undefined{"No aggregated item, sequence was empty."});
  std::size_t best = 0;
  Value best_key = key_of(items[0], a.text(1), a.boolean(0, false));
  for (std::size_t i = 1; i < items.size(); ++i) {
    const Value key = key_of(items[i], a.text(1), a.boolean(0, false));
    if (largest ? less(best_key, key) : less(key, best_key)) {
      best = i;
      best_key = key;
    }
  }
  return items[best];
}
Value filter_min(const Value& v, const CallArgs& args) { return extreme(v, args, "min", false); }
Value filter_max(const Value& v, const CallArgs& args) { return extreme(v, args, "max", true); }

Value filter_sum(const Value& v, const CallArgs& args) {
  const BoundArgs a(args, "sum", {"attribute", "start"});
  Value total = a.has(1) ? a[1] : Value(0);
  for (const Value& item : iterate(v)) total = binary_operation("+", total, a.text(0) ? attribute_path(item, *a.text(0)) : item);
  return total;
}

Value filter_map(const Value& v, const CallArgs& args) {
  std::vector<Value> out;
  const auto attribute = std::find_if(args.keyword.begin(), args.keyword.end(), [](const auto& k) { return k.first == "attribute"; });
  if (attribute != args.keyword.end()) {  // map(attribute='x', default=...)
    const BoundArgs a(args, "map", {"attribute", "default"});
    if (!a[0].is_string()) throw RenderError("map: attribute must be a string");
    for (const Value& item : iterate(v)) {
      Value mapped = attribute_path(item, a[0].as_string());
      if (mapped.is_undefined() && a.has(1)) mapped = a[1];
      out.push_back(std::move(mapped));
    }
    return make_list(std::move(out));
  }
  if (args.positional.empty() || !args.positional[0].is_string())
    throw RenderError("map: expected a filter name or attribute=...");
  const std::string name = args.positional[0].as_string();
  const FilterFunction filter = find_filter(name);
  if (!filter) throw RenderError("filter '" + name + "' is not supported");
  CallArgs rest{std::vector<Value>(args.positional.begin() + 1, args.positional.end()), args.keyword};
  for (const Value& item : iterate(v)) out.push_back(filter(item, rest));
  return make_list(std::move(out));
}

// select / reject / selectattr / rejectattr: keep the items whose (attribute's) test result is `keep`.
Value select_items(const Value& v, const CallArgs& args, bool by_attribute, bool keep, const char* name) {
  if (!args.keyword.empty()) throw RenderError(std::string(name) + " takes no keyword arguments");
  std::size_t next = 0;
  std::string attribute;
  if (by_attribute) {
    if (args.positional.empty() || !args.positional[0].is_string())
      throw RenderError(std::string(name) + ": expected an attribute name");
    attribute = args.positional[next++].as_string();
  }
  std::string test;
  if (next < args.positional.size()) {
    if (!args.positional[next].is_string()) throw RenderError(std::string(name) + ": expected a test name");
    test = args.positional[next++].as_string();
    if (!find_test(test)) throw RenderError("test '" + test + "' is not supported");
  }
  const CallArgs test_args{std::vector<Value>(args.positional.begin() + static_cast<std::ptrdiff_t>(next), args.positional.end()), {}};
  std::vector<Value> out;
  for (const Value& item : iterate(v)) {
    const Value subject = by_attribute ? attribute_path(item, attribute) : item;
    const bool passed = test.empty() ? subject.truthy() : apply_test(test, subject, test_args);
    if (passed == keep) out.push_back(item);
  }
  return make_list(std::move(out));
}
Value filter_select(const Value& v, const CallArgs& args) { return select_items(v, args, false, true, "select"); }
Value filter_reject(const Value& v, const CallArgs& args) { return select_items(v, args, false, false, "reject"); }
Value filter_selectattr(const Value& v, const CallArgs& args) {
  return select_items(v, args, true, true, "selectattr");
}
Value filter_rejectattr(const Value& v, const CallArgs& args) {
  return select_items(v, args, true, false, "rejectattr");
}

// jinja2 3.1's do_indent: every line but the first (and blank ones unless `blank`) gets the indent.
Value filter_indent(const Value& v, const CallArgs& args) {
  const BoundArgs a(args, "indent", {"width", "first", "blank"});
  const std::string indent =
      a.has(0) && a[0].is_string() ? a[0].as_string() : std::string(static_cast<std::size_t>(std::max<std::int64_t>(0, a.integer(0, 4))), ' ');
  const std::vector<std::string> lines = py::splitlines(v.str() + "\n");
  std::string out;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (i > 0) out += "\n";
    if (i > 0 && (a.boolean(2, false) || !lines[i].empty())) out += indent;
    out += lines[i];
  }
  if (a.boolean(1, false)) out = indent + out;
  return Value(std::move(out));
}

const std::map<std::string, FilterFunction>& filters() {
  static const std::map<std::string, FilterFunction> table = {
      {"abs", filter_abs},           {"capitalize", filter_capitalize}, {"count", filter_length},
      {"d", filter_default},         {"default", filter_default},       {"first", filter_first},
      {"float", filter_float},       {"indent", filter_indent},         {"int", filter_int},
      {"items", filter_items},       {"join", filter_join},             {"last", filter_last},
      {"length", filter_length},     {"list", filter_list},             {"lower", filter_lower},
      {"map", filter_map},           {"max", filter_max},               {"min", filter_min},
      {"reject", filter_reject},     {"rejectattr", filter_rejectattr}, {"replace", filter_replace},
      {"reverse", filter_reverse},   {"round", filter_round},           {"safe", filter_safe},
      {"select", filter_select},     {"selectattr", filter_selectattr}, {"sort", filter_sort},
      {"string", filter_string},     {"sum", filter_sum},               {"title", filter_title},
      {"tojson", filter_tojson},     {"trim", filter_trim},             {"unique", filter_unique},
      {"upper", filter_upper},
  };
  return table;
}

}  // namespace

FilterFunction find_filter(const std::string& name) {
  const auto it = filters().find(name);
  return it == filters().end() ? nullptr : it->second;
}

}  // namespace heptapod::jinja
