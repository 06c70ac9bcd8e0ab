// Validated line reading.
#include "heptapod/data/text_file.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <limits>

#include "heptapod/core/error.h"
#include "heptapod/data/utf8.h"

namespace heptapod {

std::vector<std::string> read_lines(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error("cannot open " + path + ": " + std::strerror(errno));
  std::vector<std::string> lines;
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    const std::size_t bad = find_invalid_utf8(line);
    if (bad != std::string::npos)
      throw Error(path + ":" + std::to_string(lines.size() + 1) + ": invalid UTF-8 at byte " + std::to_string(bad + 1) +
                  " of the line");
    lines.push_back(std::move(line));
  }
  if (in.bad()) throw Error("cannot read " + path + ": " + std::strerror(errno));
  return lines;
}

LenientLines read_lines_lenient(std::istream& in) {
  return read_lines_lenient(in, std::numeric_limits<std::size_t>::max());
}

LenientLines read_lines_lenient(std::istream& in, std::size_t max_lines) {
  LenientLines out;
  std::string line;
  while (out.lines.size() < max_lines && std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (find_invalid_utf8(line) != std::string::npos) {
      out.invalid_lines.push_back(out.lines.size() + 1);
      line.clear();
    }
    out.lines.push_back(std::move(line));
  }
  return out;
}

ParallelText read_parallel_text(const std::string& source_path, const std::string& target_path) {
  ParallelText t;
  t.source = read_lines(source_path);
  t.target = read_lines(target_path);
  require(t.source.size() == t.target.size(),
          "line counts differ: " + source_path + " has " + std::to_string(t.source.size()) + " lines, " + target_path +
              " has " + std::to_string(t.target.size()));
  return t;
}

}  // namespace heptapod
