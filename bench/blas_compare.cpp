// Compares the sgemm of every BLAS Debian offers (OpenBLAS OpenMP/pthread, BLIS OpenMP, oneDNN) on the
// Transformer's real GEMM shapes, in one process (each library dlopen'ed privately), and prints GFLOP/s.
// The result picks HEPTAPOD_BLAS's default; it is recorded in docs/blas.md.
//   usage: blas_compare [--threads N] [--seconds S]
#include <dlfcn.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

// CBLAS row-major constants (identical in OpenBLAS and BLIS).
constexpr int kRowMajor = 101, kNoTrans = 111, kTrans = 112;

using CblasSgemm = void (*)(int, int, int, int, int, int, float, const float*, int, const float*, int, float, float*,
                            int);
using DnnlSgemm = int (*)(char, char, long, long, long, float, const float*, long, const float*, long, float, float*,
                          long);
using SetThreads = void (*)(int);

struct Provider {
  std::string name;
  std::string path;
  CblasSgemm cblas = nullptr;
  DnnlSgemm dnnl = nullptr;
  bool loaded = false;
};

struct Shape {
  const char* what;
  int M, N, K;
  bool ta, tb;
};

double seconds_now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

void load(Provider& p, int threads) {
  void* h = dlopen(p.path.c_str(), RTLD_NOW | RTLD_LOCAL | RTLD_DEEPBIND);
  if (!h) {
    std::fprintf(stderr, "skip %s: %s\n", p.name.c_str(), dlerror());
    return;
  }
  if (p.name == "onednn") {
    p.dnnl = reinterpret_cast<DnnlSgemm>(dlsym(h, "dnnl_sgemm"));
  } else {
    p.cblas = reinterpret_cast<CblasSgemm>(dlsym(h, "cblas_sgemm"));
    for (const char* f : {"openblas_set_num_threads", "bli_thread_set_num_threads"})
      if (auto set = reinterpret_cast<SetThreads>(dlsym(h, f))) set(threads);
  }
  p.loaded = p.cblas || p.dnnl;
}

void run(const Provider& p, const Shape& s, const float* A, const float* B, float* C) {
  const int lda = s.ta ? s.M : s.K, ldb = s.tb ? s.K : s.N;
  if (p.cblas)
    p.cblas(kRowMajor, s.ta ? kTrans : kNoTrans, s.tb ? kTrans : kNoTrans, s.M, s.N, s.K, 1.0f, A, lda, B, ldb, 0.0f, C,
            s.N);
  else
    p.dnnl(s.ta ? 'T' : 'N', s.tb ? 'T' : 'N', s.M, s.N, s.K, 1.0f, A, lda, B, ldb, 0.0f, C, s.N);
}

double gflops(const Provider& p, const Shape& s, double budget) {
  std::vector<float> A(static_cast<size_t>(s.M) * s.K, 0.01f), B(static_cast<size_t>(s.K) * s.N, 0.02f),
      C(static_cast<size_t>(s.M) * s.N);
  run(p, s, A.data(), B.data(), C.data());  // warm-up
  double best = 1e30;
  const double start = seconds_now();
  int reps = 0;
  while (reps < 3 || (seconds_now() - start < budget && reps < 1000)) {
    const double t0 = seconds_now();
    run(p, s, A.data(), B.data(), C.data());
    best = std::min(best, seconds_now() - t0);
    ++reps;
  }
  return 2.0 * s.M * s.N * s.K / best * 1e-9;
}

}  // namespace

int main(int argc, char** argv) {
  int threads = 2;
  double budget = 0.3;
  for (int i = 1; i + 1 < argc; ++i) {
    if (!std::strcmp(argv[i], "--threads")) threads = std::atoi(argv[++i]);
    else if (!std::strcmp(argv[i], "--seconds")) budget = std::atof(argv[++i]);
  }
  omp_set_num_threads(threads);
  const std::string lib = "/usr/lib/x86_64-linux-gnu/";
  std::vector<Provider> providers = {{"openblas-openmp", lib + "openblas-openmp/libopenblas.so.0"},
                                     {"openblas-pthread", lib + "openblas-pthread/libopenblas.so.0"},
                                     {"blis-openmp", lib + "blis-openmp/libblis.so.4"},
                                     {"onednn", lib + "libdnnl.so.2"}};
  for (auto& p : providers) load(p, threads);

  // Token rows N = 4096 (a training batch); decode rows = batch 32 x beam 4 = 128.
  const std::vector<Shape> shapes = {
      {"base proj fwd  x W^T", 4096, 512, 512, false, true},
      {"base proj dX   dY W", 4096, 512, 512, false, false},
      {"base proj dW   dY^T X", 512, 512, 4096, true, false},
      {"base ffn1 fwd", 4096, 2048, 512, false, true},
      {"base ffn2 fwd", 4096, 512, 2048, false, true},
      {"base logits V=37000", 4096, 37000, 512, false, true},
      {"small proj fwd", 4096, 256, 256, false, true},
      {"small ffn1 fwd", 4096, 1024, 256, false, true},
      {"small ffn2 dW", 256, 1024, 4096, true, false},
      {"small logits V=8000", 4096, 8000, 256, false, true},
      {"attn scores T=32 D=64", 32, 32, 64, false, true},
      {"decode proj 128 rows", 128, 512, 512, false, true},
      {"decode ffn1 128 rows", 128, 2048, 512, false, true},
      {"decode logits 128 rows", 128, 37000, 512, false, true},
  };
  std::printf("sgemm GFLOP/s, %d threads (best of repeated runs)\n\n%-24s", threads, "shape (M x N x K)");
  for (const auto& p : providers)
    if (p.loaded) std::printf(" %16s", p.name.c_str());
  std::printf("\n");
  std::vector<double> log_sum(providers.size(), 0.0);
  for (const auto& s : shapes) {
    std::printf("%-24s", s.what);
    for (std::size_t i = 0; i < providers.size(); ++i) {
      if (!providers[i].loaded) continue;
      const double g = gflops(providers[i], s, budget);
      log_sum[i] += std::log(g);
      std::printf(" %16.1f", g);
    }
    std::printf("\n");
  }
  std::printf("%-24s", "geometric mean");
  for (std::size_t i = 0; i < providers.size(); ++i)
    if (providers[i].loaded) std::printf(" %16.1f", std::exp(log_sum[i] / shapes.size()));
  std::printf("\n");
  return 0;
}
