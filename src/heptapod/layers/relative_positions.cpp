// Transformer-XL's relative-position score terms: the distances' projected encodings, the relative shift,
// and per-block gradients summed after the parallel loop.
#include "heptapod/layers/relative_positions.h"

#include <algorithm>

#include "heptapod/core/error.h"
#include "heptapod/kernels/block_gemm.h"
#include "heptapod/kernels/embedding.h"
#include "heptapod/kernels/vector_math.h"

namespace heptapod {

using kernels::block_gemm;
using kernels::Trans;

template <typename T>
void relative_encodings(const RelativePositionParams<T>& params, int C, int P, std::vector<T>& encodings,
                        std::vector<T>& projected) {
  const int longest = params.clamp_length > 0 ? std::min(P, params.clamp_length + 1) : P;
  std::vector<T> table(static_cast<std::size_t>(longest) * C);  // (longest, C) distances 0 .. longest - 1
  kernels::sinusoid_table<T>(longest, C, kernels::SinusoidLayout::Halves, 0, table.data());
  encodings.resize(static_cast<std::size_t>(P) * C);
  for (int t = 0; t < P; ++t) {
    const int d = std::min(P - 1 - t, longest - 1);
    std::copy_n(table.begin() + static_cast<long>(d) * C, C, encodings.begin() + static_cast<long>(t) * C);
  }
  projected.resize(encodings.size());
  block_gemm<T>(Trans::No, Trans::Yes, P, C, C, encodings.data(), C, params.w_r, C, projected.data(), C);
}

void relative_step_terms(const RelativePositionParams<float>& params, const float* projected, int P, int C, int H,
                         int p, float* q, float* bias, int stride) {
  const int D = C / H;
  thread_local std::vector<float> qv;  // (C) q + v (called inside the decoder's parallel loop)
  qv.resize(static_cast<std::size_t>(C));
  for (int c = 0; c < C; ++c) {
    qv[c] = q[c] + params.v[c];
    q[c] += params.u[c];
  }
  // Key j's distance p - j sits at row P - 1 - p + j: the rows from P - 1 - p on, in key order.
  const float* rows = projected + static_cast<long>(P - 1 - p) * C;
  for (int h = 0; h < H; ++h)
    for (int j = 0; j <= p; ++j)
      bias[static_cast<long>(h) * stride + j] = kernels::dot(qv.data() + h * D, rows + static_cast<long>(j) * C + h * D, D);
}

template void relative_encodings<float>(const RelativePositionParams<float>&, int, int, std::vector<float>&,
                                        std::vector<float>&);
template void relative_encodings<double>(const RelativePositionParams<double>&, int, int, std::vector<double>&,
                                         std::vector<double>&);

template <typename T>
RelativePositionTerm<T>::RelativePositionTerm(const RelativePositionParams<T>& params, int C, int heads,
                                              const AttentionShape& shape, RelativeTables<T>* cached)
    : params_(params), C_(C), H_(heads), D_(C / heads), P_(std::max(1, shape.k().longest)) {
  require(shape.causal(), "relative positions: Transformer-XL's attention is causal");
  require(C % 2 == 0 && C % heads == 0, "relative positions: d_model must be even and divisible by the heads");
  RelativeTables<T>& tables = cached ? *cached : own_;
  if (tables.P < P_) {
    relative_encodings(params, C, P_, tables.encodings, tables.projected);
    tables.P = P_;
  }
  const std::size_t first = static_cast<std::size_t>(tables.P - P_) * C;  // the rows of distances P - 1 .. 0
  encodings_ = tables.encodings.data() + first;
  projected_ = tables.projected.data() + first;
  blocks_ = shape.count() * heads;
}

template <typename T>
void RelativePositionTerm<T>::add(int, int h, const T* q, int ldq, const T* k, int ldk, int lq, int lk,
                                  T* scores) const {
  const int D = D_, P = P_;
  const T* u = params_.u + static_cast<long>(h) * D;
  const T* v = params_.v + static_cast<long>(h) * D;
  // Per-thread buffers (blocks run concurrently), kept from block to block.
  thread_local std::vector<T> qv, g, content;
  qv.resize(static_cast<std::size_t>(lq) * D);  // (lq, D) q + v
  for (int i = 0; i < lq; ++i)
    for (int e = 0; e < D; ++e) qv[static_cast<std::size_t>(i) * D + e] = q[static_cast<long>(i) * ldq + e] + v[e];
  g.resize(static_cast<std::size_t>(lq) * P);  // (lq, P) (q_i + v) . r of distance P - 1 - t
  block_gemm<T>(Trans::No, Trans::Yes, lq, P, D, qv.data(), D, projected_ + static_cast<long>(h) * D, C_,
                g.data(), P);
  content.resize(static_cast<std::size_t>(lk));  // (lk) u . k_j
  for (int j = 0; j < lk; ++j) {
    T sum = 0;
    for (int e = 0; e < D; ++e) sum += u[e] * k[static_cast<long>(j) * ldk + e];
    content[j] = sum;
  }
  for (int i = 0; i < lq; ++i) {
    const int p = lk - lq + i;  // the query's position among the keys: it sees keys 0 .. p
    const T* row = g.data() + static_cast<long>(i) * P + (P - 1 - p);
    T* s = scores + static_cast<long>(i) * lk;
    for (int j = 0; j <= p; ++j) s[j] += row[j] + content[j];
  }
}

template <typename T>
void RelativePositionTerm<T>::begin_backward() {
  grads_.assign(static_cast<std::size_t>(blocks_) * (2 * D_ + P_ * D_), T(0));
}

template <typename T>
T* RelativePositionTerm<T>::block_grad(int b, int h) {
  const std::size_t per = static_cast<std::size_t>(2 * D_ + P_ * D_);
  return grads_.data() + (static_cast<std::size_t>(b) * H_ + h) * per;
}

template <typename T>
void RelativePositionTerm<T>::backward(int b, int h, const T* q, int ldq, const T* k, int ldk, const T* ds, int lq,
                                       int lk, T* dq, T* dk) {
  const int D = D_, P = P_;
  T* du = block_grad(b, h);
  T* dv = du + D;
  T* dr = dv + D;  // (P, D)
  const T* u = params_.u + static_cast<long>(h) * D;
  const T* v = params_.v + static_cast<long>(h) * D;
  // u . k_j: every visible query's score gradient lands on u and on k_j (summed row by row, in order).
  std::vector<T> column(static_cast<std::size_t>(lk), T(0));  // (lk)
  for (int i = 0; i < lq; ++i) {
    const T* d = ds + static_cast<long>(i) * lk;
    for (int j = 0; j <= lk - lq + i; ++j) column[j] += d[j];
  }
  for (int j = 0; j < lk; ++j)
    for (int e = 0; e < D; ++e) {
      du[e] += column[j] * k[static_cast<long>(j) * ldk + e];
      dk[static_cast<long>(j) * ldk + e] += column[j] * u[e];
    }
  // The position term: the score gradients shifted back onto the distances, then through the product.
  std::vector<T> dg(static_cast<std::size_t>(lq) * P, T(0));  // (lq, P)
  for (int i = 0; i < lq; ++i) {
    const int p = lk - lq + i;
    std::copy_n(ds + static_cast<long>(i) * lk, p + 1, dg.begin() + static_cast<long>(i) * P + (P - 1 - p));
  }
  std::vector<T> dqv(static_cast<std::size_t>(lq) * D);  // (lq, D) the gradient at q + v
  block_gemm<T>(Trans::No, Trans::No, lq, D, P, dg.data(), P, projected_ + static_cast<long>(h) * D, C_,
                dqv.data(), D);
  std::vector<T> qv(static_cast<std::size_t>(lq) * D);  // (lq, D) q + v
  for (int i = 0; i < lq; ++i)
    for (int e = 0; e < D; ++e) {
      const std::size_t at = static_cast<std::size_t>(i) * D + e;
      dq[static_cast<long>(i) * ldq + e] += dqv[at];
      dv[e] += dqv[at];
      qv[at] = q[static_cast<long>(i) * ldq + e] + v[e];
    }
  std::vector<T> drb(static_cast<std::size_t>(P) * D);  // (P, D) this block's share of dr
  block_gemm<T>(Trans::Yes, Trans::No, P, D, lq, dg.data(), P, qv.data(), D, drb.data(), D);
  for (std::size_t i = 0; i < drb.size(); ++i) dr[i] += drb[i];
}

template <typename T>
void RelativePositionTerm<T>::finish_backward() {
  if (grads_.empty()) return;
  const int D = D_, P = P_;
  const std::size_t per = static_cast<std::size_t>(2 * D + P * D);
  const std::size_t blocks = grads_.size() / per;
  std::vector<T> dr(static_cast<std::size_t>(P) * C_, T(0));  // (P, C) the gradient at r, all heads
  for (std::size_t bh = 0; bh < blocks; ++bh) {
    const int h = static_cast<int>(bh % static_cast<std::size_t>(H_));
    const T* g = grads_.data() + bh * per;
    for (int e = 0; e < D; ++e) {
      if (params_.du) params_.du[h * D + e] += g[e];
      if (params_.dv) params_.dv[h * D + e] += g[D + e];
    }
    for (int t = 0; t < P; ++t)
      for (int e = 0; e < D; ++e) dr[static_cast<std::size_t>(t) * C_ + h * D + e] += g[2 * D + t * D + e];
  }
  // r = R W_r^T: dW_r (C, C) += dr^T R.
  if (params_.dw_r) {
    std::vector<T> dw(static_cast<std::size_t>(C_) * C_);
    block_gemm<T>(Trans::Yes, Trans::No, C_, C_, P, dr.data(), C_, encodings_, C_, dw.data(), C_);
    for (std::size_t i = 0; i < dw.size(); ++i) params_.dw_r[i] += dw[i];
  }
  std::vector<T>().swap(grads_);  // until the next backward pass
}

template class RelativePositionTerm<float>;
template class RelativePositionTerm<double>;

}  // namespace heptapod
