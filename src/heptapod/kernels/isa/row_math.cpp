// The row primitives (kernels/vector_math.h) and half-precision rows (kernels/half.h) as dispatched kernels:
// the table's pointers name one ISA's inline versions (isa/simd.h, isa/half_simd.h), each pointer's type
// picking the float overload.
#include "heptapod/kernels/isa/half_simd.h"
#include "heptapod/kernels/isa/registry.h"
#include "heptapod/kernels/isa/simd.h"

namespace heptapod::kernels::HEPTAPOD_ISA {

void register_row_math(KernelTable& t) {
  t.max_value = &max_value;
  t.sum_value = &sum_value;
  t.sum_and_max = &sum_and_max;
  t.exp_sum = &exp_sum;
  t.dot_f32 = &dot;
  t.dot_f16 = &dot;
  t.to_half = &to_half;
  t.add_scaled_f32 = &add_scaled<float>;
  t.add_scaled_f16 = &add_scaled<half>;
}

}  // namespace heptapod::kernels::HEPTAPOD_ISA
