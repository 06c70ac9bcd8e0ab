// Parameter names, shapes, roles and parts for a config.
#include "heptapod/model/parameter_layout.h"

#include "heptapod/model/config.h"

namespace heptapod {

const char* stack_name(Stack stack) {
  switch (stack) {
    case Stack::Encoder: return "encoder";
    case Stack::Decoder: return "decoder";
    case Stack::Shared: return "shared";
  }
  return "?";
}

std::string layer_prefix(Stack stack, int layer) {
  return std::string(stack_name(stack)) + "/layers/" + std::to_string(layer);
}

std::string final_norm_prefix(Stack stack) { return std::string(stack_name(stack)) + "/final_norm"; }

std::string source_embedding_name(const ModelConfig& c) {
  return c.tie_embeddings == EmbeddingTying::All ? "shared_embedding/weight" : "encoder/embedding/weight";
}
std::string target_embedding_name(const ModelConfig& c) {
  return c.tie_embeddings == EmbeddingTying::All ? "shared_embedding/weight" : "decoder/embedding/weight";
}
std::string output_projection_name(const ModelConfig& c) {
  return c.tie_embeddings == EmbeddingTying::None ? "decoder/output_proj/weight" : target_embedding_name(c);
}
std::string output_bias_name() { return "decoder/output_proj/bias"; }
std::string position_table_name(Stack stack) { return std::string(stack_name(stack)) + "/positions/weight"; }
std::string token_type_table_name() { return "encoder/token_types/weight"; }
std::string embedding_norm_prefix(Stack stack) { return std::string(stack_name(stack)) + "/embedding_norm"; }
std::string mlm_transform_prefix() { return "encoder/mlm/transform"; }
std::string mlm_norm_prefix() { return "encoder/mlm/norm"; }
std::string mlm_output_bias_name() { return "encoder/mlm/output_bias"; }
std::string pooler_prefix() { return "encoder/pooler"; }
std::string relative_projection_name(Stack stack, int layer) { return layer_prefix(stack, layer) + "/self_attn/r_proj/weight"; }
std::string relative_bias_name(const ModelConfig& c, Stack stack, int layer, const char* which) {
  return c.untie_relative ? layer_prefix(stack, layer) + "/self_attn/relative_" + which
                          : std::string(stack_name(stack)) + "/relative/" + which;
}
std::string classifier_prefix() { return "encoder/classifier"; }

std::vector<ParamSpec> parameter_layout(const ModelConfig& c) {
  using Init = ParamSpec::Init;
  const std::int64_t C = c.d_model, F = c.d_ff;
  std::vector<ParamSpec> specs;
  // Where the tensors being added belong.
  Stack stack = Stack::Shared;
  ParamPart part = ParamPart::Embedding;
  int layer = -1;
  auto add = [&](std::string name, std::vector<std::int64_t> shape, Init init, ParamRole role) {
    specs.push_back({std::move(name), std::move(shape), init, role, part, stack, layer});
  };
  auto linear = [&](const std::string& prefix, std::int64_t out, std::int64_t in) {
    add(prefix + "/weight", {out, in}, Init::Xavier, ParamRole::Matrix);
    add(prefix + "/bias", {out}, Init::Zero, ParamRole::Bias);
  };
  auto norm = [&](const std::string& prefix) {
    add(prefix + "/weight", {C}, Init::One, ParamRole::Norm);
    add(prefix + "/bias", {C}, Init::Zero, ParamRole::Norm);
  };
  // The four projections of one attention; a cross-attention's key and value projections are their own part.
  auto attention = [&](const std::string& prefix, bool cross) {
    for (const char* proj : {"q_proj", "k_proj", "v_proj", "out_proj"}) {
      const std::string p(proj);
      part = cross && (p == "k_proj" || p == "v_proj") ? ParamPart::CrossKeysValues : ParamPart::Layer;
      linear(prefix + "/" + proj, C, C);
    }
    part = ParamPart::Layer;
  };
  // One stack's layers and final norm: self-attention, cross-attention (the decoder of an encoder-decoder),
  // feed-forward, each with its norm.
  auto layers = [&](Stack s, int count, bool cross) {
    stack = s;
    for (layer = 0; layer < count; ++layer) {
      const std::string p = layer_prefix(s, layer);
      attention(p + "/self_attn", false);
      if (c.relative_positions) {
        add(relative_projection_name(s, layer), {C, C}, Init::Xavier, ParamRole::Matrix);
        if (c.untie_relative)
          for (const char* which : {"u", "v"}) add(relative_bias_name(c, s, layer, which), {C}, Init::Zero, ParamRole::Bias);
      }
      norm(p + "/self_attn_norm");
      if (cross) {
        attention(p + "/cross_attn", true);
        norm(p + "/cross_attn_norm");
      }
      linear(p + "/ffn/fc1", F, C);
      linear(p + "/ffn/fc2", C, F);
      norm(p + "/ffn_norm");
    }
    layer = -1;
    part = ParamPart::FinalNorm;
    if (c.has_final_norm()) norm(final_norm_prefix(s));
  };

  part = ParamPart::Embedding;
  if (c.tie_embeddings == EmbeddingTying::All) {
    add("shared_embedding/weight", {c.src_vocab_size, C}, Init::Embedding, ParamRole::Embedding);
  } else {
    stack = Stack::Encoder;
    if (c.has_encoder()) add("encoder/embedding/weight", {c.src_vocab_size, C}, Init::Embedding, ParamRole::Embedding);
    stack = Stack::Decoder;
    if (c.has_decoder()) add("decoder/embedding/weight", {c.tgt_vocab_size, C}, Init::Embedding, ParamRole::Embedding);
  }
  for (const Stack s : {Stack::Encoder, Stack::Decoder}) {
    stack = s;
    const bool has = s == Stack::Encoder ? c.has_encoder() : c.has_decoder();
    if (c.learned_positions > 0 && has)
      add(position_table_name(s), {c.learned_positions, C}, Init::Embedding, ParamRole::Embedding);
    if (s == Stack::Encoder && c.token_types > 0)
      add(token_type_table_name(), {c.token_types, C}, Init::Embedding, ParamRole::Embedding);
    if (c.embedding_norm && has) norm(embedding_norm_prefix(s));
    if (c.relative_positions && has && !c.untie_relative)
      for (const char* which : {"u", "v"}) add(relative_bias_name(c, s, 0, which), {C}, Init::Zero, ParamRole::Bias);
  }
  part = ParamPart::Layer;
  if (c.has_encoder()) layers(Stack::Encoder, c.encoder_layers, false);
  if (c.has_decoder()) layers(Stack::Decoder, c.decoder_layers, c.has_encoder());
  stack = Stack::Decoder;
  part = ParamPart::Output;
  if (c.tie_embeddings == EmbeddingTying::None && c.has_decoder())
    add("decoder/output_proj/weight", {c.tgt_vocab_size, C}, Init::Xavier, ParamRole::Matrix);
  if (c.output_bias) add(output_bias_name(), {c.tgt_vocab_size}, Init::Zero, ParamRole::Bias);
  if (c.mlm_head) {  // the encoder's embedding table is its output layer
    stack = Stack::Encoder;
    linear(mlm_transform_prefix(), C, C);
    norm(mlm_norm_prefix());
    add(mlm_output_bias_name(), {c.src_vocab_size}, Init::Zero, ParamRole::Bias);
  }
  stack = Stack::Encoder;
  if (c.has_pooler()) linear(pooler_prefix(), C, C);  // BERT's, for [CLS] pooling
  if (c.labels > 0) linear(classifier_prefix(), c.labels, C);  // a classifier: one logit per class
  return specs;
}

}  // namespace heptapod
