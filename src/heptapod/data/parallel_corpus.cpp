// Tokenization, filtering and the on-disk cache (a safetensors file) of parallel corpora.
#include "heptapod/data/parallel_corpus.h"

#include <algorithm>
#include <cstring>
#include <filesystem>

#include "heptapod/core/error.h"
#include "heptapod/data/text_file.h"
#include "heptapod/io/atomic_file.h"
#include "heptapod/io/safetensors.h"

namespace heptapod {

namespace {

constexpr const char* kCacheFormat = "heptapod-corpus-cache-1";

std::uint64_t fingerprint(const std::string& source_path, const std::string& target_path, const Vocabulary& sv,
                          const Vocabulary& tv, const LengthFilter& f) {
  std::uint64_t h = fnv1a(read_file(source_path));
  h = fnv1a(read_file(target_path), h);
  const std::string settings = std::to_string(sv.fingerprint()) + "/" + std::to_string(tv.fingerprint()) + "/" +
                               std::to_string(f.max_tokens) + "/" + std::to_string(f.max_ratio);
  return fnv1a(settings, h);
}

template <typename T>
std::vector<T> as_vector(const SafetensorsFile& f, const std::string& name, DType dtype) {
  const TensorEntry& e = f.at(name);
  require(e.dtype == dtype && e.shape.size() == 1, f.where() + ": bad tensor " + name);
  std::vector<T> v(static_cast<std::size_t>(e.numel()));
  std::memcpy(v.data(), f.data(e), v.size() * sizeof(T));
  return v;
}

}  // namespace

std::string CorpusStats::summary() const {
  return "kept " + std::to_string(kept) + " of " + std::to_string(lines) + " pairs (empty " + std::to_string(empty) +
         ", too long " + std::to_string(too_long) + ", length ratio " + std::to_string(bad_ratio) + ")";
}

std::span<const int> ParallelCorpus::source(std::size_t i) const {
  return {src_tokens_.data() + src_offsets_[i], static_cast<std::size_t>(src_offsets_[i + 1] - src_offsets_[i])};
}

std::span<const int> ParallelCorpus::target(std::size_t i) const {
  return {tgt_tokens_.data() + tgt_offsets_[i], static_cast<std::size_t>(tgt_offsets_[i + 1] - tgt_offsets_[i])};
}

ParallelCorpus ParallelCorpus::build(const std::string& source_path, const std::string& target_path,
                                     const Vocabulary& sv, const Vocabulary& tv, const LengthFilter& filter,
                                     const std::string& cache_path) {
  std::uint64_t print = 0;
  if (!cache_path.empty()) {
    print = fingerprint(source_path, target_path, sv, tv, filter);
    if (std::filesystem::exists(cache_path)) {
      try {
        const SafetensorsFile f = SafetensorsFile::read(cache_path);
        if (f.metadata().count("format") && f.metadata("format") == kCacheFormat &&
            f.metadata("fingerprint") == std::to_string(print)) {
          ParallelCorpus c;
          c.src_tokens_ = as_vector<int>(f, "src_tokens", DType::I32);
          c.tgt_tokens_ = as_vector<int>(f, "tgt_tokens", DType::I32);
          c.src_offsets_ = as_vector<std::int64_t>(f, "src_offsets", DType::I64);
          c.tgt_offsets_ = as_vector<std::int64_t>(f, "tgt_offsets", DType::I64);
          c.line_numbers_ = as_vector<std::int64_t>(f, "line_numbers", DType::I64);
          const auto s = as_vector<std::int64_t>(f, "stats", DType::I64);
          require(s.size() == 5 && c.src_offsets_.size() == c.line_numbers_.size() + 1 &&
                      c.tgt_offsets_.size() == c.src_offsets_.size() &&
                      c.src_offsets_.back() == static_cast<std::int64_t>(c.src_tokens_.size()) &&
                      c.tgt_offsets_.back() == static_cast<std::int64_t>(c.tgt_tokens_.size()),
                  cache_path + ": inconsistent cache");
          c.stats_ = {s[0], s[1], s[2], s[3], s[4]};
          c.from_cache_ = true;
          return c;
        }
      } catch (const Error&) {
        // A damaged or stale cache is rebuilt below.
      }
    }
  }

  const ParallelText text = read_parallel_text(source_path, target_path);
  ParallelCorpus c;
  for (std::size_t i = 0; i < text.source.size(); ++i) {
    ++c.stats_.lines;
    if (text.source[i].empty() || text.target[i].empty()) {
      ++c.stats_.empty;
      continue;
    }
    const std::vector<int> s = sv.encode(text.source[i]);
    const std::vector<int> t = tv.encode(text.target[i]);
    if (s.empty() || t.empty()) {
      ++c.stats_.empty;
      continue;
    }
    if (static_cast<int>(s.size()) > filter.max_tokens || static_cast<int>(t.size()) > filter.max_tokens) {
      ++c.stats_.too_long;
      continue;
    }
    const double ratio = static_cast<double>(std::max(s.size(), t.size())) / static_cast<double>(std::min(s.size(), t.size()));
    if (filter.max_ratio > 0 && ratio > filter.max_ratio) {
      ++c.stats_.bad_ratio;
      continue;
    }
    c.src_tokens_.insert(c.src_tokens_.end(), s.begin(), s.end());
    c.tgt_tokens_.insert(c.tgt_tokens_.end(), t.begin(), t.end());
    c.src_offsets_.push_back(static_cast<std::int64_t>(c.src_tokens_.size()));
    c.tgt_offsets_.push_back(static_cast<std::int64_t>(c.tgt_tokens_.size()));
    c.line_numbers_.push_back(static_cast<std::int64_t>(i + 1));
    ++c.stats_.kept;
  }

  if (!cache_path.empty()) {
    SafetensorsWriter w;
    w.set_metadata("format", kCacheFormat);
    w.set_metadata("fingerprint", std::to_string(print));
    w.set_metadata("source", source_path);
    w.set_metadata("target", target_path);
    const std::vector<std::int64_t> s = {c.stats_.lines, c.stats_.kept, c.stats_.empty, c.stats_.too_long,
                                         c.stats_.bad_ratio};
    auto add = [&](const char* name, DType d, const void* p, std::size_t n) {
      w.add(name, d, {static_cast<std::int64_t>(n)}, p);
    };
    add("src_tokens", DType::I32, c.src_tokens_.data(), c.src_tokens_.size());
    add("tgt_tokens", DType::I32, c.tgt_tokens_.data(), c.tgt_tokens_.size());
    add("src_offsets", DType::I64, c.src_offsets_.data(), c.src_offsets_.size());
    add("tgt_offsets", DType::I64, c.tgt_offsets_.data(), c.tgt_offsets_.size());
    add("line_numbers", DType::I64, c.line_numbers_.data(), c.line_numbers_.size());
    add("stats", DType::I64, s.data(), s.size());
    w.write(cache_path);
  }
  return c;
}

}  // namespace heptapod
