// Converted LLaMA-family checkpoints (llama, mistral, qwen2, qwen3) against an independent float64 PyTorch
// reference of the family (tools/llama_reference.py; fixtures by tools/make_llama_fixtures.py: random weights
// under the real tensor names and config keys, one checkpoint sharded, one stored in bfloat16, one in float16):
// `heptapod convert DIR --from llama` writes a model file whose logits match the reference to 1e-5, whose
// cached greedy continuation is the reference's token for token (dynamic rotary scaling as transformers' cached
// generation rotates keys), whose training gradients match to 1e-4 and whose ten Adam updates follow the
// reference's losses; and the converter refuses what it cannot express, naming file and field.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "heptapod/decode/generator.h"
#include "heptapod/decode/incremental_decoder.h"
#include "heptapod/io/atomic_file.h"
#include "heptapod/io/llama_import.h"
#include "heptapod/io/model_file.h"
#include "heptapod/io/safetensors.h"
#include "conversion_checks.h"
#include "test_process.h"
#include "test_util.h"

namespace heptapod {
namespace {

using test::quoted;
using test::TempDir;

using Converted = test::ConvertedFixture;

Converted convert(const std::string& family, TempDir& dir) { return test::convert_fixture(family, "llama", dir); }

void check_family(const std::string& family) {
  TempDir dir;
  Converted converted = convert(family, dir);
  const SafetensorsFile& ref = converted.reference;
  Transformer<float>& model = *converted.model;
  const ModelConfig& c = model.config();
  EXPECT_EQ(c.architecture, Architecture::DecoderOnly);
  EXPECT_TRUE(c.rotary);
  EXPECT_EQ(c.norm_type, NormType::Rms);

  // Teacher-forced logits of every real position.
  const std::vector<int> ids = ref.ints("batch/input_ids"), lengths = ref.ints("batch/lengths");
  const Batch batch = test::rows_batch(ids, ids, lengths);
  Arena arena;
  const float* logits = model.logits(batch, arena);
  std::vector<float> got(logits, logits + static_cast<std::size_t>(batch.B) * batch.T * c.tgt_vocab_size);
  std::vector<float> want = ref.floats<float>("expect/logits");
  const std::size_t V = c.tgt_vocab_size;
  for (int b = 0; b < batch.B; ++b)  // rows past a prompt's length are not compared
    for (std::size_t k = (static_cast<std::size_t>(b) * batch.T + lengths[b]) * V;
         k < static_cast<std::size_t>(b + 1) * batch.T * V; ++k)
      got[k] = want[k] = 0;
  EXPECT_LT(test::max_rel_error(got.data(), want.data(), want.size()), 1e-5) << family << " logits";

  // Greedy continuation with the key/value cache: the prompt in one pass, then a token per step.
  const std::vector<int> greedy = ref.ints("expect/greedy");
  const std::size_t steps = greedy.size() / lengths.size();
  for (int b = 0; b < batch.B; ++b) {
    std::vector<int> prompt(ids.begin() + static_cast<long>(b) * batch.T,
                            ids.begin() + static_cast<long>(b) * batch.T + lengths[b]);
    IncrementalDecoder decoder(model);
    const int no_source = 0;
    decoder.start(nullptr, 1, 0, &no_source, 1, lengths[b] + static_cast<int>(steps), CachePrecision::Float32);
    const float* row = decoder.feed_logits({prompt});
    std::vector<int> made;
    for (std::size_t t = 0; t < steps; ++t) {
      made.push_back(static_cast<int>(std::max_element(row, row + V) - row));
      if (t + 1 < steps) row = decoder.step_logits({made.back()});
    }
    EXPECT_EQ(made, std::vector<int>(greedy.begin() + static_cast<long>(b * steps),
                                     greedy.begin() + static_cast<long>((b + 1) * steps)))
        << family << " greedy continuation of prompt " << b;
  }

  // Text: the model's own tokenizer gives the prompts' ids, and generation continues them as the reference
  // does, token for token, into the reference's text (where the prompt holds no special token, which the
  // reference's text leaves out).
  const auto prompts = nlohmann::json::parse(ref.metadata("prompts")).get<std::vector<std::string>>();
  const auto prompt_ids = nlohmann::json::parse(ref.metadata("prompt_ids")).get<std::vector<std::vector<int>>>();
  const auto texts = nlohmann::json::parse(ref.metadata("greedy_text")).get<std::vector<std::string>>();
  Generator generator(converted.path);
  GenerateOptions o;
  o.beam = 1;
  o.max_tokens = static_cast<int>(steps);
  o.cache = CachePrecision::Float32;
  const std::vector<Generation> outputs = generator.generate(prompts, o);
  for (std::size_t i = 0; i < prompts.size(); ++i) {
    std::vector<int> want = prompt_ids[i];
    if (c.prompt_bos) {  // the reference's ids begin with the start token, which Heptapod's model adds itself
      ASSERT_FALSE(want.empty());
      EXPECT_EQ(want.front(), c.bos_id) << family << " prompt " << i;
      want.erase(want.begin());
    }
    EXPECT_EQ(generator.vocabulary().encode(prompts[i]), want) << family << " prompt " << i;
    want.insert(want.end(), greedy.begin() + static_cast<long>(i * steps),
                greedy.begin() + static_cast<long>((i + 1) * steps));
    EXPECT_EQ(outputs[i].outputs[0].tokens, want) << family << " prompt " << i;
    if (prompts[i].find("<|") == std::string::npos) {
      EXPECT_EQ(outputs[i].outputs[0].text, texts[i]) << family << " prompt " << i;
    }
  }

  // Training: the loss and every gradient, then ten Adam updates.
  std::vector<int> targets = ref.ints("batch/train_target");  // -1 past each row's length: padding
  std::replace(targets.begin(), targets.end(), -1, c.pad_id);
  const Batch train = test::rows_batch(ref.ints("batch/train_input"), targets, ref.ints("batch/train_lengths"));
  const StepOptions opt = test::expect_reference_training_step(
      model, train, ref, family, dir, arena, [&](const std::string& grads) { return import_llama(grads, c); });
  test::expect_adam_losses(model, train, opt, ref, family);
}

// llama: sharded float32, untied output layer, llama3 rope scaling past its original context.
TEST(ImportLlama, LlamaMatchesItsReference) { check_family("llama"); }
// mistral: bfloat16 weights, one key/value head for four query heads, a sliding window wider than the text.
TEST(ImportLlama, MistralMatchesItsReference) { check_family("mistral"); }
// qwen2: float16 weights, q/k/v biases, tied output layer, linear rope scaling under the older "type" key.
TEST(ImportLlama, Qwen2MatchesItsReference) { check_family("qwen2"); }
// qwen3: q/k norms, an explicit head_dim, dynamic rope scaling in "rope_parameters", past its context.
TEST(ImportLlama, Qwen3MatchesItsReference) { check_family("qwen3"); }

void write_file(const std::string& path, const std::string& text) {
  write_file_atomic(path, [&](std::ostream& out) { out << text; });
}

// Converted models fine-tune like any other (config, ids and tokenizer kept), quantize to int8 and bfloat16,
// and generate from every form; the generation defaults survive fine-tuning.
TEST(ImportLlama, ConvertedModelsFineTuneQuantizeAndGenerate) {
  TempDir dir;
  std::string log;
  const std::string prose = dir.write("prose.txt", "The dog and the fox run into the woods.\nHello, world! It's a test.\n"
                                                   "We've got 42 apples; they're on the table.\n");
  for (const std::string family : {"llama", "qwen2"}) {
    const Converted converted = convert(family, dir);
    const std::string tuned = dir.file(family + "-tuned");
    ASSERT_EQ(test::run_heptapod("train --text " + quoted(prose) + " --init " + quoted(converted.path) + " -o " +
                                     quoted(tuned) + " --steps 4 --batch-tokens 128 --context 16 --log-every 2 "
                                     "--valid-every 100 --seed 3",
                                 dir, log),
              0)
        << log;
    const SafetensorsFile file = SafetensorsFile::read(tuned + "/model.htp");
    const ModelConfig c = read_model_config(file);
    EXPECT_EQ(to_json(c), to_json(converted.model->config())) << family;
    EXPECT_EQ(read_vocabularies(file, c)->target.serialized(),
              read_vocabularies(SafetensorsFile::read(converted.path), c)->target.serialized())
        << family;
    std::vector<std::string> models = {tuned + "/model.htp"};
    for (const char* type : {"int8", "bfloat16"}) {
      models.push_back(dir.file(family + "-" + type + ".htp"));
      ASSERT_EQ(test::run_heptapod("quantize -m " + quoted(tuned + "/model.htp") + " --to " + type + " -o " +
                                       test::quoted(models.back()),
                                   dir, log),
                0)
          << log;
    }
    for (const std::string& model : models) {
      ASSERT_EQ(test::run_heptapod("generate -m " + quoted(model) + " --prompt " + quoted("The dog") +
                                       " --max-tokens 5 --beam 1 -o " + quoted(dir.file("out.txt")),
                                   dir, log),
                0)
          << log;
      EXPECT_EQ(read_file(dir.file("out.txt")).rfind("The dog", 0), 0u) << model;
    }
  }
  // Qwen's sequences begin with their text: an empty prompt has nothing to continue.
  EXPECT_NE(test::run_heptapod("generate -m " + quoted(dir.file("qwen2.htp")) + " --prompt '' --max-tokens 3", dir, log),
            0);
  EXPECT_HAS_SUBSTR(log, "an empty prompt");
}

using test::config_edit;

// A copy of a fixture changed by `change`, converted: the log of a refusal.
std::string refusal(const std::string& family, const std::function<void(const std::string&)>& change) {
  return test::refused_conversion(family, "llama", change);
}

TEST(ImportLlama, RefusesWhatItCannotExpressByName) {
  EXPECT_HAS_SUBSTR(refusal("llama", config_edit([](nlohmann::json& j) { j["rope_scaling"]["rope_type"] = "yarn"; })),
                    "rope scaling \"yarn\" is not supported");
  EXPECT_HAS_SUBSTR(refusal("llama", config_edit([](nlohmann::json& j) { j["model_type"] = "mixtral"; })),
                    "model_type \"mixtral\"");
  EXPECT_HAS_SUBSTR(refusal("qwen2", config_edit([](nlohmann::json& j) { j["num_experts"] = 8; })),
                    "\"num_experts\": a mixture of experts");
  EXPECT_HAS_SUBSTR(refusal("mistral", config_edit([](nlohmann::json& j) {
                              j["architectures"] = {"MistralForSequenceClassification"};
                            })),
                    "MistralForSequenceClassification");
  EXPECT_HAS_SUBSTR(refusal("llama", config_edit([](nlohmann::json& j) { j["hidden_act"] = "tanh"; })),
                    "hidden_act");
  // The config says there are biases the weights lack, and the other way round.
  EXPECT_HAS_SUBSTR(refusal("llama", config_edit([](nlohmann::json& j) { j["attention_bias"] = true; })),
                    "q_proj.bias");
  EXPECT_HAS_SUBSTR(refusal("qwen2", config_edit([](nlohmann::json& j) { j["model_type"] = "llama"; j["architectures"] = {"LlamaForCausalLM"}; })),
                    "has no place in the converted model");
  EXPECT_HAS_SUBSTR(refusal("llama", config_edit([](nlohmann::json& j) { j["rope_scaling"].erase("low_freq_factor"); })),
                    "low_freq_factor");
  // A shard the index names is missing; the index is damaged.
  EXPECT_HAS_SUBSTR(refusal("llama", [](const std::string& dir) {
                      std::filesystem::remove(dir + "/model-00002-of-00002.safetensors");
                    }),
                    "model-00002-of-00002.safetensors\" (tensor");
  EXPECT_HAS_SUBSTR(refusal("llama", [](const std::string& dir) {
                      write_file(dir + "/model.safetensors.index.json", "{\"weight_map\": {\"x\": \"../x\"}}");
                    }),
                    "not a file of the directory");
  EXPECT_HAS_SUBSTR(refusal("llama", [](const std::string& dir) {
                      write_file(dir + "/model.safetensors.index.json", "{\"weight_map\": ");
                    }),
                    "model.safetensors.index.json");
  EXPECT_HAS_SUBSTR(refusal("mistral", [](const std::string& dir) { write_file(dir + "/config.json", "[1, 2]"); }),
                    "config.json");
  EXPECT_HAS_SUBSTR(refusal("mistral", [](const std::string& dir) {
                      write_file(dir + "/generation_config.json", "{\"top_p\": 7}");
                    }),
                    "generation_config.json: \"top_p\"");
}

// The sliding window caps the context (Mistral v0.1), info says so; Qwen's window applies only when it is on.
TEST(ImportLlama, ASlidingWindowInForceCapsTheContext) {
  const LlamaConfig mistral = read_llama_config(test::fixture("mistral"));
  nlohmann::json j = nlohmann::json::parse(read_file(test::fixture("mistral") + "/config.json"));
  j["sliding_window"] = 16;
  j["max_position_embeddings"] = 64;
  const LlamaConfig capped = llama_config(j.dump(), "config.json");
  EXPECT_EQ(capped.model.max_positions, 16);
  EXPECT_EQ(capped.model.sliding_window, 16);
  ASSERT_EQ(capped.notes.size(), 1u);
  EXPECT_HAS_SUBSTR(capped.notes[0], "sliding window, 16 positions");
  j["sliding_window"] = nullptr;  // Mistral v0.2: none
  EXPECT_EQ(llama_config(j.dump(), "config.json").model.sliding_window, 0);
  nlohmann::json q = nlohmann::json::parse(read_file(test::fixture("qwen2") + "/config.json"));
  EXPECT_EQ(llama_config(q.dump(), "config.json").model.sliding_window, 0);  // use_sliding_window false
  q["use_sliding_window"] = true;
  q["max_window_layers"] = 1;
  EXPECT_EQ(llama_config(q.dump(), "config.json").model.max_positions, q["sliding_window"].get<int>());
}

// generation_config.json: several end tokens, and its sampling defaults, which the model file keeps.
TEST(ImportLlama, GenerationConfigGivesEndTokensAndSamplingDefaults) {
  const LlamaConfig llama = read_llama_config(test::fixture("llama"));
  const nlohmann::json g = nlohmann::json::parse(read_file(test::fixture("llama") + "/generation_config.json"));
  const std::vector<int> eos = g["eos_token_id"].get<std::vector<int>>();
  ASSERT_GE(eos.size(), 2u);
  EXPECT_EQ(llama.model.eos_id, eos[0]);
  EXPECT_EQ(llama.model.extra_eos_ids, std::vector<int>(eos.begin() + 1, eos.end()));
  for (int id : eos) EXPECT_TRUE(llama.model.is_end(id));
  ASSERT_TRUE(llama.generation.do_sample && llama.generation.temperature && llama.generation.top_p);
  EXPECT_TRUE(*llama.generation.do_sample);
  EXPECT_FLOAT_EQ(*llama.generation.temperature, 0.6f);
  EXPECT_FLOAT_EQ(*llama.generation.top_p, 0.9f);
  EXPECT_EQ(llama.generation.top_k, 50);  // absent: transformers' default where it samples
  TempDir dir;
  const Converted converted = convert("llama", dir);
  const GenerationDefaults kept = read_generation_defaults(SafetensorsFile::read(converted.path));
  EXPECT_EQ(to_json(kept), to_json(llama.generation));
}

}  // namespace
}  // namespace heptapod
