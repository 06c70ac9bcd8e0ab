// Line input and output for the text-processing subcommands: read from a file or stdin without losing the
// file over one bad line, write to stdout or atomically to a file.
#pragma once

#include <cstdio>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "heptapod/core/error.h"
#include "heptapod/data/text_file.h"
#include "heptapod/io/atomic_file.h"

namespace heptapod::app {

// Lines of `path` ("" or "-" for stdin); invalid UTF-8 lines become empty, each reported on stderr.
inline std::vector<std::string> read_input_lines(const std::string& path) {
  LenientLines in;
  const std::string name = path.empty() || path == "-" ? "stdin" : path;
  if (name == "stdin") {
    in = read_lines_lenient(std::cin);
  } else {
    std::ifstream file(path, std::ios::binary);
    require(static_cast<bool>(file), "cannot open " + path);
    in = read_lines_lenient(file);
  }
  for (std::size_t line : in.invalid_lines)
    std::fprintf(stderr, "warning: %s:%zu: invalid UTF-8; the line is treated as empty\n", name.c_str(), line);
  return std::move(in.lines);
}

// Writes text to `path` atomically, or to stdout when path is "" or "-".
inline void write_output(const std::string& path, const std::string& text) {
  if (path.empty() || path == "-") {
    std::fwrite(text.data(), 1, text.size(), stdout);
    std::fflush(stdout);
    return;
  }
  write_file_atomic(path, [&](std::ostream& out) { out << text; });
}

}  // namespace heptapod::app
