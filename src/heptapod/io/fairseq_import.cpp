// fairseq transformer: cfg.json keys to ModelConfig, state-dict names to Heptapod's.
#include "heptapod/io/fairseq_import.h"

#include <filesystem>

#include <nlohmann/json.hpp>

#include "heptapod/core/error.h"
#include "heptapod/io/atomic_file.h"
#include "heptapod/io/safetensors.h"
#include "heptapod/io/state_dict_copy.h"

namespace heptapod {

using nlohmann::json;

namespace {

// A cfg.json key with fairseq's base_architecture default when absent (null counts as absent).
template <typename T>
T setting(const json& j, const char* key, T fallback, const std::string& where) {
  if (!j.contains(key) || j[key].is_null()) return fallback;
  try {
    return j[key].get<T>();
  } catch (const json::exception&) {
    throw Error(where + ": \"" + key + "\" has the wrong type");
  }
}

json parse_object(const std::string& text, const std::string& where) {
  json j = json::parse(text, nullptr, false);
  require(!j.is_discarded() && j.is_object(), where + ": not a JSON object");
  return j;
}

ModelConfig model_config(const json& j, int src_vocab_size, int tgt_vocab_size, const std::string& where) {
  auto integer = [&](const char* key, int fallback) { return setting<int>(j, key, fallback, where); };
  auto flag = [&](const char* key, bool fallback) { return setting<bool>(j, key, fallback, where); };
  auto number = [&](const char* key, float fallback) { return setting<float>(j, key, fallback, where); };
  auto refuse = [&](const char* key, const std::string& what) {
    require(!flag(key, false), where + ": \"" + key + "\" is true: " + what + " is not supported");
  };
  const std::string arch = setting<std::string>(j, "arch", "transformer", where);
  require(arch.rfind("transformer", 0) == 0 && arch.rfind("transformer_lm", 0) != 0,
          where + ": arch \"" + arch + "\" is not an encoder-decoder transformer");
  const std::string bpe = setting<std::string>(j, "bpe", "sentencepiece", where);
  require(bpe == "sentencepiece", where + ": bpe \"" + bpe + "\" is not supported: Heptapod tokenizes with "
                                          "SentencePiece (subword-nmt or fastBPE codes over Moses tokenization are not)");

  ModelConfig c;
  c.src_vocab_size = src_vocab_size;
  c.tgt_vocab_size = tgt_vocab_size;
  c.d_model = integer("encoder_embed_dim", 512);
  c.d_ff = integer("encoder_ffn_embed_dim", 2048);
  c.n_heads = integer("encoder_attention_heads", 8);
  c.encoder_layers = integer("encoder_layers", 6);
  c.decoder_layers = integer("decoder_layers", 6);
  auto same = [&](const char* key, int value, const char* as) {
    require(integer(key, value) == value, where + ": \"" + key + "\" (" + std::to_string(integer(key, value)) +
                                              ") differs from \"" + as + "\" (" + std::to_string(value) +
                                              "); Heptapod's encoder and decoder have one width");
  };
  same("decoder_embed_dim", c.d_model, "encoder_embed_dim");
  same("decoder_output_dim", c.d_model, "encoder_embed_dim");
  same("decoder_input_dim", c.d_model, "encoder_embed_dim");
  same("decoder_ffn_embed_dim", c.d_ff, "encoder_ffn_embed_dim");
  same("decoder_attention_heads", c.n_heads, "encoder_attention_heads");
  const bool pre = flag("encoder_normalize_before", false);
  require(flag("decoder_normalize_before", false) == pre,
          where + ": encoder_normalize_before and decoder_normalize_before differ");
  c.norm = pre ? NormPosition::Pre : NormPosition::Post;
  c.final_norm = false;
  if (pre) refuse("no_decoder_final_norm", "a pre-norm decoder without its final layer norm");
  refuse("layernorm_embedding", "a layer norm on the embeddings");
  refuse("no_token_positional_embeddings", "a model without positions");
  refuse("encoder_learned_pos", "learned positions");
  refuse("decoder_learned_pos", "learned positions");
  refuse("cross_self_attention", "cross-self-attention");
  refuse("no_cross_attention", "a decoder without cross-attention");
  require(!j.contains("adaptive_softmax_cutoff") || j["adaptive_softmax_cutoff"].is_null(),
          where + ": \"adaptive_softmax_cutoff\" is set: an adaptive softmax is not supported");
  c.activation = activation_from_name(setting<std::string>(j, "activation_fn", "relu", where), where);
  c.scale_embeddings = !flag("no_scale_embedding", false);
  c.tie_embeddings = flag("share_all_embeddings", false)               ? EmbeddingTying::All
                     : flag("share_decoder_input_output_embed", false) ? EmbeddingTying::TargetOutput
                                                                       : EmbeddingTying::None;
  c.dropout = c.embedding_dropout = number("dropout", 0.1f);
  c.attention_dropout = number("attention_dropout", 0.0f);
  c.activation_dropout = number("activation_dropout", number("relu_dropout", 0.0f));
  c.layer_norm_eps = 1e-5f;
  c.output_bias = false;
  const FairseqSpecialIds ids;
  c.pad_id = ids.pad;
  c.eos_id = ids.eos;
  c.bos_id = ids.eos;  // fairseq's decoder starts from </s>
  c.positions = kernels::SinusoidLayout::Tensor2Tensor;
  c.position_offset = ids.pad + 1;
  c.source_eos = true;
  try {
    validate(c);
  } catch (const Error& e) {
    throw Error(where + ": " + e.what());
  }
  return c;
}

}  // namespace

ModelConfig fairseq_model_config(const std::string& text, int src_vocab_size, int tgt_vocab_size,
                                 const std::string& where) {
  return model_config(parse_object(text, where), src_vocab_size, tgt_vocab_size, where);
}

FairseqModel import_fairseq(const std::string& dir) {
  const SafetensorsFile f = SafetensorsFile::read(dir + "/model.safetensors");
  auto rows = [&](const char* name) {
    const TensorEntry& e = f.at(name);
    require(e.shape.size() == 2, f.where() + ": \"" + std::string(name) + "\" is not a matrix");
    return static_cast<int>(e.shape[0]);
  };
  const std::string cfg_path = dir + "/cfg.json";
  const json cfg = parse_object(read_file(cfg_path), cfg_path);
  const ModelConfig c =
      model_config(cfg, rows("encoder.embed_tokens.weight"), rows("decoder.embed_tokens.weight"), cfg_path);
  // cfg.json may name the SentencePiece model by the path it had where the model was trained; the file is
  // looked for beside cfg.json.
  const std::string spm_name = setting<std::string>(cfg, "sentencepiece_model", "sentencepiece.bpe.model", cfg_path);
  FairseqModel imported{std::make_unique<Transformer<float>>(c),
                        dir + "/" + std::filesystem::path(spm_name).filename().string()};
  Transformer<float>& model = *imported.model;
  StateDictCopier copy(f, model);
  switch (c.tie_embeddings) {
    case EmbeddingTying::All:
      copy.copy("encoder.embed_tokens.weight", source_embedding_name(c));
      copy.require_tied("decoder.embed_tokens.weight", "encoder.embed_tokens.weight");
      copy.require_tied("decoder.output_projection.weight", "encoder.embed_tokens.weight");
      break;
    case EmbeddingTying::TargetOutput:
      copy.copy("encoder.embed_tokens.weight", source_embedding_name(c));
      copy.copy("decoder.embed_tokens.weight", target_embedding_name(c));
      copy.require_tied("decoder.output_projection.weight", "decoder.embed_tokens.weight");
      break;
    case EmbeddingTying::None:
      copy.copy("encoder.embed_tokens.weight", source_embedding_name(c));
      copy.copy("decoder.embed_tokens.weight", target_embedding_name(c));
      copy.copy("decoder.output_projection.weight", output_projection_name(c));
      break;
  }
  copy.copy_layers("encoder.layers.", bart_layer_modules(Stack::Encoder), Stack::Encoder, c.encoder_layers);
  copy.copy_layers("decoder.layers.", bart_layer_modules(Stack::Decoder), Stack::Decoder, c.decoder_layers);
  if (c.norm == NormPosition::Pre) {
    copy.copy_module("encoder.layer_norm", module_name(Module::FinalNorm, Stack::Encoder));
    copy.copy_module("decoder.layer_norm", module_name(Module::FinalNorm, Stack::Decoder));
  }
  // The sinusoidal modules keep only a dummy buffer; "version" tensors are fairseq's bookkeeping.
  copy.require_all_used({"embed_positions._float_tensor", ".version"}, "fairseq model");
  return imported;
}

}  // namespace heptapod
