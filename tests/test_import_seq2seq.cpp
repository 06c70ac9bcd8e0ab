// Converted NLLB-200, M2M100 and mBART-50 checkpoints against the independent float64 references of
// tools/seq2seq_reference.py (tiny random checkpoints under Hugging Face's names, with each family's
// tokenizer files: tools/make_seq2seq_fixtures.py): `heptapod convert --from m2m100 | mbart` writes a model
// file whose encoder states and logits match to 1e-5, whose greedy and beam translations with the forced
// target language code are the reference's token for token (and text for text), whose tokenizer gives the
// reference layout's ids on varied text, whose language codes are the tokenizer's, and whose training
// gradients match to 1e-4. And the bad inputs: an unknown language code (the model's listed), a model type
// the converter does not take, a missing tokenizer file.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

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

  // Training: the loss and every gradient.
  test::expect_reference_training_step(*model, batch, ref, family, dir, arena, [&](const std::string& checkpoint) {
    return import_seq2seq(checkpoint, from == "mbart" ? Seq2SeqFamily::Mbart : Seq2SeqFamily::M2m100);
  });

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
    EXPECT_HAS_SUBSTR(log, missing == "sentencepiece.bpe.model" ? copy + "/sentencepiece.bpe.model: missing"
                                                                : "lists the language codes");
  }
}

}  // namespace
}  // namespace heptapod
