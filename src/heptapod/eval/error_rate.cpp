// Edit-distance error rates.
#include "heptapod/eval/error_rate.h"

#include <algorithm>
#include <limits>

#include "heptapod/core/error.h"
#include "heptapod/eval/bleu.h"

namespace heptapod::eval {

std::size_t edit_distance(const std::vector<std::string_view>& a, const std::vector<std::string_view>& b) {
  std::vector<std::size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j)
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

ErrorRates error_rates(const std::vector<std::string>& hypotheses,
                       const std::vector<std::vector<std::string>>& references) {
  require(hypotheses.size() == references.size(), "error rate: " + std::to_string(hypotheses.size()) +
                                                      " hypotheses but " + std::to_string(references.size()) +
                                                      " reference lines");
  ErrorRates r;
  for (std::size_t i = 0; i < hypotheses.size(); ++i) {
    require(!references[i].empty(), "error rate: line " + std::to_string(i + 1) + " has no reference");
    const auto hyp = python_split(hypotheses[i]);
    std::size_t best = std::numeric_limits<std::size_t>::max(), best_len = 0;
    for (const std::string& ref : references[i]) {
      const auto tokens = python_split(ref);
      const std::size_t d = edit_distance(hyp, tokens);
      if (d < best || (d == best && tokens.size() > best_len)) {
        best = d;
        best_len = tokens.size();
      }
    }
    ++r.lines;
    r.wrong_lines += best > 0;
    r.edits += static_cast<std::int64_t>(best);
    r.reference_tokens += static_cast<std::int64_t>(best_len);
  }
  return r;
}

}  // namespace heptapod::eval
