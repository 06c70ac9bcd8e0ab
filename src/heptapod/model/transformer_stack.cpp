// A stack of Transformer layers: forward, backward and the cached step.
#include "heptapod/model/transformer_stack.h"

#include <algorithm>
#include <cmath>

#include "heptapod/core/error.h"
#include "heptapod/kernels/dropout.h"
#include "heptapod/kernels/parallel.h"
#include "heptapod/model/bind.h"
#include "heptapod/model/parameter_names.h"

namespace heptapod {

namespace {

// A layer's output y (count values) where the next layer reads it: y itself, or, when the layer's transients
// came from a scratch arena, copied into x (outside the scratch) and the scratch freed.
template <typename T>
T* keep_layer_output(T* y, T* x, std::size_t count, Arena* layer_scratch) {
  if (!layer_scratch) return y;
  if (y != x) std::copy_n(y, count, x);
  layer_scratch->reset();
  return x;
}

}  // namespace

template <typename T>
TransformerStack<T>::TransformerStack(ParameterStore<T>& params, const ModelConfig& c, Stack stack,
                                      const std::string& embedding_name, PositionalTable<T>& positions,
                                      bool cross_attention)
    : config_(c), stack_(stack), positions_(positions) {
  const T scale = c.scale_embeddings ? std::sqrt(T(c.d_model)) : T(1);
  embedding_ = {params.value(embedding_name), params.grad_if_trained(embedding_name), c.d_model, scale};
  const int count = stack == Stack::Encoder ? c.encoder_layers : c.decoder_layers;
  for (int i = 0; i < count; ++i)
    layers_.push_back(std::make_unique<TransformerLayer<T>>(params, c, stack, i, cross_attention));
  if (c.learned_positions > 0) {
    const std::string table = tensor_name(Module::Positions, Leaf::Weight, stack);
    learned_ = params.value(table);
    dlearned_ = params.grad(table);
  }
  has_final_norm_ = c.has_final_norm();
  if (has_final_norm_)
    final_norm_ = bind_layer_norm(params, module_name(Module::FinalNorm, stack), c.d_model, c.layer_norm_eps);
  if (stack == Stack::Encoder && c.token_types > 0) {
    const std::string table = tensor_name(Module::TokenTypes, Leaf::Weight);
    types_ = params.value(table);
    dtypes_ = params.grad(table);
  }
  if (c.scale_output && stack == Stack::Decoder) output_scale_ = T(1) / std::sqrt(T(c.d_model));
  has_embedding_norm_ = c.embedding_norm;
  if (has_embedding_norm_)
    embedding_norm_ = bind_layer_norm(params, module_name(Module::EmbeddingNorm, stack), c.d_model, c.layer_norm_eps);
}

template <typename T>
T* TransformerStack<T>::embed_input(const int* tokens, const int* types, long N, const int* positions, const T* pe,
                                    LayerNormSaved<T>& saved, Arena& arena) {
  const int C = config_.d_model;
  T* x = arena.alloc<T>(static_cast<std::size_t>(N) * C);  // (N, C)
  embed(embedding_, tokens, N, positions, pe, x);
  if (types) {
    require(types_ != nullptr, "transformer stack: token types given to a stack without a token type table");
    for (long n = 0; n < N; ++n)
      require(types[n] >= 0 && types[n] < config_.token_types, "transformer stack: token type out of range");
#pragma omp parallel for schedule(static) if (N * C > kernels::kParallelMinWork)
    for (long n = 0; n < N; ++n) {
      const T* row = types_ + static_cast<std::size_t>(types[n]) * C;
      for (int c = 0; c < C; ++c) x[n * C + c] += row[c];
    }
  } else if (types_) {  // every token of type 0
#pragma omp parallel for schedule(static) if (N * C > kernels::kParallelMinWork)
    for (long n = 0; n < N; ++n)
      for (int c = 0; c < C; ++c) x[n * C + c] += types_[c];
  }
  if (!has_embedding_norm_) return x;
  return layer_norm_forward(embedding_norm_, x, static_cast<int>(N), arena, saved);
}

template <typename T>
DropoutSite TransformerStack<T>::embedding_site(const DropoutContext& ctx) const {
  return ctx.site(config_, stack_, -1, SublayerSlot::SelfAttention, DropoutKind::Embedding);
}

template <typename T>
DropoutSite TransformerStack<T>::final_norm_site(const DropoutContext& ctx) const {
  return ctx.site(config_, stack_, -1, SublayerSlot::SelfAttention, DropoutKind::FinalNorm);
}

template <typename T>
const T* TransformerStack<T>::position_rows(int length) {
  // The attention carries the positions: none added here.
  if (config_.relative_positions || config_.rotary || config_.relative_buckets > 0) {
    // Twice the room when it grows: cached decoding asks for one more row at every step.
    const std::size_t cells = static_cast<std::size_t>(std::max(length, 1)) * config_.d_model;
    if (no_positions_.size() < cells) no_positions_.assign(std::max(cells, 2 * no_positions_.size()), T(0));
    return no_positions_.data();
  }
  if (!learned_) return positions_.table(std::max(length, 1));
  require(length <= config_.position_limit(),
          "a sequence of " + std::to_string(length) + " positions is longer than the model's learned positions (" +
              std::to_string(config_.position_limit()) + ")");
  return learned_ + static_cast<std::size_t>(config_.position_offset) * config_.d_model;
}

template <typename T>
T* TransformerStack<T>::forward(const int* tokens, const int* types, const Sequences& seq,
                                const AttentionShape& self_shape, std::span<const CrossInput<T>> cross,
                                const DropoutContext& ctx, Arena& arena, Arena* layer_scratch,
                                SegmentMemory<T>* memory) {
  require(cross.empty() || cross.size() == layers_.size(), "transformer stack: one cross input per layer");
  if (memory) {
    require(memory->layers() == layer_count() && memory->d_model() == config_.d_model,
            "transformer stack: the segment memory was made for another model");
    memory->check_streams(seq.count());
  }
  const bool remembers = memory && memory->rows() > 0;
  if (remembers) {
    std::vector<int> keys(memory->lengths());  // (B) memory rows, then the segment's, per stream
    for (int b = 0; b < seq.count(); ++b) keys[b] += seq.len[b];
    memory_rows_ = std::make_unique<Sequences>(memory->lengths().data(), seq.count());
    key_runs_ = std::make_unique<Sequences>(keys.data(), seq.count());
    memory_shape_ = std::make_unique<AttentionShape>(seq, *key_runs_, true);
  }
  const long N = seq.rows();
  T* x = nullptr;  // (N, C)
  if (!types_ && !has_embedding_norm_) {
    x = embedding_forward(embedding_, tokens, N, seq.position.data(), position_rows(seq.longest), embedding_site(ctx),
                          arena);
  } else {
    x = embed_input(tokens, types, N, seq.position.data(), position_rows(seq.longest), embedding_saved_, arena);
    const DropoutSite drop = embedding_site(ctx);
    kernels::dropout(x, N * config_.d_model, drop.rate, drop.seed, drop.stream);
  }
  Arena& layer_arena = layer_scratch ? *layer_scratch : arena;
  const RotaryAngles<T>* rotary = nullptr;
  if (config_.rotary) {  // every row at its position; dynamic scaling reads its sentence's length
    std::vector<int> lengths(static_cast<std::size_t>(N));  // (N)
    for (int b = 0; b < seq.count(); ++b)
      std::fill_n(lengths.begin() + seq.start[b], seq.len[b], seq.len[b]);
    rotary_ = rotary_angles<T>(config_.rope, config_.head_size(), seq.position.data(), lengths.data(),
                               static_cast<int>(N), arena);
    rotary = &rotary_;
  }
  auto keep = [&](T* y) { return keep_layer_output(y, x, static_cast<std::size_t>(N) * config_.d_model, layer_scratch); };
  for (int i = 0; i < layer_count(); ++i) {
    const bool keys_values = memory && memory->content() == MemoryContent::KeysValues;
    const MemoryInput<T> input{remembers ? memory->layer(i) : nullptr, keys_values, memory_rows_.get(),
                               key_runs_.get(), memory_shape_.get()};
    T* y = layers_[i]->forward(x, self_shape, cross.empty() ? nullptr : &cross[i], ctx, layer_arena,
                               remembers ? &input : nullptr, rotary);
    if (keys_values) {
      const auto [kv, ld] = layers_[i]->segment_keys_values();
      memory->append(i, kv, seq, ld);
    } else if (memory) {
      memory->append(i, x, seq);
    }
    x = keep(y);
  }
  if (memory) memory->commit(seq);
  if (has_final_norm_) {
    x = keep(layer_norm_forward(final_norm_, x, N, layer_arena, final_saved_));
    const DropoutSite drop = final_norm_site(ctx);
    kernels::dropout(x, N * config_.d_model, drop.rate, drop.seed, drop.stream);
  }
  scale_output(x, N);
  return x;  // (N, C)
}

template <typename T>
T* TransformerStack<T>::backward_layers(const T* dy, const AttentionShape& self_shape,
                                        std::span<const CrossInput<T>> cross, const DropoutContext& ctx, Arena& arena,
                                        const std::function<void()>& stage_done) {
  const int N = self_shape.q().rows();
  const std::size_t count = static_cast<std::size_t>(N) * config_.d_model;
  if (output_scale_ != T(1)) {
    T* scaled = arena.alloc<T>(count);  // (N, C) the gradient before the output's scale
    for (std::size_t i = 0; i < count; ++i) scaled[i] = dy[i] * output_scale_;
    dy = scaled;
  }
  if (has_final_norm_) {
    const DropoutSite drop = final_norm_site(ctx);
    if (drop.rate > 0) {  // the forward pass's mask on the gradient
      T* dropped = arena.alloc<T>(count);  // (N, C)
      kernels::dropout_copy(dy, dropped, static_cast<long>(count), drop.rate, drop.seed, drop.stream);
      dy = dropped;
    }
    T* d = arena.alloc<T>(count);  // (N, C)
    layer_norm_backward(final_norm_, dy, N, final_saved_, d, false);
    dy = d;
    stage_done();
  }
  T* dx = nullptr;
  T* between[2] = {arena.alloc<T>(count), arena.alloc<T>(count)};  // (N, C) each: the layers' gradients, in turn
  for (int i = layer_count() - 1; i >= 0; --i) {
    dx = between[i % 2];
    layers_[i]->backward(dy, self_shape, cross.empty() ? nullptr : &cross[i], ctx, backward_scratch_, dx);
    backward_scratch_.reset();
    dy = dx;
    stage_done();
  }
  return dx;
}

template <typename T>
void TransformerStack<T>::backward_embedding(T* dx, const int* tokens, const int* types, const int* positions,
                                             long N, const DropoutContext& ctx) {
  const int C = config_.d_model;
  if (!types_ && !has_embedding_norm_) {
    embedding_backward(embedding_, dx, tokens, N, embedding_site(ctx));  // dx now past the dropout
  } else {
    const DropoutSite drop = embedding_site(ctx);
    kernels::dropout(dx, N * C, drop.rate, drop.seed, drop.stream);
    if (has_embedding_norm_) {  // dx becomes the gradient at the sum
      std::vector<T> dsum(static_cast<std::size_t>(N) * C);  // (N, C)
      layer_norm_backward(embedding_norm_, dx, static_cast<int>(N), embedding_saved_, dsum.data(), false);
      std::copy(dsum.begin(), dsum.end(), dx);
    }
    if (dtypes_) {
      // Columns in parallel, rows in order: each element's sum is the same whatever the thread count.
#pragma omp parallel for schedule(static) if (N * C > kernels::kParallelMinWork)
      for (int c = 0; c < C; ++c)
        for (long n = 0; n < N; ++n) dtypes_[static_cast<std::size_t>(types ? types[n] : 0) * C + c] += dx[n * C + c];
    }
    embedding_backward(embedding_, dx, tokens, N, DropoutSite{});
  }
  if (!dlearned_) return;
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
T* TransformerStack<T>::step(const int* tokens, const int* positions, const int* lengths, int rows,
                             AttentionCache<T>& cache, Arena& arena, Arena* layer_scratch) {
  require(rows > 0, "transformer stack: a step of no rows");
  const int longest = *std::max_element(positions, positions + rows) + 1;
  LayerNormSaved<T> unused_saved;
  T* x = embed_input(tokens, nullptr, rows, positions, position_rows(longest), unused_saved, arena);  // (rows, C)
  const RotaryAngles<T> rotary =
      config_.rotary ? rotary_angles<T>(config_.rope, config_.head_size(), positions, lengths, rows, arena)
                     : RotaryAngles<T>{};
  Arena& layer_arena = layer_scratch ? *layer_scratch : arena;
  for (auto& layer : layers_) {
    T* y = layer->step(x, rows, cache, layer_arena, config_.rotary ? &rotary : nullptr);  // (rows, C)
    x = keep_layer_output(y, x, static_cast<std::size_t>(rows) * config_.d_model, layer_scratch);
  }
  if (has_final_norm_) {
    LayerNormSaved<T> unused;
    x = layer_norm_forward(final_norm_, x, rows, arena, unused);
  }
  scale_output(x, rows);
  return x;
}

template <typename T>
void TransformerStack<T>::scale_output(T* x, long N) const {
  if (output_scale_ == T(1)) return;
  const std::size_t count = static_cast<std::size_t>(N) * config_.d_model;
  for (std::size_t i = 0; i < count; ++i) x[i] *= output_scale_;
}

template class TransformerStack<float>;
template class TransformerStack<double>;

}  // namespace heptapod
