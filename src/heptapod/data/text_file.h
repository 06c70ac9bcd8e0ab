// Reading user text files line by line with validation: every line must be UTF-8; errors name the file and
// the line. Parallel corpora must have the same number of lines on both sides.
#pragma once

#include <istream>
#include <string>
#include <vector>

namespace heptapod {

// All lines of a UTF-8 text file, without line terminators ("\n" or "\r\n"). Throws Error naming the file
// (and line, for invalid UTF-8).
std::vector<std::string> read_lines(const std::string& path);

// Lines of a stream for tools that must not lose a file over one bad line: a line with invalid UTF-8 is
// replaced by an empty line and its 1-based number recorded in `invalid_lines`.
struct LenientLines {
  std::vector<std::string> lines;
  std::vector<std::size_t> invalid_lines;
};
LenientLines read_lines_lenient(std::istream& in);
// At most max_lines lines from where `in` stands (invalid_lines numbered from 1 within them); fewer at the
// end of the stream. A last line without a newline is a line.
LenientLines read_lines_lenient(std::istream& in, std::size_t max_lines);

struct ParallelText {
  std::vector<std::string> source, target;
};

// Both sides of a line-aligned corpus; a line-count mismatch is an Error naming both files and both counts.
ParallelText read_parallel_text(const std::string& source_path, const std::string& target_path);

}  // namespace heptapod
