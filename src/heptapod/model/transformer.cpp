// The model's composition of stacks and its head: the forward pass, loss and backward pass (the forward pass
// read in reverse).
#include "heptapod/model/transformer.h"

#include <algorithm>
#include <string>

#include "heptapod/core/error.h"
#include "heptapod/model/encoder_heads.h"

namespace heptapod {

template <typename T>
Transformer<T>::Transformer(const ModelConfig& config) : Transformer(config, nullptr) {}

template <typename T>
Transformer<T>::Transformer(const ModelConfig& config, std::shared_ptr<const Transformer> base)
    : config_((validate(config), config)),
      params_(parameter_layout(config_), base ? &base->params_ : nullptr),
      positions_(config_.d_model, config_.positions, config_.position_offset),
      base_(std::move(base)) {
  require(!base_ || base_->packed_for_inference(), "a model over a base: the base must be packed for inference");
  const ModelConfig& c = config_;
  if (c.has_encoder())
    encoder_ = std::make_unique<TransformerStack<T>>(params_, config_, Stack::Encoder, source_embedding_name(c),
                                                     positions_, false);
  if (c.has_decoder()) {
    decoder_ = std::make_unique<TransformerStack<T>>(params_, config_, Stack::Decoder, target_embedding_name(c),
                                                     positions_, c.has_encoder());
    if (encoder_)
      for (int i = 0; i < decoder_->layer_count(); ++i) {
        const auto parts = decoder_->layer(i).params().cross_attn.cross_parts();
        cross_kv_parts_.insert(cross_kv_parts_.end(), parts.begin(), parts.end());
      }
  }
  head_ = make_output_head(params_, config_);
  language_model_ = dynamic_cast<LanguageModelHead<T>*>(head_.get());
  if (head_) plan_backward_stages();
  for (const LayerLinear& l : layer_linears()) {  // each adapter's dropout mask of its own
    l.linear->adapter.dropout = adapter_dropout_.get();
    l.linear->adapter.stream = adapter_stream(l.stack, l.layer, l.module);
  }
}

template <typename T>
std::vector<typename Transformer<T>::LayerLinear> Transformer<T>::layer_linears() {
  std::vector<LayerLinear> all;
  for (auto [stack, s] : {std::pair{Stack::Encoder, encoder_.get()}, {Stack::Decoder, decoder_.get()}}) {
    for (int i = 0; s && i < s->layer_count(); ++i) {
      LayerParams<T>& p = s->layer(i).params();
      for (auto [attn, m] : {std::pair{&p.self_attn, kSelfAttention}, {&p.cross_attn, kCrossAttention}})
        for (auto [l, module] : {std::pair{&attn->q_proj, m.query}, {&attn->k_proj, m.key}, {&attn->v_proj, m.value},
                                 {&attn->out_proj, m.output}})
          all.push_back({l, stack, i, module});
      for (auto [l, module] : {std::pair{&p.ffn.fc1, Module::FfnIn}, {&p.ffn.gate, Module::FfnGate},
                               {&p.ffn.fc2, Module::FfnOut}})
        all.push_back({l, stack, i, module});
    }
  }
  return all;
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
  const std::string target_name = target_embedding_name(c), source_name = source_embedding_name(c);
  // The head's stage: every tensor of the output part (the head's own, and an encoder's pooler that its
  // masked-LM head leaves alone) and those the head writes elsewhere (an embedding table tied to it).
  stages.push_back([&](const ParamSpec& p) { return p.part == ParamPart::Output || head_->writes_gradient(p); });
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
  adapter_dropout_->rate = 0;
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
  adapter_dropout_->rate = 0;
  decoder_->prepare_steps();
}

template <typename T>
void Transformer<T>::source_keys_values(int layer, const T* encoder_output, int n, T* kv) const {
  require(encoder_ && decoder_, "source_keys_values: an encoder-decoder's only");
  linear_forward(decoder_->layer(layer).cross_kv_projection(), encoder_output, n, kv);
}

template <typename T>
T* Transformer<T>::decode_step(const int* tokens, const int* positions, int rows, AttentionCache<T>& cache,
                               Arena& arena, const int* lengths, Arena* layer_scratch) {
  require(decoder_ != nullptr, "decode_step: an encoder-only model has no decoder");
  std::vector<int> next;  // (rows) position + 1, where no lengths are given
  if (!lengths) {
    next.assign(positions, positions + rows);
    for (int& p : next) ++p;
    lengths = next.data();
  }
  return decoder_->step(tokens, positions, lengths, rows, cache, arena, layer_scratch);
}

template <typename T>
void Transformer<T>::project_cross_keys_values(Arena& arena) {
  cross_kv_.clear();
  cross_.clear();
  const int Ns = batch_->src.rows(), K = config_.key_value_width();
  if (!packed_for_inference()) {
    cross_kv_proj_ = stack_linear(std::span<const Linear<T>* const>(cross_kv_parts_), arena);
    T* kv = arena.alloc<T>(static_cast<std::size_t>(Ns) * cross_kv_proj_.out);  // (Ns, 2K * layers)
    linear_forward(cross_kv_proj_, encoder_output_, Ns, kv);
    for (int i = 0; i < config_.decoder_layers; ++i)
      cross_kv_.push_back({kv + static_cast<std::size_t>(i) * 2 * K, nullptr, cross_kv_proj_.out});
  }
  for (int i = 0; i < config_.decoder_layers; ++i)
    cross_.push_back({encoder_output_, &batch_->cross, cross_kv_.empty() ? nullptr : &cross_kv_[i], nullptr});
}

template <typename T>
const int* Transformer<T>::source_types() const {
  return config_.token_types > 0 && !batch_->src_types.empty() ? batch_->src_types.data() : nullptr;
}

template <typename T>
const T* Transformer<T>::pooled() const {
  const auto* classifier = dynamic_cast<const ClassifierHead<T>*>(head_.get());
  return classifier ? classifier->pooled() : nullptr;
}

template <typename T>
const std::vector<std::pair<int, int>>& Transformer<T>::output_column_blocks() const {
  static const std::vector<std::pair<int, int>> none;  // an encoder-only model's
  return language_model_ ? language_model_->column_blocks() : none;
}

template <typename T>
const T* Transformer<T>::forward_stacks(const Batch& b, const DropoutContext& ctx, Arena& arena,
                                       SegmentMemory<T>* memory) {
  const ModelConfig& c = config_;
  require(head_ != nullptr, "an encoder-only model without a head has no loss of its own");
  require(!memory || (c.architecture == Architecture::DecoderOnly && c.relative_positions),
          "a segment memory needs a decoder-only model with relative positions");
  batch_ = std::make_unique<PackedBatch>(b);
  *adapter_dropout_ = {ctx.training ? c.lora.dropout : 0.0f, ctx.seed, 0};
  const PackedBatch& p = *batch_;
  if (encoder_) {
    encoder_output_ = encoder_->forward(p.src_tokens.data(), source_types(), p.src, p.encoder_self, {}, ctx,
                                        arena);  // (Ns, C)
    if (decoder_) project_cross_keys_values(arena);
  }
  // The last stack's output: the decoder's (Nt, C), else the encoder's.
  return decoder_ ? decoder_->forward(p.tgt_in.data(), nullptr, p.tgt, p.decoder_self, cross_, ctx, arena, nullptr,
                                      memory)
                  : encoder_output_;
}

template <typename T>
void Transformer<T>::backward(const DropoutContext& ctx, Arena& arena, T* dy,
                              const std::function<void(const std::vector<std::size_t>&)>& complete) {
  const PackedBatch& p = *batch_;
  const int Nt = p.tgt.rows(), Ns = p.src.rows(), C = config_.d_model;
  std::size_t stage = 0;  // the stages of plan_backward_stages(), in order
  auto stage_done = [&] {
    const std::vector<std::size_t>& tensors = complete_after_stage_.at(stage++);
    if (complete && !tensors.empty()) complete(tensors);
  };
  stage_done();  // the head's, which wrote dy: (Nt, C), or an encoder-only model's (Ns, C)

  T* dencoder_output = dy;  // (Ns, C): from the head, or from the decoder's cross-attentions
  if (decoder_) {
    // Decoder, last layer first; every cross-attention writes its keys' and values' gradient into dkv, which
    // then goes back through their stacked projection to the encoder output.
    T* dkv = nullptr;  // (Ns, 2K * layers)
    if (encoder_) {
      require(cross_kv_.size() == static_cast<std::size_t>(decoder_->layer_count()),
              "backward: the forward pass ran on packed weights");
      dkv = arena.alloc<T>(static_cast<std::size_t>(Ns) * cross_kv_proj_.out);
      const std::size_t K = config_.key_value_width();
      for (std::size_t i = 0; i < cross_kv_.size(); ++i) cross_kv_[i].dkv = dkv + i * 2 * K;
    }
    T* dx = decoder_->backward_layers(dy, p.decoder_self, cross_, ctx, arena, stage_done);  // (Nt, C)
    if (encoder_) {
      dencoder_output = arena.alloc<T>(static_cast<std::size_t>(Ns) * C);
      stacked_backward(cross_kv_proj_, std::span<const Linear<T>* const>(cross_kv_parts_), dkv, encoder_output_, Ns,
                       dencoder_output, false, arena);
      stage_done();
    }
    decoder_->backward_embedding(dx, p.tgt_in.data(), nullptr, p.tgt.position.data(), Nt, ctx);
    stage_done();
  }

  // Encoder, last layer first.
  if (encoder_) {
    T* dsrc = encoder_->backward_layers(dencoder_output, p.encoder_self, {}, ctx, arena, stage_done);  // (Ns, C)
    encoder_->backward_embedding(dsrc, p.src_tokens.data(), source_types(), p.src.position.data(), Ns, ctx);
    stage_done();
  }
  require(stage == complete_after_stage_.size(), "backward: ran other stages than plan_backward_stages() lists");
  adapter_dropout_->rate = 0;  // what runs next without forward() (encoding, cached decoding) is inference
}

template <typename T>
LossTotals Transformer<T>::forward_backward(const Batch& b, const StepOptions& options, Arena& arena,
                                            SegmentMemory<T>* memory) {
  require(!packed_for_inference(), "forward_backward: the model was packed for inference");
  require(!memory || memory->content() == MemoryContent::HiddenStates,
          "forward_backward: training reads a memory of hidden states (keys and values are inference's)");
  validate_batch(b, config_);
  const DropoutContext ctx{options.training, options.seed};
  const T* hidden = forward_stacks(b, ctx, arena, memory);  // (Nt, C), or an encoder-only model's (Ns, C)
  // The mean over the whole batch (or update) is fixed before the head splits its rows.
  const double normalizer = options.grad_normalizer > 0 ? options.grad_normalizer : static_cast<double>(b.target_tokens());
  T* dy = nullptr;  // the gradient at hidden, same shape
  const LossTotals totals = head_->fused_loss(hidden, *batch_, static_cast<T>(options.label_smoothing),
                                              static_cast<T>(1.0 / normalizer), nullptr, &dy, arena);
  backward(ctx, arena, dy, options.gradients_complete);
  return totals;
}

template <typename T>
LossTotals Transformer<T>::evaluate(const Batch& b, float label_smoothing, Arena& arena, T* row_nll,
                                    SegmentMemory<T>* memory) {
  validate_batch(b, config_);
  const T* hidden = forward_stacks(b, DropoutContext{}, arena, memory);  // (Nt, C), or (Ns, C)
  std::vector<T> nll(row_nll ? head_->rows(*batch_) : 0);                // (N)
  const LossTotals totals = head_->fused_loss(hidden, *batch_, static_cast<T>(label_smoothing), T(0),
                                              row_nll ? nll.data() : nullptr, nullptr, arena);
  if (row_nll) head_->place_row_nll(nll.data(), b, *batch_, row_nll);
  return totals;
}

template <typename T>
T* Transformer<T>::logits(const Batch& b, Arena& arena, SegmentMemory<T>* memory) {
  validate_batch(b, config_);
  const T* hidden = forward_stacks(b, DropoutContext{}, arena, memory);  // (Nt, C), or (Ns, C)
  T* logits = head_->forward(hidden, *batch_, arena);                      // (N, V)
  return head_->placed_logits(logits, b, *batch_, arena);
}

template class Transformer<float>;
template class Transformer<double>;

}  // namespace heptapod
