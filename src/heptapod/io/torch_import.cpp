// PyTorch state-dict import. nn.Transformer keeps Q, K and V as one in_proj matrix (3C, C) split by rows in
// that order; its stacks end with a LayerNorm unless built with norm=None.
#include "heptapod/io/torch_import.h"

#include "heptapod/core/error.h"
#include "heptapod/io/model_file.h"
#include "heptapod/io/state_dict_copy.h"

namespace heptapod {

namespace {

// nn.TransformerEncoderLayer's modules, or nn.TransformerDecoderLayer's: each attention's q|k|v in one
// in-projection; a decoder layer's norm2 follows its cross-attention (multihead_attn), its norm3 the FFN.
std::vector<ModuleMapping> layer_modules(Stack stack) {
  const bool decoder = stack == Stack::Decoder;
  std::vector<ModuleMapping> modules = {{"self_attn.in_proj", Module::SelfAttnQuery, Stored::InProjection, 0},
                                        {"self_attn.in_proj", Module::SelfAttnKey, Stored::InProjection, 1},
                                        {"self_attn.in_proj", Module::SelfAttnValue, Stored::InProjection, 2},
                                        {"self_attn.out_proj", Module::SelfAttnOutput},
                                        {"norm1", Module::SelfAttnNorm}};
  if (decoder)
    modules.insert(modules.end(), {{"multihead_attn.in_proj", Module::CrossAttnQuery, Stored::InProjection, 0},
                                   {"multihead_attn.in_proj", Module::CrossAttnKey, Stored::InProjection, 1},
                                   {"multihead_attn.in_proj", Module::CrossAttnValue, Stored::InProjection, 2},
                                   {"multihead_attn.out_proj", Module::CrossAttnOutput},
                                   {"norm2", Module::CrossAttnNorm}});
  modules.insert(modules.end(), {{"linear1", Module::FfnIn},
                                 {"linear2", Module::FfnOut},
                                 {decoder ? "norm3" : "norm2", Module::FfnNorm}});
  return modules;
}

int count_layers(const SafetensorsFile& f, const std::string& prefix) {
  int n = 0;
  while (f.find(prefix + std::to_string(n) + ".linear1.weight")) ++n;
  return n;
}

}  // namespace

std::unique_ptr<Transformer<float>> import_nn_transformer(const SafetensorsFile& f,
                                                          const NnTransformerImportOptions& o) {
  const TensorEntry& src_emb = f.at("src_tok_emb.embedding.weight");
  const TensorEntry& tgt_emb = f.at("tgt_tok_emb.embedding.weight");
  const TensorEntry& fc1 = f.at("transformer.encoder.layers.0.linear1.weight");
  require(src_emb.shape.size() == 2 && tgt_emb.shape.size() == 2 && fc1.shape.size() == 2,
          f.where() + ": embedding and linear1 weights must be matrices");
  const bool encoder_norm = f.find("transformer.encoder.norm.weight") != nullptr;
  const bool decoder_norm = f.find("transformer.decoder.norm.weight") != nullptr;
  require(encoder_norm == decoder_norm, f.where() + ": transformer." + (encoder_norm ? "encoder" : "decoder") +
                                            ".norm is there but transformer." + (encoder_norm ? "decoder" : "encoder") +
                                            ".norm is not: Heptapod's stacks have final norms both or neither");
  require(encoder_norm || o.norm == NormPosition::Post,
          f.where() + ": a pre-norm stack without final norms (transformer.encoder.norm) cannot be expressed: "
                      "Heptapod's pre-norm stacks end with a layer norm");
  ModelConfig c;
  c.src_vocab_size = static_cast<int>(src_emb.shape[0]);
  c.tgt_vocab_size = static_cast<int>(tgt_emb.shape[0]);
  c.d_model = static_cast<int>(src_emb.shape[1]);
  c.d_ff = static_cast<int>(fc1.shape[0]);
  c.n_heads = o.n_heads;
  c.encoder_layers = count_layers(f, "transformer.encoder.layers.");
  c.decoder_layers = count_layers(f, "transformer.decoder.layers.");
  c.dropout = c.attention_dropout = c.activation_dropout = c.embedding_dropout = o.dropout;
  c.norm = o.norm;
  c.final_norm = o.norm == NormPosition::Post && encoder_norm;
  c.layer_norm_eps = o.layer_norm_eps;
  c.tie_embeddings = EmbeddingTying::None;
  c.output_bias = f.find("generator.bias") != nullptr;
  c.pad_id = o.pad_id;
  c.bos_id = o.bos_id;
  c.eos_id = o.eos_id;
  try {
    validate(c);
  } catch (const Error& e) {
    throw Error(f.where() + ": " + e.what());
  }
  auto model = std::make_unique<Transformer<float>>(c);
  StateDictCopier copy(f, *model);
  copy.copy("src_tok_emb.embedding.weight", source_embedding_name(c));
  copy.copy("tgt_tok_emb.embedding.weight", target_embedding_name(c));
  copy.copy("generator.weight", output_projection_name(c));
  if (c.output_bias) copy.copy("generator.bias", tensor_name(Module::OutputProjection, Leaf::Bias));
  copy.copy_layers("transformer.encoder.layers.", layer_modules(Stack::Encoder), Stack::Encoder, c.encoder_layers);
  copy.copy_layers("transformer.decoder.layers.", layer_modules(Stack::Decoder), Stack::Decoder, c.decoder_layers);
  if (encoder_norm) {
    copy.copy_module("transformer.encoder.norm", module_name(Module::FinalNorm, Stack::Encoder));
    copy.copy_module("transformer.decoder.norm", module_name(Module::FinalNorm, Stack::Decoder));
  }
  // The tutorial's positional table is a buffer Heptapod computes itself.
  copy.require_all_used({"pos_embedding"}, "nn.Transformer model");
  return model;
}

std::unique_ptr<Transformer<float>> import_heptapod_state_dict(const SafetensorsFile& file, const ModelConfig& config) {
  auto model = std::make_unique<Transformer<float>>(config);
  load_parameters(file, model->parameters());
  return model;
}

}  // namespace heptapod
