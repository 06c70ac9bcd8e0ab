// The inference products of float32 PackedWeights, Int8Weights and Bf16Weights side by side, on the base
// model's shapes (docs/low-precision-kernels.md): ms per call, GFLOP/s and the speed-up over float32.
//   low_precision_gemm [seconds per case, default 0.25] [MB of int8 weights per shape, default 128]
// Each type cycles over enough distinct copies of the matrix that its weights come from memory, as in a
// decoding step (the int8 copies take the given MB, the float32 ones four times that); the 32000-column
// output projection runs as forward_columns blocks of 8192 columns, as the decoder calls it.
#include <omp.h>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <vector>

#include "heptapod/kernels/isa.h"
#include "heptapod/kernels/low_precision_weights.h"
#include "heptapod/kernels/packed_weights.h"
#include "weight_timing.h"

namespace heptapod::bench {
namespace {

int run(double seconds, double int8_mb) {
  std::printf("ISA %s, %s, %d threads; int8 weights per shape %.0f MB (float32 x4, bfloat16 x2)\n\n",
              kernels::isa_name(kernels::selected_isa().isa), kernels::low_precision_paths().c_str(),
              omp_get_max_threads(), int8_mb);
  std::printf(
      "|   in |   out | rows | copies | fp32 ms | int8 ms | bf16 ms | fp32 GFLOP/s | int8 GFLOP/s | "
      "bf16 GFLOP/s | int8 x | bf16 x |\n");
  std::printf("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
  struct Shape {
    int in, out;
  };
  for (const Shape s : {Shape{512, 512}, {512, 1024}, {512, 1536}, {512, 2048}, {512, 32000}, {2048, 512}}) {
    const std::size_t elements = static_cast<std::size_t>(s.out) * s.in;
    const int copies = static_cast<int>(std::max(1.0, int8_mb * (1 << 20) / elements));
    const auto w = uniform(elements, s.out + s.in);
    std::vector<std::int8_t> q(elements);
    std::vector<float> scales(s.out);
    kernels::quantize_rows_int8(w.data(), s.out, s.in, q.data(), scales.data());
    std::vector<std::uint16_t> b(elements);
    kernels::to_bfloat16(w.data(), static_cast<long>(elements), b.data());
    const Copies fp32 = make_copies(copies, elements * 4, [&](kernels::PackedWeightsStorage* st) {
      auto m = std::make_unique<kernels::PackedWeights>(w.data(), s.out, s.in, st);
      m->prepare(false, false, std::min(kColumnBlock, s.out));
      if (s.out > kColumnBlock) m->prepare(false, false, s.out % kColumnBlock);
      return m;
    });
    const Copies int8 = make_copies(copies, elements + 8 * s.out, [&](kernels::PackedWeightsStorage* st) {
      return std::make_unique<kernels::Int8Weights>(q.data(), scales.data(), s.out, s.in, st);
    });
    const Copies bf16 = make_copies(copies, elements * 2, [&](kernels::PackedWeightsStorage* st) {
      return std::make_unique<kernels::Bf16Weights>(b.data(), s.out, s.in, st);
    });
    for (int rows : {1, 4, 32, 128, 512}) {
      const auto x = uniform(static_cast<std::size_t>(rows) * s.in, rows);
      std::vector<float> y(static_cast<std::size_t>(rows) * s.out);
      const double t[3] = {time_ms(fp32, x.data(), rows, y.data(), seconds),
                           time_ms(int8, x.data(), rows, y.data(), seconds),
                           time_ms(bf16, x.data(), rows, y.data(), seconds)};
      const double gflop = 2.0 * rows * elements * 1e-9;
      std::printf("| %4d | %5d | %4d | %6d | %7.4f | %7.4f | %7.4f | %12.1f | %12.1f | %12.1f | %6.2f | %6.2f |\n",
                  s.in, s.out, rows, copies, t[0], t[1], t[2], gflop / t[0] * 1e3, gflop / t[1] * 1e3,
                  gflop / t[2] * 1e3, t[0] / t[1], t[0] / t[2]);
      std::fflush(stdout);
    }
  }
  return 0;
}

}  // namespace
}  // namespace heptapod::bench

int main(int argc, char** argv) {
  const auto args = heptapod::bench::arguments(argc, argv, 128.0);
  return heptapod::bench::run(args.seconds, args.mb);
}
