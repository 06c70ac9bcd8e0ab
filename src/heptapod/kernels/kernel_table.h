// The kernel table: one function pointer per kernel, filled once per ISA by that ISA's kernel sources
// (kernels/isa/registry.h) and chosen once at start-up (kernels/isa.h). The public kernel functions forward
// through it (kernels/dispatch.cpp); nothing outside the kernels layer needs this header.
#pragma once

#include <span>

#include "heptapod/kernels/activation.h"
#include "heptapod/kernels/adam_update.h"
#include "heptapod/kernels/block_gemm.h"
#include "heptapod/kernels/block_weights.h"
#include "heptapod/kernels/cached_attention.h"
#include "heptapod/kernels/cross_entropy.h"
#include "heptapod/kernels/dropout.h"
#include "heptapod/kernels/elementwise.h"
#include "heptapod/kernels/embedding.h"
#include "heptapod/kernels/few_rows_gemm.h"
#include "heptapod/kernels/half.h"
#include "heptapod/kernels/isa.h"
#include "heptapod/kernels/layer_norm.h"
#include "heptapod/kernels/logits_top.h"
#include "heptapod/kernels/low_precision_gemm.h"
#include "heptapod/kernels/panel_gemm.h"
#include "heptapod/kernels/relu_dropout.h"
#include "heptapod/kernels/softmax.h"
#include "heptapod/kernels/transpose.h"
#include "heptapod/kernels/vector_math.h"

namespace heptapod::kernels {

// The kernels written once over the element type (float for the model, double for gradient checks).
template <typename T>
struct TypedKernels {
  decltype(&kernels::bias_activation_forward<T>) bias_activation_forward;
  decltype(&kernels::activation_forward<T>) activation_forward;
  decltype(&kernels::activation_backward<T>) activation_backward;
  decltype(&kernels::adam_update<T>) adam_update;
  decltype(&kernels::block_gemm<T>) block_gemm;
  decltype(&kernels::cross_entropy<T>) cross_entropy;
  decltype(&kernels::dropout<T>) dropout;
  decltype(&kernels::dropout_copy<T>) dropout_copy;
  decltype(&kernels::dropout_add<T>) dropout_add;
  decltype(&kernels::dropout_slice<T>) dropout_slice;
  decltype(&kernels::dropout_copy_slice<T>) dropout_copy_slice;
  decltype(&kernels::dropout_backward_from_output<T>) dropout_backward_from_output;
  decltype(&kernels::add_bias<T>) add_bias;
  decltype(&kernels::bias_backward<T>) bias_backward;
  decltype(&kernels::relu_forward<T>) relu_forward;
  decltype(&kernels::add<T>) add;
  decltype(&kernels::embedding_forward<T>) embedding_forward;
  decltype(&kernels::scale_add_positions<T>) scale_add_positions;
  decltype(&kernels::embedding_backward<T>) embedding_backward;
  decltype(&kernels::sinusoid_table<T>) sinusoid_table;
  decltype(&kernels::layer_norm_forward<T>) layer_norm_forward;
  decltype(&kernels::residual_layer_norm<T>) residual_layer_norm;
  decltype(&kernels::layer_norm_backward<T>) layer_norm_backward;
  decltype(&kernels::bias_relu_dropout_forward<T>) bias_relu_dropout_forward;
  decltype(&kernels::relu_dropout_backward<T>) relu_dropout_backward;
  decltype(&kernels::attention_softmax_forward<T>) attention_softmax_forward;
  decltype(&kernels::attention_softmax_backward<T>) attention_softmax_backward;
  decltype(&kernels::transpose<T>) transpose;
};

// Every kernel of one ISA.
struct KernelTable {
  TypedKernels<float> f32;
  TypedKernels<double> f64;
  decltype(&kernels::attend_cached<float>) attend_cached_f32;
  decltype(&kernels::attend_cached<half>) attend_cached_f16;
  decltype(&kernels::few_rows_gemm_nt) few_rows_gemm_nt;
  decltype(&kernels::panel_gemm) panel_gemm;
  decltype(&kernels::logits_top) logits_top;
  decltype(&kernels::to_half) to_half;
  float (*dot_f16)(const float*, const half*, long);
  decltype(&kernels::add_scaled<float>) add_scaled_f32;
  decltype(&kernels::add_scaled<half>) add_scaled_f16;
  decltype(&kernels::max_value) max_value;
  decltype(&kernels::sum_value) sum_value;
  decltype(&kernels::sum_and_max) sum_and_max;
  decltype(&kernels::exp_sum) exp_sum;
  decltype(&kernels::exp_terms) exp_terms;
  float (*dot_f32)(const float*, const float*, long);
  decltype(&kernels::int8_gemm) int8_gemm;  // the first of int8_variants()
  decltype(&kernels::bf16_gemm) bf16_gemm;  // the first of bf16_variants()
  decltype(&kernels::to_bfloat16) to_bfloat16;
  // This ISA's low-precision variants the CPU runs, best first.
  std::span<const Int8Variant> (*int8_variants)();
  std::span<const Bf16Variant> (*bf16_variants)();
  std::span<const BlockGemmVariant> (*block_gemm_variants)();  // the ggml block products, best first
  std::span<const BlockDotVariant> (*block_dot_variants)();    // their integer products, best first
};

// The table in use (kernels/isa.h chooses it on first use).
const KernelTable& active_kernels();
// The table of `isa`, one of compiled_isas() (whether or not the CPU runs it).
const KernelTable& isa_kernels(Isa isa);

}  // namespace heptapod::kernels
