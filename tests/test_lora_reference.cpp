// LoRA adapters against an independent float64 PyTorch reference (tools/lora_reference.py, fixtures
// tests/fixtures/lora), rank 2, alpha 4, over three kinds of model: the converted llama fixture (decoder-only,
// RMSNorm, SwiGLU, grouped-query attention, rotary positions) with adapters on every layer's q, v, o, gate, up and
// down; an encoder-decoder translator (parity_prenorm_untied) with adapters on the self-attention's q, k, v, o,
// the cross-attention's and the feed-forward network's matrices; an encoder-only classifier
// (parity_encoder_only_classifier, [CLS] through the pooler) with adapters on q, v and the ffn and its pooler and
// classifier trained in full beside them. The loss and every trained tensor's gradient match the reference to
// 1e-5 / 1e-4, and ten Adam updates of the trained tensors alone (the optimiser's state of the trained tail, as
// the Trainer keeps it) follow the reference's losses. PEFT's files of adapters over the llama, GPT-2 and BERT
// (masked-LM and classifier) fixtures convert and compute what the reference computes.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "heptapod/io/adapter_file.h"
#include "heptapod/io/model_file.h"
#include "test_process.h"
#include "test_util.h"

namespace heptapod {
namespace {

// The rank, alpha and targets a reference fixture's metadata names.
LoraConfig reference_lora(const SafetensorsFile& ref) {
  LoraConfig lora;
  lora.rank = std::stoi(ref.metadata("rank"));
  lora.alpha = std::stof(ref.metadata("alpha"));
  lora.targets.clear();
  std::stringstream targets(ref.metadata("targets"));
  for (std::string t; std::getline(targets, t, ',');) lora.targets.push_back(t);
  return lora;
}

// Hugging Face checkpoint directory `fixture` converted (--from `from`) into `dir`: the model file's path.
std::string convert_checkpoint(const std::string& fixture, const std::string& from, test::TempDir& dir) {
  const std::string converted = dir.file(fixture + ".htp");
  std::string log;
  EXPECT_EQ(test::run_heptapod("convert " + test::quoted(test::fixture(fixture)) + " --from " + from + " -o " +
                                   test::quoted(converted),
                               dir, log),
            0)
      << log;
  return converted;
}

// `heptapod convert PEFT --from peft --base BASE -o OUTPUT`: its exit status, its output in `log`.
int convert_peft(const std::string& peft, const std::string& base, const std::string& output, test::TempDir& dir,
                 std::string& log) {
  return test::run_heptapod("convert " + test::quoted(peft) + " --from peft --base " + test::quoted(base) + " -o " +
                                test::quoted(output),
                            dir, log);
}

// The base model of `fixture` (converted --from `from`) with PEFT's adapters `peft` (a directory in
// tests/fixtures/lora) converted over it, as every front end's --adapter loads them.
std::unique_ptr<Transformer<float>> peft_adapted(const std::string& fixture, const std::string& from,
                                                 const std::string& peft, test::TempDir& dir) {
  const std::string base = convert_checkpoint(fixture, from, dir), adapter = dir.file(peft + ".htp");
  std::string log;
  EXPECT_EQ(convert_peft(test::fixture("lora") + "/" + peft, base, adapter, dir, log), 0) << log;
  return load_adapted_model(SafetensorsFile::read(base), SafetensorsFile::read(adapter));
}

// A copy in `dir` of PEFT directory `peft` (in tests/fixtures/lora) whose adapter_config.json has `from` replaced
// by `to`: its path (the same for every variant of `peft`: each replaces the last).
std::string peft_variant(const std::string& peft, const std::string& from, const std::string& to, test::TempDir& dir) {
  const std::string source = test::fixture("lora") + "/" + peft, copy = dir.file(peft + "_variant");
  std::filesystem::create_directories(copy);
  std::filesystem::copy_file(source + "/adapter_model.safetensors", copy + "/adapter_model.safetensors",
                             std::filesystem::copy_options::overwrite_existing);
  std::string config = test::slurp(source + "/adapter_config.json");
  EXPECT_NE(config.find(from), std::string::npos) << from;
  if (config.find(from) != std::string::npos) config.replace(config.find(from), from.size(), to);
  dir.write(peft + "_variant/adapter_config.json", config);
  return copy;
}

// Converting PEFT directory `peft` over base file `base` (in `dir`) fails with a message holding `why`, writing
// nothing.
void expect_peft_refused(const std::string& peft, const std::string& base, const std::string& why, test::TempDir& dir) {
  std::string log;
  EXPECT_NE(convert_peft(peft, dir.file(base), dir.file("refused.htp"), dir, log), 0);
  EXPECT_NE(log.find(why), std::string::npos) << log;
  EXPECT_FALSE(std::filesystem::exists(dir.file("refused.htp")));
}

// The loss of `train`, the gradient of every trained tensor (`trained` of them) and ten Adam updates against the
// reference fixture `ref`.
void expect_reference(Transformer<float>& model, const Batch& train, const SafetensorsFile& ref, std::size_t trained) {
  ParameterStore<float>& p = model.parameters();
  StepOptions opt;
  opt.label_smoothing = std::stof(ref.metadata("label_smoothing"));
  Arena arena;
  p.zero_grads();
  const LossTotals totals = model.forward_backward(train, opt, arena);
  const double expect_loss = ref.floats<double>("expect/loss")[0];
  EXPECT_NEAR(totals.loss / totals.tokens, expect_loss, 1e-5 * expect_loss) << "loss";
  std::size_t checked = 0;
  for (std::size_t i = 0; i < p.specs().size(); ++i) {
    const ParamSpec& spec = p.specs()[i];
    if (spec.frozen) continue;
    const std::vector<float> want = ref.floats<float>("grad/" + spec.name);
    double scale = 0;
    for (float g : want) scale = std::max(scale, static_cast<double>(std::abs(g)));
    EXPECT_LT(test::max_rel_error(p.grads() + p.offset(i), want.data(), want.size(), 1e-3 * scale), 1e-4)
        << "gradient of " << spec.name;
    ++checked;
  }
  EXPECT_EQ(checked, trained);
  test::expect_adam_losses(model, train, opt, ref, "LoRA");
}

TEST(LoraReference, DecoderOnlyMatchesTheFloat64Reference) {
  test::TempDir dir;
  const SafetensorsFile base = SafetensorsFile::read(convert_checkpoint("llama", "llama", dir));
  const SafetensorsFile ref = SafetensorsFile::read(test::fixture("lora") + "/reference.safetensors");
  const SafetensorsFile batch = SafetensorsFile::read(test::fixture("llama") + "/reference.safetensors");
  ModelConfig c = read_model_config(base);
  c.lora = reference_lora(ref);
  ASSERT_EQ(ref.metadata("targets"), "q,v,o,ffn");
  Transformer<float> model(c);
  ParameterStore<float>& p = model.parameters();
  load_selected_parameters<float>(base, p, [](const ParamSpec& spec) { return spec.frozen; });
  load_selected_parameters<float>(ref, p, [](const ParamSpec& spec) { return !spec.frozen; });
  std::vector<int> targets = batch.ints("batch/train_target");  // -1 past each row's length: padding
  std::replace(targets.begin(), targets.end(), -1, c.pad_id);
  const Batch train = test::rows_batch(batch.ints("batch/train_input"), targets, batch.ints("batch/train_lengths"));
  expect_reference(model, train, ref, static_cast<std::size_t>(c.decoder_layers) * 6 * 2);
}

// A parity fixture's model (its config, parameters param/... and batch) with the adapters of lora fixture
// `name` beside its matrices; `trained`: the number of trained tensors.
void expect_parity_reference(const std::string& name, std::size_t trained) {
  const SafetensorsFile ref = SafetensorsFile::read(test::fixture("lora") + "/" + name);
  const SafetensorsFile base = SafetensorsFile::read(test::fixture(ref.metadata("base")));
  ModelConfig c = model_config_from_json(base.metadata("config"), ref.metadata("base"));
  c.lora = reference_lora(ref);
  Transformer<float> model(c);
  ParameterStore<float>& p = model.parameters();
  for (std::size_t i = 0; i < p.specs().size(); ++i) {
    const ParamSpec& spec = p.specs()[i];
    const std::vector<float> v = spec.role == ParamRole::Adapter ? ref.floats<float>(spec.name)
                                                                  : base.floats<float>("param/" + spec.name);
    ASSERT_EQ(v.size(), static_cast<std::size_t>(spec.numel())) << spec.name;
    std::copy(v.begin(), v.end(), p.values() + p.offset(i));
  }
  expect_reference(model, test::fixture_batch(base), ref, trained);
}

// Two encoder and two decoder layers: 6 and 10 adapted matrices each, two tensors per adapter.
TEST(LoraReference, EncoderDecoderMatchesTheFloat64Reference) {
  expect_parity_reference("encoder_decoder.safetensors", (2 * 6 + 2 * 10) * 2);
}

// Two layers of q, v, fc1 and fc2 adapters, and the pooler's and the classifier's weights and biases.
TEST(LoraReference, EncoderOnlyClassifierMatchesTheFloat64Reference) {
  expect_parity_reference("encoder_only.safetensors", 2 * 4 * 2 + 4);
}

// PEFT's own files of the decoder-only reference's adapters convert to an adapter file over the converted base
// that scores the training batch as the reference does; PEFT variants plain LoRA does not cover are refused by
// name.
TEST(LoraReference, PeftAdaptersConvertAndScoreAsTheReference) {
  test::TempDir dir;
  const auto model = peft_adapted("llama", "llama", "peft", dir);
  EXPECT_EQ(model->config().lora.rank, 2);
  const SafetensorsFile ref = SafetensorsFile::read(test::fixture("lora") + "/reference.safetensors");
  const SafetensorsFile batch = SafetensorsFile::read(test::fixture("llama") + "/reference.safetensors");
  std::vector<int> targets = batch.ints("batch/train_target");
  std::replace(targets.begin(), targets.end(), -1, model->config().pad_id);
  const Batch train = test::rows_batch(batch.ints("batch/train_input"), targets, batch.ints("batch/train_lengths"));
  Arena arena;
  const LossTotals t = model->evaluate(train, std::stof(ref.metadata("label_smoothing")), arena);
  const double expect_loss = ref.floats<double>("expect/loss")[0];
  EXPECT_NEAR(t.loss / t.tokens, expect_loss, 1e-5 * expect_loss);

  // rsLoRA scales by alpha / sqrt(r): not plain LoRA, refused by name.
  expect_peft_refused(peft_variant("peft", "\"use_rslora\": false", "\"use_rslora\": true", dir), "llama.htp",
                      "use_rslora", dir);
  // Targets with exceptions: refused, not read as the targets alone.
  const std::string excluding = "\"alpha_pattern\": {}, \"exclude_modules\": [\"v_proj\"]";
  expect_peft_refused(peft_variant("peft", "\"alpha_pattern\": {}", excluding, dir), "llama.htp", "exclude_modules",
                      dir);
}

// GPT-2: PEFT's adapters on c_attn (one over the fused q|k|v output, split into q, k and v adapters), on both
// c_proj (the attention's and the MLP's, which the one name matches) and on c_fc, Conv1D layers
// (fan_in_fan_out): the converted model's logits are the reference's. An MLP adapted in part is refused.
TEST(LoraReference, PeftGpt2AdaptersConvertAndScoreAsTheReference) {
  test::TempDir dir;
  const auto model = peft_adapted("gpt2", "gpt2", "peft_gpt2", dir);
  const ModelConfig& c = model->config();
  EXPECT_EQ(c.lora.targets, (std::vector<std::string>{"q", "k", "v", "ffn", "o"}));
  const SafetensorsFile ref = SafetensorsFile::read(test::fixture("lora") + "/peft_gpt2/reference.safetensors");
  const Batch batch = test::gpt2_batch(ref);
  Arena arena;
  const float* logits = model->logits(batch, arena);
  const std::size_t n = static_cast<std::size_t>(batch.B) * batch.T * c.tgt_vocab_size;
  EXPECT_LT(test::padded_error({logits, logits + n}, ref.floats<float>("expect/logits"), batch.tgt_len, batch.T), 1e-5);

  // "attn.c_proj" in place of "c_proj": the MLP's c_fc without its c_proj, which Heptapod's ffn target does not
  // express.
  expect_peft_refused(peft_variant("peft_gpt2", "\"c_proj\"", "\"attn.c_proj\"", dir), "gpt2.htp",
                      "adapted together or not at all", dir);
}

// BERT: PEFT's adapters on query, key, value, attention.output.dense, intermediate.dense and output.dense: the
// converted model's hidden states and masked-LM logits are the reference's. Another family's adapters are refused.
TEST(LoraReference, PeftBertAdaptersConvertAndScoreAsTheReference) {
  test::TempDir dir;
  const auto model = peft_adapted("bert", "bert", "peft_bert", dir);
  const ModelConfig& c = model->config();
  EXPECT_EQ(c.lora.targets, (std::vector<std::string>{"q", "k", "v", "o", "ffn"}));
  const SafetensorsFile ref = SafetensorsFile::read(test::fixture("lora") + "/peft_bert/reference.safetensors");
  test::expect_bert_masked_lm(*model, test::bert_batch(ref), ref);
  // GPT-2's adapters over the BERT model: Conv1D layouts (fan_in_fan_out) and c_attn are no BERT model's.
  expect_peft_refused(test::fixture("lora") + "/peft_gpt2", "bert.htp", "BERT model", dir);
}

// BERT classifier: PEFT's SEQ_CLS task, adapters on query and value and the classifier saved in full
// (modules_to_save): the converted adapter file holds that classifier and the base's pooler, and the model's
// pooled vectors and class logits are the reference's. Other modules to save are refused.
TEST(LoraReference, PeftBertClassifierConvertsWithItsSavedHead) {
  test::TempDir dir;
  const auto model = peft_adapted("bert_classifier", "bert", "peft_bert_classifier", dir);
  const ModelConfig& c = model->config();
  EXPECT_EQ(c.lora.targets, (std::vector<std::string>{"q", "v"}));
  const SafetensorsFile ref =
      SafetensorsFile::read(test::fixture("lora") + "/peft_bert_classifier/reference.safetensors");
  Batch b = test::bert_batch(ref);
  b.labels.assign(static_cast<std::size_t>(b.B), 0);
  Arena arena;
  const float* logits = model->logits(b, arena);
  const std::vector<float> want = ref.floats<float>("expect/class_logits");
  EXPECT_LT(test::max_rel_error(logits, want.data(), want.size()), 1e-5);
  const std::vector<float> pooled = ref.floats<float>("expect/pooled");
  EXPECT_LT(test::max_rel_error(model->pooled(), pooled.data(), pooled.size()), 1e-5);

  expect_peft_refused(peft_variant("peft_bert_classifier", "\"score\"", "\"pooler\"", dir), "bert_classifier.htp",
                      "modules_to_save", dir);
}

}  // namespace
}  // namespace heptapod
