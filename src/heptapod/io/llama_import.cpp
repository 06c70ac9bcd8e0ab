// The LLaMA family: config keys to ModelConfig, state-dict names to Heptapod's.
#include "heptapod/io/llama_import.h"

#include <filesystem>
#include <set>

#include "heptapod/core/error.h"
#include "heptapod/io/atomic_file.h"
#include "heptapod/io/hf_checkpoint.h"
#include "heptapod/io/hf_config.h"
#include "heptapod/io/state_dict_copy.h"

namespace heptapod {

namespace {

using nlohmann::json;

// The modules of layer i ("layers.<i>."), the same in every family; q_norm and k_norm are Qwen 3's.
constexpr ModuleMapping kLlamaLayer[] = {
    {"self_attn.q_proj", Module::SelfAttnQuery},  {"self_attn.k_proj", Module::SelfAttnKey},
    {"self_attn.v_proj", Module::SelfAttnValue},  {"self_attn.o_proj", Module::SelfAttnOutput},
    {"input_layernorm", Module::SelfAttnNorm},    {"mlp.gate_proj", Module::FfnGate},
    {"mlp.up_proj", Module::FfnIn},               {"mlp.down_proj", Module::FfnOut},
    {"post_attention_layernorm", Module::FfnNorm},
};
constexpr ModuleMapping kQkNorms[] = {
    {"self_attn.q_norm", Module::SelfAttnQueryNorm},
    {"self_attn.k_norm", Module::SelfAttnKeyNorm},
};

}  // namespace

std::span<const ModuleMapping> llama_layer_modules() { return kLlamaLayer; }

namespace {

// What differs between the families' config classes (their defaults where a key is absent).
struct Family {
  const char* type;
  std::set<std::string> architectures;
  int default_kv_heads;    // 0: num_attention_heads
  int default_head_dim;    // 0: hidden_size / num_attention_heads
  bool qkv_bias;           // hard-coded q/k/v biases (Qwen 2)
  bool qk_norm;            // Qwen 3
  bool window_flag;        // the window applies only with use_sliding_window (Qwen)
  int default_window;      // sliding_window's default where the key is absent
};

const Family kFamilies[] = {
    {"llama", {"LlamaForCausalLM", "LlamaModel"}, 0, 0, false, false, false, 0},
    {"mistral", {"MistralForCausalLM", "MistralModel"}, 8, 0, false, false, false, 4096},
    {"qwen2", {"Qwen2ForCausalLM", "Qwen2Model"}, 32, 0, true, false, true, 4096},
    {"qwen3", {"Qwen3ForCausalLM", "Qwen3Model"}, 32, 128, false, true, true, 4096},
};

// An id or a list of ids (config.json and generation_config.json write eos_token_id either way).
std::vector<int> id_list(const json& j, const char* key, const std::string& where) {
  if (!j.contains(key) || j[key].is_null()) return {};
  const json& v = j[key];
  std::vector<int> ids;
  auto one = [&](const json& id) {
    require(id.is_number_integer() && id.get<std::int64_t>() >= 0 && id.get<std::int64_t>() < (1LL << 31),
            where + ": \"" + key + "\" must be a token id or a list of token ids");
    ids.push_back(id.get<int>());
  };
  if (v.is_array()) {
    for (const json& id : v) one(id);
  } else {
    one(v);
  }
  return ids;
}

// rope_theta and rope_scaling, top-level or in current transformers' "rope_parameters".
RotaryConfig rotary_config(const json& j, const ConfigReader& r, int head_dim, int max_positions) {
  const std::string& where = r.where;
  RotaryConfig rope;
  const json* scaling = nullptr;
  std::string field;  // the key `scaling` was read from
  double theta = 10000.0;
  if (j.contains("rope_parameters") && !j["rope_parameters"].is_null()) {
    require(j["rope_parameters"].is_object(), where + ": \"rope_parameters\" must be an object");
    scaling = &j["rope_parameters"];
    field = "rope_parameters";
    if (scaling->contains("rope_theta")) {
      require((*scaling)["rope_theta"].is_number(), where + ": \"rope_parameters.rope_theta\" must be a number");
      theta = (*scaling)["rope_theta"].get<double>();
    }
  } else if (j.contains("rope_scaling") && !j["rope_scaling"].is_null()) {
    require(j["rope_scaling"].is_object(), where + ": \"rope_scaling\" must be an object or null");
    scaling = &j["rope_scaling"];
    field = "rope_scaling";
  }
  if (j.contains("rope_theta") && !j["rope_theta"].is_null()) {
    require(j["rope_theta"].is_number(), where + ": \"rope_theta\" must be a number");
    theta = j["rope_theta"].get<double>();
  }
  rope.theta = theta;
  const double partial = r.number("partial_rotary_factor", 1.0f);
  require(partial > 0 && partial <= 1, where + ": \"partial_rotary_factor\" must be in (0, 1]");
  rope.dims = partial < 1 ? static_cast<int>(head_dim * partial) : 0;
  if (!scaling) return rope;
  const ConfigReader s{*scaling, where + ": \"" + field + "\""};
  std::string type = s.text("rope_type", s.text("type", "default"));
  if (type == "default") return rope;
  rope.scaling = rope_scaling_from_name(type, where + ": \"" + field + ".rope_type\"");
  auto number = [&](const char* key) {
    require(scaling->contains(key) && (*scaling)[key].is_number(),
            where + ": \"" + field + "." + key + "\" must be a number (" + type + " rope scaling needs it)");
    return (*scaling)[key].get<double>();
  };
  rope.factor = number("factor");
  if (rope.scaling == RopeScaling::Dynamic) {
    rope.original_positions = s.integer("original_max_position_embeddings", max_positions);
  } else if (rope.scaling == RopeScaling::Llama3) {
    rope.low_freq_factor = number("low_freq_factor");
    rope.high_freq_factor = number("high_freq_factor");
    rope.original_positions = static_cast<int>(number("original_max_position_embeddings"));
  }
  validate(rope, head_dim, where + ": \"" + field + "\"");
  return rope;
}

}  // namespace

LlamaConfig llama_config(const std::string& text, const std::string& where, const std::string& generation_text,
                         const std::string& generation_where) {
  const json j = parse_config_object(text, where);
  const ConfigReader r{j, where};
  const std::string type = r.text("model_type", "");
  const Family* family = nullptr;
  for (const Family& f : kFamilies)
    if (type == f.type) family = &f;
  require(family != nullptr, where + ": model_type \"" + type + "\" is not one convert --from llama reads (llama, "
                                     "mistral, qwen2, qwen3; mixture-of-experts types such as mixtral or qwen2_moe "
                                     "are not supported)");
  if (j.contains("architectures") && j["architectures"].is_array())
    for (const json& a : j["architectures"])
      require(a.is_string() && family->architectures.count(a.get<std::string>()) > 0,
              where + ": architecture " + a.dump() + " is not a " + type + " language model (" +
                  *family->architectures.begin() + " or " + *family->architectures.rbegin() + ")");
  for (const char* key : {"num_experts", "num_local_experts", "num_experts_per_tok", "moe_intermediate_size"})
    require(!j.contains(key) || j[key].is_null() || (j[key].is_number() && j[key].get<double>() == 0),
            where + ": \"" + key + "\": a mixture of experts is not supported");
  for (const char* key : {"sinks", "attention_sinks", "use_attention_sinks"})
    require(!j.contains(key) || j[key].is_null() || j[key] == false, where + ": \"" + key + "\": attention sinks are "
                                                                             "not supported");
  LlamaConfig out;
  ModelConfig c = one_stack_config(ModelConfig{}, Architecture::DecoderOnly, r.integer("vocab_size"));
  c.d_model = r.integer("hidden_size");
  c.d_ff = r.integer("intermediate_size");
  c.decoder_layers = r.integer("num_hidden_layers");
  c.n_heads = r.integer("num_attention_heads");
  require(c.n_heads > 0, where + ": \"num_attention_heads\" must be positive");
  const int kv = r.integer("num_key_value_heads", family->default_kv_heads ? family->default_kv_heads : c.n_heads);
  c.kv_heads = kv == c.n_heads ? 0 : kv;
  const int head_dim = r.integer("head_dim", family->default_head_dim);
  c.head_dim = head_dim > 0 && (c.d_model % c.n_heads != 0 || head_dim != c.d_model / c.n_heads) ? head_dim : 0;
  c.norm = NormPosition::Pre;
  c.norm_type = NormType::Rms;
  c.layer_norm_eps = r.number("rms_norm_eps", 1e-6f);
  c.scale_embeddings = false;
  c.gated_ffn = true;
  const std::string act = r.text("hidden_act", "silu");
  c.activation = activation_from_name(act, where + ": \"hidden_act\"");
  require(c.activation != Activation::Relu, where + ": \"hidden_act\": \"relu\" gates are not supported");
  const bool attention_bias = r.boolean("attention_bias", false);
  c.attention_qkv_bias = family->qkv_bias || attention_bias;
  c.attention_out_bias = attention_bias;
  c.ffn_bias = r.boolean("mlp_bias", false);
  c.qk_norm = family->qk_norm;
  c.rotary = true;
  const int max_positions = r.integer("max_position_embeddings");
  c.rope = rotary_config(j, r, c.head_size(), max_positions);
  // The context: max_position_embeddings, but dynamic scaling exists to pass it (its theta grows with the
  // length), so such a model is not bounded.
  c.max_positions = c.rope.scaling == RopeScaling::Dynamic ? 0 : max_positions;
  // A window in force caps the context, so that no key ever leaves it: exact where the window would slide.
  const bool windowed = family->window_flag ? r.boolean("use_sliding_window", false) : true;
  int window = 0;  // an explicit null is none (Mistral v0.2); an absent key the class default
  if (windowed)
    window = !j.contains("sliding_window") ? family->default_window
             : j["sliding_window"].is_null() ? 0
                                              : r.integer("sliding_window");
  // Qwen slides the layers from max_window_layers on (class default 28); Mistral every layer.
  const int window_layers = family->window_flag ? r.integer("max_window_layers", 28) : 0;
  if (window > 0 && window_layers < c.decoder_layers && (c.max_positions == 0 || window < c.max_positions)) {
    c.sliding_window = window;
    c.max_positions = window;
    out.notes.push_back("the model's context is capped at its sliding window, " + std::to_string(window) +
                        " positions (max_position_embeddings " + std::to_string(max_positions) + ")");
  }
  c.tie_embeddings = r.boolean("tie_word_embeddings", false) ? EmbeddingTying::TargetOutput : EmbeddingTying::None;
  c.output_bias = false;
  c.dropout = c.embedding_dropout = c.activation_dropout = 0.0f;
  c.attention_dropout = r.number("attention_dropout", 0.0f);
  // End tokens: generation_config.json's (possibly several) over config.json's.
  std::vector<int> eos = id_list(j, "eos_token_id", where), bos = id_list(j, "bos_token_id", where);
  if (!generation_text.empty()) {
    const json g = parse_config_object(generation_text, generation_where);
    const std::vector<int> g_eos = id_list(g, "eos_token_id", generation_where);
    const std::vector<int> g_bos = id_list(g, "bos_token_id", generation_where);
    if (!g_eos.empty()) eos = g_eos;
    if (!g_bos.empty()) bos = g_bos;
    out.generation = generation_defaults_from_hf(generation_text, generation_where);
  }
  require(!eos.empty(), where + ": no \"eos_token_id\" (in config.json or generation_config.json)");
  require(bos.size() <= 1, where + ": \"bos_token_id\" must be one token id");
  c.eos_id = eos.front();
  c.extra_eos_ids.assign(eos.begin() + 1, eos.end());
  c.prompt_bos = !bos.empty();
  c.bos_id = bos.empty() ? c.eos_id : bos.front();
  const std::vector<int> pad = id_list(j, "pad_token_id", where);
  c.pad_id = pad.empty() ? c.eos_id : pad.front();
  try {
    validate(c);
  } catch (const Error& e) {
    throw Error(where + ": " + e.what());
  }
  out.model = c;
  return out;
}

LlamaConfig read_llama_config(const std::string& dir) {
  const std::string config_path = dir + "/config.json", generation_path = dir + "/generation_config.json";
  const bool has_generation = std::filesystem::exists(generation_path);
  return llama_config(read_file(config_path), config_path, has_generation ? read_file(generation_path) : "",
                      generation_path);
}

std::unique_ptr<Transformer<float>> import_llama(const std::string& dir, const ModelConfig& c) {
  const std::vector<SafetensorsFile> files = read_checkpoint_files(dir);
  std::vector<const SafetensorsFile*> views;
  for (const SafetensorsFile& f : files) views.push_back(&f);
  auto model = std::make_unique<Transformer<float>>(c);
  StateDictCopier copy(views, *model);
  const std::string p = copy.has("model.embed_tokens.weight") ? "model." : "";
  require(copy.has(p + "embed_tokens.weight"),
          dir + ": no \"model.embed_tokens.weight\": not a LLaMA-family checkpoint of Hugging Face's names");
  copy.copy(p + "embed_tokens.weight", target_embedding_name(c));
  copy.copy_layers(p + "layers.", kLlamaLayer, Stack::Decoder, c.decoder_layers);
  if (c.qk_norm) copy.copy_layers(p + "layers.", kQkNorms, Stack::Decoder, c.decoder_layers);
  copy.copy_module(p + "norm", module_name(Module::FinalNorm, Stack::Decoder));
  if (c.tie_embeddings == EmbeddingTying::None) {
    require(copy.has("lm_head.weight"),
            dir + ": no \"lm_head.weight\", and tie_word_embeddings is false: a base model without its language-model "
                  "head cannot generate");
    copy.copy("lm_head.weight", output_projection_name(c));
  } else {
    copy.require_tied("lm_head.weight", p + "embed_tokens.weight");
  }
  copy.require_all_used({".rotary_emb.inv_freq"}, c.qk_norm ? "Qwen 3 model" : "LLaMA-family model");
  return model;
}

}  // namespace heptapod
