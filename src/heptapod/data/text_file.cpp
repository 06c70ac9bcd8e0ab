// Validated line reading.
#include "heptapod/data/text_file.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>

#include "heptapod/core/error.h"
#include "heptapod/core/random.h"
#include "heptapod/data/utf8.h"
#include "heptapod/data/vocabulary.h"

namespace heptapod {

LineReader::LineReader(const std::string& path) : path_(path), in_(path, std::ios::binary) {
  require(!std::filesystem::is_directory(path), "cannot read " + path + ": is a directory, not a file");
  if (!in_) throw Error("cannot open " + path + ": " + std::strerror(errno));
}

bool LineReader::next(std::string& line) {
  if (!std::getline(in_, line)) {
    if (in_.bad()) throw Error("cannot read " + path_ + ": " + std::strerror(errno));
    return false;
  }
  ++lines_;
  bytes_ += static_cast<long long>(line.size()) + 1;
  if (!line.empty() && line.back() == '\r') line.pop_back();
  const std::size_t bad = find_invalid_utf8(line);
  if (bad != std::string::npos)
    throw Error(path_ + ":" + std::to_string(lines_) + ": invalid UTF-8 at byte " + std::to_string(bad + 1) +
                " of the line");
  return true;
}

std::vector<std::string> read_lines(const std::string& path) {
  LineReader reader(path);
  std::vector<std::string> lines;
  for (std::string line; reader.next(line);) lines.push_back(std::move(line));
  return lines;
}

ParallelLineReader::ParallelLineReader(const std::string& source_path, const std::string& target_path)
    : source_(source_path), target_(target_path) {}

bool ParallelLineReader::next(std::string& source, std::string& target) {
  const bool has_source = source_.next(source), has_target = target_.next(target);
  if (has_source == has_target) return has_source;
  LineReader& longer = has_source ? source_ : target_;
  for (std::string rest; longer.next(rest);) {
  }
  throw Error("line counts differ: " + source_.path() + " has " + std::to_string(source_.lines_read()) + " lines, " +
              target_.path() + " has " + std::to_string(target_.lines_read()));
}

namespace {

// Reservoir sampling: calls keep(k, slot) for item k (0-based) of a stream when it enters the sample at
// `slot` (slot == k while the sample fills); next() reads the next item, false at the end.
template <typename Next, typename Keep>
void reservoir_sample(std::size_t max_items, std::uint64_t seed, Next next, Keep keep) {
  Rng rng(mix64(seed ^ 0x5a3b1e));
  for (std::uint64_t k = 0; next(); ++k) {
    if (k < max_items) keep(static_cast<std::size_t>(k));
    else if (const std::uint64_t j = rng.below(k + 1); j < max_items) keep(static_cast<std::size_t>(j));
  }
}

}  // namespace

ParallelText sample_parallel_text(const std::string& source_path, const std::string& target_path,
                                  std::size_t max_pairs, std::uint64_t seed) {
  ParallelLineReader reader(source_path, target_path);
  ParallelText sample;
  std::string s, t;
  reservoir_sample(max_pairs, seed, [&] { return reader.next(s, t); }, [&](std::size_t slot) {
    if (slot == sample.source.size()) {
      sample.source.emplace_back();
      sample.target.emplace_back();
    }
    sample.source[slot] = std::move(s);
    sample.target[slot] = std::move(t);
  });
  return sample;
}

const char* document_split_name(DocumentSplit split) {
  return split == DocumentSplit::Lines ? "lines" : "paragraphs";
}

DocumentSplit document_split_from_name(const std::string& name, const std::string& where) {
  if (name == "lines") return DocumentSplit::Lines;
  if (name == "paragraphs") return DocumentSplit::Paragraphs;
  throw Error(where + " must be \"lines\" or \"paragraphs\", not \"" + name + "\"");
}

DocumentReader::DocumentReader(const std::string& path, DocumentSplit split) : lines_(path), split_(split) {}

bool DocumentReader::next(std::string& text, long long& first_line) {
  text.clear();
  for (std::string line; lines_.next(line);) {
    const bool blank = line.find_first_not_of(" \t") == std::string::npos;
    if (blank) {
      if (text.empty()) continue;  // blank lines before a document
      return true;                 // a paragraph's end
    }
    if (text.empty()) first_line = lines_.lines_read();
    else text += ' ';
    text += line;
    if (split_ == DocumentSplit::Lines) return true;
  }
  return !text.empty();  // the last paragraph, at the end of the file
}

std::vector<std::string> sample_documents(const std::string& path, DocumentSplit split, std::size_t max_documents,
                                          std::uint64_t seed) {
  DocumentReader reader(path, split);
  std::vector<std::string> sample;
  std::string text;
  long long line = 0;
  reservoir_sample(max_documents, seed, [&] { return reader.next(text, line); }, [&](std::size_t slot) {
    if (slot == sample.size()) sample.emplace_back();
    sample[slot] = std::move(text);
  });
  return sample;
}

std::uint64_t fingerprint_file(const std::string& path, std::uint64_t seed) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error("cannot open " + path + ": " + std::strerror(errno));
  std::string block(1 << 20, '\0');
  std::uint64_t h = seed;
  while (in) {
    in.read(block.data(), static_cast<std::streamsize>(block.size()));
    h = fnv1a(std::string_view(block.data(), static_cast<std::size_t>(in.gcount())), h);
  }
  if (in.bad()) throw Error("cannot read " + path + ": " + std::strerror(errno));
  return h;
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

}  // namespace heptapod
