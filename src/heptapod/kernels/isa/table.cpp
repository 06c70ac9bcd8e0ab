// One ISA's kernel table: every source's kernels registered once; a kernel left unregistered is a build
// mistake, reported here rather than as a call through a null pointer.
#include <cstring>

#include "heptapod/core/error.h"
#include "heptapod/kernels/isa/registry.h"

namespace heptapod::kernels::HEPTAPOD_ISA {

namespace {

KernelTable filled_table() {
  KernelTable t;
  std::memset(static_cast<void*>(&t), 0, sizeof t);
  for (auto fill : {register_activation, register_adam_update, register_bf16_gemm, register_block_gemm, register_cached_attention,
                    register_cross_entropy, register_dropout, register_elementwise, register_embedding, register_exp_terms,
                    register_few_rows_gemm, register_ggml_dot, register_ggml_gemm, register_int8_gemm, register_layer_norm, register_logits_top,
                    register_panel_gemm, register_relu_dropout,
                    register_row_math, register_softmax, register_transpose})
    fill(t);
  // The table is nothing but function pointers: every one must be set.
  static_assert(sizeof(KernelTable) % sizeof(void (*)()) == 0);
  void (*entries[sizeof(KernelTable) / sizeof(void (*)())])();
  std::memcpy(static_cast<void*>(entries), &t, sizeof t);
  for (std::size_t i = 0; i < std::size(entries); ++i)
    require(entries[i] != nullptr, "kernel table entry " + std::to_string(i) + " is not registered");
  return t;
}

}  // namespace

const KernelTable& kernel_table() {
  static const KernelTable table = filled_table();
  return table;
}

}  // namespace heptapod::kernels::HEPTAPOD_ISA
