// Row primitives of the kernels on float rows, reached through the kernel dispatch (kernels/isa.h): the
// maximum, the sum, both in one pass, exp with its sum and a dot product. Each ISA's versions live in
// kernels/isa/simd.h; these are what tests and code outside the kernels call.
#pragma once

namespace heptapod::kernels {

template <typename T>
struct SumMax {
  T sum, max;
};

// x: (n) -> max_i x[i] (-inf when n == 0).
float max_value(const float* x, long n);
// x: (n) -> sum_i x[i], in the ISA's fixed order.
float sum_value(const float* x, long n);
// x: (n) -> both of the above in one pass (the sum in sum_value's order).
SumMax<float> sum_and_max(const float* x, long n);
// x: (n) -> out (n, may be x, or null to only sum) = exp(scale * (x - shift)); returns the sum of those.
float exp_sum(const float* x, long n, float shift, float scale, float* out);
// x: (n) -> out (n) = exp(x[i] - shift) in double (within about 1 ulp; see isa/exp_terms.cpp). Sampling's
// terms of a softmax over the vocabulary.
void exp_terms(const float* x, long n, double shift, double* out);
// a, b: (n) -> sum_i a[i] b[i].
float dot(const float* a, const float* b, long n);

}  // namespace heptapod::kernels
