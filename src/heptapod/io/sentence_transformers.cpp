// sentence-transformers' modules.json, Pooling and Dense modules and sentence_bert_config.json, checked and read.
#include "heptapod/io/sentence_transformers.h"

#include <filesystem>

#include "heptapod/core/error.h"
#include "heptapod/io/atomic_file.h"
#include "heptapod/io/hf_config.h"
#include "heptapod/io/safetensors.h"
#include "heptapod/io/state_dict_copy.h"
#include "heptapod/model/parameter_names.h"

namespace heptapod {

namespace {

constexpr const char* kModule = "sentence_transformers.models.";

// The pooling of 1_Pooling/config.json: the modes that are on, in the library's order of concatenation.
std::vector<Pooling> read_pooling(const std::string& path, SentenceTransformersLayout& layout) {
  const nlohmann::json j = parse_config_object(read_file(path), path);
  const ConfigReader r{j, path};
  r.refuse_unless("include_prompt", true, true, "every token is pooled, the prompt's included");
  layout.dimension = r.integer("word_embedding_dimension", 0);
  std::vector<Pooling> modes;
  for (const auto& [key, mode] : {std::pair{"pooling_mode_cls_token", Pooling::Cls}, {"pooling_mode_max_tokens", Pooling::Max},
                                  {"pooling_mode_mean_tokens", Pooling::Mean},
                                  {"pooling_mode_mean_sqrt_len_tokens", Pooling::MeanSqrtLen},
                                  {"pooling_mode_weightedmean_tokens", Pooling::WeightedMean},
                                  {"pooling_mode_lasttoken", Pooling::LastToken}})
    if (r.boolean(key, false)) modes.push_back(mode);
  require(!modes.empty(), path + ": no pooling mode is on (pooling_mode_mean_tokens, _cls_token, _max_tokens, "
                                 "_mean_sqrt_len_tokens, _weightedmean_tokens or _lasttoken)");
  return modes;
}

// The Dense module of `dir`'s config.json.
SentenceTransformersDense read_dense(const std::string& dir) {
  const std::string path = dir + "/config.json";
  const nlohmann::json j = parse_config_object(read_file(path), path);
  const ConfigReader r{j, path};
  SentenceTransformersDense dense{dir, r.integer("in_features"), r.integer("out_features"), r.boolean("bias", true)};
  require(dense.in_features > 0 && dense.out_features > 0, path + ": in_features and out_features must be positive");
  const std::string activation = r.text("activation_function", "torch.nn.modules.activation.Tanh");
  dense.tanh = activation == "torch.nn.modules.activation.Tanh";
  require(dense.tanh || activation == "torch.nn.modules.linear.Identity",
          path + ": \"activation_function\" \"" + activation + "\" is not supported (Heptapod's Dense takes "
                 "torch.nn.modules.activation.Tanh and torch.nn.modules.linear.Identity)");
  return dense;
}

}  // namespace

bool is_sentence_transformers_dir(const std::string& dir) {
  return std::filesystem::is_regular_file(dir + "/modules.json");
}

SentenceTransformersLayout read_sentence_transformers(const std::string& dir) {
  const std::string modules_path = dir + "/modules.json";
  const nlohmann::json modules = nlohmann::json::parse(read_file(modules_path), nullptr, false);
  require(!modules.is_discarded() && modules.is_array() && !modules.empty(),
          modules_path + ": not a JSON array of modules");
  SentenceTransformersLayout layout;
  bool pooled = false;
  // The modules in their only order: Transformer, Pooling, then optionally Dense, then optionally Normalize.
  const std::vector<std::string> order = {"Transformer", "Pooling", "Dense", "Normalize"};
  std::size_t next = 0;  // the first of `order` the next module may be
  for (std::size_t i = 0; i < modules.size(); ++i) {
    const nlohmann::json& m = modules[i];
    const std::string where = modules_path + ": module " + std::to_string(i);
    require(m.is_object() && m.contains("type") && m["type"].is_string() && m.contains("path") && m["path"].is_string(),
            where + ": needs \"type\" and \"path\" strings");
    const std::string type = m["type"].get<std::string>(), path = m["path"].get<std::string>();
    const std::string sub = path.empty() ? dir : dir + "/" + path;
    std::size_t k = next;
    while (k < order.size() && type != kModule + order[k] && k >= 2) ++k;
    require(k < order.size() && type == kModule + order[k],
            where + ": \"" + type + "\" is not supported there (Heptapod takes " + kModule +
                "Transformer, then Pooling, then optionally Dense, then optionally Normalize)");
    next = k + 1;
    if (k == 0) layout.transformer_dir = sub;
    if (k == 1) {
      layout.pooling = read_pooling(sub + "/config.json", layout);
      pooled = true;
    }
    if (k == 2) layout.dense = read_dense(sub);
    if (k == 3) layout.normalize = true;
  }
  require(pooled, modules_path + ": no Pooling module after the Transformer");
  const std::string bert_config = layout.transformer_dir + "/sentence_bert_config.json";
  if (std::filesystem::exists(bert_config)) {
    const nlohmann::json j = parse_config_object(read_file(bert_config), bert_config);
    const ConfigReader r{j, bert_config};
    layout.max_seq_length = r.integer("max_seq_length", 0);
    require(layout.max_seq_length >= 0, bert_config + ": \"max_seq_length\" must not be negative");
    r.refuse_unless("do_lower_case", false, false, "lowercase the text before embedding it");
  }
  return layout;
}

void apply_sentence_embedding(const SentenceTransformersLayout& layout, ModelConfig& c) {
  require(layout.dimension == 0 || layout.dimension == c.d_model,
          "sentence-transformers: the Pooling module's word_embedding_dimension " + std::to_string(layout.dimension) +
              " is not the model's width " + std::to_string(c.d_model));
  c.embed_pooling = layout.pooling;
  c.embed_normalize = layout.normalize;
  c.max_input_tokens = layout.max_seq_length;
  const SentenceTransformersDense& d = layout.dense;
  if (d.dir.empty()) return;
  require(d.in_features == c.pooled_width(),
          d.dir + "/config.json: \"in_features\" " + std::to_string(d.in_features) + " is not the pooled width " +
              std::to_string(c.pooled_width()) + " (the model's " + std::to_string(c.d_model) + " times " +
              std::to_string(c.embed_pooling.size()) + " pooling modes)");
  c.embed_dense_features = d.out_features;
  c.embed_dense_bias = d.bias;
  c.embed_dense_tanh = d.tanh;
}

void copy_dense_weights(const SentenceTransformersLayout& layout, Transformer<float>& model) {
  const std::string& dir = layout.dense.dir;
  if (dir.empty()) return;
  const std::string path = dir + "/model.safetensors";
  require(std::filesystem::is_regular_file(path),
          path + ": missing (the Dense module's weights; a pytorch_model.bin converts with "
                 "/usr/bin/python3 tools/export_state_dict.py pytorch_model.bin -o model.safetensors)");
  const SafetensorsFile file = SafetensorsFile::read(path);
  StateDictCopier copy(file, model);
  copy.copy_module("linear", module_name(Module::EmbedDense));
  copy.require_all_used({}, path + ": the Dense module");
}

}  // namespace heptapod
