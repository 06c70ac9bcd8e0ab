// The `tojson` filter as transformers defines it for chat templates: Python's
// json.dumps(x, ensure_ascii=False, indent=indent, separators=separators, sort_keys=sort_keys), byte for byte
// (", " and ": " between items without an indent, "," and ": " with one; floats as Python's repr; keys sorted by
// code point).
#pragma once

#include <optional>
#include <string>

#include "heptapod/data/jinja_value.h"

namespace heptapod::jinja {

struct JsonOptions {
  bool ensure_ascii = false;
  std::optional<std::string> indent;  // the text of one level (an int n gives n spaces)
  std::optional<std::string> item_separator, key_separator;
  bool sort_keys = false;
};

// Undefined values, functions, namespaces and loop objects are not serializable (a RenderError, as in Python).
std::string to_json(const Value& value, const JsonOptions& options);

}  // namespace heptapod::jinja
