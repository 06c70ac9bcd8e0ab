// Converted T5 checkpoints (tests/fixtures/t5: v1.0, ReLU, tied output scaled by d_model^-0.5; t5_v1_1: gated
// GELU, untied lm_head, heads wider than d_model / num_heads, decoder deeper than encoder) against an independent
// float64 PyTorch implementation of T5 (tools/t5_reference.py; fixtures by tools/make_t5_fixtures.py): `heptapod
// convert DIR --from t5` writes a model file whose encoder states and logits match to 1e-5, whose cached
// decoding equals its full decoding, whose greedy and beam outputs are the reference's token for token, whose
// training gradients match to 1e-4 (the relative bias tables included), whose relative position buckets are
// Hugging Face's, and whose vocabulary gives T5Tokenizer's ids (<extra_id_N> counted down from the end); score,
// quantize and translate take it; the converter refuses what it cannot express, by name.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "heptapod/data/model_vocab.h"
#include "heptapod/decode/beam_search.h"
#include "heptapod/decode/incremental_decoder.h"
#include "heptapod/io/atomic_file.h"
#include "heptapod/io/model_file.h"
#include "heptapod/io/safetensors.h"
#include "heptapod/io/t5_import.h"
#include "heptapod/layers/relative_buckets.h"
#include "conversion_checks.h"
#include "test_process.h"
#include "test_util.h"

namespace heptapod {
namespace {

using test::TempDir;

using Converted = test::ConvertedFixture;

Converted convert(const std::string& family, TempDir& dir) { return test::convert_fixture(family, "t5", dir); }

// The reference's batch: sources end with </s>; targets start with the decoder's start token (<pad>); the
// reference's ignored target positions (-1) read as padding.
Batch reference_batch(const SafetensorsFile& f, const ModelConfig& c) {
  Batch b = test::fixture_batch(f);
  std::replace(b.tgt_out.begin(), b.tgt_out.end(), -1, c.pad_id);
  return b;
}

void check_family(const std::string& family, bool tied) {
  TempDir dir;
  Converted converted = convert(family, dir);
  const SafetensorsFile& ref = converted.reference;
  Transformer<float>& model = *converted.model;
  const ModelConfig& c = model.config();
  EXPECT_EQ(c.norm_type, NormType::Rms);
  EXPECT_FALSE(c.scale_attention);
  EXPECT_GT(c.relative_buckets, 0);
  EXPECT_EQ(c.scale_output, tied);
  EXPECT_EQ(c.tie_embeddings, tied ? EmbeddingTying::All : EmbeddingTying::Embeddings);
  EXPECT_EQ(c.bos_id, c.pad_id);
  EXPECT_TRUE(c.final_norm_dropout);  // T5Stack drops out after its final norm (training only)

  // Encoder states and teacher-forced logits of every real position.
  const Batch batch = reference_batch(ref, c);
  Arena arena;
  const float* encoded = model.encode(batch.src.data(), batch.B, batch.S, batch.src_len.data(), arena);
  const std::vector<float> want_encoded = ref.floats<float>("expect/encoder");
  EXPECT_LT(test::padded_error({encoded, encoded + want_encoded.size()}, want_encoded, batch.src_len, batch.S), 1e-5)
      << family << " encoder states";
  const float* logits = model.logits(batch, arena);
  const std::vector<float> want_logits = ref.floats<float>("expect/logits");
  const std::vector<float> full(logits, logits + want_logits.size());
  EXPECT_LT(test::padded_error(full, want_logits, batch.tgt_len, batch.T), 1e-5) << family << " logits";

  // Cached decoding, one position at a time, gives the full pass's logits (each sentence alone).
  const std::size_t V = c.tgt_vocab_size;
  for (int b = 0; b < batch.B; ++b) {
    IncrementalDecoder decoder(model);
    decoder.start(batch.src.data() + static_cast<long>(b) * batch.S, 1, batch.S, &batch.src_len[b], 1, batch.T,
                  CachePrecision::Float32);
    for (int t = 0; t < batch.tgt_len[b]; ++t) {
      const float* row = decoder.step_logits({batch.tgt_in[static_cast<std::size_t>(b) * batch.T + t]});
      const float* expect = full.data() + (static_cast<std::size_t>(b) * batch.T + t) * V;
      EXPECT_LT(test::max_rel_error(row, expect, V), 1e-5) << family << " cached step " << t << " of sentence " << b;
    }
  }

  // Greedy and beam search over the incremental decoder (which adds the source's </s> itself).
  std::vector<std::vector<int>> sources;
  for (int b = 0; b < batch.B; ++b) {
    ASSERT_EQ(batch.src[static_cast<std::size_t>(b) * batch.S + batch.src_len[b] - 1], c.eos_id);
    sources.emplace_back(batch.src.begin() + static_cast<long>(b) * batch.S,
                         batch.src.begin() + static_cast<long>(b) * batch.S + batch.src_len[b] - 1);
  }
  auto inference = load_model(converted.path);
  IncrementalDecoder decoder(*inference);
  for (const auto& [name, beam] : {std::pair{"expect/greedy", 1}, {"expect/beam", 4}}) {
    SearchOptions o;
    o.beam = beam;
    o.max_extra_length = std::stoi(ref.metadata("max_extra_length"));
    const auto results = beam_search(decoder, sources, o);
    const auto want = test::length_rows(ref, name);
    for (int b = 0; b < batch.B; ++b) EXPECT_EQ(results[b][0].tokens, want[b]) << family << " " << name << " " << b;
  }

  // Training: the loss and every gradient, the relative bias tables' included.
  test::expect_reference_training_step(model, batch, ref, family, dir, arena,
                                       [](const std::string& grads) { return import_t5(grads); });
}

TEST(ImportT5, T5MatchesItsReference) { check_family("t5", true); }
TEST(ImportT5, T5v11MatchesItsReference) { check_family("t5_v1_1", false); }

// T5's buckets (32, max_distance 128) for distances -299 .. 299, bidirectional and causal, as torch computes
// them (the float32 logarithm decides the bucket boundaries at 16, 32 and 64).
TEST(ImportT5, RelativeBucketsAreHuggingFaces) {
  const SafetensorsFile ref = SafetensorsFile::read(test::fixture("t5") + "/reference.safetensors");
  const std::vector<int> want = ref.ints("expect/buckets");
  ASSERT_EQ(want.size(), 2u * 599);
  for (int side = 0; side < 2; ++side)
    for (int r = -299; r < 300; ++r)
      EXPECT_EQ(relative_bucket(r, side == 0, 32, 128), want[static_cast<std::size_t>(side) * 599 + r + 299])
          << (side == 0 ? "bidirectional" : "causal") << " distance " << r;
}

// The vocabulary of a converted fixture: spiece.model's ids, the sentinels after them counted down from the
// end, </s> after the source (the reference's ids of varied text); decoding the greedy outputs gives the
// reference's text.
void check_vocabulary(const Converted& converted) {
  const ModelConfig& c = converted.model->config();
  const SafetensorsFile file = SafetensorsFile::read(converted.path);
  const auto vocabs = read_vocabularies(file, c);
  ASSERT_TRUE(vocabs.has_value());
  const Vocabulary& v = vocabs->source;
  const int pieces = v.size();
  EXPECT_EQ(v.piece(0), "<pad>");
  EXPECT_EQ(v.piece(1), "</s>");
  EXPECT_EQ(v.piece(2), "<unk>");
  EXPECT_EQ(v.piece(pieces - 1), "<extra_id_0>");
  EXPECT_EQ(v.piece(pieces - 100), "<extra_id_99>");
  EXPECT_TRUE(v.is_special(pieces - 1));
  EXPECT_LT(pieces, c.src_vocab_size);  // rows no token has, as t5-small's
  const auto texts = nlohmann::json::parse(converted.reference.metadata("texts")).get<std::vector<std::string>>();
  const auto ids = nlohmann::json::parse(converted.reference.metadata("text_ids")).get<std::vector<std::vector<int>>>();
  for (std::size_t i = 0; i < texts.size(); ++i) {
    std::vector<int> got = v.encode(texts[i]);
    got.push_back(c.eos_id);  // source_eos
    EXPECT_EQ(got, ids[i]) << texts[i];
  }
  const auto greedy_text = nlohmann::json::parse(converted.reference.metadata("greedy_text"));
  const auto greedy = test::length_rows(converted.reference, "expect/greedy");
  for (std::size_t i = 0; i < greedy.size(); ++i)
    EXPECT_EQ(vocabs->target.decode(greedy[i]), greedy_text[i].get<std::string>()) << "sentence " << i;
}

// mT5 (model_type mt5): T5 v1.1's architecture with its own spiece.model.
TEST(ImportT5, Mt5MatchesItsReference) {
  check_family("mt5", false);
  TempDir dir;
  check_vocabulary(convert("mt5", dir));
}

// T5's vocabulary; translate, score, train and quantize take the model.
TEST(ImportT5, VocabularyAndCommandsWorkOnTheConvertedModel) {
  TempDir dir;
  std::string log;
  Converted converted = convert("t5", dir);
  check_vocabulary(converted);

  const std::string in = dir.write("in.txt", "translate English to Spanish: twenty thousand\nthree\n");
  const std::string ref_out = dir.write("ref.txt", "veinte mil\ntres\n");
  ASSERT_EQ(test::run_heptapod("translate -m " + test::quoted(converted.path) + " -i " + test::quoted(in) + " -o " +
                                   test::quoted(dir.file("out.txt")),
                               dir, log),
            0)
      << log;
  ASSERT_EQ(test::run_heptapod("score -m " + test::quoted(converted.path) + " --source " + test::quoted(in) + " --target " +
                                   test::quoted(ref_out) + " -o " + test::quoted(dir.file("scores.txt")),
                               dir, log),
            0)
      << log;
  const std::string scores = read_file(dir.file("scores.txt"));
  EXPECT_EQ(std::count(scores.begin(), scores.end(), '\n'), 2) << scores;
  // Fine-tuning keeps the config (the rows past the vocabulary included) and the vocabulary.
  const std::string data = std::string(HEPTAPOD_FIXTURES) + "/../data/";
  ASSERT_EQ(test::run_heptapod("train --source " + test::quoted(data + "numbers.dev.en") + " --target " +
                                   test::quoted(data + "numbers.dev.es") + " --init " + test::quoted(converted.path) +
                                   " -o " + test::quoted(dir.file("tuned")) +
                                   " --steps 4 --batch-tokens 512 --log-every 2 --valid-every 100",
                               dir, log),
            0)
      << log;
  const SafetensorsFile tuned = SafetensorsFile::read(dir.file("tuned/model.htp"));
  const ModelConfig& c = converted.model->config();
  EXPECT_EQ(to_json(read_model_config(tuned)), to_json(c));
  EXPECT_EQ(read_vocabularies(tuned, c)->source.serialized_ids(),
            read_vocabularies(SafetensorsFile::read(converted.path), c)->source.serialized_ids());
  for (const char* type : {"int8", "bfloat16"}) {
    const std::string quantized = dir.file(std::string("t5-") + type + ".htp");
    ASSERT_EQ(test::run_heptapod("quantize -m " + test::quoted(converted.path) + " --to " + type + " -o " + test::quoted(quantized),
                                 dir, log),
              0)
        << log;
    ASSERT_EQ(test::run_heptapod("translate -m " + test::quoted(quantized) + " -i " + test::quoted(in) + " -o " +
                                     test::quoted(dir.file("out.txt")),
                                 dir, log),
              0)
        << log;
  }
}

using test::config_edit;

// A copy of the t5 fixture changed by `change`, converted: the log of a refusal.
std::string refusal(const std::function<void(const std::string&)>& change) {
  return test::refused_conversion("t5", "t5", change);
}

TEST(ImportT5, RefusesWhatItCannotExpressByName) {
  EXPECT_HAS_SUBSTR(refusal(config_edit([](nlohmann::json& j) { j["feed_forward_proj"] = "gated-swish-glu"; })),
                    "\"feed_forward_proj\": \"gated-swish-glu\" is not supported");
  EXPECT_HAS_SUBSTR(refusal(config_edit([](nlohmann::json& j) { j["model_type"] = "bart"; })),
                    "model_type is \"bart\"");
  EXPECT_HAS_SUBSTR(refusal(config_edit([](nlohmann::json& j) { j["architectures"] = {"T5EncoderModel"}; })),
                    "T5EncoderModel");
  EXPECT_HAS_SUBSTR(refusal([](const std::string& dir) {
                      write_file_atomic(dir + "/tokenizer_config.json",
                                        [](std::ostream& out) { out << "{\"extra_ids\": 100, \"legacy\": false}"; });
                    }),
                    "\"legacy\": false is not supported");
  EXPECT_HAS_SUBSTR(refusal([](const std::string& dir) { std::filesystem::remove(dir + "/spiece.model"); }),
                    "no spiece.model");
  // A relative bias table in a later block, which T5 never has: a tensor the conversion would leave unused.
  EXPECT_HAS_SUBSTR(refusal([](const std::string& dir) {
                      const SafetensorsFile f = SafetensorsFile::read(dir + "/model.safetensors");
                      SafetensorsWriter w;
                      for (const TensorEntry& e : f.tensors())
                        w.add(e.name, DType::F32, e.shape, f.floats<float>(e.name).data());
                      const std::string table = "encoder.block.0.layer.0.SelfAttention.relative_attention_bias.weight";
                      w.add("encoder.block.1.layer.0.SelfAttention.relative_attention_bias.weight", DType::F32,
                            f.at(table).shape, f.floats<float>(table).data());
                      w.write(dir + "/model.safetensors");
                    }),
                    "encoder.block.1.layer.0.SelfAttention.relative_attention_bias.weight");
}

}  // namespace
}  // namespace heptapod
