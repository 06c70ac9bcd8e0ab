// Atomic file writes: write a temporary file beside the target, flush it to disk, then rename it over the
// target, so a crash leaves either the old file or the new one, never a torn one.
#pragma once

#include <functional>
#include <ostream>
#include <string>

namespace heptapod {

// Calls write(stream) on a temporary file and renames it to path. Throws Error naming the path on failure
// (and removes the temporary file). A path that exists and is not a regular file (/dev/null, /dev/stdout, a
// pipe) is written directly: renaming over it would replace the device or pipe with a file.
void write_file_atomic(const std::string& path, const std::function<void(std::ostream&)>& write);

// Reads a whole file; throws Error naming the path if it cannot be read.
std::string read_file(const std::string& path);

}  // namespace heptapod
