// The logits processors: repetition guards, sampling warpers, drawing a token.
#include "heptapod/decode/logits_processors.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <set>
#include <vector>

#include "heptapod/core/error.h"

namespace heptapod {

namespace {

// Leaves only the most likely token (the smallest id among equals).
void keep_best(float* logits, int V) {
  const int best = static_cast<int>(std::max_element(logits, logits + V) - logits);
  for (int v = 0; v < V; ++v)
    if (v != best) logits[v] = kRemovedLogit;
}

// The largest logit of a row (V) and sum of exp(logit - largest), in double; -infinity and 0 when every
// token was removed. With `terms` (V), each term of the sum is kept there.
std::pair<double, double> max_and_sum(const float* logits, int V, double* terms = nullptr) {
  const double top = *std::max_element(logits, logits + V);
  if (!std::isfinite(top)) return {top, 0.0};
  double z = 0;
  for (int v = 0; v < V; ++v) {
    const double term = std::exp(static_cast<double>(logits[v]) - top);
    if (terms) terms[v] = term;
    z += term;
  }
  return {top, z};
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

void apply_sampling_warpers(float* logits, int V, const SamplingOptions& o) {
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
    std::vector<float> sorted(logits, logits + V);
    std::nth_element(sorted.begin(), sorted.begin() + (o.top_k - 1), sorted.end(), std::greater<float>());
    const float kth = sorted[o.top_k - 1];
    for (int v = 0; v < V; ++v)
      if (logits[v] < kth) logits[v] = kRemovedLogit;
  }
  if (o.top_p < 1.0f) {
    // Most likely first (the smaller id first among equals); a token stays while the probability of the
    // tokens before it is still under p, so the one that reaches p stays too.
    std::vector<int> order(V);
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return logits[a] > logits[b]; });
    const auto [top, z] = max_and_sum(logits, V);
    if (z == 0) return;  // nothing left to cut
    double before = 0;
    for (int v : order) {
      if (before >= o.top_p) {
        logits[v] = kRemovedLogit;
        continue;
      }
      before += std::exp(static_cast<double>(logits[v]) - top) / z;
    }
  }
}

int draw_token(const float* logits, int V, double u) {
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
  const auto [top, z] = max_and_sum(logits, V);
  return top + std::log(z);
}

void log_softmax(float* logits, int V) {
  const double log_z = log_normalizer(logits, V);
  for (int v = 0; v < V; ++v) logits[v] = static_cast<float>(logits[v] - log_z);
}

}  // namespace heptapod
