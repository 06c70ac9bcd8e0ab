// Error reporting: one exception type for every user-facing problem (bad file, bad config, bad flag).
// Messages name the file, line or field at fault; callers catch at the command boundary.
#pragma once

#include <stdexcept>
#include <string>

namespace heptapod {

class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& message) : std::runtime_error(message) {}
};

// Throws Error(message) when `condition` is false. For checks on user input, not for programmer bugs.
inline void require(bool condition, const std::string& message) {
  if (!condition) throw Error(message);
}

}  // namespace heptapod
