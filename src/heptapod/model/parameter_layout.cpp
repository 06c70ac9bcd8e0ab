// Parameter modules, names, shapes, roles and parts for a config.
#include "heptapod/model/parameter_layout.h"

#include <algorithm>

#include "heptapod/model/config.h"

namespace heptapod {

std::vector<ParamSpec> parameter_layout(const ModelConfig& c) {
  using Init = ParamSpec::Init;
  const std::int64_t C = c.d_model, F = c.d_ff;
  std::vector<ParamSpec> specs;
  // Where the tensors being added belong.
  Stack stack = Stack::Shared;
  ParamPart part = ParamPart::Embedding;
  int layer = -1;
  auto add = [&](Module module, std::string name, std::vector<std::int64_t> shape, Init init, ParamRole role) {
    specs.push_back({std::move(name), module, std::move(shape), init, role, part, stack, layer});
  };
  // A module of the current stack and layer: a lone tensor, an embedding table, a linear layer, a norm.
  auto lone = [&](Module m, std::vector<std::int64_t> shape, Init init, ParamRole role) {
    add(m, module_name(m, stack, layer), std::move(shape), init, role);
  };
  auto table = [&](Module m, std::int64_t rows) {
    add(m, tensor_name(m, Leaf::Weight, stack, layer), {rows, C}, Init::Embedding, ParamRole::Embedding);
  };
  auto linear = [&](Module m, std::int64_t out, std::int64_t in, bool bias = true) {
    add(m, tensor_name(m, Leaf::Weight, stack, layer), {out, in}, Init::Xavier, ParamRole::Matrix);
    if (bias) add(m, tensor_name(m, Leaf::Bias, stack, layer), {out}, Init::Zero, ParamRole::Bias);
  };
  // A norm of `width` columns: a gain, and a shift unless it is an RMSNorm.
  auto norm = [&](Module m, std::int64_t width = 0) {
    width = width > 0 ? width : C;
    add(m, tensor_name(m, Leaf::Weight, stack, layer), {width}, Init::One, ParamRole::Norm);
    if (c.norm_type == NormType::Layer)
      add(m, tensor_name(m, Leaf::Bias, stack, layer), {width}, Init::Zero, ParamRole::Norm);
  };
  // The four projections of one attention (queries of n_heads heads, keys and values of kv_heads, each
  // head_size wide); a cross-attention's key and value projections are their own part; qk_norm's gains.
  const std::int64_t Q = c.query_width(), K = c.key_value_width();
  auto attention = [&](const AttentionModules& a, bool cross) {
    for (const Module m : {a.query, a.key, a.value}) {
      part = cross && m != a.query ? ParamPart::CrossKeysValues : ParamPart::Layer;
      linear(m, m == a.query ? Q : K, C, c.attention_qkv_bias);
    }
    part = ParamPart::Layer;
    linear(a.output, C, Q, c.attention_out_bias);
    if (c.qk_norm && !cross)
      for (const Module m : {Module::SelfAttnQueryNorm, Module::SelfAttnKeyNorm}) norm(m, c.head_size());
  };
  // One stack's layers and final norm: self-attention, cross-attention (the decoder of an encoder-decoder),
  // feed-forward, each with its norm.
  auto layers = [&](Stack s, int count, bool cross) {
    stack = s;
    for (layer = 0; layer < count; ++layer) {
      attention(kSelfAttention, false);
      if (c.relative_positions) {
        add(Module::RelativeProjection, tensor_name(Module::RelativeProjection, Leaf::Weight, s, layer), {C, C},
            Init::Xavier, ParamRole::Matrix);
        if (c.untie_relative)
          for (const Module m : relative_bias_modules(c)) lone(m, {C}, Init::Zero, ParamRole::Bias);
      }
      norm(kSelfAttention.norm);
      if (cross) {
        attention(kCrossAttention, true);
        norm(kCrossAttention.norm);
      }
      linear(Module::FfnIn, F, C, c.ffn_bias);
      if (c.gated_ffn) linear(Module::FfnGate, F, C, c.ffn_bias);
      linear(Module::FfnOut, C, F, c.ffn_bias);
      norm(Module::FfnNorm);
    }
    layer = -1;
    part = ParamPart::FinalNorm;
    if (c.has_final_norm()) norm(Module::FinalNorm);
  };

  part = ParamPart::Embedding;
  if (c.shared_embeddings()) {
    table(Module::SharedEmbedding, c.src_vocab_size);
  } else {
    stack = Stack::Encoder;
    if (c.has_encoder()) table(Module::Embedding, c.src_vocab_size);
    stack = Stack::Decoder;
    if (c.has_decoder()) table(Module::Embedding, c.tgt_vocab_size);
  }
  for (const Stack s : {Stack::Encoder, Stack::Decoder}) {
    stack = s;
    const bool has = s == Stack::Encoder ? c.has_encoder() : c.has_decoder();
    if (c.learned_positions > 0 && has) table(Module::Positions, c.learned_positions);
    if (s == Stack::Encoder && c.token_types > 0) table(Module::TokenTypes, c.token_types);
    if (c.embedding_norm && has) norm(Module::EmbeddingNorm);
    if (c.relative_positions && has && !c.untie_relative)
      for (const Module m : relative_bias_modules(c)) lone(m, {C}, Init::Zero, ParamRole::Bias);
    if (c.relative_buckets > 0 && has)
      add(Module::RelativeBias, tensor_name(Module::RelativeBias, Leaf::Weight, s), {c.relative_buckets, c.n_heads},
          Init::Zero, ParamRole::Bias);
  }
  part = ParamPart::Layer;
  if (c.has_encoder()) layers(Stack::Encoder, c.encoder_layers, false);
  if (c.has_decoder()) layers(Stack::Decoder, c.decoder_layers, c.has_encoder());
  stack = Stack::Decoder;
  part = ParamPart::Output;
  if (c.own_output_layer() && c.has_decoder())
    add(Module::OutputProjection, tensor_name(Module::OutputProjection, Leaf::Weight), {c.tgt_vocab_size, C},
        Init::Xavier, ParamRole::Matrix);
  if (c.output_bias)
    add(Module::OutputProjection, tensor_name(Module::OutputProjection, Leaf::Bias), {c.tgt_vocab_size}, Init::Zero,
        ParamRole::Bias);
  stack = Stack::Encoder;
  if (c.mlm_head) {  // the encoder's embedding table is its output layer
    linear(Module::MlmTransform, C, C);
    norm(Module::MlmNorm);
    lone(Module::MlmOutputBias, {c.src_vocab_size}, Init::Zero, ParamRole::Bias);
  }
  if (c.has_pooler()) linear(Module::Pooler, C, C);  // BERT's, for [CLS] pooling
  if (c.labels > 0) linear(Module::Classifier, c.labels, C);  // a classifier: one logit per class
  if (c.embed_dense_features > 0)  // sentence-transformers' Dense, after the embedding's pooling
    linear(Module::EmbedDense, c.embed_dense_features, c.pooled_width(), c.embed_dense_bias);
  if (c.lora.enabled()) {
    const std::vector<Module> targets = lora_modules(c.lora, c.gated_ffn);
    const std::size_t base = specs.size();
    for (std::size_t i = 0; i < base; ++i) {
      ParamSpec& s = specs[i];
      s.frozen = !(c.labels > 0 && (s.module == Module::Classifier || s.module == Module::Pooler));
      const bool targeted = std::find(targets.begin(), targets.end(), s.module) != targets.end();
      if (!targeted || s.role != ParamRole::Matrix) continue;
      const std::string module = module_name(s.module, s.stack, s.layer);
      const std::int64_t out = s.shape[0], in = s.shape[1], r = c.lora.rank;
      ParamSpec a = s, b = s;  // the matrix's module, part, stack and layer
      a.name = tensor_name(module, Leaf::LoraA);
      a.shape = {r, in};
      a.init = Init::KaimingUniform;
      b.name = tensor_name(module, Leaf::LoraB);
      b.shape = {out, r};
      b.init = Init::Zero;
      for (ParamSpec* t : {&a, &b}) {
        t->role = ParamRole::Adapter;
        t->frozen = false;
        specs.push_back(std::move(*t));
      }
    }
  }
  return specs;
}

}  // namespace heptapod
