// The Transformer's forward pass, loss and backward pass (the forward pass read in reverse).
#include "heptapod/model/transformer.h"

#include <algorithm>
#include <string>
#include <cmath>
#include <type_traits>

#include "heptapod/core/error.h"
#include "heptapod/model/bind.h"
#include "heptapod/model/parameter_layout.h"

namespace heptapod {

template <typename T>
Transformer<T>::Transformer(const ModelConfig& config)
    : config_((validate(config), config)),
      params_(parameter_layout(config_)),
      positions_(config_.d_model, config_.positions, config_.position_offset) {
  const ModelConfig& c = config_;
  const T scale = c.scale_embeddings ? std::sqrt(T(c.d_model)) : T(1);
  src_embedding_ = {params_.value(source_embedding_name(c)), params_.grad(source_embedding_name(c)), c.d_model, scale};
  tgt_embedding_ = {params_.value(target_embedding_name(c)), params_.grad(target_embedding_name(c)), c.d_model, scale};
  output_.w = params_.value(output_projection_name(c));
  output_.dw = params_.grad(output_projection_name(c));
  if (c.output_bias) {
    output_.b = params_.value("decoder/output_proj/bias");
    output_.db = params_.grad("decoder/output_proj/bias");
  }
  output_.in = c.d_model;
  output_.out = c.tgt_vocab_size;
  cut_output_blocks();
  for (int i = 0; i < c.encoder_layers; ++i) encoder_.push_back(std::make_unique<EncoderLayer<T>>(params_, config_, i));
  for (int i = 0; i < c.decoder_layers; ++i) {
    decoder_.push_back(std::make_unique<DecoderLayer<T>>(params_, config_, i));
    const auto& cross = decoder_.back()->params().cross_attn;
    memory_kv_parts_.insert(memory_kv_parts_.end(), {&cross.k_proj, &cross.v_proj});
  }
  has_final_norm_ = c.has_final_norm();
  if (has_final_norm_) {
    encoder_final_norm_ = bind_layer_norm(params_, "encoder/final_norm", c.d_model, c.layer_norm_eps);
    decoder_final_norm_ = bind_layer_norm(params_, "decoder/final_norm", c.d_model, c.layer_norm_eps);
  }
  plan_backward_stages();
}

template <typename T>
void Transformer<T>::plan_backward_stages() {
  // Which gradients each stage of backward() writes, in the order it runs them; keep the two in step (the
  // model tests check every claim against a backward pass).
  const ModelConfig& c = config_;
  using Writes = std::function<bool(const std::string&)>;
  auto starts = [](const std::string& name, const std::string& prefix) { return name.rfind(prefix, 0) == 0; };
  auto cross_kv = [](const std::string& name) {
    return name.find("/cross_attn/k_proj/") != std::string::npos || name.find("/cross_attn/v_proj/") != std::string::npos;
  };
  std::vector<Writes> stages;
  stages.push_back([&](const std::string& n) { return n == output_projection_name(c) || n == "decoder/output_proj/bias"; });
  if (has_final_norm_) stages.push_back([&](const std::string& n) { return starts(n, "decoder/final_norm/"); });
  for (int i = c.decoder_layers - 1; i >= 0; --i) {
    const std::string layer = "decoder/layers/" + std::to_string(i) + "/";
    stages.push_back([=](const std::string& n) { return starts(n, layer) && !cross_kv(n); });
  }
  stages.push_back([&](const std::string& n) { return starts(n, "decoder/layers/") && cross_kv(n); });
  stages.push_back([&](const std::string& n) { return n == target_embedding_name(c); });
  if (has_final_norm_) stages.push_back([&](const std::string& n) { return starts(n, "encoder/final_norm/"); });
  for (int i = c.encoder_layers - 1; i >= 0; --i) {
    const std::string layer = "encoder/layers/" + std::to_string(i) + "/";
    stages.push_back([=](const std::string& n) { return starts(n, layer); });
  }
  stages.push_back([&](const std::string& n) { return n == source_embedding_name(c); });

  complete_after_stage_.assign(stages.size(), {});
  for (std::size_t t = 0; t < params_.specs().size(); ++t) {
    const std::string& name = params_.specs()[t].name;
    std::size_t last = stages.size();
    for (std::size_t s = 0; s < stages.size(); ++s)
      if (stages[s](name)) last = s;
    require(last < stages.size(), "backward: no stage writes the gradient of " + name);
    complete_after_stage_[last].push_back(t);
  }
}

// Training keeps every layer's activations in `arena` for backward. Inference (layer_scratch given) runs each
// layer in the scratch arena and keeps only its output, so memory does not grow with depth.
template <typename T>
T* Transformer<T>::encode_stack(const int* tokens, const Sequences& seq, const DropoutContext& ctx, Arena& arena,
                                Arena* layer_scratch) {
  const AttentionShape shape(seq, seq, false);
  const long N = seq.rows();
  T* x = embedding_forward(src_embedding_, tokens, N, seq.position.data(), positions_.table(std::max(seq.longest, 1)),
                           ctx.site(config_, Stack::Encoder, -1, SublayerSlot::SelfAttention, DropoutKind::Embedding),
                           arena);  // (N, C)
  Arena& layer_arena = layer_scratch ? *layer_scratch : arena;
  auto keep = [&](T* y) {  // y: (N, C), a layer's output
    if (!layer_scratch) return y;
    std::copy_n(y, N * config_.d_model, x);
    layer_scratch->reset();
    return x;
  };
  for (auto& layer : encoder_) x = keep(layer->forward(x, shape, ctx, layer_arena));
  if (has_final_norm_) x = keep(layer_norm_forward(encoder_final_norm_, x, N, layer_arena, encoder_final_saved_));
  return x;  // (N, C)
}

template <typename T>
T* Transformer<T>::encode(const int* src, int B, int S, const int* src_len, Arena& arena) {
  for (int b = 0; b < B; ++b)
    for (int s = 0; s < S; ++s)
      require(src[b * S + s] >= 0 && src[b * S + s] < config_.src_vocab_size,
              "encode: source token id " + std::to_string(src[b * S + s]) + " is outside the vocabulary");
  // Sentences are independent in the encoder, so they go through in groups of at most kEncodeRows tokens
  // (a longer sentence alone): the scratch memory stays the size of one group's layer whatever the batch.
  constexpr int kEncodeRows = 512;
  const std::size_t C = config_.d_model;
  T* out = arena.alloc<T>(static_cast<std::size_t>(B) * S * C);  // (B*S, C); the padding rows are zeros
  std::vector<int> lengths(B);  // (B)
  for (int b = 0; b < B; ++b) lengths[b] = std::clamp(src_len[b], 0, S);
  for (int b0 = 0, g = 0; b0 < B; b0 += g) {
    int rows = lengths[b0];
    for (g = 1; b0 + g < B && rows + lengths[b0 + g] <= kEncodeRows; ++g) rows += lengths[b0 + g];
    const Sequences group(lengths.data() + b0, g);
    const std::vector<int> tokens = group.pack(src + static_cast<std::size_t>(b0) * S, S);  // (rows)
    group_scratch_.reset();
    const T* y = encode_stack(tokens.data(), group, DropoutContext{}, group_scratch_, &inference_scratch_);  // (rows, C)
    group.unpack(y, static_cast<int>(C), S, out + static_cast<std::size_t>(b0) * S * C);
  }
  // The scratch is idle until the next batch: give back all but a megabyte (short inputs never use
  // more, so one-sentence latency pays no page faults), leaving the room to the decoder's caches.
  constexpr std::size_t kKeepScratchBytes = 1 << 20;
  group_scratch_.trim(kKeepScratchBytes);
  inference_scratch_.trim(kKeepScratchBytes);
  return out;
}

template <typename T>
void Transformer<T>::prepare_decoding() {
  for (auto& layer : decoder_) layer->prepare_steps();
}

template <typename T>
void Transformer<T>::source_keys_values(int layer, const T* memory, int n, T* kv) const {
  linear_forward(decoder_[layer]->source_kv_projection(), memory, n, kv);
}

template <typename T>
T* Transformer<T>::decode_step(const int* tokens, const int* positions, int rows, AttentionCache<T>& cache,
                               Arena& arena) {
  require(rows > 0, "decode_step: no rows");
  const int longest = *std::max_element(positions, positions + rows) + 1;
  T* x = arena.alloc<T>(static_cast<std::size_t>(rows) * config_.d_model);  // (rows, C)
  embed(tgt_embedding_, tokens, rows, positions, positions_.table(longest), x);
  for (auto& layer : decoder_) x = layer->step(x, rows, cache, arena);
  if (!has_final_norm_) return x;
  LayerNormSaved<T> unused;
  return layer_norm_forward(decoder_final_norm_, x, rows, arena, unused);
}

template <typename T>
void Transformer<T>::project_memory(Arena& arena) {
  memory_kv_.clear();
  if (packed_for_inference()) return;
  const int Ns = batch_->src.rows(), C = config_.d_model;
  memory_kv_proj_ = stack_linear(std::span<const Linear<T>* const>(memory_kv_parts_), arena);
  T* kv = arena.alloc<T>(static_cast<std::size_t>(Ns) * memory_kv_proj_.out);  // (Ns, 2C * layers)
  linear_forward(memory_kv_proj_, memory_, Ns, kv);
  for (int i = 0; i < config_.decoder_layers; ++i)
    memory_kv_.push_back({kv + static_cast<std::size_t>(i) * 2 * C, nullptr, memory_kv_proj_.out});
}

template <typename T>
T* Transformer<T>::forward(const Batch& b, const DropoutContext& ctx, Arena& arena) {
  const ModelConfig& c = config_;
  batch_ = std::make_unique<PackedBatch>(b);
  const PackedBatch& p = *batch_;
  const int Nt = p.tgt.rows();
  memory_ = encode_stack(p.src_tokens.data(), p.src, ctx, arena, nullptr);  // (Ns, C)
  project_memory(arena);

  // Decoder.
  T* y = embedding_forward(tgt_embedding_, p.tgt_in.data(), Nt, p.tgt.position.data(),
                           positions_.table(std::max(p.tgt.longest, 1)),
                           ctx.site(c, Stack::Decoder, -1, SublayerSlot::SelfAttention, DropoutKind::Embedding), arena);
  for (std::size_t i = 0; i < decoder_.size(); ++i)
    y = decoder_[i]->forward(y, memory_, p.decoder_self, p.cross, ctx, arena,
                             memory_kv_.empty() ? nullptr : &memory_kv_[i]);
  if (has_final_norm_) y = layer_norm_forward(decoder_final_norm_, y, Nt, arena, decoder_final_saved_);
  hidden_ = y;  // (Nt, C)

  // Output projection: logits (Nt, V) = hidden W_out^T (+ b).
  T* logits = arena.alloc<T>(static_cast<std::size_t>(Nt) * c.tgt_vocab_size);
  project_output(hidden_, Nt, logits);
  return logits;
}

template <typename T>
void Transformer<T>::backward(const DropoutContext& ctx, Arena& arena, T* dlogits,
                              const std::function<void(const std::vector<std::size_t>&)>& complete) {
  const ModelConfig& c = config_;
  const PackedBatch& p = *batch_;
  const int Nt = p.tgt.rows(), Ns = p.src.rows(), C = c.d_model;
  std::size_t stage = 0;  // the stages of plan_backward_stages(), in order
  auto stage_done = [&] {
    const std::vector<std::size_t>& tensors = complete_after_stage_.at(stage++);
    if (complete && !tensors.empty()) complete(tensors);
  };

  // Output projection.
  T* dy = arena.alloc<T>(static_cast<std::size_t>(Nt) * C);  // (Nt, C)
  linear_backward(output_, dlogits, hidden_, Nt, dy, false);
  stage_done();

  // Decoder, last layer first; every cross-attention writes its keys' and values' gradient into dkv, which
  // then goes back through their stacked projection to dmemory.
  if (has_final_norm_) {
    T* d = arena.alloc<T>(static_cast<std::size_t>(Nt) * C);  // (Nt, C)
    layer_norm_backward(decoder_final_norm_, dy, Nt, decoder_final_saved_, d, false);
    dy = d;
    stage_done();
  }
  require(memory_kv_.size() == decoder_.size(), "backward: the forward pass ran on packed weights");
  T* dkv = arena.alloc<T>(static_cast<std::size_t>(Ns) * memory_kv_proj_.out);  // (Ns, 2C * layers)
  for (int i = c.decoder_layers - 1; i >= 0; --i) {
    T* dx = arena.alloc<T>(static_cast<std::size_t>(Nt) * C);  // (Nt, C)
    memory_kv_[i].dkv = dkv + static_cast<std::size_t>(i) * 2 * C;
    decoder_[i]->backward(dy, memory_, p.decoder_self, p.cross, ctx, arena, dx, nullptr, &memory_kv_[i]);
    dy = dx;
    stage_done();
  }
  T* dmemory = arena.alloc<T>(static_cast<std::size_t>(Ns) * C);  // (Ns, C)
  stacked_backward(memory_kv_proj_, std::span<const Linear<T>* const>(memory_kv_parts_), dkv, memory_, Ns, dmemory,
                   false, arena);
  stage_done();
  embedding_backward(tgt_embedding_, dy, p.tgt_in.data(), Nt,
                     ctx.site(c, Stack::Decoder, -1, SublayerSlot::SelfAttention, DropoutKind::Embedding));
  stage_done();

  // Encoder, last layer first.
  T* dx = dmemory;
  if (has_final_norm_) {
    T* d = arena.alloc<T>(static_cast<std::size_t>(Ns) * C);  // (Ns, C)
    layer_norm_backward(encoder_final_norm_, dx, Ns, encoder_final_saved_, d, false);
    dx = d;
    stage_done();
  }
  for (int i = c.encoder_layers - 1; i >= 0; --i) {
    T* d = arena.alloc<T>(static_cast<std::size_t>(Ns) * C);  // (Ns, C)
    encoder_[i]->backward(dx, p.encoder_self, ctx, arena, d);
    dx = d;
    stage_done();
  }
  embedding_backward(src_embedding_, dx, p.src_tokens.data(), Ns,
                     ctx.site(c, Stack::Encoder, -1, SublayerSlot::SelfAttention, DropoutKind::Embedding));
  stage_done();
  require(stage == complete_after_stage_.size(), "backward: ran other stages than plan_backward_stages() lists");
}

template <typename T>
void Transformer<T>::pack_for_inference(const InferencePrecision& precision, const StoredMatrices& stored) {
  if constexpr (!std::is_same_v<T, float>) {
    throw Error("pack_for_inference: float models only");
  } else {
    if (packed_for_inference()) return;
    // All packed matrices share one mapping on huge pages. Packing pads each matrix's dimensions to its blocks
    // (at most 63 columns and 15 rows): twice the parameters and 16 MB hold the padding of any but the most
    // oddly shaped models, whose extra matrices then get memory of their own. Untouched room costs nothing.
    packed_storage_ = std::make_unique<kernels::PackedWeightsStorage>(params_.size() * sizeof(float) * 2 + (16u << 20));
    // What packing reads for a layer: the low-precision form a quantized file holds, else its float weights.
    auto source = [&](const Linear<T>& l) -> StoredMatrix {
      const std::string* name = params_.name_at(l.w);
      const auto it = name ? stored.find(*name) : stored.end();
      if (it != stored.end()) return it->second;
      return {ComputeType::Float32, l.w, nullptr, l.out, l.in};
    };
    // Packs `parts` into `into`; bias_in_product: whether forward() adds the bias inside the product
    // (prepare_for_batches readies the kernels for that). The parts' row-major pages go back.
    auto make_packed = [&](Linear<T>& into, std::initializer_list<Linear<T>*> parts, ComputeType type, bool relu,
                           bool bias_in_product) {
      std::vector<StoredMatrix> sources;
      for (const Linear<T>* l : parts) sources.push_back(source(*l));
      packed_.push_back({pack_weights(type, sources, packed_storage_.get()), bias_in_product && into.b != nullptr,
                         relu});
      into.packed = packed_.back().weights.get();
      for (Linear<T>* l : parts) {
        params_.release(l->w, static_cast<std::size_t>(l->out) * l->in);
        l->w = nullptr;
      }
    };
    auto pack = [&](Linear<T>& l, bool relu, bool bias_in_product = true) {
      make_packed(l, {&l}, precision.type, relu, bias_in_product);
    };
    // Packs the projections that share an input as one matrix (`into`, with its own copy of their biases); the
    // parts are left empty.
    auto pack_stacked = [&](Linear<T>& into, std::initializer_list<Linear<T>*> parts) {
      int out = 0;
      for (const Linear<T>* l : parts) out += l->out;
      std::vector<T>& bias = stacked_biases_.emplace_back();  // (out)
      for (const Linear<T>* l : parts) bias.insert(bias.end(), l->b, l->b + l->out);
      into = Linear<T>{nullptr, bias.data(), nullptr, nullptr, parts.begin()[0]->in, out};
      make_packed(into, parts, precision.type, false, true);
      for (Linear<T>* l : parts) *l = Linear<T>{nullptr, nullptr, nullptr, nullptr, l->in, l->out};
    };
    // A post-norm layer's sub-layers leave their last bias to the residual pass (sublayer_forward).
    const bool post = config_.norm == NormPosition::Post;
    const bool relu = config_.activation == Activation::Relu;  // other activations run after the product
    for (auto& layer : encoder_) {
      auto& p = layer->params();
      pack_stacked(p.self_attn.qkv, {&p.self_attn.q_proj, &p.self_attn.k_proj, &p.self_attn.v_proj});
      pack(p.self_attn.out_proj, false, !post);
      pack(p.ffn.fc1, relu);
      pack(p.ffn.fc2, false, !post);
    }
    for (auto& layer : decoder_) {
      auto& p = layer->params();
      pack_stacked(p.self_attn.qkv, {&p.self_attn.q_proj, &p.self_attn.k_proj, &p.self_attn.v_proj});
      pack_stacked(p.cross_attn.kv, {&p.cross_attn.k_proj, &p.cross_attn.v_proj});
      pack(p.cross_attn.q_proj, false);
      pack(p.ffn.fc1, relu);
      for (Linear<T>* l : {&p.self_attn.out_proj, &p.cross_attn.out_proj, &p.ffn.fc2}) pack(*l, false, !post);
    }
    // The output projection; an embedding table that is the same matrix reads it through the packed copy.
    const T* table = output_.w;
    make_packed(output_, {&output_}, precision.float_output ? ComputeType::Float32 : precision.type, false, true);
    for (Embedding<T>* e : {&src_embedding_, &tgt_embedding_}) {
      if (e->table != table) continue;
      e->packed = output_.packed;
      e->table = nullptr;
    }
    precision_ = precision;
    cut_output_blocks();
  }
}

template <typename T>
void Transformer<T>::cut_output_blocks() {
  constexpr int kBlockColumns = 8192;  // 128 rows of logits at a time then take 4 MB
  const int align = linear_column_align(output_);
  const int width = std::max(align, kBlockColumns / align * align);
  output_blocks_.clear();
  for (int v0 = 0; v0 < output_.out; v0 += width) output_blocks_.emplace_back(v0, std::min(width, output_.out - v0));
}

template <typename T>
void Transformer<T>::prepare_for_batches() {
  for (const Packed& p : packed_) p.weights->prepare(p.bias, p.relu, p.weights->out());
  for (const auto& [v0, n] : output_blocks_) output_.packed->prepare(output_.b != nullptr, false, n);
}

template <typename T>
LossTotals Transformer<T>::forward_backward(const Batch& b, const StepOptions& options, Arena& arena) {
  require(!packed_for_inference(), "forward_backward: the model was packed for inference");
  validate_batch(b, config_);
  const DropoutContext ctx{options.training, options.seed};
  T* logits = forward(b, ctx, arena);  // (Nt, V)
  const double normalizer = options.grad_normalizer > 0 ? options.grad_normalizer : static_cast<double>(b.target_tokens());
  const LossTotals totals = kernels::cross_entropy(
      logits, batch_->tgt_out.data(), batch_->tgt.rows(), config_.tgt_vocab_size, static_cast<T>(options.label_smoothing),
      static_cast<T>(1.0 / normalizer), logits, static_cast<T*>(nullptr));
  backward(ctx, arena, logits, options.gradients_complete);  // the gradient overwrote the logits in place
  return totals;
}

template <typename T>
LossTotals Transformer<T>::evaluate(const Batch& b, float label_smoothing, Arena& arena, T* row_nll) {
  validate_batch(b, config_);
  const T* logits = forward(b, DropoutContext{}, arena);  // (Nt, V)
  std::vector<T> nll(row_nll ? batch_->tgt.rows() : 0);   // (Nt)
  const LossTotals totals =
      kernels::cross_entropy(logits, batch_->tgt_out.data(), batch_->tgt.rows(), config_.tgt_vocab_size,
                             static_cast<T>(label_smoothing), T(0), static_cast<T*>(nullptr), row_nll ? nll.data() : nullptr);
  if (row_nll) batch_->tgt.unpack(nll.data(), 1, b.T, row_nll);
  return totals;
}

template <typename T>
T* Transformer<T>::logits(const Batch& b, Arena& arena) {
  validate_batch(b, config_);
  const T* packed = forward(b, DropoutContext{}, arena);  // (Nt, V)
  T* padded = arena.alloc<T>(static_cast<std::size_t>(b.B) * b.T * config_.tgt_vocab_size);  // (B*T, V)
  batch_->tgt.unpack(packed, config_.tgt_vocab_size, b.T, padded);
  return padded;
}

template class Transformer<float>;
template class Transformer<double>;

}  // namespace heptapod
