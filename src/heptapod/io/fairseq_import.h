// Import of fairseq `transformer` checkpoints, as tools/export_state_dict.py writes them: model.safetensors
// (the checkpoint's "model" state dict) and cfg.json (its architecture settings, from cfg.model or args) in
// one directory. Carried into the config: positions from padding_idx + 1 with tensor2tensor's [sin | cos]
// table, every source ending with </s>, </s> as the decoder's start, pre- or post-norm, the activation, the
// embedding scale and tying. Refused by name: learned positions, embedding layer norms, adaptive softmax,
// cross-self-attention, and widths that differ between encoder and decoder.
#pragma once

#include <memory>
#include <string>

#include "heptapod/model/transformer.h"

namespace heptapod {

struct FairseqSpecialIds {
  int bos = 0, pad = 1, eos = 2, unk = 3;  // fairseq's Dictionary
};

// The model config cfg.json describes, with the vocabulary sizes given (the embeddings' rows).
ModelConfig fairseq_model_config(const std::string& cfg_json, int src_vocab_size, int tgt_vocab_size,
                                 const std::string& where);

// The imported model and the SentencePiece model file its cfg.json names ("sentencepiece_model", by file
// name, in the same directory; sentencepiece.bpe.model when absent).
struct FairseqModel {
  std::unique_ptr<Transformer<float>> model;
  std::string sentencepiece_model;
};

FairseqModel import_fairseq(const std::string& directory);

}  // namespace heptapod
