// Training a decoder-only language model: the documents of a text file (lines or paragraphs), their token
// stream (bos, tokens, eos, end to end) and its context blocks, checked token by token against the
// vocabulary's own encoding; then `heptapod train --arch decoder-only` end to end: validation in bits per
// character, a resumed run equal to the uninterrupted one, a model file with one vocabulary, and clear
// errors for what does not fit a language model, and the time limit (--minutes).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>

#include "heptapod/data/document_corpus.h"
#include "heptapod/data/text_file.h"
#include "heptapod/io/model_file.h"
#include "heptapod/train/language_model_task.h"
#include "test_process.h"

namespace heptapod {
namespace {

using test::quoted;
using test::run_heptapod;
using test::TempDir;
namespace fs = std::filesystem;

TEST(LanguageModelData, DocumentsAreLinesOrParagraphs) {
  TempDir dir;
  std::ofstream(dir.file("t.txt")) << "\nIn the beginning\r\nwas the word.\n\n\n  \nAnd the word\nwas with God.\nAmen";
  std::vector<std::pair<std::string, long long>> lines, paragraphs;
  std::string text;
  long long line = 0;
  for (DocumentReader r(dir.file("t.txt"), DocumentSplit::Lines); r.next(text, line);) lines.emplace_back(text, line);
  for (DocumentReader r(dir.file("t.txt"), DocumentSplit::Paragraphs); r.next(text, line);) paragraphs.emplace_back(text, line);
  const std::vector<std::pair<std::string, long long>> want_lines = {
      {"In the beginning", 2}, {"was the word.", 3}, {"And the word", 7}, {"was with God.", 8}, {"Amen", 9}};
  const std::vector<std::pair<std::string, long long>> want_paragraphs = {
      {"In the beginning was the word.", 2}, {"And the word was with God. Amen", 7}};
  EXPECT_EQ(lines, want_lines);
  EXPECT_EQ(paragraphs, want_paragraphs);
  EXPECT_THROW(document_split_from_name("sentences", "--documents"), Error);
}

TEST(LanguageModelData, TheStreamAndItsBlocksHoldEveryDocumentInOrder) {
  TempDir dir;
  const std::vector<std::string> documents = {"one two three", "four", "five six seven eight nine ten", "eleven"};
  {
    std::ofstream out(dir.file("t.txt"));
    for (const std::string& d : documents) out << d << "\n\n";
  }
  VocabConfig vc;
  vc.size = 40;
  vc.model = VocabConfig::Model::Char;
  const Vocabulary vocab = Vocabulary::train(documents, vc);
  const DocumentCorpus corpus = DocumentCorpus::build(dir.file("t.txt"), DocumentSplit::Paragraphs, vocab);
  ASSERT_EQ(corpus.size(), documents.size());
  ModelConfig model;
  model.pad_id = kPadId;
  model.bos_id = kBosId;
  model.eos_id = kEosId;
  std::vector<int> want;  // bos, tokens, eos per document
  for (const std::string& d : documents) {
    want.push_back(kBosId);
    for (const int t : vocab.encode(d)) want.push_back(t);
    want.push_back(kEosId);
  }
  const DocumentStream stream(corpus, model);
  ASSERT_EQ(stream.size(), static_cast<std::int64_t>(want.size()));
  std::vector<int> got(want.size());
  stream.read(0, static_cast<int>(got.size()), got.data());
  EXPECT_EQ(got, want);
  stream.read(7, 5, got.data());  // from the middle of a document
  EXPECT_TRUE(std::equal(got.begin(), got.begin() + 5, want.begin() + 7));
  for (const int context : {1, 5, 16, 1000}) {
    const std::int64_t blocks = stream.blocks(context);
    std::vector<std::int64_t> all(static_cast<std::size_t>(blocks));
    for (std::int64_t b = 0; b < blocks; ++b) all[static_cast<std::size_t>(b)] = b;
    const Batch batch = stream.batch(all, context);
    // Every stream position but the last is an input exactly once, with the next token as its target.
    std::int64_t inputs = 0;
    for (int i = 0; i < batch.B; ++i) {
      for (int t = 0; t < batch.tgt_len[i]; ++t) {
        const std::size_t at = static_cast<std::size_t>(i) * context + t;
        ASSERT_EQ(batch.tgt_in[static_cast<std::size_t>(i) * batch.T + t], want[at]) << context;
        ASSERT_EQ(batch.tgt_out[static_cast<std::size_t>(i) * batch.T + t], want[at + 1]) << context;
      }
      inputs += batch.tgt_len[i];
    }
    EXPECT_EQ(inputs, stream.size() - 1) << context;
    EXPECT_EQ(batch.S, 0);
  }
}

// A small, fast, deterministic language-model command on the committed English numbers text.
std::string lm_args(const std::string& out, int steps, const std::string& extra = "") {
  return "train --arch decoder-only --text " + quoted(test::data_file("numbers.train.en")) + " --valid-text " +
         quoted(test::data_file("numbers.dev.en")) + " -o " + quoted(out) +
         " --preset tiny --layers 2 --vocab-size 120 --context 32 --batch-tokens 512 --warmup 30 --threads 2"
         " --log-every 5 --valid-every 10 --steps " + std::to_string(steps) + " " + extra;
}

TEST(LanguageModelTrain, TrainsValidatesInBitsPerCharacterAndResumesExactly) {
  TempDir dir;
  std::string log;
  const std::string a = dir.file("a"), b = dir.file("b");
  ASSERT_EQ(run_heptapod(lm_args(a, 40), dir, log), 0) << log;
  EXPECT_HAS_SUBSTR(log, "documents");
  EXPECT_HAS_SUBSTR(log, "bpc");
  // Validation records: cross-entropy falls, bits per character are ce / ln 2 * tokens / characters.
  const std::vector<nlohmann::json> valid = test::metrics_records(a, "valid");
  ASSERT_EQ(valid.size(), 4u);
  EXPECT_LT(valid.back()["ce"].get<double>(), valid.front()["ce"].get<double>());
  for (const auto& v : valid) {
    EXPECT_GT(v["bpc"].get<double>(), 0);
    EXPECT_GT(v["bpb"].get<double>(), 0);
    EXPECT_LE(v["bpb"].get<double>(), v["bpc"].get<double>());
  }
  // The model file: decoder-only, its one vocabulary.
  const SafetensorsFile file = SafetensorsFile::read(a + "/model.htp");
  const ModelConfig config = read_model_config(file);
  EXPECT_EQ(config.architecture, Architecture::DecoderOnly);
  EXPECT_NE(file.find("extra/vocab/target"), nullptr);
  EXPECT_EQ(file.find("extra/vocab/source"), nullptr);
  const auto vocabs = read_vocabularies(file, config);
  ASSERT_TRUE(vocabs.has_value());
  EXPECT_EQ(vocabs->target.size(), config.tgt_vocab_size);
  // A run stopped at step 20 and resumed to 40 is the uninterrupted run, bit for bit.
  ASSERT_EQ(run_heptapod(lm_args(b, 20), dir, log), 0) << log;
  ASSERT_EQ(run_heptapod(lm_args(b, 40), dir, log), 0) << log;
  EXPECT_HAS_SUBSTR(log, "resuming from");
  EXPECT_EQ(test::slurp(a + "/model.htp"), test::slurp(b + "/model.htp"));
}

// --minutes ends a run at the first update past the limit, validated, checkpointed and logged there; a
// rerun of a run that used its time does no update.
TEST(LanguageModelTrain, TheTimeLimitStopsAtAValidatedCheckpoint) {
  TempDir dir;
  std::string log;
  const std::string a = dir.file("a");
  ASSERT_EQ(run_heptapod(lm_args(a, 40, "--minutes 0.000001"), dir, log), 0) << log;
  EXPECT_HAS_SUBSTR(log, "time limit");
  const std::vector<nlohmann::json> records = test::metrics_records(a);
  ASSERT_EQ(records.size(), 2u) << test::slurp(a + "/metrics.jsonl");  // one update: its train and valid lines
  EXPECT_EQ(records[0]["type"], "train");
  EXPECT_EQ(records[1]["type"], "valid");
  EXPECT_EQ(records[1]["step"], 1);
  EXPECT_TRUE(fs::exists(a + "/checkpoints/step-00000001.htp")) << log;
  EXPECT_TRUE(fs::exists(a + "/best.htp"));
  ASSERT_EQ(run_heptapod(lm_args(a, 40, "--minutes 0.000001"), dir, log), 0) << log;
  EXPECT_HAS_SUBSTR(log, "time limit");
  EXPECT_FALSE(fs::exists(a + "/checkpoints/step-00000002.htp"));
  // A limit the run does not reach changes nothing: the same model as without one.
  ASSERT_EQ(run_heptapod(lm_args(dir.file("b"), 10), dir, log), 0) << log;
  ASSERT_EQ(run_heptapod(lm_args(dir.file("c"), 10, "--minutes 60"), dir, log), 0) << log;
  EXPECT_EQ(test::slurp(dir.file("b") + "/model.htp"), test::slurp(dir.file("c") + "/model.htp"));
}

TEST(LanguageModelTrain, LearnedPositionsCoverTheContextAndTrain) {
  TempDir dir;
  std::string log;
  ASSERT_EQ(run_heptapod(lm_args(dir.file("a"), 10, "--positions learned --norm pre"), dir, log), 0) << log;
  const SafetensorsFile file = SafetensorsFile::read(dir.file("a") + "/model.htp");
  const ModelConfig config = read_model_config(file);
  EXPECT_EQ(config.learned_positions, 32);  // --context 32
  ASSERT_NE(file.find("decoder/positions/weight"), nullptr);
  EXPECT_EQ(file.find("decoder/positions/weight")->shape, (std::vector<std::int64_t>{32, config.d_model}));
  std::string out;
  ASSERT_EQ(run_heptapod("generate -m " + quoted(dir.file("a") + "/model.htp") + " --prompt one --max-tokens 40", dir,
                         out),
            0)
      << out;
  // Fine-tuning it takes its kind, depth and positions from the file: --layers and --positions learned
  // restate them without --arch.
  ASSERT_EQ(run_heptapod("train --init " + quoted(dir.file("a") + "/model.htp") + " --text " +
                             quoted(test::data_file("numbers.dev.en")) + " -o " + quoted(dir.file("ft")) +
                             " --layers 2 --positions learned --context 32 --batch-tokens 512 --steps 2 --threads 2",
                         dir, out),
            0)
      << out;
}

// Weights trained elsewhere under Heptapod's names (here: the model file's own) become a language model with
// `convert --from heptapod` and its one vocabulary (--target-spm): the same scores as the original; a source
// vocabulary, which a decoder-only model has no side for, is refused by name.
TEST(LanguageModelTrain, ConvertMakesALanguageModelFromAStateDictAndItsOneVocabulary) {
  TempDir dir;
  std::string log;
  const std::string a = dir.file("a");
  ASSERT_EQ(run_heptapod(lm_args(a, 10), dir, log), 0) << log;
  std::string info;
  ASSERT_EQ(run_heptapod("info -m " + quoted(a + "/model.htp"), dir, info), 0) << info;
  const auto at = info.find("config:");
  ASSERT_NE(at, std::string::npos) << info;
  const std::string config = info.substr(at + 7, info.find('\n', at) - at - 7);
  std::ofstream(dir.file("config.json")) << config;
  const std::string convert = "convert " + quoted(a + "/model.htp") + " --from heptapod --config " +
                              quoted(dir.file("config.json")) + " -o " + quoted(dir.file("converted.htp"));
  ASSERT_EQ(run_heptapod(convert + " --target-spm " + quoted(a + "/vocab.spm"), dir, log), 0) << log;
  const std::string text = quoted(test::data_file("numbers.dev.en"));
  std::string original, converted;
  ASSERT_EQ(run_heptapod("score -m " + quoted(a + "/model.htp") + " -i " + text, dir, original), 0) << original;
  ASSERT_EQ(run_heptapod("score -m " + quoted(dir.file("converted.htp")) + " -i " + text, dir, converted), 0);
  EXPECT_EQ(converted, original);
  EXPECT_EQ(run_heptapod(convert + " --source-spm " + quoted(a + "/vocab.spm") + " --target-spm " +
                             quoted(a + "/vocab.spm"), dir, log), 1);
  EXPECT_HAS_SUBSTR(log, "--source-spm: a decoder-only model has no such side");
}

TEST(LanguageModelTrain, WhatDoesNotFitALanguageModelIsRefusedByName) {
  TempDir dir;
  std::string log;
  const std::string text = quoted(test::data_file("numbers.train.en"));
  EXPECT_EQ(run_heptapod("train --arch decoder-only -o " + quoted(dir.file("x")), dir, log), 1);
  EXPECT_HAS_SUBSTR(log, "trains on --text");
  EXPECT_EQ(run_heptapod("train --arch decoder-only --text " + text + " --source " + text + " -o " + quoted(dir.file("x")), dir, log), 1);
  EXPECT_HAS_SUBSTR(log, "--source, --target, --valid-source and --valid-target train a translation model");
  EXPECT_EQ(run_heptapod("train --text " + text + " --source " + text + " --target " + text + " -o " + quoted(dir.file("x")), dir, log), 1);
  EXPECT_HAS_SUBSTR(log, "--text and --valid-text train a language model");
  EXPECT_NE(run_heptapod("train --arch decoder-only --text " + text + " --context 0 -o " + quoted(dir.file("x")), dir, log), 0);
  EXPECT_HAS_SUBSTR(log, "--context");
  EXPECT_EQ(run_heptapod("train --arch decoder-only --text " + text + " --encoder-layers 2 -o " + quoted(dir.file("x")), dir, log), 1);
  EXPECT_HAS_SUBSTR(log, "has no encoder");
  EXPECT_NE(run_heptapod("train --arch decoder-only --text " + text + " --documents sentences -o " + quoted(dir.file("x")), dir, log), 0);
  EXPECT_HAS_SUBSTR(log, "--documents");
  std::ofstream(dir.file("blank.txt")) << "\n  \n\n";
  EXPECT_EQ(run_heptapod("train --arch decoder-only --text " + quoted(dir.file("blank.txt")) + " --vocab-size 50 -o " + quoted(dir.file("x")), dir, log), 1);
  EXPECT_HAS_SUBSTR(log, "holds no text to train on");
  EXPECT_FALSE(test::fs::exists(dir.file("x")));  // a first run that fails leaves no directory
}

}  // namespace
}  // namespace heptapod
