// Reading a sentence-transformers directory: modules.json (the pipeline: a Transformer, a Pooling, optionally a
// Dense, optionally a Normalize), the Pooling module's config.json (any of its modes, several concatenated in
// the library's order; include_prompt false refused), the Dense module's config.json and weights, and
// sentence_bert_config.json (max_seq_length, do_lower_case). What it says becomes the converted encoder's
// embedding defaults (ModelConfig::embed_pooling, embed_dense_*, embed_normalize, max_input_tokens) and its
// Dense weights the parameter "encoder/embed_dense".
#pragma once

#include <string>
#include <vector>

#include "heptapod/model/config.h"
#include "heptapod/model/transformer.h"

namespace heptapod {

// A Dense module: act(W v + b), W (out_features, in_features).
struct SentenceTransformersDense {
  std::string dir;  // its directory ("": no Dense module)
  int in_features = 0, out_features = 0;
  bool bias = true;
  bool tanh = false;  // torch.nn.modules.activation.Tanh; else the identity
};

struct SentenceTransformersLayout {
  std::string transformer_dir;  // the Transformer module's directory (the top one, or its path under it)
  std::vector<Pooling> pooling{Pooling::Mean};  // in sentence-transformers' order of concatenation
  SentenceTransformersDense dense;
  bool normalize = false;
  int max_seq_length = 0;  // 0: none given
  int dimension = 0;       // the Pooling module's word_embedding_dimension (0: not given)
};

// Whether `dir` holds a sentence-transformers model (a modules.json).
bool is_sentence_transformers_dir(const std::string& dir);

// The layout of the directory; a module, pooling mode or setting Heptapod cannot express is an Error naming
// the file and the key.
SentenceTransformersLayout read_sentence_transformers(const std::string& dir);

// The config with the layout's embedding defaults; a dimension other than d_model, or a Dense module whose
// in_features is not the pooled width, is an Error.
void apply_sentence_embedding(const SentenceTransformersLayout& layout, ModelConfig& config);

// The Dense module's weights (its model.safetensors: linear.weight, linear.bias) into the model's
// "encoder/embed_dense"; nothing without a Dense module. A missing file, a shape or a tensor left over is an
// Error naming the file.
void copy_dense_weights(const SentenceTransformersLayout& layout, Transformer<float>& model);

}  // namespace heptapod
