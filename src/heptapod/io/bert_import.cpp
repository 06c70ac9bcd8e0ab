// BERT: config keys to ModelConfig, state-dict names to Heptapod's.
#include "heptapod/io/bert_import.h"

#include "heptapod/core/error.h"
#include "heptapod/io/atomic_file.h"
#include "heptapod/io/hf_config.h"
#include "heptapod/io/safetensors.h"
#include "heptapod/io/state_dict_copy.h"

namespace heptapod {

BertFamily bert_family(const std::string& text, const std::string& where) {
  const nlohmann::json j = parse_config_object(text, where);
  const std::string type = ConfigReader{j, where}.text("model_type", "");
  if (type == "bert") return BertFamily::Bert;
  if (type == "roberta" || type == "xlm-roberta") return BertFamily::Roberta;
  if (type == "distilbert") return BertFamily::DistilBert;
  throw Error(where + ": model_type \"" + type + "\" is not an encoder this converter takes (bert, roberta, "
                      "xlm-roberta, distilbert)");
}

namespace {

// DistilBERT's body from its own keys: post-norm layers, no token types, layer norms of eps 1e-12.
void read_distilbert_body(const ConfigReader& r, ModelConfig& c) {
  c.d_model = r.integer("dim");
  c.encoder_layers = r.integer("n_layers");
  c.n_heads = r.integer("n_heads");
  c.d_ff = r.integer("hidden_dim");
  c.activation = activation_from_name(r.text("activation", "gelu"), r.where + ": \"activation\"");
  c.dropout = c.embedding_dropout = r.number("dropout", 0.1f);
  c.attention_dropout = r.number("attention_dropout", 0.1f);
  c.token_types = 0;
  c.layer_norm_eps = 1e-12f;  // fixed in DistilBERT's code
  r.refuse_unless("sinusoidal_pos_embds", false, false, "Heptapod's DistilBERT has learned positions");
  c.relu_pooler = true;  // its classifiers' pre_classifier, also for those fine-tuned from it
}

// BERT's and RoBERTa's body from BERT's keys.
void read_bert_body(const ConfigReader& r, ModelConfig& c) {
  c.d_model = r.integer("hidden_size");
  c.encoder_layers = r.integer("num_hidden_layers");
  c.n_heads = r.integer("num_attention_heads");
  c.d_ff = r.integer("intermediate_size");
  c.activation = activation_from_name(r.text("hidden_act", "gelu"), r.where + ": \"hidden_act\"");
  c.dropout = c.embedding_dropout = r.number("hidden_dropout_prob", 0.1f);
  c.attention_dropout = r.number("attention_probs_dropout_prob", 0.1f);
  c.token_types = r.integer("type_vocab_size", 2);
  c.layer_norm_eps = r.number("layer_norm_eps", 1e-12f);
  const std::string positions = r.text("position_embedding_type", "absolute");
  require(positions == "absolute", r.where + ": \"position_embedding_type\": \"" + positions +
                                       "\" is not supported (Heptapod's BERT has absolute learned positions)");
  r.refuse_unless("is_decoder", false, false, "a causal BERT");
  r.refuse_unless("add_cross_attention", false, false, "cross-attention in an encoder");
}

}  // namespace

ModelConfig bert_model_config(const std::string& text, const std::string& where, BertHead head, int labels,
                              const BertSpecialIds& ids, bool pooler, BertFamily family) {
  const nlohmann::json j = parse_config_object(text, where);
  const ConfigReader r{j, where};
  const std::string type = r.text("model_type", "");
  const char* wanted = family == BertFamily::Bert ? "bert" : family == BertFamily::Roberta ? "roberta" : "distilbert";
  require(type == wanted || (family == BertFamily::Roberta && type == "xlm-roberta"),
          where + ": model_type is \"" + type + "\", not \"" + wanted + "\"" +
              (family == BertFamily::Roberta ? " or \"xlm-roberta\"" : ""));
  ModelConfig c = one_stack_config(ModelConfig{}, Architecture::EncoderOnly, r.integer("vocab_size"));
  if (family == BertFamily::DistilBert)
    read_distilbert_body(r, c);
  else
    read_bert_body(r, c);
  c.activation_dropout = 0.0f;
  c.learned_positions = r.integer("max_position_embeddings", 512);
  c.norm = NormPosition::Post;
  c.final_norm = false;
  c.embedding_norm = true;
  c.scale_embeddings = false;
  c.pad_id = r.integer("pad_token_id", ids.pad);
  // RoBERTa counts positions from past the padding id (its table's first pad_id + 1 rows are never read).
  c.position_offset = family == BertFamily::Roberta ? c.pad_id + 1 : 0;
  c.double_separator = family == BertFamily::Roberta;
  c.bos_id = ids.cls;
  c.eos_id = ids.sep;
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

// DistilBERT's modules of layer i ("transformer.layer.<i>.").
constexpr ModuleMapping kDistilBertLayer[] = {
    {"attention.q_lin", Module::SelfAttnQuery},
    {"attention.k_lin", Module::SelfAttnKey},
    {"attention.v_lin", Module::SelfAttnValue},
    {"attention.out_lin", Module::SelfAttnOutput},
    {"sa_layer_norm", Module::SelfAttnNorm},
    {"ffn.lin1", Module::FfnIn},
    {"ffn.lin2", Module::FfnOut},
    {"output_layer_norm", Module::FfnNorm},
};

// Where a family keeps its tensors: the body's prefix (a bare body has none), its layers, and its heads' names.
struct FamilyNames {
  const char* prefix;        // "bert."
  const char* layers;        // "encoder.layer."
  std::span<const ModuleMapping> layer_modules;
  const char* mlm_bias;      // the masked-LM head's output bias
  const char* mlm_transform;
  const char* mlm_norm;
  const char* mlm_decoder;   // its output layer: ".weight" tied to the word embeddings, ".bias" to mlm_bias
  const char* classifier;    // the classifier's output layer
  const char* head_pooler;   // the classifier's pooler: under the prefix (BERT's) or the head's own
  bool pooler_in_body;
};

constexpr FamilyNames kFamilies[] = {
    {"bert.", "encoder.layer.", kBertLayer, "cls.predictions.bias", "cls.predictions.transform.dense",
     "cls.predictions.transform.LayerNorm", "cls.predictions.decoder", "classifier", "pooler.dense", true},
    {"roberta.", "encoder.layer.", kBertLayer, "lm_head.bias", "lm_head.dense", "lm_head.layer_norm",
     "lm_head.decoder", "classifier.out_proj", "classifier.dense", false},
    {"distilbert.", "transformer.layer.", kDistilBertLayer, "vocab_projector.bias", "vocab_transform",
     "vocab_layer_norm", "vocab_projector", "classifier", "pre_classifier", false},
};

}  // namespace

std::span<const ModuleMapping> bert_layer_modules() { return kBertLayer; }

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

BertImport import_bert(const std::string& dir, const BertSpecialIds& ids, BertFamily family,
                       const std::function<void(ModelConfig&)>& adjust) {
  const FamilyNames& names = kFamilies[static_cast<int>(family)];
  const std::string config_path = dir + "/config.json";
  const std::string config_text = read_file(config_path);
  const SafetensorsFile f = SafetensorsFile::read(dir + "/model.safetensors");
  const std::string p = f.find(names.prefix + std::string("embeddings.word_embeddings.weight")) ? names.prefix : "";
  const bool mlm = f.find(names.mlm_bias) != nullptr;
  const std::string classifier_weight = names.classifier + std::string(".weight");
  const bool classifier = f.find(classifier_weight) != nullptr;
  require(!(mlm && classifier), f.where() + ": both a masked-LM head and a classifier; Heptapod's models have one head");
  int labels = 0;
  if (classifier) {
    const TensorEntry& e = f.at(classifier_weight);
    require(e.shape.size() == 2, f.where() + ": \"" + classifier_weight + "\" is not a matrix");
    labels = static_cast<int>(e.shape[0]);
  }
  const BertHead head = mlm ? BertHead::MaskedLm : classifier ? BertHead::Classifier : BertHead::None;
  BertImport out;
  const std::string body_pooler = p + "pooler.dense";
  const bool pooler = f.find(body_pooler + ".weight") != nullptr;
  ModelConfig c = bert_model_config(config_text, config_path, head, labels, ids, pooler, family);
  if (adjust) {
    adjust(c);
    try {
      validate(c);
    } catch (const Error& error) {
      throw Error(config_path + ": " + error.what());
    }
  }
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
  if (c.token_types > 0) copy.copy(e + "token_type_embeddings.weight", tensor_name(Module::TokenTypes, Leaf::Weight));
  module(e + "LayerNorm", Module::EmbeddingNorm, Stack::Encoder);
  for (int i = 0; i < c.encoder_layers; ++i)
    for (const ModuleMapping& m : names.layer_modules)
      module(p + names.layers + std::to_string(i) + "." + m.theirs, m.ours, Stack::Encoder, i);
  if (mlm) {
    module(names.mlm_transform, Module::MlmTransform);
    module(names.mlm_norm, Module::MlmNorm);
    copy.copy(names.mlm_bias, module_name(Module::MlmOutputBias));
    const std::string decoder = names.mlm_decoder;
    copy.require_tied(decoder + ".weight", e + "word_embeddings.weight");
    if (decoder + ".bias" != names.mlm_bias) copy.require_tied(decoder + ".bias", names.mlm_bias);
  }
  if (classifier) {
    module(names.pooler_in_body ? p + names.head_pooler : std::string(names.head_pooler), Module::Pooler);
    module(names.classifier, Module::Classifier);
  } else if (c.has_pooler()) {
    module(body_pooler, Module::Pooler);
  }
  // Dropped by name: what only pre-training read, and the positions buffer.
  auto drop = [&](const std::string& name, const std::string& why) {
    if (!copy.has(name)) return;
    copy.skip(name);
    out.notices.push_back("dropped " + name + " (" + why + ")");
  };
  drop(e + "position_ids", "a buffer of the positions 0, 1, ...; Heptapod counts them itself");
  drop(e + "token_type_ids", "a buffer of zeros; Heptapod's token types are 0 unless a pair's second segment");
  drop("cls.seq_relationship.weight", "the next-sentence head of pre-training");
  drop("cls.seq_relationship.bias", "the next-sentence head of pre-training");
  if (classifier && pooler && !names.pooler_in_body) {
    drop(body_pooler + ".weight", "a pooler the classification head does not read");
    drop(body_pooler + ".bias", "a pooler the classification head does not read");
  }
  copy.require_all_used({}, family == BertFamily::Bert ? "BERT model" : family == BertFamily::Roberta ? "RoBERTa model"
                                                                                                       : "DistilBERT model");
  return out;
}

}  // namespace heptapod
