// Python's str operations on UTF-8 text, as chat templates call them (str methods and the jinja2 filters built on
// them): indexes and lengths count code points, white space is str.isspace()'s, and case mapping refuses the
// characters whose Python mapping is not one code point to one (they would need Unicode's special casing).
// Every function takes and returns valid UTF-8.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace heptapod::jinja::py {

std::u32string decode(std::string_view text);
std::string encode(std::u32string_view text);

bool is_space(char32_t c);  // str.isspace()

// str.strip/lstrip/rstrip(chars): white space when `chars` is absent.
std::string strip(std::string_view text, const std::optional<std::string>& chars, bool left, bool right);
// str.split(sep, maxsplit) (runs of white space when `sep` is absent; maxsplit < 0: no limit) and
// str.rsplit(sep, maxsplit).
std::vector<std::string> split(std::string_view text, const std::optional<std::string>& sep, std::int64_t maxsplit);
std::vector<std::string> rsplit(std::string_view text, const std::optional<std::string>& sep,
                                std::int64_t maxsplit);
// str.splitlines() without the line ends.
std::vector<std::string> splitlines(std::string_view text);
// str.replace(old, new, count) (count < 0: all).
std::string replace(std::string_view text, std::string_view old, std::string_view replacement, std::int64_t count);
// str.find(sub) and str.rfind(sub) as code point indexes, -1 when absent; str.count(sub).
std::int64_t find(std::string_view text, std::string_view sub);
std::int64_t rfind(std::string_view text, std::string_view sub);
std::int64_t count(std::string_view text, std::string_view sub);

// str.upper(), str.lower(), str.title(), str.capitalize(); jinja2's `title` filter (words begin after
// white space, '-', '(', '{', '[' or '<').
std::string upper(std::string_view text);
std::string lower(std::string_view text);
std::string title(std::string_view text);
std::string capitalize(std::string_view text);
std::string jinja_title(std::string_view text);

// Python's repr() of a str and of a float (shortest round trip; 1.0, 1e+16, 1e-05, inf, nan).
std::string repr(std::string_view text);
std::string float_repr(double value);

// Python's slice indices for a sequence of `size` items: the indexes start, start+step, ... it selects.
// Absent bounds take Python's defaults; step 0 is an error.
std::vector<std::int64_t> slice_indices(std::int64_t size, std::optional<std::int64_t> start,
                                        std::optional<std::int64_t> stop, std::optional<std::int64_t> step);

}  // namespace heptapod::jinja::py
