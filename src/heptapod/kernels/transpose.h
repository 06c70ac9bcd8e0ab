// Matrix transpose: 16 x 16 register blocks for float with AVX-512, 8 x 8 with AVX2, plain loops otherwise.
#pragma once

namespace heptapod::kernels {

// in: (rows, cols), leading dimension ld_in -> out: (cols, rows), leading dimension ld_out. Serial.
template <typename T>
void transpose(const T* in, int rows, int cols, int ld_in, T* out, int ld_out);

}  // namespace heptapod::kernels
