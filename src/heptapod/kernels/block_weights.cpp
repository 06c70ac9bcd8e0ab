// See block_weights.h. The parts' rows are copied into one buffer (in `storage` when it has room), each part
// from a 64-byte boundary; forward_columns quantizes the input once when a part takes the integer product,
// splits its columns into one run per thread, cuts each run at the part boundaries and hands every piece to
// the selected ISA's product for its type.
#include "heptapod/kernels/block_weights.h"

#include <omp.h>

#include <algorithm>
#include <atomic>
#include <cfloat>
#include <climits>
#include <cmath>
#include <cstdlib>
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
    case GgmlType::Q6_K:
      return true;
    default:
      return false;
  }
}

namespace {

std::atomic<BlockActivationPrecision>& chosen_precision() {
  static std::atomic<BlockActivationPrecision> precision = [] {
    const char* text = std::getenv("HEPTAPOD_BLOCK_ACTIVATIONS");
    if (!text || !*text || std::string(text) == "int8") return BlockActivationPrecision::Int8;
    if (std::string(text) == "float32") return BlockActivationPrecision::Float32;
    throw Error("HEPTAPOD_BLOCK_ACTIVATIONS=" + std::string(text) + ": expected int8 or float32");
  }();
  return precision;
}

}  // namespace

BlockActivationPrecision block_activation_precision() { return chosen_precision().load(); }
void set_block_activation_precision(BlockActivationPrecision precision) { chosen_precision().store(precision); }

bool has_integer_block_product(GgmlType type) {
  return is_block_compute_type(type) && type != GgmlType::F16 &&
         block_activation_precision() == BlockActivationPrecision::Int8;
}

void quantize_block_activations(const float* x, int rows, long in, BlockActivations& a) {
  require(in > 0 && in % 32 == 0, "block activations: rows of " + std::to_string(in) + " values, not blocks of 32");
  a.rows = rows;
  a.in = in;
  const long padded = a.padded_in();
  const std::size_t values = static_cast<std::size_t>(rows) * padded;
  a.q.assign(values, 0);
  a.neg_sums.assign(values / 4, 0);
  a.lane_scales.assign(values / 4, 0.0f);
  a.scales.assign(values / 32, 0.0f);
  a.scaled_sums.assign(values / 32, 0.0f);
  a.neg_block_sums.assign(values / 32, 0);
  a.neg_half_sums.assign(values / 16, 0);
  for (std::size_t k = 0; k < static_cast<std::size_t>(rows) * (in / 32); ++k) {
    const std::size_t r = k / (in / 32), b = r * (padded / 32) + k % (in / 32);  // b: the block in the padded rows
    const float* xb = x + 32 * k;  // (32)
    std::int8_t* q = a.q.data() + 32 * b;
    float m = 0.0f;
    bool finite = true;
    for (int i = 0; i < 32; ++i) {
      const float v = std::fabs(xb[i]);
      m = v > m ? v : m;
      finite = finite && v <= FLT_MAX;
    }
    const float d = finite ? m / 127.0f : NAN;
    int sum = 0;
    for (int i = 0; i < 32; ++i) {
      int v = 0;
      if (finite && d != 0.0f)  // (v + 1.5 * 2^23) - 1.5 * 2^23 rounds |v| < 2^22 to the nearest, ties to even
        v = static_cast<int>((std::clamp(xb[i] / d, -127.0f, 127.0f) + 12582912.0f) - 12582912.0f);
      q[i] = static_cast<std::int8_t>(v);
      sum += v;
      if (i % 4 == 3) a.neg_sums[8 * b + i / 4] = -(q[i - 3] + q[i - 2] + q[i - 1] + q[i]);
    }
    a.scales[b] = d;
    std::fill_n(a.lane_scales.begin() + static_cast<long>(8 * b), 8, d);
    a.scaled_sums[b] = d * static_cast<float>(sum);
    a.neg_block_sums[b] = -sum;
    for (int h = 0; h < 2; ++h)
      a.neg_half_sums[2 * b + h] = a.neg_sums[8 * b + 4 * h] + a.neg_sums[8 * b + 4 * h + 1] +
                                   a.neg_sums[8 * b + 4 * h + 2] + a.neg_sums[8 * b + 4 * h + 3];
  }
}

long group_row_bytes(GgmlType type, int in) {
  return type == GgmlType::Q4_K ? in / 256 * kGroupBytesQ4K / kGroupRows : ggml_row_bytes(type, in);
}

namespace {

// A block's float16 scale d, Q5_0's fifth bits qh (4 bytes), and the bytes of its values: 16 nibble pairs
// (Q4_0, Q5_0) or 32 values (Q8_0).
constexpr long kScaleBytes = 2;
long value_bytes(GgmlType type) { return type == GgmlType::Q8_0 ? 32 : 16; }
long fifth_bytes(GgmlType type) { return type == GgmlType::Q5_0 ? 4 : 0; }

// Bit `bit` of the bytes at p, set to `on`.
void put_bit(std::uint8_t* p, long bit, bool on) {
  const auto mask = static_cast<std::uint8_t>(1u << (bit % 8));
  p[bit / 8] = static_cast<std::uint8_t>(on ? p[bit / 8] | mask : p[bit / 8] & ~mask);
}
bool get_bit(const std::uint8_t* p, long bit) { return (p[bit / 8] >> (bit % 8)) & 1; }

// Q5_0's fifth bits: row r's qh (32 bits, value j's bit j) and a group's planes, for t = 0..3 8 bytes whose
// bit 4r + k is value 4t + k's of row r, then 8 for values 16 + 4t + k: each(value, bit in the planes).
template <typename Each>
void for_fifth_bits(long r, Each&& each) {
  for (long t = 0; t < 4; ++t)
    for (long half = 0; half < 2; ++half)
      for (long k = 0; k < 4; ++k) each(16 * half + 4 * t + k, 64 * (2 * t + half) + 4 * r + k);
}

// Calls each(group offset, row offset, bytes, flip) for every run of bytes that moves between a row (ggml's
// layout) and its place in grouped rows: row j of `in` values; flip: 0x80 where the bytes are Q8_0 values, which
// the groups hold as w + 128 (w ^ 0x80), else 0.
// fifth(group offset of the planes, row offset of qh, r): Q5_0's bits (for_fifth_bits).
template <typename Each, typename Fifth>
void for_group_places(GgmlType type, int in, int j, Each&& each, Fifth&& fifth) {
  const long head = kScaleBytes + fifth_bytes(type), blocks = in / 32, block_bytes = head + value_bytes(type);
  const long group = static_cast<long>(j / kGroupRows) * kGroupRows * blocks * block_bytes, r = j % kGroupRows;
  const std::uint8_t flip = type == GgmlType::Q8_0 ? 0x80 : 0;
  for (long b = 0; b < blocks; ++b) {
    const long at = group + b * kGroupRows * block_bytes, from = b * block_bytes;
    each(at + kScaleBytes * r, from, kScaleBytes, 0);
    if (fifth_bytes(type)) fifth(at + kScaleBytes * kGroupRows, from + kScaleBytes, r);
    for (long t = 0; t < value_bytes(type) / 4; ++t)
      each(at + head * kGroupRows + t * 4 * kGroupRows + 4 * r, from + head + 4 * t, 4, flip);
  }
}

// The same for Q4_K: each(group offset, row offset, bytes, 0) for the byte runs (d, dmin, the values 4 at a time),
// scales(group offset of the block, row offset of its 12 scale bytes, r) for each block's scales and mins.
template <typename Each, typename Scales>
void for_k_group_places(int in, int j, Each&& each, Scales&& scales) {
  const long blocks = in / 256, r = j % kGroupRows;
  const long group = static_cast<long>(j / kGroupRows) * blocks * kGroupBytesQ4K;
  for (long b = 0; b < blocks; ++b) {
    const long at = group + b * kGroupBytesQ4K, from = b * 144;
    each(at + 2 * r, from, 2, 0);
    each(at + 32 + 2 * r, from + 2, 2, 0);
    scales(at, from + 4, r);
    for (long c = 0; c < 4; ++c)
      for (long t = 0; t < 8; ++t) each(at + 320 + 512 * c + 64 * t + 4 * r, from + 16 + 32 * c + 4 * t, 4, 0);
  }
}

// The same for Q6_K: each(group offset, row offset, bytes, 0) for d, each scale byte and the runs of 4 bytes.
template <typename Each>
void for_q6k_group_places(int in, int j, Each&& each) {
  const long blocks = in / 256, r = j % kGroupRows;
  const long group = static_cast<long>(j / kGroupRows) * blocks * kGroupBytesQ6K;
  for (long b = 0; b < blocks; ++b) {
    const long at = group + b * kGroupBytesQ6K, from = b * 210;
    each(at + 2 * r, from + 208, 2, 0);
    for (long k = 0; k < 16; ++k) each(at + 32 + 16 * k + r, from + 192 + k, 1, 0);
    for (long h = 0; h < 2; ++h)
      for (long t = 0; t < 8; ++t) {
        const long run = at + 288 + 1536 * h + 192 * t + 4 * r;
        each(run, from + 64 * h + 4 * t, 4, 0);
        each(run + 64, from + 64 * h + 32 + 4 * t, 4, 0);
        each(run + 128, from + 128 + 32 * h + 4 * t, 4, 0);
      }
  }
}

// Every place of row j in the groups of its type, whichever way the bytes move: each(group offset, row offset,
// bytes, flip) for the byte runs, k_scales(group offset of the block, row offset of its 12 scale bytes, r) for
// Q4_K's scales and mins, fifth(...) for Q5_0's bits.
template <typename Each, typename KScales, typename Fifth>
void for_places(GgmlType type, int in, int j, Each&& each, KScales&& k_scales, Fifth&& fifth) {
  if (type == GgmlType::Q6_K)
    for_q6k_group_places(in, j, each);
  else if (type == GgmlType::Q4_K)
    for_k_group_places(in, j, each, k_scales);
  else
    for_group_places(type, in, j, each, fifth);
}

// n bytes from `from` to `to`, each ^ flip.
void copy_flipped(const std::uint8_t* from, std::uint8_t* to, long n, std::uint8_t flip) {
  for (long k = 0; k < n; ++k) to[k] = from[k] ^ flip;
}

}  // namespace

void group_block_rows(GgmlType type, const std::uint8_t* rows, int out, int in, std::uint8_t* groups) {
  require(has_row_groups(type), "row groups: Q4_0, Q5_0, Q8_0, Q4_K or Q6_K only");
  const long block = ggml_type_info(type).block_elements;
  require(out % kGroupRows == 0 && in % block == 0, "row groups: " + std::to_string(out) + " rows of " +
                                                        std::to_string(in) + " values");
  const long row_bytes = ggml_row_bytes(type, in);
  for (int j = 0; j < out; ++j) {
    const std::uint8_t* row = rows + j * row_bytes;
    for_places(
        type, in, j,
        [&](long at, long from, long n, std::uint8_t flip) { copy_flipped(row + from, groups + at, n, flip); },
        [&](long at, long from, long r) {
          for (int s = 0; s < 8; ++s) {
            int scale, min;
            k_scale_min(row + from, s, scale, min);
            groups[at + 64 + 16 * s + r] = static_cast<std::uint8_t>(scale);
            groups[at + 192 + 16 * s + r] = static_cast<std::uint8_t>(min);
          }
        },
        [&](long at, long from, long r) {
          for_fifth_bits(r, [&](long value, long bit) { put_bit(groups + at, bit, get_bit(row + from, value)); });
        });
  }
}

void ungroup_block_row(GgmlType type, const std::uint8_t* groups, int in, int j, std::uint8_t* blocks) {
  for_places(
      type, in, j,
      [&](long at, long from, long n, std::uint8_t flip) { copy_flipped(groups + at, blocks + from, n, flip); },
      [&](long at, long from, long r) {
        int scales[8], mins[8];
        for (int s = 0; s < 8; ++s) {
          scales[s] = groups[at + 64 + 16 * s + r];
          mins[s] = groups[at + 192 + 16 * s + r];
        }
        pack_k_scales(scales, mins, blocks + from);
      },
      [&](long at, long from, long r) {
        for_fifth_bits(r, [&](long value, long bit) { put_bit(blocks + from, value, get_bit(groups + at, bit)); });
      });
}

namespace {

constexpr std::size_t kAlign = 64;
// A thread's run of columns starts at a multiple of this (whole register tiles of every ISA).
constexpr int kColumnGrain = 16;

// A stored part: rows [first, first + out) of W, row_bytes each, from `offset` in the buffer; its first
// `grouped` rows in groups (group_block_rows), the rest as ggml stores them.
struct StoredPart {
  GgmlType type;
  long row_bytes;
  int first, out;
  std::size_t offset;
  bool integer = false;  // the integer product
  int grouped = 0;
  std::size_t grouped_bytes = 0;  // the groups' bytes, the other rows after them

  // Row j >= grouped of the part, as ggml stores it.
  const std::uint8_t* plain_row(const std::uint8_t* data, int j) const {
    return data + offset + grouped_bytes + static_cast<std::size_t>(j - grouped) * row_bytes;
  }
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
  bool any_integer = false;  // a part takes the integer product

  // The part holding row o (0 <= o < out).
  const StoredPart& part_of(int o) const {
    return *std::prev(
        std::upper_bound(parts.begin(), parts.end(), o, [](int row, const StoredPart& p) { return row < p.first; }));
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
    require(in % block == 0,
            part + ": rows of " + std::to_string(in) + " values, not whole blocks of " + std::to_string(block));
    const long row_bytes = ggml_row_bytes(p.type, in);
    require(out + p.out <= INT_MAX, part + ": more than " + std::to_string(INT_MAX) + " rows in all");
    const bool integer = has_integer_block_product(p.type);
    const int grouped = integer && has_row_groups(p.type) ? p.out / kGroupRows * kGroupRows : 0;
    const std::size_t grouped_bytes = static_cast<std::size_t>(group_row_bytes(p.type, in)) * grouped;
    impl_->parts.push_back({p.type, row_bytes, static_cast<int>(out), p.out, bytes, integer, grouped, grouped_bytes});
    impl_->any_integer = impl_->any_integer || integer;
    out += p.out;
    bytes += (grouped_bytes + static_cast<std::size_t>(row_bytes) * (p.out - grouped) + kAlign - 1) / kAlign * kAlign;
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
    const auto* rows = static_cast<const std::uint8_t*>(parts[k].rows);
    if (s.grouped > 0) group_block_rows(s.type, rows, s.grouped, in, impl_->data + s.offset);
    std::memcpy(impl_->data + s.offset + s.grouped_bytes, rows + static_cast<std::size_t>(s.row_bytes) * s.grouped,
                static_cast<std::size_t>(s.row_bytes) * (s.out - s.grouped));
  }
}

BlockWeights::~BlockWeights() = default;

void BlockWeights::forward_columns(const float* x, int rows, int n0, int n, const float* bias, bool relu,
                                   float* y) const {
  require(n0 >= 0 && n > 0 && n <= out_ - n0, "block weights: columns [" + std::to_string(n0) + ", " +
                                                  std::to_string(static_cast<long>(n0) + n) + ") outside the " +
                                                  std::to_string(out_) + " outputs");
  if (rows <= 0) return;
  BlockGemmFn* run = selected_block_gemm_variant().run;
  const BlockDotVariant integer = selected_block_dot_variant();
  thread_local BlockActivations quantized;  // x's blocks, for the parts of integer products
  if (impl_->any_integer) quantize_block_activations(x, rows, in_, quantized);
  const BlockActivations& xq = quantized;  // this thread's, which the team reads
  // One thread below ~128 KB of weights and little arithmetic: forking would cost more than it saves.
  const long weight_bytes = static_cast<long>(n) * impl_->part_of(n0).row_bytes;
  const bool parallel = weight_bytes >= (1L << 17) || static_cast<long>(rows) * n * in_ >= 64 * kParallelMinWork * 16;
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
      const std::uint8_t* part = impl_->data + p.offset;
      // Columns [o, stop) of W, [c0, c1) of the part: those in its groups, then the rest row by row.
      const int c0 = o - p.first, c1 = stop - p.first, grouped_end = std::min(c1, p.grouped);
      if (c0 < grouped_end)
        integer.run_groups(p.type, part, group_row_bytes(p.type, in_), xq, c0, grouped_end, bias ? bias + o : nullptr, relu,
                           y + (o - n0), n);
      if (const int c = std::max(c0, grouped_end); c < c1) {
        const std::uint8_t* w = p.plain_row(impl_->data, c);
        const int at = p.first + c;  // the column of W
        if (p.integer)
          integer.run(p.type, w, p.row_bytes, xq, c1 - c, bias ? bias + at : nullptr, relu, y + (at - n0), n);
        else
          run(p.type, w, p.row_bytes, x, rows, in_, c1 - c, bias ? bias + at : nullptr, relu, y + (at - n0), n);
      }
      o = stop;
    }
  }
}

int BlockWeights::column_align() const { return 1; }

void BlockWeights::row(int o, float* out) const {
  const GgmlType type = row_type(o);
  std::vector<std::uint8_t> blocks(static_cast<std::size_t>(ggml_row_bytes(type, in_)));
  row_blocks(o, blocks.data());
  dequantize_row(type, blocks.data(), out, in_);
}

std::size_t BlockWeights::bytes() const { return impl_->bytes; }

ComputeType BlockWeights::type() const { return impl_->type; }

bool BlockWeights::integer_product(int o) const {
  require(o >= 0 && o < out_, "block weights: row " + std::to_string(o) + " outside the " + std::to_string(out_));
  return impl_->part_of(o).integer;
}

GgmlType BlockWeights::row_type(int o) const {
  require(o >= 0 && o < out_, "block weights: row " + std::to_string(o) + " outside the " + std::to_string(out_));
  return impl_->part_of(o).type;
}

void BlockWeights::row_blocks(int o, std::uint8_t* blocks) const {
  require(o >= 0 && o < out_, "block weights: row " + std::to_string(o) + " outside the " + std::to_string(out_));
  const StoredPart& p = impl_->part_of(o);
  const int j = o - p.first;
  if (j < p.grouped)
    ungroup_block_row(p.type, impl_->data + p.offset, in_, j, blocks);
  else
    std::memcpy(blocks, p.plain_row(impl_->data, j), p.row_bytes);
}

}  // namespace heptapod::kernels
