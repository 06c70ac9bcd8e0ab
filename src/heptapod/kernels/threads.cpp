// Threading control over OpenMP and the BLAS.
#include "heptapod/kernels/threads.h"

#include <omp.h>

#include "heptapod/kernels/blas.h"

namespace heptapod {

void set_num_threads(int n) {
  if (n <= 0) n = omp_get_num_procs();
  omp_set_num_threads(n);
  kernels::blas_set_threads(n);
}

int num_threads() { return omp_get_max_threads(); }

}  // namespace heptapod
