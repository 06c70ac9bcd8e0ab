// The model's composition of stacks: the forward pass, loss and backward pass (the forward pass read in
// reverse), packing for inference.
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
  if (c.has_encoder())
    encoder_ = std::make_unique<TransformerStack<T>>(params_, config_, Stack::Encoder, source_embedding_name(c),
                                                     positions_, false);
  if (c.has_decoder()) {
    decoder_ = std::make_unique<TransformerStack<T>>(params_, config_, Stack::Decoder, target_embedding_name(c),
                                                     positions_, c.has_encoder());
    output_.w = params_.value(output_projection_name(c));
    output_.dw = params_.grad(output_projection_name(c));
    if (c.output_bias) {
      output_.b = params_.value(output_bias_name());
      output_.db = params_.grad(output_bias_name());
    }
    output_.in = c.d_model;
    output_.out = c.tgt_vocab_size;
    cut_output_blocks();
    if (encoder_)
      for (int i = 0; i < decoder_->layer_count(); ++i) {
        const auto parts = decoder_->layer(i).params().cross_attn.cross_parts();
        cross_kv_parts_.insert(cross_kv_parts_.end(), parts.begin(), parts.end());
      }
    plan_backward_stages();
  } else if (c.mlm_head || c.labels > 0) {  // an encoder's head
    if (c.mlm_head) mlm_ = std::make_unique<MaskedLmHead<T>>(params_, config_);
    if (c.labels > 0) classifier_ = std::make_unique<ClassifierHead<T>>(params_, config_);
    plan_backward_stages();
  }
}

template <typename T>
void Transformer<T>::plan_backward_stages() {
  // Which gradients each stage of backward() writes, in the order it runs them; keep the two in step (the
  // model tests check every claim against a backward pass).
  const ModelConfig& c = config_;
  using Writes = std::function<bool(const ParamSpec&)>;
  std::vector<Writes> stages;
  // One stack's final norm and layers, last layer first, as TransformerStack::backward_layers runs them.
  auto stack_stages = [&](Stack stack, int layers) {
    if (c.has_final_norm())
      stages.push_back([=](const ParamSpec& p) { return p.stack == stack && p.part == ParamPart::FinalNorm; });
    for (int i = layers - 1; i >= 0; --i)
      stages.push_back([=](const ParamSpec& p) { return p.stack == stack && p.part == ParamPart::Layer && p.layer == i; });
  };
  const std::string target_name = target_embedding_name(c), source_name = source_embedding_name(c),
                    output_name = decoder_ ? output_projection_name(c) : source_name;
  stages.push_back([&](const ParamSpec& p) { return p.part == ParamPart::Output || p.name == output_name; });
  // A stack's embedding stage writes its token table and the stack's other embedding tensors (learned
  // positions, token types, the embedding norm).
  auto embedding_stage = [](Stack stack, const std::string& table) {
    return [=](const ParamSpec& p) { return p.name == table || (p.part == ParamPart::Embedding && p.stack == stack); };
  };
  if (decoder_) {
    stack_stages(Stack::Decoder, c.decoder_layers);
    if (encoder_) stages.push_back([](const ParamSpec& p) { return p.part == ParamPart::CrossKeysValues; });
    stages.push_back(embedding_stage(Stack::Decoder, target_name));
  }
  if (encoder_) {
    stack_stages(Stack::Encoder, c.encoder_layers);
    stages.push_back(embedding_stage(Stack::Encoder, source_name));
  }

  complete_after_stage_.assign(stages.size(), {});
  for (std::size_t t = 0; t < params_.specs().size(); ++t) {
    const ParamSpec& spec = params_.specs()[t];
    std::size_t last = stages.size();
    for (std::size_t s = 0; s < stages.size(); ++s)
      if (stages[s](spec)) last = s;
    require(last < stages.size(), "backward: no stage writes the gradient of " + spec.name);
    complete_after_stage_[last].push_back(t);
  }
}

template <typename T>
T* Transformer<T>::encode(const int* src, int B, int S, const int* src_len, Arena& arena, const int* src_types) {
  require(encoder_ != nullptr, "encode: a " + std::string(architecture_name(config_.architecture)) +
                                   " model has no encoder");
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
    const AttentionShape shape(group, group, false);
    const std::vector<int> tokens = group.pack(src + static_cast<std::size_t>(b0) * S, S);  // (rows)
    std::vector<int> types;  // (rows) or empty
    if (src_types) types = group.pack(src_types + static_cast<std::size_t>(b0) * S, S);
    group_scratch_.reset();
    const T* y = encoder_->forward(tokens.data(), src_types ? types.data() : nullptr, group, shape, {},
                                   DropoutContext{}, group_scratch_, &inference_scratch_);  // (rows, C)
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
  require(decoder_ != nullptr, "decoding: an encoder-only model has no decoder");
  decoder_->prepare_steps();
}

template <typename T>
void Transformer<T>::source_keys_values(int layer, const T* encoder_output, int n, T* kv) const {
  require(encoder_ && decoder_, "source_keys_values: an encoder-decoder's only");
  linear_forward(decoder_->layer(layer).cross_kv_projection(), encoder_output, n, kv);
}

template <typename T>
T* Transformer<T>::decode_step(const int* tokens, const int* positions, int rows, AttentionCache<T>& cache,
                               Arena& arena) {
  require(decoder_ != nullptr, "decode_step: an encoder-only model has no decoder");
  return decoder_->step(tokens, positions, rows, cache, arena);
}

template <typename T>
void Transformer<T>::project_cross_keys_values(Arena& arena) {
  cross_kv_.clear();
  cross_.clear();
  const int Ns = batch_->src.rows(), C = config_.d_model;
  if (!packed_for_inference()) {
    cross_kv_proj_ = stack_linear(std::span<const Linear<T>* const>(cross_kv_parts_), arena);
    T* kv = arena.alloc<T>(static_cast<std::size_t>(Ns) * cross_kv_proj_.out);  // (Ns, 2C * layers)
    linear_forward(cross_kv_proj_, encoder_output_, Ns, kv);
    for (int i = 0; i < config_.decoder_layers; ++i)
      cross_kv_.push_back({kv + static_cast<std::size_t>(i) * 2 * C, nullptr, cross_kv_proj_.out});
  }
  for (int i = 0; i < config_.decoder_layers; ++i)
    cross_.push_back({encoder_output_, &batch_->cross, cross_kv_.empty() ? nullptr : &cross_kv_[i], nullptr});
}

template <typename T>
const int* Transformer<T>::source_types() const {
  return config_.token_types > 0 && !batch_->src_types.empty() ? batch_->src_types.data() : nullptr;
}

template <typename T>
int Transformer<T>::loss_rows() const {
  if (decoder_) return batch_->tgt.rows();
  return mlm_ ? static_cast<int>(batch_->mlm_rows.size()) : batch_->src.count();
}

template <typename T>
LossTotals Transformer<T>::loss(const T* logits, T label_smoothing, T grad_scale, T* dlogits, T* row_nll) const {
  if (classifier_ && config_.multi_label) {
    const LossTotals t = binary_cross_entropy(logits, batch_->labels.data(), loss_rows(), config_.labels, grad_scale,
                                              dlogits);
    require(row_nll == nullptr, "a multi-label classifier's loss has no per-row -log p");
    return t;
  }
  const int* targets = decoder_ ? batch_->tgt_out.data() : mlm_ ? batch_->mlm_targets.data() : batch_->labels.data();
  const int classes = decoder_ ? output_.out : mlm_ ? mlm_->vocab() : config_.labels;
  return kernels::cross_entropy(logits, targets, loss_rows(), classes, label_smoothing, grad_scale, dlogits, row_nll);
}

template <typename T>
T* Transformer<T>::forward(const Batch& b, const DropoutContext& ctx, Arena& arena, SegmentMemory<T>* memory) {
  const ModelConfig& c = config_;
  require(!memory || (c.architecture == Architecture::DecoderOnly && c.relative_positions),
          "a segment memory needs a decoder-only model with relative positions");
  batch_ = std::make_unique<PackedBatch>(b);
  const PackedBatch& p = *batch_;
  const int Nt = p.tgt.rows();
  if (encoder_) {
    encoder_output_ = encoder_->forward(p.src_tokens.data(), source_types(), p.src, p.encoder_self, {}, ctx,
                                        arena);  // (Ns, C)
    if (!decoder_) {  // an encoder's head
      require(mlm_ || classifier_, "an encoder-only model without a head has no loss of its own");
      return mlm_ ? mlm_->forward(encoder_output_, p.mlm_rows, arena) : classifier_->forward(encoder_output_, p.src, arena);
    }
    project_cross_keys_values(arena);
  }
  hidden_ = decoder_->forward(p.tgt_in.data(), nullptr, p.tgt, p.decoder_self, cross_, ctx, arena, nullptr,
                              memory);  // (Nt, C)

  // Output projection: logits (Nt, V) = hidden W_out^T (+ b).
  T* logits = arena.alloc<T>(static_cast<std::size_t>(Nt) * c.tgt_vocab_size);
  project_output(hidden_, Nt, logits);
  return logits;
}

template <typename T>
void Transformer<T>::backward(const DropoutContext& ctx, Arena& arena, T* dlogits,
                              const std::function<void(const std::vector<std::size_t>&)>& complete) {
  const PackedBatch& p = *batch_;
  const int Nt = p.tgt.rows(), Ns = p.src.rows(), C = config_.d_model;
  std::size_t stage = 0;  // the stages of plan_backward_stages(), in order
  auto stage_done = [&] {
    const std::vector<std::size_t>& tensors = complete_after_stage_.at(stage++);
    if (complete && !tensors.empty()) complete(tensors);
  };
  if (!decoder_) {  // an encoder's head, then the encoder
    T* dsrc = arena.alloc<T>(static_cast<std::size_t>(Ns) * C);  // (Ns, C): rows the head did not read get none
    std::fill_n(dsrc, static_cast<std::size_t>(Ns) * C, T(0));
    if (mlm_) mlm_->backward(dlogits, p.mlm_rows, dsrc, arena);
    else classifier_->backward(dlogits, p.src, dsrc, arena);
    stage_done();
    dsrc = encoder_->backward_layers(dsrc, p.encoder_self, {}, ctx, arena, stage_done);
    encoder_->backward_embedding(dsrc, p.src_tokens.data(), source_types(), p.src.position.data(), Ns, ctx);
    stage_done();
    require(stage == complete_after_stage_.size(), "backward: ran other stages than plan_backward_stages() lists");
    return;
  }

  // Output projection.
  T* dy = arena.alloc<T>(static_cast<std::size_t>(Nt) * C);  // (Nt, C)
  linear_backward(output_, dlogits, hidden_, Nt, dy, false);
  stage_done();

  // Decoder, last layer first; every cross-attention writes its keys' and values' gradient into dkv, which
  // then goes back through their stacked projection to the encoder output.
  T* dkv = nullptr;  // (Ns, 2C * layers)
  if (encoder_) {
    require(cross_kv_.size() == static_cast<std::size_t>(decoder_->layer_count()),
            "backward: the forward pass ran on packed weights");
    dkv = arena.alloc<T>(static_cast<std::size_t>(Ns) * cross_kv_proj_.out);
    for (std::size_t i = 0; i < cross_kv_.size(); ++i) cross_kv_[i].dkv = dkv + i * 2 * C;
  }
  T* dx = decoder_->backward_layers(dy, p.decoder_self, cross_, ctx, arena, stage_done);  // (Nt, C)
  T* dencoder_output = nullptr;  // (Ns, C)
  if (encoder_) {
    dencoder_output = arena.alloc<T>(static_cast<std::size_t>(Ns) * C);
    stacked_backward(cross_kv_proj_, std::span<const Linear<T>* const>(cross_kv_parts_), dkv, encoder_output_, Ns,
                     dencoder_output, false, arena);
    stage_done();
  }
  decoder_->backward_embedding(dx, p.tgt_in.data(), nullptr, p.tgt.position.data(), Nt, ctx);
  stage_done();

  // Encoder, last layer first.
  if (encoder_) {
    T* dsrc = encoder_->backward_layers(dencoder_output, p.encoder_self, {}, ctx, arena, stage_done);  // (Ns, C)
    encoder_->backward_embedding(dsrc, p.src_tokens.data(), source_types(), p.src.position.data(), Ns, ctx);
    stage_done();
  }
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
    auto make_packed = [&](Linear<T>& into, std::span<Linear<T>* const> parts, ComputeType type, bool relu,
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
      Linear<T>* const part[] = {&l};
      make_packed(l, part, precision.type, relu, bias_in_product);
    };
    // Packs the projections of `attn` that share an input (self: q|k|v into qkv; else k|v into kv) as one
    // matrix, with its own copy of their biases; the parts are left empty.
    auto pack_stacked = [&](MultiHeadAttention<T>& attn, bool self) {
      Linear<T>& into = self ? attn.qkv : attn.kv;
      std::vector<Linear<T>*> parts;
      if (self) {
        const auto all = attn.self_parts();
        parts.assign(all.begin(), all.end());
      } else {
        const auto all = attn.cross_parts();
        parts.assign(all.begin(), all.end());
      }
      int out = 0;
      for (const Linear<T>* l : parts) out += l->out;
      std::vector<T>& bias = stacked_biases_.emplace_back();  // (out)
      for (const Linear<T>* l : parts) bias.insert(bias.end(), l->b, l->b + l->out);
      into = Linear<T>{nullptr, bias.data(), nullptr, nullptr, parts.front()->in, out};
      make_packed(into, parts, precision.type, false, true);
      for (Linear<T>* l : parts) *l = Linear<T>{nullptr, nullptr, nullptr, nullptr, l->in, l->out};
    };
    // A post-norm layer's sub-layers leave their last bias to the residual pass (sublayer_forward).
    const bool post = config_.norm == NormPosition::Post;
    const bool relu = config_.activation == Activation::Relu;  // other activations run after the product
    for (TransformerStack<T>* stack : {encoder_.get(), decoder_.get()}) {
      if (!stack) continue;
      for (int i = 0; i < stack->layer_count(); ++i) {
        auto& p = stack->layer(i).params();
        const bool cross = stack->layer(i).has_cross_attention();
        pack_stacked(p.self_attn, true);
        if (cross) {
          pack_stacked(p.cross_attn, false);
          pack(p.cross_attn.q_proj, false);
          pack(p.cross_attn.out_proj, false, !post);
        }
        pack(p.self_attn.out_proj, false, !post);
        pack(p.ffn.fc1, relu);
        pack(p.ffn.fc2, false, !post);
      }
    }
    // The output projection; an embedding table that is the same matrix reads it through the packed copy.
    if (decoder_) {
      const T* table = output_.w;
      Linear<T>* const output[] = {&output_};
      make_packed(output_, output, precision.float_output ? ComputeType::Float32 : precision.type, false, true);
      for (TransformerStack<T>* stack : {encoder_.get(), decoder_.get()}) {
        Embedding<T>* e = stack ? &stack->embedding() : nullptr;
        if (!e || e->table != table) continue;
        e->packed = output_.packed;
        e->table = nullptr;
      }
      cut_output_blocks();
    }
    precision_ = precision;
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
LossTotals Transformer<T>::forward_backward(const Batch& b, const StepOptions& options, Arena& arena,
                                            SegmentMemory<T>* memory) {
  require(!packed_for_inference(), "forward_backward: the model was packed for inference");
  require(!memory || memory->content() == MemoryContent::HiddenStates,
          "forward_backward: training reads a memory of hidden states (keys and values are inference's)");
  validate_batch(b, config_);
  const DropoutContext ctx{options.training, options.seed};
  T* logits = forward(b, ctx, arena, memory);  // (N, V): N the loss's rows
  const double normalizer = options.grad_normalizer > 0 ? options.grad_normalizer : static_cast<double>(b.target_tokens());
  const LossTotals totals = loss(logits, static_cast<T>(options.label_smoothing), static_cast<T>(1.0 / normalizer),
                                 logits, nullptr);
  backward(ctx, arena, logits, options.gradients_complete);  // the gradient overwrote the logits in place
  return totals;
}

template <typename T>
LossTotals Transformer<T>::evaluate(const Batch& b, float label_smoothing, Arena& arena, T* row_nll,
                                    SegmentMemory<T>* memory) {
  validate_batch(b, config_);
  const T* logits = forward(b, DropoutContext{}, arena, memory);  // (N, V)
  std::vector<T> nll(row_nll ? loss_rows() : 0);          // (N)
  const LossTotals totals = loss(logits, static_cast<T>(label_smoothing), T(0), nullptr, row_nll ? nll.data() : nullptr);
  if (row_nll && decoder_) batch_->tgt.unpack(nll.data(), 1, b.T, row_nll);
  if (row_nll && classifier_) std::copy(nll.begin(), nll.end(), row_nll);  // (B)
  if (row_nll && mlm_) {  // (B, S): the masked positions' values, zeros elsewhere
    std::vector<T> rows(static_cast<std::size_t>(batch_->src.rows()), T(0));  // (Ns)
    for (std::size_t m = 0; m < batch_->mlm_rows.size(); ++m) rows[static_cast<std::size_t>(batch_->mlm_rows[m])] = nll[m];
    batch_->src.unpack(rows.data(), 1, b.S, row_nll);
  }
  return totals;
}

template <typename T>
T* Transformer<T>::logits(const Batch& b, Arena& arena, SegmentMemory<T>* memory) {
  validate_batch(b, config_);
  if (!decoder_) return forward(b, DropoutContext{}, arena, memory);  // (Nm, V): the masked positions in order
  const T* packed = forward(b, DropoutContext{}, arena, memory);  // (Nt, V)
  T* padded = arena.alloc<T>(static_cast<std::size_t>(b.B) * b.T * config_.tgt_vocab_size);  // (B*T, V)
  batch_->tgt.unpack(packed, config_.tgt_vocab_size, b.T, padded);
  return padded;
}

template class Transformer<float>;
template class Transformer<double>;

}  // namespace heptapod
