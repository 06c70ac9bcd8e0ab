// See low_precision_weights.h. Both types pack W once into the kernels' panel layout (element (o, i) at
// panel o / 64, k-group i / G, column o % 64, slot i % G; zeros in the padding), in `storage` when it has
// room; the int8 one also keeps its padded scales and 128 * each row's sum (the VNNI path's compensation).
#include "heptapod/kernels/low_precision_weights.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "heptapod/core/error.h"

namespace heptapod::kernels {

namespace {

// Room for n zeroed T: from `storage` when given and it has room, else `own`.
template <typename T>
T* place(PackedWeightsStorage* storage, std::size_t n, std::vector<T>& own) {
  T* p = storage ? static_cast<T*>(storage->take(n * sizeof(T))) : nullptr;
  if (!p) {
    own.resize(n);
    p = own.data();
  }
  std::fill_n(p, n, T(0));
  return p;
}

// The panel layout's shape for W (out, in) in k-groups of `group`.
struct PanelShape {
  int panels, k_groups, group;
  PanelShape(int out, int in, int g)
      : panels((out + kLowPrecisionPanel - 1) / kLowPrecisionPanel), k_groups((in + g - 1) / g), group(g) {}
  std::size_t elements() const { return static_cast<std::size_t>(panels) * k_groups * group * kLowPrecisionPanel; }
  std::size_t columns() const { return static_cast<std::size_t>(panels) * kLowPrecisionPanel; }
  // Where W[o][i] lives.
  std::size_t at(int o, int i) const {
    return ((static_cast<std::size_t>(o / kLowPrecisionPanel) * k_groups + i / group) * kLowPrecisionPanel +
            o % kLowPrecisionPanel) *
               group +
           i % group;
  }
};

void check_columns(const WeightMatrix& w, int n0, int n) {
  require(n0 >= 0 && n > 0 && n0 + n <= w.out() && n0 % kLowPrecisionPanel == 0,
          "low-precision weights: bad column range");
}

}  // namespace

void quantize_rows_int8(const float* w, int out, int in, std::int8_t* values, float* scales) {
  for (int o = 0; o < out; ++o) {
    const float* row = w + static_cast<std::size_t>(o) * in;
    float m = 0.0f;
    for (int i = 0; i < in; ++i) {
      if (!std::isfinite(row[i])) throw Error("quantize_rows_int8: row " + std::to_string(o) + " is not finite");
      m = std::max(m, std::fabs(row[i]));
    }
    scales[o] = m / 127.0f;
    for (int i = 0; i < in; ++i)
      values[static_cast<std::size_t>(o) * in + i] =
          scales[o] == 0.0f ? 0
                            : static_cast<std::int8_t>(std::clamp(std::nearbyint(row[i] / scales[o]), -127.0f, 127.0f));
  }
}

float from_bfloat16(std::uint16_t bits) {
  const std::uint32_t u = static_cast<std::uint32_t>(bits) << 16;
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

struct Int8Weights::Impl {
  PanelShape shape;
  std::vector<std::int8_t> own_values;
  std::vector<std::int32_t> own_compensation;
  std::vector<float> own_scales;
  Int8Panels panels;
};

Int8Weights::Int8Weights(const std::int8_t* values, const float* scales, int out, int in, PackedWeightsStorage* storage)
    : WeightMatrix(out, in) {
  require(out > 0 && in > 0, "int8 weights: empty matrix");
  for (int o = 0; o < out; ++o)
    if (!(std::isfinite(scales[o]) && scales[o] >= 0.0f))
      throw Error("int8 weights: row " + std::to_string(o) + " has scale " + std::to_string(scales[o]));
  impl_ = std::make_unique<Impl>(Impl{PanelShape(out, in, kInt8Group), {}, {}, {}, {}});
  const PanelShape& s = impl_->shape;
  std::int8_t* v = place(storage, s.elements(), impl_->own_values);
  std::int32_t* comp = place(storage, s.columns(), impl_->own_compensation);
  float* sc = place(storage, s.columns(), impl_->own_scales);
  for (int o = 0; o < out; ++o) {
    const std::int8_t* row = values + static_cast<std::size_t>(o) * in;
    std::int32_t sum = 0;
    for (int i = 0; i < in; ++i) {
      v[s.at(o, i)] = row[i];
      sum += row[i];
    }
    comp[o] = 128 * sum;
    sc[o] = scales[o];
  }
  impl_->panels = {v, comp, sc, in, s.k_groups};
}

Int8Weights::~Int8Weights() = default;

void Int8Weights::forward_columns(const float* x, int rows, int n0, int n, const float* bias, bool relu,
                                  float* y) const {
  check_columns(*this, n0, n);
  int8_gemm(impl_->panels, x, rows, n0, n, bias, relu, y);
}

int Int8Weights::column_align() const { return kLowPrecisionPanel; }

void Int8Weights::values(int o, std::int8_t* out) const {
  for (int i = 0; i < in_; ++i) out[i] = impl_->panels.values[impl_->shape.at(o, i)];
}

float Int8Weights::scale(int o) const { return impl_->panels.scales[o]; }

const Int8Panels& Int8Weights::panels() const { return impl_->panels; }

void Int8Weights::row(int o, float* out) const {
  for (int i = 0; i < in_; ++i) out[i] = impl_->panels.values[impl_->shape.at(o, i)] * scale(o);
}

std::size_t Int8Weights::bytes() const {
  return impl_->shape.elements() + impl_->shape.columns() * (sizeof(std::int32_t) + sizeof(float));
}

struct Bf16Weights::Impl {
  PanelShape shape;
  std::vector<std::uint16_t> own_values;
  Bf16Panels panels;
};

Bf16Weights::Bf16Weights(const std::uint16_t* values, int out, int in, PackedWeightsStorage* storage)
    : WeightMatrix(out, in) {
  require(out > 0 && in > 0, "bfloat16 weights: empty matrix");
  impl_ = std::make_unique<Impl>(Impl{PanelShape(out, in, kBf16Group), {}, {}});
  const PanelShape& s = impl_->shape;
  std::uint16_t* v = place(storage, s.elements(), impl_->own_values);
  for (int o = 0; o < out; ++o)
    for (int i = 0; i < in; ++i) v[s.at(o, i)] = values[static_cast<std::size_t>(o) * in + i];
  impl_->panels = {v, in, s.k_groups};
}

Bf16Weights::~Bf16Weights() = default;

void Bf16Weights::forward_columns(const float* x, int rows, int n0, int n, const float* bias, bool relu,
                                  float* y) const {
  check_columns(*this, n0, n);
  bf16_gemm(impl_->panels, x, rows, n0, n, bias, relu, y);
}

int Bf16Weights::column_align() const { return kLowPrecisionPanel; }

void Bf16Weights::values(int o, std::uint16_t* out) const {
  for (int i = 0; i < in_; ++i) out[i] = impl_->panels.values[impl_->shape.at(o, i)];
}

const Bf16Panels& Bf16Weights::panels() const { return impl_->panels; }

void Bf16Weights::row(int o, float* out) const {
  for (int i = 0; i < in_; ++i) out[i] = from_bfloat16(impl_->panels.values[impl_->shape.at(o, i)]);
}

std::size_t Bf16Weights::bytes() const { return impl_->shape.elements() * sizeof(std::uint16_t); }

std::string low_precision_paths() {
  return std::string("int8 ") + selected_int8_variant().name + ", bfloat16 " + selected_bf16_variant().name;
}

}  // namespace heptapod::kernels
