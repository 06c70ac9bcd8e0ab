// What the tests on real tokenizers (tests/tokenizers/run.sh, run_hf.sh) share: the environment those scripts
// set, and a text's lines as both the C++ and the reference side cut them.
#pragma once

#include <cstdlib>
#include <string>
#include <vector>

namespace heptapod::test {

// The environment variable's value, "" when unset.
inline std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

// The text between newlines; a last line without one counts, an empty end does not.
inline std::vector<std::string> text_lines(const std::string& text) {
  std::vector<std::string> out;
  std::size_t at = 0;
  for (std::size_t eol; (eol = text.find('\n', at)) != std::string::npos; at = eol + 1) out.push_back(text.substr(at, eol - at));
  if (at < text.size()) out.push_back(text.substr(at));
  return out;
}

}  // namespace heptapod::test
