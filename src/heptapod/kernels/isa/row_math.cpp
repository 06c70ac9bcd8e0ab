// The row primitives (kernels/vector_math.h) and half-precision rows (kernels/half.h) as dispatched kernels:
// one ISA's inline versions (isa/simd.h, isa/half_simd.h) behind the table's pointers.
#include "heptapod/kernels/isa/half_simd.h"
#include "heptapod/kernels/isa/registry.h"
#include "heptapod/kernels/isa/simd.h"

namespace heptapod::kernels::HEPTAPOD_ISA {

namespace {

// Out-of-line copies of the inline primitives, so the table can point at them.
float max_value_row(const float* x, long n) { return max_value(x, n); }
float sum_value_row(const float* x, long n) { return sum_value(x, n); }
SumMax<float> sum_and_max_row(const float* x, long n) { return sum_and_max(x, n); }
float exp_sum_row(const float* x, long n, float shift, float scale, float* out) {
  return exp_sum(x, n, shift, scale, out);
}
float dot_row(const float* a, const float* b, long n) { return dot(a, b, n); }
float dot_half_row(const float* a, const half* b, long n) { return dot(a, b, n); }
void to_half_row(const float* x, half* y, long n) { to_half(x, y, n); }

}  // namespace

void register_row_math(KernelTable& t) {
  t.max_value = &max_value_row;
  t.sum_value = &sum_value_row;
  t.sum_and_max = &sum_and_max_row;
  t.exp_sum = &exp_sum_row;
  t.dot_f32 = &dot_row;
  t.dot_f16 = &dot_half_row;
  t.to_half = &to_half_row;
  t.add_scaled_f32 = &add_scaled<float>;
  t.add_scaled_f16 = &add_scaled<half>;
}

}  // namespace heptapod::kernels::HEPTAPOD_ISA
