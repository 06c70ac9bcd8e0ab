// The ggml block products (BlockWeights: Q8_0, Q4_0, Q4_K, Q6_K) beside the per-row int8 (Int8Weights) and
// float32 (PackedWeights) products, on GPT-2 small's and a 135M LLaMA's shapes, 1 and 32 rows: ms per product
// and GB/s of weights streamed, and each block type's speed over int8's.
//   block_gemm [seconds per case, default 0.25] [MB of weights per type and shape, default 384]
// Each type cycles over enough distinct copies of the matrix (at least the given MB of its own bytes) that
// its weights come from memory, as in a decoding step; the vocabulary projections run as forward_columns
// blocks of 8192 columns, as the decoder calls them.
#include <omp.h>

#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "heptapod/kernels/block_weights.h"
#include "heptapod/kernels/half.h"
#include "heptapod/kernels/isa.h"
#include "heptapod/kernels/low_precision_weights.h"
#include "weight_timing.h"

namespace heptapod::bench {
namespace {

using kernels::GgmlType;

// Rows of `type` for w (out, in): the reference quantizers for Q8_0 and Q4_0; for the K types (no quantizer
// here; their speed does not depend on the values) w's bits as bytes with every float16 scale set to 0.01.
std::vector<std::uint8_t> block_rows(GgmlType type, const std::vector<float>& w, int out, int in) {
  const long row_bytes = kernels::ggml_row_bytes(type, in);
  std::vector<std::uint8_t> rows(static_cast<std::size_t>(out) * row_bytes);
  if (type == GgmlType::Q8_0 || type == GgmlType::Q4_0) {
    (type == GgmlType::Q8_0 ? kernels::quantize_row_q8_0 : kernels::quantize_row_q4_0)(w.data(), rows.data(),
                                                                                       static_cast<long>(w.size()));
    return rows;
  }
  std::memcpy(rows.data(), w.data(), std::min(rows.size(), w.size() * sizeof(float)));
  const long block_bytes = kernels::ggml_type_info(type).block_bytes;
  const kernels::half scale = kernels::to_half_scalar(0.01f);
  for (std::size_t at = 0; at < rows.size(); at += block_bytes)
    for (long field : type == GgmlType::Q6_K ? std::vector<long>{208} : std::vector<long>{0, 2})
      std::memcpy(&rows[at + field], &scale, 2);
  return rows;
}

int run(double seconds, double mb) {
  const GgmlType kBlockTypes[] = {GgmlType::Q8_0, GgmlType::Q4_0, GgmlType::Q4_K, GgmlType::Q6_K};
  std::printf("ISA %s, block product %s, %s, %d threads; at least %.0f MB of weights per type and shape\n\n",
              kernels::isa_name(kernels::selected_isa().isa), kernels::selected_block_gemm_variant().name,
              kernels::low_precision_paths().c_str(), omp_get_max_threads(), mb);
  std::printf(
      "| shape (out x in) | rows | fp32 ms | int8 ms | Q8_0 ms | Q4_0 ms | Q4_K ms | Q6_K ms | fp32 GB/s | "
      "int8 GB/s | Q8_0 GB/s | Q4_0 GB/s | Q4_K GB/s | Q6_K GB/s | Q8_0 x int8 | Q4_0 x | Q4_K x | Q6_K x |\n");
  std::printf("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
  struct Shape {
    const char* model;
    int out, in;
  };
  for (const Shape s : {Shape{"gpt2", 768, 768},
                        {"gpt2", 3072, 768},
                        {"gpt2", 768, 3072},
                        {"gpt2", 50257, 768},
                        {"llama135m", 576, 576},
                        {"llama135m", 1536, 576},
                        {"llama135m", 576, 1536},
                        {"llama135m", 49152, 576}}) {
    const std::size_t elements = static_cast<std::size_t>(s.out) * s.in;
    const auto copies_of = [&](std::size_t bytes) {
      return static_cast<int>(std::max(1.0, mb * (1 << 20) / static_cast<double>(bytes) + 0.999));
    };
    const auto w = uniform(elements, s.out + s.in);
    std::vector<Copies> all;
    all.push_back(make_copies(copies_of(4 * elements), 4 * elements, [&](kernels::PackedWeightsStorage* st) {
      auto m = std::make_unique<kernels::PackedWeights>(w.data(), s.out, s.in, st);
      m->prepare(false, false, std::min(kColumnBlock, s.out));
      if (s.out % kColumnBlock > 0 && s.out > kColumnBlock) m->prepare(false, false, s.out % kColumnBlock);
      return m;
    }));
    {
      std::vector<std::int8_t> q(elements);
      std::vector<float> scales(s.out);
      kernels::quantize_rows_int8(w.data(), s.out, s.in, q.data(), scales.data());
      all.push_back(make_copies(copies_of(elements), elements + 8 * s.out, [&](kernels::PackedWeightsStorage* st) {
        return std::make_unique<kernels::Int8Weights>(q.data(), scales.data(), s.out, s.in, st);
      }));
    }
    for (GgmlType type : kBlockTypes) {
      if (s.in % kernels::ggml_type_info(type).block_elements != 0) {
        all.emplace_back();  // a K type on 576 values: no whole blocks (GGUF files store such rows otherwise)
        continue;
      }
      const auto rows = block_rows(type, w, s.out, s.in);
      const std::vector<kernels::BlockPart> part{{type, rows.data(), s.out}};
      all.push_back(make_copies(copies_of(rows.size()), rows.size() + 64, [&](kernels::PackedWeightsStorage* st) {
        return std::make_unique<kernels::BlockWeights>(part, s.in, kernels::ComputeType::Ggml, st);
      }));
    }
    for (int rows : {1, 32}) {
      const auto x = uniform(static_cast<std::size_t>(rows) * s.in, rows);
      std::vector<float> y(static_cast<std::size_t>(rows) * s.out);
      std::vector<double> ms, gbs;
      for (const Copies& c : all) {
        const bool none = c.matrices.empty();
        ms.push_back(none ? 0.0 : time_ms(c, x.data(), rows, y.data(), seconds));
        gbs.push_back(none ? 0.0 : static_cast<double>(c.matrices.front()->bytes()) / ms.back() * 1e-6);
      }
      // A type without a figure (0) prints as "-".
      const auto cell = [](const char* format, double v) {
        if (v > 0)
          std::printf(format, v);
        else
          std::printf(" - |");
      };
      std::printf("| %s %dx%d | %d |", s.model, s.out, s.in, rows);
      for (double t : ms) cell(" %.4f |", t);
      for (double g : gbs) cell(" %.1f |", g);
      for (std::size_t k = 2; k < ms.size(); ++k) cell(" %.2f |", ms[k] > 0 ? ms[1] / ms[k] : 0.0);
      std::printf("\n");
      std::fflush(stdout);
    }
  }
  return 0;
}

}  // namespace
}  // namespace heptapod::bench

int main(int argc, char** argv) {
  const auto args = heptapod::bench::arguments(argc, argv, 384.0);
  return heptapod::bench::run(args.seconds, args.mb);
}
