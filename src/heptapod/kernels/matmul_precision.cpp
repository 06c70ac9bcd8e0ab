// The large products' precision switch and the bfloat16-input product through oneDNN's bfloat16 matmul.
#include "heptapod/kernels/matmul_precision.h"

#include <atomic>
#include <cstdint>
#include <map>
#include <mutex>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

#include "heptapod/core/cpu_info.h"
#include "heptapod/core/error.h"
#include "heptapod/kernels/isa.h"
#include "heptapod/kernels/low_precision_gemm.h"

#if HEPTAPOD_BLAS_KIND == 3
#include <dnnl.hpp>

#include "heptapod/kernels/onednn_engine.h"
#endif

namespace heptapod::kernels {

namespace {
std::atomic<MatmulPrecision> current{MatmulPrecision::float32};

#if HEPTAPOD_BLAS_KIND == 3
using dnnl::memory;

// Products of one shape: (M, N, K, ta, tb, ldc, alpha, beta).
using Key = std::tuple<int, int, int, bool, bool, int, float, float>;
struct Entry {
  memory::desc a, b, c;  // op(A) (M, K), op(B) (K, N) in bfloat16 as stored; C (M, N) float
  dnnl::matmul primitive;
  std::size_t scratchpad_bytes = 0;
};
std::mutex cache_mutex;
std::map<Key, Entry> cache;
// Training meets a few thousand shapes (the batch's rows vary); past this many the cache starts again.
constexpr std::size_t kMaxCachedShapes = 8192;

// A copy (oneDNN objects are shared handles): the cache may start again while a caller holds it.
Entry primitive_for(const Key& key) {
  std::lock_guard lock(cache_mutex);
  if (auto it = cache.find(key); it != cache.end()) return it->second;
  if (cache.size() >= kMaxCachedShapes) cache.clear();
  const auto [M, N, K, ta, tb, ldc, alpha, beta] = key;
  Entry e;
  e.a = memory::desc({M, K}, memory::data_type::bf16, ta ? memory::dims{1, M} : memory::dims{K, 1});
  e.b = memory::desc({K, N}, memory::data_type::bf16, tb ? memory::dims{1, K} : memory::dims{N, 1});
  e.c = memory::desc({M, N}, memory::data_type::f32, memory::dims{ldc, 1});
  dnnl::primitive_attr attr;
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);  // see kernels/packed_weights.cpp
  if (alpha != 1.0f) attr.set_output_scales(0, {alpha});
  if (beta != 0.0f) {
    dnnl::post_ops ops;
    ops.append_sum(beta);
    attr.set_post_ops(ops);
  }
  const dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(e.a, e.b, e.c), attr, onednn_engine());
  e.primitive = dnnl::matmul(pd);
  e.scratchpad_bytes = pd.scratchpad_desc().get_size();
  return cache.emplace(key, std::move(e)).first->second;
}

// The stored matrix x (rows, cols), leading dimension ld, rounded to bfloat16 into out (rows, cols), unpadded;
// large ones split between the threads by rows.
void round_to_bf16(const float* x, int rows, int cols, int ld, std::vector<std::uint16_t>& out) {
  out.resize(static_cast<std::size_t>(rows) * cols);
#pragma omp parallel for if (static_cast<long>(rows) * cols >= (1 << 16))
  for (int r = 0; r < rows; ++r)
    to_bfloat16(x + static_cast<long>(r) * ld, cols, out.data() + static_cast<std::size_t>(r) * cols);
}
#endif
}  // namespace

const char* matmul_precision_name(MatmulPrecision p) {
  return p == MatmulPrecision::bfloat16 ? "bfloat16" : "float32";
}

MatmulPrecisionChoice set_matmul_precision(MatmulPrecision p) {
  if (p == MatmulPrecision::float32) {
    current = p;
    return {p, ""};
  }
  std::string reason;
#if HEPTAPOD_BLAS_KIND == 3
  if (selected_isa().isa != Isa::avx512)
    reason = std::string("the kernels run the ") + isa_name(selected_isa().isa) + " ISA, not avx512";
  else if (!cpu_info().avx512bf16)
    reason = "this CPU lacks AVX512_BF16";
  else if (!allow_onednn_bf16())
    reason = "oneDNN ran before the choice, capped below avx512_core_bf16";
#else
  reason = std::string("the float GEMM is ") + HEPTAPOD_BLAS_NAME + ", not oneDNN";
#endif
  if (!reason.empty()) {
    current = MatmulPrecision::float32;
    return {MatmulPrecision::float32, reason};
  }
  current = p;
  return {p, ""};
}

MatmulPrecision matmul_precision() { return current; }

void gemm_bf16_inputs(Trans ta, Trans tb, int M, int N, int K, float alpha, const float* A, int lda,
                      const float* B, int ldb, float beta, float* C, int ldc) {
#if HEPTAPOD_BLAS_KIND == 3
  require(current == MatmulPrecision::bfloat16, "gemm_bf16_inputs: the bfloat16 matmul precision is not in effect");
  const bool at = ta == Trans::Yes, bt = tb == Trans::Yes;
  thread_local std::vector<std::uint16_t> a16, b16;  // A (M, K) or, transposed, (K, M); B (K, N) or (N, K)
  thread_local std::vector<std::uint8_t> scratchpad;
  round_to_bf16(A, at ? K : M, at ? M : K, lda, a16);
  round_to_bf16(B, bt ? N : K, bt ? K : N, ldb, b16);
  const Entry e = primitive_for({M, N, K, at, bt, ldc, alpha, beta});
  if (scratchpad.size() < e.scratchpad_bytes) scratchpad.resize(e.scratchpad_bytes);
  const dnnl::engine& eng = onednn_engine();
  memory a(e.a, eng, a16.data()), b(e.b, eng, b16.data()), c(e.c, eng, C);
  std::unordered_map<int, memory> args{{DNNL_ARG_SRC, a}, {DNNL_ARG_WEIGHTS, b}, {DNNL_ARG_DST, c}};
  if (e.scratchpad_bytes > 0)
    args.emplace(DNNL_ARG_SCRATCHPAD, memory(memory::desc({static_cast<memory::dim>(e.scratchpad_bytes)},
                                                          memory::data_type::u8, memory::dims{1}),
                                             eng, scratchpad.data()));
  dnnl::stream& s = onednn_stream();
  e.primitive.execute(s, args);
  s.wait();
#else
  (void)ta, (void)tb, (void)M, (void)N, (void)K, (void)alpha, (void)A, (void)lda, (void)B, (void)ldb, (void)beta,
      (void)C, (void)ldc;
  throw Error("gemm_bf16_inputs: the bfloat16 matmul precision needs oneDNN as the float GEMM");
#endif
}

}  // namespace heptapod::kernels
