// Converted pre-trained models against independent PyTorch references of their families
// (tools/make_marian_fixture.py, tools/make_fairseq_fixture.py, tools/make_parity_fixtures.py): `heptapod
// convert` writes a complete model file whose logits match the reference to 1e-5, whose greedy and beam outputs
// are the reference's token for token, and whose vocabularies turn those tokens into the reference's text.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "heptapod/data/model_vocab.h"
#include "heptapod/data/pretrained_vocab.h"
#include "heptapod/decode/beam_search.h"
#include "heptapod/decode/translator.h"
#include "heptapod/io/atomic_file.h"
#include "heptapod/io/fairseq_import.h"
#include "heptapod/io/marian_import.h"
#include "heptapod/io/model_file.h"
#include "heptapod/io/safetensors.h"
#include "heptapod/io/torch_import.h"
#include "heptapod/model/batch.h"
#include "conversion_checks.h"
#include "test_process.h"
#include "test_util.h"

namespace heptapod {
namespace {

using test::quoted;
using test::TempDir;

// The reference's batch: sources already end with the family's eos; targets start with its decoder start.
Batch reference_batch(const SafetensorsFile& f) {
  Batch b;
  b.B = static_cast<int>(f.at("batch/src").shape[0]);
  b.S = static_cast<int>(f.at("batch/src").shape[1]);
  b.T = static_cast<int>(f.at("batch/tgt_in").shape[1]);
  b.src = f.ints("batch/src");
  b.src_len = f.ints("batch/src_len");
  b.tgt_in = f.ints("batch/tgt_in");
  b.tgt_out = b.tgt_in;  // not read by logits()
  b.tgt_len = f.ints("batch/tgt_len");
  return b;
}

// Converts `input` with `options`, then checks the model file against `reference`.
void check_converted(const std::string& input, const std::string& options, const std::string& reference_path) {
  TempDir dir;
  const std::string output = dir.file("converted.htp");
  std::string log;
  ASSERT_EQ(test::run_heptapod("convert " + quoted(input) + " " + options + " -o " + quoted(output), dir, log), 0) << log;
  EXPECT_HAS_SUBSTR(log, "with vocabularies");
  const SafetensorsFile ref = SafetensorsFile::read(reference_path);
  auto model = load_model(output);
  const ModelConfig& c = model->config();

  // Teacher-forced logits, every real position.
  const Batch batch = reference_batch(ref);
  Arena arena;
  const float* logits = model->logits(batch, arena);
  std::vector<float> expect = ref.floats<float>("expect/logits");
  ASSERT_EQ(expect.size(), static_cast<std::size_t>(batch.B) * batch.T * c.tgt_vocab_size);
  std::vector<float> got(logits, logits + expect.size());
  for (int i = 0; i < batch.B; ++i)
    for (std::size_t k = (static_cast<std::size_t>(i) * batch.T + batch.tgt_len[i]) * c.tgt_vocab_size;
         k < static_cast<std::size_t>(i + 1) * batch.T * c.tgt_vocab_size; ++k)
      got[k] = expect[k] = 0;  // padded query rows
  EXPECT_LT(test::max_rel_error(got.data(), expect.data(), expect.size()), 1e-5);

  // Search over the incremental decoder (which adds the source eos itself) against the reference's.
  std::vector<std::vector<int>> sources;
  for (int i = 0; i < batch.B; ++i) {
    ASSERT_EQ(batch.src[static_cast<std::size_t>(i) * batch.S + batch.src_len[i] - 1], c.eos_id);
    sources.emplace_back(batch.src.begin() + static_cast<long>(i) * batch.S,
                         batch.src.begin() + static_cast<long>(i) * batch.S + batch.src_len[i] - 1);
  }
  auto inference = load_model(output);
  IncrementalDecoder decoder(*inference);
  for (const auto& [name, beam] : {std::pair{"expect/greedy", 1}, {"expect/beam", 4}}) {
    SearchOptions o;
    o.beam = beam;
    const auto results = beam_search(decoder, sources, o);
    const auto want = test::length_rows(ref, name);
    for (int i = 0; i < batch.B; ++i) EXPECT_EQ(results[i][0].tokens, want[i]) << name << ", sentence " << i;
  }

  // The vocabularies: the greedy outputs as text, and text back to the same ids.
  const SafetensorsFile file = SafetensorsFile::read(output);
  const auto vocabs = read_vocabularies(file, c);
  ASSERT_TRUE(vocabs.has_value());
  const auto texts = nlohmann::json::parse(ref.metadata("greedy_text"));
  const auto greedy = test::length_rows(ref, "expect/greedy");
  ASSERT_EQ(texts.size(), greedy.size());
  for (std::size_t i = 0; i < greedy.size(); ++i) {
    EXPECT_EQ(vocabs->target.decode(greedy[i]), texts[i].get<std::string>()) << "sentence " << i;
    for (int id : vocabs->target.encode(texts[i].get<std::string>())) EXPECT_FALSE(vocabs->target.is_special(id));
  }
  // translate reads text with nothing but the model file.
  const std::string in = dir.write("in.txt", "twenty thousand\n");
  const std::string out = dir.file("out.txt");
  ASSERT_EQ(test::run_heptapod("translate -m " + quoted(output) + " -i " + quoted(in) + " -o " + quoted(out), dir, log), 0)
      << log;
}

TEST(Import, MarianMatchesItsReference) {
  const std::string dir = test::fixture("marian");
  check_converted(dir, "--from marian", dir + "/reference.safetensors");
}

TEST(Import, FairseqMatchesItsReference) {
  const std::string dir = test::fixture("fairseq");
  check_converted(dir, "--from fairseq", dir + "/reference.safetensors");
}

// A converted model fine-tunes like any other: its own ids, its decoder start (the pad token) and its SiLU
// FFN survive training, and the result still reads and writes text through the vocab.json ids.
TEST(Import, ConvertedMarianModelFineTunes) {
  TempDir dir;
  std::string log;
  const std::string converted = dir.file("marian.htp");
  ASSERT_EQ(test::run_heptapod("convert " + quoted(test::fixture("marian")) + " --from marian -o " + quoted(converted), dir, log), 0)
      << log;
  const std::string data = std::string(HEPTAPOD_FIXTURES) + "/../data/";
  ASSERT_EQ(test::run_heptapod("train --source " + quoted(data + "numbers.dev.en") + " --target " +
                                   quoted(data + "numbers.dev.es") + " --init " + quoted(converted) + " -o " +
                                   quoted(dir.file("tuned")) + " --steps 20 --batch-tokens 1024 --log-every 5 --valid-every 100",
                               dir, log),
            0)
      << log;
  const SafetensorsFile before = SafetensorsFile::read(converted);
  const SafetensorsFile after = SafetensorsFile::read(dir.file("tuned/model.htp"));
  const ModelConfig c = read_model_config(after);
  EXPECT_EQ(to_json(c), to_json(read_model_config(before)));
  EXPECT_EQ(c.bos_id, c.pad_id);
  EXPECT_EQ(c.activation, Activation::Silu);
  const auto vocabs = read_vocabularies(after, c);
  ASSERT_TRUE(vocabs.has_value() && vocabs->target.ids());
  EXPECT_EQ(vocabs->target.serialized_ids(), read_vocabularies(before, c)->target.serialized_ids());
  const std::string in = dir.write("in.txt", "twenty thousand\n");
  EXPECT_EQ(test::run_heptapod("translate -m " + quoted(dir.file("tuned/model.htp")) + " -i " + quoted(in) + " -o " +
                                   quoted(dir.file("out.txt")),
                               dir, log),
            0)
      << log;
}

TEST(Import, MarianConfigRefusesWhatHeptapodCannotExpress) {
  const nlohmann::json base = nlohmann::json::parse(R"({"model_type": "marian", "d_model": 32, "encoder_layers": 2,
      "decoder_layers": 2, "encoder_attention_heads": 4, "decoder_attention_heads": 4, "encoder_ffn_dim": 48,
      "decoder_ffn_dim": 48, "vocab_size": 50, "pad_token_id": 49, "eos_token_id": 0, "activation_function": "swish"})");
  EXPECT_NO_THROW(marian_model_config(base.dump(), "config.json"));
  // Each change, made to the accepted config, and what the refusal names.
  const std::vector<std::pair<std::string, std::string>> refused = {
      {R"({"normalize_before": true})", "normalize_before"},
      {R"({"static_position_embeddings": false})", "learned positions"},
      {R"({"decoder_ffn_dim": 64})", "decoder_ffn_dim"},
      {R"({"activation_function": "mish"})", "mish"},
      {R"({"normalize_embedding": true})", "normalize_embedding"},
      {R"({"model_type": "bart"})", "bart"},
  };
  for (const auto& [change, message] : refused) {
    nlohmann::json j = base;
    j.update(nlohmann::json::parse(change));
    try {
      marian_model_config(j.dump(), "config.json");
      ADD_FAILURE() << "accepted " << change;
    } catch (const Error& e) {
      EXPECT_HAS_SUBSTR(e.what(), message);
      EXPECT_HAS_SUBSTR(e.what(), "config.json");
    }
  }
}

TEST(Import, FairseqConfigRefusesWhatHeptapodCannotExpress) {
  const std::vector<std::pair<std::string, std::string>> refused = {
      {R"({"encoder_learned_pos": true})", "learned positions"},
      {R"({"layernorm_embedding": true})", "layernorm_embedding"},
      {R"({"adaptive_softmax_cutoff": "5000,20000"})", "adaptive softmax"},
      {R"({"decoder_embed_dim": 256})", "decoder_embed_dim"},
      {R"({"bpe": "subword_nmt"})", "subword_nmt"},
      {R"({"activation_fn": "gelu_accurate"})", "gelu_accurate"},
      {R"({"encoder_normalize_before": true})", "normalize_before"},
      {R"({"arch": "transformer_lm"})", "transformer_lm"},
  };
  EXPECT_NO_THROW(fairseq_model_config("{}", 40, 40, "cfg.json"));
  for (const auto& [text, message] : refused) {
    try {
      fairseq_model_config(text, 40, 40, "cfg.json");
      ADD_FAILURE() << "accepted " << text;
    } catch (const Error& e) {
      EXPECT_HAS_SUBSTR(e.what(), message);
    }
  }
}

// nn.Transformer with norm_first=True, and a post-norm one built without final norms, from nn.Transformer's own
// logits.
TEST(Import, NnTransformerPreNormAndWithoutFinalNorms) {
  for (const char* name : {"torch_nn_transformer_prenorm.safetensors", "torch_nn_transformer_nofinal.safetensors"}) {
    const SafetensorsFile f = SafetensorsFile::read(test::fixture(name));
    NnTransformerImportOptions options;
    options.n_heads = std::stoi(f.metadata("n_heads"));
    options.layer_norm_eps = std::stof(f.metadata("layer_norm_eps"));
    options.norm = f.metadata("norm") == "pre" ? NormPosition::Pre : NormPosition::Post;
    auto model = import_nn_transformer(f, options);
    EXPECT_EQ(model->config().has_final_norm(), f.metadata("final_norm") == "true") << name;
    const Batch batch = test::fixture_batch(f);
    Arena arena;
    const float* logits = model->logits(batch, arena);
    const std::vector<float> expect = test::expected_logits(f, batch);
    EXPECT_LT(test::max_rel_error(logits, expect.data(), expect.size()), 1e-5) << name;
    // Read as the other norm position, the same weights give other logits: the option matters.
    options.norm = options.norm == NormPosition::Pre ? NormPosition::Post : NormPosition::Pre;
    if (options.norm == NormPosition::Pre && !model->config().has_final_norm()) continue;  // refused: see below
    auto wrong = import_nn_transformer(f, options);
    EXPECT_GT(test::max_rel_error(wrong->logits(batch, arena), expect.data(), expect.size()), 1e-2) << name;
  }
  const SafetensorsFile nofinal = SafetensorsFile::read(test::fixture("torch_nn_transformer_nofinal.safetensors"));
  NnTransformerImportOptions pre;
  pre.n_heads = 4;
  pre.norm = NormPosition::Pre;
  EXPECT_THROW(import_nn_transformer(nofinal, pre), Error);
}

// nn-transformer weights with vocabularies from the command line: an id file over a SentencePiece model, the
// special ids checked against it.
TEST(Import, NnTransformerWithVocabularyFiles) {
  TempDir dir;
  const std::string spm = test::fixture("marian/target.spm");
  const VocabIds own = sentencepiece_ids(read_file(spm), spm);
  // The tutorial's specials (unk 0, pad 1, bos 2, eos 3), then ordinary pieces up to the 23 target ids.
  std::string lines = "<unk>\n<pad>\n<bos>\n<eos>\n";
  int n = 4;
  for (const auto& p : own.pieces)
    if (p.front() != '<' && n < 23) {
      lines += p + "\n";
      ++n;
    }
  ASSERT_EQ(n, 23);
  const std::string ids = dir.write("tgt_ids.txt", lines);
  // Source: the first 19 lines.
  std::size_t at = 0;
  for (int i = 0; i < 19; ++i) at = lines.find('\n', at) + 1;
  const std::string src_ids = dir.write("src_ids.txt", lines.substr(0, at));
  const std::string input = test::fixture("torch_nn_transformer.safetensors");
  const std::string common = "convert " + quoted(input) + " --norm post --heads 4 --source-spm " + quoted(spm) +
                             " --target-spm " + quoted(spm) + " --source-ids " + quoted(src_ids) + " --target-ids " +
                             quoted(ids);
  std::string log;
  ASSERT_EQ(test::run_heptapod(common + " --pad-id 1 --bos-id 2 --eos-id 3 -o " + quoted(dir.file("m.htp")), dir, log), 0)
      << log;
  const SafetensorsFile file = SafetensorsFile::read(dir.file("m.htp"));
  const auto vocabs = read_vocabularies(file, read_model_config(file));
  ASSERT_TRUE(vocabs.has_value());
  EXPECT_EQ(vocabs->target.piece(3), "<eos>");
  EXPECT_EQ(vocabs->source.size(), 19);
  // An eos id that names an ordinary piece is a wrong mapping, said as such.
  EXPECT_NE(test::run_heptapod(common + " --pad-id 1 --bos-id 2 --eos-id 7 -o " + quoted(dir.file("bad.htp")), dir, log), 0);
  EXPECT_HAS_SUBSTR(log, "eos_id 7");
  EXPECT_FALSE(test::fs::exists(dir.file("bad.htp")));
}

}  // namespace
}  // namespace heptapod
