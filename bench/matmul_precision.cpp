// Training's products alone in both matmul precisions (kernels/matmul_precision.h): the gemm<float> the
// trainer calls, float32 against bfloat16 inputs with float32 accumulation, on GPT-2 small's training shapes
// at 4096 tokens (forward, the input and weight gradients, an output-layer chunk); GFLOP/s and the ratio. What
// explains whether `train --matmul-precision bfloat16` pays on a CPU (docs/benchmarks.md, thirty-eighth run).
//   matmul_precision_bench [seconds per case, default 1]     (threads: OMP_NUM_THREADS)
#include <omp.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "heptapod/kernels/blas.h"
#include "heptapod/kernels/matmul_precision.h"

namespace heptapod::bench {
namespace {

using kernels::Trans;

struct Shape {
  const char* name;
  Trans ta, tb;
  int M, N, K;
};

// GFLOP/s of C (M, N) = op(A) op(B) in the precision in effect, repeated for `seconds` after one untimed call.
double gflops(const Shape& s, double seconds) {
  const int lda = s.ta == Trans::No ? s.K : s.M, ldb = s.tb == Trans::No ? s.N : s.K;
  std::vector<float> a(static_cast<std::size_t>(s.M) * s.K, 0.01f);  // (M, K) or its transpose
  std::vector<float> b(static_cast<std::size_t>(s.K) * s.N, 0.02f);  // (K, N) or its transpose
  std::vector<float> c(static_cast<std::size_t>(s.M) * s.N);         // (M, N)
  auto run = [&] {
    kernels::gemm<float>(s.ta, s.tb, s.M, s.N, s.K, 1.0f, a.data(), lda, b.data(), ldb, 0.0f, c.data(), s.N);
  };
  run();
  int calls = 0;
  double elapsed = 0;
  const auto t0 = std::chrono::steady_clock::now();
  do {
    run();
    ++calls;
    elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  } while (elapsed < seconds);
  return 2.0 * s.M * s.N * s.K * calls / elapsed / 1e9;
}

int run(double seconds) {
  const Shape shapes[] = {
      {"q,k,v forward 4096 x 2304 x 768", Trans::No, Trans::Yes, 4096, 2304, 768},
      {"fc1 forward 4096 x 3072 x 768", Trans::No, Trans::Yes, 4096, 3072, 768},
      {"fc2 forward 4096 x 768 x 3072", Trans::No, Trans::Yes, 4096, 768, 3072},
      {"fc1 dX 4096 x 768 x 3072", Trans::No, Trans::No, 4096, 768, 3072},
      {"fc1 dW 3072 x 768 x 4096", Trans::Yes, Trans::No, 3072, 768, 4096},
      {"output chunk 512 x 50257 x 768", Trans::No, Trans::Yes, 512, 50257, 768},
  };
  // bfloat16 first: it must be chosen before oneDNN's first primitive; float32 runs after it in the same process.
  const kernels::MatmulPrecisionChoice choice = kernels::set_matmul_precision(kernels::MatmulPrecision::bfloat16);
  if (!choice.reason.empty()) {
    std::printf("bfloat16 products do not run here: %s\n", choice.reason.c_str());
    return 1;
  }
  std::vector<double> bf16;
  for (const Shape& s : shapes) bf16.push_back(gflops(s, seconds));
  kernels::set_matmul_precision(kernels::MatmulPrecision::float32);
  std::printf("%d threads\n\n| shape (M x N x K) | float32 GFLOP/s | bfloat16 GFLOP/s | bfloat16 / float32 |\n"
              "|---|---|---|---|\n",
              omp_get_max_threads());
  for (std::size_t i = 0; i < std::size(shapes); ++i) {
    const double f32 = gflops(shapes[i], seconds);
    std::printf("| %s | %.1f | %.1f | %.2fx |\n", shapes[i].name, f32, bf16[i], bf16[i] / f32);
  }
  return 0;
}

}  // namespace
}  // namespace heptapod::bench

int main(int argc, char** argv) { return heptapod::bench::run(argc > 1 ? std::atof(argv[1]) : 1.0); }
