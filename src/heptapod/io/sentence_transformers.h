// Reading a sentence-transformers directory: modules.json (the pipeline: a Transformer, a Pooling, optionally
// a Normalize), the Pooling module's config.json (pooling_mode_cls_token, _mean_tokens, _max_tokens; the others
// refused) and sentence_bert_config.json (max_seq_length, do_lower_case). What it says becomes the converted
// encoder's embedding defaults (ModelConfig::embed_pooling, embed_normalize, max_input_tokens).
#pragma once

#include <string>

#include "heptapod/model/config.h"

namespace heptapod {

struct SentenceTransformersLayout {
  std::string transformer_dir;  // the Transformer module's directory (the top one, or its path under it)
  Pooling pooling = Pooling::Mean;
  bool normalize = false;
  int max_seq_length = 0;  // 0: none given
  int dimension = 0;       // the Pooling module's word_embedding_dimension (0: not given)
};

// Whether `dir` holds a sentence-transformers model (a modules.json).
bool is_sentence_transformers_dir(const std::string& dir);

// The layout of the directory; a module, pooling mode or setting Heptapod cannot express is an Error naming
// the file and the key.
SentenceTransformersLayout read_sentence_transformers(const std::string& dir);

// The config with the layout's embedding defaults; a dimension other than d_model is an Error.
void apply_sentence_embedding(const SentenceTransformersLayout& layout, ModelConfig& config);

}  // namespace heptapod
