// Python's json.dumps for template values (see jinja_json.h).
#include "heptapod/data/jinja_json.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "heptapod/data/jinja_pystring.h"

namespace heptapod::jinja {

namespace {

void append_escaped(const std::string& text, bool ensure_ascii, std::string& out) {
  out += '"';
  auto hex = [&](unsigned unit) {
    char buffer[16];
    std::snprintf(buffer, sizeof buffer, "\\u%04x", unit);
    out += buffer;
  };
  for (char32_t c : py::decode(text)) {
    switch (c) {
      case U'"': out += "\\\""; break;
      case U'\\': out += "\\\\"; break;
      case U'\n': out += "\\n"; break;
      case U'\r': out += "\\r"; break;
      case U'\t': out += "\\t"; break;
      case U'\b': out += "\\b"; break;
      case U'\f': out += "\\f"; break;
      default:
        if (c < 0x20) {
          hex(static_cast<unsigned>(c));
        } else if (ensure_ascii && c > 0x7F) {
          if (c >= 0x10000) {  // a surrogate pair
            const char32_t v = c - 0x10000;
            hex(0xD800 + static_cast<unsigned>(v >> 10));
            hex(0xDC00 + static_cast<unsigned>(v & 0x3FF));
          } else {
            hex(static_cast<unsigned>(c));
          }
        } else {
          std::u32string one(1, c);
          out += py::encode(one);
        }
    }
  }
  out += '"';
}

class Writer {
 public:
  explicit Writer(const JsonOptions& options)
      : options_(options),
        item_separator_(options.item_separator.value_or(options.indent ? "," : ", ")),
        key_separator_(options.key_separator.value_or(": ")) {}

  void write(const Value& value, int depth, std::string& out) const {
    if (value.is_none()) {
      out += "null";
    } else if (value.is_bool()) {
      out += value.as_bool() ? "true" : "false";
    } else if (value.is_int()) {
      out += std::to_string(value.as_int());
    } else if (value.is_float()) {
      const double d = value.as_float();
      if (std::isnan(d))
        out += "NaN";
      else if (std::isinf(d))
        out += d < 0 ? "-Infinity" : "Infinity";
      else
        out += py::float_repr(d);
    } else if (value.is_string()) {
      append_escaped(value.as_string(), options_.ensure_ascii, out);
    } else if (value.is_list()) {
      const auto& items = value.as_list()->items;
      if (items.empty()) {
        out += "[]";
        return;
      }
      out += '[';
      for (std::size_t i = 0; i < items.size(); ++i) {
        if (i > 0) out += item_separator_;
        newline(depth + 1, out);
        write(items[i], depth + 1, out);
      }
      newline(depth, out);
      out += ']';
    } else if (value.is_mapping()) {
      std::vector<const std::pair<std::string, Value>*> items;
      for (const auto& item : value.as_dict()->items) items.push_back(&item);
      if (items.empty()) {
        out += "{}";
        return;
      }
      if (options_.sort_keys) {
        // Python compares str keys by code point, which is UTF-8's byte order.
        std::stable_sort(items.begin(), items.end(), [](auto* a, auto* b) { return a->first < b->first; });
      }
      out += '{';
      for (std::size_t i = 0; i < items.size(); ++i) {
        if (i > 0) out += item_separator_;
        newline(depth + 1, out);
        append_escaped(items[i]->first, options_.ensure_ascii, out);
        out += key_separator_;
        write(items[i]->second, depth + 1, out);
      }
      newline(depth, out);
      out += '}';
    } else {
      throw RenderError("Object of type " + value.type_name() + " is not JSON serializable");
    }
  }

 private:
  void newline(int depth, std::string& out) const {
    if (!options_.indent) return;
    out += '\n';
    for (int i = 0; i < depth; ++i) out += *options_.indent;
  }

  const JsonOptions& options_;
  std::string item_separator_, key_separator_;
};

}  // namespace

std::string to_json(const Value& value, const JsonOptions& options) {
  std::string out;
  Writer(options).write(value, 0, out);
  return out;
}

}  // namespace heptapod::jinja
