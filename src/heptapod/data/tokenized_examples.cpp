// TokenizedExamples: streaming tokenization and filtering of a corpus's examples, and their binary cache.
//
// Cache layout ("heptapod-corpus-cache-3"), native byte order, every array starting at a multiple of 64:
//   CacheHeader (256 bytes) | tokens int32 (tokens) | starts int64 (examples + 1) | source_lengths int32
//   (examples) | line_numbers int64 (examples)
// Examples held in memory have the same layout, so one reader serves both.
#include "heptapod/data/tokenized_examples.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <sstream>
#include <vector>

#include "heptapod/core/checksum.h"
#include "heptapod/core/error.h"
#include "heptapod/core/progress.h"
#include "heptapod/io/atomic_file.h"

namespace heptapod {

namespace {

constexpr char kCacheFormat[] = "heptapod-corpus-cache-3";
constexpr std::size_t kAlign = 64;
constexpr std::size_t kBlockPairs = 16384;  // examples read, then tokenized in parallel, at a time

struct CacheHeader {
  char format[32];
  std::uint64_t fingerprint;
  std::int64_t stats[5];  // lines, kept, empty, too_long, bad_ratio
  std::int64_t pairs, tokens;
  std::uint64_t tokens_at, starts_at, source_lengths_at, line_numbers_at;  // byte offsets
  std::uint64_t checksum;  // of the four arrays (checksum_words), so damage anywhere in them is found
  char reserved[256 - 32 - 8 - 5 * 8 - 2 * 8 - 4 * 8 - 8];
};
static_assert(sizeof(CacheHeader) == 256);

std::size_t aligned(std::size_t at) { return (at + kAlign - 1) / kAlign * kAlign; }

// Writes `bytes` at the next aligned offset after `at` (padding with zeros); returns that offset.
std::uint64_t write_aligned(std::ostream& out, std::size_t& at, const void* data, std::size_t bytes) {
  static const char zeros[kAlign] = {};
  const std::size_t start = aligned(at);
  out.write(zeros, static_cast<std::streamsize>(start - at));
  out.write(static_cast<const char*>(data), static_cast<std::streamsize>(bytes));
  at = start + bytes;
  return start;
}

// Why an example is dropped, or kKept.
enum class Verdict { kKept, kEmpty, kTooLong, kBadRatio };

Verdict judge(const std::vector<int>& s, const std::vector<int>& t, const LengthFilter& filter, bool documents) {
  if (documents) return t.empty() ? Verdict::kEmpty : Verdict::kKept;  // a document is never too long
  if (s.empty() || t.empty()) return Verdict::kEmpty;
  if (static_cast<int>(s.size()) > filter.max_tokens || static_cast<int>(t.size()) > filter.max_tokens)
    return Verdict::kTooLong;
  const double ratio = static_cast<double>(std::max(s.size(), t.size())) / static_cast<double>(std::min(s.size(), t.size()));
  if (filter.max_ratio > 0 && ratio > filter.max_ratio) return Verdict::kBadRatio;
  return Verdict::kKept;
}

// Streams the examples of `path` (a text's documents, or the source file of pairs) through the tokenizers into `out` in the cache
// layout: the tokens as they come, the per-example arrays (20 bytes each) at the end, then the header over
// the zeros written first. A document has only target tokens.
void write_corpus(std::ostream& out, ExampleReader& reader, const std::string& path, const Vocabulary& sv,
                  const Vocabulary& tv, const LengthFilter& filter, std::uint64_t print) {
  CacheHeader header{};
  std::memcpy(header.format, kCacheFormat, sizeof kCacheFormat);
  header.fingerprint = print;
  out.write(reinterpret_cast<const char*>(&header), sizeof header);
  std::size_t at = sizeof header;
  header.tokens_at = at;

  const bool documents = reader.documents();
  std::error_code size_error;
  const auto source_size = std::filesystem::file_size(path, size_error);
  Progress progress(size_error ? 0 : static_cast<long>(source_size >> 20));
  progress.counting("MB of " + std::filesystem::path(path).filename().string());
  std::vector<std::int64_t> starts{0}, line_numbers;
  std::vector<std::int32_t> source_lengths;
  std::vector<std::string> src(kBlockPairs), tgt(kBlockPairs);
  std::vector<long long> first_lines(kBlockPairs);
  std::vector<std::vector<int>> src_ids(kBlockPairs), tgt_ids(kBlockPairs);
  std::int64_t tokens = 0, lines = 0;
  std::uint64_t checksum = kChecksumSeed;
  long long stats[4] = {0, 0, 0, 0};  // kept, empty, too long, bad ratio
  bool shown = false;
  auto rate = [&] {
    const char* unit = documents ? " documents" : " pairs";
    const double per_second = static_cast<double>(lines) / std::max(progress.elapsed_seconds(), 1e-3);
    return "tokenized " + std::to_string(lines) + unit + ", " + std::to_string(std::lround(per_second)) + unit + "/s";
  };
  for (;;) {
    std::size_t n = 0;
    while (n < kBlockPairs && reader.next(src[n], tgt[n], first_lines[n])) ++n;
    if (n == 0) break;
    std::string failure;
#pragma omp parallel for schedule(dynamic, 64)
    for (long i = 0; i < static_cast<long>(n); ++i) {
      try {
        src_ids[i] = documents || src[i].empty() || tgt[i].empty() ? std::vector<int>{} : sv.encode(src[i]);
        tgt_ids[i] = documents ? tv.encode(tgt[i]) : src_ids[i].empty() ? std::vector<int>{} : tv.encode(tgt[i]);
      } catch (const std::exception& e) {
#pragma omp critical(corpus_failure)
        if (failure.empty()) failure = path + ":" + std::to_string(first_lines[i]) + ": " + e.what();
      }
    }
    if (!failure.empty()) throw Error(failure);
    for (std::size_t i = 0; i < n; ++i) {
      const Verdict v = judge(src_ids[i], tgt_ids[i], filter, documents);
      ++stats[static_cast<int>(v)];
      if (v != Verdict::kKept) continue;
      for (const std::vector<int>* ids : {&src_ids[i], &tgt_ids[i]}) {
        out.write(reinterpret_cast<const char*>(ids->data()), static_cast<std::streamsize>(ids->size() * sizeof(int)));
        checksum = checksum_words(checksum, ids->data(), ids->size() * sizeof(int));
      }
      tokens += static_cast<std::int64_t>(src_ids[i].size() + tgt_ids[i].size());
      starts.push_back(tokens);
      source_lengths.push_back(static_cast<std::int32_t>(src_ids[i].size()));
      line_numbers.push_back(first_lines[i]);
    }
    lines += static_cast<std::int64_t>(n);
    if (!out) throw Error("cannot write the corpus cache (disk full?)");
    if (progress.elapsed_seconds() > 2) {  // quiet for small corpora
      progress.update(static_cast<long>(reader.bytes_read() >> 20), rate());
      shown = true;
    }
  }
  if (shown) progress.finish(static_cast<long>(reader.bytes_read() >> 20), rate());
  at += static_cast<std::size_t>(tokens) * sizeof(int);
  const std::size_t pairs = source_lengths.size();
  header.starts_at = write_aligned(out, at, starts.data(), starts.size() * sizeof(std::int64_t));
  header.source_lengths_at = write_aligned(out, at, source_lengths.data(), pairs * sizeof(std::int32_t));
  header.line_numbers_at = write_aligned(out, at, line_numbers.data(), pairs * sizeof(std::int64_t));
  header.pairs = static_cast<std::int64_t>(pairs);
  header.tokens = tokens;
  checksum = checksum_words(checksum, starts.data(), starts.size() * sizeof(std::int64_t));
  checksum = checksum_words(checksum, source_lengths.data(), pairs * sizeof(std::int32_t));
  header.checksum = checksum_words(checksum, line_numbers.data(), pairs * sizeof(std::int64_t));
  const std::int64_t all[5] = {lines, stats[0], stats[1], stats[2], stats[3]};
  std::copy(all, all + 5, header.stats);
  out.seekp(0);
  out.write(reinterpret_cast<const char*>(&header), sizeof header);
  if (!out) throw Error("cannot write the corpus cache (disk full?)");
}

// The fingerprint a cache's header holds; 0 when it is not a cache of this format.
std::uint64_t cached_fingerprint(std::string_view bytes) {
  CacheHeader h;
  if (bytes.size() < sizeof h) return 0;
  std::memcpy(&h, bytes.data(), sizeof h);
  if (std::memcmp(h.format, kCacheFormat, sizeof kCacheFormat) != 0) return 0;
  return h.fingerprint;
}

}  // namespace

std::uint64_t TokenizedExamples::fingerprint(std::uint64_t files, const std::string& settings) {
  return fnv1a(std::string(kCacheFormat) + settings, files);
}

std::string CorpusStats::summary() const {
  return "kept " + std::to_string(kept) + " of " + std::to_string(lines) + " pairs (empty " + std::to_string(empty) +
         ", too long " + std::to_string(too_long) + ", length ratio " + std::to_string(bad_ratio) + ")";
}

void TokenizedExamples::attach(std::string_view bytes, const std::string& where) {
  const std::string bad = where + ": damaged corpus cache";
  require(cached_fingerprint(bytes) != 0, where + ": not a " + kCacheFormat + " file");
  require(reinterpret_cast<std::uintptr_t>(bytes.data()) % alignof(std::int64_t) == 0, bad + " (misaligned)");
  CacheHeader h;
  std::memcpy(&h, bytes.data(), sizeof h);
  require(h.pairs >= 0 && h.tokens >= 0, bad);
  const auto pairs = static_cast<std::uint64_t>(h.pairs), tokens = static_cast<std::uint64_t>(h.tokens);
  auto fits = [&](std::uint64_t at, std::uint64_t count, std::uint64_t size) {
    return at % kAlign == 0 && at <= bytes.size() && count <= (bytes.size() - at) / size;
  };
  require(fits(h.tokens_at, tokens, 4) && fits(h.starts_at, pairs + 1, 8) && fits(h.source_lengths_at, pairs, 4) &&
              fits(h.line_numbers_at, pairs, 8),
          bad + " (arrays outside the file)");
  tokens_ = reinterpret_cast<const int*>(bytes.data() + h.tokens_at);
  starts_ = reinterpret_cast<const std::int64_t*>(bytes.data() + h.starts_at);
  source_lengths_ = reinterpret_cast<const std::int32_t*>(bytes.data() + h.source_lengths_at);
  line_numbers_ = reinterpret_cast<const std::int64_t*>(bytes.data() + h.line_numbers_at);
  // Every example's tokens inside the array, so no damaged offset can send a reader outside it.
  std::uint64_t checksum = checksum_words(kChecksumSeed, tokens_, tokens * sizeof(int));
  checksum = checksum_words(checksum, starts_, (pairs + 1) * sizeof(std::int64_t));
  checksum = checksum_words(checksum, source_lengths_, pairs * sizeof(std::int32_t));
  require(checksum_words(checksum, line_numbers_, pairs * sizeof(std::int64_t)) == h.checksum,
          bad + " (its contents changed since it was written)");
  require(starts_[0] == 0 && starts_[pairs] == h.tokens, bad + " (offsets)");
  for (std::uint64_t i = 0; i < pairs; ++i)
    require(source_lengths_[i] >= 0 && starts_[i] + source_lengths_[i] <= starts_[i + 1], bad + " (offsets)");
  examples_ = static_cast<std::size_t>(pairs);
  stats_ = {h.stats[0], h.stats[1], h.stats[2], h.stats[3], h.stats[4]};
}

TokenizedExamples TokenizedExamples::build(std::uint64_t print, const std::string& path,
                                           const std::function<std::unique_ptr<ExampleReader>()>& open,
                                           const Vocabulary& sv, const Vocabulary& tv, const LengthFilter& filter,
                                           const std::string& cache_path) {
  auto write = [&](std::ostream& out) {
    const std::unique_ptr<ExampleReader> reader = open();
    write_corpus(out, *reader, path, sv, tv, filter, print);
  };
  TokenizedExamples c;
  if (cache_path.empty()) {
    std::stringstream out;
    write(out);
    auto bytes = std::make_shared<const std::string>(std::move(out).str());
    c.attach(*bytes, path);
    c.owned_ = std::move(bytes);
    return c;
  }
  if (std::filesystem::is_regular_file(cache_path)) {
    try {
      auto file = MappedFile::open(cache_path);
      if (cached_fingerprint(file->bytes()) == print) {
        c.attach(file->bytes(), cache_path);
        c.mapped_ = std::move(file);
        c.from_cache_ = true;
        return c;
      }
    } catch (const Error& e) {
      std::cerr << "warning: " << e.what() << ": rebuilding it\n";  // a damaged or foreign cache
    }
  }
  write_file_atomic(cache_path, write);
  auto file = MappedFile::open(cache_path);
  c.attach(file->bytes(), cache_path);
  c.mapped_ = std::move(file);
  return c;
}

}  // namespace heptapod
