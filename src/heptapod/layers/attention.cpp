// Attention: projections as whole-batch GEMMs, then per (sentence, head) GEMMs on column blocks of the
// projections (leading dimension C, no head transposes), run in parallel over (sentence, head).
#include "heptapod/layers/attention.h"

#include <cmath>
#include <cstring>

#include "heptapod/kernels/blas.h"
#include "heptapod/kernels/dropout.h"
#include "heptapod/kernels/softmax.h"

namespace heptapod {

using kernels::gemm;
using kernels::Trans;

template <typename T>
void attention_forward(const MultiHeadAttention<T>& attn, const T* xq, const T* xkv, const AttentionShape& s,
                       const DropoutSite& drop, Arena& arena, AttentionSaved<T>& saved, T* y) {
  const int C = attn.q_proj.out, H = attn.heads, D = C / H;
  const int Nq = s.B * s.Tq, Nk = s.B * s.Tk;
  const long score_count = static_cast<long>(s.B) * H * s.Tq * s.Tk;
  saved.q = arena.alloc<T>(static_cast<std::size_t>(Nq) * C);
  saved.k = arena.alloc<T>(static_cast<std::size_t>(Nk) * C);
  saved.v = arena.alloc<T>(static_cast<std::size_t>(Nk) * C);
  saved.probs = arena.alloc<T>(score_count);
  saved.context = arena.alloc<T>(static_cast<std::size_t>(Nq) * C);
  linear_forward(attn.q_proj, xq, Nq, saved.q);
  linear_forward(attn.k_proj, xkv, Nk, saved.k);
  linear_forward(attn.v_proj, xkv, Nk, saved.v);

  const long qk = static_cast<long>(s.Tq) * s.Tk;
#pragma omp parallel for schedule(static)
  for (int bh = 0; bh < s.B * H; ++bh) {
    const int b = bh / H, h = bh % H;
    gemm<T>(Trans::No, Trans::Yes, s.Tq, s.Tk, D, T(1), saved.q + static_cast<long>(b) * s.Tq * C + h * D, C,
            saved.k + static_cast<long>(b) * s.Tk * C + h * D, C, T(0), saved.probs + bh * qk, s.Tk);
  }
  kernels::masked_softmax_forward(saved.probs, s.B, H, s.Tq, s.Tk, s.key_len, s.causal, T(1) / std::sqrt(T(D)));
  saved.dropped = saved.probs;
  if (drop.rate > 0) {
    saved.dropped = arena.alloc<T>(score_count);
    std::memcpy(saved.dropped, saved.probs, sizeof(T) * score_count);
    kernels::dropout(saved.dropped, score_count, drop.rate, drop.seed, drop.stream);
  }
#pragma omp parallel for schedule(static)
  for (int bh = 0; bh < s.B * H; ++bh) {
    const int b = bh / H, h = bh % H;
    gemm<T>(Trans::No, Trans::No, s.Tq, D, s.Tk, T(1), saved.dropped + bh * qk, s.Tk,
            saved.v + static_cast<long>(b) * s.Tk * C + h * D, C, T(0),
            saved.context + static_cast<long>(b) * s.Tq * C + h * D, C);
  }
  linear_forward(attn.out_proj, saved.context, Nq, y);
}

template <typename T>
void attention_backward(const MultiHeadAttention<T>& attn, const T* dy, const T* xq, const T* xkv,
                        const AttentionShape& s, const DropoutSite& drop, const AttentionSaved<T>& saved,
                        Arena& arena, T* dxq, bool accumulate_dxq, T* dxkv) {
  const int C = attn.q_proj.out, H = attn.heads, D = C / H;
  const int Nq = s.B * s.Tq, Nk = s.B * s.Tk;
  const long qk = static_cast<long>(s.Tq) * s.Tk;
  T* dcontext = arena.alloc<T>(static_cast<std::size_t>(Nq) * C);  // (B*Tq, C)
  T* dscores = arena.alloc<T>(static_cast<std::size_t>(s.B) * H * qk);  // (B, H, Tq, Tk)
  T* dq = arena.alloc<T>(static_cast<std::size_t>(Nq) * C);  // (B*Tq, C)
  T* dk = arena.alloc<T>(static_cast<std::size_t>(Nk) * C);  // (B*Tk, C)
  T* dv = arena.alloc<T>(static_cast<std::size_t>(Nk) * C);  // (B*Tk, C)
  linear_backward(attn.out_proj, dy, saved.context, Nq, dcontext, false);

#pragma omp parallel for schedule(static)
  for (int bh = 0; bh < s.B * H; ++bh) {
    const int b = bh / H, h = bh % H;
    const long q_off = static_cast<long>(b) * s.Tq * C + h * D, k_off = static_cast<long>(b) * s.Tk * C + h * D;
    // dP = dcontext_bh V_bh^T ; dV_bh = P_bh^T dcontext_bh
    gemm<T>(Trans::No, Trans::Yes, s.Tq, s.Tk, D, T(1), dcontext + q_off, C, saved.v + k_off, C, T(0),
            dscores + bh * qk, s.Tk);
    gemm<T>(Trans::Yes, Trans::No, s.Tk, D, s.Tq, T(1), saved.dropped + bh * qk, s.Tk, dcontext + q_off, C, T(0),
            dv + k_off, C);
  }
  kernels::dropout(dscores, s.B * H * qk, drop.rate, drop.seed, drop.stream);
  kernels::masked_softmax_backward(saved.probs, dscores, s.B, H, s.Tq, s.Tk, T(1) / std::sqrt(T(D)));
#pragma omp parallel for schedule(static)
  for (int bh = 0; bh < s.B * H; ++bh) {
    const int b = bh / H, h = bh % H;
    const long q_off = static_cast<long>(b) * s.Tq * C + h * D, k_off = static_cast<long>(b) * s.Tk * C + h * D;
    // dQ_bh = dS K_bh ; dK_bh = dS^T Q_bh
    gemm<T>(Trans::No, Trans::No, s.Tq, D, s.Tk, T(1), dscores + bh * qk, s.Tk, saved.k + k_off, C, T(0),
            dq + q_off, C);
    gemm<T>(Trans::Yes, Trans::No, s.Tk, D, s.Tq, T(1), dscores + bh * qk, s.Tk, saved.q + q_off, C, T(0),
            dk + k_off, C);
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
