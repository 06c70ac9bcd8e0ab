// Import of Hugging Face BERT checkpoints: BertModel, BertForMaskedLM, BertForPreTraining and
// BertForSequenceClassification (config.json and model.safetensors from a model directory), and those of the
// families on BERT's body (BertFamily: RoBERTa, XLM-R, DistilBERT; their models, masked-LM heads and
// sequence classifiers). BERT is an
// encoder-only model: word, position and token-type embeddings summed under a layer norm, post-norm layers
// with separate q/k/v, the exact GELU, its epsilon from the config; the masked-LM head (transform, norm, the
// tied decoder, a bias) or a classifier (the tanh pooler on [CLS], then one logit per label); a pooler without
// a classifier is kept for the classifiers fine-tuned from the model. The pre-training checkpoints'
// next-sentence head and position_ids buffer are dropped with a notice; any other tensor left over, and every
// config value Heptapod cannot express, is refused by name.
#pragma once

#include <nlohmann/json.hpp>

#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "heptapod/io/state_dict_copy.h"
#include "heptapod/model/transformer.h"

namespace heptapod {

// The ids of the tokenizer's special pieces a BERT model needs.
struct BertSpecialIds {
  int pad = 0, cls = 101, sep = 102, mask = 103;
};

// What the checkpoint's tensors hold beyond the body.
enum class BertHead { None, MaskedLm, Classifier };

// The checkpoints built on BERT's body, each under its own names:
// - Bert: model_type "bert" (above);
// - Roberta: RoBERTa and XLM-R (model_type "roberta", "xlm-roberta"): positions counted from past the padding
//   id (the learned table's rows from pad_token_id + 1), one token type, the body under "roberta.", the
//   masked-LM head lm_head.{dense,layer_norm,decoder,bias}, the classification head classifier.dense (tanh,
//   our pooler) and classifier.out_proj on <s>, sentence pairs <s> A </s></s> B </s>;
// - DistilBert: model_type "distilbert": its own config keys (dim, hidden_dim, n_layers, n_heads, activation)
//   and names (distilbert.embeddings..., transformer.layer.N.attention.{q,k,v,out}_lin, sa_layer_norm,
//   ffn.lin1/lin2, output_layer_norm), no token types, no pooler, layer norms of eps 1e-12; the classifier
//   pre_classifier (through ReLU, our pooler) and classifier, the masked-LM head vocab_transform,
//   vocab_layer_norm, vocab_projector. Sinusoidal positions (sinusoidal_pos_embds) are refused.
enum class BertFamily { Bert, Roberta, DistilBert };

// The family of a config.json by its model_type; any other type is an Error naming `where` and the types taken.
BertFamily bert_family(const std::string& config_json, const std::string& where);

// The modules of an encoder layer ("encoder.layer.<i>." + theirs).
std::span<const ModuleMapping> bert_layer_modules();

// The model config a BERT config.json describes, for a checkpoint with `head` (a classifier of `labels`
// classes) and, or not, a pooler; `where` names the file in errors.
ModelConfig bert_model_config(const std::string& config_json, const std::string& where, BertHead head, int labels,
                              const BertSpecialIds& ids, bool pooler = false, BertFamily family = BertFamily::Bert);

struct BertImport {
  std::unique_ptr<Transformer<float>> model;
  std::vector<std::string> labels;   // a classifier's label names in id order (config id2label)
  std::vector<std::string> notices;  // what was dropped, and why
};

// Weights from the directory's model.safetensors under BERT's state-dict names, with or without the "bert."
// prefix; old layer-norm names (gamma, beta) accepted.
// adjust: a last change of the config before the model is made (a sentence-transformers directory's embedding
// defaults).
BertImport import_bert(const std::string& directory, const BertSpecialIds& ids, BertFamily family = BertFamily::Bert,
                       const std::function<void(ModelConfig&)>& adjust = {});

// A classifier's label names from its config.json object: id2label by id, or LABEL_i; `where` names the file.
std::vector<std::string> label_names(const nlohmann::json& config, int labels, const std::string& where);

}  // namespace heptapod
