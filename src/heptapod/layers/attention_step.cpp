// Attention steps: the projections of this position's rows, the cache's attention, the output projection.
#include "heptapod/layers/attention_step.h"

namespace heptapod {

template <typename T>
void self_attention_step(const MultiHeadAttention<T>& attn, const Linear<T>& qkv, int layer, const T* x, int rows,
                         AttentionCache<T>& cache, Arena& arena, T* y, OutputBias out_bias) {
  const int C = attn.out_proj.in;
  T* projected = arena.alloc<T>(static_cast<std::size_t>(rows) * 3 * C);  // (rows, 3C): q | k | v per row
  linear_forward(qkv, x, rows, projected);
  T* context = arena.alloc<T>(static_cast<std::size_t>(rows) * C);  // (rows, C)
  cache.attend_self(layer, projected, 3 * C, projected + C, 3 * C, context);
  linear_forward(attn.out_proj, context, rows, y, out_bias);
}

template <typename T>
void cross_attention_step(const MultiHeadAttention<T>& attn, int layer, const T* x, int rows,
                          AttentionCache<T>& cache, Arena& arena, T* y, OutputBias out_bias) {
  const int C = attn.out_proj.in;
  T* q = arena.alloc<T>(static_cast<std::size_t>(rows) * C);  // (rows, C)
  linear_forward(attn.q_proj, x, rows, q);
  T* context = arena.alloc<T>(static_cast<std::size_t>(rows) * C);  // (rows, C)
  cache.attend_source(layer, q, C, context);
  linear_forward(attn.out_proj, context, rows, y, out_bias);
}

template void self_attention_step<float>(const MultiHeadAttention<float>&, const Linear<float>&, int, const float*,
                                         int, AttentionCache<float>&, Arena&, float*, OutputBias);
template void self_attention_step<double>(const MultiHeadAttention<double>&, const Linear<double>&, int,
                                          const double*, int, AttentionCache<double>&, Arena&, double*, OutputBias);
template void cross_attention_step<float>(const MultiHeadAttention<float>&, int, const float*, int,
                                          AttentionCache<float>&, Arena&, float*, OutputBias);
template void cross_attention_step<double>(const MultiHeadAttention<double>&, int, const double*, int,
                                           AttentionCache<double>&, Arena&, double*, OutputBias);

}  // namespace heptapod
