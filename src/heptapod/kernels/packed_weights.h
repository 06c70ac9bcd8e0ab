// A weight matrix rearranged once, for inference, into the layout the GEMM kernels read directly:
// y = x W^T (+ bias) (then ReLU), with W (out, in). oneDNN's sgemm repacks W inside every call; for the
// 32-128-row products of batched decoding that repacking costs more than the product itself. With oneDNN
// (the default build) W is kept in the matmul primitive's blocked layout, with bias and ReLU fused into the
// product; other builds keep a row-major copy and call gemm().
#pragma once

#include <cstddef>
#include <memory>

#include "heptapod/core/page_buffer.h"
#include "heptapod/kernels/weight_matrix.h"

namespace heptapod::kernels {

// One mapping that holds a model's packed matrices, on transparent huge pages where the system allows them:
// a decoding step streams every weight from memory once, and with 4 KB pages each page would cost a TLB miss
// on the way (base greedy decoding measured 1450-1830 tokens/s with 4 KB pages against 1790-1910 on huge
// pages). The capacity is address space only: pages cost memory once a matrix is packed into them.
class PackedWeightsStorage {
 public:
  explicit PackedWeightsStorage(std::size_t capacity_bytes);
  // `bytes` for one matrix, 64-byte aligned; null when the capacity has no room left for them (the matrix then
  // lives in memory of its own: slower to stream, never wrong).
  void* take(std::size_t bytes);
  std::size_t used() const { return used_; }

 private:
  PageBuffer buffer_;
  std::byte* base_ = nullptr;  // the first 2 MB boundary in the buffer
  std::size_t capacity_ = 0, used_ = 0;
};

// Float32 weights in the GEMM kernels' layout.
class PackedWeights final : public WeightMatrix {
 public:
  // w: (out, in) row-major; copied, into `storage` when given and it has room.
  PackedWeights(const float* w, int out, int in, PackedWeightsStorage* storage = nullptr);
  ~PackedWeights() override;

  void forward_columns(const float* x, int rows, int n0, int n, const float* bias, bool relu,
                       float* y) const override;
  // 64 for oneDNN's blocked panels, 1 for a plain layout.
  int column_align() const override;
  // oneDNN primitives, 0.3-1.5 ms each, shared by all weights of the same shape.
  void prepare(bool bias, bool relu, int columns) const override;
  void row(int o, float* out) const override;
  std::size_t bytes() const override;
  ComputeType type() const override { return ComputeType::Float32; }

  // W[o][i], read back from the packed layout.
  float at(int o, int i) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace heptapod::kernels
