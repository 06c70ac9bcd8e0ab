// The public kernel functions: each forwards to its entry in the kernel table chosen at start-up
// (kernels/isa.h). Compiled for the baseline ISA, like everything outside kernels/isa/.
#include <vector>

#include "heptapod/kernels/kernel_table.h"

namespace heptapod::kernels {

namespace {

template <typename T>
const TypedKernels<T>& typed();
template <>
const TypedKernels<float>& typed<float>() {
  return active_kernels().f32;
}
template <>
const TypedKernels<double>& typed<double>() {
  return active_kernels().f64;
}

}  // namespace

template <typename T>
void adam_update(T* params, const T* grads, T* m, T* v, long n, const AdamStep<T>& step) {
  typed<T>().adam_update(params, grads, m, v, n, step);
}

template <typename T>
void block_gemm(Trans ta, Trans tb, int M, int N, int K, const T* A, int lda, const T* B, int ldb, T* C, int ldc,
                BlockOutput out) {
  typed<T>().block_gemm(ta, tb, M, N, K, A, lda, B, ldb, C, ldc, out);
}

template <typename T>
CrossEntropyTotals cross_entropy(const T* logits, const int* targets, long N, int V, T eps, T grad_scale, T* dlogits,
                                 T* row_nll) {
  return typed<T>().cross_entropy(logits, targets, N, V, eps, grad_scale, dlogits, row_nll);
}

template <typename T>
void dropout(T* x, long n, float p, std::uint64_t seed, std::uint64_t stream) {
  typed<T>().dropout(x, n, p, seed, stream);
}

template <typename T>
void dropout_copy(const T* src, T* dst, long n, float p, std::uint64_t seed, std::uint64_t stream) {
  typed<T>().dropout_copy(src, dst, n, p, seed, stream);
}

template <typename T>
void dropout_add(const T* x, T* delta, long n, float p, std::uint64_t seed, std::uint64_t stream) {
  typed<T>().dropout_add(x, delta, n, p, seed, stream);
}

template <typename T>
void dropout_slice(T* x, long n, std::uint64_t first, float p, std::uint64_t seed, std::uint64_t stream) {
  typed<T>().dropout_slice(x, n, first, p, seed, stream);
}

template <typename T>
void dropout_copy_slice(const T* src, T* dst, long n, std::uint64_t first, float p, std::uint64_t seed,
                        std::uint64_t stream) {
  typed<T>().dropout_copy_slice(src, dst, n, first, p, seed, stream);
}

template <typename T>
void dropout_backward_from_output(T* grad, const T* out, long n, float p) {
  typed<T>().dropout_backward_from_output(grad, out, n, p);
}

template <typename T>
void add_bias(T* y, const T* bias, int N, int C) {
  typed<T>().add_bias(y, bias, N, C);
}

template <typename T>
void bias_backward(const T* dy, T* dbias, int N, int C) {
  typed<T>().bias_backward(dy, dbias, N, C);
}

template <typename T>
void bias_activation_forward(T* pre, const T* bias, T* out, int N, int F, Activation act) {
  typed<T>().bias_activation_forward(pre, bias, out, N, F, act);
}

template <typename T>
void activation_forward(T* x, long n, Activation act) {
  typed<T>().activation_forward(x, n, act);
}

template <typename T>
void activation_backward(T* grad, const T* pre, T* dbias, int N, int F, Activation act) {
  typed<T>().activation_backward(grad, pre, dbias, N, F, act);
}

template <typename T>
void relu_forward(T* x, long n) {
  typed<T>().relu_forward(x, n);
}

template <typename T>
void add(const T* a, const T* b, T* out, long n) {
  typed<T>().add(a, b, out, n);
}

template <typename T>
void embedding_forward(const int* tokens, long N, const int* positions, const T* table, int C, T scale, const T* pe,
                       T* out) {
  typed<T>().embedding_forward(tokens, N, positions, table, C, scale, pe, out);
}

template <typename T>
void scale_add_positions(T* x, long N, const int* positions, int C, T scale, const T* pe) {
  typed<T>().scale_add_positions(x, N, positions, C, scale, pe);
}

template <typename T>
void embedding_backward(const T* dout, const int* tokens, long N, int C, T scale, T* dtable) {
  typed<T>().embedding_backward(dout, tokens, N, C, scale, dtable);
}

template <typename T>
void sinusoid_table(int L, int C, SinusoidLayout layout, int first_position, T* pe) {
  typed<T>().sinusoid_table(L, C, layout, first_position, pe);
}

template <typename T>
void layer_norm_forward(const T* x, const T* gamma, const T* beta, T* y, T* mean, T* rstd, int N, int C, T eps) {
  typed<T>().layer_norm_forward(x, gamma, beta, y, mean, rstd, N, C, eps);
}

template <typename T>
void residual_layer_norm(const T* x, T* delta, const T* bias, float p, std::uint64_t seed, std::uint64_t stream,
                         const T* gamma, const T* beta, T* y, T* mean, T* rstd, int N, int C, T eps) {
  typed<T>().residual_layer_norm(x, delta, bias, p, seed, stream, gamma, beta, y, mean, rstd, N, C, eps);
}

template <typename T>
void layer_norm_backward(const T* dy, const T* x, const T* mean, const T* rstd, const T* gamma, T* dx, T* dgamma,
                         T* dbeta, int N, int C, bool accumulate_dx, const ResidualBranchGrad<T>* branch) {
  typed<T>().layer_norm_backward(dy, x, mean, rstd, gamma, dx, dgamma, dbeta, N, C, accumulate_dx, branch);
}

template <typename T>
void bias_relu_dropout_forward(T* hidden, const T* bias, int N, int F, float p, std::uint64_t seed,
                               std::uint64_t stream) {
  typed<T>().bias_relu_dropout_forward(hidden, bias, N, F, p, seed, stream);
}

template <typename T>
void relu_dropout_backward(T* grad, const T* out, T* dbias, int N, int F, float p) {
  typed<T>().relu_dropout_backward(grad, out, dbias, N, F, p);
}

template <typename T>
void attention_softmax_forward(T* scores, int Tq, int K, bool causal, T scale) {
  typed<T>().attention_softmax_forward(scores, Tq, K, causal, scale);
}

template <typename T>
void attention_softmax_backward(const T* probs, T* grad, int Tq, int K, T scale) {
  typed<T>().attention_softmax_backward(probs, grad, Tq, K, scale);
}

template <typename T>
void transpose(const T* in, int rows, int cols, int ld_in, T* out, int ld_out) {
  typed<T>().transpose(in, rows, cols, ld_in, out, ld_out);
}

#define HEPTAPOD_INSTANTIATE(T)                                                                                    \
  template void adam_update<T>(T*, const T*, T*, T*, long, const AdamStep<T>&);                                    \
  template void block_gemm<T>(Trans, Trans, int, int, int, const T*, int, const T*, int, T*, int, BlockOutput);                 \
  template CrossEntropyTotals cross_entropy<T>(const T*, const int*, long, int, T, T, T*, T*);                     \
  template void dropout<T>(T*, long, float, std::uint64_t, std::uint64_t);                                         \
  template void dropout_copy<T>(const T*, T*, long, float, std::uint64_t, std::uint64_t);                          \
  template void dropout_add<T>(const T*, T*, long, float, std::uint64_t, std::uint64_t);                           \
  template void dropout_slice<T>(T*, long, std::uint64_t, float, std::uint64_t, std::uint64_t);                    \
  template void dropout_copy_slice<T>(const T*, T*, long, std::uint64_t, float, std::uint64_t, std::uint64_t);     \
  template void dropout_backward_from_output<T>(T*, const T*, long, float);                                        \
  template void add_bias<T>(T*, const T*, int, int);                                                               \
  template void bias_backward<T>(const T*, T*, int, int);                                                          \
  template void bias_activation_forward<T>(T*, const T*, T*, int, int, Activation);                               \
  template void activation_forward<T>(T*, long, Activation);                                                      \
  template void activation_backward<T>(T*, const T*, T*, int, int, Activation);                                   \
  template void relu_forward<T>(T*, long);                                                                         \
  template void add<T>(const T*, const T*, T*, long);                                                              \
  template void embedding_forward<T>(const int*, long, const int*, const T*, int, T, const T*, T*);                \
  template void scale_add_positions<T>(T*, long, const int*, int, T, const T*);                                    \
  template void embedding_backward<T>(const T*, const int*, long, int, T, T*);                                     \
  template void sinusoid_table<T>(int, int, SinusoidLayout, int, T*);                                                                   \
  template void layer_norm_forward<T>(const T*, const T*, const T*, T*, T*, T*, int, int, T);                      \
  template void residual_layer_norm<T>(const T*, T*, const T*, float, std::uint64_t, std::uint64_t, const T*,      \
                                       const T*, T*, T*, T*, int, int, T);                                         \
  template void layer_norm_backward<T>(const T*, const T*, const T*, const T*, const T*, T*, T*, T*, int, int, bool, \
                                       const ResidualBranchGrad<T>*);                                              \
  template void bias_relu_dropout_forward<T>(T*, const T*, int, int, float, std::uint64_t, std::uint64_t);         \
  template void relu_dropout_backward<T>(T*, const T*, T*, int, int, float);                                       \
  template void attention_softmax_forward<T>(T*, int, int, bool, T);                                               \
  template void attention_softmax_backward<T>(const T*, T*, int, int, T);                                          \
  template void transpose<T>(const T*, int, int, int, T*, int);
HEPTAPOD_INSTANTIATE(float)
HEPTAPOD_INSTANTIATE(double)
#undef HEPTAPOD_INSTANTIATE

template <>
void attend_cached<float>(const float* q, const float* keys, const float* values, const long* offsets, int count,
                          int H, int KH, int D, float scale, float* scores, int score_stride, float* out,
                          const float* bias) {
  active_kernels().attend_cached_f32(q, keys, values, offsets, count, H, KH, D, scale, scores, score_stride, out,
                                     bias);
}

template <>
void attend_cached<half>(const float* q, const half* keys, const half* values, const long* offsets, int count, int H,
                         int KH, int D, float scale, float* scores, int score_stride, float* out, const float* bias) {
  active_kernels().attend_cached_f16(q, keys, values, offsets, count, H, KH, D, scale, scores, score_stride, out,
                                     bias);
}

void few_rows_gemm_nt(int M, int N, int K, float alpha, const float* A, int lda, const float* B, int ldb, float beta,
                      float* C, int ldc) {
  active_kernels().few_rows_gemm_nt(M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
}

void panel_gemm(const float* panels, int N, int K, int k_padded, const float* x, int rows, const float* bias, bool relu,
                float* y) {
  active_kernels().panel_gemm(panels, N, K, k_padded, x, rows, bias, relu, y);
}

float logits_top(const float* x, int n, int id0, int top, int& count, float* values, int* ids) {
  return active_kernels().logits_top(x, n, id0, top, count, values, ids);
}

void to_half(const float* x, half* y, long n) { active_kernels().to_half(x, y, n); }
float dot(const float* a, const half* b, long n) { return active_kernels().dot_f16(a, b, n); }
template <>
void add_scaled<float>(float w, const float* v, float* out, long n) {
  active_kernels().add_scaled_f32(w, v, out, n);
}
template <>
void add_scaled<half>(float w, const half* v, float* out, long n) {
  active_kernels().add_scaled_f16(w, v, out, n);
}

float max_value(const float* x, long n) { return active_kernels().max_value(x, n); }
float sum_value(const float* x, long n) { return active_kernels().sum_value(x, n); }
SumMax<float> sum_and_max(const float* x, long n) { return active_kernels().sum_and_max(x, n); }
float exp_sum(const float* x, long n, float shift, float scale, float* out) {
  return active_kernels().exp_sum(x, n, shift, scale, out);
}
void exp_terms(const float* x, long n, double shift, double* out) { active_kernels().exp_terms(x, n, shift, out); }
float dot(const float* a, const float* b, long n) { return active_kernels().dot_f32(a, b, n); }

void int8_gemm(const Int8Panels& w, const float* x, int rows, int n0, int n, const float* bias, bool relu, float* y) {
  active_kernels().int8_gemm(w, x, rows, n0, n, bias, relu, y);
}

void bf16_gemm(const Bf16Panels& w, const float* x, int rows, int n0, int n, const float* bias, bool relu, float* y) {
  active_kernels().bf16_gemm(w, x, rows, n0, n, bias, relu, y);
}

void to_bfloat16(const float* x, long n, std::uint16_t* out) { active_kernels().to_bfloat16(x, n, out); }

namespace {

// list(table) of every compiled ISA the CPU runs, highest first, one after another.
template <typename Variant>
std::vector<Variant> runnable(std::span<const Variant> (*KernelTable::*list)()) {
  std::vector<Variant> all;
  const std::vector<Isa> isas = compiled_isas();
  for (auto isa = isas.rbegin(); isa != isas.rend(); ++isa)
    if (cpu_runs(cpu_info(), *isa)) {
      const auto some = (isa_kernels(*isa).*list)();
      all.insert(all.end(), some.begin(), some.end());
    }
  return all;
}

}  // namespace

std::vector<Int8Variant> int8_variants() { return runnable(&KernelTable::int8_variants); }
std::vector<Bf16Variant> bf16_variants() { return runnable(&KernelTable::bf16_variants); }
Int8Variant selected_int8_variant() { return active_kernels().int8_variants().front(); }
Bf16Variant selected_bf16_variant() { return active_kernels().bf16_variants().front(); }
std::vector<BlockGemmVariant> block_gemm_variants() { return runnable(&KernelTable::block_gemm_variants); }
BlockGemmVariant selected_block_gemm_variant() { return active_kernels().block_gemm_variants().front(); }
std::vector<BlockDotVariant> block_dot_variants() { return runnable(&KernelTable::block_dot_variants); }
BlockDotVariant selected_block_dot_variant() { return active_kernels().block_dot_variants().front(); }

}  // namespace heptapod::kernels
