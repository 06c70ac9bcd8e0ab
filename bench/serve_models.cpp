// serve_models: writes the untrained models that bench/serve.sh serves in its generation and embeddings
// sections: a language model and a sentence encoder of realistic size with random weights (the benchmark
// measures speed only, so what they say does not matter), each carrying a BPE vocabulary trained here on the
// lines of a text file, so that the server and the Generator/Encoder take plain text.
//   serve_models --text FILE [--lm OUT.htp] [--encoder OUT.htp] [--vocab-size V] [--tiny]
// The language model has GPT's design at the paper's base size: 6 pre-norm decoder layers, d_model 512,
// 8 heads, d_ff 2048, GELU, 256 learned positions (its context), the embedding tied to the output layer.
// The encoder has the shape of a small sentence-embedding BERT (all-MiniLM-L6's): 6 post-norm layers,
// d_model 384, 12 heads, d_ff 1536, GELU, 512 learned positions, 2 token types, the embedding norm, no head
// (an "embedding" model: heptapod embed and POST /v1/embeddings). Both take a vocabulary of V pieces
// (default 8000) trained on FILE's lines. --tiny writes toy sizes instead (2 layers, d_model 64, 1000
// pieces) for smoke tests. The weights are drawn from fixed seeds, so a rerun writes the same files.
#include <CLI/CLI.hpp>

#include <chrono>
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include "heptapod/core/error.h"
#include "heptapod/data/model_vocab.h"
#include "heptapod/data/text_file.h"
#include "heptapod/data/vocabulary.h"
#include "heptapod/io/model_file.h"
#include "heptapod/model/config.h"
#include "heptapod/model/initialize.h"

namespace heptapod::bench {
namespace {

// Settings a model needs for inference only: no dropout anywhere.
void without_dropout(ModelConfig& c) {
  c.dropout = c.attention_dropout = c.activation_dropout = c.embedding_dropout = 0.0f;
}

ModelConfig language_model_config(int vocab_size, bool tiny, const std::string& preset) {
  // base: d_model 512, 8 heads, d_ff 2048, 6 layers; big: d_model 1024, 16 heads, d_ff 4096, 6 layers
  ModelConfig c = model_preset(tiny ? "tiny" : preset);
  c.norm = NormPosition::Pre;
  c.activation = Activation::Gelu;
  c.scale_embeddings = false;
  c.learned_positions = 256;
  without_dropout(c);
  c = one_stack_config(c, Architecture::DecoderOnly, vocab_size);
  validate(c);
  return c;
}

ModelConfig encoder_config(int vocab_size, bool tiny) {
  ModelConfig c = model_preset(tiny ? "tiny" : "base");
  if (!tiny) {
    c.d_model = 384;
    c.n_heads = 12;
    c.d_ff = 1536;
    c.encoder_layers = 6;
  }
  c.norm = NormPosition::Post;
  c.activation = Activation::Gelu;
  c.scale_embeddings = false;
  c.learned_positions = tiny ? 128 : 512;
  c.token_types = 2;
  c.embedding_norm = true;
  without_dropout(c);
  c = one_stack_config(c, Architecture::EncoderOnly, vocab_size);
  validate(c);
  return c;
}

// Random weights from `seed`, the vocabularies inside, written to `path`.
void write_model(const std::string& path, const ModelConfig& config, const ModelVocabularies& vocabs,
                 std::uint64_t seed) {
  Transformer<float> model(config);
  initialize_parameters(model.parameters(), config, seed);
  save_model(path, model, {}, vocabulary_tensors(vocabs));
  std::printf("serve_models: wrote %s (%s, d_model %d, %d layers, vocabulary %d)\n", path.c_str(),
              architecture_name(config.architecture), config.d_model,
              config.has_encoder() ? config.encoder_layers : config.decoder_layers, vocabs.source.empty()
                                                                                        ? vocabs.target.size()
                                                                                        : vocabs.source.size());
  std::fflush(stdout);
}

}  // namespace
}  // namespace heptapod::bench

int main(int argc, char** argv) {
  using namespace heptapod;
  using namespace heptapod::bench;
  CLI::App app{"Write the untrained language model and encoder that bench/serve.sh serves"};
  std::string text_path, lm_path, encoder_path;
  int vocab_size = 8000;
  bool tiny = false;
  std::string lm_preset = "base";
  app.add_option("--text", text_path, "Text whose lines train the vocabulary")->required()->check(CLI::ExistingFile);
  app.add_option("--lm", lm_path, "Where the language model goes");
  app.add_option("--encoder", encoder_path, "Where the encoder goes");
  app.add_option("--vocab-size", vocab_size, "Pieces of the vocabulary (default 8000; 1000 with --tiny)")
      ->check(CLI::Range(100, 100000));
  app.add_flag("--tiny", tiny, "Toy sizes for smoke tests");
  app.add_option("--lm-preset", lm_preset, "The language model's size: a model preset (base, big)")
      ->check(CLI::IsMember({"base", "big"}))->capture_default_str();
  CLI11_PARSE(app, argc, argv);
  if (lm_path.empty() && encoder_path.empty()) {
    std::fprintf(stderr, "serve_models: nothing to write (give --lm and/or --encoder)\n");
    return 2;
  }
  if (tiny && app.count("--vocab-size") == 0) vocab_size = 1000;
  try {
    const auto t0 = std::chrono::steady_clock::now();
    VocabConfig vc;
    vc.size = vocab_size;
    Vocabulary vocabulary = Vocabulary::train(read_lines(text_path), vc);
    std::printf("serve_models: trained a vocabulary of %d pieces on %s in %.1f s\n", vocabulary.size(),
                text_path.c_str(), std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    if (!lm_path.empty()) {
      ModelVocabularies vocabs;
      vocabs.target = vocabulary;
      write_model(lm_path, language_model_config(vocabulary.size(), tiny, lm_preset), vocabs, 21);
    }
    if (!encoder_path.empty()) {
      ModelVocabularies vocabs;
      vocabs.source = vocabulary;
      write_model(encoder_path, encoder_config(vocabulary.size(), tiny), vocabs, 22);
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "serve_models: %s\n", e.what());
    return 1;
  }
  return 0;
}
