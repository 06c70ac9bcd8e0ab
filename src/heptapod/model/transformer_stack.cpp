// A stack of Transformer layers: forward, backward and the cached step.
#include "heptapod/model/transformer_stack.h"

#include <algorithm>
#include <cmath>

#include "heptapod/core/error.h"
#include "heptapod/kernels/parallel.h"

namespace heptapod {

template <typename T>
TransformerStack<T>::TransformerStack(ParameterStore<T>& params, const ModelConfig& c, Stack stack,
                                      const std::string& embedding_name, PositionalTable<T>& positions,
                                      bool cross_attention)
    : config_(c), stack_(stack), positions_(positions) {
  const T scale = c.scale_embeddings ? std::sqrt(T(c.d_model)) : T(1);
  embedding_ = {params.value(embedding_name), params.grad(embedding_name), c.d_model, scale};
  const int count = stack == Stack::Encoder ? c.encoder_layers : c.decoder_layers;
  for (int i = 0; i < count; ++i)
    layers_.push_back(std::make_unique<TransformerLayer<T>>(params, c, stack, i, cross_attention));
  if (c.learned_positions > 0) {
    learned_ = params.value(position_table_name(stack));
    dlearned_ = params.grad(position_table_name(stack));
  }
  has_final_norm_ = c.has_final_norm();
  if (has_final_norm_) final_norm_ = bind_layer_norm(params, final_norm_prefix(stack), c.d_model, c.layer_norm_eps);
}

template <typename T>
DropoutSite TransformerStack<T>::embedding_site(const DropoutContext& ctx) const {
  return ctx.site(config_, stack_, -1, SublayerSlot::SelfAttention, DropoutKind::Embedding);
}

template <typename T>
const T* TransformerStack<T>::position_rows(int length) {
  if (!learned_) return positions_.table(std::max(length, 1));
  require(length <= config_.position_limit(),
          "a sequence of " + std::to_string(length) + " positions is longer than the model's learned positions (" +
              std::to_string(config_.position_limit()) + ")");
  return learned_ + static_cast<std::size_t>(config_.position_offset) * config_.d_model;
}

template <typename T>
T* TransformerStack<T>::forward(const int* tokens, const Sequences& seq, const AttentionShape& self_shape,
                                std::span<const CrossInput<T>> cross, const DropoutContext& ctx, Arena& arena,
                                Arena* layer_scratch) {
  require(cross.empty() || cross.size() == layers_.size(), "transformer stack: one cross input per layer");
  const long N = seq.rows();
  T* x = embedding_forward(embedding_, tokens, N, seq.position.data(), position_rows(seq.longest), embedding_site(ctx),
                           arena);  // (N, C)
  Arena& layer_arena = layer_scratch ? *layer_scratch : arena;
  auto keep = [&](T* y) {  // y: (N, C), a layer's output
    if (!layer_scratch) return y;
    std::copy_n(y, N * config_.d_model, x);
    layer_scratch->reset();
    return x;
  };
  for (std::size_t i = 0; i < layers_.size(); ++i)
    x = keep(layers_[i]->forward(x, self_shape, cross.empty() ? nullptr : &cross[i], ctx, layer_arena));
  if (has_final_norm_) x = keep(layer_norm_forward(final_norm_, x, N, layer_arena, final_saved_));
  return x;  // (N, C)
}

template <typename T>
T* TransformerStack<T>::backward_layers(const T* dy, const AttentionShape& self_shape,
                                        std::span<const CrossInput<T>> cross, const DropoutContext& ctx, Arena& arena,
                                        const std::function<void()>& stage_done) {
  const int N = self_shape.q().rows();
  const std::size_t count = static_cast<std::size_t>(N) * config_.d_model;
  if (has_final_norm_) {
    T* d = arena.alloc<T>(count);  // (N, C)
    layer_norm_backward(final_norm_, dy, N, final_saved_, d, false);
    dy = d;
    stage_done();
  }
  T* dx = nullptr;
  for (int i = layer_count() - 1; i >= 0; --i) {
    dx = arena.alloc<T>(count);  // (N, C)
    layers_[i]->backward(dy, self_shape, cross.empty() ? nullptr : &cross[i], ctx, arena, dx);
    dy = dx;
    stage_done();
  }
  return dx;
}

template <typename T>
void TransformerStack<T>::backward_embedding(T* dx, const int* tokens, const int* positions, long N,
                                             const DropoutContext& ctx) {
  embedding_backward(embedding_, dx, tokens, N, embedding_site(ctx));  // dx now past the dropout
  if (!dlearned_) return;
  const int C = config_.d_model;
  T* rows = dlearned_ + static_cast<std::size_t>(config_.position_offset) * C;  // row p: position p
  // Column blocks in parallel, rows in order: each element's sum is the same whatever the thread count.
#pragma omp parallel for schedule(static) if (N * C > kernels::kParallelMinWork)
  for (int c = 0; c < C; ++c)
    for (long n = 0; n < N; ++n) rows[static_cast<std::size_t>(positions[n]) * C + c] += dx[n * C + c];
}

template <typename T>
void TransformerStack<T>::prepare_steps() {
  for (auto& layer : layers_) layer->prepare_steps();
}

template <typename T>
T* TransformerStack<T>::step(const int* tokens, const int* positions, int rows, AttentionCache<T>& cache,
                             Arena& arena) {
  require(rows > 0, "transformer stack: a step of no rows");
  const int longest = *std::max_element(positions, positions + rows) + 1;
  T* x = arena.alloc<T>(static_cast<std::size_t>(rows) * config_.d_model);  // (rows, C)
  embed(embedding_, tokens, rows, positions, position_rows(longest), x);
  for (auto& layer : layers_) x = layer->step(x, rows, cache, arena);
  if (!has_final_norm_) return x;
  LayerNormSaved<T> unused;
  return layer_norm_forward(final_norm_, x, rows, arena, unused);
}

template class TransformerStack<float>;
template class TransformerStack<double>;

}  // namespace heptapod
