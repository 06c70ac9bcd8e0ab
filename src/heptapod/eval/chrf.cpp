// chrF as sacreBLEU 2.x computes it; see chrf.h for the exact behaviour replicated.
#include "heptapod/eval/chrf.h"

#include <algorithm>
#include <cstdio>
#include <memory>
#include <string_view>
#include <unordered_map>

#include "heptapod/core/error.h"
#include "heptapod/eval/bleu.h"

namespace heptapod::eval {

namespace {

// Counts of the n-grams of one order: views into the segment's code points for characters, space-joined
// words for words.
using CharCounts = std::unordered_map<std::u32string_view, std::int64_t>;
using WordCounts = std::unordered_map<std::string, std::int64_t>;

// A segment prepared for matching: its n-gram counts per order. The character n-grams are views into
// `chars`, which lives on the heap so that moving the segment keeps them valid.
struct SegmentNgrams {
  std::unique_ptr<const std::u32string> chars;
  std::vector<CharCounts> char_ngrams;  // orders 1..char_order
  std::vector<WordCounts> word_ngrams;  // orders 1..word_order
};

// string.punctuation
bool is_punctuation(char32_t c) {
  return (c >= 0x21 && c <= 0x2F) || (c >= 0x3A && c <= 0x40) || (c >= 0x5B && c <= 0x60) || (c >= 0x7B && c <= 0x7E);
}

// sacreBLEU's CHRF._remove_punctuation: words with a leading or trailing punctuation character split off.
std::vector<std::u32string> split_punctuation(const std::u32string& sentence) {
  std::vector<std::u32string> out;
  const std::string utf8 = to_utf8(sentence);
  for (std::string_view w8 : python_split(utf8)) {
    const std::u32string w = to_u32(w8);
    if (w.size() == 1) {
      out.push_back(w);
    } else if (is_punctuation(w.back())) {
      out.push_back(w.substr(0, w.size() - 1));
      out.push_back(w.substr(w.size() - 1));
    } else if (is_punctuation(w.front())) {
      out.push_back(w.substr(0, 1));
      out.push_back(w.substr(1));
    } else {
      out.push_back(w);
    }
  }
  return out;
}

SegmentNgrams extract(const std::string& line, const ChrfOptions& o) {
  std::u32string text = to_u32(line);
  if (o.lowercase) text = python_lower(text);
  SegmentNgrams seg;
  auto chars = std::make_unique<std::u32string>();
  if (o.whitespace) {
    *chars = text;
  } else {
    for (char32_t c : text)
      if (!is_python_space(c)) chars->push_back(c);
  }
  const std::u32string_view view(*chars);
  seg.chars = std::move(chars);
  seg.char_ngrams.resize(o.char_order);
  for (int n = 1; n <= o.char_order; ++n)
    for (std::size_t i = 0; i + n <= view.size(); ++i) ++seg.char_ngrams[n - 1][view.substr(i, n)];
  if (o.word_order > 0) {
    std::vector<std::string> words;
    for (const std::u32string& w : split_punctuation(text)) words.push_back(to_utf8(w));
    seg.word_ngrams.resize(o.word_order);
    std::string key;
    for (int n = 1; n <= o.word_order; ++n) {
      for (std::size_t i = 0; i + n <= words.size(); ++i) {
        key = words[i];
        for (int k = 1; k < n; ++k) key += " " + words[i + k];
        ++seg.word_ngrams[n - 1][key];
      }
    }
  }
  return seg;
}

// sacreBLEU's CHRF._get_match_statistics for one order.
template <typename Counts>
void match_statistics(const Counts& hyp, const Counts& ref, std::vector<std::int64_t>& out) {
  std::int64_t hyp_count = 0, ref_count = 0, matches = 0;
  for (const auto& [ngram, count] : hyp) {
    hyp_count += count;
    const auto it = ref.find(ngram);
    if (it != ref.end()) matches += std::min(count, it->second);
  }
  for (const auto& entry : ref) ref_count += entry.second;
  out.push_back(ref.empty() ? 0 : hyp_count);
  out.push_back(ref_count);
  out.push_back(matches);
}

// `x` rounded to a double. Python rounds every product before the following sum; without this the compiler may
// fuse a * b + c into one multiply-add (g++ does at -O3 -march=native), which changes the last bit.
double rounded(double x) {
  volatile double v = x;
  return v;
}

}  // namespace

std::vector<std::int64_t> chrf_statistics(const std::vector<std::string>& hypotheses,
                                          const std::vector<std::vector<std::string>>& references,
                                          const ChrfOptions& o) {
  require(o.char_order >= 0 && o.word_order >= 0 && o.char_order + o.word_order >= 1,
          "chrF needs a positive character or word n-gram order");
  require(!references.empty(), "no reference stream given");
  for (std::size_t k = 0; k < references.size(); ++k)
    require(references[k].size() == hypotheses.size(),
            "reference stream " + std::to_string(k + 1) + " has " + std::to_string(references[k].size()) +
                " segments but there are " + std::to_string(hypotheses.size()) + " hypotheses");
  const std::size_t orders = static_cast<std::size_t>(o.char_order + o.word_order);
  std::vector<std::int64_t> total(3 * orders, 0);
  for (std::size_t i = 0; i < hypotheses.size(); ++i) {
    require_utf8(hypotheses[i], "hypothesis line " + std::to_string(i + 1));
    const SegmentNgrams hyp = extract(hypotheses[i], o);
    std::vector<std::int64_t> best;
    double best_f = -1.0;
    for (std::size_t k = 0; k < references.size(); ++k) {
      const std::string& ref_line = references[k][i];
      if (ref_line.empty()) continue;
      require_utf8(ref_line, "reference " + std::to_string(k + 1) + " line " + std::to_string(i + 1));
      const SegmentNgrams ref = extract(ref_line, o);
      std::vector<std::int64_t> stats;
      stats.reserve(3 * orders);
      for (int n = 0; n < o.char_order; ++n) match_statistics(hyp.char_ngrams[n], ref.char_ngrams[n], stats);
      for (int n = 0; n < o.word_order; ++n) match_statistics(hyp.word_ngrams[n], ref.word_ngrams[n], stats);
      const double f = chrf_f_score(stats, o);
      if (f > best_f) {
        best_f = f;
        best = std::move(stats);
      }
    }
    require(!best.empty(), "segment " + std::to_string(i + 1) + " has no non-empty reference");
    for (std::size_t j = 0; j < total.size(); ++j) total[j] += best[j];
  }
  return total;
}

double chrf_f_score(const std::vector<std::int64_t>& stats, const ChrfOptions& o) {
  const int orders = o.char_order + o.word_order;
  require(static_cast<int>(stats.size()) == 3 * orders, "chrF statistics do not match the n-gram orders");
  const double eps = 1e-16;
  const double factor = static_cast<double>(o.beta) * static_cast<double>(o.beta);
  double score = 0.0, avg_prec = 0.0, avg_rec = 0.0;
  int effective_order = 0;
  for (int i = 0; i < orders; ++i) {
    const std::int64_t n_hyp = stats[3 * i], n_ref = stats[3 * i + 1], n_match = stats[3 * i + 2];
    const double prec = n_hyp > 0 ? static_cast<double>(n_match) / static_cast<double>(n_hyp) : eps;
    const double rec = n_ref > 0 ? static_cast<double>(n_match) / static_cast<double>(n_ref) : eps;
    const double denom = rounded(factor * prec) + rec;
    score += denom > 0 ? (1 + factor) * prec * rec / denom : eps;
    if (n_hyp > 0 && n_ref > 0) {
      avg_prec += prec;
      avg_rec += rec;
      ++effective_order;
    }
  }
  if (o.eps_smoothing) return 100 * score / orders;
  if (effective_order == 0) {
    avg_prec = avg_rec = 0.0;
  } else {
    avg_prec /= effective_order;
    avg_rec /= effective_order;
  }
  if (avg_prec + avg_rec == 0.0) return 0.0;
  score = (1 + factor) * avg_prec * avg_rec;
  score /= rounded(factor * avg_prec) + avg_rec;
  return 100 * score;
}

std::string chrf_signature(const ChrfOptions& o, const std::string& nrefs) {
  return "nrefs:" + nrefs + "|case:" + (o.lowercase ? "lc" : "mixed") + "|eff:" + (o.eps_smoothing ? "no" : "yes") +
         "|nc:" + std::to_string(o.char_order) + "|nw:" + std::to_string(o.word_order) +
         "|space:" + (o.whitespace ? "yes" : "no") + "|version:" + kSacrebleuVersion;
}

ChrfScore corpus_chrf(const std::vector<std::string>& hypotheses,
                      const std::vector<std::vector<std::string>>& references, const ChrfOptions& o) {
  ChrfScore s;
  s.stats = chrf_statistics(hypotheses, references, o);
  s.score = chrf_f_score(s.stats, o);
  s.name = "chrF" + std::to_string(o.beta) + std::string(static_cast<std::size_t>(o.word_order), '+');
  s.signature = chrf_signature(o, count_references(references, hypotheses.size()));
  return s;
}

std::string ChrfScore::format(int width) const {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", width, score);
  return name + " = " + buf;
}

}  // namespace heptapod::eval
