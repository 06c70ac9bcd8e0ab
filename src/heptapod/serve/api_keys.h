// API keys for `heptapod serve --api-keys FILE`: one key per line; blank lines and lines starting with '#'
// are skipped. A key is 8-256 printable ASCII characters without spaces.
#pragma once

#include <set>
#include <string>

namespace heptapod {

// Throws Error naming the file (and line) when it cannot be read, is a directory, holds a malformed key, or
// holds no key at all.
std::set<std::string> load_api_keys(const std::string& path);

}  // namespace heptapod
