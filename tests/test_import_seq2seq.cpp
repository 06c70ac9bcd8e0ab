// Converted NLLB-200, M2M100 and mBART-50 checkpoints against the independent float64 references of
// tools/seq2seq_reference.py (tiny random checkpoints under Hugging Face's names, with each family's
// tokenizer files: tools/make_seq2seq_fixtures.py): `heptapod convert --from m2m100 | mbart` writes a model
// file whose encoder states and logits match to 1e-5, whose greedy and beam translations with the forced
// target language code are the reference's token for token (and text for text), whose tokenizer gives the
// reference layout's ids on varied text, whose language codes are the tokenizer's, and whose training
// gradients match to 1e-4 on the pairs tagged as `train --source-lang/--target-lang` tags them, as `score`
// scores them. And the bad inputs: an unknown language code (the model's listed), a model type
// the converter does not take, a missing tokenizer file.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <limits>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "heptapod/data/batcher.h"
#include "heptapod/data/language_codes.h"
#include "heptapod/data/model_vocab.h"
#include "heptapod/decode/translator.h"
#include "heptapod/io/atomic_file.h"
#include "heptapod/io/model_file.h"
#include "heptapod/io/safetensors.h"
#include "heptapod/io/seq2seq_import.h"
#include "conversion_checks.h"
#include "test_process.h"
#include "test_util.h"

namespace heptapod {
namespace {

using test::quoted;
using test::TempDir;

std::string convert(const std::string& family, const std::string& from, TempDir& dir) {
  const std::string output = dir.file(family + ".htp");
  std::string log;
  EXPECT_EQ(test::run_heptapod("convert " + quoted(test::fixture(family)) + " --from " + from + " -o " + quoted(output),
                               dir, log),
            0)
      << log;
  EXPECT_HAS_SUBSTR(log, "with vocabularies");
  EXPECT_HAS_SUBSTR(log, "4 language codes");
  return output;
}

template <typename T>
T metadata_json(const SafetensorsFile& ref, const std::string& key) {
  return nlohmann::json::parse(ref.metadata(key)).get<T>();
}

std::unique_ptr<Transformer<float>> import_family(const std::string& from, const std::string& checkpoint) {
  return import_seq2seq(checkpoint, from == "mbart" ? Seq2SeqFamily::Mbart : Seq2SeqFamily::M2m100);
}

// Fine-tuning and scoring with the codes: the reference's pairs tagged as `train --source-lang/--target-lang`
// tags them (make_corpus_batch over the parallel corpus) are the reference's batch, and a training step on them
// gives its loss and gradients; `score` (the Translator's and the command's) gives each pair the reference's
// log-probability of the tagged target ([code] Y </s> after the decoder's start token); train and score name
// the model's codes when given an unknown one.
void check_tagged_pairs(const std::string& family, const std::string& from, const std::string& path,
                        const SafetensorsFile& ref, Transformer<float>& model, TempDir& dir, Arena& arena) {
  const auto sources = metadata_json<std::vector<std::string>>(ref, "texts");
  const auto targets = metadata_json<std::vector<std::string>>(ref, "targets");
  const std::string source_lang = ref.metadata("source_lang"), target_lang = ref.metadata("target_lang");
  std::string source_lines, target_lines;
  for (std::size_t i = 0; i < sources.size(); ++i) {
    source_lines += sources[i] + "\n";
    target_lines += targets[i] + "\n";
  }
  const std::string src_file = dir.write("pairs.src", source_lines), tgt_file = dir.write("pairs.tgt", target_lines);
  const SafetensorsFile file = SafetensorsFile::read(path);
  const LanguageCodes codes = read_language_codes(file);
  const auto vocabs = read_vocabularies(file, model.config());
  ASSERT_TRUE(vocabs.has_value());
  const ParallelCorpus corpus = ParallelCorpus::build(src_file, tgt_file, vocabs->source, vocabs->target, LengthFilter{250, 0.0});
  ASSERT_EQ(corpus.size(), sources.size()) << family;
  const LanguageTags tags = codes.tags(source_lang, target_lang, "--source-lang", "--target-lang");
  const Batch batch = make_corpus_batch(corpus, {0, 1, 2}, model.config(), tags);
  const Batch want = test::fixture_batch(ref);
  EXPECT_EQ(batch.src, want.src) << family;
  EXPECT_EQ(batch.src_len, want.src_len) << family;
  EXPECT_EQ(batch.tgt_in, want.tgt_in) << family;
  EXPECT_EQ(batch.tgt_out, want.tgt_out) << family;
  EXPECT_EQ(batch.tgt_len, want.tgt_len) << family;
  test::expect_reference_training_step(model, batch, ref, family, dir, arena,
                                       [&](const std::string& checkpoint) { return import_family(from, checkpoint); });

  // The reference's log-probability of each tagged target, from its float64 logits (stored as float32).
  const std::vector<float> logits = ref.floats<float>("expect/logits");  // (B, T, V)
  const std::size_t V = logits.size() / (static_cast<std::size_t>(want.B) * want.T);
  std::vector<double> expect(sources.size(), 0.0);
  for (int i = 0; i < want.B; ++i)
    for (int t = 0; t < want.tgt_len[i]; ++t) {
      const float* row = logits.data() + (static_cast<std::size_t>(i) * want.T + t) * V;  // (V)
      const double top = *std::max_element(row, row + V);
      double sum = 0;
      for (std::size_t v = 0; v < V; ++v) sum += std::exp(row[v] - top);
      expect[i] += row[want.tgt_out[static_cast<std::size_t>(i) * want.T + t]] - top - std::log(sum);
    }
  Translator translator(path);
  const std::vector<SentenceScore> scores = translator.score(sources, targets, 4096, source_lang, target_lang);
  std::string score_lines;
  for (std::size_t i = 0; i < sources.size(); ++i) {
    EXPECT_EQ(scores[i].tokens, want.tgt_len[i]) << family << " pair " << i;
    EXPECT_NEAR(scores[i].log_prob, expect[i], 1e-5 * std::abs(expect[i]) + 1e-5) << family << " pair " << i;
  }
  std::string log;
  const std::string out = dir.file("scores.txt");
  ASSERT_EQ(test::run_heptapod("score -m " + quoted(path) + " --source " + quoted(src_file) + " --target " +
                                   quoted(tgt_file) + " --source-lang " + source_lang + " --target-lang " + target_lang +
                                   " -o " + quoted(out),
                               dir, log),
            0)
      << log;
  std::istringstream printed(read_file(out));
  for (std::size_t i = 0; i < sources.size(); ++i) {
    double value = 0;
    ASSERT_TRUE(printed >> value) << family;
    EXPECT_NEAR(value, expect[i], 1e-5 * std::abs(expect[i]) + 1e-5) << family << " score line " << i + 1;
  }

  // The command line's fine-tuning takes the codes; an unknown one is refused with the model's listed.
  const std::string train = "train --init " + quoted(path) + " --source " + quoted(src_file) + " --target " +
                            quoted(tgt_file) + " --steps 1 --batch-tokens 512 --max-length 40 --max-ratio 0 "
                            "--valid-every 100 --seed 3 --source-lang " + source_lang + " --target-lang ";
  EXPECT_EQ(test::run_heptapod(train + target_lang + " -o " + quoted(dir.file("tuned")), dir, log), 0) << log;
  EXPECT_NE(test::run_heptapod(train + "klingon -o " + quoted(dir.file("refused")), dir, log), 0);
  EXPECT_HAS_SUBSTR(log, "--target-lang: unknown language code \"klingon\"; the model's codes are " + codes.listing());
  EXPECT_NE(test::run_heptapod("score -m " + quoted(path) + " --source " + quoted(src_file) + " --target " +
                                   quoted(tgt_file) + " --source-lang klingon",
                               dir, log),
            0);
  EXPECT_HAS_SUBSTR(log, "--source-lang: unknown language code \"klingon\"; the model's codes are " + codes.listing());
}

void check_family(const std::string& family, const std::string& from, const std::string& source_iso,
                  const std::string& target_iso) {
  TempDir dir;
  const std::string path = convert(family, from, dir);
  const SafetensorsFile ref = SafetensorsFile::read(test::fixture(family) + "/reference.safetensors");
  auto model = load_model(path);
  const ModelConfig& c = model->config();
  EXPECT_EQ(c.norm, NormPosition::Pre);
  EXPECT_EQ(c.bos_id, 2);

  // The encoder's states and the teacher-forced logits.
  const Batch batch = test::fixture_batch(ref);
  Arena arena;
  const float* states = model->encode(batch.src.data(), batch.B, batch.S, batch.src_len.data(), arena);
  const std::size_t n_states = static_cast<std::size_t>(batch.B) * batch.S * c.d_model;
  EXPECT_LT(test::padded_error({states, states + n_states}, ref.floats<float>("expect/encoder"), batch.src_len, batch.S),
            1e-5)
      << family << " encoder states";
  arena.reset();
  const float* logits = model->logits(batch, arena);
  const std::vector<float> want = test::expected_logits(ref, batch);
  EXPECT_LT(test::max_rel_error(logits, want.data(), want.size()), 1e-5) << family << " logits";

  // The language codes, as the tokenizer numbers them.
  const SafetensorsFile file = SafetensorsFile::read(path);
  const LanguageCodes codes = read_language_codes(file);
  const auto want_codes = metadata_json<std::map<std::string, int>>(ref, "codes");
  ASSERT_EQ(codes.codes().size(), want_codes.size()) << family;
  for (const auto& [code, id] : codes.codes()) EXPECT_EQ(want_codes.at(code), id) << family << " " << code;

  // The tokenizer on varied text: the reference layout's ids.
  const auto vocabs = read_vocabularies(file, c);
  ASSERT_TRUE(vocabs.has_value());
  const auto texts = metadata_json<std::vector<std::string>>(ref, "tokenizer_texts");
  const auto ids = metadata_json<std::vector<std::vector<int>>>(ref, "tokenizer_ids");
  for (std::size_t i = 0; i < texts.size(); ++i)
    EXPECT_EQ(vocabs->source.encode(texts[i]), ids[i]) << family << " text \"" << texts[i] << "\"";

  // Translation with the codes (or their ISO 639-1 names): the source tagged, the target code forced; greedy
  // and beam token for token, and the greedy text.
  const auto sources = metadata_json<std::vector<std::string>>(ref, "texts");
  const auto greedy_text = metadata_json<std::vector<std::string>>(ref, "greedy_text");
  Translator translator(path);
  for (const auto& [name, beam] : {std::pair{"expect/greedy", 1}, {"expect/beam", 4}}) {
    const auto expect = test::length_rows(ref, name);
    for (const bool iso : {false, true}) {
      TranslateOptions o;
      o.search.beam = beam;
      o.search.cache = CachePrecision::Float32;
      o.source_language = iso ? source_iso : ref.metadata("source_lang");
      o.target_language = iso ? target_iso : ref.metadata("target_lang");
      const std::vector<Translation> out = translator.translate(sources, o);
      for (std::size_t i = 0; i < sources.size(); ++i) {
        ASSERT_FALSE(out[i].hypotheses.empty());
        EXPECT_EQ(out[i].hypotheses[0].tokens, expect[i]) << family << " " << name << " sentence " << i;
        if (beam == 1) {
          EXPECT_EQ(out[i].hypotheses[0].text, greedy_text[i]) << family << " sentence " << i;
        }
      }
    }
  }

  // Training and scoring on the pairs tagged with the codes: the loss, every gradient, the log-probabilities.
  check_tagged_pairs(family, from, path, ref, *model, dir, arena);

  // The command line: info lists the codes; translate takes them.
  std::string log;
  ASSERT_EQ(test::run_heptapod("info -m " + quoted(path), dir, log), 0) << log;
  EXPECT_HAS_SUBSTR(log, "languages: 4");
  EXPECT_HAS_SUBSTR(log, ref.metadata("target_lang") + "=" + std::to_string(want_codes.at(ref.metadata("target_lang"))));
  std::string lines;
  for (const std::string& s : sources) lines += s + "\n";
  const std::string in = dir.write("in.txt", lines), out = dir.file("out.txt");
  ASSERT_EQ(test::run_heptapod("translate -m " + quoted(path) + " -i " + quoted(in) + " -o " + quoted(out) +
                                   " --beam 1 --source-lang " + ref.metadata("source_lang") + " --target-lang " +
                                   target_iso,
                               dir, log),
            0)
      << log;
  std::string expect_lines;
  for (const std::string& t : greedy_text) expect_lines += t + "\n";
  EXPECT_EQ(read_file(out), expect_lines) << family;
}

// NLLB-200: fairseq's ids over sentencepiece.bpe.model, codes such as spa_Latn; only model.shared.weight stored.
TEST(ImportSeq2Seq, NllbMatchesItsReference) { check_family("nllb", "m2m100", "en", "es"); }
// M2M100: vocab.json's ids, codes such as __fr__ (from special_tokens_map.json), made-up words past them.
TEST(ImportSeq2Seq, M2m100MatchesItsReference) { check_family("m2m100", "m2m100", "en", "fr"); }
// mBART-50: learned positions from row 2, the embedding layer norm, GELU, final_logits_bias; codes such as de_DE.
TEST(ImportSeq2Seq, MbartMatchesItsReference) { check_family("mbart", "mbart", "en", "de"); }

// An unknown code is refused with the model's codes listed; a model without codes refuses any.
TEST(ImportSeq2Seq, UnknownLanguageCodesAreRefused) {
  TempDir dir;
  const std::string path = convert("nllb", "m2m100", dir);
  const std::string in = dir.write("in.txt", "three\n");
  std::string log;
  EXPECT_NE(test::run_heptapod("translate -m " + quoted(path) + " -i " + quoted(in) +
                                   " --source-lang eng_Latn --target-lang klingon",
                               dir, log),
            0);
  EXPECT_HAS_SUBSTR(log, "unknown language code \"klingon\"");
  EXPECT_HAS_SUBSTR(log, "eng_Latn, fra_Latn, spa_Latn, deu_Latn");
  Translator translator(path);
  TranslateOptions o;
  o.source_language = "xx";
  EXPECT_THROW(translator.translate({"three"}, o), Error);

  const std::string marian = dir.file("marian.htp");
  ASSERT_EQ(test::run_heptapod("convert " + quoted(test::fixture("marian")) + " --from marian -o " + quoted(marian), dir,
                               log),
            0)
      << log;
  EXPECT_NE(test::run_heptapod("translate -m " + quoted(marian) + " -i " + quoted(in) + " --target-lang fr", dir, log), 0);
  EXPECT_HAS_SUBSTR(log, "the model has no language codes");
}

// A converted model fine-tunes like any other, and the result keeps its language codes.
TEST(ImportSeq2Seq, ConvertedModelsFineTuneKeepingTheirCodes) {
  TempDir dir;
  std::string log;
  const std::string path = convert("m2m100", "m2m100", dir);
  const std::string tuned = dir.file("tuned");
  ASSERT_EQ(test::run_heptapod("train --init " + quoted(path) + " --source " +
                                   quoted(test::fixture("../data/numbers.dev.en")) + " --target " +
                                   quoted(test::fixture("../data/numbers.dev.es")) + " -o " + quoted(tuned) +
                                   " --steps 2 --batch-tokens 512 --max-length 60 --log-every 1 --valid-every 100 --seed 3",
                               dir, log),
            0)
      << log;
  EXPECT_EQ(read_language_codes(SafetensorsFile::read(tuned + "/model.htp")).to_json(),
            read_language_codes(SafetensorsFile::read(path)).to_json());
  const std::string in = dir.write("in.txt", "three\n");
  ASSERT_EQ(test::run_heptapod("translate -m " + quoted(tuned + "/model.htp") + " -i " + quoted(in) +
                                   " --source-lang en --target-lang de",
                               dir, log),
            0)
      << log;
}

// A copy of fixture `family` in `dir` with each JSON file of `edits` changed by its edit.
std::string edited_fixture(const std::string& family, const std::string& name, TempDir& dir,
                           const std::map<std::string, std::function<void(nlohmann::json&)>>& edits) {
  const std::string copy = dir.file(name);
  std::filesystem::copy(test::fixture(family), copy);
  for (const auto& [file, edit] : edits) {
    nlohmann::json j = nlohmann::json::parse(read_file(copy + "/" + file));
    edit(j);
    write_file_atomic(copy + "/" + file, [&](std::ostream& out) { out << j.dump(); });
  }
  return copy;
}

bool python_with_torch() { return std::system("/usr/bin/python3 -c 'import torch' >/dev/null 2>&1") == 0; }

// NLLB's legacy layout (tokenizer_config.json's legacy_behaviour true): the model file records it (and a
// fine-tuned one keeps it), and translate, score and train read each source as X </s> [code]; the greedy
// outputs and the tagged targets' log-probabilities are those of the float64 reference
// (tools/seq2seq_reference.py), which lays the checkpoint's tokens out from its own files.
TEST(ImportSeq2Seq, NllbLegacyLayoutMatchesItsReference) {
  if (!python_with_torch()) GTEST_SKIP() << "needs /usr/bin/python3 with torch";
  TempDir dir;
  const std::string checkpoint = edited_fixture("nllb", "nllb-legacy", dir, {{"tokenizer_config.json", [](nlohmann::json& j) {
                                                  j["legacy_behaviour"] = true;
                                                }}});
  const std::string path = dir.file("legacy.htp");
  std::string log;
  ASSERT_EQ(test::run_heptapod("convert " + quoted(checkpoint) + " --from m2m100 -o " + quoted(path), dir, log), 0) << log;
  EXPECT_EQ(SafetensorsFile::read(path).metadata(kSourceCodeAfterMetadata), "2");
  EXPECT_EQ(SafetensorsFile::read(convert("nllb", "m2m100", dir)).metadata().count(kSourceCodeAfterMetadata), 0u)
      << "the default layout writes no key";

  const SafetensorsFile ref = SafetensorsFile::read(test::fixture("nllb") + "/reference.safetensors");
  const auto texts = metadata_json<std::vector<std::string>>(ref, "texts");
  const auto targets = metadata_json<std::vector<std::string>>(ref, "targets");
  const std::string source_lang = ref.metadata("source_lang"), target_lang = ref.metadata("target_lang");
  Translator translator(path);
  EXPECT_FALSE(translator.config().source_eos) << "the tags add the end token before the code";
  nlohmann::json request = {{"family", "m2m100"}, {"source_lang", source_lang}, {"target_lang", target_lang}};
  for (std::size_t i = 0; i < texts.size(); ++i) {
    request["sources"].push_back(translator.vocabularies().source.encode(texts[i]));
    request["targets"].push_back(translator.vocabularies().target.encode(targets[i]));
  }
  const std::string request_file = dir.write("request.json", request.dump()), answer = dir.file("answer.json");
  const std::string command = "/usr/bin/python3 " + quoted(std::string(HEPTAPOD_FIXTURES) + "/../../tools/seq2seq_reference.py") +
                              " " + quoted(checkpoint) + " " + quoted(request_file) + " > " + quoted(answer);
  ASSERT_EQ(std::system(command.c_str()), 0) << command;
  const nlohmann::json expect = nlohmann::json::parse(read_file(answer));

  // The tags, the greedy translations and the scores.
  const LanguageTags tags = translator.languages().tags(source_lang, target_lang, "--source-lang", "--target-lang");
  TranslateOptions o;
  o.search.beam = 1;
  o.search.cache = CachePrecision::Float32;
  o.source_language = source_lang;
  o.target_language = target_lang;
  const std::vector<Translation> out = translator.translate(texts, o);
  const std::vector<SentenceScore> scores = translator.score(texts, targets, 4096, source_lang, target_lang);
  for (std::size_t i = 0; i < texts.size(); ++i) {
    EXPECT_EQ(tags.tag_source(request["sources"][i].get<std::vector<int>>()), expect["sources"][i].get<std::vector<int>>())
        << "sentence " << i;
    ASSERT_FALSE(out[i].hypotheses.empty());
    EXPECT_GT(expect["margins"][i].get<double>(), 0.05) << "the reference's decisions are clear";
    EXPECT_EQ(out[i].hypotheses[0].tokens, expect["greedy"][i].get<std::vector<int>>()) << "sentence " << i;
    const double want = expect["log_probs"][i].get<double>();
    EXPECT_NEAR(scores[i].log_prob, want, 1e-5 * std::abs(want) + 1e-5) << "sentence " << i;
  }

  // Training reads the pairs the same way, and the fine-tuned model keeps the layout.
  std::string source_lines, target_lines;
  for (std::size_t i = 0; i < texts.size(); ++i) {
    source_lines += texts[i] + "\n";
    target_lines += targets[i] + "\n";
  }
  const std::string src_file = dir.write("pairs.src", source_lines), tgt_file = dir.write("pairs.tgt", target_lines);
  const ParallelCorpus corpus = ParallelCorpus::build(src_file, tgt_file, translator.vocabularies().source,
                                                      translator.vocabularies().target, LengthFilter{250, 0.0});
  const Batch batch = make_corpus_batch(corpus, {0, 1, 2}, translator.config(), tags);
  for (int i = 0; i < batch.B; ++i) {
    const std::vector<int> row(batch.src.begin() + static_cast<long>(i) * batch.S,
                               batch.src.begin() + static_cast<long>(i) * batch.S + batch.src_len[i]);
    EXPECT_EQ(row, expect["sources"][i].get<std::vector<int>>()) << "training pair " << i;
  }
  const std::string tuned = dir.file("tuned");
  ASSERT_EQ(test::run_heptapod("train --init " + quoted(path) + " --source " + quoted(src_file) + " --target " +
                                   quoted(tgt_file) + " --steps 1 --batch-tokens 512 --max-length 40 --max-ratio 0 "
                                   "--valid-every 100 --seed 3 --source-lang " + source_lang + " --target-lang " +
                                   target_lang + " -o " + quoted(tuned),
                               dir, log),
            0)
      << log;
  EXPECT_EQ(SafetensorsFile::read(tuned + "/model.htp").metadata(kSourceCodeAfterMetadata), "2");
}

// Older snapshots whose tokenizer files list no codes: NLLB's 202 and mBART-50's 52 built-in codes after the
// pieces, M2M100's set named by "language_codes" (m2m100's 100, or wmt21's 8) after vocab.json's ids; the
// embedding must hold them (a checkpoint whose rows do not fit is refused).
TEST(ImportSeq2Seq, TokenizersWithoutCodeListsUseTheBuiltInLists) {
  TempDir dir;
  std::string log;
  const auto drop_codes = [](nlohmann::json& j) { j.erase("additional_special_tokens"); };
  // NLLB and mBART-50: the fixture's first code follows the pieces; with its embedding grown to the built-in
  // codes, they take the ids after the pieces in the built-in order and the pieces keep theirs.
  struct BuiltIn {
    std::string family, first, probe, last;
    int count, probe_at;
  };
  for (const BuiltIn& t : {BuiltIn{"nllb", "ace_Arab", "spa_Latn", "zul_Latn", 202, 160},
                           BuiltIn{"mbart", "ar_AR", "fr_XX", "sl_SI", 52, 7}}) {
    SCOPED_TRACE(t.family);
    const SafetensorsFile ref = SafetensorsFile::read(test::fixture(t.family) + "/reference.safetensors");
    int first = std::numeric_limits<int>::max();
    for (const auto& [code, id] : metadata_json<std::map<std::string, int>>(ref, "codes")) first = std::min(first, id);
    const int rows = first + t.count + 1;  // the pieces, the codes, <mask>
    const std::string unfit = edited_fixture(t.family, t.family + "-unfit", dir,
                                             {{"tokenizer_config.json", drop_codes}, {"special_tokens_map.json", drop_codes}});
    const std::string from = t.family == "mbart" ? "mbart" : "m2m100";
    EXPECT_NE(test::run_heptapod("convert " + quoted(unfit) + " --from " + from + " -o " + quoted(dir.file("a.htp")), dir, log),
              0);
    EXPECT_HAS_SUBSTR(log, "ids with its language codes, but the model's embedding has");
    const std::string grown = edited_fixture(t.family, t.family + "-builtin", dir,
                                             {{"tokenizer_config.json", drop_codes},
                                              {"special_tokens_map.json", drop_codes},
                                              {"config.json", [&](nlohmann::json& j) { j["vocab_size"] = rows; }}});
    {
      const SafetensorsFile weights = SafetensorsFile::read(test::fixture(t.family) + "/model.safetensors");
      SafetensorsWriter w;
      for (const TensorEntry& e : weights.tensors()) {
        std::vector<float> values = weights.floats<float>(e.name);
        std::vector<std::int64_t> shape = e.shape;
        // The embedding and its tied copies (the same padding keeps them equal); mBART's final_logits_bias (1, V).
        const bool table = e.name == "model.shared.weight" || e.name == "lm_head.weight" ||
                           e.name.ends_with("embed_tokens.weight");
        if (table) {
          values.resize(static_cast<std::size_t>(rows) * shape[1], 0.01f);
          shape[0] = rows;
        } else if (e.name == "final_logits_bias") {
          values.resize(static_cast<std::size_t>(rows), 0.0f);
          shape[1] = rows;
        }
        w.add(e.name, DType::F32, shape, values.data());
      }
      w.write(grown + "/model.safetensors");
    }
    const std::string out = dir.file(t.family + "-builtin.htp");
    ASSERT_EQ(test::run_heptapod("convert " + quoted(grown) + " --from " + from + " -o " + quoted(out), dir, log), 0) << log;
    EXPECT_HAS_SUBSTR(log, std::to_string(t.count) + " language codes");
    const LanguageCodes codes = read_language_codes(SafetensorsFile::read(out));
    ASSERT_EQ(codes.codes().size(), static_cast<std::size_t>(t.count));
    EXPECT_EQ(codes.codes().front(), (std::pair<std::string, int>{t.first, first}));
    EXPECT_EQ(codes.codes()[t.probe_at], (std::pair<std::string, int>{t.probe, first + t.probe_at}));
    EXPECT_EQ(codes.codes().back(), (std::pair<std::string, int>{t.last, first + t.count - 1}));
    Translator translator(out);  // the pieces keep their ids
    const auto tokenizer_texts = metadata_json<std::vector<std::string>>(ref, "tokenizer_texts");
    const auto tokenizer_ids = metadata_json<std::vector<std::vector<int>>>(ref, "tokenizer_ids");
    for (std::size_t i = 0; i < tokenizer_texts.size(); ++i)
      EXPECT_EQ(translator.vocabularies().source.encode(tokenizer_texts[i]), tokenizer_ids[i]) << tokenizer_texts[i];
  }

  // M2M100: wmt21's 8 codes after vocab.json's ids (the fixture's embedding holds 4 codes and 8 made-up words).
  const SafetensorsFile m2m_ref = SafetensorsFile::read(test::fixture("m2m100") + "/reference.safetensors");
  const int vocab_json = metadata_json<std::map<std::string, int>>(m2m_ref, "codes").at("__en__");
  const auto code_set = [&](const std::string& set) {
    return edited_fixture("m2m100", "m2m100-" + set, dir,
                          {{"special_tokens_map.json", drop_codes},
                           {"tokenizer_config.json", [set](nlohmann::json& j) { j["language_codes"] = set; }}});
  };
  const std::string wmt21_out = dir.file("wmt21.htp");
  ASSERT_EQ(test::run_heptapod("convert " + quoted(code_set("wmt21")) + " --from m2m100 -o " + quoted(wmt21_out), dir, log),
            0)
      << log;
  const LanguageCodes wmt21 = read_language_codes(SafetensorsFile::read(wmt21_out));
  const std::vector<std::string> expect = {"__en__", "__ha__", "__is__", "__ja__", "__cs__", "__ru__", "__zh__", "__de__"};
  ASSERT_EQ(wmt21.codes().size(), expect.size());
  for (std::size_t i = 0; i < expect.size(); ++i)
    EXPECT_EQ(wmt21.codes()[i], (std::pair<std::string, int>{expect[i], vocab_json + static_cast<int>(i)}));
  // m2m100's 100 codes do not fit the fixture's embedding; an unknown set is refused by name.
  EXPECT_NE(test::run_heptapod("convert " + quoted(code_set("m2m100")) + " --from m2m100 -o " + quoted(dir.file("b.htp")),
                               dir, log),
            0);
  EXPECT_HAS_SUBSTR(log, "ids with its language codes, but the model's embedding has");
  EXPECT_NE(test::run_heptapod("convert " + quoted(code_set("wmt19")) + " --from m2m100 -o " + quoted(dir.file("c.htp")),
                               dir, log),
            0);
  EXPECT_HAS_SUBSTR(log, "\"language_codes\" is \"wmt19\", not a code set of M2M100's tokenizer (m2m100 or wmt21)");
}

// The wrong converter for a model type, and a checkpoint without its tokenizer files.
TEST(ImportSeq2Seq, BadCheckpointsAreRefusedByName) {
  TempDir dir;
  std::string log;
  EXPECT_NE(test::run_heptapod("convert " + quoted(test::fixture("nllb")) + " --from mbart -o " +
                                   quoted(dir.file("a.htp")),
                               dir, log),
            0);
  EXPECT_HAS_SUBSTR(log, "model_type is \"m2m_100\", not \"mbart\"");
  EXPECT_NE(test::run_heptapod("convert " + quoted(test::fixture("marian")) + " --from m2m100 -o " +
                                   quoted(dir.file("b.htp")),
                               dir, log),
            0);
  EXPECT_HAS_SUBSTR(log, "model_type is \"marian\", not \"m2m_100\"");

  for (const std::string missing : {"sentencepiece.bpe.model", "vocab.json", "special_tokens_map.json"}) {
    const std::string copy = dir.file("m2m100-without-" + missing);
    std::filesystem::copy(test::fixture("m2m100"), copy);
    std::filesystem::remove(copy + "/" + missing);
    if (missing == "vocab.json") {  // without it the directory reads as NLLB's layout, whose codes differ
      EXPECT_NE(test::run_heptapod("convert " + quoted(copy) + " --from m2m100 -o " + quoted(dir.file("c.htp")), dir, log),
                0);
      EXPECT_HAS_SUBSTR(log, "holds \"__en__\", not a language code of this tokenizer (such as fra_Latn)");
      continue;
    }
    EXPECT_NE(test::run_heptapod("convert " + quoted(copy) + " --from m2m100 -o " + quoted(dir.file("c.htp")), dir, log),
              0);
    // Without special_tokens_map.json the tokenizer falls back on M2M100's 100 built-in codes, which the
    // fixture's embedding does not hold.
    EXPECT_HAS_SUBSTR(log, missing == "sentencepiece.bpe.model" ? copy + "/sentencepiece.bpe.model: missing"
                                                                : "ids with its language codes, but the model's embedding has");
  }
}

}  // namespace
}  // namespace heptapod
