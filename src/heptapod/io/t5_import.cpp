// T5: config keys to ModelConfig, state-dict names to Heptapod's.
#include "heptapod/io/t5_import.h"

#include <nlohmann/json.hpp>

#include <set>
#include <span>

#include "heptapod/core/error.h"
#include "heptapod/io/atomic_file.h"
#include "heptapod/io/hf_checkpoint.h"
#include "heptapod/io/hf_config.h"
#include "heptapod/io/state_dict_copy.h"

namespace heptapod {

namespace {

using nlohmann::json;

// The modules of block i ("<stack>.block.<i>."): self-attention is layer.0; a decoder's cross-attention
// layer.1; the feed-forward network the last (its wi alone, or a gated network's wi_0 gate and wi_1 up).
constexpr ModuleMapping kEncoderBlock[] = {
    {"layer.0.SelfAttention.q", Module::SelfAttnQuery},  {"layer.0.SelfAttention.k", Module::SelfAttnKey},
    {"layer.0.SelfAttention.v", Module::SelfAttnValue},  {"layer.0.SelfAttention.o", Module::SelfAttnOutput},
    {"layer.0.layer_norm", Module::SelfAttnNorm},        {"layer.1.layer_norm", Module::FfnNorm},
};
constexpr ModuleMapping kDecoderBlock[] = {
    {"layer.0.SelfAttention.q", Module::SelfAttnQuery},   {"layer.0.SelfAttention.k", Module::SelfAttnKey},
    {"layer.0.SelfAttention.v", Module::SelfAttnValue},   {"layer.0.SelfAttention.o", Module::SelfAttnOutput},
    {"layer.0.layer_norm", Module::SelfAttnNorm},         {"layer.1.EncDecAttention.q", Module::CrossAttnQuery},
    {"layer.1.EncDecAttention.k", Module::CrossAttnKey},  {"layer.1.EncDecAttention.v", Module::CrossAttnValue},
    {"layer.1.EncDecAttention.o", Module::CrossAttnOutput}, {"layer.1.layer_norm", Module::CrossAttnNorm},
    {"layer.2.layer_norm", Module::FfnNorm},
};
constexpr ModuleMapping kEncoderFfn[] = {{"layer.1.DenseReluDense.wi", Module::FfnIn},
                                         {"layer.1.DenseReluDense.wo", Module::FfnOut}};
constexpr ModuleMapping kEncoderGatedFfn[] = {{"layer.1.DenseReluDense.wi_0", Module::FfnGate},
                                              {"layer.1.DenseReluDense.wi_1", Module::FfnIn},
                                              {"layer.1.DenseReluDense.wo", Module::FfnOut}};
constexpr ModuleMapping kDecoderFfn[] = {{"layer.2.DenseReluDense.wi", Module::FfnIn},
                                         {"layer.2.DenseReluDense.wo", Module::FfnOut}};
constexpr ModuleMapping kDecoderGatedFfn[] = {{"layer.2.DenseReluDense.wi_0", Module::FfnGate},
                                              {"layer.2.DenseReluDense.wi_1", Module::FfnIn},
                                              {"layer.2.DenseReluDense.wo", Module::FfnOut}};

const std::set<std::string> kArchitectures = {"T5ForConditionalGeneration", "MT5ForConditionalGeneration"};

}  // namespace

ModelConfig t5_model_config(const std::string& text, const std::string& where) {
  const json j = parse_config_object(text, where);
  const ConfigReader r{j, where};
  const std::string type = r.text("model_type", "");
  require(type == "t5" || type == "mt5",
          where + ": model_type is \"" + type + "\"; --from t5 converts \"t5\" and \"mt5\" (T5, T5 v1.1, flan-T5, mT5)");
  if (j.contains("architectures") && j["architectures"].is_array())
    for (const json& a : j["architectures"])
      require(a.is_string() && kArchitectures.count(a.get<std::string>()) > 0,
              where + ": architecture " + a.dump() + " is not supported (T5ForConditionalGeneration or "
                      "MT5ForConditionalGeneration)");
  r.refuse_unless("is_encoder_decoder", true, true, "T5's encoder alone");
  ModelConfig c;
  c.d_model = r.integer("d_model", 512);
  c.n_heads = r.integer("num_heads", 8);
  const int d_kv = r.integer("d_kv", 64);
  require(d_kv > 0 && c.n_heads > 0, where + ": \"d_kv\" and \"num_heads\" must be positive");
  c.head_dim = d_kv * c.n_heads == c.d_model ? 0 : d_kv;
  c.d_ff = r.integer("d_ff", 2048);
  c.encoder_layers = r.integer("num_layers", 6);
  c.decoder_layers = r.integer("num_decoder_layers", c.encoder_layers);
  c.src_vocab_size = c.tgt_vocab_size = r.integer("vocab_size", 32128);
  c.relative_buckets = r.integer("relative_attention_num_buckets", 32);
  c.relative_max_distance = r.integer("relative_attention_max_distance", 128);
  // "relu", "gated-gelu" (gelu_new, as Hugging Face reads it), or [gated-]activation.
  const std::string ffn = r.text("feed_forward_proj", "relu");
  const bool gated = ffn.rfind("gated-", 0) == 0;
  const std::string act = ffn == "gated-gelu" ? "gelu_new" : gated ? ffn.substr(6) : ffn;
  try {
    c.activation = activation_from_name(act, "the activation");
  } catch (const Error&) {
    throw Error(where + ": \"feed_forward_proj\": \"" + ffn + "\" is not supported (\"relu\", \"gated-gelu\", or "
                        "[gated-]relu, silu, gelu, gelu_new)");
  }
  c.gated_ffn = gated;
  const bool tied = r.boolean("tie_word_embeddings", true);
  c.tie_embeddings = tied ? EmbeddingTying::All : EmbeddingTying::Embeddings;
  c.scale_output = tied;
  c.dropout = c.embedding_dropout = c.attention_dropout = c.activation_dropout = r.number("dropout_rate", 0.1f);
  c.final_norm_dropout = true;  // T5Stack: dropout(final_layer_norm(x)), in both stacks
  c.layer_norm_eps = r.number("layer_norm_epsilon", 1e-6f);
  c.norm = NormPosition::Pre;
  c.norm_type = NormType::Rms;
  c.attention_qkv_bias = c.attention_out_bias = c.ffn_bias = c.output_bias = false;
  c.scale_embeddings = false;
  c.scale_attention = false;
  c.source_eos = true;
  c.pad_id = r.integer("pad_token_id", 0);
  c.eos_id = r.integer("eos_token_id", 1);
  c.bos_id = r.integer("decoder_start_token_id", c.pad_id);
  try {
    validate(c);
  } catch (const Error& e) {
    throw Error(where + ": " + e.what());
  }
  return c;
}

std::unique_ptr<Transformer<float>> import_t5(const std::string& dir) {
  const std::string config_path = dir + "/config.json";
  const ModelConfig c = t5_model_config(read_file(config_path), config_path);
  const std::vector<SafetensorsFile> files = read_checkpoint_files(dir);
  std::vector<const SafetensorsFile*> pointers;
  for (const SafetensorsFile& f : files) pointers.push_back(&f);
  auto model = std::make_unique<Transformer<float>>(c);
  StateDictCopier copy(pointers, *model);

  copy.copy("shared.weight", source_embedding_name(c));
  for (const char* n : {"encoder.embed_tokens.weight", "decoder.embed_tokens.weight"}) copy.require_tied(n, "shared.weight");
  if (c.tie_embeddings == EmbeddingTying::All) copy.require_tied("lm_head.weight", "shared.weight");
  else copy.copy("lm_head.weight", output_projection_name(c));

  for (const Stack stack : {Stack::Encoder, Stack::Decoder}) {
    const bool encoder = stack == Stack::Encoder;
    const std::string prefix = std::string(encoder ? "encoder" : "decoder") + ".block.";
    const int layers = encoder ? c.encoder_layers : c.decoder_layers;
    using Modules = std::span<const ModuleMapping>;
    const Modules block = encoder ? Modules(kEncoderBlock) : Modules(kDecoderBlock);
    const Modules ffn = encoder ? (c.gated_ffn ? Modules(kEncoderGatedFfn) : Modules(kEncoderFfn))
                                : (c.gated_ffn ? Modules(kDecoderGatedFfn) : Modules(kDecoderFfn));
    copy.copy_layers(prefix, block, stack, layers);
    copy.copy_layers(prefix, ffn, stack, layers);
    // Only the first block has the table; the others reuse its bias.
    copy.copy(prefix + "0.layer.0.SelfAttention.relative_attention_bias.weight",
              tensor_name(Module::RelativeBias, Leaf::Weight, stack));
    copy.copy_module(std::string(encoder ? "encoder" : "decoder") + ".final_layer_norm",
                     module_name(Module::FinalNorm, stack));
  }
  copy.require_all_used({}, "T5 model");
  return model;
}

}  // namespace heptapod
