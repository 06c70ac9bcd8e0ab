// Import of Hugging Face BERT checkpoints: BertModel, BertForMaskedLM, BertForPreTraining and
// BertForSequenceClassification (config.json and model.safetensors from a model directory). BERT is an
// encoder-only model: word, position and token-type embeddings summed under a layer norm, post-norm layers
// with separate q/k/v, the exact GELU, its epsilon from the config; the masked-LM head (transform, norm, the
// tied decoder, a bias) or a classifier (the tanh pooler on [CLS], then one logit per label); a pooler without
// a classifier is kept for the classifiers fine-tuned from the model. The pre-training checkpoints'
// next-sentence head and position_ids buffer are dropped with a notice; any other tensor left over, and every
// config value Heptapod cannot express, is refused by name.
#pragma once

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

// The modules of an encoder layer ("encoder.layer.<i>." + theirs).
std::span<const ModuleMapping> bert_layer_modules();

// The model config a BERT config.json describes, for a checkpoint with `head` (a classifier of `labels`
// classes) and, or not, a pooler; `where` names the file in errors.
ModelConfig bert_model_config(const std::string& config_json, const std::string& where, BertHead head, int labels,
                              const BertSpecialIds& ids, bool pooler = false);

struct BertImport {
  std::unique_ptr<Transformer<float>> model;
  std::vector<std::string> labels;   // a classifier's label names in id order (config id2label)
  std::vector<std::string> notices;  // what was dropped, and why
};

// Weights from the directory's model.safetensors under BERT's state-dict names, with or without the "bert."
// prefix; old layer-norm names (gamma, beta) accepted.
BertImport import_bert(const std::string& directory, const BertSpecialIds& ids);

}  // namespace heptapod
