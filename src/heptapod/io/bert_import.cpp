// BERT: config keys to ModelConfig, state-dict names to Heptapod's.
#include "heptapod/io/bert_import.h"

#include "heptapod/core/error.h"
#include "heptapod/io/atomic_file.h"
#include "heptapod/io/hf_config.h"
#include "heptapod/io/safetensors.h"
#include "heptapod/io/state_dict_copy.h"

namespace heptapod {

ModelConfig bert_model_config(const std::string& text, const std::string& where, BertHead head, int labels,
                              const BertSpecialIds& ids, bool pooler) {
  const nlohmann::json j = parse_config_object(text, where);
  const ConfigReader r{j, where};
  const std::string type = r.text("model_type", "");
  require(type == "bert", where + ": model_type is \"" + type + "\", not \"bert\"");
  ModelConfig c = one_stack_config(ModelConfig{}, Architecture::EncoderOnly, r.integer("vocab_size"));
  c.d_model = r.integer("hidden_size");
  c.encoder_layers = r.integer("num_hidden_layers");
  c.n_heads = r.integer("num_attention_heads");
  c.d_ff = r.integer("intermediate_size");
  c.activation = activation_from_name(r.text("hidden_act", "gelu"), where + ": \"hidden_act\"");
  c.dropout = c.embedding_dropout = r.number("hidden_dropout_prob", 0.1f);
  c.attention_dropout = r.number("attention_probs_dropout_prob", 0.1f);
  c.activation_dropout = 0.0f;
  c.learned_positions = r.integer("max_position_embeddings", 512);
  c.position_offset = 0;
  c.token_types = r.integer("type_vocab_size", 2);
  c.layer_norm_eps = r.number("layer_norm_eps", 1e-12f);
  c.norm = NormPosition::Post;
  c.final_norm = false;
  c.embedding_norm = true;
  c.scale_embeddings = false;
  c.pad_id = r.integer("pad_token_id", ids.pad);
  c.bos_id = ids.cls;
  c.eos_id = ids.sep;
  const std::string positions = r.text("position_embedding_type", "absolute");
  require(positions == "absolute", where + ": \"position_embedding_type\": \"" + positions +
                                       "\" is not supported (Heptapod's BERT has absolute learned positions)");
  r.refuse_unless("is_decoder", false, false, "a causal BERT");
  r.refuse_unless("add_cross_attention", false, false, "cross-attention in an encoder");
  c.pooler = pooler && head != BertHead::Classifier;  // a classifier's follows its pooling
  if (head == BertHead::MaskedLm) {
    c.mlm_head = true;
    c.mask_id = ids.mask;
  } else if (head == BertHead::Classifier) {
    c.labels = labels;
    c.pooling = Pooling::Cls;
    const std::string problem = r.text("problem_type", "single_label_classification");
    require(problem == "single_label_classification" || problem == "multi_label_classification",
            where + ": \"problem_type\": \"" + problem +
                "\" is not supported (Heptapod's classifiers are single_label_classification and "
                "multi_label_classification)");
    c.multi_label = problem == "multi_label_classification";
  }
  try {
    validate(c);
  } catch (const Error& e) {
    throw Error(where + ": " + e.what());
  }
  return c;
}

namespace {

// BERT's modules of encoder layer i ("encoder.layer.<i>.").
constexpr ModuleMapping kBertLayer[] = {
    {"attention.self.query", Module::SelfAttnQuery},
    {"attention.self.key", Module::SelfAttnKey},
    {"attention.self.value", Module::SelfAttnValue},
    {"attention.output.dense", Module::SelfAttnOutput},
    {"attention.output.LayerNorm", Module::SelfAttnNorm},
    {"intermediate.dense", Module::FfnIn},
    {"output.dense", Module::FfnOut},
    {"output.LayerNorm", Module::FfnNorm},
};

}  // namespace

std::span<const ModuleMapping> bert_layer_modules() { return kBertLayer; }

namespace {

// A classifier's label names: config id2label by id, or LABEL_i.
std::vector<std::string> label_names(const nlohmann::json& j, int labels, const std::string& where) {
  std::vector<std::string> names(static_cast<std::size_t>(labels));
  for (int i = 0; i < labels; ++i) names[static_cast<std::size_t>(i)] = "LABEL_" + std::to_string(i);
  if (!j.contains("id2label")) return names;
  const auto& map = j["id2label"];
  require(map.is_object(), where + ": \"id2label\" must be an object of ids and names");
  require(static_cast<int>(map.size()) == labels, where + ": \"id2label\" names " + std::to_string(map.size()) +
                                                      " labels, but the classifier has " + std::to_string(labels));
  for (const auto& [key, name] : map.items()) {
    int id = -1;
    try {
      std::size_t used = 0;
      id = std::stoi(key, &used);
      if (used != key.size()) id = -1;
    } catch (const std::exception&) {
    }
    require(id >= 0 && id < labels && name.is_string(),
            where + ": \"id2label\" entry \"" + key + "\" is not an id below " + std::to_string(labels) + " with a name");
    names[static_cast<std::size_t>(id)] = name.get<std::string>();
  }
  return names;
}

}  // namespace

BertImport import_bert(const std::string& dir, const BertSpecialIds& ids) {
  const std::string config_path = dir + "/config.json";
  const std::string config_text = read_file(config_path);
  const SafetensorsFile f = SafetensorsFile::read(dir + "/model.safetensors");
  const std::string p = f.find("bert.embeddings.word_embeddings.weight") ? "bert." : "";
  const bool mlm = f.find("cls.predictions.bias") != nullptr;
  const bool classifier = f.find("classifier.weight") != nullptr;
  require(!(mlm && classifier), f.where() + ": both a masked-LM head and a classifier; Heptapod's models have one head");
  int labels = 0;
  if (classifier) {
    const TensorEntry& e = f.at("classifier.weight");
    require(e.shape.size() == 2, f.where() + ": \"classifier.weight\" is not a matrix");
    labels = static_cast<int>(e.shape[0]);
  }
  const BertHead head = mlm ? BertHead::MaskedLm : classifier ? BertHead::Classifier : BertHead::None;
  BertImport out;
  const bool pooler = f.find(p + "pooler.dense.weight") != nullptr;
  const ModelConfig c = bert_model_config(config_text, config_path, head, labels, ids, pooler);
  if (classifier) out.labels = label_names(parse_config_object(config_text, config_path), labels, config_path);
  out.model = std::make_unique<Transformer<float>>(c);
  StateDictCopier copy(f, *out.model);
  // A module under its names, or a layer norm under the old ones (gamma, beta).
  auto module = [&](const std::string& theirs, Module ours, Stack stack = Stack::Shared, int layer = -1) {
    const std::string name = module_name(ours, stack, layer);
    if (copy.has(theirs + ".gamma") && !copy.has(theirs + ".weight")) {
      copy.copy(theirs + ".gamma", tensor_name(name, Leaf::Weight));
      copy.copy(theirs + ".beta", tensor_name(name, Leaf::Bias));
    } else {
      copy.copy_module(theirs, name);
    }
  };
  const std::string e = p + "embeddings.";
  copy.copy(e + "word_embeddings.weight", source_embedding_name(c));
  copy.copy(e + "position_embeddings.weight", tensor_name(Module::Positions, Leaf::Weight, Stack::Encoder));
  copy.copy(e + "token_type_embeddings.weight", tensor_name(Module::TokenTypes, Leaf::Weight));
  module(e + "LayerNorm", Module::EmbeddingNorm, Stack::Encoder);
  for (int i = 0; i < c.encoder_layers; ++i)
    for (const ModuleMapping& m : kBertLayer)
      module(p + "encoder.layer." + std::to_string(i) + "." + m.theirs, m.ours, Stack::Encoder, i);
  if (mlm) {
    module("cls.predictions.transform.dense", Module::MlmTransform);
    module("cls.predictions.transform.LayerNorm", Module::MlmNorm);
    copy.copy("cls.predictions.bias", module_name(Module::MlmOutputBias));
    copy.require_tied("cls.predictions.decoder.weight", e + "word_embeddings.weight");
    copy.require_tied("cls.predictions.decoder.bias", "cls.predictions.bias");
  }
  if (c.has_pooler()) module(p + "pooler.dense", Module::Pooler);
  if (classifier) module("classifier", Module::Classifier);
  // Dropped by name: what only pre-training read, and the positions buffer.
  auto drop = [&](const std::string& name, const std::string& why) {
    if (!copy.has(name)) return;
    copy.skip(name);
    out.notices.push_back("dropped " + name + " (" + why + ")");
  };
  drop(e + "position_ids", "a buffer of the positions 0, 1, ...; Heptapod counts them itself");
  drop("cls.seq_relationship.weight", "the next-sentence head of pre-training");
  drop("cls.seq_relationship.bias", "the next-sentence head of pre-training");
  copy.require_all_used({}, "BERT model");
  return out;
}

}  // namespace heptapod
