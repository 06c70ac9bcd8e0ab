// Parameter names and shapes for a config.
#include "heptapod/model/parameter_layout.h"

#include "heptapod/model/config.h"

namespace heptapod {

std::string source_embedding_name(const ModelConfig& c) {
  return c.tie_embeddings == EmbeddingTying::All ? "shared_embedding/weight" : "encoder/embedding/weight";
}
std::string target_embedding_name(const ModelConfig& c) {
  return c.tie_embeddings == EmbeddingTying::All ? "shared_embedding/weight" : "decoder/embedding/weight";
}
std::string output_projection_name(const ModelConfig& c) {
  return c.tie_embeddings == EmbeddingTying::None ? "decoder/output_proj/weight" : target_embedding_name(c);
}

std::vector<ParamSpec> parameter_layout(const ModelConfig& c) {
  using Init = ParamSpec::Init;
  const std::int64_t C = c.d_model, F = c.d_ff;
  std::vector<ParamSpec> specs;
  auto add = [&](std::string name, std::vector<std::int64_t> shape, Init init) {
    specs.push_back({std::move(name), std::move(shape), init});
  };
  auto linear = [&](const std::string& prefix, std::int64_t out, std::int64_t in) {
    add(prefix + "/weight", {out, in}, Init::Xavier);
    add(prefix + "/bias", {out}, Init::Zero);
  };
  auto norm = [&](const std::string& prefix) {
    add(prefix + "/weight", {C}, Init::One);
    add(prefix + "/bias", {C}, Init::Zero);
  };
  auto attention = [&](const std::string& prefix) {
    for (const char* proj : {"q_proj", "k_proj", "v_proj", "out_proj"}) linear(prefix + "/" + proj, C, C);
  };
  auto ffn = [&](const std::string& prefix) {
    linear(prefix + "/fc1", F, C);
    linear(prefix + "/fc2", C, F);
  };

  if (c.tie_embeddings == EmbeddingTying::All) {
    add("shared_embedding/weight", {c.src_vocab_size, C}, Init::Embedding);
  } else {
    add("encoder/embedding/weight", {c.src_vocab_size, C}, Init::Embedding);
    add("decoder/embedding/weight", {c.tgt_vocab_size, C}, Init::Embedding);
  }
  for (int i = 0; i < c.encoder_layers; ++i) {
    const std::string p = "encoder/layers/" + std::to_string(i);
    attention(p + "/self_attn");
    norm(p + "/self_attn_norm");
    ffn(p + "/ffn");
    norm(p + "/ffn_norm");
  }
  if (c.has_final_norm()) norm("encoder/final_norm");
  for (int i = 0; i < c.decoder_layers; ++i) {
    const std::string p = "decoder/layers/" + std::to_string(i);
    attention(p + "/self_attn");
    norm(p + "/self_attn_norm");
    attention(p + "/cross_attn");
    norm(p + "/cross_attn_norm");
    ffn(p + "/ffn");
    norm(p + "/ffn_norm");
  }
  if (c.has_final_norm()) norm("decoder/final_norm");
  if (c.tie_embeddings == EmbeddingTying::None) add("decoder/output_proj/weight", {c.tgt_vocab_size, C}, Init::Xavier);
  if (c.output_bias) add("decoder/output_proj/bias", {c.tgt_vocab_size}, Init::Zero);
  return specs;
}

}  // namespace heptapod
