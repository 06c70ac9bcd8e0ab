// PROVISIONAL scalar BlockWeights (replaced by the blockkernels branch).
#include "heptapod/kernels/block_weights.h"

#include <cstring>

#include "heptapod/core/error.h"

namespace heptapod::kernels {

bool is_block_compute_type(GgmlType type) {
  switch (type) {
    case GgmlType::F16: case GgmlType::Q8_0: case GgmlType::Q4_0: case GgmlType::Q4_1: case GgmlType::Q5_0:
    case GgmlType::Q5_1: case GgmlType::Q4_K: case GgmlType::Q5_K: case GgmlType::Q6_K: return true;
    default: return false;
  }
}

struct BlockWeights::Impl {
  std::vector<float> w;
  ComputeType type;
  std::size_t bytes = 0;
};

BlockWeights::BlockWeights(std::span<const BlockPart> parts, int in, ComputeType type, PackedWeightsStorage*)
    : WeightMatrix(0, in), impl_(std::make_unique<Impl>()) {
  impl_->type = type;
  for (const BlockPart& p : parts) {
    const long rb = ggml_row_bytes(p.type, in);
    for (int o = 0; o < p.out; ++o) {
      impl_->w.resize(impl_->w.size() + in);
      dequantize_row(p.type, static_cast<const unsigned char*>(p.rows) + o * rb, impl_->w.data() + impl_->w.size() - in, in);
    }
    impl_->bytes += rb * p.out;
    out_ += p.out;
  }
}
BlockWeights::~BlockWeights() = default;

void BlockWeights::forward_columns(const float* x, int rows, int n0, int n, const float* bias, bool relu, float* y) const {
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < n; ++c) {
      const float* w = impl_->w.data() + static_cast<std::size_t>(n0 + c) * in_;
      float s = 0;
      for (int i = 0; i < in_; ++i) s += x[static_cast<std::size_t>(r) * in_ + i] * w[i];
      if (bias) s += bias[n0 + c];
      if (relu) s = 0 > s ? 0 : s;
      y[static_cast<std::size_t>(r) * n + c] = s;
    }
}
int BlockWeights::column_align() const { return 1; }
void BlockWeights::row(int o, float* out) const { std::memcpy(out, impl_->w.data() + static_cast<std::size_t>(o) * in_, in_ * sizeof(float)); }
std::size_t BlockWeights::bytes() const { return impl_->bytes; }
ComputeType BlockWeights::type() const { return impl_->type; }

}  // namespace heptapod::kernels
