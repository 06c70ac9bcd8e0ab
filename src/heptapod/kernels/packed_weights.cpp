// See packed_weights.h. With oneDNN: W is reordered once into the blocked layout the matmul primitive picks
// for it (the same layout for every row count), and one primitive per (rows, in, out, bias, ReLU) is
// created and shared by all weights of that shape. Creating one costs 0.3-1.5 ms, and the encoder meets a new
// row count with almost every batch, so primitives exist for about forty row counts (every count up to 32,
// multiples of 8 up to 64 and of 32 up to kChunkRows) and any other count runs as a few of them, the rows
// read and written in place (no padded copies). Up to kPanelRows rows go to panel_gemm instead when the
// layout is its 64-column panels (AVX-512 machines), and so do the last rows of a larger count there.
#include "heptapod/kernels/packed_weights.h"

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "heptapod/core/error.h"
#include "heptapod/core/pages.h"
#include "heptapod/kernels/blas.h"
#include "heptapod/kernels/elementwise.h"
#include "heptapod/kernels/panel_gemm.h"

#if HEPTAPOD_BLAS_KIND == 3
#include <dnnl.hpp>

#include "heptapod/kernels/onednn_engine.h"
#endif

namespace heptapod::kernels {

PackedWeightsStorage::PackedWeightsStorage(std::size_t capacity_bytes) : capacity_(capacity_bytes) {
  buffer_.reset(capacity_ + kHugePageBytes);
  base_ = huge_page_boundary(buffer_.as<std::byte>());
  advise_huge_pages(base_, capacity_);
}

void* PackedWeightsStorage::take(std::size_t bytes) {
  constexpr std::size_t kAlign = 64;
  const std::size_t at = (used_ + kAlign - 1) / kAlign * kAlign;
  if (at + bytes > capacity_) return nullptr;
  used_ = at + bytes;
  return base_ + at;
}

#if HEPTAPOD_BLAS_KIND == 3

namespace {
using dnnl::memory;
constexpr auto f32 = memory::data_type::f32;
constexpr int kChunkRows = 256;
// Up to this many rows go to panel_gemm: decoding steps (greedy over a batch of 32, beam 4 over 32 sentences,
// batch 1), whose products stream their weights from memory. Measured against oneDNN's product on weights
// not in cache (docs/benchmarks.md): 5-25% faster up to 64 rows; on a base beam step's weights, 4-8% faster
// at 96-128 rows, and within 3% either way at 160-256.
constexpr int kPanelRows = 128;

// Whether a primitive exists for `rows`: every count up to 32, then multiples of 8 up to 64 and of 32 up to
// kChunkRows. Each count costs its primitives (about 0.35 MB per count for the base model's five shapes),
// hence not every count.
bool has_primitive(int rows) {
  return rows <= 32 || (rows <= 64 ? rows % 8 == 0 : rows % 32 == 0 && rows <= kChunkRows);
}

// The most of m rows (m <= kChunkRows) one primitive runs: the largest count with a primitive, at least
// m - 31. The rest follow as another piece.
int primitive_rows(int m) {
  if (m <= 32) return m;
  return m <= 64 ? m / 8 * 8 : m / 32 * 32;
}

struct Entry {
  dnnl::matmul primitive;
  memory::desc src, dst, bias, scratchpad;
};
std::mutex cache_mutex;
// (rows, in, out, bias, relu, stride of the weights' in dimension): the stride tells a column view of a plain
// (in, out) layout from a whole matrix; blocked views have the layout of a whole matrix of their width.
std::map<std::tuple<int, int, int, bool, bool, long>, Entry> cache;
}  // namespace

struct PackedWeights::Impl {
  memory::desc packed_desc;  // logical (in, out): the product's "weights" operand
  memory packed;
  std::vector<std::size_t> in_offsets;  // offset(i, 0) - offset(0, 0): the layout is separable in (k, n)
  int panel_k = 0;  // > 0 when the layout is panel_gemm's (64-column panels of panel_k rows): few rows go there

  // y (rows, n) = x (rows, in) W^T (+ bias) (ReLU) for the weights `view` (in, n) at w, through the cached
  // primitive for `rows`.
  void run(const memory::desc& view, const float* w, const float* x, int rows, const float* bias, bool relu,
           float* y) const;
  // The shared primitive for this shape and weight layout, created on first use.
  const Entry& primitive(const memory::desc& weights, int rows, bool bias, bool relu) const;
  // Columns per block of the layout along out (1 when not blocked along it).
  int column_block() const {
    const auto& blk = packed_desc.data.format_desc.blocking;
    int b = 1;
    for (int i = 0; i < blk.inner_nblks; ++i)
      if (blk.inner_idxs[i] == 1) b *= static_cast<int>(blk.inner_blks[i]);
    return b;
  }
  // The layout of columns [n0, n0 + n) as a matrix (in, n) of its own, read from element (0, n0) on: the same
  // strides and blocks (the whole matrix's own layout when n = out).
  memory::desc view(int n) const {
    memory::desc v = packed_desc;
    const int b = column_block();
    v.data.dims[1] = n;
    v.data.padded_dims[1] = (n + b - 1) / b * b;
    return v;
  }

  dnnl::matmul::primitive_desc describe(int rows, int in, int out, bool bias, bool relu,
                                        const memory::desc& weights) const {
    dnnl::primitive_attr attr;
    // The caller's scratchpad, not the library's: Debian's oneDNN shares one scratchpad among all primitives
    // (it is built without DNNL_ENABLE_CONCURRENT_EXEC), so two threads running products at once (two
    // translators, two models in a server) would overwrite each other's.
    attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
    if (relu) {
      dnnl::post_ops ops;
      ops.append_eltwise(1.0f, dnnl::algorithm::eltwise_relu, 0.0f, 0.0f);
      attr.set_post_ops(ops);
    }
    const memory::desc src({rows, in}, f32, memory::format_tag::ab);
    const memory::desc dst({rows, out}, f32, memory::format_tag::ab);
    if (!bias) return {dnnl::matmul::desc(src, weights, dst), attr, onednn_engine()};
    const memory::desc b({1, out}, f32, memory::format_tag::ab);
    return {dnnl::matmul::desc(src, weights, b, dst), attr, onednn_engine()};
  }

  // Offset (in floats) of logical element (k, n) in the blocked layout, as oneDNN's blocking descriptor
  // defines it: outer blocks by stride, then the inner blocks as mixed-radix digits, outermost first.
  std::size_t offset(int k, int n) const {
    const dnnl_memory_desc_t& md = packed_desc.data;
    const auto& blk = md.format_desc.blocking;
    const long idx[2] = {k, n};
    long block[2] = {1, 1};
    for (int i = 0; i < blk.inner_nblks; ++i) block[blk.inner_idxs[i]] *= blk.inner_blks[i];
    long off = md.offset0;
    for (int d = 0; d < 2; ++d) off += (idx[d] / block[d]) * blk.strides[d];
    long inner = 0, rest[2] = {idx[0] % block[0], idx[1] % block[1]}, below[2] = {block[0], block[1]};
    for (int i = 0; i < blk.inner_nblks; ++i) {
      const int d = blk.inner_idxs[i];
      below[d] /= blk.inner_blks[i];
      inner = inner * blk.inner_blks[i] + (rest[d] / below[d]) % blk.inner_blks[i];
    }
    return static_cast<std::size_t>(off + inner);
  }
};

PackedWeights::PackedWeights(const float* w, int out, int in, PackedWeightsStorage* storage)
    : WeightMatrix(out, in), impl_(std::make_unique<Impl>()) {
  require(out > 0 && in > 0, "packed weights: empty matrix");
  const memory::desc any({in, out}, f32, memory::format_tag::any);
  impl_->packed_desc = impl_->describe(32, in, out, false, false, any).weights_desc();
  require(impl_->packed_desc.data.format_kind == dnnl_blocked && impl_->packed_desc.data.offset0 == 0,
          "packed weights: oneDNN chose a layout this code does not read");
  void* place = storage ? storage->take(impl_->packed_desc.get_size()) : nullptr;
  impl_->packed = place ? memory(impl_->packed_desc, onednn_engine(), place) : memory(impl_->packed_desc, onednn_engine());
  const memory::desc plain_desc({in, out}, f32, memory::format_tag::ba);  // W (out, in) read as (in, out)
  memory plain(plain_desc, onednn_engine(), const_cast<float*>(w));
  dnnl::reorder(plain, impl_->packed).execute(onednn_stream(), plain, impl_->packed);
  onednn_stream().wait();
  impl_->in_offsets.resize(in);
  for (int i = 0; i < in; ++i) impl_->in_offsets[i] = impl_->offset(i, 0) - impl_->offset(0, 0);
  // panel_gemm's layout: element (k, n) at (n / 64) * k_padded * 64 + k * 64 + n % 64.
  const auto& blk = impl_->packed_desc.data.format_desc.blocking;
  const long k_padded = impl_->packed_desc.data.padded_dims[0];
  if (blk.inner_nblks == 2 && blk.inner_idxs[0] == 0 && blk.inner_idxs[1] == 1 && blk.inner_blks[1] == kPanelWidth &&
      blk.strides[0] == blk.inner_blks[0] * kPanelWidth && blk.strides[1] == k_padded * kPanelWidth)
    impl_->panel_k = static_cast<int>(k_padded);
}

PackedWeights::~PackedWeights() = default;

int PackedWeights::column_align() const { return impl_->column_block(); }

void PackedWeights::forward_columns(const float* x, int rows, int n0, int n, const float* bias, bool relu,
                                    float* y) const {
  require(n0 >= 0 && n > 0 && n0 + n <= out_ && n0 % column_align() == 0, "packed weights: bad column range");
  const float* w = static_cast<const float*>(impl_->packed.get_data_handle()) + impl_->offset(0, n0);
  if (bias) bias += n0;
  const memory::desc view = impl_->view(n);
  for (int r0 = 0; r0 < rows;) {
    // Rows [r0, r0 + m): through one primitive, or all the rest through panel_gemm when the layout is its
    // own and no primitive would take more than kPanelRows of them.
    const int left = rows - r0, most = primitive_rows(std::min(kChunkRows, left));
    const bool panel = impl_->panel_k > 0 && most <= kPanelRows;
    const int m = panel ? left : most;
    const float* xm = x + static_cast<std::size_t>(r0) * in_;
    float* ym = y + static_cast<std::size_t>(r0) * n;
    if (panel)
      panel_gemm(w, n, in_, impl_->panel_k, xm, m, bias, relu, ym);
    else
      impl_->run(view, w, xm, m, bias, relu, ym);
    r0 += m;
  }
}

const Entry& PackedWeights::Impl::primitive(const memory::desc& weights, int rows, bool bias, bool relu) const {
  const int in = static_cast<int>(weights.dims()[0]), out = static_cast<int>(weights.dims()[1]);
  const auto key = std::make_tuple(rows, in, out, bias, relu, static_cast<long>(weights.data.format_desc.blocking.strides[0]));
  std::lock_guard<std::mutex> lock(cache_mutex);
  auto it = cache.find(key);
  if (it == cache.end()) {
    const auto pd = describe(rows, in, out, bias, relu, weights);
    require(pd.weights_desc() == weights, "packed weights: oneDNN changed the weight layout");
    it = cache.emplace(key, Entry{dnnl::matmul(pd), pd.src_desc(), pd.dst_desc(), pd.bias_desc(), pd.scratchpad_desc()})
             .first;
  }
  return it->second;  // entries are never removed, and std::map keeps them in place
}

void PackedWeights::prepare(bool bias, bool relu, int columns) const {
  require(columns > 0 && columns <= out_, "packed weights: bad column count");
  const memory::desc view = impl_->view(columns);
  for (int rows = impl_->panel_k > 0 ? kPanelRows + 1 : 1; rows <= kChunkRows; ++rows)
    if (has_primitive(rows)) impl_->primitive(view, rows, bias, relu);
}

void PackedWeights::Impl::run(const memory::desc& view, const float* w, const float* x, int rows, const float* bias,
                              bool relu, float* y) const {
  const Entry* e = &primitive(view, rows, bias != nullptr, relu);
  // Memory objects per call: the same weights may be used by several threads at once.
  const auto& engine = onednn_engine();
  std::unordered_map<int, memory> args{{DNNL_ARG_SRC, memory(e->src, engine, const_cast<float*>(x))},
                                       {DNNL_ARG_WEIGHTS, memory(view, engine, const_cast<float*>(w))},
                                       {DNNL_ARG_DST, memory(e->dst, engine, y)}};
  if (bias) args.emplace(DNNL_ARG_BIAS, memory(e->bias, engine, const_cast<float*>(bias)));
  if (const std::size_t bytes = e->scratchpad.get_size(); bytes > 0) {
    thread_local std::vector<std::byte> scratch;  // this thread's, grown to the largest product's need
    constexpr std::size_t kAlign = 64;
    if (scratch.size() < bytes + kAlign) scratch.resize(bytes + kAlign);
    void* p = scratch.data();
    std::size_t room = scratch.size();
    args.emplace(DNNL_ARG_SCRATCHPAD, memory(e->scratchpad, engine, std::align(kAlign, bytes, p, room)));
  }
  e->primitive.execute(onednn_stream(), args);
}

float PackedWeights::at(int o, int i) const {
  return static_cast<const float*>(impl_->packed.get_data_handle())[impl_->offset(i, o)];
}

void PackedWeights::row(int o, float* out) const {
  const float* data = static_cast<const float*>(impl_->packed.get_data_handle()) + impl_->offset(0, o);
  for (int i = 0; i < in_; ++i) out[i] = data[impl_->in_offsets[i]];
}

std::size_t PackedWeights::bytes() const { return impl_->packed_desc.get_size(); }

#else  // other BLAS builds: a row-major copy and gemm()

struct PackedWeights::Impl {
  std::vector<float> own;  // the copy, unless a storage holds it
  float* w = nullptr;      // (out, in)
};

PackedWeights::PackedWeights(const float* w, int out, int in, PackedWeightsStorage* storage)
    : WeightMatrix(out, in), impl_(std::make_unique<Impl>()) {
  require(out > 0 && in > 0, "packed weights: empty matrix");
  const std::size_t n = static_cast<std::size_t>(out) * in;
  impl_->w = storage ? static_cast<float*>(storage->take(n * sizeof(float))) : nullptr;
  if (!impl_->w) {
    impl_->own.resize(n);
    impl_->w = impl_->own.data();
  }
  std::copy_n(w, n, impl_->w);
}

PackedWeights::~PackedWeights() = default;

void PackedWeights::prepare(bool, bool, int) const {}  // gemm() needs no preparation

int PackedWeights::column_align() const { return 1; }

void PackedWeights::forward_columns(const float* x, int rows, int n0, int n, const float* bias, bool relu,
                                    float* y) const {
  require(n0 >= 0 && n > 0 && n0 + n <= out_, "packed weights: bad column range");
  gemm<float>(Trans::No, Trans::Yes, rows, n, in_, 1.0f, x, in_, impl_->w + static_cast<std::size_t>(n0) * in_,
              in_, 0.0f, y, n);
  if (bias) add_bias(y, bias + n0, rows, n);
  if (relu) relu_forward(y, static_cast<long>(rows) * n);
}

float PackedWeights::at(int o, int i) const { return impl_->w[static_cast<std::size_t>(o) * in_ + i]; }

void PackedWeights::row(int o, float* out) const {
  std::memcpy(out, impl_->w + static_cast<std::size_t>(o) * in_, sizeof(float) * in_);
}

std::size_t PackedWeights::bytes() const { return static_cast<std::size_t>(out_) * in_ * sizeof(float); }

#endif

}  // namespace heptapod::kernels
