// Reading user text files line by line with validation: every line must be UTF-8; errors name the file and
// the line. Parallel corpora must have the same number of lines on both sides.
#pragma once

#include <cstdint>
#include <fstream>
#include <istream>
#include <string>
#include <vector>

namespace heptapod {

// A UTF-8 text file read one line at a time (memory bounded by the longest line), without line terminators
// ("\n" or "\r\n"; a last line without one is a line). Errors name the file, and the line for invalid UTF-8.
class LineReader {
 public:
  explicit LineReader(const std::string& path);
  // The next line into `line`; false at the end of the file.
  bool next(std::string& line);
  long long lines_read() const { return lines_; }
  long long bytes_read() const { return bytes_; }  // line terminators included
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  std::ifstream in_;
  long long lines_ = 0, bytes_ = 0;
};

// All lines of a UTF-8 text file (LineReader's rules).
std::vector<std::string> read_lines(const std::string& path);

// Both sides of a line-aligned corpus, a pair at a time; a line-count mismatch is an Error naming both files
// and both counts (found when the shorter one ends).
class ParallelLineReader {
 public:
  ParallelLineReader(const std::string& source_path, const std::string& target_path);
  bool next(std::string& source, std::string& target);
  long long source_bytes_read() const { return source_.bytes_read(); }

 private:
  LineReader source_, target_;
};

// At most max_pairs pairs of a line-aligned corpus, read through a ParallelLineReader: all of them in order
// when the corpus has no more, else a uniform sample (reservoir sampling, deterministic for `seed`). Memory is
// bounded by the sample, not the corpus.
struct ParallelText {
  std::vector<std::string> source, target;
};
ParallelText sample_parallel_text(const std::string& source_path, const std::string& target_path,
                                  std::size_t max_pairs, std::uint64_t seed);

// How a text file is cut into documents: each non-empty line, or each paragraph (lines up to a blank line).
enum class DocumentSplit { Lines, Paragraphs };
const char* document_split_name(DocumentSplit split);  // "lines", "paragraphs"
// Throws Error naming `where` unless name is "lines" or "paragraphs".
DocumentSplit document_split_from_name(const std::string& name, const std::string& where);

// The documents of a UTF-8 text file (LineReader's rules), one at a time: a paragraph's lines are joined by a
// space. Blank lines only separate: no document is empty.
class DocumentReader {
 public:
  DocumentReader(const std::string& path, DocumentSplit split);
  // The next document into `text` and the 1-based line it starts on; false at the end of the file.
  bool next(std::string& text, long long& first_line);
  long long bytes_read() const { return lines_.bytes_read(); }
  long long lines_read() const { return lines_.lines_read(); }

 private:
  LineReader lines_;
  DocumentSplit split_;
};

// At most max_documents documents of a text file: all of them in order when it has no more, else a uniform
// sample (reservoir sampling, deterministic for `seed`), as sample_parallel_text samples pairs.
std::vector<std::string> sample_documents(const std::string& path, DocumentSplit split, std::size_t max_documents,
                                          std::uint64_t seed);

// FNV-1a (data/vocabulary.h) of a file's bytes, read in blocks, continuing from `seed`.
std::uint64_t fingerprint_file(const std::string& path, std::uint64_t seed);

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


}  // namespace heptapod
