// Linear layer on GEMM: forward one GEMM plus bias, backward two GEMMs plus the bias reduction; an adapter adds
// two thin GEMMs forward (through the (N, rank) product x A^T) and four backward.
#include "heptapod/layers/linear.h"

#include <algorithm>
#include <type_traits>
#include <vector>

#include "heptapod/core/error.h"
#include "heptapod/kernels/blas.h"
#include "heptapod/kernels/dropout.h"
#include "heptapod/kernels/elementwise.h"

namespace heptapod {

using kernels::gemm;
using kernels::Trans;

namespace {

// The adapter products' scratch, kept per thread and grown as needed, so that training in steady state
// allocates nothing: h = drop(x) A^T and g = scale dy B (N, rank), a segment's dropped input and its part of
// dx (N, in).
template <typename T>
struct AdapterScratch {
  std::vector<T> h, g, dropped, dx;
};

template <typename T>
AdapterScratch<T>& adapter_scratch() {
  thread_local AdapterScratch<T> scratch;
  return scratch;
}

// An adapter's segments: a stacked adapter's own, else one of all its rows.
template <typename T>
std::span<const AdapterSegment> segments_of(const LowRankAdapter<T>& a, AdapterSegment& whole) {
  if (a.segments) return {a.segments, static_cast<std::size_t>(a.segment_count)};
  whole = {0, a.rank, a.stream};
  return {&whole, 1};
}

// The input a segment reads: x itself, or (training with LoRA dropout) x through the segment's mask, kept in
// `dropped` (N, in).
template <typename T>
const T* segment_input(const LowRankAdapter<T>& a, const AdapterSegment& s, const T* x, int N, int in,
                       std::vector<T>& dropped) {
  if (!a.dropout || a.dropout->rate <= 0) return x;
  dropped.resize(static_cast<std::size_t>(N) * in);
  kernels::dropout_copy(x, dropped.data(), static_cast<long>(N) * in, a.dropout->rate, a.dropout->seed, s.stream);
  return dropped.data();
}

// h = drop(x) A^T: (N, rank), the adapter's first product, segment by segment, into the scratch's h.
template <typename T>
const T* adapter_input(const LowRankAdapter<T>& a, const T* x, int N, int in) {
  AdapterScratch<T>& scratch = adapter_scratch<T>();
  scratch.h.resize(static_cast<std::size_t>(N) * a.rank);
  AdapterSegment whole;
  for (const AdapterSegment& s : segments_of(a, whole)) {
    const T* xs = segment_input(a, s, x, N, in, scratch.dropped);
    gemm<T>(Trans::No, Trans::Yes, N, s.rank, in, T(1), xs, in, a.a + static_cast<std::size_t>(s.r0) * in, in, T(0),
            scratch.h.data() + s.r0, a.rank);
  }
  return scratch.h.data();
}

// Adds columns [n0, n0 + n) of the adapter's scale (drop(x) A^T) B^T to y: (N, n); nothing without one.
template <typename T>
void adapter_columns(const Linear<T>& l, const T* x, int N, int n0, int n, T* y) {
  const LowRankAdapter<T>& a = l.adapter;
  if (!a.a) return;
  const T* h = adapter_input(a, x, N, l.in);  // (N, rank)
  gemm<T>(Trans::No, Trans::Yes, N, n, a.rank, a.scale, h, a.rank, a.b + static_cast<std::size_t>(n0) * a.rank, a.rank,
          T(1), y, n);
}

// The frozen weights' row sources.
template <typename T>
std::span<const kernels::RowSource> frozen_rows(const Linear<T>& l) {
  return {l.frozen, static_cast<std::size_t>(l.frozen_parts)};
}

// Columns [n0, n0 + n) of x W^T alone (and the adapter's scale (drop(x) A^T) B^T), y: (N, n), from the
// row-major or frozen weights.
template <typename T>
void product_columns(const Linear<T>& l, const T* x, int N, int n0, int n, T* y) {
  bool frozen = false;
  if constexpr (std::is_same_v<T, float>) {
    frozen = l.frozen != nullptr;
    if (frozen) kernels::dequantized_product(frozen_rows(l), l.in, x, N, n0, n, y);
  }
  if (!frozen)
    gemm<T>(Trans::No, Trans::Yes, N, n, l.in, T(1), x, l.in, l.w + static_cast<std::size_t>(n0) * l.in, l.in, T(0), y, n);
  adapter_columns(l, x, N, n0, n, y);
}

// The adapter's gradients: with h = drop(x) A^T and g = scale dy B (N, rank), dB += scale dy^T h and, segment
// by segment, dA += g^T drop(x) and dx += drop'(g A) (dx already holds the frozen W's part).
template <typename T>
void adapter_backward(const Linear<T>& l, const T* dy, const T* x, int N, T* dx) {
  const LowRankAdapter<T>& a = l.adapter;
  const int r = a.rank, in = l.in;
  const T* h = adapter_input(a, x, N, in);  // (N, rank)
  AdapterScratch<T>& scratch = adapter_scratch<T>();
  std::vector<T>& g = scratch.g;  // (N, rank)
  std::vector<T>& dxs = scratch.dx;
  g.resize(static_cast<std::size_t>(N) * r);
  gemm<T>(Trans::Yes, Trans::No, l.out, r, N, a.scale, dy, l.out, h, r, T(1), a.db, r);
  gemm<T>(Trans::No, Trans::No, N, r, l.out, a.scale, dy, l.out, a.b, r, T(0), g.data(), r);
  AdapterSegment whole;
  for (const AdapterSegment& s : segments_of(a, whole)) {
    const T* xs = segment_input(a, s, x, N, in, scratch.dropped);
    const T* as = a.a + static_cast<std::size_t>(s.r0) * in;
    gemm<T>(Trans::Yes, Trans::No, s.rank, in, N, T(1), g.data() + s.r0, r, xs, in, T(1),
            a.da + static_cast<std::size_t>(s.r0) * in, in);
    if (!dx) continue;
    if (xs == x) {  // no dropout
      gemm<T>(Trans::No, Trans::No, N, in, s.rank, T(1), g.data() + s.r0, r, as, in, T(1), dx, in);
      continue;
    }
    dxs.resize(static_cast<std::size_t>(N) * in);
    gemm<T>(Trans::No, Trans::No, N, in, s.rank, T(1), g.data() + s.r0, r, as, in, T(0), dxs.data(), in);
    kernels::dropout(dxs.data(), static_cast<long>(N) * in, a.dropout->rate, a.dropout->seed, s.stream);  // its mask
    kernels::add(dx, dxs.data(), dx, static_cast<long>(N) * in);
  }
}

// Columns [n0, n0 + n) of y = x W^T + b, then ReLU when asked: one fused product with packed weights, else
// GEMM and row passes.
template <typename T>
void project(const Linear<T>& l, const T* x, int N, int n0, int n, bool relu, T* y, OutputBias bias = OutputBias::Add) {
  const T* b = bias == OutputBias::Add ? l.b : nullptr;
  if constexpr (std::is_same_v<T, float>) {
    if (l.packed && l.adapter.a) {  // the frozen packed product, then the adapter's beside it, then ReLU
      l.packed->forward_columns(x, N, n0, n, b, false, y);
      adapter_columns(l, x, N, n0, n, y);
      if (relu) kernels::relu_forward(y, static_cast<long>(N) * n);
      return;
    }
    if (l.packed) {
      l.packed->forward_columns(x, N, n0, n, b, relu, y);
      return;
    }
  }
  product_columns(l, x, N, n0, n, y);
  if (b) kernels::add_bias(y, b + n0, N, n);
  if (relu) kernels::relu_forward(y, static_cast<long>(N) * n);
}

}  // namespace

template <typename T>
void linear_forward(const Linear<T>& l, const T* x, int N, T* y, OutputBias bias) {
  project(l, x, N, 0, l.out, false, y, bias);
}

template <typename T>
void linear_product(const Linear<T>& l, const T* x, int N, T* y) {
  require(has_backward(l), "linear_product: the weights were packed for inference");
  product_columns(l, x, N, 0, l.out, y);
}

template <typename T>
void linear_relu_forward(const Linear<T>& l, const T* x, int N, T* y) {
  project(l, x, N, 0, l.out, true, y);
}

template <typename T>
void linear_forward_columns(const Linear<T>& l, const T* x, int N, int n0, int n, T* y) {
  require(n0 >= 0 && n > 0 && n0 + n <= l.out && n0 % linear_column_align(l) == 0, "linear: bad column range");
  project(l, x, N, n0, n, false, y);
}

template <typename T>
int linear_column_align(const Linear<T>& l) {
  if constexpr (std::is_same_v<T, float>) {
    if (l.packed) return l.packed->column_align();
  }
  return 1;
}

template <typename T>
void linear_backward(const Linear<T>& l, const T* dy, const T* x, int N, T* dx, bool accumulate_dx, BiasGrad bias) {
  require(has_backward(l), "linear_backward: the weights were packed for inference");
  bool frozen = false;
  if constexpr (std::is_same_v<T, float>) {
    frozen = l.frozen != nullptr;
    require(!frozen || !l.dw, "linear_backward: frozen weights have no gradient");
    if (frozen && dx) kernels::dequantized_transposed_product(frozen_rows(l), l.in, dy, N, dx, accumulate_dx);
  }
  if (dx && !frozen)
    gemm<T>(Trans::No, Trans::No, N, l.in, l.out, T(1), dy, l.out, l.w, l.in, accumulate_dx ? T(1) : T(0), dx, l.in);
  if (l.dw) gemm<T>(Trans::Yes, Trans::No, l.out, l.in, N, T(1), dy, l.out, x, l.in, T(1), l.dw, l.in);
  if (l.b && bias == BiasGrad::Compute) kernels::bias_backward(dy, l.db, N, l.out);
  if (l.adapter.a) adapter_backward(l, dy, x, N, dx);
}

template <typename T>
Linear<T> stack_linear(std::span<const Linear<T>* const> parts, T* w, T* b) {
  Linear<T> s;
  s.in = parts.front()->in;
  s.w = w;
  const bool biased = parts.front()->b != nullptr;
  s.b = biased ? b : nullptr;
  for (const Linear<T>* p : parts) {
    require(p->in == s.in && p->w && (p->b != nullptr) == biased && !p->adapter.a,
            "stack_linear: the layers need one input width, row-major weights without adapters, and biases in all "
            "or none");
    std::copy_n(p->w, static_cast<std::size_t>(p->out) * s.in, w + static_cast<std::size_t>(s.out) * s.in);
    if (biased) std::copy_n(p->b, p->out, b + s.out);
    s.out += p->out;
  }
  return s;
}

template <typename T>
LowRankAdapter<T> stack_adapters(std::span<const Linear<T>* const> parts, int in, int out, Arena& arena) {
  LowRankAdapter<T> s;
  for (const Linear<T>* p : parts) {
    if (!p->adapter.a) continue;
    require(s.rank == 0 || p->adapter.scale == s.scale, "stack_linear: adapters of different scales");
    s.scale = p->adapter.scale;
    s.rank += p->adapter.rank;
  }
  if (s.rank == 0) return {};
  s.a = arena.alloc<T>(static_cast<std::size_t>(s.rank) * in);         // (rank, in)
  s.b = arena.alloc_zero<T>(static_cast<std::size_t>(out) * s.rank);  // (out, rank)
  AdapterSegment* segments = arena.alloc<AdapterSegment>(parts.size());
  s.segments = segments;
  int o = 0, r0 = 0;
  for (const Linear<T>* p : parts) {
    const LowRankAdapter<T>& a = p->adapter;
    if (a.a) {
      require(!a.segments, "stack_linear: a part's adapter is stacked already");
      require(!s.dropout || a.dropout == s.dropout, "stack_linear: adapters of different dropouts");
      s.dropout = a.dropout;
      segments[s.segment_count++] = {r0, a.rank, a.stream};
      std::copy_n(a.a, static_cast<std::size_t>(a.rank) * in, s.a + static_cast<std::size_t>(r0) * in);
      for (int i = 0; i < p->out; ++i)
        std::copy_n(a.b + static_cast<std::size_t>(i) * a.rank, a.rank,
                    s.b + static_cast<std::size_t>(o + i) * s.rank + r0);
      r0 += a.rank;
    }
    o += p->out;
  }
  return s;
}

namespace {

// Adds the gradients of a stacked adapter (stack_adapters') to its parts' adapters: their rows of dA, their
// blocks of dB.
template <typename T>
void scatter_adapter_gradients(const LowRankAdapter<T>& s, std::span<const Linear<T>* const> parts, int in) {
  int o = 0, r0 = 0;
  for (const Linear<T>* p : parts) {
    const LowRankAdapter<T>& a = p->adapter;
    if (a.a) {
      kernels::add(a.da, s.da + static_cast<std::size_t>(r0) * in, a.da, static_cast<long>(a.rank) * in);
      for (int i = 0; i < p->out; ++i)
        kernels::add(a.db + static_cast<std::size_t>(i) * a.rank, s.db + static_cast<std::size_t>(o + i) * s.rank + r0,
                     a.db + static_cast<std::size_t>(i) * a.rank, a.rank);
      r0 += a.rank;
    }
    o += p->out;
  }
}

// Whether the parts' weights have gradients: all or none (a frozen base has none).
template <typename T>
bool parts_have_weight_gradients(std::span<const Linear<T>* const> parts) {
  const bool first = parts.front()->dw != nullptr;
  for (const Linear<T>* p : parts)
    require((p->dw != nullptr) == first, "stacked_backward: weight gradients in some parts but not all");
  return first;
}

// A layer stacked from `parts` of which some hold frozen weights read by row blocks: its row sources are the
// parts' in turn (a row-major part's rows read in place), carved from the arena; its biases copied into b.
template <typename T>
Linear<T> stack_frozen(std::span<const Linear<T>* const> parts, Arena& arena) {
  Linear<T> s;
  s.in = parts.front()->in;
  const bool biased = parts.front()->b != nullptr;
  int sources = 0;
  for (const Linear<T>* p : parts) {
    require(p->in == s.in && (p->w || p->frozen) && (p->b != nullptr) == biased && !p->packed,
            "stack_linear: the layers need one input width, row-major or frozen weights, and biases in all or none");
    sources += p->frozen ? p->frozen_parts : 1;
    s.out += p->out;
  }
  kernels::RowSource* rows = arena.alloc<kernels::RowSource>(sources);
  s.frozen = rows;
  s.b = biased ? arena.alloc<T>(s.out) : nullptr;
  int o = 0;
  for (const Linear<T>* p : parts) {
    if (p->frozen) {
      for (int i = 0; i < p->frozen_parts; ++i) rows[s.frozen_parts++] = p->frozen[i];
    } else if constexpr (std::is_same_v<T, float>) {
      rows[s.frozen_parts++] = {nullptr, p->w, p->out};
    }
    if (biased) std::copy_n(p->b, p->out, s.b + o);
    o += p->out;
  }
  return s;
}

}  // namespace

template <typename T>
Linear<T> stack_linear(std::span<const Linear<T>* const> parts, Arena& arena) {
  int out = 0;
  bool frozen = false;
  for (const Linear<T>* p : parts) {
    out += p->out;
    frozen = frozen || p->frozen;
  }
  const int in = parts.front()->in;
  if (frozen) {
    Linear<T> s = stack_frozen(parts, arena);
    s.adapter = stack_adapters(parts, in, out, arena);
    return s;
  }
  std::vector<Linear<T>> plain(parts.size());  // the parts without their adapters, for the weights' copy
  std::vector<const Linear<T>*> plain_parts;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    plain[i] = *parts[i];
    plain[i].adapter = {};
    plain_parts.push_back(&plain[i]);
  }
  Linear<T> s = stack_linear(std::span<const Linear<T>* const>(plain_parts), arena.alloc<T>(static_cast<std::size_t>(out) * in),
                             arena.alloc<T>(out));
  s.adapter = stack_adapters(parts, in, out, arena);
  return s;
}

template <typename T>
void stacked_backward(Linear<T> s, std::span<const Linear<T>* const> parts, const T* dy, const T* x, int N, T* dx,
                      bool accumulate_dx, Arena& arena) {
  const bool weights = parts_have_weight_gradients(parts);
  s.dw = weights ? arena.alloc_zero<T>(static_cast<std::size_t>(s.out) * s.in) : nullptr;
  s.db = s.b ? arena.alloc_zero<T>(s.out) : nullptr;
  if (s.adapter.a) {
    s.adapter.da = arena.alloc_zero<T>(static_cast<std::size_t>(s.adapter.rank) * s.in);
    s.adapter.db = arena.alloc_zero<T>(static_cast<std::size_t>(s.out) * s.adapter.rank);
  }
  linear_backward(s, dy, x, N, dx, accumulate_dx);
  int o = 0;
  for (const Linear<T>* p : parts) {
    if (weights) kernels::add(p->dw, s.dw + static_cast<std::size_t>(o) * s.in, p->dw, static_cast<long>(p->out) * s.in);
    if (s.db) kernels::add(p->db, s.db + o, p->db, p->out);
    o += p->out;
  }
  if (s.adapter.a) scatter_adapter_gradients(s.adapter, parts, s.in);
}

template <typename T>
void fold_adapter(Linear<T>& l) {
  LowRankAdapter<T>& a = l.adapter;
  if (!a.a) return;
  require(l.w != nullptr, "fold_adapter: the weights were packed for inference");
  gemm<T>(Trans::No, Trans::No, l.out, l.in, a.rank, a.scale, a.b, a.rank, a.a, l.in, T(1), l.w, l.in);
  a = {};
}

template LowRankAdapter<float> stack_adapters<float>(std::span<const Linear<float>* const>, int, int, Arena&);
template LowRankAdapter<double> stack_adapters<double>(std::span<const Linear<double>* const>, int, int, Arena&);
template void fold_adapter<float>(Linear<float>&);
template void fold_adapter<double>(Linear<double>&);
template void linear_forward<float>(const Linear<float>&, const float*, int, float*, OutputBias);
template void linear_forward<double>(const Linear<double>&, const double*, int, double*, OutputBias);
template void linear_forward_columns<float>(const Linear<float>&, const float*, int, int, int, float*);
template void linear_forward_columns<double>(const Linear<double>&, const double*, int, int, int, double*);
template int linear_column_align<float>(const Linear<float>&);
template int linear_column_align<double>(const Linear<double>&);
template void linear_relu_forward<float>(const Linear<float>&, const float*, int, float*);
template void linear_relu_forward<double>(const Linear<double>&, const double*, int, double*);
template void linear_product<float>(const Linear<float>&, const float*, int, float*);
template void linear_product<double>(const Linear<double>&, const double*, int, double*);
template Linear<float> stack_linear<float>(std::span<const Linear<float>* const>, float*, float*);
template Linear<double> stack_linear<double>(std::span<const Linear<double>* const>, double*, double*);
template Linear<float> stack_linear<float>(std::span<const Linear<float>* const>, Arena&);
template Linear<double> stack_linear<double>(std::span<const Linear<double>* const>, Arena&);
template void stacked_backward<float>(Linear<float>, std::span<const Linear<float>* const>, const float*,
                                      const float*, int, float*, bool, Arena&);
template void stacked_backward<double>(Linear<double>, std::span<const Linear<double>* const>, const double*,
                                       const double*, int, double*, bool, Arena&);
template void linear_backward<float>(const Linear<float>&, const float*, const float*, int, float*, bool, BiasGrad);
template void linear_backward<double>(const Linear<double>&, const double*, const double*, int, double*, bool,
                                      BiasGrad);

}  // namespace heptapod
