// Corpus-level chrF exactly as sacreBLEU 2.x computes it (sacrebleu/metrics/chrf.py, metrics/helpers.py):
// defaults character n-grams 1..6, no word n-grams, beta 2, whitespace removed, effective-order averaging
// (sacreBLEU's default; `eps_smoothing` switches to chrF++.py's epsilon smoothing), mixed case.
//
//   - Characters are Unicode code points. Unless `whitespace`, every Python whitespace character is removed
//     before character n-grams are taken (''.join(line.split())). Lines are lowercased first if asked.
//   - Per segment and reference, for each order: [hyp n-grams (0 when the reference has no n-gram of that
//     order), ref n-grams, clipped matches]. With several references, the one with the best sentence
//     F-score wins (the first one on a tie). A reference equal to "" is dropped; a segment with no reference
//     left is an error.
//   - Corpus statistics are the sums of the per-segment statistics; the score comes from the sums:
//     default: precision and recall averaged over the orders where both hyp and ref n-grams exist, then
//     F_beta = (1 + beta^2) P R / (beta^2 P + R), times 100 (0 when P + R = 0);
//     eps_smoothing: the mean over all orders of each order's F_beta (P or R = 1e-16 where undefined).
//   - Word n-grams (chrF++, word_order > 0): words from str.split(), a word longer than one character with a
//     punctuation character (string.punctuation) at its end, else at its start, is split in two there.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace heptapod::eval {

struct ChrfOptions {
  int char_order = 6;
  int word_order = 0;
  int beta = 2;
  bool lowercase = false;
  bool whitespace = false;  // keep whitespace in character n-grams
  bool eps_smoothing = false;
};

struct ChrfScore {
  double score = 0;                 // 0..100
  std::string name;                 // "chrF2", "chrF2++" for word_order 2
  std::vector<std::int64_t> stats;  // per order (chars 1..char_order, then words): hyp, ref, matches
  std::string signature;            // e.g. nrefs:1|case:mixed|eff:yes|nc:6|nw:0|space:no|version:2.0.0

  // sacreBLEU's line: "chrF2 = 58.93"
  std::string format(int width = 2) const;
};

// Summed per-segment statistics (3 numbers per order). `references[k][i]` is the k-th reference of segment
// i. Throws Error on unequal stream lengths, invalid UTF-8, or a segment whose references are all empty.
std::vector<std::int64_t> chrf_statistics(const std::vector<std::string>& hypotheses,
                                          const std::vector<std::vector<std::string>>& references,
                                          const ChrfOptions& options);

// The F-score (0..100) from statistics (sacreBLEU's CHRF._compute_f_score).
double chrf_f_score(const std::vector<std::int64_t>& stats, const ChrfOptions& options);

std::string chrf_signature(const ChrfOptions& options, const std::string& nrefs);

ChrfScore corpus_chrf(const std::vector<std::string>& hypotheses,
                      const std::vector<std::vector<std::string>>& references, const ChrfOptions& options = {});

}  // namespace heptapod::eval
