// Attention: projections as whole-batch GEMMs (those sharing an input stacked into one), then one parallel loop
// over (sentence, head) that runs that block's score product, softmax, dropout and value product back to back,
// in tiles of query rows, while the tile is in cache. The blocks read column slices of the projections (leading
// dimension 3C, 2C or C, as the projections were stacked); block_gemm stages a transposed operand. The backward
// pass reads the kept probabilities or recomputes them tile by tile (AttentionProbabilities).
#include "heptapod/layers/attention.h"

#include <algorithm>
#include <cmath>
#include <initializer_list>
#include <vector>

#include "heptapod/core/error.h"
#include "heptapod/kernels/block_gemm.h"
#include "heptapod/kernels/dropout.h"
#include "heptapod/kernels/elementwise.h"
#include "heptapod/kernels/softmax.h"
#include "heptapod/kernels/visible_keys.h"

namespace heptapod {

using kernels::block_gemm;
using kernels::BlockOutput;
using kernels::Trans;

AttentionShape::AttentionShape(const Sequences& q, const Sequences& k, bool causal)
    : q_(&q), k_(&k), causal_(causal), score_start_(q.count() + 1, 0) {
  require(q.count() == k.count(), "attention: query and key sentence counts differ");
  for (int b = 0; b < q.count() && causal; ++b)
    require(k.len[b] >= q.len[b], "attention: causal attention needs at least as many keys as queries");
  for (int b = 0; b < q.count(); ++b)
    score_start_[b + 1] = score_start_[b] + static_cast<long>(q.len[b]) * k.len[b];
}

namespace {

// One (sentence, head) block: where its rows and scores live. Query head h reads key/value head h / group.
struct Block {
  int lq, lk;         // query and key rows
  long q_off, k_off;  // first element of the head's column slice in the query and key/value matrices
  long c_off;         // the same in the (Nq, Q) context and its gradient
  long s_off;         // first score of the (lq, lk) block
};

Block block(const AttentionShape& s, int bh, int H, int group, int D, int ldq, int ldkv) {
  const int b = bh / H, h = bh % H;
  const long q_row = s.q().start[b];
  return {s.q().len[b], s.k().len[b], q_row * ldq + h * D,
          static_cast<long>(s.k().start[b]) * ldkv + (h / group) * D, q_row * H * D + h * D, s.score_offset(b, h, H)};
}

// The query rows of a block run together: kTileRows at a time (a tile's scores, rows by the block's keys, stay
// in a core's cache), or the whole block where a score term takes part (its interface takes whole blocks).
constexpr int kTileRows = 64;
int tile_rows(int lq, bool whole) { return whole ? std::max(lq, 1) : kTileRows; }

// Keys [0, result) that any of rows [i0, i0 + rows) of a block may see: all, or for causal attention those up
// to the last row's.
int tile_width(const Block& blk, bool causal, int i0, int rows) {
  return causal ? kernels::visible_keys(blk.lq, blk.lk, true, i0 + rows - 1) : blk.lk;
}

// What the tiles of one attention call share.
template <typename T>
struct TileRun {
  const AttentionSaved<T>& saved;
  const AttentionShape& shape;
  const DropoutSite& drop;
  const ScoreTerm<T>* term;
  int H, group, D;
  T scale;
  Block block(int bh) const { return heptapod::block(shape, bh, H, group, D, saved.ldq, saved.ldkv); }
};

// Rows [i0, i0 + rows) of block bh's probabilities over its keys [0, width): the raw products of queries and keys
// (plus the term's), the softmax over each row's visible keys, zeros on to width, into p (rows, width), rows
// blk.lk apart; and into pd the same after attention dropout (pd == p without dropout, its mask indexed by the
// element's place in the whole block). Each element is made by the same operations in the same order as in a
// single tile of the whole block, so the tiling never changes a byte.
template <typename T>
void tile_probabilities(const TileRun<T>& run, int bh, const Block& blk, int i0, int rows, int width, T* p, T* pd) {
  const AttentionSaved<T>& saved = run.saved;
  const long ld = blk.lk;
  block_gemm<T>(Trans::No, Trans::Yes, rows, width, run.D, saved.q + blk.q_off + static_cast<long>(i0) * saved.ldq,
                saved.ldq, saved.k + blk.k_off, saved.ldkv, p, static_cast<int>(ld));
  if (run.term)  // whole blocks only (tile_rows): i0 == 0, rows == lq, width == lk
    run.term->add(bh / run.H, bh % run.H, saved.q + blk.q_off, saved.ldq, saved.k + blk.k_off, saved.ldkv, blk.lq,
                  blk.lk, p);
  for (int r = 0; r < rows; ++r) {
    T* row = p + r * ld;
    const int visible = kernels::visible_keys(blk.lq, blk.lk, run.shape.causal(), i0 + r);
    kernels::attention_softmax_forward(row, 1, visible, false, run.scale);
    std::fill(row + visible, row + width, T(0));
    if (pd != p)
      kernels::dropout_copy_slice(row, pd + r * ld, width, blk.s_off + (static_cast<long>(i0) + r) * blk.lk,
                                  run.drop.rate, run.drop.seed, run.drop.stream);
  }
}

// Per-thread room for one tile's probabilities, dropped probabilities and score gradients: (rows, lk) each.
template <typename T>
struct TileBuffers {
  std::vector<T> p, pd, ds;
  static T* fit(std::vector<T>& v, long n) {
    if (static_cast<long>(v.size()) < n) v.resize(static_cast<std::size_t>(n));
    return v.data();
  }
};

// Where rows [i0, i0 + rows) of a block's probabilities and dropped probabilities live, rows lk apart: in the
// kept blocks (saved.probs set), else in this thread's room (the dropped ones the same as the others without
// dropout).
template <typename T>
struct TileProbabilities {
  T* p;
  T* pd;
};
template <typename T>
TileProbabilities<T> tile_storage(const AttentionSaved<T>& saved, TileBuffers<T>& room, const Block& blk, int i0,
                                  int rows, float dropout) {
  const long at = blk.s_off + static_cast<long>(i0) * blk.lk, n = static_cast<long>(rows) * blk.lk;
  if (saved.probs) return {saved.probs + at, saved.dropped + at};
  T* p = TileBuffers<T>::fit(room.p, n);
  return {p, dropout > 0 ? TileBuffers<T>::fit(room.pd, n) : p};
}

// Columns [n0, n0 + n) of a packed projection over x (N rows) -> y (N, n): the columns alone where the packing
// allows, else all of them and a copy.
template <typename T>
void packed_columns(const Linear<T>& l, const T* x, int N, int n0, int n, Arena& arena, T* y) {
  if (n0 % linear_column_align(l) == 0) {
    linear_forward_columns(l, x, N, n0, n, y);
    return;
  }
  T* all = arena.alloc<T>(static_cast<std::size_t>(N) * l.out);  // (N, out)
  linear_forward(l, x, N, all);
  for (int r = 0; r < N; ++r)
    std::copy_n(all + static_cast<std::size_t>(r) * l.out + n0, n, y + static_cast<std::size_t>(r) * n);
}

}  // namespace

template <typename T>
void project_keys_values(const MultiHeadAttention<T>& attn, const T* x, int N, Arena& arena, T* kv,
                         Linear<T>* stacked) {
  if (attn.qkv.packed) {
    packed_columns(attn.qkv, x, N, attn.query_width(), 2 * attn.key_value_width(), arena, kv);
    return;
  }
  const Linear<T> s = stacked_projection(attn, false, arena);
  linear_forward(s, x, N, kv);
  if (stacked) *stacked = s;
}

template <typename T>
void prepare_queries_keys(const MultiHeadAttention<T>& attn, T* qkv, long ld, int N, const RotaryAngles<T>* rotary,
                          Arena& arena, AttentionSaved<T>& saved) {
  const int H = attn.heads, KH = attn.key_value_heads(), D = attn.head_size();
  T* k = qkv + attn.query_width();
  if (attn.q_norm.gamma) {
    head_norm_forward(attn.q_norm, qkv, ld, N, H, arena, saved.q_norm);
    head_norm_forward(attn.k_norm, k, ld, N, KH, arena, saved.k_norm);
  }
  saved.rotary = rotary;
  if (!rotary) return;
  rotate_heads(*rotary, qkv, ld, H, D);
  rotate_heads(*rotary, k, ld, KH, D);
}

template <typename T>
void attention_forward(const MultiHeadAttention<T>& attn, const T* xq, const T* xkv, const AttentionShape& s,
                       const DropoutSite& drop, Arena& arena, AttentionSaved<T>& saved, T* y, OutputBias out_bias,
                       const ProjectedKeysValues<T>* projected, const ScoreTerm<T>* term,
                       const RotaryAngles<T>* rotary) {
  const int H = attn.heads, D = attn.head_size(), Q = attn.query_width(), K = attn.key_value_width();
  const int group = H / attn.key_value_heads();
  const int Nq = s.q().rows(), Nk = s.k().rows();
  const long score_count = s.scores(H);
  const bool self = xq == xkv;
  require(self || (!rotary && !attn.q_norm.gamma), "attention: rotary positions and qk_norm are self-attention's");
  saved.rotary = nullptr;
  if (self) {
    // An inference model's packed q|k|v, else row-major copies for this step.
    saved.stacked = stacked_projection(attn, true, arena);
    saved.q = arena.alloc<T>(static_cast<std::size_t>(Nq) * (Q + 2 * K));  // (Nq, Q + 2K): q | k | v per row
    linear_forward(saved.stacked, xq, Nq, saved.q);
    saved.k = saved.q + Q;
    saved.ldq = saved.ldkv = Q + 2 * K;
    prepare_queries_keys(attn, saved.q, saved.ldq, Nq, rotary, arena, saved);
  } else {
    // A self-attention packed as q|k|v whose keys are other rows (Transformer-XL's memory and segment) reads
    // its column blocks; else its own projections.
    saved.q = arena.alloc<T>(static_cast<std::size_t>(Nq) * Q);
    if (attn.qkv.packed) packed_columns(attn.qkv, xq, Nq, 0, Q, arena, saved.q);
    else linear_forward(attn.q_proj, xq, Nq, saved.q);
    if (projected) {
      saved.k = projected->kv;
      saved.ldkv = projected->ld;
    } else {
      T* kv = arena.alloc<T>(static_cast<std::size_t>(Nk) * 2 * K);  // (Nk, 2K): k | v per row
      project_keys_values(attn, xkv, Nk, arena, kv, &saved.stacked);
      saved.k = kv;
      saved.ldkv = 2 * K;
    }
    saved.ldq = Q;
  }
  saved.v = saved.k + K;
  const bool keep = saved.policy == AttentionProbabilities::Keep;
  saved.probs = keep ? arena.alloc<T>(score_count) : nullptr;
  saved.dropped = keep && drop.rate > 0 ? arena.alloc<T>(score_count) : saved.probs;
  saved.context = arena.alloc<T>(static_cast<std::size_t>(Nq) * Q);

  const TileRun<T> run{saved, s, drop, term, H, group, D, attn.scaled ? T(1) / std::sqrt(T(D)) : T(1)};
#pragma omp parallel for schedule(dynamic)
  for (int bh = 0; bh < s.count() * H; ++bh) {
    thread_local TileBuffers<T> room;
    const Block blk = run.block(bh);
    const int step = tile_rows(blk.lq, term != nullptr);
    // A sentence without keys (an empty source) gets a zero context: its products have no inner terms.
    for (int i0 = 0; i0 < blk.lq; i0 += step) {
      const int rows = std::min(step, blk.lq - i0), width = tile_width(blk, s.causal(), i0, rows);
      const TileProbabilities<T> tile = tile_storage(saved, room, blk, i0, rows, drop.rate);  // (rows, width) each
      tile_probabilities(run, bh, blk, i0, rows, width, tile.p, tile.pd);
      // context rows (rows, D), leading dimension Q
      block_gemm<T>(Trans::No, Trans::No, rows, D, width, tile.pd, blk.lk, saved.v + blk.k_off, saved.ldkv,
                    saved.context + blk.c_off + static_cast<long>(i0) * Q, Q);
    }
  }
  linear_forward(attn.out_proj, saved.context, Nq, y, out_bias);
}

template <typename T>
void attention_backward(const MultiHeadAttention<T>& attn, const T* dy, const T* xq, const T* xkv,
                        const AttentionShape& s, const DropoutSite& drop, const AttentionSaved<T>& saved,
                        Arena& arena, T* dxq, bool accumulate_dxq, T* dxkv, BiasGrad out_bias,
                        const ProjectedKeysValues<T>* projected, ScoreTerm<T>* term) {
  const int H = attn.heads, KH = attn.key_value_heads(), D = attn.head_size(), Q = attn.query_width(),
            K = attn.key_value_width();
  const int group = H / KH;
  const int Nq = s.q().rows(), Nk = s.k().rows();
  const bool self = xq == xkv;
  require(has_backward(attn.out_proj), "attention_backward: the forward pass ran on packed weights");
  require(!projected || projected->dkv, "attention_backward: no room for the projected keys' gradient");
  T* dcontext = arena.alloc<T>(static_cast<std::size_t>(Nq) * Q);  // (Nq, Q)
  // The gradients of the projections, in the forward's layout: (Nq, Q + 2K) for self-attention; (Nq, Q) and
  // (Nk, 2K) for cross-attention.
  const int ldq = saved.ldq, ldkv = saved.ldkv;
  T* dq = arena.alloc<T>(static_cast<std::size_t>(Nq) * ldq);
  T* dk = self ? dq + Q : projected ? projected->dkv : arena.alloc<T>(static_cast<std::size_t>(Nk) * ldkv);
  T* dv = dk + K;
  linear_backward(attn.out_proj, dy, saved.context, Nq, dcontext, false, out_bias);
  if (term) term->begin_backward();

  const TileRun<T> run{saved, s, drop, term, H, group, D, attn.scaled ? T(1) / std::sqrt(T(D)) : T(1)};
  // One task per (sentence, key/value head): its group's query heads in order, so that their gradients at the
  // shared keys and values add up in one thread (the first head's go straight to dk and dv, the others' through
  // `extra`). Within a head, the tiles add their shares of dK and dV in row order: the bytes of one product
  // over all rows.
#pragma omp parallel for schedule(dynamic)
  for (int bg = 0; bg < s.count() * KH; ++bg) {
    thread_local std::vector<T> extra;  // (lk, 2D): a later head's dK and dV before they are added
    thread_local TileBuffers<T> room;
    for (int h = (bg % KH) * group, first = h; h < first + group; ++h) {
      const int bh = bg / KH * H + h;
      const Block blk = run.block(bh);
      const bool direct = h == first;
      if (!direct) extra.resize(static_cast<std::size_t>(blk.lk) * 2 * D);
      T* dk_h = direct ? dk + blk.k_off : extra.data();      // (lk, D)
      T* dv_h = direct ? dv + blk.k_off : extra.data() + D;  // (lk, D)
      const int ldk_h = direct ? ldkv : 2 * D;
      for (int j = 0; j < blk.lk; ++j) {
        std::fill_n(dk_h + static_cast<long>(j) * ldk_h, D, T(0));
        std::fill_n(dv_h + static_cast<long>(j) * ldk_h, D, T(0));
      }
      const int step = tile_rows(blk.lq, term != nullptr);
      for (int i0 = 0; i0 < blk.lq; i0 += step) {
        const int rows = std::min(step, blk.lq - i0), width = tile_width(blk, s.causal(), i0, rows);
        // The tile's probabilities before and after dropout, (rows, width), rows lk apart: kept or remade.
        const TileProbabilities<T> tile = tile_storage(saved, room, blk, i0, rows, drop.rate);
        if (!saved.probs) tile_probabilities(run, bh, blk, i0, rows, width, tile.p, tile.pd);
        const T *p = tile.p, *pd = tile.pd;
        T* ds = TileBuffers<T>::fit(room.ds, static_cast<long>(rows) * blk.lk);  // (rows, width), rows lk apart
        const T* dctx = dcontext + blk.c_off + static_cast<long>(i0) * Q;      // (rows, D), leading dimension Q
        const T* q_tile = saved.q + blk.q_off + static_cast<long>(i0) * ldq;   // (rows, D), leading dimension ldq
        T* dq_tile = dq + blk.q_off + static_cast<long>(i0) * ldq;             // (rows, D), leading dimension ldq
        // dP = dcontext V^T ; dV += P^T dcontext
        block_gemm<T>(Trans::No, Trans::Yes, rows, width, D, dctx, Q, saved.v + blk.k_off, ldkv, ds, blk.lk);
        block_gemm<T>(Trans::Yes, Trans::No, width, D, rows, pd, blk.lk, dctx, Q, dv_h, ldk_h, BlockOutput::Accumulate);
        for (int r = 0; r < rows; ++r) {
          // The dropout mask read off the dropped probabilities: where a kept probability was 0 the softmax
          // backward multiplies the difference by that 0 anyway.
          T* ds_row = ds + static_cast<long>(r) * blk.lk;
          kernels::dropout_backward_from_output(ds_row, pd + static_cast<long>(r) * blk.lk, width, drop.rate);
          kernels::attention_softmax_backward(p + static_cast<long>(r) * blk.lk, ds_row, 1, width, run.scale);
        }
        // dQ = dS K ; dK += dS^T Q
        block_gemm<T>(Trans::No, Trans::No, rows, D, width, ds, blk.lk, saved.k + blk.k_off, ldkv, dq_tile, ldq);
        block_gemm<T>(Trans::Yes, Trans::No, width, D, rows, ds, blk.lk, q_tile, ldq, dk_h, ldk_h,
                      BlockOutput::Accumulate);
        if (term)  // whole blocks only (tile_rows)
          term->backward(bh / H, h, saved.q + blk.q_off, ldq, saved.k + blk.k_off, ldkv, ds, blk.lq, blk.lk,
                         dq + blk.q_off, dk_h);
      }
      if (direct) continue;
      for (int j = 0; j < blk.lk; ++j)
        for (int d = 0; d < D; ++d) {
          dk[blk.k_off + static_cast<long>(j) * ldkv + d] += extra[static_cast<std::size_t>(j) * 2 * D + d];
          dv[blk.k_off + static_cast<long>(j) * ldkv + d] += extra[static_cast<std::size_t>(j) * 2 * D + D + d];
        }
    }
  }
  if (self) {
    // Back through the rotation and the heads' norms to the projections' outputs.
    if (saved.rotary) {
      rotate_heads(*saved.rotary, dq, ldq, H, D, true);
      rotate_heads(*saved.rotary, dk, ldq, KH, D, true);
    }
    if (attn.q_norm.gamma) {
      head_norm_backward(attn.q_norm, dq, ldq, H, saved.q_norm, arena);
      head_norm_backward(attn.k_norm, dk, ldq, KH, saved.k_norm, arena);
    }
    stacked_backward(saved.stacked, std::span<const Linear<T>* const>(attn.self_parts()), dq, xq, Nq, dxq,
                     accumulate_dxq, arena);
  } else {
    linear_backward(attn.q_proj, dq, xq, Nq, dxq, accumulate_dxq);
    if (!projected)
      stacked_backward(saved.stacked, std::span<const Linear<T>* const>(attn.cross_parts()), dk, xkv, Nk, dxkv, true,
                       arena);
  }
}

template void project_keys_values<float>(const MultiHeadAttention<float>&, const float*, int, Arena&, float*,
                                         Linear<float>*);
template void project_keys_values<double>(const MultiHeadAttention<double>&, const double*, int, Arena&, double*,
                                          Linear<double>*);
template void attention_forward<float>(const MultiHeadAttention<float>&, const float*, const float*,
                                       const AttentionShape&, const DropoutSite&, Arena&, AttentionSaved<float>&,
                                       float*, OutputBias, const ProjectedKeysValues<float>*,
                                       const ScoreTerm<float>*, const RotaryAngles<float>*);
template void attention_forward<double>(const MultiHeadAttention<double>&, const double*, const double*,
                                        const AttentionShape&, const DropoutSite&, Arena&, AttentionSaved<double>&,
                                        double*, OutputBias, const ProjectedKeysValues<double>*,
                                        const ScoreTerm<double>*, const RotaryAngles<double>*);
template void prepare_queries_keys<float>(const MultiHeadAttention<float>&, float*, long, int,
                                          const RotaryAngles<float>*, Arena&, AttentionSaved<float>&);
template void prepare_queries_keys<double>(const MultiHeadAttention<double>&, double*, long, int,
                                           const RotaryAngles<double>*, Arena&, AttentionSaved<double>&);
template void attention_backward<float>(const MultiHeadAttention<float>&, const float*, const float*, const float*,
                                        const AttentionShape&, const DropoutSite&, const AttentionSaved<float>&,
                                        Arena&, float*, bool, float*, BiasGrad, const ProjectedKeysValues<float>*,
                                        ScoreTerm<float>*);
template void attention_backward<double>(const MultiHeadAttention<double>&, const double*, const double*,
                                         const double*, const AttentionShape&, const DropoutSite&,
                                         const AttentionSaved<double>&, Arena&, double*, bool, double*, BiasGrad,
                                         const ProjectedKeysValues<double>*, ScoreTerm<double>*);

}  // namespace heptapod
