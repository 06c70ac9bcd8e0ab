// Import of Hugging Face's multilingual encoder-decoder checkpoints: M2M100ForConditionalGeneration (NLLB-200
// and M2M100, model_type "m2m_100") and MBartForConditionalGeneration (mBART-50, model_type "mbart"), from
// config.json and model.safetensors (or its shards). Both are BART-family pre-norm models with a final layer
// norm per stack, biases everywhere and tied embeddings, decoding from </s> (decoder_start_token_id 2):
// - m2m100: embeddings times sqrt(d_model) when scale_embedding says so (it does by default), fairseq's
//   sinusoidal positions ([sin | cos], freq_k = exp(-k ln 10000 / (d/2 - 1))) from padding_idx + 1, ReLU;
// - mbart: learned positions with their offset of 2 (max_position_embeddings + 2 rows), a layer norm over
//   the embedding sum (layernorm_embedding), GELU, final_logits_bias as the output bias.
// Anything the config cannot express (different encoder and decoder widths, an untied shared embedding, a
// post-norm mBART, another model_type) is refused by name.
#pragma once

#include <memory>
#include <string>

#include "heptapod/model/transformer.h"

namespace heptapod {

enum class Seq2SeqFamily { M2m100, Mbart };

// The model config a config.json of the family describes; `where` names the file in errors.
ModelConfig seq2seq_model_config(const std::string& config_json, Seq2SeqFamily family, const std::string& where);

// Whether the directory holds NLLB's tokenizer in its legacy layout (tokenizer_config.json's
// "legacy_behaviour" true, no vocab.json): sources read X </s> [code], the code after the end token. Its model
// reads no end token of its own (source_eos false): the language tags add it (data/language_codes.h).
bool nllb_legacy_layout(const std::string& directory);

// The model of the checkpoint directory.
std::unique_ptr<Transformer<float>> import_seq2seq(const std::string& directory, Seq2SeqFamily family);

}  // namespace heptapod
