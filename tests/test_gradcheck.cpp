// Finite-difference gradient checks in double precision for every op, every layer and the whole model.
// Each check defines a scalar loss L (a fixed random projection sum(out * R) of an op's output, or the model's
// loss per token), runs the op's backward pass for the analytic gradient, and compares it with central
// differences (L(x + h) - L(x - h)) / 2h for every element of every input and parameter (a fixed random
// subset of kMaxSamples elements for bigger tensors). Dropout masks are a pure function of (seed, stream,
// index), so the checks also hold with dropout on.
//
// Parameter gradients accumulate and the checks start them from non-zero values (the analytic gradient is
// the difference), activation gradients documented as assigned start from NaN, those documented as
// accumulated from non-zero values: the checks also enforce the gradient accumulation rule.
#include <gtest/gtest.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <numeric>
#include <optional>
#include <string>
#include <vector>

#include "heptapod/core/arena.h"
#include "heptapod/core/random.h"
#include "heptapod/kernels/cross_entropy.h"
#include "heptapod/kernels/embedding.h"
#include "heptapod/kernels/layer_norm.h"
#include "heptapod/kernels/softmax.h"
#include "heptapod/layers/attention.h"
#include "heptapod/layers/embedding.h"
#include "heptapod/layers/feed_forward.h"
#include "heptapod/layers/layer_norm.h"
#include "heptapod/layers/linear.h"
#include "heptapod/layers/relative_positions.h"
#include "heptapod/layers/sublayer.h"
#include "heptapod/model/batch.h"
#include "heptapod/model/encoder_heads.h"
#include "heptapod/model/initialize.h"
#include "heptapod/model/transformer.h"
#include "test_util.h"

namespace heptapod {
namespace {

using Vec = std::vector<double>;
using test::fill_uniform;

constexpr double kStep = 1e-6;           // h of the central difference
constexpr double kTolerance = 1e-6;      // on max |analytic - numeric| / max |numeric| per tensor
constexpr std::size_t kMaxSamples = 64;  // bigger tensors: this many elements, drawn at random
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

Vec uniform(std::size_t n, unsigned seed, double lo = -1.0, double hi = 1.0) {
  Vec v(n);
  fill_uniform(v, seed, lo, hi);
  return v;
}

double dot(const double* a, const double* b, std::size_t n) {
  double s = 0;
  for (std::size_t i = 0; i < n; ++i) s += a[i] * b[i];
  return s;
}

// One tensor to check: where its values live and the analytic gradient of the loss with respect to them.
struct Checked {
  std::string name;
  double* values;
  std::size_t n;
  Vec analytic;
};

// The analytic gradient held in grad, minus what the buffer held before backward (parameter gradients and
// accumulated activation gradients start non-zero).
Vec delta(const double* grad, const Vec& before) {
  Vec d(before.size());
  for (std::size_t i = 0; i < d.size(); ++i) d[i] = grad[i] - before[i];
  return d;
}

std::vector<std::size_t> sample(std::size_t n, std::uint64_t seed) {
  std::vector<std::size_t> idx(n);
  std::iota(idx.begin(), idx.end(), std::size_t{0});
  if (n <= kMaxSamples) return idx;
  Rng rng(seed);
  for (std::size_t i = 0; i < kMaxSamples; ++i) std::swap(idx[i], idx[i + rng.below(n - i)]);
  idx.resize(kMaxSamples);
  return idx;
}

// Compares every tensor's analytic gradient with central differences of loss(). The error of a tensor is
// max |analytic - numeric| / max(max |numeric|, floor), with floor a small fraction of the largest gradient
// in the whole check: a tensor whose exact gradient is zero (the k_proj bias: softmax ignores a shift shared
// by all keys) is then measured against the check's scale instead of its own rounding noise.
void gradcheck(std::vector<Checked>& tensors, const std::function<double()>& loss, double tolerance = kTolerance) {
  double global = 0;
  for (const Checked& t : tensors)
    for (double g : t.analytic) {
      ASSERT_FALSE(std::isnan(g)) << t.name << ": NaN in the analytic gradient";
      global = std::max(global, std::abs(g));
    }
  ASSERT_GT(global, 0.0) << "every gradient is zero: the check would prove nothing";
  const double floor = 1e-2 * global;
  // The analytic gradients came from the threaded code; the thousands of tiny forward passes of the
  // differences run on one thread, where forking would cost more than the work.
  struct OneThread {
    int saved = omp_get_max_threads();
    OneThread() { omp_set_num_threads(1); }
    ~OneThread() { omp_set_num_threads(saved); }
  } one_thread;
  std::uint64_t seed = 1;
  for (Checked& t : tensors) {
    ASSERT_EQ(t.analytic.size(), t.n) << t.name;
    double max_diff = 0, max_numeric = 0;
    std::size_t worst = 0;
    double worst_a = 0, worst_n = 0;
    for (std::size_t i : sample(t.n, ++seed)) {
      const double old = t.values[i];
      const double plus = old + kStep, minus = old - kStep;
      t.values[i] = plus;
      const double lp = loss();
      t.values[i] = minus;
      const double lm = loss();
      t.values[i] = old;
      const double numeric = (lp - lm) / (plus - minus);
      const double diff = std::abs(numeric - t.analytic[i]);
      if (diff > max_diff || std::isnan(diff)) {
        max_diff = std::isnan(diff) ? INFINITY : diff;
        worst = i;
        worst_a = t.analytic[i];
        worst_n = numeric;
      }
      max_numeric = std::max(max_numeric, std::abs(numeric));
    }
    const double err = max_diff / std::max(max_numeric, floor);
    EXPECT_LT(err, tolerance) << t.name << ": relative error " << err << ", worst element " << worst << " analytic "
                              << worst_a << " numeric " << worst_n << " (tensor scale " << max_numeric << ", floor "
                              << floor << ")";
  }
}

// -------------------------------------------------------------------------------------------- kernels

TEST(GradCheck, AttentionSoftmax) {
  const int Tq = 4, K = 5;
  const double scale = 0.5;
  for (bool causal : {false, true}) {
    SCOPED_TRACE(causal ? "causal" : "not causal");
    const std::size_t count = static_cast<std::size_t>(Tq) * K;
    Vec scores = uniform(count, 1, -2, 2);
    const Vec R = uniform(count, 2);
    auto loss = [&] {
      Vec p = scores;
      kernels::attention_softmax_forward(p.data(), Tq, K, causal, scale);
      return dot(p.data(), R.data(), count);
    };
    Vec probs = scores;
    kernels::attention_softmax_forward(probs.data(), Tq, K, causal, scale);
    Vec grad = R;  // dL/dprobs in, dL/dscores out
    kernels::attention_softmax_backward(probs.data(), grad.data(), Tq, K, scale);
    std::vector<Checked> t = {{"scores", scores.data(), count, grad}};
    gradcheck(t, loss);
  }
}

TEST(GradCheck, LayerNormKernel) {
  const int N = 5, C = 7;
  const std::size_t n = static_cast<std::size_t>(N) * C;
  Vec x = uniform(n, 3, -2, 3), gamma = uniform(C, 4, 0.5, 1.5), beta = uniform(C, 5, -0.5, 0.5);
  const Vec R = uniform(n, 6);
  auto loss = [&] {
    Vec y(n), mean(N), rstd(N);
    kernels::layer_norm_forward(x.data(), gamma.data(), beta.data(), y.data(), mean.data(), rstd.data(), N, C, 1e-5);
    return dot(y.data(), R.data(), n);
  };
  for (bool accumulate : {false, true}) {
    SCOPED_TRACE(accumulate ? "accumulate dx" : "assign dx");
    Vec y(n), mean(N), rstd(N);
    kernels::layer_norm_forward(x.data(), gamma.data(), beta.data(), y.data(), mean.data(), rstd.data(), N, C, 1e-5);
    const Vec dx0 = accumulate ? uniform(n, 7) : Vec(n, kNaN), dgamma0 = uniform(C, 8), dbeta0 = uniform(C, 9);
    Vec dx = dx0, dgamma = dgamma0, dbeta = dbeta0;
    kernels::layer_norm_backward(R.data(), x.data(), mean.data(), rstd.data(), gamma.data(), dx.data(), dgamma.data(),
                                 dbeta.data(), N, C, accumulate);
    std::vector<Checked> t = {{"x", x.data(), n, accumulate ? delta(dx.data(), dx0) : dx},
                              {"gamma", gamma.data(), static_cast<std::size_t>(C), delta(dgamma.data(), dgamma0)},
                              {"beta", beta.data(), static_cast<std::size_t>(C), delta(dbeta.data(), dbeta0)}};
    gradcheck(t, loss);
  }
}

TEST(GradCheck, EmbeddingKernelTableWithRepeatedTokens) {
  const int B = 2, L = 6, C = 5, V = 4;
  const std::vector<int> tokens = {1, 3, 1, 1, 0, 2, 3, 3, 1, 0, 0, 1};  // every id several times
  const std::size_t n = static_cast<std::size_t>(B) * L * C;
  Vec table = uniform(static_cast<std::size_t>(V) * C, 10);
  Vec pe(static_cast<std::size_t>(L) * C);
  kernels::sinusoid_table(L, C, kernels::SinusoidLayout::Interleaved, 0, pe.data());
  const Vec R = uniform(n, 11);
  const double scale = std::sqrt(double(C));
  const Sequences seq(std::vector<int>(B, L).data(), B);
  auto loss = [&] {
    Vec out(n);
    kernels::embedding_forward(tokens.data(), static_cast<long>(B) * L, seq.position.data(), table.data(), C, scale,
                               pe.data(), out.data());
    return dot(out.data(), R.data(), n);
  };
  const Vec dtable0 = uniform(table.size(), 12);
  Vec dtable = dtable0;
  kernels::embedding_backward(R.data(), tokens.data(), static_cast<long>(B) * L, C, scale, dtable.data());
  std::vector<Checked> t = {{"table", table.data(), table.size(), delta(dtable.data(), dtable0)}};
  gradcheck(t, loss);
}

TEST(GradCheck, CrossEntropyWithLabelSmoothing) {
  const int N = 5, V = 7;
  const std::vector<int> targets = {3, 0, 6, 3, 5};
  const double eps = 0.1, grad_scale = 1.0 / N;  // a loss per token, as the model uses it
  const std::size_t n = static_cast<std::size_t>(N) * V;
  Vec logits = uniform(n, 13, -3, 3);
  auto loss = [&] {
    return grad_scale * kernels::cross_entropy(logits.data(), targets.data(), N, V, eps, grad_scale,
                                               static_cast<double*>(nullptr), static_cast<double*>(nullptr))
                            .loss;
  };
  Vec dlogits(n, kNaN);
  kernels::cross_entropy(logits.data(), targets.data(), N, V, eps, grad_scale, dlogits.data(),
                         static_cast<double*>(nullptr));
  std::vector<Checked> t = {{"logits", logits.data(), n, dlogits}};
  gradcheck(t, loss);
}

// ------------------------------------------------------------------------------------------- linear

// A linear layer's parameters and gradient buffers, gradients pre-filled with non-zero values.
struct LinearParams {
  Vec w, b, dw, db, dw0, db0;
  Linear<double> layer(int out, int in) { return Linear<double>{w.data(), b.data(), dw.data(), db.data(), in, out}; }
  LinearParams(int out, int in, unsigned seed)
      : w(uniform(static_cast<std::size_t>(out) * in, seed, -0.6, 0.6)),
        b(uniform(out, seed + 1, -0.2, 0.2)),
        dw(uniform(w.size(), seed + 2)),
        db(uniform(out, seed + 3)),
        dw0(dw),
        db0(db) {}
  void restart() {  // gradients back to their pre-filled values, in place (the Linear views keep pointing here)
    std::copy(dw0.begin(), dw0.end(), dw.begin());
    std::copy(db0.begin(), db0.end(), db.begin());
  }
  void add_checks(std::vector<Checked>& t, const std::string& name) {
    t.push_back({name + ".w", w.data(), w.size(), delta(dw.data(), dw0)});
    t.push_back({name + ".b", b.data(), b.size(), delta(db.data(), db0)});
  }
};

TEST(GradCheck, Linear) {
  const int N = 5, in = 7, out = 6;
  for (bool accumulate : {false, true}) {
    SCOPED_TRACE(accumulate ? "accumulate dx" : "assign dx");
    LinearParams p(out, in, 20);
    const Linear<double> l = p.layer(out, in);
    Vec x = uniform(static_cast<std::size_t>(N) * in, 24);
    const Vec R = uniform(static_cast<std::size_t>(N) * out, 25);
    auto loss = [&] {
      Vec y(static_cast<std::size_t>(N) * out);
      linear_forward(l, x.data(), N, y.data());
      return dot(y.data(), R.data(), y.size());
    };
    const Vec dx0 = accumulate ? uniform(x.size(), 26) : Vec(x.size(), kNaN);
    Vec dx = dx0;
    linear_backward(l, R.data(), x.data(), N, dx.data(), accumulate);
    std::vector<Checked> t = {{"x", x.data(), x.size(), accumulate ? delta(dx.data(), dx0) : dx}};
    p.add_checks(t, "linear");
    gradcheck(t, loss);

    // dx == nullptr skips the input gradient; the parameter gradients are the same.
    LinearParams q(out, in, 20);
    linear_backward(q.layer(out, in), R.data(), x.data(), N, static_cast<double*>(nullptr), false);
    EXPECT_EQ(q.dw, p.dw);
    EXPECT_EQ(q.db, p.db);
  }
}

// ---------------------------------------------------------------------------------------- attention

constexpr int kC = 8, kHeads = 2, kF = 12;

struct AttentionParams {
  LinearParams q{kC, kC, 30}, k{kC, kC, 40}, v{kC, kC, 50}, o{kC, kC, 60};
  MultiHeadAttention<double> attn() {
    return {q.layer(kC, kC), k.layer(kC, kC), v.layer(kC, kC), o.layer(kC, kC), kHeads, {}, {}, 0, 0, {}, {}};
  }
  void restart() {
    for (LinearParams* l : {&q, &k, &v, &o}) l->restart();
  }
  void add_checks(std::vector<Checked>& t, const std::string& name) {
    q.add_checks(t, name + ".q_proj");
    k.add_checks(t, name + ".k_proj");
    v.add_checks(t, name + ".v_proj");
    o.add_checks(t, name + ".out_proj");
  }
};

void check_self_attention(bool causal, std::vector<int> lengths, float dropout,
                          AttentionProbabilities policy = AttentionProbabilities::Recompute) {
  const Sequences seq(lengths.data(), static_cast<int>(lengths.size()));
  const int N = seq.rows();
  AttentionParams p;
  const MultiHeadAttention<double> attn = p.attn();
  const AttentionShape shape(seq, seq, causal);
  const DropoutSite drop{dropout, 1234, 77};
  Vec x = uniform(static_cast<std::size_t>(N) * kC, 70);
  const Vec R = uniform(x.size(), 71);
  Arena arena;
  auto loss = [&] {
    arena.reset();
    AttentionSaved<double> saved;
    saved.policy = policy;
    Vec y(x.size());
    attention_forward(attn, x.data(), x.data(), shape, drop, arena, saved, y.data());
    return dot(y.data(), R.data(), y.size());
  };
  arena.reset();
  AttentionSaved<double> saved;
  saved.policy = policy;
  Vec y(x.size());
  attention_forward(attn, x.data(), x.data(), shape, drop, arena, saved, y.data());
  Vec dx(x.size(), kNaN);  // self-attention: dxq == dxkv, assigned by the Q projection, accumulated by K and V
  attention_backward(attn, R.data(), x.data(), x.data(), shape, drop, saved, arena, dx.data(), false, dx.data());
  std::vector<Checked> t = {{"x", x.data(), x.size(), dx}};
  p.add_checks(t, "self_attn");
  gradcheck(t, loss);
}

TEST(GradCheck, CausalSelfAttentionOfUnequalSentences) { check_self_attention(true, {5, 3, 1}, 0.0f); }
TEST(GradCheck, SelfAttentionWithEmptySentenceAndDropout) { check_self_attention(false, {5, 0, 2}, 0.3f); }
TEST(GradCheck, CausalSelfAttentionWithDropout) { check_self_attention(true, {4, 5}, 0.3f); }
// Sentences longer than a tile of query rows (64): the tiles, the keys a causal tile skips, and the
// probabilities kept or recomputed for the backward pass.
TEST(GradCheck, LongCausalSelfAttentionRecomputed) {
  check_self_attention(true, {150, 3, 70}, 0.2f, AttentionProbabilities::Recompute);
}
TEST(GradCheck, LongCausalSelfAttentionKept) { check_self_attention(true, {130, 65}, 0.0f, AttentionProbabilities::Keep); }
TEST(GradCheck, LongSelfAttentionRecomputed) {
  check_self_attention(false, {140, 0, 9}, 0.2f, AttentionProbabilities::Recompute);
}

void check_cross_attention(float dropout, AttentionProbabilities policy = AttentionProbabilities::Recompute,
                           std::vector<int> query_len = {4, 3, 1, 2}, std::vector<int> key_len = {6, 2, 1, 0}) {
  // A sentence with no source at all attends to nothing (context zero).
  const Sequences queries(query_len.data(), 4), keys(key_len.data(), 4);
  const int Nq = queries.rows(), Nk = keys.rows();
  AttentionParams p;
  const MultiHeadAttention<double> attn = p.attn();
  const AttentionShape shape(queries, keys, false);
  const DropoutSite drop{dropout, 99, 5};
  Vec xq = uniform(static_cast<std::size_t>(Nq) * kC, 80), xkv = uniform(static_cast<std::size_t>(Nk) * kC, 81);
  const Vec R = uniform(xq.size(), 82);
  Arena arena;
  auto loss = [&] {
    arena.reset();
    AttentionSaved<double> saved;
    saved.policy = policy;
    Vec y(xq.size());
    attention_forward(attn, xq.data(), xkv.data(), shape, drop, arena, saved, y.data());
    return dot(y.data(), R.data(), y.size());
  };
  for (bool accumulate_dxq : {false, true}) {
    SCOPED_TRACE(accumulate_dxq ? "accumulate dxq" : "assign dxq");
    p.restart();
    arena.reset();
    AttentionSaved<double> saved;
    saved.policy = policy;
    Vec y(xq.size());
    attention_forward(attn, xq.data(), xkv.data(), shape, drop, arena, saved, y.data());
    // dxkv is always accumulated (the encoder output feeds every decoder layer): pre-fill it.
    const Vec dxq0 = accumulate_dxq ? uniform(xq.size(), 83) : Vec(xq.size(), kNaN), dxkv0 = uniform(xkv.size(), 84);
    Vec dxq = dxq0, dxkv = dxkv0;
    attention_backward(attn, R.data(), xq.data(), xkv.data(), shape, drop, saved, arena, dxq.data(), accumulate_dxq,
                       dxkv.data());
    std::vector<Checked> t = {{"xq", xq.data(), xq.size(), accumulate_dxq ? delta(dxq.data(), dxq0) : dxq},
                              {"xkv", xkv.data(), xkv.size(), delta(dxkv.data(), dxkv0)}};
    p.add_checks(t, "cross_attn");
    gradcheck(t, loss);
  }
}

TEST(GradCheck, CrossAttention) { check_cross_attention(0.0f); }
TEST(GradCheck, CrossAttentionWithDropout) { check_cross_attention(0.3f); }
TEST(GradCheck, CrossAttentionKept) { check_cross_attention(0.3f, AttentionProbabilities::Keep); }
TEST(GradCheck, LongCrossAttentionRecomputed) {
  check_cross_attention(0.3f, AttentionProbabilities::Recompute, {100, 3, 66, 2}, {7, 90, 0, 5});
}

// A learned query-dependent term over the distance d = (K - Tq + i) - j between query i and key j, as
// Transformer-XL's position terms are: term(i, j) = q_i . table[h][d + kMaxDistance]. Its backward keeps each
// block's table gradient apart (blocks run concurrently), summed by table_gradient().
struct DistanceTerm final : ScoreTerm<double> {
  static constexpr int kMaxDistance = 8, kD = kC / kHeads;
  Vec table = uniform(static_cast<std::size_t>(kHeads) * 2 * kMaxDistance * kD, 90);  // (H, 2 * max, D)
  std::vector<Vec> block_grads;  // per (sentence, head): (2 * max, D)
  explicit DistanceTerm(int sentences) : block_grads(static_cast<std::size_t>(sentences) * kHeads) {}
  const double* row(int h, int d) const { return table.data() + (static_cast<long>(h) * 2 * kMaxDistance + d + kMaxDistance) * kD; }
  void add(int, int h, const double* q, int ldq, const double*, int, int lq, int lk, double* scores) const override {
    for (int i = 0; i < lq; ++i)
      for (int j = 0; j < lk; ++j) scores[i * lk + j] += dot(q + static_cast<long>(i) * ldq, row(h, lk - lq + i - j), kD);
  }
  void backward(int b, int h, const double* q, int ldq, const double*, int, const double* ds, int lq, int lk, double* dq,
                double*) override {
    Vec& g = block_grads[static_cast<std::size_t>(b) * kHeads + h];
    g.assign(static_cast<std::size_t>(2) * kMaxDistance * kD, 0.0);
    for (int i = 0; i < lq; ++i)
      for (int j = 0; j < lk; ++j) {
        const int d = lk - lq + i - j + kMaxDistance;
        for (int e = 0; e < kD; ++e) {
          dq[static_cast<long>(i) * ldq + e] += ds[i * lk + j] * row(h, d - kMaxDistance)[e];
          g[static_cast<std::size_t>(d) * kD + e] += ds[i * lk + j] * q[static_cast<long>(i) * ldq + e];
        }
      }
  }
  Vec table_gradient() const {
    Vec g(table.size(), 0.0);
    for (std::size_t bh = 0; bh < block_grads.size(); ++bh)
      for (std::size_t k = 0; k < block_grads[bh].size(); ++k) g[(bh % kHeads) * block_grads[bh].size() + k] += block_grads[bh][k];
    return g;
  }
};

// Finite differences of causal attention whose keys may begin before the queries (Transformer-XL's memory, a
// cache), with a score term: term(shape) gives the term for a forward pass (made anew where it reads
// parameters that the check perturbs); term_checks(checks) adds the term's own parameters' gradients after
// the backward pass.
template <typename Term, typename TermChecks>
void check_attention_with_term(const std::vector<int>& query_len, const std::vector<int>& key_len, float dropout,
                               unsigned seed, Term&& term, TermChecks&& term_checks) {
  const int B = static_cast<int>(query_len.size());
  const Sequences queries(query_len.data(), B), keys(key_len.data(), B);
  const int Nq = queries.rows(), Nk = keys.rows();
  AttentionParams p;
  const MultiHeadAttention<double> attn = p.attn();
  const AttentionShape shape(queries, keys, true);
  const DropoutSite drop{dropout, 7, 3};
  Vec xq = uniform(static_cast<std::size_t>(Nq) * kC, seed), xkv = uniform(static_cast<std::size_t>(Nk) * kC, seed + 1);
  const Vec R = uniform(xq.size(), seed + 2);
  Arena arena;
  auto loss = [&] {
    arena.reset();
    AttentionSaved<double> saved;
    Vec y(xq.size());
    attention_forward<double>(attn, xq.data(), xkv.data(), shape, drop, arena, saved, y.data(), OutputBias::Add, nullptr,
                              &term(shape));
    return dot(y.data(), R.data(), y.size());
  };
  arena.reset();
  AttentionSaved<double> saved;
  Vec y(xq.size());
  ScoreTerm<double>& forward_term = term(shape);
  attention_forward<double>(attn, xq.data(), xkv.data(), shape, drop, arena, saved, y.data(), OutputBias::Add, nullptr,
                            &forward_term);
  Vec dxq(xq.size(), kNaN), dxkv(xkv.size(), 0.0);
  attention_backward<double>(attn, R.data(), xq.data(), xkv.data(), shape, drop, saved, arena, dxq.data(), false,
                             dxkv.data(), BiasGrad::Compute, nullptr, &forward_term);
  std::vector<Checked> t = {{"xq", xq.data(), xq.size(), dxq}, {"xkv", xkv.data(), xkv.size(), dxkv}};
  term_checks(t);
  p.add_checks(t, "attn");
  gradcheck(t, loss);
}

// Keys before the queries: every query sees all of them and the keys up to its own position.
TEST(GradCheck, CausalAttentionWithKeysBeforeTheQueriesAndAScoreTerm) {
  DistanceTerm term(3);
  check_attention_with_term(
      {3, 2, 1}, {5, 2, 4}, 0.0f, 91, [&](const AttentionShape&) -> ScoreTerm<double>& { return term; },
      [&](std::vector<Checked>& t) {
        t.push_back({"term table", term.table.data(), term.table.size(), term.table_gradient()});
      });  // 2, 0 and 3 keys before the queries
}

// Transformer-XL's relative-position terms (layers/relative_positions.h), with keys before the queries (its
// memory) and without, and a clamp on the distances.
struct RelativeParams {
  Vec w_r = uniform(static_cast<std::size_t>(kC) * kC, 95), u = uniform(kC, 96), v = uniform(kC, 97);
  Vec dw_r = uniform(w_r.size(), 98), du = uniform(kC, 99), dv = uniform(kC, 100);  // accumulated into
  RelativePositionParams<double> params(int clamp) {
    return {w_r.data(), u.data(), v.data(), dw_r.data(), du.data(), dv.data(), clamp};
  }
};

// The relative shift gives each (query, key) pair exactly u . k_j + (q_i + v) . W_r R(min(p_i - j, clamp)),
// R the [sin | cos] encoding written out here, and leaves the keys a query cannot see alone.
TEST(RelativePositions, ShiftedProductsEqualThePerPairTerms) {
  constexpr int D = kC / kHeads;
  for (const int clamp : {0, 2}) {
    const std::vector<int> query_len = {3}, key_len = {5};  // 2 keys before the queries
    const Sequences queries(query_len.data(), 1), keys(key_len.data(), 1);
    const AttentionShape shape(queries, keys, true);
    RelativeParams p;
    const RelativePositionTerm<double> term(p.params(clamp), kC, kHeads, shape);
    const Vec q = uniform(3 * kC, 101), k = uniform(5 * kC, 102);
    for (int h = 0; h < kHeads; ++h) {
      Vec scores(15, 0.0);
      term.add(0, h, q.data() + h * D, kC, k.data() + h * D, kC, 3, 5, scores.data());
      for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 5; ++j) {
          const int p_i = 2 + i;
          double want = 0;
          if (j <= p_i) {
            const int d = clamp > 0 ? std::min(p_i - j, clamp) : p_i - j;
            Vec enc(kC);
            for (int f = 0; f < kC / 2; ++f) {
              const double angle = d / std::pow(10000.0, 2.0 * f / kC);
              enc[f] = std::sin(angle);
              enc[kC / 2 + f] = std::cos(angle);
            }
            for (int e = 0; e < D; ++e) {
              const int o = h * D + e;
              const double r = dot(p.w_r.data() + static_cast<long>(o) * kC, enc.data(), kC);
              want += p.u[o] * k[j * kC + o] + (q[i * kC + o] + p.v[o]) * r;
            }
          }
          EXPECT_NEAR(scores[i * 5 + j], want, 1e-12) << "clamp " << clamp << ", head " << h << ", (" << i << ", " << j << ")";
        }
    }
  }
}

void check_relative_attention(const std::vector<int>& query_len, const std::vector<int>& key_len, int clamp) {
  RelativeParams rel;
  std::optional<RelativePositionTerm<double>> term;
  Vec dw_r0, du0, dv0;
  check_attention_with_term(
      query_len, key_len, 0.2f, 103,
      [&](const AttentionShape& shape) -> ScoreTerm<double>& {
        dw_r0 = rel.dw_r, du0 = rel.du, dv0 = rel.dv;  // what the gradients accumulate onto
        return term.emplace(rel.params(clamp), kC, kHeads, shape);
      },
      [&](std::vector<Checked>& t) {
        term->finish_backward();
        t.push_back({"W_r", rel.w_r.data(), rel.w_r.size(), delta(rel.dw_r.data(), dw_r0)});
        t.push_back({"u", rel.u.data(), rel.u.size(), delta(rel.du.data(), du0)});
        t.push_back({"v", rel.v.data(), rel.v.size(), delta(rel.dv.data(), dv0)});
      });
}

TEST(GradCheck, RelativeAttentionWithMemory) { check_relative_attention({3, 2, 1}, {5, 2, 4}, 0); }
TEST(GradCheck, RelativeAttentionWithoutMemory) { check_relative_attention({4, 2}, {4, 2}, 0); }
TEST(GradCheck, RelativeAttentionClamped) { check_relative_attention({3, 2}, {6, 2}, 2); }

// The key offset means what a longer causal self-attention means: queries that are the last rows of their
// keys attend exactly as those rows do in causal self-attention over all the keys.
TEST(AttentionKeyOffset, EqualsTheLastRowsOfCausalSelfAttention) {
  const std::vector<int> all_len = {6, 3}, query_len = {2, 3};  // 4 and 0 positions before the queries
  const Sequences all(all_len.data(), 2), queries(query_len.data(), 2);
  AttentionParams p;
  const MultiHeadAttention<double> attn = p.attn();
  const Vec x = uniform(static_cast<std::size_t>(all.rows()) * kC, 94);  // (9, C) every position
  Vec xq;  // (5, C) the last rows of each sentence
  for (int b = 0; b < 2; ++b)
    for (int r = all.start[b + 1] - query_len[b]; r < all.start[b + 1]; ++r) xq.insert(xq.end(), &x[r * kC], &x[(r + 1) * kC]);
  Arena arena;
  AttentionSaved<double> saved;
  Vec y_all(x.size()), y_offset(xq.size());
  attention_forward(attn, x.data(), x.data(), AttentionShape(all, all, true), DropoutSite{}, arena, saved, y_all.data());
  const AttentionShape offset(queries, all, true);
  attention_forward(attn, xq.data(), x.data(), offset, DropoutSite{}, arena, saved, y_offset.data());
  for (int b = 0, k = 0; b < 2; ++b)
    for (int r = all.start[b + 1] - query_len[b]; r < all.start[b + 1]; ++r, ++k)
      for (int c = 0; c < kC; ++c) EXPECT_NEAR(y_offset[k * kC + c], y_all[r * kC + c], 1e-12) << "row " << r;
}

// ------------------------------------------------------------------------------------- feed-forward

struct FfnParams {
  LinearParams fc1{kF, kC, 90}, fc2{kC, kF, 95};
  FeedForward<double> ffn(Activation act = Activation::Relu) {
    return {fc1.layer(kF, kC), fc2.layer(kC, kF), act, {}};
  }
  void add_checks(std::vector<Checked>& t, const std::string& name) {
    fc1.add_checks(t, name + ".fc1");
    fc2.add_checks(t, name + ".fc2");
  }
};

void check_feed_forward(float dropout, bool accumulate, Activation act = Activation::Relu) {
  const int N = 7;
  FfnParams p;
  const FeedForward<double> ffn = p.ffn(act);
  const DropoutSite drop{dropout, 4321, 3};
  Vec x = uniform(static_cast<std::size_t>(N) * kC, 100);
  const Vec R = uniform(x.size(), 101);
  Arena arena;
  auto loss = [&] {
    arena.reset();
    FeedForwardSaved<double> saved;
    Vec y(x.size());
    feed_forward_forward(ffn, x.data(), N, drop, arena, saved, y.data());
    return dot(y.data(), R.data(), y.size());
  };
  arena.reset();
  FeedForwardSaved<double> saved;
  Vec y(x.size());
  feed_forward_forward(ffn, x.data(), N, drop, arena, saved, y.data());
  const Vec dx0 = accumulate ? uniform(x.size(), 102) : Vec(x.size(), kNaN);
  Vec dx = dx0;
  feed_forward_backward(ffn, R.data(), x.data(), N, drop, saved, arena, dx.data(), accumulate);
  std::vector<Checked> t = {{"x", x.data(), x.size(), accumulate ? delta(dx.data(), dx0) : dx}};
  p.add_checks(t, "ffn");
  gradcheck(t, loss);
}

TEST(GradCheck, FeedForward) { check_feed_forward(0.0f, false); }
TEST(GradCheck, FeedForwardWithDropoutAccumulatingDx) { check_feed_forward(0.3f, true); }
TEST(GradCheck, FeedForwardSilu) { check_feed_forward(0.0f, false, Activation::Silu); }
TEST(GradCheck, FeedForwardSiluWithDropoutAccumulatingDx) { check_feed_forward(0.3f, true, Activation::Silu); }
TEST(GradCheck, FeedForwardGelu) { check_feed_forward(0.0f, false, Activation::Gelu); }
TEST(GradCheck, FeedForwardGeluWithDropoutAccumulatingDx) { check_feed_forward(0.3f, true, Activation::Gelu); }
TEST(GradCheck, FeedForwardGeluTanh) { check_feed_forward(0.0f, false, Activation::GeluTanh); }
TEST(GradCheck, FeedForwardGeluTanhWithDropoutAccumulatingDx) { check_feed_forward(0.3f, true, Activation::GeluTanh); }

// ----------------------------------------------------------------------------------- layer norm layer

struct NormParams {
  Vec gamma = uniform(kC, 110, 0.5, 1.5), beta = uniform(kC, 111, -0.3, 0.3);
  Vec dgamma = uniform(kC, 112), dbeta = uniform(kC, 113), dgamma0 = dgamma, dbeta0 = dbeta;
  LayerNorm<double> ln() { return {gamma.data(), beta.data(), dgamma.data(), dbeta.data(), kC, 1e-5}; }
  void add_checks(std::vector<Checked>& t, const std::string& name) {
    t.push_back({name + ".gamma", gamma.data(), gamma.size(), delta(dgamma.data(), dgamma0)});
    t.push_back({name + ".beta", beta.data(), beta.size(), delta(dbeta.data(), dbeta0)});
  }
};

TEST(GradCheck, LayerNormLayer) {
  const int N = 6;
  NormParams p;
  const LayerNorm<double> ln = p.ln();
  Vec x = uniform(static_cast<std::size_t>(N) * kC, 114, -1, 2);
  const Vec R = uniform(x.size(), 115);
  Arena arena;
  auto loss = [&] {
    arena.reset();
    LayerNormSaved<double> saved;
    const double* y = layer_norm_forward(ln, x.data(), N, arena, saved);
    return dot(y, R.data(), x.size());
  };
  arena.reset();
  LayerNormSaved<double> saved;
  layer_norm_forward(ln, x.data(), N, arena, saved);
  Vec dx(x.size(), kNaN);
  layer_norm_backward(ln, R.data(), N, saved, dx.data(), false);
  std::vector<Checked> t = {{"x", x.data(), x.size(), dx}};
  p.add_checks(t, "norm");
  gradcheck(t, loss);
}

// ------------------------------------------------------------------------------------------ sublayer

enum class Inner { FeedForward, SelfAttention };

void check_sublayer(NormPosition pos, Inner inner, float residual_dropout, float inner_dropout) {
  const std::vector<int> lengths = {4, 2};
  const Sequences seq(lengths.data(), 2);
  const int N = seq.rows();
  NormParams np;
  FfnParams fp;
  AttentionParams ap;
  const LayerNorm<double> ln = np.ln();
  const FeedForward<double> ffn = fp.ffn();
  const MultiHeadAttention<double> attn = ap.attn();
  const AttentionShape shape(seq, seq, true);
  const DropoutSite res_drop{residual_dropout, 555, 1}, inner_drop{inner_dropout, 555, 2};
  Vec x = uniform(static_cast<std::size_t>(N) * kC, 120, -1, 2);
  const Vec R = uniform(x.size(), 121);
  Arena arena;
  SublayerSaved<double> sub;
  FeedForwardSaved<double> fsaved;
  AttentionSaved<double> asaved;
  auto f = [&](const double* in, double* out, OutputBias bias) {
    if (inner == Inner::FeedForward) {
      feed_forward_forward(ffn, in, N, inner_drop, arena, fsaved, out, bias);
    } else {
      attention_forward(attn, in, in, shape, inner_drop, arena, asaved, out, bias);
    }
  };
  // The inner sub-layer's last bias: the wrapper adds it (in the norm's pass when post-norm) and gives it its
  // gradient.
  const double* inner_bias = inner == Inner::FeedForward ? ffn.fc2.b : attn.out_proj.b;
  auto f_back = [&](const double* dout, double* din, bool accumulate) {
    if (inner == Inner::FeedForward) {
      feed_forward_backward(ffn, dout, sub.inner_input, N, inner_drop, fsaved, arena, din, accumulate,
                            BiasGrad::Done);
    } else {
      attention_backward(attn, dout, sub.inner_input, sub.inner_input, shape, inner_drop, asaved, arena, din,
                         accumulate, din, BiasGrad::Done);
    }
  };
  auto loss = [&] {
    arena.reset();
    const double* y = sublayer_forward(pos, ln, x.data(), N, res_drop, arena, sub, inner_bias, f);
    return dot(y, R.data(), x.size());
  };
  arena.reset();
  sublayer_forward(pos, ln, x.data(), N, res_drop, arena, sub, inner_bias, f);
  Vec dx(x.size(), kNaN);  // assigned
  double* inner_bias_grad = inner == Inner::FeedForward ? ffn.fc2.db : attn.out_proj.db;
  sublayer_backward(pos, ln, R.data(), N, res_drop, sub, arena, dx.data(), inner_bias_grad, f_back);
  std::vector<Checked> t = {{"x", x.data(), x.size(), dx}};
  np.add_checks(t, "norm");
  if (inner == Inner::FeedForward) {
    fp.add_checks(t, "ffn");
  } else {
    ap.add_checks(t, "self_attn");
  }
  gradcheck(t, loss);
}

TEST(GradCheck, PostNormSublayerAroundFeedForward) {
  check_sublayer(NormPosition::Post, Inner::FeedForward, 0.0f, 0.0f);
}
TEST(GradCheck, PreNormSublayerAroundFeedForward) { check_sublayer(NormPosition::Pre, Inner::FeedForward, 0.0f, 0.0f); }
TEST(GradCheck, PostNormSublayerAroundAttentionWithDropout) {
  check_sublayer(NormPosition::Post, Inner::SelfAttention, 0.3f, 0.3f);
}
TEST(GradCheck, PreNormSublayerAroundAttentionWithDropout) {
  check_sublayer(NormPosition::Pre, Inner::SelfAttention, 0.3f, 0.3f);
}
TEST(GradCheck, PostNormSublayerAroundFeedForwardWithDropout) {
  check_sublayer(NormPosition::Post, Inner::FeedForward, 0.3f, 0.3f);
}
TEST(GradCheck, PreNormSublayerAroundFeedForwardWithDropout) {
  check_sublayer(NormPosition::Pre, Inner::FeedForward, 0.3f, 0.3f);
}

// ---------------------------------------------------------------------------------- embedding layer

void check_embedding_layer(float dropout) {
  const int C = 6, V = 7;
  const std::vector<int> tokens = {3, 4, 3, 6, 0, 4, 4, 1, 3};
  const std::vector<int> lengths = {5, 4};
  const Sequences seq(lengths.data(), 2);
  const int L = seq.longest, N = seq.rows();
  Vec table = uniform(static_cast<std::size_t>(V) * C, 130);
  const Vec dtable0 = uniform(table.size(), 131);
  Vec dtable = dtable0;
  const Embedding<double> emb{table.data(), dtable.data(), C, std::sqrt(double(C))};
  Vec pe(static_cast<std::size_t>(L + 2) * C);
  kernels::sinusoid_table(L + 2, C, kernels::SinusoidLayout::Interleaved, 0, pe.data());
  const DropoutSite drop{dropout, 8, 9};
  const std::size_t n = static_cast<std::size_t>(N) * C;
  const Vec R = uniform(n, 132);
  Arena arena;
  auto loss = [&] {
    arena.reset();
    const double* x = embedding_forward(emb, tokens.data(), N, seq.position.data(), pe.data(), drop, arena);
    return dot(x, R.data(), n);
  };
  Vec dx = R;  // modified in place
  embedding_backward(emb, dx.data(), tokens.data(), N, drop);
  std::vector<Checked> t = {{"table", table.data(), table.size(), delta(dtable.data(), dtable0)}};
  gradcheck(t, loss);
}

TEST(GradCheck, EmbeddingLayer) { check_embedding_layer(0.0f); }
TEST(GradCheck, EmbeddingLayerWithDropout) { check_embedding_layer(0.3f); }

// ------------------------------------------------------------------------------------- whole model

ModelConfig tiny_config() {
  ModelConfig c;
  c.src_vocab_size = c.tgt_vocab_size = 11;
  c.d_model = 8;
  c.n_heads = 2;
  c.d_ff = 12;
  c.encoder_layers = 2;
  c.decoder_layers = 2;
  c.dropout = c.attention_dropout = c.activation_dropout = c.embedding_dropout = 0.0f;
  return c;
}

// Unequal lengths on both sides, a source of length 1, repeated tokens, ids shared by source and target; a
// decoder-only model reads the targets alone.
Batch tiny_batch(const ModelConfig& c) {
  if (!c.has_decoder()) {  // an encoder's: unequal lengths, both token types, masked positions in every row
    Batch b;
    b.B = 3;
    b.S = 5;
    b.src = {1, 4, 3, 6, 7, 1, 8, 0, 0, 0, 1, 3, 10, 3, 5};  // 3: the mask token
    b.src_len = {5, 2, 5};
    b.src_types = {0, 0, 1, 1, 1, 0, 1, 0, 0, 0, 0, 0, 0, 1, 1};
    b.mlm_targets = {-1, 5, 9, 6, -1, -1, 8, -1, -1, -1, -1, 4, 10, 7, -1};  // one kept (6), one replaced (10)
    b.tgt_len = {0, 0, 0};
    if (c.token_types == 0) b.src_types.clear();
    if (c.labels > 0) {  // a classifier's: a class per sentence, or 0/1 per class
      b.mlm_targets.clear();
      b.labels = c.multi_label ? std::vector<int>{1, 0, 1, 0, 0, 1, 1, 1, 0} : std::vector<int>{2, 0, 2};
    }
    validate_batch(b, c);
    return b;
  }
  const std::vector<std::vector<int>> targets = {{4, 5}, {6, 7, 8, 9, 10}, {3}};
  if (!c.has_encoder()) return make_batch({{}, {}, {}}, targets, c);
  return make_batch({{3, 4, 5, 6, 7}, {8}, {9, 10, 3, 3}}, targets, c);
}

void check_model(const ModelConfig& config, bool dropout) {
  Transformer<double> model(config);
  ParameterStore<double>& params = model.parameters();
  initialize_parameters(params, config, 2024);
  // Perturb everything so layer-norm gains, biases and zero-initialised parameters are not special.
  Rng rng(7);
  for (std::size_t i = 0; i < params.size(); ++i) params.values()[i] += 0.1 * (2 * rng.uniform() - 1);
  const Batch batch = tiny_batch(config);
  StepOptions options;
  options.training = dropout;
  options.seed = 31337;
  options.label_smoothing = 0.1f;
  Arena arena;

  arena.reset();
  params.zero_grads();
  const LossTotals totals = model.forward_backward(batch, options, arena);
  ASSERT_EQ(totals.tokens, batch.target_tokens());
  const Vec grads(params.grads(), params.grads() + params.size());

  auto loss = [&] {
    arena.reset();
    // The loss with dropout needs the training forward pass; forward_backward's gradients are ignored here.
    const LossTotals t = dropout ? model.forward_backward(batch, options, arena) : model.evaluate(batch, 0.1f, arena);
    return t.loss / static_cast<double>(t.tokens);
  };
  if (!dropout) {
    EXPECT_NEAR(loss(), totals.loss / totals.tokens, 1e-14) << "evaluate and forward_backward disagree";
  }

  std::vector<Checked> t;
  for (std::size_t i = 0; i < params.specs().size(); ++i) {
    const ParamSpec& spec = params.specs()[i];
    if (spec.frozen) continue;  // a LoRA model's base: no gradient
    const std::size_t off = params.offset(i), n = static_cast<std::size_t>(spec.numel());
    t.push_back({spec.name, params.values() + off, n, Vec(grads.begin() + off, grads.begin() + off + n)});
  }
  gradcheck(t, loss);

  // The gradient is divided by grad_normalizer when one is given (an update's tokens over micro-batches), and
  // parameter gradients accumulate: two micro-batches normalised by twice the tokens add up to the gradient.
  StepOptions halved = options;
  halved.grad_normalizer = 2.0 * static_cast<double>(batch.target_tokens());
  params.zero_grads();
  for (int micro_batch = 0; micro_batch < 2; ++micro_batch) {
    arena.reset();
    model.forward_backward(batch, halved, arena);
  }
  double worst = 0, scale = 0;
  for (std::size_t i = params.trained_offset(); i < params.size(); ++i) {
    worst = std::max(worst, std::abs(params.grads()[i] - grads[i]));
    scale = std::max(scale, std::abs(grads[i]));
  }
  EXPECT_LT(worst, 1e-12 * scale) << "two micro-batches with grad_normalizer = 2 * tokens";
}

// LoRA adapters (model/lora_config.h) over a frozen base: every adapter's gradient, on each kind of model and
// every target (a classifier's new head trains beside them).
ModelConfig with_adapters(ModelConfig c, std::vector<std::string> targets) {
  c.lora.rank = 2;
  c.lora.alpha = 3;
  c.lora.targets = std::move(targets);
  return c;
}

TEST(GradCheck, ModelLoraEncoderDecoderEveryTarget) {
  check_model(with_adapters(tiny_config(), {"q", "k", "v", "o", "xq", "xk", "xv", "xo", "ffn"}), false);
}

TEST(GradCheck, ModelLoraDecoderOnlyGatedWithDropout) {
  ModelConfig c = one_stack_config(tiny_config(), Architecture::DecoderOnly, 11);
  c.norm = NormPosition::Pre;
  c.gated_ffn = true;
  c.activation = Activation::Silu;
  c.dropout = c.attention_dropout = c.activation_dropout = 0.2f;
  c = with_adapters(c, {"q", "v", "ffn"});
  c.lora.dropout = 0.3f;
  check_model(c, true);
}

TEST(GradCheck, ModelPostNormTiedAll) {
  ModelConfig c = tiny_config();
  c.norm = NormPosition::Post;
  c.tie_embeddings = EmbeddingTying::All;
  check_model(c, false);
}

TEST(GradCheck, ModelPreNormUntiedWithOutputBias) {
  ModelConfig c = tiny_config();
  c.norm = NormPosition::Pre;
  c.tie_embeddings = EmbeddingTying::None;
  c.output_bias = true;
  check_model(c, false);
}

TEST(GradCheck, ModelPostNormFinalNormTiedTargetOutput) {
  ModelConfig c = tiny_config();
  c.norm = NormPosition::Post;
  c.final_norm = true;
  c.tie_embeddings = EmbeddingTying::TargetOutput;
  check_model(c, false);
}

TEST(GradCheck, ModelPostNormTiedAllWithDropout) {
  ModelConfig c = tiny_config();
  c.norm = NormPosition::Post;
  c.tie_embeddings = EmbeddingTying::All;
  c.dropout = c.attention_dropout = c.activation_dropout = c.embedding_dropout = 0.3f;
  check_model(c, true);
}

TEST(GradCheck, ModelPreNormTiedAllWithDropoutAndOutputBias) {
  ModelConfig c = tiny_config();
  c.norm = NormPosition::Pre;
  c.tie_embeddings = EmbeddingTying::All;
  c.output_bias = true;
  c.dropout = c.attention_dropout = c.activation_dropout = c.embedding_dropout = 0.2f;
  check_model(c, true);
}

// Decoder-only models: the causal stack alone (no cross-attention) and its output layer.
TEST(GradCheck, ModelDecoderOnlyPostNormTiedToOutput) {
  const ModelConfig c = one_stack_config(tiny_config(), Architecture::DecoderOnly, 11);
  ASSERT_EQ(c.tie_embeddings, EmbeddingTying::TargetOutput);
  check_model(c, false);
}

TEST(GradCheck, ModelDecoderOnlyPreNormUntiedWithOutputBiasAndDropout) {
  ModelConfig c = tiny_config();
  c.norm = NormPosition::Pre;
  c.tie_embeddings = EmbeddingTying::None;
  c.output_bias = true;
  c.dropout = c.attention_dropout = c.activation_dropout = c.embedding_dropout = 0.2f;
  check_model(one_stack_config(c, Architecture::DecoderOnly, 11), true);
}

// Learned positions (GPT-2, BERT): a table per stack, its rows from position_offset on.
TEST(GradCheck, ModelDecoderOnlyLearnedPositionsUnscaledWithDropout) {
  ModelConfig c = tiny_config();
  c.norm = NormPosition::Pre;
  c.scale_embeddings = false;
  c.learned_positions = 6;  // the longest target: 5 tokens after the start token
  c.dropout = c.attention_dropout = c.activation_dropout = c.embedding_dropout = 0.2f;
  check_model(one_stack_config(c, Architecture::DecoderOnly, 11), true);
}

// Transformer-XL's relative positions in a decoder-only model: W_r per layer, u and v shared by the layers or
// per layer, distances clamped or not.
TEST(GradCheck, ModelDecoderOnlyRelativePositionsSharedBiases) {
  ModelConfig c = tiny_config();
  c.norm = NormPosition::Pre;
  c.relative_positions = true;
  check_model(one_stack_config(c, Architecture::DecoderOnly, 11), false);
}

TEST(GradCheck, ModelDecoderOnlyRelativePositionsUntiedClampedWithDropout) {
  ModelConfig c = tiny_config();
  c.relative_positions = true;
  c.untie_relative = true;
  c.clamp_length = 2;
  c.dropout = c.attention_dropout = c.activation_dropout = c.embedding_dropout = 0.2f;
  check_model(one_stack_config(c, Architecture::DecoderOnly, 11), true);
}

// Encoder-only models (BERT): token types, the embedding norm, learned positions and the masked-LM head
// (transform, activation, norm, the embedding table as the output layer, a bias) over the masked positions.
ModelConfig tiny_encoder(NormPosition norm, bool types, bool embedding_norm, Activation activation) {
  ModelConfig c = tiny_config();
  c.norm = norm;
  c.activation = activation;
  c.learned_positions = 5;
  c.scale_embeddings = false;
  c = one_stack_config(c, Architecture::EncoderOnly, 11);
  c.token_types = types ? 2 : 0;
  c.embedding_norm = embedding_norm;
  c.mlm_head = true;
  c.mask_id = 3;
  return c;
}

TEST(GradCheck, ModelEncoderOnlyPostNormWithTypesEmbeddingNormAndGelu) {
  check_model(tiny_encoder(NormPosition::Post, true, true, Activation::Gelu), false);
}

TEST(GradCheck, ModelEncoderOnlyPreNormWithDropout) {
  ModelConfig c = tiny_encoder(NormPosition::Pre, false, false, Activation::Relu);
  c.dropout = c.attention_dropout = c.activation_dropout = c.embedding_dropout = 0.2f;
  check_model(c, true);
}

TEST(GradCheck, ModelEncoderOnlyTypesAndEmbeddingNormWithDropout) {
  ModelConfig c = tiny_encoder(NormPosition::Post, true, true, Activation::Silu);
  c.dropout = c.attention_dropout = c.activation_dropout = c.embedding_dropout = 0.2f;
  check_model(c, true);
}

// Encoder-only classifiers: mean pooling, BERT's [CLS] pooler, one class or several per sentence.
ModelConfig tiny_classifier(Pooling pooling, bool multi_label) {
  ModelConfig c = tiny_encoder(NormPosition::Post, true, true, Activation::Gelu);
  c.mlm_head = false;
  c.mask_id = -1;
  c.labels = 3;
  c.pooling = pooling;
  c.multi_label = multi_label;
  return c;
}

TEST(GradCheck, ModelLoraClassifierWithNewHead) {
  check_model(with_adapters(tiny_classifier(Pooling::Cls, false), {"q", "k", "o"}), false);
}

TEST(GradCheck, ModelLoraMaskedLm) {
  check_model(with_adapters(tiny_encoder(NormPosition::Pre, true, false, Activation::Relu), {"v", "ffn"}), false);
}

TEST(GradCheck, ModelClassifierMeanPooling) { check_model(tiny_classifier(Pooling::Mean, false), false); }

TEST(GradCheck, ModelClassifierClsPoolerWithDropout) {
  ModelConfig c = tiny_classifier(Pooling::Cls, false);
  c.dropout = c.attention_dropout = c.activation_dropout = c.embedding_dropout = 0.2f;
  check_model(c, true);
}

TEST(GradCheck, ModelMultiLabelClassifier) { check_model(tiny_classifier(Pooling::Cls, true), false); }

// The multi-label loss against its definition, -(y log s(x) + (1 - y) log(1 - s(x))), at large logits too.
TEST(GradCheck, BinaryCrossEntropyMatchesItsDefinition) {
  const std::vector<double> logits = {0.3, -2.0, 40.0, -40.0, 0.0, 5.5};
  const std::vector<int> targets = {1, 0, 0, 1, 1, 1};
  std::vector<double> d(logits.size());
  const LossTotals t = binary_cross_entropy(logits.data(), targets.data(), 2, 3, 0.5, d.data());
  double want = 0;
  int right = 0;
  for (int b = 0; b < 2; ++b) {
    bool all = true;
    for (int l = 0; l < 3; ++l) {
      const std::size_t i = static_cast<std::size_t>(b) * 3 + l;
      const long double e = std::exp(-static_cast<long double>(logits[i]));
      const long double s = 1 / (1 + e), not_s = e / (1 + e);  // 1 - s without the cancellation
      want -= static_cast<double>(std::log(targets[i] ? s : not_s));
      EXPECT_NEAR(d[i], 0.5 * static_cast<double>(s - targets[i]), 1e-15) << i;
      all = all && ((logits[i] > 0) == (targets[i] == 1));
    }
    right += all ? 1 : 0;
  }
  EXPECT_NEAR(t.loss, want, 1e-9 * want);
  EXPECT_EQ(t.tokens, 2);
  EXPECT_EQ(t.correct, right);
}

// The LLaMA family's pieces: RMSNorm, rotary positions under each scaling, the gated feed-forward network,
// grouped-query attention, projections without biases or with q/k/v biases alone, per-head q/k norms, an
// explicit head size, an untied output layer; in a decoder-only model and in every other kind.
ModelConfig llama_shaped(RopeScaling scaling) {
  ModelConfig c = tiny_config();  // d_model 8, 2 heads
  c.norm = NormPosition::Pre;
  c.norm_type = NormType::Rms;
  c.scale_embeddings = false;
  c.n_heads = 4;
  c.kv_heads = 2;
  c.head_dim = 4;  // queries 16 wide from d_model 8
  c.gated_ffn = true;
  c.activation = Activation::Silu;
  c.attention_qkv_bias = c.attention_out_bias = c.ffn_bias = false;
  c.rotary = true;
  c.rope.theta = 50.0;
  c.rope.scaling = scaling;
  c.rope.factor = 2.0;
  c.rope.original_positions = 3;  // shorter than the batch's sequences: dynamic and llama3 scaling in force
  c.rope.low_freq_factor = 1.0;
  c.rope.high_freq_factor = 2.0;
  c.tie_embeddings = EmbeddingTying::None;
  return c;
}

TEST(GradCheck, ModelLlamaShapedDecoderOnly) {
  for (RopeScaling scaling : {RopeScaling::None, RopeScaling::Linear, RopeScaling::Dynamic, RopeScaling::Llama3}) {
    SCOPED_TRACE(rope_scaling_name(scaling));
    check_model(one_stack_config(llama_shaped(scaling), Architecture::DecoderOnly, 11), false);
  }
}

TEST(GradCheck, ModelQwen2ShapedMultiQueryWithQkvBiasesTiedAndDropout) {
  ModelConfig c = llama_shaped(RopeScaling::None);
  c.kv_heads = 1;
  c.attention_qkv_bias = true;
  c.tie_embeddings = EmbeddingTying::TargetOutput;
  c.dropout = c.attention_dropout = c.activation_dropout = c.embedding_dropout = 0.2f;
  check_model(one_stack_config(c, Architecture::DecoderOnly, 11), true);
}

TEST(GradCheck, ModelQwen3ShapedQkNormsHeadSizePartialRotaryAndGeglu) {
  ModelConfig c = llama_shaped(RopeScaling::Llama3);
  c.head_dim = 6;  // 4 heads of 6: queries 24 wide from d_model 8
  c.rope.dims = 4;
  c.qk_norm = true;
  c.activation = Activation::GeluTanh;
  check_model(one_stack_config(c, Architecture::DecoderOnly, 11), false);
}

TEST(GradCheck, ModelEncoderDecoderWithTheLlamaPieces) {
  ModelConfig c = llama_shaped(RopeScaling::None);
  c.ffn_bias = true;
  c.tie_embeddings = EmbeddingTying::All;
  check_model(c, false);
}

TEST(GradCheck, ModelEncoderOnlyWithTheLlamaPieces) {
  ModelConfig c = llama_shaped(RopeScaling::Linear);
  c = one_stack_config(c, Architecture::EncoderOnly, 11);
  c.mlm_head = true;
  c.mask_id = 3;
  check_model(c, false);
}

TEST(GradCheck, ModelLearnedPositionsFromAnOffsetInBothStacks) {
  ModelConfig c = tiny_config();
  c.learned_positions = 9;
  c.position_offset = 3;  // rows 0-2 are never read: their gradient is zero
  c.tie_embeddings = EmbeddingTying::None;
  check_model(c, false);
  const auto specs = parameter_layout(c);
  EXPECT_EQ(std::count_if(specs.begin(), specs.end(), [](const ParamSpec& s) { return s.name.find("/positions/") != std::string::npos; }), 2);
}

TEST(LearnedPositions, ASequencePastTheTableIsRefusedByName) {
  ModelConfig c = tiny_config();
  c.learned_positions = 4;
  Transformer<double> model(c);
  initialize_parameters(model.parameters(), c, 1);
  Arena arena;
  try {
    model.evaluate(tiny_batch(c), 0.0f, arena);
    FAIL() << "a batch of 6 target positions ran on 4 learned positions";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("longer than the model's learned positions (4)"), std::string::npos) << e.what();
  }
}

// T5's pieces: each stack's bucketed relative position bias (one table whose gradient sums the layers that
// share it; 4 buckets up to distance 4, so the 5-token sentences reach the log-spaced ones), unscaled
// attention, RMS norms, a gated tanh-GELU network, no biases, and the decoder output times d_model^-0.5 before
// the tied output layer, or an output layer of its own beside shared embeddings.
ModelConfig t5_like(EmbeddingTying tying) {
  ModelConfig c = tiny_config();
  c.norm = NormPosition::Pre;
  c.norm_type = NormType::Rms;
  c.gated_ffn = true;
  c.activation = Activation::GeluTanh;
  c.attention_qkv_bias = c.attention_out_bias = c.ffn_bias = false;
  c.scale_embeddings = false;
  c.relative_buckets = 4;
  c.relative_max_distance = 4;
  c.scale_attention = false;
  c.tie_embeddings = tying;
  c.scale_output = tying == EmbeddingTying::All;
  c.head_dim = 3;
  return c;
}

TEST(GradCheck, ModelT5TiedScaledOutput) { check_model(t5_like(EmbeddingTying::All), false); }

TEST(GradCheck, ModelT5SharedEmbeddingsUntiedOutputWithDropout) {
  ModelConfig c = t5_like(EmbeddingTying::Embeddings);
  c.dropout = c.attention_dropout = c.activation_dropout = c.embedding_dropout = 0.3f;
  check_model(c, true);
}

// T5's dropout after each stack's final norm (final_norm_dropout, as converted T5 models train): the backward
// pass applies the forward pass's mask, before the tied output's scale.
TEST(GradCheck, ModelT5WithFinalNormDropoutTiedScaledOutput) {
  ModelConfig c = t5_like(EmbeddingTying::All);
  c.dropout = c.attention_dropout = c.activation_dropout = c.embedding_dropout = 0.3f;
  c.final_norm_dropout = true;
  check_model(c, true);
}

}  // namespace
}  // namespace heptapod
