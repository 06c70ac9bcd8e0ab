// Converted Hugging Face GPT-2 and BERT checkpoints against independent float64 PyTorch references of the
// two families (tools/make_hf_fixtures.py: random weights under the real state-dict names and config keys):
// `heptapod convert --from gpt2|bert` writes a model file whose logits, hidden states, pooled vectors and class
// probabilities match the reference to 1e-5, whose greedy generation is the reference's token for token, and
// whose own tokenizer turns the reference's texts into its ids and back; and the refusal tables name every
// configuration the converters cannot express.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <cmath>
#include <string>
#include <vector>

#include "heptapod/data/model_vocab.h"
#include "heptapod/decode/encoder.h"
#include "heptapod/decode/generator.h"
#include "heptapod/io/atomic_file.h"
#include "heptapod/io/bert_import.h"
#include "heptapod/io/gpt2_import.h"
#include "heptapod/io/model_file.h"
#include "heptapod/io/safetensors.h"
#include "heptapod/model/parameter_layout.h"
#include "hf_import_checks.h"
#include "test_process.h"
#include "test_util.h"

namespace heptapod {
namespace {

using test::quoted;
using test::convert_fixture;
using test::expect_tokenized_as_reference;
using test::TempDir;

// A fixture converted into `dir`, its reference, and the model file loaded.
struct Converted {
  std::string path;
  SafetensorsFile reference;
  std::unique_ptr<Transformer<float>> model;
};

Converted convert_and_load(const std::string& fixture, const std::string& from, TempDir& dir, std::string& log) {
  const std::string path = convert_fixture(fixture, from, dir, log);
  return {path, SafetensorsFile::read(test::fixture(fixture) + "/reference.safetensors"), load_model(path)};
}

TEST(ImportHf, Gpt2MatchesItsReference) {
  TempDir dir;
  std::string log;
  const Converted converted = convert_and_load("gpt2", "gpt2", dir, log);
  const std::string& model_path = converted.path;
  const SafetensorsFile& ref = converted.reference;
  const auto& model = converted.model;
  const ModelConfig& c = model->config();
  EXPECT_EQ(c.architecture, Architecture::DecoderOnly);
  EXPECT_EQ(c.activation, Activation::GeluTanh);

  // Teacher-forced logits of the prompts as they are (no start token), every real position.
  const Batch batch = test::gpt2_batch(ref);
  Arena arena;
  const float* logits = model->logits(batch, arena);
  const std::size_t n = static_cast<std::size_t>(batch.B) * batch.T * c.tgt_vocab_size;
  EXPECT_LT(test::padded_error({logits, logits + n}, ref.floats<float>("expect/logits"), batch.tgt_len, batch.T), 1e-5);

  // The tokenizer: the prompts' ids; greedy generation after the start token, token for token, and its text.
  const auto prompts = nlohmann::json::parse(ref.metadata("prompts")).get<std::vector<std::string>>();
  const auto prompt_ids = nlohmann::json::parse(ref.metadata("prompt_ids")).get<std::vector<std::vector<int>>>();
  const auto texts = nlohmann::json::parse(ref.metadata("greedy_text")).get<std::vector<std::string>>();
  const std::vector<int> greedy = ref.ints("expect/greedy");
  const std::size_t steps = greedy.size() / prompts.size();
  Generator generator(model_path);
  GenerateOptions o;
  o.beam = 1;
  o.max_tokens = static_cast<int>(steps);
  o.cache = CachePrecision::Float32;
  const auto outputs = generator.generate(prompts, o);
  for (std::size_t i = 0; i < prompts.size(); ++i) {
    EXPECT_EQ(generator.vocabulary().encode(prompts[i]), prompt_ids[i]) << "prompt " << i;
    std::vector<int> want = prompt_ids[i];
    want.insert(want.end(), greedy.begin() + static_cast<long>(i * steps), greedy.begin() + static_cast<long>((i + 1) * steps));
    EXPECT_EQ(outputs[i].outputs[0].tokens, want) << "prompt " << i;
    EXPECT_EQ(outputs[i].outputs[0].text, texts[i]) << "prompt " << i;
  }
}

TEST(ImportHf, BertMaskedLmMatchesItsReference) {
  TempDir dir;
  std::string log;
  const Converted converted = convert_and_load("bert", "bert", dir, log);
  const std::string& model_path = converted.path;
  const SafetensorsFile& ref = converted.reference;
  const auto& model = converted.model;
  // The pre-training checkpoint's extras are dropped by name, with a notice.
  for (const char* dropped : {"position_ids", "cls.seq_relationship.weight"}) EXPECT_HAS_SUBSTR(log, dropped);
  EXPECT_EQ(log.find("pooler"), std::string::npos);
  const ModelConfig& c = model->config();
  EXPECT_TRUE(c.mlm_head);
  EXPECT_EQ(c.layer_norm_eps, 1e-12f);
  // The pre-training checkpoint's pooler is kept, for the classifiers fine-tuned from it.
  EXPECT_TRUE(c.pooler);
  const SafetensorsFile checkpoint = SafetensorsFile::read(test::fixture("bert") + "/model.safetensors");
  EXPECT_EQ(SafetensorsFile::read(model_path).floats<float>(tensor_name(Module::Pooler, Leaf::Weight)),
            checkpoint.floats<float>("bert.pooler.dense.weight"));
  const Batch b = test::bert_batch(ref);
  test::expect_bert_masked_lm(*model, b, ref);
  expect_tokenized_as_reference(Encoder(model_path), ref, b);
}

TEST(ImportHf, BertClassifierMatchesItsReference) {
  TempDir dir;
  std::string log;
  const Converted converted = convert_and_load("bert_classifier", "bert", dir, log);
  const std::string& model_path = converted.path;
  const SafetensorsFile& ref = converted.reference;
  const auto& model = converted.model;
  const ModelConfig& c = model->config();
  ASSERT_EQ(c.labels, 3);
  EXPECT_EQ(c.pooling, Pooling::Cls);
  Batch b = test::bert_batch(ref);
  b.labels.assign(static_cast<std::size_t>(b.B), 0);
  // The Encoder's probabilities and label names, from the texts.
  Encoder encoder(model_path);
  expect_tokenized_as_reference(encoder, ref, b);
  test::expect_classifier_as_reference(*model, b, encoder, ref);
}

// Sentences of the BERT fixture's words, and labels by a rule a classifier can learn.
std::string bert_text(std::string& labels) {
  const char* lines[] = {"the cat sat on the mat", "where is the dog", "the dog is outside", "we like playing",
                         "it is the cat", "the dog sat outside", "hello, we like the cat", "where is it?"};
  std::string text;
  for (int repeat = 0; repeat < 8; ++repeat)
    for (const char* line : lines) {
      text += std::string(line) + "\n";
      labels += std::string(std::string(line).find("dog") != std::string::npos ? "dog" : "other") + "\n";
    }
  return text;
}

// Converted models fine-tune like any other (their configs, special ids and tokenizers survive), and every
// command reads them: GPT-2 on new text, then generate and quantize; BERT's masked-LM model by masked language
// modelling, and as a classifier with a fresh head, then classify, embed and score, in float32 and int8.
TEST(ImportHf, ConvertedModelsFineTuneAndServeEveryCommand) {
  TempDir dir;
  std::string log;
  const std::string gpt2 = convert_fixture("gpt2", "gpt2", dir, log), bert = convert_fixture("bert", "bert", dir, log);
  const std::string train = " --steps 6 --batch-tokens 256 --log-every 3 --valid-every 100 --seed 3";
  const std::string prose = dir.write("prose.txt", "The dog and the fox run into the woods.\nHello, world! It's a test.\n"
                                                   "We've got 42 apples; they're on the table.\n");
  ASSERT_EQ(test::run_heptapod("train --text " + quoted(prose) + " --init " + quoted(gpt2) + " -o " + quoted(dir.file("g")) + train,
                               dir, log),
            0)
      << log;
  const SafetensorsFile tuned = SafetensorsFile::read(dir.file("g/model.htp"));
  const ModelConfig c = read_model_config(tuned);
  EXPECT_EQ(to_json(c), to_json(read_model_config(SafetensorsFile::read(gpt2))));
  EXPECT_EQ(read_vocabularies(tuned, c)->target.serialized(),
            read_vocabularies(SafetensorsFile::read(gpt2), c)->target.serialized());
  ASSERT_EQ(test::run_heptapod("quantize -m " + quoted(dir.file("g/model.htp")) + " --to int8 -o " + quoted(dir.file("g8.htp")),
                               dir, log),
            0)
      << log;
  for (const std::string& model : {dir.file("g/model.htp"), dir.file("g8.htp")}) {
    ASSERT_EQ(test::run_heptapod("generate -m " + quoted(model) + " --prompt " + quoted("The dog") +
                                     " --max-tokens 5 --beam 1 -o " + quoted(dir.file("out.txt")),
                                 dir, log),
              0)
        << log;
    EXPECT_EQ(read_file(dir.file("out.txt")).rfind("The dog", 0), 0u);
  }

  std::string labels;
  const std::string text = dir.write("bert.txt", bert_text(labels));
  const std::string label_file = dir.write("labels.txt", labels);
  ASSERT_EQ(test::run_heptapod("train --text " + quoted(text) + " --init " + quoted(bert) + " -o " + quoted(dir.file("m")) + train,
                               dir, log),
            0)
      << log;
  EXPECT_HAS_SUBSTR(read_file(dir.file("m/metrics.jsonl")), "\"loss\"");
  // Text the vocabulary knows nothing of has nothing to mask: refused, not trained into NaN.
  const std::string unknown = dir.write("unknown.txt", "zzz qqq\nxxx\n");
  EXPECT_NE(test::run_heptapod("train --text " + quoted(unknown) + " --init " + quoted(bert) + " -o " + quoted(dir.file("u")) + train,
                               dir, log),
            0);
  EXPECT_HAS_SUBSTR(log, "nothing to mask");
  EXPECT_EQ(read_file(dir.file("m/metrics.jsonl")).find("nan"), std::string::npos);
  ASSERT_EQ(test::run_heptapod("train --task classify --pooling cls --text " + quoted(text) + " --labels " +
                                   quoted(label_file) + " --init " + quoted(bert) + " -o " + quoted(dir.file("c")) + train,
                               dir, log),
            0)
      << log;
  EXPECT_HAS_SUBSTR(log, "with a new head");
  {  // its pooler starts from the pre-trained one (a few small steps away), not from a random draw
    const std::string pooler = tensor_name(Module::Pooler, Leaf::Weight);
    const auto before = SafetensorsFile::read(bert).floats<float>(pooler);
    const auto after = SafetensorsFile::read(dir.file("c/model.htp")).floats<float>(pooler);
    ASSERT_EQ(before.size(), after.size());
    for (std::size_t i = 0; i < before.size(); ++i) ASSERT_NEAR(after[i], before[i], 0.02) << i;
  }
  ASSERT_EQ(test::run_heptapod("quantize -m " + quoted(dir.file("c/model.htp")) + " --to int8 -o " + quoted(dir.file("c8.htp")),
                               dir, log),
            0)
      << log;
  const std::string in = dir.write("in.txt", "the dog sat on the mat\nwe like the cat [MASK]\n");
  std::vector<std::vector<ClassScore>> scores;
  for (const std::string& model : {dir.file("c/model.htp"), dir.file("c8.htp")}) {
    Encoder encoder(model);
    ClassifyOptions o;
    o.top_k = 2;
    scores.emplace_back();
    for (const auto& c : encoder.classify({"the dog sat on the mat", "we like the cat"}, o)) scores.back().push_back(c.top[0]);
    for (const char* command : {"classify", "embed"})
      ASSERT_EQ(test::run_heptapod(std::string(command) + " -m " + quoted(model) + " -i " + quoted(in) + " -o " +
                                       quoted(dir.file("out.txt")),
                                   dir, log),
                0)
          << command << ": " << log;
  }
  for (std::size_t i = 0; i < scores[0].size(); ++i) {  // int8 weights: the same classes, nearly the same numbers
    EXPECT_EQ(scores[1][i].id, scores[0][i].id);
    EXPECT_NEAR(scores[1][i].probability, scores[0][i].probability, 0.05);
  }
  ASSERT_EQ(test::run_heptapod("score -m " + quoted(dir.file("m/model.htp")) + " -i " + quoted(in) + " -o " +
                                   quoted(dir.file("out.txt")),
                               dir, log),
            0)
      << log;
}

// Each configuration a converter cannot express is refused, naming the key.
TEST(ImportHf, Gpt2ConfigRefusesWhatHeptapodCannotExpress) {
  const nlohmann::json base = nlohmann::json::parse(read_file(test::fixture("gpt2") + "/config.json"));
  EXPECT_NO_THROW(gpt2_model_config(base.dump(), "config.json"));
  const std::vector<std::pair<nlohmann::json, std::string>> refusals = {
      {{{"scale_attn_by_inverse_layer_idx", true}}, "scale_attn_by_inverse_layer_idx"},
      {{{"reorder_and_upcast_attn", true}}, "reorder_and_upcast_attn"},
      {{{"scale_attn_weights", false}}, "scale_attn_weights"},
      {{{"activation_function", "relu"}}, "activation_function"},
      {{{"add_cross_attention", true}}, "add_cross_attention"},
      {{{"model_type", "gpt_neo"}}, "model_type"},
      {{{"n_embd", 30}}, "divisible"},
      {{{"n_layer", "two"}}, "n_layer"},
  };
  for (const auto& [patch, key] : refusals) {
    nlohmann::json j = base;
    j.merge_patch(patch);
    try {
      gpt2_model_config(j.dump(), "config.json");
      ADD_FAILURE() << patch.dump() << " was accepted";
    } catch (const Error& e) {
      EXPECT_HAS_SUBSTR(std::string(e.what()), key);
    }
  }
}

TEST(ImportHf, BertConfigRefusesWhatHeptapodCannotExpress) {
  const nlohmann::json base = nlohmann::json::parse(read_file(test::fixture("bert") + "/config.json"));
  const BertSpecialIds ids{0, 4, 5, 6};
  EXPECT_NO_THROW(bert_model_config(base.dump(), "config.json", BertHead::MaskedLm, 0, ids));
  const std::vector<std::pair<nlohmann::json, std::string>> refusals = {
      {{{"position_embedding_type", "relative_key"}}, "position_embedding_type"},
      {{{"is_decoder", true}}, "is_decoder"},
      {{{"add_cross_attention", true}}, "add_cross_attention"},
      {{{"hidden_act", "mish"}}, "hidden_act"},
      {{{"model_type", "roberta"}}, "model_type"},
      {{{"hidden_size", 30}}, "divisible"},
  };
  for (const auto& [patch, key] : refusals) {
    nlohmann::json j = base;
    j.merge_patch(patch);
    try {
      bert_model_config(j.dump(), "config.json", BertHead::MaskedLm, 0, ids);
      ADD_FAILURE() << patch.dump() << " was accepted";
    } catch (const Error& e) {
      EXPECT_HAS_SUBSTR(std::string(e.what()), key);
    }
  }
  nlohmann::json regression = base;
  regression["problem_type"] = "regression";
  EXPECT_THROW(bert_model_config(regression.dump(), "config.json", BertHead::Classifier, 1, ids), Error);
}

// A tensor the converter has no place for is refused by name; an untied GPT-2 head is refused.
TEST(ImportHf, UnusedTensorsAndUntiedHeadsAreRefused) {
  TempDir dir;
  for (const char* fixture : {"gpt2", "bert"}) {
    const std::string copy = dir.file(std::string(fixture) + "-extra");
    std::filesystem::create_directories(copy);
    for (const auto& e : std::filesystem::directory_iterator(test::fixture(fixture)))
      std::filesystem::copy_file(e.path(), copy + "/" + e.path().filename().string());
    const SafetensorsFile f = SafetensorsFile::read(copy + "/model.safetensors");
    SafetensorsWriter w;
    for (const auto& e : f.tensors()) w.add(e.name, e.dtype, e.shape, f.data(e));
    const float extra[2] = {1, 2};
    w.add(std::string(fixture) == "gpt2" ? "transformer.h.0.attn.q_attn.weight" : "bert.encoder.layer.0.crossattention.x",
          DType::F32, {2}, extra);
    w.write(copy + "/model.safetensors");
    std::string log;
    EXPECT_NE(test::run_heptapod("convert " + quoted(copy) + " --from " + fixture + " -o " + quoted(dir.file("x.htp")), dir, log), 0);
    EXPECT_HAS_SUBSTR(log, std::string(fixture) == "gpt2" ? "q_attn" : "crossattention");
  }
}

}  // namespace
}  // namespace heptapod
