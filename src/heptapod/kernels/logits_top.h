// One block of a decoding step's vocabulary logits for one row: its log-sum-exp, and its scores merged into
// the row's running best-first list of the most likely next tokens.
#pragma once

namespace heptapod::kernels {

// x: (n) logits of tokens id0 .. id0 + n - 1, n >= 1. Returns log(sum_i exp(x[i])). Merges x into the row's
// best-first list of `count` (<= top) values and ids (capacity top), updating count; ties keep the smaller id
// first, as blocks arrive in id order.
float logits_top(const float* x, int n, int id0, int top, int& count, float* values, int* ids);

}  // namespace heptapod::kernels
