// GPT-2: config keys to ModelConfig, state-dict names to Heptapod's.
#include "heptapod/io/gpt2_import.h"

#include "heptapod/core/error.h"
#include "heptapod/io/atomic_file.h"
#include "heptapod/io/hf_config.h"
#include "heptapod/io/safetensors.h"
#include "heptapod/io/state_dict_copy.h"

namespace heptapod {

namespace {

// GPT-2's modules of block i ("h.<i>."): its Conv1D layers keep their weights as (in, out), and one c_attn
// holds q|k|v.
constexpr ModuleMapping kGpt2Block[] = {
    {"attn.c_attn", Module::SelfAttnQuery, Stored::Conv1D, 0},
    {"attn.c_attn", Module::SelfAttnKey, Stored::Conv1D, 1},
    {"attn.c_attn", Module::SelfAttnValue, Stored::Conv1D, 2},
    {"attn.c_proj", Module::SelfAttnOutput, Stored::Conv1D},
    {"ln_1", Module::SelfAttnNorm},
    {"mlp.c_fc", Module::FfnIn, Stored::Conv1D},
    {"mlp.c_proj", Module::FfnOut, Stored::Conv1D},
    {"ln_2", Module::FfnNorm},
};

}  // namespace

std::span<const ModuleMapping> gpt2_block_modules() { return kGpt2Block; }

ModelConfig gpt2_model_config(const std::string& text, const std::string& where) {
  const nlohmann::json j = parse_config_object(text, where);
  const ConfigReader r{j, where};
  const std::string type = r.text("model_type", "");
  require(type == "gpt2", where + ": model_type is \"" + type + "\", not \"gpt2\"");
  const int C = r.integer("n_embd");
  ModelConfig c = one_stack_config(ModelConfig{}, Architecture::DecoderOnly, r.integer("vocab_size"));
  c.d_model = C;
  c.decoder_layers = r.integer("n_layer");
  c.n_heads = r.integer("n_head");
  c.d_ff = r.integer("n_inner", 4 * C);
  c.learned_positions = r.integer("n_positions", r.integer("n_ctx", 1024));
  c.position_offset = 0;
  c.scale_embeddings = false;
  c.norm = NormPosition::Pre;  // with a final norm (ln_f)
  c.layer_norm_eps = r.number("layer_norm_epsilon", 1e-5f);
  c.tie_embeddings = EmbeddingTying::TargetOutput;
  c.output_bias = false;
  c.dropout = r.number("resid_pdrop", 0.1f);
  c.embedding_dropout = r.number("embd_pdrop", 0.1f);
  c.attention_dropout = r.number("attn_pdrop", 0.1f);
  c.activation_dropout = 0.0f;
  const std::string activation = r.text("activation_function", "gelu_new");
  require(activation == "gelu_new" || activation == "gelu_pytorch_tanh",
          where + ": \"activation_function\": \"" + activation +
              "\" is not supported (GPT-2's is the tanh approximation, gelu_new or gelu_pytorch_tanh)");
  c.activation = Activation::GeluTanh;
  c.eos_id = r.integer("eos_token_id", 50256);
  c.bos_id = r.integer("bos_token_id", c.eos_id);
  c.pad_id = r.integer("pad_token_id", c.eos_id);  // GPT-2 has no padding token; padding is never read
  r.refuse_unless("scale_attn_weights", true, true, "attention scores are always divided by sqrt(head size)");
  r.refuse_unless("scale_attn_by_inverse_layer_idx", false, false, "scores scaled by 1 / (layer + 1)");
  r.refuse_unless("reorder_and_upcast_attn", false, false, "the reordered, upcast attention of Mistral's GPT-2s");
  r.refuse_unless("add_cross_attention", false, false, "cross-attention in a decoder-only model");
  r.refuse_unless("is_encoder_decoder", false, false, "an encoder-decoder built of GPT-2 blocks");
  try {
    validate(c);
  } catch (const Error& e) {
    throw Error(where + ": " + e.what());
  }
  return c;
}

std::unique_ptr<Transformer<float>> import_gpt2(const std::string& dir) {
  const std::string config_path = dir + "/config.json";
  const std::string config_text = read_file(config_path);
  const nlohmann::json j = parse_config_object(config_text, config_path);
  const ModelConfig c = gpt2_model_config(config_text, config_path);
  const SafetensorsFile f = SafetensorsFile::read(dir + "/model.safetensors");
  auto model = std::make_unique<Transformer<float>>(c);
  StateDictCopier copy(f, *model);
  const std::string p = copy.has("transformer.wte.weight") ? "transformer." : "";

  copy.copy(p + "wte.weight", target_embedding_name(c));
  copy.copy(p + "wpe.weight", tensor_name(Module::Positions, Leaf::Weight, Stack::Decoder));
  // The output layer is the embedding table: a stored head must hold exactly its values, tied or not.
  const bool tied = ConfigReader{j, config_path}.boolean("tie_word_embeddings", true);
  if (copy.has("lm_head.weight")) {
    try {
      copy.require_tied("lm_head.weight", p + "wte.weight");
    } catch (const Error&) {
      throw Error(f.where() + ": \"lm_head.weight\" differs from the token embeddings" +
                  (tied ? "" : " (tie_word_embeddings is false)") +
                  "; an output layer of its own is not supported for GPT-2 models");
    }
  }
  copy.copy_layers(p + "h.", kGpt2Block, Stack::Decoder, c.decoder_layers);
  copy.copy_module(p + "ln_f", module_name(Module::FinalNorm, Stack::Decoder));
  copy.require_all_used({".attn.bias", ".attn.masked_bias"}, "GPT-2 model");
  return model;
}

}  // namespace heptapod
