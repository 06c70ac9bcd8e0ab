// Fully connected layer y = x W^T + b, forward and backward, with an optional LoRA adapter beside W:
// y = x W^T + b + scale (x A^T) B^T (model/lora_config.h).
#pragma once

#include <cstdint>
#include <initializer_list>
#include <span>

#include "heptapod/core/arena.h"
#include "heptapod/kernels/dequantized_product.h"
#include "heptapod/kernels/weight_matrix.h"
#include "heptapod/layers/dropout_site.h"

namespace heptapod {

// Rows [r0, r0 + rank) of an adapter's A, which read the input through a dropout mask of their own (`stream`):
// a plain adapter is one segment, a stacked one (stack_linear) has one per part.
struct AdapterSegment {
  int r0 = 0, rank = 0;
  std::uint64_t stream = 0;
};

// A LoRA adapter: W's low-rank update scale * B A, trained while W stays frozen. LoRA dropout (PEFT's
// lora_dropout) drops the input before A: scale * (drop(x) A^T) B^T, each segment with its own mask.
template <typename T>
struct LowRankAdapter {
  T* a = nullptr;   // (rank, in); null: no adapter
  T* b = nullptr;   // (out, rank)
  T* da = nullptr;  // (rank, in) gradient, accumulated
  T* db = nullptr;  // (out, rank) gradient, accumulated
  int rank = 0;
  T scale = 0;      // alpha / rank
  // The dropout of the current pass (its rate, 0 outside training, and seed), which the model sets; null: none.
  const DropoutSite* dropout = nullptr;
  std::uint64_t stream = 0;                  // a plain adapter's mask key
  const AdapterSegment* segments = nullptr;  // a stacked adapter's (segment_count), null for a plain one
  int segment_count = 0;
};

template <typename T>
struct Linear {
  T* w = nullptr;   // (out, in); null once the model is packed for inference
  T* b = nullptr;   // (out), null for a layer without a bias
  T* dw = nullptr;  // (out, in) gradient, accumulated; null for a frozen W (no gradient computed)
  T* db = nullptr;  // (out) gradient, accumulated (null without a bias)
  int in = 0, out = 0;
  const kernels::WeightMatrix* packed = nullptr;  // W prepared for inference (any compute type), used when set
  // A frozen W read a block of rows at a time (LoRA training, Transformer::hold_frozen_weights): its rows are
  // those of the `frozen_parts` parts in turn, dequantized from low precision (w then null) or float32 rows read
  // in place (kernels/dequantized_product.h), forward and backward. Float models only.
  const kernels::RowSource* frozen = nullptr;
  int frozen_parts = 0;
  // A LoRA adapter beside W (row-major, frozen or packed weights), or none (adapter.a null).
  LowRankAdapter<T> adapter{};
};

// Whether the layer can run backward: its weights are row-major, or frozen and read by row blocks (not packed
// for inference).
template <typename T>
bool has_backward(const Linear<T>& layer) {
  return layer.w != nullptr || layer.frozen != nullptr;
}

// Whether a forward pass adds its output layer's bias, or leaves it to the caller's next pass over the output
// (the post-norm residual adds it in its row pass).
enum class OutputBias { Add, Skip };

// x: (N, in) -> y: (N, out), assigned; the bias left out with OutputBias::Skip.
template <typename T>
void linear_forward(const Linear<T>& layer, const T* x, int N, T* y, OutputBias bias = OutputBias::Add);
// y = x W^T alone, without the bias, for callers that fuse the bias into a pass of their own. Row-major or
// frozen (unpacked) weights only.
template <typename T>
void linear_product(const Linear<T>& layer, const T* x, int N, T* y);
// y = relu(x W^T + b): one fused pass when the weights are packed.
template <typename T>
void linear_relu_forward(const Linear<T>& layer, const T* x, int N, T* y);
// Columns [n0, n0 + n) of x W^T + b alone, y: (N, n); n0 a multiple of linear_column_align(layer).
template <typename T>
void linear_forward_columns(const Linear<T>& layer, const T* x, int N, int n0, int n, T* y);
template <typename T>
int linear_column_align(const Linear<T>& layer);

// Layers that read one input, stacked into one whose outputs are theirs in order: weights copied into
// w ((sum of outs), in) and biases into b (sum of outs); all parts need row-major weights, and biases in all or
// none (then the stacked layer has none), and no adapters (fold them first). One product then replaces several
// narrower ones.
template <typename T>
Linear<T> stack_linear(std::span<const Linear<T>* const> parts, T* w, T* b);
template <typename T>
Linear<T> stack_linear(std::initializer_list<const Linear<T>*> parts, T* w, T* b) {
  return stack_linear(std::span<const Linear<T>* const>(parts.begin(), parts.size()), w, b);
}

// The same with the copies carved from the arena: a stacked layer for one training step. Where a part's
// weights are frozen (read by row blocks), the stacked layer's are too: its row sources are the parts' in turn (the
// others' float rows read where they are), nothing copied. Parts with adapters (of one scale) give it one
// adapter: their A stacked ((sum of ranks), in) and their B as the blocks of a
// block-diagonal ((sum of outs), (sum of ranks)), so that the stacked product adds each part's update to its
// own outputs.
template <typename T>
Linear<T> stack_linear(std::span<const Linear<T>* const> parts, Arena& arena);
template <typename T>
Linear<T> stack_linear(std::initializer_list<const Linear<T>*> parts, Arena& arena) {
  return stack_linear(std::span<const Linear<T>* const>(parts.begin(), parts.size()), arena);
}

// The adapter of a layer stacked from `parts` (in, out: the stacked layer's widths): the parts' A stacked
// ((sum of ranks), in) and their B as the blocks of a block-diagonal ((out), (sum of ranks)), carved from the
// arena, so that the stacked product adds each part's update to its own outputs; none when no part has one.
// Parts with adapters need one scale and one dropout.
template <typename T>
LowRankAdapter<T> stack_adapters(std::span<const Linear<T>* const> parts, int in, int out, Arena& arena);

// Folds the layer's adapter into its row-major weights, W += scale B A, and removes it; no-op without one.
template <typename T>
void fold_adapter(Linear<T>& layer);

// dy: (N, out), x: (N, in) the forward input. dx: (N, in) assigned, or accumulated when accumulate_dx;
// skipped when null. dw accumulated (skipped when null: a frozen W); db too unless the caller already summed it
// (BiasGrad::Done); an adapter's da and db accumulated.
enum class BiasGrad { Compute, Done };
template <typename T>
void linear_backward(const Linear<T>& layer, const T* dy, const T* x, int N, T* dx, bool accumulate_dx,
                     BiasGrad bias = BiasGrad::Compute);

// linear_backward for a layer stacked from `parts`: its weight, bias and adapter gradients are summed in zeroed
// arena scratch, then added to each part's own (the weights' only where the parts have a gradient: all or
// none). dy: (N, stacked.out).
template <typename T>
void stacked_backward(Linear<T> stacked, std::span<const Linear<T>* const> parts, const T* dy, const T* x, int N,
                      T* dx, bool accumulate_dx, Arena& arena);
template <typename T>
void stacked_backward(const Linear<T>& stacked, std::initializer_list<const Linear<T>*> parts, const T* dy,
                      const T* x, int N, T* dx, bool accumulate_dx, Arena& arena) {
  stacked_backward(stacked, std::span<const Linear<T>* const>(parts.begin(), parts.size()), dy, x, N, dx,
                   accumulate_dx, arena);
}

}  // namespace heptapod
