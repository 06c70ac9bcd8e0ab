// sentence-transformers' modules.json, Pooling config and sentence_bert_config.json, checked and read.
#include "heptapod/io/sentence_transformers.h"

#include <filesystem>

#include "heptapod/core/error.h"
#include "heptapod/io/atomic_file.h"
#include "heptapod/io/hf_config.h"

namespace heptapod {

namespace {

constexpr const char* kModule = "sentence_transformers.models.";

// The pooling of 1_Pooling/config.json: exactly one of the modes Heptapod pools by.
Pooling read_pooling(const std::string& path, SentenceTransformersLayout& layout) {
  const nlohmann::json j = parse_config_object(read_file(path), path);
  const ConfigReader r{j, path};
  for (const char* mode : {"pooling_mode_mean_sqrt_len_tokens", "pooling_mode_weightedmean_tokens",
                           "pooling_mode_lasttoken"})
    require(!r.boolean(mode, false), path + ": \"" + mode + "\" is an unsupported pooling mode (Heptapod pools by "
                                                           "pooling_mode_mean_tokens, _cls_token or _max_tokens)");
  r.refuse_unless("include_prompt", true, true, "every token is pooled, the prompt's included");
  layout.dimension = r.integer("word_embedding_dimension", 0);
  const bool cls = r.boolean("pooling_mode_cls_token", false), mean = r.boolean("pooling_mode_mean_tokens", false),
             max = r.boolean("pooling_mode_max_tokens", false);
  require(cls + mean + max == 1, path + ": " + std::to_string(cls + mean + max) + " pooling modes are on; Heptapod "
                                 "pools by exactly one of pooling_mode_mean_tokens, _cls_token and _max_tokens "
                                 "(concatenated modes are not supported)");
  return cls ? Pooling::Cls : max ? Pooling::Max : Pooling::Mean;
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
  for (std::size_t i = 0; i < modules.size(); ++i) {
    const nlohmann::json& m = modules[i];
    const std::string where = modules_path + ": module " + std::to_string(i);
    require(m.is_object() && m.contains("type") && m["type"].is_string() && m.contains("path") && m["path"].is_string(),
            where + ": needs \"type\" and \"path\" strings");
    const std::string type = m["type"].get<std::string>(), path = m["path"].get<std::string>();
    const std::string sub = path.empty() ? dir : dir + "/" + path;
    const std::string expected = i == 0 ? "Transformer" : i == 1 ? "Pooling" : "Normalize";
    require(i < 3 && type == kModule + expected,
            where + ": \"" + type + "\" is not supported there (Heptapod takes " + kModule +
                "Transformer, then Pooling, then optionally Normalize)");
    if (i == 0) layout.transformer_dir = sub;
    if (i == 1) {
      layout.pooling = read_pooling(sub + "/config.json", layout);
      pooled = true;
    }
    if (i == 2) layout.normalize = true;
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
}

}  // namespace heptapod
