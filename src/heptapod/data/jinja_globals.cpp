// Argument binding and the global functions of chat templates: raise_exception and strftime_now (as transformers
// defines them), namespace, range and dict (see jinja_builtins.h).
#include <algorithm>

#include "heptapod/data/jinja_builtins.h"

namespace heptapod::jinja {

BoundArgs::BoundArgs(const CallArgs& args, const std::string& function, const std::vector<std::string>& parameters)
    : function_(function), parameters_(parameters), values_(parameters.size()), given_(parameters.size(), false) {
  if (args.positional.size() > parameters.size()) {
    throw RenderError(function + " takes at most " + std::to_string(parameters.size()) + " argument(s) (" +
                      std::to_string(args.positional.size()) + " given)");
  }
  for (std::size_t i = 0; i < args.positional.size(); ++i) {
    values_[i] = args.positional[i];
    given_[i] = true;
  }
  for (const auto& [name, value] : args.keyword) {
    const auto it = std::find(parameters.begin(), parameters.end(), name);
    if (it == parameters.end()) throw RenderError(function + " got an unexpected keyword argument '" + name + "'");
    const auto i = static_cast<std::size_t>(it - parameters.begin());
    if (given_[i]) throw RenderError(function + " got multiple values for argument '" + name + "'");
    values_[i] = value;
    given_[i] = true;
  }
}

std::int64_t BoundArgs::integer(std::size_t i, std::int64_t fallback) const {
  if (!given_[i]) return fallback;
  if (values_[i].is_int()) return values_[i].as_int();
  if (values_[i].is_bool()) return values_[i].as_bool();
  throw RenderError(function_ + ": '" + parameters_[i] + "' must be an integer, not " + values_[i].type_name());
}

bool BoundArgs::boolean(std::size_t i, bool fallback) const { return given_[i] ? values_[i].truthy() : fallback; }

std::optional<std::string> BoundArgs::text(std::size_t i) const {
  if (!given_[i] || values_[i].is_none()) return std::nullopt;
  if (!values_[i].is_string())
    throw RenderError(function_ + ": '" + parameters_[i] + "' must be a string, not " + values_[i].type_name());
  return values_[i].as_string();
}

namespace {

// dict(mapping?, **kwargs) and namespace(mapping?, **kwargs).
Value dict_from(const CallArgs& args, DictObject::Flavor flavor, const char* function) {
  Value out = make_dict(flavor);
  if (args.positional.size() > 1) throw RenderError(std::string(function) + " takes at most 1 positional argument");
  if (!args.positional.empty()) {
    const Value& source = args.positional[0];
    if (!source.is_dict()) throw RenderError(std::string(function) + "'s positional argument must be a mapping");
    for (const auto& [key, value] : source.as_dict()->items) out.as_dict()->set(key, value);
  }
  for (const auto& [key, value] : args.keyword) out.as_dict()->set(key, value);
  return out;
}

Value range(const CallArgs& args) {
  if (!args.keyword.empty() || args.positional.empty() || args.positional.size() > 3)
    throw RenderError("range expects 1 to 3 integer arguments");
  std::vector<std::int64_t> n;
  for (const Value& v : args.positional) {
    if (!v.is_int() && !v.is_bool()) throw RenderError("range: '" + v.type_name() + "' object cannot be interpreted as an integer");
    n.push_back(v.is_int() ? v.as_int() : v.as_bool());
  }
  const std::int64_t start = n.size() > 1 ? n[0] : 0, stop = n.size() > 1 ? n[1] : n[0], step = n.size() > 2 ? n[2] : 1;
  if (step == 0) throw RenderError("range() arg 3 must not be zero");
  std::vector<Value> items;
  for (std::int64_t i = start; step > 0 ? i < stop : i > stop; i += step) {
    if (items.size() >= 100000) throw RenderError("range too big, maximum size for range is 100000");  // jinja2's sandbox
    items.emplace_back(i);
  }
  return make_list(std::move(items));
}

}  // namespace

bool is_global_function(const std::string& name) {
  return name == "raise_exception" || name == "strftime_now" || name == "namespace" || name == "range" ||
         name == "dict";
}

Value global_function(const std::string& name, std::time_t now) {
  if (name == "raise_exception") {
    return make_function(name, [](const CallArgs& args) -> Value {
      const BoundArgs bound(args, "raise_exception", {"message"});
      throw RenderError(bound[0].str());
    });
  }
  if (name == "strftime_now") {
    return make_function(name, [now](const CallArgs& args) {
      const BoundArgs bound(args, "strftime_now", {"format"});
      const std::string format = bound.text(0).value_or("");
      std::tm local{};
      localtime_r(&now, &local);
      std::string out(256 + format.size() * 8, '\0');
      const std::size_t n = format.empty() ? 0 : std::strftime(out.data(), out.size(), format.c_str(), &local);
      if (n == 0 && !format.empty()) throw RenderError("strftime_now: the format gives no text or too much");
      out.resize(n);
      return Value(std::move(out));
    });
  }
  if (name == "namespace")
    return make_function(name, [](const CallArgs& args) {
      return dict_from(args, DictObject::Flavor::namespace_object, "namespace");
    });
  if (name == "dict")
    return make_function(name, [](const CallArgs& args) { return dict_from(args, DictObject::Flavor::dict, "dict"); });
  return make_function(name, range);
}

}  // namespace heptapod::jinja
