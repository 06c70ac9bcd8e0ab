// Attention steps: the projections of this position's rows, the cache's attention, the output projection.
#include "heptapod/layers/attention_step.h"

namespace heptapod {

template <typename T>
void self_attention_step(const MultiHeadAttention<T>& attn, const Linear<T>& qkv, int layer, const T* x, int rows,
                         AttentionCache<T>& cache, Arena& arena, T* y, OutputBias out_bias,
                         const RotaryAngles<T>* rotary) {
  const int Q = attn.query_width(), ld = Q + 2 * attn.key_value_width();
  T* projected = arena.alloc<T>(static_cast<std::size_t>(rows) * ld);  // (rows, Q + 2K): q | k | v per row
  linear_forward(qkv, x, rows, projected);
  AttentionSaved<T> unused;
  prepare_queries_keys(attn, projected, ld, rows, rotary, arena, unused);
  T* context = arena.alloc<T>(static_cast<std::size_t>(rows) * Q);  // (rows, Q)
  cache.attend_self(layer, projected, ld, projected + Q, ld, context);
  linear_forward(attn.out_proj, context, rows, y, out_bias);
}

template <typename T>
void cross_attention_step(const MultiHeadAttention<T>& attn, int layer, const T* x, int rows,
                          AttentionCache<T>& cache, Arena& arena, T* y, OutputBias out_bias) {
  const int Q = attn.query_width();
  T* q = arena.alloc<T>(static_cast<std::size_t>(rows) * Q);  // (rows, Q)
  linear_forward(attn.q_proj, x, rows, q);
  T* context = arena.alloc<T>(static_cast<std::size_t>(rows) * Q);  // (rows, Q)
  cache.attend_source(layer, q, Q, context);
  linear_forward(attn.out_proj, context, rows, y, out_bias);
}

template void self_attention_step<float>(const MultiHeadAttention<float>&, const Linear<float>&, int, const float*,
                                         int, AttentionCache<float>&, Arena&, float*, OutputBias,
                                         const RotaryAngles<float>*);
template void self_attention_step<double>(const MultiHeadAttention<double>&, const Linear<double>&, int,
                                          const double*, int, AttentionCache<double>&, Arena&, double*, OutputBias,
                                          const RotaryAngles<double>*);
template void cross_attention_step<float>(const MultiHeadAttention<float>&, int, const float*, int,
                                          AttentionCache<float>&, Arena&, float*, OutputBias);
template void cross_attention_step<double>(const MultiHeadAttention<double>&, int, const double*, int,
                                           AttentionCache<double>&, Arena&, double*, OutputBias);

}  // namespace heptapod
