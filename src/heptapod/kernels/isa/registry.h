// How one ISA's kernel sources fill that ISA's kernel table: each source registers its own kernels
// (register_<source>, at its end), and isa/table.cpp calls them all once. Everything here lives in the
// ISA's namespace, heptapod::kernels::<isa> (HEPTAPOD_ISA: baseline, avx2 or avx512).
#pragma once

#include "heptapod/kernels/kernel_table.h"

#ifndef HEPTAPOD_ISA
#error "kernels/isa/ headers belong to kernel sources compiled once per ISA (src/CMakeLists.txt)"
#endif

// Points the float and the double entry of a typed kernel at this ISA's instantiations.
#define HEPTAPOD_REGISTER_TYPED(table, name) \
  ((table).f32.name = &name<float>, (table).f64.name = &name<double>)

// The ISA's name as a string ("avx2"), for naming kernel variants.
#define HEPTAPOD_STRINGIFY_(x) #x
#define HEPTAPOD_STRINGIFY(x) HEPTAPOD_STRINGIFY_(x)
#define HEPTAPOD_ISA_NAME HEPTAPOD_STRINGIFY(HEPTAPOD_ISA)

namespace heptapod::kernels::HEPTAPOD_ISA {

void register_activation(KernelTable& t);
void register_adam_update(KernelTable& t);
void register_bf16_gemm(KernelTable& t);
void register_block_gemm(KernelTable& t);
void register_cached_attention(KernelTable& t);
void register_cross_entropy(KernelTable& t);
void register_dropout(KernelTable& t);
void register_elementwise(KernelTable& t);
void register_embedding(KernelTable& t);
void register_exp_terms(KernelTable& t);
void register_few_rows_gemm(KernelTable& t);
void register_ggml_dot(KernelTable& t);
void register_ggml_gemm(KernelTable& t);
void register_int8_gemm(KernelTable& t);
void register_layer_norm(KernelTable& t);
void register_logits_top(KernelTable& t);
void register_panel_gemm(KernelTable& t);
void register_relu_dropout(KernelTable& t);
void register_row_math(KernelTable& t);
void register_softmax(KernelTable& t);
void register_transpose(KernelTable& t);

// This ISA's table, filled on first use.
const KernelTable& kernel_table();

}  // namespace heptapod::kernels::HEPTAPOD_ISA
