// Naive twins of every fast kernel: the plainest loops, single-threaded, used only as test oracles.
// Same signatures and contracts as the kernels they mirror (see the headers one directory up).
#pragma once

#include <cstdint>

#include "heptapod/kernels/blas.h"
#include "heptapod/kernels/cross_entropy.h"
#include "heptapod/kernels/embedding.h"
#include "heptapod/kernels/half.h"

namespace heptapod::kernels::naive {

template <typename T>
void gemm(Trans ta, Trans tb, int M, int N, int K, T alpha, const T* A, int lda, const T* B, int ldb, T beta,
          T* C, int ldc);
template <typename T>
void transpose(const T* in, int rows, int cols, int ld_in, T* out, int ld_out);
template <typename T>
void attention_softmax_forward(T* scores, int Tq, int K, bool causal, T scale);
template <typename T>
void attention_softmax_backward(const T* probs, T* grad, int Tq, int K, T scale);
template <typename T>
void layer_norm_forward(const T* x, const T* gamma, const T* beta, T* y, T* mean, T* rstd, int N, int C, T eps);
template <typename T>
void residual_layer_norm(const T* x, T* delta, const T* bias, float p, std::uint64_t seed, std::uint64_t stream,
                         const T* gamma, const T* beta, T* y, T* mean, T* rstd, int N, int C, T eps);
template <typename T>
void layer_norm_backward(const T* dy, const T* x, const T* mean, const T* rstd, const T* gamma, T* dx, T* dgamma,
                         T* dbeta, int N, int C, bool accumulate_dx);
template <typename T>
void add_bias(T* y, const T* bias, int N, int C);
template <typename T>
void bias_backward(const T* dy, T* dbias, int N, int C);
template <typename T>
void relu_forward(T* x, long n);
template <typename T>
void bias_relu_dropout_forward(T* hidden, T* dropped, const T* bias, int N, int F, float p, std::uint64_t seed,
                               std::uint64_t stream);
template <typename T>
void relu_dropout_backward(T* grad, const T* hidden, T* dbias, int N, int F, float p, std::uint64_t seed,
                           std::uint64_t stream);
template <typename T>
void embedding_forward(const int* tokens, long N, const int* positions, const T* table, int C, T scale, const T* pe,
                       T* out);
template <typename T>
void embedding_backward(const T* dout, const int* tokens, long N, int C, T scale, T* dtable);
template <typename T>
void sinusoid_table(int L, int C, SinusoidLayout layout, int first_position, T* pe);
template <typename T>
CrossEntropyTotals cross_entropy(const T* logits, const int* targets, long N, int V, T eps, T grad_scale, T* dlogits,
                                 T* row_nll);
template <typename T>
void dropout(T* x, long n, float p, std::uint64_t seed, std::uint64_t stream);
template <typename T>
void dropout_add(const T* x, T* delta, long n, float p, std::uint64_t seed, std::uint64_t stream);
// E: float or half (the cached vectors' storage), as kernels::attend_cached.
template <typename E>
void attend_cached(const float* q, const E* keys, const E* values, const long* offsets, int count, int H, int KH,
                   int D, float scale, float* scores, int score_stride, float* out, const float* bias = nullptr);

// The row primitives of kernels/vector_math.h, in index order.
float max_value(const float* x, long n);
float sum_value(const float* x, long n);
float exp_sum(const float* x, long n, float shift, float scale, float* out);

// The low-precision products (kernels/low_precision_weights.h), written from their definitions
// (naive/low_precision.cpp). x (rows, in) -> y (rows, out) for W (out, in) = values (out, in) * scales (out):
// each x row quantized with its own scale, the sums exact in int32 into acc (rows, out) when not null, and
// y = float(acc) * (a_r * scales[o]) (+ bias) (ReLU), one rounding per operation.
void int8_linear(const std::int8_t* values, const float* scales, int out, int in, const float* x, int rows,
                 const float* bias, bool relu, float* y, std::int32_t* acc);
// x (n) -> (n) each rounded to the nearest bfloat16 (ties to even, overflow to inf, NaN kept), as floats.
void round_to_bfloat16(const float* x, long n, float* out);
// values (out, in) bfloat16 bits; x (rows, in) rounded to bfloat16, the products summed in double: y (rows, out).
void bf16_linear(const std::uint16_t* values, int out, int in, const float* x, int rows, const float* bias, bool relu,
                 double* y);

}  // namespace heptapod::kernels::naive
