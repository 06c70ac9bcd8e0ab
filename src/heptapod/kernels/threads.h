// Threading: one OpenMP pool shared by our kernels and the BLAS (the OpenMP build of OpenBLAS or BLIS).
#pragma once

namespace heptapod {

// Threads the kernels and GEMM use. 0 picks the default (OMP_NUM_THREADS, else every core).
void set_num_threads(int n);
int num_threads();

}  // namespace heptapod
