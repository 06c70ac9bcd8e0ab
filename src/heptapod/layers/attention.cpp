// Attention: projections as whole-batch GEMMs, then one parallel loop over (sentence, head) that runs that
// block's score product, softmax, dropout and value product back to back while the block is in cache. The
// blocks read column slices of the projections (leading dimension C); block_gemm stages a transposed operand.
#include "heptapod/layers/attention.h"

#include <cmath>

#include "heptapod/core/error.h"
#include "heptapod/kernels/block_gemm.h"
#include "heptapod/kernels/dropout.h"
#include "heptapod/kernels/softmax.h"

namespace heptapod {

using kernels::block_gemm;
using kernels::Trans;

AttentionShape::AttentionShape(const Sequences& q, const Sequences& k, bool causal)
    : q_(&q), k_(&k), causal_(causal), score_start_(q.count() + 1, 0) {
  require(q.count() == k.count(), "attention: query and key sentence counts differ");
  for (int b = 0; b < q.count(); ++b)
    score_start_[b + 1] = score_start_[b] + static_cast<long>(q.len[b]) * k.len[b];
}

namespace {

// One (sentence, head) block: where its rows and scores live.
struct Block {
  int lq, lk;        // query and key rows
  long q_off, k_off;  // first element of the head's column slice in the (Nq, C) and (Nk, C) matrices
  long s_off;         // first score of the (lq, lk) block
};

Block block(const AttentionShape& s, int bh, int H, int C) {
  const int b = bh / H, h = bh % H, D = C / H;
  return {s.q().len[b], s.k().len[b], static_cast<long>(s.q().start[b]) * C + h * D,
          static_cast<long>(s.k().start[b]) * C + h * D, s.score_offset(b, h, H)};
}

}  // namespace

template <typename T>
void attention_forward(const MultiHeadAttention<T>& attn, const T* xq, const T* xkv, const AttentionShape& s,
                       const DropoutSite& drop, Arena& arena, AttentionSaved<T>& saved, T* y) {
  const int C = attn.q_proj.out, H = attn.heads, D = C / H;
  const int Nq = s.q().rows(), Nk = s.k().rows();
  const long score_count = s.scores(H);
  saved.q = arena.alloc<T>(static_cast<std::size_t>(Nq) * C);
  saved.k = arena.alloc<T>(static_cast<std::size_t>(Nk) * C);
  saved.v = arena.alloc<T>(static_cast<std::size_t>(Nk) * C);
  saved.probs = arena.alloc<T>(score_count);
  saved.dropped = drop.rate > 0 ? arena.alloc<T>(score_count) : saved.probs;
  saved.context = arena.alloc<T>(static_cast<std::size_t>(Nq) * C);
  linear_forward(attn.q_proj, xq, Nq, saved.q);
  linear_forward(attn.k_proj, xkv, Nk, saved.k);
  linear_forward(attn.v_proj, xkv, Nk, saved.v);

  const T scale = T(1) / std::sqrt(T(D));
#pragma omp parallel for schedule(dynamic)
  for (int bh = 0; bh < s.count() * H; ++bh) {
    const Block blk = block(s, bh, H, C);
    // A sentence without keys (an empty source) gets a zero context: its products have no inner terms.
    T* context = saved.context + blk.q_off;  // (lq, D), leading dimension C
    T* probs = saved.probs + blk.s_off;  // (lq, lk)
    block_gemm<T>(Trans::No, Trans::Yes, blk.lq, blk.lk, D, saved.q + blk.q_off, C, saved.k + blk.k_off, C, probs, blk.lk);
    kernels::attention_softmax_forward(probs, blk.lq, blk.lk, s.causal(), scale);
    T* dropped = saved.dropped + blk.s_off;  // (lq, lk)
    if (dropped != probs)
      kernels::dropout_copy_slice(probs, dropped, static_cast<long>(blk.lq) * blk.lk, blk.s_off, drop.rate, drop.seed,
                                  drop.stream);
    block_gemm<T>(Trans::No, Trans::No, blk.lq, D, blk.lk, dropped, blk.lk, saved.v + blk.k_off, C, context, C);
  }
  linear_forward(attn.out_proj, saved.context, Nq, y);
}

template <typename T>
void attention_backward(const MultiHeadAttention<T>& attn, const T* dy, const T* xq, const T* xkv,
                        const AttentionShape& s, const DropoutSite& drop, const AttentionSaved<T>& saved,
                        Arena& arena, T* dxq, bool accumulate_dxq, T* dxkv) {
  const int C = attn.q_proj.out, H = attn.heads, D = C / H;
  const int Nq = s.q().rows(), Nk = s.k().rows();
  T* dcontext = arena.alloc<T>(static_cast<std::size_t>(Nq) * C);  // (Nq, C)
  T* dscores = arena.alloc<T>(s.scores(H));                          // the score blocks
  T* dq = arena.alloc<T>(static_cast<std::size_t>(Nq) * C);        // (Nq, C)
  T* dk = arena.alloc<T>(static_cast<std::size_t>(Nk) * C);        // (Nk, C)
  T* dv = arena.alloc<T>(static_cast<std::size_t>(Nk) * C);        // (Nk, C)
  linear_backward(attn.out_proj, dy, saved.context, Nq, dcontext, false);

  const T scale = T(1) / std::sqrt(T(D));
#pragma omp parallel for schedule(dynamic)
  for (int bh = 0; bh < s.count() * H; ++bh) {
    const Block blk = block(s, bh, H, C);
    const long n = static_cast<long>(blk.lq) * blk.lk;
    T* ds = dscores + blk.s_off;  // (lq, lk)
    // dP = dcontext_bh V_bh^T ; dV_bh = P_bh^T dcontext_bh
    block_gemm<T>(Trans::No, Trans::Yes, blk.lq, blk.lk, D, dcontext + blk.q_off, C, saved.v + blk.k_off, C, ds, blk.lk);
    block_gemm<T>(Trans::Yes, Trans::No, blk.lk, D, blk.lq, saved.dropped + blk.s_off, blk.lk, dcontext + blk.q_off, C,
                  dv + blk.k_off, C);
    kernels::dropout_slice(ds, n, blk.s_off, drop.rate, drop.seed, drop.stream);
    kernels::attention_softmax_backward(saved.probs + blk.s_off, ds, blk.lq, blk.lk, scale);
    // dQ_bh = dS K_bh ; dK_bh = dS^T Q_bh
    block_gemm<T>(Trans::No, Trans::No, blk.lq, D, blk.lk, ds, blk.lk, saved.k + blk.k_off, C, dq + blk.q_off, C);
    block_gemm<T>(Trans::Yes, Trans::No, blk.lk, D, blk.lq, ds, blk.lk, saved.q + blk.q_off, C, dk + blk.k_off, C);
  }
  linear_backward(attn.q_proj, dq, xq, Nq, dxq, accumulate_dxq);
  linear_backward(attn.k_proj, dk, xkv, Nk, dxkv, true);
  linear_backward(attn.v_proj, dv, xkv, Nk, dxkv, true);
}

template void attention_forward<float>(const MultiHeadAttention<float>&, const float*, const float*,
                                       const AttentionShape&, const DropoutSite&, Arena&, AttentionSaved<float>&,
                                       float*);
template void attention_forward<double>(const MultiHeadAttention<double>&, const double*, const double*,
                                        const AttentionShape&, const DropoutSite&, Arena&, AttentionSaved<double>&,
                                        double*);
template void attention_backward<float>(const MultiHeadAttention<float>&, const float*, const float*, const float*,
                                        const AttentionShape&, const DropoutSite&, const AttentionSaved<float>&,
                                        Arena&, float*, bool, float*);
template void attention_backward<double>(const MultiHeadAttention<double>&, const double*, const double*,
                                         const double*, const AttentionShape&, const DropoutSite&,
                                         const AttentionSaved<double>&, Arena&, double*, bool, double*);

}  // namespace heptapod
