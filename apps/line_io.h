// Line input and output for the text-processing subcommands: read from a file or stdin (whole, or window by
// window) without losing the file over one bad line, write to stdout or atomically to a file.
#pragma once

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <functional>
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

// An input read window by window (`heptapod translate` streams: memory bounded by the window, not the
// input). Invalid UTF-8 lines become empty, each reported on stderr with its line number in the input.
class LineWindows {
 public:
  explicit LineWindows(const std::string& path)
      : name_(path.empty() || path == "-" ? "stdin" : path), in_(&std::cin) {
    if (name_ != "stdin") {
      file_.open(path, std::ios::binary);
      require(static_cast<bool>(file_), "cannot open " + path);
      in_ = &file_;
    }
  }
  // The next (at most) `window` lines; false once the input is done.
  bool next(std::size_t window, std::vector<std::string>& lines) {
    LenientLines in = read_lines_lenient(*in_, window);
    for (std::size_t line : in.invalid_lines)
      std::fprintf(stderr, "warning: %s:%zu: invalid UTF-8; the line is treated as empty\n", name_.c_str(), read_ + line);
    read_ += in.lines.size();
    lines = std::move(in.lines);
    return !lines.empty();
  }
  std::size_t lines_read() const { return read_; }  // before this window's: lines_read() - lines.size()

 private:
  std::string name_;
  std::ifstream file_;
  std::istream* in_;
  std::size_t read_ = 0;
};

// Runs produce(emit), where emit(text) appends to the output: stdout, flushed at each call (a reader that
// closed the pipe is an Error, not a crash), or `path`, written atomically once produce returns.
inline void stream_output(const std::string& path,
                          const std::function<void(const std::function<void(const std::string&)>&)>& produce) {
  if (path.empty() || path == "-") {
    std::signal(SIGPIPE, SIG_IGN);  // a closed pipe fails the write below instead of killing the process
    produce([](const std::string& text) {
      if (std::fwrite(text.data(), 1, text.size(), stdout) != text.size() || std::fflush(stdout) != 0)
        throw Error(std::string("cannot write to stdout: ") + std::strerror(errno) +
                    (errno == EPIPE ? " (its reader has closed it)" : ""));
    });
    return;
  }
  write_file_atomic(path, [&](std::ostream& out) { produce([&](const std::string& text) { out << text; }); });
}

}  // namespace heptapod::app
