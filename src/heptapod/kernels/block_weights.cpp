// See block_weights.h. The parts' rows are copied into one buffer (in `storage` when it has room), each part
// from a 64-byte boundary; forward_columns splits its columns into one run per thread, cuts each run at the
// part boundaries and hands every piece to the selected ISA's block product.
#include "heptapod/kernels/block_weights.h"

#include <omp.h>

#include <algorithm>
#include <climits>
#include <cstring>

#include "heptapod/core/error.h"
#include "heptapod/kernels/kernel_table.h"
#include "heptapod/kernels/parallel.h"

namespace heptapod::kernels {

bool is_block_compute_type(GgmlType type) {
  switch (type) {
    case GgmlType::F16:
    case GgmlType::Q8_0:
    case GgmlType::Q4_0:
    case GgmlType::Q4_1:
    case GgmlType::Q5_0:
    case GgmlType::Q5_1:
    case GgmlType::Q4_K:
    case GgmlType::Q5_K:
    case GgmlType::Q6_K: return true;
    default: return false;
  }
}

namespace {

constexpr std::size_t kAlign = 64;
// A thread's run of columns starts at a multiple of this (whole register tiles of every ISA).
constexpr int kColumnGrain = 16;

// A stored part: rows [first, first + out) of W, row_bytes each, from `offset` in the buffer.
struct StoredPart {
  GgmlType type;
  long row_bytes;
  int first, out;
  std::size_t offset;
};

std::string type_text(GgmlType type) {
  const GgmlTypeInfo* info = find_ggml_type(static_cast<std::uint32_t>(type));
  return info ? info->name : "id " + std::to_string(static_cast<std::uint32_t>(type));
}

}  // namespace

struct BlockWeights::Impl {
  std::vector<StoredPart> parts;
  std::vector<std::uint8_t> own;  // the buffer when `storage` has no room (aligned inside)
  std::uint8_t* data = nullptr;
  std::size_t bytes = 0;
  ComputeType type = ComputeType::Ggml;

  // The part holding row o (0 <= o < out).
  const StoredPart& part_of(int o) const {
    return *std::prev(std::upper_bound(parts.begin(), parts.end(), o,
                                       [](int row, const StoredPart& p) { return row < p.first; }));
  }
};

BlockWeights::BlockWeights(std::span<const BlockPart> parts, int in, ComputeType type, PackedWeightsStorage* storage)
    : WeightMatrix(0, in), impl_(std::make_unique<Impl>()) {
  require(!parts.empty(), "block weights: no parts");
  require(in > 0, "block weights: rows of " + std::to_string(in) + " values");
  impl_->type = type;
  long out = 0;
  std::size_t bytes = 0;
  for (std::size_t k = 0; k < parts.size(); ++k) {
    const BlockPart& p = parts[k];
    const std::string part = "block weights: part " + std::to_string(k) + " (" + type_text(p.type) + ")";
    require(is_block_compute_type(p.type), part + ": no block product for this type");
    require(p.out > 0 && p.rows != nullptr, part + ": no rows");
    const long block = ggml_type_info(p.type).block_elements;
    require(in % block == 0, part + ": rows of " + std::to_string(in) + " values, not whole blocks of " +
                                 std::to_string(block));
    const long row_bytes = ggml_row_bytes(p.type, in);
    require(out + p.out <= INT_MAX, part + ": more than " + std::to_string(INT_MAX) + " rows in all");
    impl_->parts.push_back({p.type, row_bytes, static_cast<int>(out), p.out, bytes});
    out += p.out;
    bytes += (static_cast<std::size_t>(row_bytes) * p.out + kAlign - 1) / kAlign * kAlign;
  }
  out_ = static_cast<int>(out);
  impl_->bytes = bytes;
  impl_->data = storage ? static_cast<std::uint8_t*>(storage->take(bytes)) : nullptr;
  if (!impl_->data) {
    impl_->own.resize(bytes + kAlign);
    const auto address = reinterpret_cast<std::uintptr_t>(impl_->own.data());
    impl_->data = impl_->own.data() + (kAlign - address % kAlign) % kAlign;
  }
  for (std::size_t k = 0; k < parts.size(); ++k) {
    const StoredPart& s = impl_->parts[k];
    std::memcpy(impl_->data + s.offset, parts[k].rows, static_cast<std::size_t>(s.row_bytes) * s.out);
  }
}

BlockWeights::~BlockWeights() = default;

void BlockWeights::forward_columns(const float* x, int rows, int n0, int n, const float* bias, bool relu,
                                   float* y) const {
  require(n0 >= 0 && n > 0 && n <= out_ - n0,
          "block weights: columns [" + std::to_string(n0) + ", " + std::to_string(static_cast<long>(n0) + n) +
              ") outside the " + std::to_string(out_) + " outputs");
  if (rows <= 0) return;
  BlockGemmFn* run = selected_block_gemm_variant().run;
  // One thread below ~128 KB of weights and little arithmetic: forking would cost more than it saves.
  const long weight_bytes = static_cast<long>(n) * impl_->part_of(n0).row_bytes;
  const bool parallel =
      weight_bytes >= (1L << 17) || static_cast<long>(rows) * n * in_ >= 64 * kParallelMinWork * 16;
  const int threads = parallel ? std::max(1, std::min(omp_get_max_threads(), n / kColumnGrain)) : 1;
#pragma omp parallel num_threads(threads)
  {
    const int t = omp_get_thread_num(), nt = omp_get_num_threads();
    const auto bound = [&](int k) {
      return k == nt ? n0 + n : n0 + static_cast<int>(static_cast<long>(n) * k / nt / kColumnGrain * kColumnGrain);
    };
    for (int o = bound(t), end = bound(t + 1); o < end;) {
      const StoredPart& p = impl_->part_of(o);
      const int stop = std::min(end, p.first + p.out);
      run(p.type, impl_->data + p.offset + static_cast<std::size_t>(o - p.first) * p.row_bytes, p.row_bytes, x, rows,
          in_, stop - o, bias ? bias + o : nullptr, relu, y + (o - n0), n);
      o = stop;
    }
  }
}

int BlockWeights::column_align() const { return 1; }

void BlockWeights::row(int o, float* out) const { dequantize_row(row_type(o), row_blocks(o), out, in_); }

std::size_t BlockWeights::bytes() const { return impl_->bytes; }

ComputeType BlockWeights::type() const { return impl_->type; }

GgmlType BlockWeights::row_type(int o) const {
  require(o >= 0 && o < out_, "block weights: row " + std::to_string(o) + " outside the " + std::to_string(out_));
  return impl_->part_of(o).type;
}

const std::uint8_t* BlockWeights::row_blocks(int o) const {
  require(o >= 0 && o < out_, "block weights: row " + std::to_string(o) + " outside the " + std::to_string(out_));
  const StoredPart& p = impl_->part_of(o);
  return impl_->data + p.offset + static_cast<std::size_t>(o - p.first) * p.row_bytes;
}

}  // namespace heptapod::kernels
