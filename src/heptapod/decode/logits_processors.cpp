// The logits processors: repetition guards, sampling warpers, drawing a token.
#include "heptapod/decode/logits_processors.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <set>
#include <vector>

#include "heptapod/core/error.h"
#include "heptapod/kernels/vector_math.h"

namespace heptapod {

namespace {

// Leaves only the most likely token (the smallest id among equals).
void keep_best(float* logits, int V) {
  const int best = static_cast<int>(std::max_element(logits, logits + V) - logits);
  for (int v = 0; v < V; ++v)
    if (v != best) logits[v] = kRemovedLogit;
}

// exp(value - top) for token v, in double: from `exps` when it holds that term.
double exp_term(const RowExps* exps, int v, float value, double top) {
  return exps ? exps->term(v, value, top) : exp_term_of(value, top);
}

// The largest logit of a row (V) and sum of exp(logit - largest), in double, in id order; -infinity and 0
// when every token was removed. Each term (V) is written to `terms` (0 for a removed token, which adds
// nothing to the sum's bits).
std::pair<double, double> max_and_sum(const float* logits, int V, double* terms) {
  const double top = kernels::max_value(logits, V);
  if (!std::isfinite(top)) return {top, 0.0};
  kernels::exp_terms(logits, V, top, terms);
  double z = 0;
  for (int v = 0; v < V; ++v) z += terms[v];
  return {top, z};
}

// The k-th largest logit of a row (V), counting equal values (0 < k < V): one pass keeping the k largest seen
// in a min-heap, what sorting the whole row would give at position k - 1.
float kth_largest(const float* logits, int V, int k) {
  thread_local std::vector<float> heap;  // (k) the k largest so far, smallest first
  heap.assign(logits, logits + k);
  std::make_heap(heap.begin(), heap.end(), std::greater<float>());
  for (int v = k; v < V; ++v) {
    if (!(logits[v] > heap.front())) continue;
    std::pop_heap(heap.begin(), heap.end(), std::greater<float>());
    heap.back() = logits[v];
    std::push_heap(heap.begin(), heap.end(), std::greater<float>());
  }
  return heap.front();
}

// Top-p on a row (V) whose tokens still in play are `kept` (ids ascending): most likely first (the smaller id
// first among equals), a token stays while the probability of the tokens before it is still under p, so the
// one that reaches p stays too; the rest are removed. Only the head of that order is sorted: the tokens above
// the m-th largest logit (a prefix of the whole order), m doubling until the probability reaches p within
// them, which is the whole sort's result without sorting every token.
void keep_nucleus(float* logits, const std::vector<int>& kept, float p, const RowExps* exps) {
  double top = kRemovedLogit, z = 0;
  for (int v : kept) top = std::max<double>(top, logits[v]);
  if (!std::isfinite(top)) return;  // nothing left to cut
  auto term = [&](int v) { return exp_term(exps, v, logits[v], top); };
  for (int v : kept) z += term(v);
  const auto n = static_cast<int>(kept.size());
  thread_local std::vector<int> head;
  thread_local std::vector<float> values;
  auto most_likely_first = [&](int a, int b) { return logits[a] > logits[b] || (logits[a] == logits[b] && a < b); };
  for (int m = std::min(n, 256);; m = std::min(n, 2 * m)) {
    head.clear();
    if (m == n) {
      head = kept;
    } else {  // the tokens strictly above the m-th largest logit: a prefix of the order
      values.clear();
      for (int v : kept) values.push_back(logits[v]);
      std::nth_element(values.begin(), values.begin() + (m - 1), values.end(), std::greater<float>());
      const float mth = values[m - 1];
      for (int v : kept)
        if (logits[v] > mth) head.push_back(v);
    }
    std::sort(head.begin(), head.end(), most_likely_first);
    double before = 0;
    std::size_t reached = head.size();  // where the probability before a token reaches p
    for (std::size_t i = 0; i < head.size(); ++i) {
      if (before >= p) {
        reached = i;
        break;
      }
      before += term(head[i]) / z;
    }
    const bool cut_within = reached < head.size() || (before >= p && head.size() < kept.size());
    if (!cut_within && m < n) continue;  // p not reached within the head: a longer head
    // Everything after the cut goes: the head's tail and every token below the head.
    std::vector<char> stays(kept.empty() ? 0 : static_cast<std::size_t>(kept.back()) + 1, 0);
    for (std::size_t i = 0; i < reached; ++i) stays[head[i]] = 1;
    for (int v : kept)
      if (!stays[v]) logits[v] = kRemovedLogit;
    return;
  }
}

}  // namespace

void validate(const RepetitionGuards& g) {
  require(g.repetition_penalty > 0 && std::isfinite(g.repetition_penalty),
          "search: the repetition penalty must be a finite number > 0");
  require(g.no_repeat_ngram >= 0, "search: no_repeat_ngram must be >= 0");
}

void validate(const SamplingOptions& o) {
  require(o.temperature >= 0 && std::isfinite(o.temperature), "sampling: the temperature must be finite and >= 0");
  require(o.top_k >= 0, "sampling: top-k must be >= 0");
  require(o.top_p > 0 && o.top_p <= 1, "sampling: top-p must be in (0, 1]");
}

void apply_repetition_guards(float* logits, int V, const std::vector<int>& history, const RepetitionGuards& g) {
  if (g.repetition_penalty != 1.0f) {
    for (int t : std::set<int>(history.begin(), history.end())) {
      if (t < 0 || t >= V) continue;
      logits[t] = logits[t] < 0 ? logits[t] * g.repetition_penalty : logits[t] / g.repetition_penalty;
    }
  }
  const int n = g.no_repeat_ngram, length = static_cast<int>(history.size());
  if (n <= 0 || length + 1 < n) return;
  // Every earlier n-gram whose first n - 1 tokens are the output's last n - 1 bans its last token.
  for (int start = 0; start + n <= length; ++start)
    if (std::equal(history.begin() + start, history.begin() + start + n - 1, history.end() - (n - 1))) {
      const int banned = history[start + n - 1];
      if (banned >= 0 && banned < V) logits[banned] = kRemovedLogit;
    }
}

void RowExps::compute(const float* logits, int V, const float* drawn) {
  logits_ = nullptr;  // nothing read from an earlier row while computing
  V_ = V;
  terms_.resize(static_cast<std::size_t>(V));
  running_.resize(static_cast<std::size_t>(V));
  drawn_.assign(drawn ? drawn : logits, (drawn ? drawn : logits) + V);
  top_ = kernels::max_value(logits, V);
  if (std::isfinite(top_))
    kernels::exp_terms(logits, V, top_, terms_.data());  // a removed token's term is 0
  else
    std::fill(terms_.begin(), terms_.end(), 0.0);
  // The drawn row's terms are the model's where it keeps a token, when its largest value is the same.
  draws_ready_ = !drawn || kernels::max_value(drawn, V) == top_;
  // max_and_sum's sums, of both rows: the same terms added in the same order, each partial sum kept.
  double z = 0, z_drawn = 0;
  if (drawn) {
    bool changed = false;  // a value other than the model's, not a removal: draws not served
    for (int v = 0; v < V; ++v) {
      const bool kept = drawn[v] != kRemovedLogit;
      changed |= kept && drawn[v] != logits[v];
      z += terms_[v];
      z_drawn += kept ? terms_[v] : 0.0;
      running_[v] = z_drawn;
    }
    draws_ready_ = draws_ready_ && !changed;
  } else {
    for (int v = 0; v < V; ++v) running_[v] = z += terms_[v];
    z_drawn = z;
  }
  sum_ = z;
  drawn_sum_ = z_drawn;
  draws_ready_ = draws_ready_ && std::isfinite(drawn_sum_);
  logits_ = logits;
}

bool RowExps::holds(const float* row, int V) const {
  return draws_ready_ && V == V_ && std::memcmp(row, drawn_.data(), static_cast<std::size_t>(V) * sizeof(float)) == 0;
}

int RowExps::draw(double u) const {
  if (drawn_sum_ == 0) return -1;
  // draw_token's walk stops at the first token whose running sum exceeds u z; the running sums never fall (a
  // removed token repeats the one before it, so it is never the first to exceed).
  const double target = u * drawn_sum_;
  const auto first = std::upper_bound(running_.begin(), running_.end(), target) - running_.begin();
  if (first < V_) return static_cast<int>(first);
  int last = V_ - 1;  // u within rounding of 1: the last token in play
  while (last > 0 && drawn_[last] == kRemovedLogit) --last;
  return last;
}

double RowExps::log_normalizer() const { return top_ + std::log(sum_); }

double exp_term_of(float value, double top) {
  double term = 0;
  kernels::exp_terms(&value, 1, top, &term);
  return term;
}

void apply_sampling_warpers(float* logits, int V, const SamplingOptions& o, const RowExps* exps) {
  if (o.temperature == 0 || o.top_k == 1) {
    keep_best(logits, V);
    return;
  }
  if (o.temperature != 1.0f) {
    // (logit - largest) / T: the same distribution as logit / T, and no overflow however small T is.
    const float top = *std::max_element(logits, logits + V);
    if (std::isfinite(top))
      for (int v = 0; v < V; ++v) logits[v] = (logits[v] - top) / o.temperature;
  }
  if (o.top_k > 0 && o.top_k < V) {
    const float kth = kth_largest(logits, V, o.top_k);
    for (int v = 0; v < V; ++v)
      if (logits[v] < kth) logits[v] = kRemovedLogit;
  }
  if (o.top_p < 1.0f) {
    thread_local std::vector<int> kept;  // the tokens still in play, ids ascending
    kept.clear();
    for (int v = 0; v < V; ++v)
      if (logits[v] != kRemovedLogit) kept.push_back(v);
    keep_nucleus(logits, kept, o.top_p, exps);
  }
}

int draw_token(const float* logits, int V, double u, const RowExps* exps) {
  if (exps && exps->holds(logits, V)) return exps->draw(u);
  // max_and_sum's terms, kept: the walk below adds the same exp() values in the same order (a removed token's
  // is 0 and adds nothing), so each is computed once.
  thread_local std::vector<double> terms;  // (V)
  terms.resize(static_cast<std::size_t>(V));
  const double z = max_and_sum(logits, V, terms.data()).second;
  if (z == 0) return -1;
  const double target = u * z;
  double sum = 0;
  int last = 0;
  for (int v = 0; v < V; ++v) {
    if (logits[v] == kRemovedLogit) continue;
    sum += terms[v];
    last = v;
    if (sum > target) return v;
  }
  return last;  // u within rounding of 1
}

double log_normalizer(const float* logits, int V) {
  thread_local std::vector<double> terms;  // (V)
  terms.resize(static_cast<std::size_t>(V));
  const auto [top, z] = max_and_sum(logits, V, terms.data());
  return top + std::log(z);
}

void log_softmax(float* logits, int V) {
  const double log_z = log_normalizer(logits, V);
  for (int v = 0; v < V; ++v) logits[v] = static_cast<float>(logits[v] - log_z);
}

}  // namespace heptapod
