// A small model with random weights and vocabularies trained on the numbers corpus (tests/data), written to a
// test's directory or any path: what the Translator and the CLI need, without training.
#pragma once

#include <string>
#include <vector>

#include "heptapod/data/model_vocab.h"
#include "heptapod/data/stored_chat_template.h"
#include "heptapod/data/text_file.h"
#include "heptapod/core/random.h"
#include "heptapod/io/adapter_file.h"
#include "heptapod/io/model_file.h"
#include "heptapod/model/initialize.h"
#include "test_process.h"

namespace heptapod::test {

// The joint vocabulary of the test model: 120 pieces trained on the numbers corpus.
inline Vocabulary numbers_vocabulary() {
  std::vector<std::string> text = read_lines(data_file("numbers.dev.en"));
  const auto es = read_lines(data_file("numbers.dev.es"));
  text.insert(text.end(), es.begin(), es.end());
  VocabConfig vc;
  vc.size = 120;
  return Vocabulary::train(text, vc);
}

// Writes a small model with random weights and numbers_vocabulary() on both sides to `path`; returns `path`.
inline std::string make_model(const std::string& path) {
  ModelVocabularies vocabs{numbers_vocabulary(), {}, {}};
  vocabs.target = vocabs.source;
  ModelConfig c = model_preset("tiny");
  c.src_vocab_size = c.tgt_vocab_size = vocabs.source.size();
  c.d_model = 32;
  c.d_ff = 48;
  Transformer<float> model(c);
  initialize_parameters(model.parameters(), c, 9);
  save_model(path, model, {}, vocabulary_tensors(vocabs));
  return path;
}

// A small decoder-only model (a language model) with random weights and numbers_vocabulary() as its one
// vocabulary (and learned_positions > 0: that many learned positions), written to `path`; returns `path`.
inline std::string make_language_model(const std::string& path, int learned_positions = 0) {
  ModelVocabularies vocabs;
  vocabs.target = numbers_vocabulary();
  ModelConfig c = model_preset("tiny");
  c.d_model = 32;
  c.d_ff = 48;
  c = one_stack_config(c, Architecture::DecoderOnly, vocabs.target.size());
  c.learned_positions = learned_positions;
  Transformer<float> model(c);
  initialize_parameters(model.parameters(), c, 10);
  save_model(path, model, {}, vocabulary_tensors(vocabs));
  return path;
}

// A small decoder-only model in LLaMA's layout (rotary positions, RMSNorm, SwiGLU, no biases, 2 key/value
// heads for 4 query heads, no bound on the positions) with random weights and a SentencePiece vocabulary of
// 400 pieces with byte fallback trained on the numbers corpus, as `heptapod train --positions rotary
// --norm-type rms --ffn swiglu --biases none --byte-fallback` makes one: what `convert --to gguf` writes
// (without byte_fallback: numbers_vocabulary(), which has no byte pieces).
inline std::string make_llama_layout_model(const std::string& path, bool byte_fallback = true) {
  ModelVocabularies vocabs;
  VocabConfig vc;
  vc.size = 400;
  vc.byte_fallback = true;
  vocabs.target = byte_fallback ? Vocabulary::train(read_lines(data_file("numbers.dev.es")), vc) : numbers_vocabulary();
  ModelConfig c = model_preset("tiny");
  c.d_model = 32;
  c.d_ff = 64;
  c.n_heads = 4;
  c = one_stack_config(c, Architecture::DecoderOnly, vocabs.target.size());
  c.norm = NormPosition::Pre;
  c.norm_type = NormType::Rms;
  c.gated_ffn = true;
  c.activation = Activation::Silu;
  c.rotary = true;
  c.scale_embeddings = false;
  c.attention_qkv_bias = c.attention_out_bias = c.ffn_bias = false;
  c.kv_heads = 2;
  Transformer<float> model(c);
  initialize_parameters(model.parameters(), c, 11);
  save_model(path, model, {}, vocabulary_tensors(vocabs));
  return path;
}

// LoRA adapters of rank `rank` on `targets` over the float model file `base`, as heptapod train --lora writes
// them, but with every adapter value random (B too, so that they change the model), written to `path`;
// returns `path`.
inline std::string make_adapter(const std::string& base, const std::string& path,
                                std::vector<std::string> targets = {"q", "v"}, int rank = 2) {
  const SafetensorsFile file = SafetensorsFile::read(base);
  const std::string checksum = weights_checksum(file);
  ModelConfig c = read_model_config(file);
  c.lora.rank = rank;
  c.lora.targets = std::move(targets);
  Transformer<float> adapted(c);
  ParameterStore<float>& p = adapted.parameters();
  load_selected_parameters<float>(file, p, [](const ParamSpec& spec) { return spec.frozen; });
  Rng rng(12);
  for (std::size_t i = p.trained_offset(); i < p.size(); ++i)
    p.values()[i] = static_cast<float>(0.2 * (2 * rng.uniform() - 1));
  save_adapter(path, adapted, checksum);
  return path;
}

// The ChatML-like chat template of the tests (tests/chat/chatml_like.jinja).
inline std::string chat_template_file() { return std::string(HEPTAPOD_FIXTURES) + "/../chat/chatml_like.jinja"; }

// make_language_model(64 positions) with the tests' chat template, written to `path` as `heptapod convert
// --chat-template` writes it; returns `path`.
inline std::string make_chat_model(const std::string& path) {
  const std::string plain = path + ".plain";
  make_language_model(plain, 64);
  {
    const SafetensorsFile file = SafetensorsFile::read(plain);
    std::map<std::string, std::string> metadata = file.metadata();
    metadata[kChatTemplateMetadata] = to_json(StoredChatTemplate{slurp(chat_template_file()), {}});
    rewrite_model_metadata(file, metadata, path);
  }
  fs::remove(plain);
  return path;
}

// A small untrained encoder-only model (BERT's shape: learned positions; token types, the embedding norm and
// the masked-LM head (the unknown piece standing for the mask), or a classifier of two classes, "number" and
// "word") with the numbers vocabulary, written to `path`.
inline std::string make_encoder(const std::string& path, bool classifier = false) {
  ModelVocabularies vocabs;
  vocabs.source = numbers_vocabulary();
  ModelConfig c = model_preset("tiny");
  c.d_model = 32;
  c.d_ff = 48;
  c.learned_positions = 64;
  c = one_stack_config(c, Architecture::EncoderOnly, vocabs.source.size());
  if (classifier) {
    vocabs.labels = LabelNames({"number", "word"});
    c.labels = 2;
  } else {
    c.token_types = 2;
    c.embedding_norm = true;
    c.mlm_head = true;
    c.mask_id = kUnkId;
  }
  Transformer<float> model(c);
  initialize_parameters(model.parameters(), c, classifier ? 12 : 11);
  save_model(path, model, {}, vocabulary_tensors(vocabs));
  return path;
}

// The same model, as model.htp in `dir`.
inline std::string make_model(const TempDir& dir) { return make_model(dir.file("model.htp")); }

}  // namespace heptapod::test
