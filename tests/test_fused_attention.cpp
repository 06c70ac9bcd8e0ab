// Attention with its probabilities recomputed for the backward pass (AttentionProbabilities::Recompute, the
// fused path: nothing of the scores' size outlives a tile) makes exactly the bytes of attention that keeps them
// (Keep): outputs, input gradients and every parameter gradient, on several threads, for causal and
// bidirectional self-attention, grouped-query heads, keys before the queries, cross-attention with an empty
// source, dropout, and a score term (Transformer-XL's relative positions). Sentences are longer than a tile of
// query rows, so the tiles and the keys a causal tile skips take part. The finite-difference checks of both
// policies are in test_gradcheck.cpp; this file adds the equality and the memory the recomputation saves.
#include <gtest/gtest.h>
#include <omp.h>

#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "heptapod/core/arena.h"
#include "heptapod/layers/attention.h"
#include "heptapod/layers/relative_positions.h"
#include "test_util.h"

namespace heptapod {
namespace {

using Vec = std::vector<float>;

Vec uniform(std::size_t n, unsigned seed, float scale = 1.0f) {
  Vec v(n);
  test::fill_uniform(v, seed, -scale, scale);
  return v;
}

// One projection's weights, bias and gradient buffers.
struct Projection {
  Vec w, b, dw, db;
  Projection(int out, int in, unsigned seed)
      : w(uniform(static_cast<std::size_t>(out) * in, seed, 0.5f)),
        b(uniform(out, seed + 1, 0.1f)),
        dw(w.size(), 0.0f),
        db(b.size(), 0.0f) {}
  Linear<float> layer(int out, int in) { return Linear<float>{w.data(), b.data(), dw.data(), db.data(), in, out}; }
};

// An attention layer of `heads` query heads over kv_heads key/value heads, head_dim wide, on d_model C.
struct Layer {
  int C, heads, kv_heads, D;
  Projection q, k, v, o;
  Layer(int C_, int heads_, int kv_heads_, int D_)
      : C(C_), heads(heads_), kv_heads(kv_heads_), D(D_),
        q(heads_ * D_, C_, 10), k(kv_heads_ * D_, C_, 20), v(kv_heads_ * D_, C_, 30), o(C_, heads_ * D_, 40) {}
  MultiHeadAttention<float> attn() {
    MultiHeadAttention<float> a;
    a.q_proj = q.layer(heads * D, C);
    a.k_proj = k.layer(kv_heads * D, C);
    a.v_proj = v.layer(kv_heads * D, C);
    a.out_proj = o.layer(C, heads * D);
    a.heads = heads;
    a.kv_heads = kv_heads;
    a.head_dim = D;
    return a;
  }
  // Every gradient buffer in turn.
  std::vector<Vec*> grads() { return {&q.dw, &q.db, &k.dw, &k.db, &v.dw, &v.db, &o.dw, &o.db}; }
  void zero_grads() {
    for (Vec* g : grads()) std::fill(g->begin(), g->end(), 0.0f);
  }
};

// What one forward and backward pass made: the output, the input gradients, the parameter gradients, and the
// arena's size after it (1.25 times its high-water mark).
struct Pass {
  Vec y, dxq, dxkv;
  std::vector<Vec> grads;
  std::size_t arena_bytes = 0;
};

struct Case {
  std::vector<int> query_len, key_len;
  bool self, causal;
  int heads, kv_heads;
  float dropout;
  bool relative;  // Transformer-XL's score term
};

Pass run(const Case& c, AttentionProbabilities policy) {
  const int C = 32, D = 8;
  Layer layer(C, c.heads, c.kv_heads, D);
  const MultiHeadAttention<float> attn = layer.attn();
  const Sequences queries(c.query_len.data(), static_cast<int>(c.query_len.size()));
  const Sequences keys(c.key_len.data(), static_cast<int>(c.key_len.size()));
  const AttentionShape shape(queries, c.self ? queries : keys, c.causal);
  const DropoutSite drop{c.dropout, 77, 3};
  const Vec xq = uniform(static_cast<std::size_t>(queries.rows()) * C, 50);
  const Vec xkv = c.self ? xq : uniform(static_cast<std::size_t>(keys.rows()) * C, 51);
  const Vec dy = uniform(xq.size(), 52);

  // Transformer-XL's terms (d_model divisible by the heads: one head per 8 columns).
  const Vec w_r = uniform(static_cast<std::size_t>(C) * C, 60, 0.3f), u = uniform(C, 61, 0.3f), v = uniform(C, 62, 0.3f);
  Vec dw_r(w_r.size(), 0.0f), du(C, 0.0f), dv(C, 0.0f);
  std::optional<RelativePositionTerm<float>> term;
  if (c.relative)
    term.emplace(RelativePositionParams<float>{w_r.data(), u.data(), v.data(), dw_r.data(), du.data(), dv.data(), 0},
                 C, c.heads, shape);
  ScoreTerm<float>* score_term = term ? &*term : nullptr;

  Arena arena;
  AttentionSaved<float> saved;
  saved.policy = policy;
  Pass out;
  out.y.assign(xq.size(), 0.0f);
  attention_forward<float>(attn, xq.data(), c.self ? xq.data() : xkv.data(), shape, drop, arena, saved, out.y.data(),
                    OutputBias::Add, nullptr, score_term);
  out.dxq.assign(xq.size(), 0.0f);
  out.dxkv.assign(xkv.size(), 0.0f);
  attention_backward<float>(attn, dy.data(), xq.data(), c.self ? xq.data() : xkv.data(), shape, drop, saved, arena,
                     out.dxq.data(), false, c.self ? out.dxq.data() : out.dxkv.data(), BiasGrad::Compute, nullptr,
                     score_term);
  if (term) term->finish_backward();
  for (Vec* g : layer.grads()) out.grads.push_back(*g);
  for (Vec* g : {&dw_r, &du, &dv}) out.grads.push_back(*g);
  arena.reset();  // from an empty start: its one block is then the pass's high-water mark plus a quarter
  out.arena_bytes = arena.capacity();
  return out;
}

void expect_same_bytes(const Vec& a, const Vec& b, const std::string& what) {
  ASSERT_EQ(a.size(), b.size()) << what;
  for (std::size_t i = 0; i < a.size(); ++i) {
    ASSERT_FALSE(std::isnan(a[i])) << what << " holds NaN at " << i;
    ASSERT_EQ(std::memcmp(&a[i], &b[i], sizeof(float)), 0) << what << " differs at " << i << ": " << a[i] << " kept, "
                                                           << b[i] << " recomputed";
  }
}

void expect_recomputed_equals_kept(const Case& c) {
  const Pass kept = run(c, AttentionProbabilities::Keep), remade = run(c, AttentionProbabilities::Recompute);
  expect_same_bytes(kept.y, remade.y, "the output");
  expect_same_bytes(kept.dxq, remade.dxq, "dxq");
  expect_same_bytes(kept.dxkv, remade.dxkv, "dxkv");
  for (std::size_t g = 0; g < kept.grads.size(); ++g)
    expect_same_bytes(kept.grads[g], remade.grads[g], "parameter gradient " + std::to_string(g));
  // The kept probabilities (and their dropped copy) are the difference in memory.
  long scores = 0;
  for (std::size_t b = 0; b < c.query_len.size(); ++b)
    scores += static_cast<long>(c.query_len[b]) * (c.self ? c.query_len[b] : c.key_len[b]);
  const long kept_bytes = scores * c.heads * static_cast<long>(sizeof(float)) * (c.dropout > 0 ? 2 : 1);
  EXPECT_GE(static_cast<long>(kept.arena_bytes) - static_cast<long>(remade.arena_bytes), kept_bytes);
}

class RecomputedAttention : public testing::Test {
 protected:
  void SetUp() override { omp_set_num_threads(2); }
  void TearDown() override { omp_set_num_threads(threads_); }
  int threads_ = omp_get_max_threads();
};

TEST_F(RecomputedAttention, CausalSelfAttentionWithDropoutEqualsKept) {
  expect_recomputed_equals_kept({{200, 65, 7, 64}, {}, true, true, 4, 4, 0.1f, false});
}

TEST_F(RecomputedAttention, BidirectionalGroupedQueryAttentionEqualsKept) {
  expect_recomputed_equals_kept({{130, 1, 70}, {}, true, false, 4, 2, 0.0f, false});
}

TEST_F(RecomputedAttention, CausalWithKeysBeforeTheQueriesEqualsKept) {
  // The queries are the last rows of longer key runs (a cache, a memory): every query sees the keys before it.
  expect_recomputed_equals_kept({{100, 3, 70}, {180, 3, 71}, false, true, 4, 1, 0.2f, false});
}

TEST_F(RecomputedAttention, CrossAttentionWithAnEmptySourceEqualsKept) {
  expect_recomputed_equals_kept({{90, 66, 5}, {150, 0, 2}, false, false, 4, 4, 0.1f, false});
}

TEST_F(RecomputedAttention, RelativePositionTermEqualsKept) {
  expect_recomputed_equals_kept({{80, 5}, {144, 9}, false, true, 4, 4, 0.1f, true});
}

// A query without any key to attend to (an empty source) gets a zero context, not NaN, in a long tile too.
TEST_F(RecomputedAttention, AQueryWithoutKeysGetsZeros) {
  const Case c{{70}, {0}, false, false, 4, 4, 0.0f, false};
  const Pass p = run(c, AttentionProbabilities::Recompute);
  Layer layer(32, 4, 4, 8);
  for (int r = 0; r < 70; ++r)
    for (int j = 0; j < 32; ++j) ASSERT_EQ(p.y[r * 32 + j], layer.o.b[j]) << "row " << r << ": not the bias alone";
  for (float g : p.dxkv) ASSERT_EQ(g, 0.0f);
}

}  // namespace
}  // namespace heptapod
