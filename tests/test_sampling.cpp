// The logits processors against their definitions (Hugging Face's, written out here independently): draws
// from fixed logits follow softmax(logits / T) cut by top-k and top-p and renormalised (a chi-square test at
// a fixed seed, whose threshold a wrong temperature, an off-by-one top-p cut or a missing renormalisation
// exceed); temperature 0 and top-k 1 are greedy; the repetition penalty and the n-gram ban change exactly the
// logits they name. The warpers, which sort only the head of a row, leave every logit as sorting the whole row
// does (written out here as the earlier version did it), so the draws of a seed are unchanged; a draw from a
// row's kept running sums is the token a walk adding its terms stops at. The terms are the project's
// exp_term_of (kernels::exp_terms), the draws' reference; tests/test_exp_terms.cpp holds it to the C library.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <numeric>
#include <vector>

#include "heptapod/core/random.h"
#include "heptapod/decode/logits_processors.h"

namespace heptapod {
namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();

// The distribution sampling should follow, from the definitions: softmax of logits / T; top-k keeps the
// tokens whose logit is at least the k-th largest; top-p keeps, most likely first, each token while the
// probability before it is under p; the kept probabilities renormalised. The knobs make the wrong versions.
struct Reference {
  double temperature = 1;
  int top_k = 0;
  double top_p = 1;
  int top_p_off_by = 0;     // keep this many more (or fewer) tokens than top-p's cut
  bool renormalise = true;  // false: the kept probabilities as they were before the cut
};

std::vector<double> expected(const std::vector<float>& logits, const Reference& r) {
  const int V = static_cast<int>(logits.size());
  std::vector<double> p(V);
  double top = -INFINITY;
  for (float l : logits) top = std::max(top, l / r.temperature);
  double z = 0;
  for (int v = 0; v < V; ++v) z += p[v] = std::exp(logits[v] / r.temperature - top);
  for (double& x : p) x /= z;
  std::vector<bool> keep(V, true);
  if (r.top_k > 0) {
    std::vector<double> sorted = p;
    std::sort(sorted.rbegin(), sorted.rend());
    for (int v = 0; v < V; ++v) keep[v] = p[v] >= sorted[r.top_k - 1];
  }
  // top-p over what top-k kept, renormalised first (the warpers run one after the other).
  const std::vector<bool> top_k_kept = keep;
  double kept_mass = 0;
  for (int v = 0; v < V; ++v) kept_mass += keep[v] ? p[v] : 0;
  std::vector<int> order(V);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return p[a] > p[b]; });
  double before = 0;
  int count = 0;  // tokens top-p keeps
  for (int v : order) {
    if (!keep[v]) continue;
    if (before >= r.top_p) {
      keep[v] = false;
      continue;
    }
    before += p[v] / kept_mass;
    ++count;
  }
  if (r.top_p_off_by != 0) {  // top-p's cut moved by one token
    int seen = 0;
    for (int v : order) keep[v] = top_k_kept[v] && seen++ < count + r.top_p_off_by;
  }
  double mass = 0;
  for (int v = 0; v < V; ++v) mass += keep[v] ? p[v] : 0;
  for (int v = 0; v < V; ++v) p[v] = keep[v] ? (r.renormalise ? p[v] / mass : p[v]) : 0;
  return p;
}

// Token counts of n draws as the sampler makes them: the warpers, then one counter-based uniform per draw.
std::vector<long> draw(const std::vector<float>& logits, const SamplingOptions& o, long n) {
  const int V = static_cast<int>(logits.size());
  std::vector<float> warped = logits;
  apply_sampling_warpers(warped.data(), V, o);
  std::vector<long> counts(V, 0);
  for (long i = 0; i < n; ++i) ++counts[draw_token(warped.data(), V, counter_uniform(o.seed, 11, i))];
  return counts;
}

// Pearson's chi-square of counts against probabilities; a token drawn where the probability is 0 is infinite.
double chi_square(const std::vector<long>& counts, const std::vector<double>& p) {
  long n = 0;
  for (long c : counts) n += c;
  double chi = 0;
  for (std::size_t v = 0; v < p.size(); ++v) {
    const double e = p[v] * n;
    if (e == 0) {
      if (counts[v] > 0) return INFINITY;
      continue;
    }
    chi += (counts[v] - e) * (counts[v] - e) / e;
  }
  return chi;
}

// The 0.999 quantile of chi-square with up to 9 degrees of freedom is 27.9: a correct sampler passes at this
// fixed seed, and a wrong distribution with 40000 draws lies far beyond.
constexpr double kThreshold = 27.9;
constexpr long kDraws = 40000;

const std::vector<float> kLogits = {2.0f, 1.5f, 1.4f, 0.3f, 0.0f, -0.2f, -1.0f, -1.1f, -2.5f, 0.9f};

TEST(Sampling, DrawsFollowTemperatureTopKAndTopP) {
  struct Case {
    SamplingOptions options;
    Reference reference;
  };
  const std::vector<Case> cases = {
      {{1.0f, 0, 1.0f, 1}, {1.0, 0, 1.0}},
      {{0.7f, 0, 1.0f, 2}, {0.7, 0, 1.0}},
      {{1.5f, 5, 1.0f, 3}, {1.5, 5, 1.0}},
      {{1.0f, 0, 0.8f, 4}, {1.0, 0, 0.8}},
      {{0.8f, 6, 0.9f, 5}, {0.8, 6, 0.9}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE("T " + std::to_string(c.options.temperature) + " top-k " + std::to_string(c.options.top_k) +
                 " top-p " + std::to_string(c.options.top_p));
    const std::vector<long> counts = draw(kLogits, c.options, kDraws);
    EXPECT_LT(chi_square(counts, expected(kLogits, c.reference)), kThreshold);
    // The test can fail: the same draws against a wrong temperature, a top-p cut one token off either way
    // and the cut probabilities left unnormalised.
    Reference hotter = c.reference;
    hotter.temperature *= 1.15;
    EXPECT_GT(chi_square(counts, expected(kLogits, hotter)), kThreshold) << "a 15% hotter temperature passes";
    if (c.reference.top_p < 1) {
      for (int off : {-1, 1}) {
        Reference cut = c.reference;
        cut.top_p_off_by = off;
        EXPECT_GT(chi_square(counts, expected(kLogits, cut)), kThreshold) << "top-p's cut moved by " << off;
      }
    }
    if (c.reference.top_p < 1 || c.reference.top_k > 0) {
      Reference unnormalised = c.reference;
      unnormalised.renormalise = false;
      EXPECT_GT(chi_square(counts, expected(kLogits, unnormalised)), kThreshold) << "no renormalisation passes";
    }
  }
}

TEST(Sampling, TopPKeepsTheSmallestSetThatReachesP) {
  // Probabilities 1/2, 1/4, 1/8, 1/8 exactly: p = 0.75 keeps two tokens (their sum reaches it), 0.76 three.
  const std::vector<float> logits = {std::log(0.5f), std::log(0.25f), std::log(0.125f), std::log(0.125f)};
  for (const auto& [p, kept] : std::vector<std::pair<float, int>>{{0.75f, 2}, {0.76f, 3}, {0.5f, 1}, {0.3f, 1}, {1.0f, 4}}) {
    std::vector<float> w = logits;
    apply_sampling_warpers(w.data(), 4, SamplingOptions{1.0f, 0, p, 0});
    EXPECT_EQ(std::count_if(w.begin(), w.end(), [](float x) { return x > -kInf; }), kept) << "top-p " << p;
  }
}

TEST(Sampling, TemperatureZeroAndTopKOneAreGreedy) {
  for (const SamplingOptions& o : {SamplingOptions{0.0f, 0, 1.0f, 9}, SamplingOptions{1.0f, 1, 1.0f, 9},
                                   SamplingOptions{0.0f, 3, 0.5f, 9}}) {
    const std::vector<long> counts = draw(kLogits, o, 1000);
    EXPECT_EQ(counts[0], 1000) << "every draw is the most likely token";
  }
  // Equal best logits: the smaller id, as beam search breaks ties.
  std::vector<float> tie = {0.0f, 3.0f, 3.0f, 1.0f};
  apply_sampling_warpers(tie.data(), 4, SamplingOptions{0.0f, 0, 1.0f, 0});
  EXPECT_EQ(tie, (std::vector<float>{-kInf, 3.0f, -kInf, -kInf}));
}

TEST(Sampling, RepetitionPenaltyDividesPositiveAndMultipliesNegativeLogitsOnce) {
  std::vector<float> logits = {2.0f, -1.0f, 0.5f, 3.0f, -2.0f};
  apply_repetition_guards(logits.data(), 5, {0, 1, 1, 1, 4}, RepetitionGuards{2.0f, 0});
  EXPECT_EQ(logits, (std::vector<float>{1.0f, -2.0f, 0.5f, 3.0f, -4.0f}));
}

TEST(Sampling, NoRepeatNgramBansTheTokensThatWouldRepeatAnNgram) {
  auto banned = [](const std::vector<int>& history, int n) {
    std::vector<float> logits(6, 0.0f);
    apply_repetition_guards(logits.data(), 6, history, RepetitionGuards{1.0f, n});
    std::vector<int> out;
    for (int v = 0; v < 6; ++v)
      if (logits[v] == -kInf) out.push_back(v);
    return out;
  };
  EXPECT_EQ(banned({1, 2, 3, 1, 2}, 3), (std::vector<int>{3}));      // 1 2 -> 3 was seen
  EXPECT_EQ(banned({1, 2, 3, 2, 4, 2}, 2), (std::vector<int>{3, 4}));  // 2 -> 3 and 2 -> 4
  EXPECT_EQ(banned({5, 1, 5}, 1), (std::vector<int>{1, 5}));          // unigrams: everything seen
  EXPECT_EQ(banned({1, 2}, 3), std::vector<int>{});                    // too short for a trigram
  EXPECT_EQ(banned({1, 2, 1, 2}, 0), std::vector<int>{});              // off
}

// Temperature, top-k and top-p by sorting the whole row: the warpers' earlier version, the reference for the
// bits the one-pass version must leave.
void warp_by_whole_sort(std::vector<float>& logits, const SamplingOptions& o) {
  const int V = static_cast<int>(logits.size());
  if (o.temperature != 1.0f) {
    const float top = *std::max_element(logits.begin(), logits.end());
    for (float& l : logits) l = (l - top) / o.temperature;
  }
  if (o.top_k > 0 && o.top_k < V) {
    std::vector<float> sorted = logits;
    std::nth_element(sorted.begin(), sorted.begin() + (o.top_k - 1), sorted.end(), std::greater<float>());
    for (float& l : logits)
      if (l < sorted[o.top_k - 1]) l = -kInf;
  }
  if (o.top_p < 1.0f) {
    std::vector<int> order(V);
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return logits[a] > logits[b]; });
    const double top = *std::max_element(logits.begin(), logits.end());
    double z = 0;
    for (float l : logits) z += exp_term_of(l, top);
    double before = 0;
    for (int v : order) {
      if (before >= o.top_p) {
        logits[v] = -kInf;
        continue;
      }
      before += exp_term_of(logits[v], top) / z;
    }
  }
}

TEST(Sampling, WarpersLeaveTheBitsOfSortingTheWholeRow) {
  Rng rng(5);
  int compared = 0;
  for (const int V : {7, 300, 50257}) {
    for (const float spread : {0.5f, 4.0f, 12.0f}) {  // flat rows (a long nucleus) to peaked ones
      std::vector<float> logits(V);
      // Values on a grid of 1/8, so that many tie (at the k-th largest and inside the nucleus too).
      for (float& l : logits) l = std::round(static_cast<float>(rng.normal()) * spread * 8) / 8;
      for (const SamplingOptions o : {SamplingOptions{1.0f, 40, 1.0f, 0}, SamplingOptions{0.8f, 40, 0.95f, 0},
                                      SamplingOptions{1.0f, 0, 0.9f, 0}, SamplingOptions{0.7f, 0, 0.5f, 0},
                                      SamplingOptions{1.3f, 5, 0.3f, 0}, SamplingOptions{1.0f, 0, 0.999f, 0}}) {
        std::vector<float> fast = logits, reference = logits;
        apply_sampling_warpers(fast.data(), V, o);
        warp_by_whole_sort(reference, o);
        ASSERT_EQ(std::memcmp(fast.data(), reference.data(), sizeof(float) * V), 0)
            << "V " << V << " spread " << spread << " T " << o.temperature << " k " << o.top_k << " p " << o.top_p;
        ++compared;
      }
    }
  }
  EXPECT_EQ(compared, 54);
}

// A draw by walking the row: the terms exp(logit - largest) added in id order until the sum exceeds u z.
int draw_by_walking(const std::vector<float>& logits, double u) {
  const double top = *std::max_element(logits.begin(), logits.end());
  double z = 0;
  for (float l : logits)
    if (l != -kInf) z += exp_term_of(l, top);
  double sum = 0;
  int last = -1;
  for (int v = 0; v < static_cast<int>(logits.size()); ++v) {
    if (logits[v] == -kInf) continue;
    sum += exp_term_of(logits[v], top);
    last = v;
    if (sum > u * z) return v;
  }
  return last;
}

TEST(Sampling, DrawsFromKeptTermsAreTheWalksTokens) {
  Rng rng(9);
  int compared = 0;
  for (const int V : {7, 300, 8000}) {
    std::vector<float> logits(V);
    for (float& l : logits) l = std::round(static_cast<float>(rng.normal()) * 3 * 8) / 8;
    logits[0] = logits[V - 1] = logits[V / 2] = -kInf;  // removed tokens, at both ends too
    RowExps exps;
    exps.compute(logits.data(), V);
    ASSERT_TRUE(exps.holds(logits.data(), V));
    // Random draws, then u exactly at and around every running sum of the first tokens (where the walk stops).
    std::vector<double> us = {0.0, std::nextafter(1.0, 0.0)};
    for (int i = 0; i < 200; ++i) us.push_back(rng.uniform());
    const double top = *std::max_element(logits.begin(), logits.end());
    double z = 0, sum = 0;
    for (float l : logits)
      if (l != -kInf) z += exp_term_of(l, top);
    for (int v = 0; v < std::min(V, 40); ++v) {
      if (logits[v] == -kInf) continue;
      sum += exp_term_of(logits[v], top);
      for (const double u : {sum / z, std::nextafter(sum / z, 0.0), std::nextafter(sum / z, 1.0)})
        if (u < 1) us.push_back(u);
    }
    for (const double u : us) {
      const int expected = draw_by_walking(logits, u);
      ASSERT_EQ(draw_token(logits.data(), V, u, &exps), expected) << "V " << V << " u " << u;
      ASSERT_EQ(draw_token(logits.data(), V, u), expected) << "V " << V << " u " << u;
      ++compared;
    }
    std::vector<float> changed = logits;  // a row other than the terms' is walked, not searched
    changed[1] = -kInf;
    EXPECT_FALSE(exps.holds(changed.data(), V));
    EXPECT_EQ(draw_token(changed.data(), V, 0.3, &exps), draw_by_walking(changed, 0.3));
    // Draws prepared for the row with banned tokens, in the model row's pass.
    const int best = static_cast<int>(std::max_element(logits.begin(), logits.end()) - logits.begin());
    std::vector<float> banned = logits;
    for (int v = 1; v < V; v += 3)
      if (v != best) banned[v] = -kInf;
    RowExps both;
    both.compute(logits.data(), V, banned.data());
    ASSERT_TRUE(both.holds(banned.data(), V));
    EXPECT_FALSE(both.holds(logits.data(), V));
    EXPECT_EQ(both.log_normalizer(), exps.log_normalizer());  // the model row's still
    for (const double u : us) {
      ASSERT_EQ(draw_token(banned.data(), V, u, &both), draw_by_walking(banned, u)) << "V " << V << " u " << u;
      ++compared;
    }
    banned[best] = -kInf;  // the largest banned: its terms are not the model's, so nothing is prepared
    both.compute(logits.data(), V, banned.data());
    EXPECT_FALSE(both.holds(banned.data(), V));
    EXPECT_EQ(draw_token(banned.data(), V, 0.6, &both), draw_by_walking(banned, 0.6));
  }
  EXPECT_GT(compared, 1400);
}

TEST(Sampling, LogSoftmaxIsNormalised) {
  std::vector<float> l = kLogits;
  log_softmax(l.data(), static_cast<int>(l.size()));
  double sum = 0;
  for (float x : l) sum += std::exp(static_cast<double>(x));
  EXPECT_NEAR(sum, 1.0, 1e-6);
  EXPECT_NEAR(l[0] - l[1], kLogits[0] - kLogits[1], 1e-6);
}

}  // namespace
}  // namespace heptapod
