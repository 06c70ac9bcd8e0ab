// Naive kernel twins. Written for obviousness, not speed; accumulate in long double where it is free to.
#include "heptapod/kernels/naive/naive.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "heptapod/core/random.h"

namespace heptapod::kernels::naive {

template <typename T>
void gemm(Trans ta, Trans tb, int M, int N, int K, T alpha, const T* A, int lda, const T* B, int ldb, T beta,
          T* C, int ldc) {
  for (int i = 0; i < M; ++i) {
    for (int j = 0; j < N; ++j) {
      long double s = 0;
      for (int k = 0; k < K; ++k) {
        const T a = ta == Trans::No ? A[i * lda + k] : A[k * lda + i];
        const T b = tb == Trans::No ? B[k * ldb + j] : B[j * ldb + k];
        s += static_cast<long double>(a) * b;
      }
      const T prev = beta == T(0) ? T(0) : beta * C[i * ldc + j];
      C[i * ldc + j] = static_cast<T>(alpha * s + prev);
    }
  }
}

template <typename T>
void transpose(const T* in, int rows, int cols, int ld_in, T* out, int ld_out) {
  for (long i = 0; i < rows; ++i)
    for (long j = 0; j < cols; ++j) out[j * ld_out + i] = in[i * ld_in + j];
}

template <typename T>
void attention_softmax_forward(T* scores, int Tq, int K, bool causal, T scale) {
  for (int i = 0; i < Tq; ++i) {
    T* row = scores + static_cast<long>(i) * K;
    auto visible = [&](int j) { return !(causal && j > K - Tq + i); };
    long double max_v = -INFINITY, sum = 0;
    for (int j = 0; j < K; ++j)
      if (visible(j) && scale * row[j] > max_v) max_v = scale * row[j];
    for (int j = 0; j < K; ++j)
      if (visible(j)) sum += std::exp(static_cast<long double>(scale * row[j]) - max_v);
    for (int j = 0; j < K; ++j)
      row[j] = visible(j) ? static_cast<T>(std::exp(static_cast<long double>(scale * row[j]) - max_v) / sum) : T(0);
  }
}

template <typename T>
void attention_softmax_backward(const T* probs, T* grad, int Tq, int K, T scale) {
  for (long r = 0; r < Tq; ++r) {
    std::vector<T> in(grad + r * K, grad + (r + 1) * K);
    for (int j = 0; j < K; ++j) {
      // dS_j = scale * sum_k dP_k * P_k * (delta_jk - P_j)
      long double s = 0;
      for (int k = 0; k < K; ++k) s += static_cast<long double>(in[k]) * probs[r * K + k] * ((j == k) - probs[r * K + j]);
      grad[r * K + j] = static_cast<T>(scale * s);
    }
  }
}

template <typename T>
void layer_norm_forward(const T* x, const T* gamma, const T* beta, T* y, T* mean, T* rstd, int N, int C, T eps) {
  for (int n = 0; n < N; ++n) {
    // Without beta an RMSNorm: no centring, no shift.
    long double m = 0, v = 0;
    for (int c = 0; c < C && beta; ++c) m += x[n * C + c];
    m /= C;
    for (int c = 0; c < C; ++c) v += (x[n * C + c] - m) * (x[n * C + c] - m);
    v /= C;
    const long double s = 1.0L / std::sqrt(v + eps);
    for (int c = 0; c < C; ++c)
      y[n * C + c] = static_cast<T>((x[n * C + c] - m) * s * gamma[c] + (beta ? beta[c] : 0));
    mean[n] = static_cast<T>(m);
    rstd[n] = static_cast<T>(s);
  }
}

template <typename T>
void residual_layer_norm(const T* x, T* delta, const T* bias, float p, std::uint64_t seed, std::uint64_t stream,
                         const T* gamma, const T* beta, T* y, T* mean, T* rstd, int N, int C, T eps) {
  // delta (N, C) <- x + dropout(delta + bias), one mask over the whole tensor; then y = LN(delta).
  const long n = static_cast<long>(N) * C;
  if (bias) add_bias(delta, bias, N, C);
  dropout(delta, n, p, seed, stream);
  for (long i = 0; i < n; ++i) delta[i] += x[i];
  std::vector<T> m(N), s(N);  // (N) each
  layer_norm_forward(delta, gamma, beta, y, m.data(), s.data(), N, C, eps);
  if (mean) std::copy(m.begin(), m.end(), mean);
  if (rstd) std::copy(s.begin(), s.end(), rstd);
}

template <typename T>
void layer_norm_backward(const T* dy, const T* x, const T* mean, const T* rstd, const T* gamma, T* dx, T* dgamma,
                         T* dbeta, int N, int C, bool accumulate_dx) {
  // Full Jacobian: dxhat_k/dx_j = s * (delta_jk - 1/C - xhat_j xhat_k / C); an RMSNorm's (no dbeta) has no
  // 1/C term.
  const long double centring = dbeta ? 1.0L / C : 0.0L;
  for (int n = 0; n < N; ++n) {
    for (int j = 0; j < C; ++j) {
      long double s = 0;
      const long double xhat_j = (x[n * C + j] - mean[n]) * static_cast<long double>(rstd[n]);
      for (int k = 0; k < C; ++k) {
        const long double xhat_k = (x[n * C + k] - mean[n]) * static_cast<long double>(rstd[n]);
        s += static_cast<long double>(dy[n * C + k]) * gamma[k] * rstd[n] *
             ((j == k) - centring - xhat_j * xhat_k / C);
      }
      dx[n * C + j] = static_cast<T>(accumulate_dx ? dx[n * C + j] + s : s);
    }
    for (int c = 0; c < C; ++c) {
      dgamma[c] += dy[n * C + c] * (x[n * C + c] - mean[n]) * rstd[n];
      if (dbeta) dbeta[c] += dy[n * C + c];
    }
  }
}

template <typename T>
void add_bias(T* y, const T* bias, int N, int C) {
  for (int n = 0; n < N; ++n)
    for (int c = 0; c < C; ++c) y[n * C + c] += bias[c];
}

template <typename T>
void bias_backward(const T* dy, T* dbias, int N, int C) {
  for (int n = 0; n < N; ++n)
    for (int c = 0; c < C; ++c) dbias[c] += dy[n * C + c];
}

template <typename T>
void relu_forward(T* x, long n) {
  for (long i = 0; i < n; ++i)
    if (x[i] < 0) x[i] = 0;
}

template <typename T>
void bias_relu_dropout_forward(T* hidden, T* dropped, const T* bias, int N, int F, float p, std::uint64_t seed,
                               std::uint64_t stream) {
  if (bias) add_bias(hidden, bias, N, F);
  relu_forward(hidden, static_cast<long>(N) * F);
  if (dropped == hidden) return;
  std::copy_n(hidden, static_cast<long>(N) * F, dropped);
  dropout(dropped, static_cast<long>(N) * F, p, seed, stream);
}

template <typename T>
void relu_dropout_backward(T* grad, const T* hidden, T* dbias, int N, int F, float p, std::uint64_t seed,
                           std::uint64_t stream) {
  const long n = static_cast<long>(N) * F;
  dropout(grad, n, p, seed, stream);
  for (long i = 0; i < n; ++i) grad[i] = hidden[i] > T(0) ? grad[i] : T(0);
  if (dbias) bias_backward(grad, dbias, N, F);
}

template <typename T>
void embedding_forward(const int* tokens, long N, const int* positions, const T* table, int C, T scale, const T* pe,
                       T* out) {
  for (long n = 0; n < N; ++n)
    for (int c = 0; c < C; ++c)
      out[n * C + c] = table[static_cast<long>(tokens[n]) * C + c] * scale + pe[static_cast<long>(positions[n]) * C + c];
}

template <typename T>
void embedding_backward(const T* dout, const int* tokens, long N, int C, T scale, T* dtable) {
  for (long n = 0; n < N; ++n)
    for (int c = 0; c < C; ++c) dtable[static_cast<long>(tokens[n]) * C + c] += scale * dout[n * C + c];
}

template <typename T>
void sinusoid_table(int L, int C, SinusoidLayout layout, int first_position, T* pe) {
  const int h = C / 2;
  for (int r = 0; r < L; ++r) {
    const long double p = first_position + r;
    T* row = pe + static_cast<long>(r) * C;
    if (layout == SinusoidLayout::Interleaved) {
      for (int i = 0; 2 * i < C; ++i) {
        const long double angle = p / std::pow(10000.0L, 2.0L * i / C);
        row[2 * i] = static_cast<T>(std::sin(angle));
        if (2 * i + 1 < C) row[2 * i + 1] = static_cast<T>(std::cos(angle));
      }
      continue;
    }
    for (int i = 0; i < h; ++i) {
      const long double angle = layout == SinusoidLayout::Halves ? p / std::pow(10000.0L, 2.0L * i / C)
                                                                 : p * std::exp(-std::log(10000.0L) * i / (h - 1));
      row[i] = static_cast<T>(std::sin(angle));
      row[h + i] = static_cast<T>(std::cos(angle));
    }
  }
}

template <typename T>
CrossEntropyTotals cross_entropy(const T* logits, const int* targets, long N, int V, T eps, T grad_scale, T* dlogits,
                                 T* row_nll) {
  CrossEntropyTotals totals;
  for (long n = 0; n < N; ++n) {
    const T* x = logits + n * V;
    long double z = 0;
    for (int v = 0; v < V; ++v) z += std::exp(static_cast<long double>(x[v]));
    std::vector<long double> logp(V);
    for (int v = 0; v < V; ++v) logp[v] = x[v] - std::log(z);
    // Smoothed target distribution q = (1 - eps) onehot(y) + eps / V.
    long double loss = 0;
    for (int v = 0; v < V; ++v) {
      const long double q = (v == targets[n] ? 1.0L - eps : 0.0L) + static_cast<long double>(eps) / V;
      loss -= q * logp[v];
      if (dlogits) dlogits[n * V + v] = static_cast<T>(grad_scale * (std::exp(logp[v]) - q));
    }
    totals.loss += static_cast<double>(loss);
    totals.nll += static_cast<double>(-logp[targets[n]]);
    totals.tokens += 1;
    totals.correct += *std::max_element(x, x + V) <= x[targets[n]] ? 1 : 0;
    if (row_nll) row_nll[n] = static_cast<T>(-logp[targets[n]]);
  }
  return totals;
}

template <typename T>
void dropout(T* x, long n, float p, std::uint64_t seed, std::uint64_t stream) {
  if (p <= 0) return;
  for (long i = 0; i < n; ++i) {
    const bool drop = counter_uniform(seed, stream, static_cast<std::uint64_t>(i)) < p;
    x[i] = drop ? T(0) : static_cast<T>(x[i] / (1.0L - p));
  }
}

template <typename T>
void dropout_add(const T* x, T* delta, long n, float p, std::uint64_t seed, std::uint64_t stream) {
  dropout(delta, n, p, seed, stream);
  for (long i = 0; i < n; ++i) delta[i] += x[i];
}

namespace {
double stored_value(float x) { return x; }
double stored_value(half x) { return from_half_scalar(x); }
}  // namespace

template <typename E>
void attend_cached(const float* q, const E* keys, const E* values, const long* offsets, int count, int H, int KH,
                   int D, float scale, float* scores, int score_stride, float* out, const float* bias) {
  // Per head h: p (count) = softmax(scale * (q_h . k_j,g + bias_h,j)), out_h (D) = sum_j p[j] v_j,g; g = h /
  // (H / KH), k_j,g = keys + offsets[j] + g * D, likewise v_j,g.
  for (int h = 0; h < H; ++h) {
    const int g = h / (H / KH);
    std::vector<double> p(count);
    for (int j = 0; j < count; ++j) {
      double s = 0;
      for (int d = 0; d < D; ++d) s += static_cast<double>(q[h * D + d]) * stored_value(keys[offsets[j] + g * D + d]);
      if (bias) s += bias[static_cast<long>(h) * score_stride + j];
      p[j] = scale * s;
    }
    const double max_p = *std::max_element(p.begin(), p.end());
    double sum = 0;
    for (double& v : p) sum += (v = std::exp(v - max_p));
    for (int j = 0; j < count; ++j) {
      p[j] /= sum;
      scores[static_cast<long>(h) * score_stride + j] = static_cast<float>(p[j]);
    }
    for (int d = 0; d < D; ++d) {
      double o = 0;
      for (int j = 0; j < count; ++j) o += p[j] * stored_value(values[offsets[j] + g * D + d]);
      out[h * D + d] = static_cast<float>(o);
    }
  }
}

#define HEPTAPOD_INSTANTIATE(T)                                                                                  \
  template void gemm<T>(Trans, Trans, int, int, int, T, const T*, int, const T*, int, T, T*, int);              \
  template void transpose<T>(const T*, int, int, int, T*, int);                                                 \
  template void attention_softmax_forward<T>(T*, int, int, bool, T);                                            \
  template void attention_softmax_backward<T>(const T*, T*, int, int, T);                                       \
  template void layer_norm_forward<T>(const T*, const T*, const T*, T*, T*, T*, int, int, T);                   \
  template void residual_layer_norm<T>(const T*, T*, const T*, float, std::uint64_t, std::uint64_t, const T*,   \
                                       const T*, T*, T*, T*, int, int, T);                                       \
  template void layer_norm_backward<T>(const T*, const T*, const T*, const T*, const T*, T*, T*, T*, int, int,  \
                                       bool);                                                                    \
  template void add_bias<T>(T*, const T*, int, int);                                                            \
  template void bias_backward<T>(const T*, T*, int, int);                                                       \
  template void relu_forward<T>(T*, long);                                                                      \
  template void bias_relu_dropout_forward<T>(T*, T*, const T*, int, int, float, std::uint64_t, std::uint64_t);  \
  template void relu_dropout_backward<T>(T*, const T*, T*, int, int, float, std::uint64_t, std::uint64_t);      \
  template void embedding_forward<T>(const int*, long, const int*, const T*, int, T, const T*, T*);             \
  template void embedding_backward<T>(const T*, const int*, long, int, T, T*);                                  \
  template void sinusoid_table<T>(int, int, SinusoidLayout, int, T*);                                                                \
  template CrossEntropyTotals cross_entropy<T>(const T*, const int*, long, int, T, T, T*, T*);                  \
  template void dropout<T>(T*, long, float, std::uint64_t, std::uint64_t);                                     \
  template void dropout_add<T>(const T*, T*, long, float, std::uint64_t, std::uint64_t);
HEPTAPOD_INSTANTIATE(float)
HEPTAPOD_INSTANTIATE(double)
#undef HEPTAPOD_INSTANTIATE

template void attend_cached<float>(const float*, const float*, const float*, const long*, int, int, int, int, float,
                                   float*, int, float*, const float*);
template void attend_cached<half>(const float*, const half*, const half*, const long*, int, int, int, int, float,
                                  float*, int, float*, const float*);

float max_value(const float* x, long n) {
  float m = -INFINITY;
  for (long i = 0; i < n; ++i) m = std::max(m, x[i]);
  return m;
}

float sum_value(const float* x, long n) {
  float s = 0;
  for (long i = 0; i < n; ++i) s += x[i];
  return s;
}

float exp_sum(const float* x, long n, float shift, float scale, float* out) {
  float s = 0;
  for (long i = 0; i < n; ++i) {
    const float e = std::exp(scale * (x[i] - shift));
    if (out) out[i] = e;
    s += e;
  }
  return s;
}

}  // namespace heptapod::kernels::naive
