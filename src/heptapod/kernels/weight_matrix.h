// A weight matrix prepared once for inference: y = x W^T (+ bias) (then ReLU), W (out, in), whatever the
// precision and layout it is stored in. Linear layers and tied embeddings read their weights through this
// interface, so a new weight type (float packed for the GEMM, int8, bfloat16) is added here alone.
#pragma once

#include <cstddef>

namespace heptapod::kernels {

// How an inference product computes: the weights' element type and the arithmetic it implies. Int4 is
// 4-bit weights in ggml's Q4_0 blocks (32 values, one float16 scale), Int8Blocks 8-bit weights in its Q8_0
// blocks, both with float32 activations; Ggml is each matrix in the ggml block type a GGUF file (or a model
// converted from one) stores it in (kernels/block_weights.h).
enum class ComputeType { Float32, Int8, BFloat16, Int4, Int8Blocks, Ggml };

class WeightMatrix {
 public:
  WeightMatrix(int out, int in) : out_(out), in_(in) {}
  virtual ~WeightMatrix() = default;
  WeightMatrix(const WeightMatrix&) = delete;
  WeightMatrix& operator=(const WeightMatrix&) = delete;

  // Columns [n0, n0 + n) of x W^T (+ bias) (ReLU when `relu`): x (rows, in) -> y (rows, n); only W's rows
  // n0.. are read. n0 must be a multiple of column_align(); bias, when not null, is the full (out) vector.
  virtual void forward_columns(const float* x, int rows, int n0, int n, const float* bias, bool relu,
                               float* y) const = 0;
  // x: (rows, in) -> y: (rows, out).
  void forward(const float* x, int rows, const float* bias, bool relu, float* y) const {
    forward_columns(x, rows, 0, out_, bias, relu, y);
  }
  // The column granularity of the layout (1 for a plain layout).
  virtual int column_align() const = 0;
  // Creates now, rather than on first use, what forward_columns for `columns` columns needs for every row
  // count with these options; nothing for weights that need no preparation.
  virtual void prepare(bool /*bias*/, bool /*relu*/, int /*columns*/) const {}
  // Row o of W (in values) into `out`, as the products see it (dequantized for low-precision weights).
  virtual void row(int o, float* out) const = 0;
  // Bytes the stored weights take.
  virtual std::size_t bytes() const = 0;
  virtual ComputeType type() const = 0;

  int out() const { return out_; }
  int in() const { return in_; }

 protected:
  int out_, in_;
};

}  // namespace heptapod::kernels
