// Line input and output for the text-processing subcommands: read from a file or stdin (whole, or window by
// window) without losing the file over one bad line, write to stdout or atomically to a file.
#pragma once

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <functional>
#include <fstream>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "heptapod/core/error.h"
#include "heptapod/core/progress.h"
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
      require(!std::filesystem::is_directory(path), path + ": is a directory, not an input file");
      file_.open(path, std::ios::binary);
      require(static_cast<bool>(file_), "cannot open " + path + ": " + std::strerror(errno));
      in_ = &file_;
    }
  }
  // The next (at most) `window` lines; false once the input is done.
  bool next(std::size_t window, std::vector<std::string>& lines) {
    LenientLines in = read_lines_lenient(*in_, window);
    require(!in_->bad(), name_ + ": read error after " + std::to_string(read_ + in.lines.size()) + " lines");
    for (std::size_t line : in.invalid_lines)
      std::fprintf(stderr, "warning: %s:%zu: invalid UTF-8; the line is treated as empty\n", name_.c_str(), read_ + line);
    read_ += in.lines.size();
    for (const std::string& line : in.lines) bytes_ += line.size() + 1;
    lines = std::move(in.lines);
    return !lines.empty();
  }
  std::size_t lines_read() const { return read_; }  // before this window's: lines_read() - lines.size()
  std::uint64_t bytes_read() const { return bytes_; }  // about: as if every line ended in "\n"

 private:
  std::string name_;
  std::ifstream file_;
  std::istream* in_;
  std::size_t read_ = 0;
  std::uint64_t bytes_ = 0;
};

// The live line of a long translate or score run on a terminal: lines done, lines/s, and the ETA when the
// input is a file (its size known). Nothing at all when stderr is not a terminal, when the results go to the
// same terminal (they would break the line), nor in the first second.
class LineProgress {
 public:
  LineProgress(const std::string& input_path, const std::string& output_path) {
    const bool to_stdout = output_path.empty() || output_path == "-";
    if (!::isatty(::fileno(stderr)) || (to_stdout && ::isatty(::fileno(stdout)))) return;
    std::error_code error;
    const bool file = !input_path.empty() && input_path != "-" && std::filesystem::is_regular_file(input_path, error);
    const auto size = file ? std::filesystem::file_size(input_path, error) : 0;
    by_bytes_ = file && !error && size > 0;
    progress_.emplace(by_bytes_ ? static_cast<long>(size >> 10) : 0);
    progress_->counting(by_bytes_ ? "KB" : "lines");
  }
  void update(std::size_t lines, std::uint64_t bytes) {
    if (!progress_ || progress_->elapsed_seconds() < 1) return;
    progress_->update(step(lines, bytes), detail(lines));
    shown_ = true;
  }
  void finish(std::size_t lines, std::uint64_t bytes) {
    if (shown_) progress_->finish(step(lines, bytes), detail(lines));
  }

 private:
  long step(std::size_t lines, std::uint64_t bytes) const {
    return by_bytes_ ? static_cast<long>(bytes >> 10) : static_cast<long>(lines);
  }
  std::string detail(std::size_t lines) const {
    const double rate = static_cast<double>(lines) / std::max(progress_->elapsed_seconds(), 1e-3);
    return std::to_string(lines) + " lines, " + std::to_string(static_cast<long long>(rate)) + " lines/s";
  }
  std::optional<Progress> progress_;
  bool by_bytes_ = false, shown_ = false;
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
