// LoRA adapters against an independent float64 PyTorch reference (tools/lora_reference.py, fixture
// tests/fixtures/lora): rank 2, alpha 4 on every layer's q, v, o, gate, up and down of the converted llama
// fixture (a decoder-only model, RMSNorm, SwiGLU, grouped-query attention, rotary positions). The loss and every
// adapter's gradient match the reference to 1e-5 / 1e-4, and ten Adam updates of the adapters alone (the
// optimiser's state of the trained tail, as the Trainer keeps it) follow the reference's losses.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

#include "heptapod/io/adapter_file.h"
#include "heptapod/io/model_file.h"
#include "test_process.h"
#include "test_util.h"

namespace heptapod {
namespace {

TEST(LoraReference, LossGradientsAndAdamMatchTheFloat64Reference) {
  test::TempDir dir;
  const std::string converted = dir.file("llama.htp");
  std::string log;
  ASSERT_EQ(test::run_heptapod("convert " + test::quoted(test::fixture("llama")) + " --from llama -o " +
                                   test::quoted(converted),
                               dir, log),
            0)
      << log;
  const SafetensorsFile base = SafetensorsFile::read(converted);
  const SafetensorsFile ref = SafetensorsFile::read(test::fixture("lora") + "/reference.safetensors");
  const SafetensorsFile batch = SafetensorsFile::read(test::fixture("llama") + "/reference.safetensors");
  ModelConfig c = read_model_config(base);
  c.lora.rank = std::stoi(ref.metadata("rank"));
  c.lora.alpha = std::stof(ref.metadata("alpha"));
  c.lora.targets = {"q", "v", "o", "ffn"};
  ASSERT_EQ(ref.metadata("targets"), "q,v,o,ffn");
  Transformer<float> model(c);
  ParameterStore<float>& p = model.parameters();
  load_selected_parameters<float>(base, p, [](const ParamSpec& spec) { return spec.frozen; });
  load_selected_parameters<float>(ref, p, [](const ParamSpec& spec) { return !spec.frozen; });

  std::vector<int> targets = batch.ints("batch/train_target");  // -1 past each row's length: padding
  std::replace(targets.begin(), targets.end(), -1, c.pad_id);
  const Batch train = test::rows_batch(batch.ints("batch/train_input"), targets, batch.ints("batch/train_lengths"));
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
  EXPECT_EQ(checked, static_cast<std::size_t>(c.decoder_layers) * 6 * 2);

  test::expect_adam_losses(model, train, opt, ref, "LoRA");
}

// PEFT's own files of the same adapters (written by the reference) convert to an adapter file over the converted
// base that scores the training batch as the reference does; PEFT variants plain LoRA does not cover are refused
// by name.
TEST(LoraReference, PeftAdaptersConvertAndScoreAsTheReference) {
  test::TempDir dir;
  const std::string converted = dir.file("llama.htp"), adapter = dir.file("adapter.htp");
  std::string log;
  ASSERT_EQ(test::run_heptapod("convert " + test::quoted(test::fixture("llama")) + " --from llama -o " +
                                   test::quoted(converted),
                               dir, log),
            0)
      << log;
  const std::string peft = test::fixture("lora") + "/peft";
  ASSERT_EQ(test::run_heptapod("convert " + test::quoted(peft) + " --from peft --base " + test::quoted(converted) +
                                   " -o " + test::quoted(adapter),
                               dir, log),
            0)
      << log;
  const auto model = load_adapted_model(SafetensorsFile::read(converted), SafetensorsFile::read(adapter));
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
  const std::string rslora = dir.file("rslora");
  std::filesystem::create_directories(rslora);
  std::filesystem::copy_file(peft + "/adapter_model.safetensors", rslora + "/adapter_model.safetensors");
  std::string config = test::slurp(peft + "/adapter_config.json");
  const std::string plain = "\"use_rslora\": false";
  ASSERT_NE(config.find(plain), std::string::npos);
  config.replace(config.find(plain), plain.size(), "\"use_rslora\": true");
  dir.write("rslora/adapter_config.json", config);
  EXPECT_NE(test::run_heptapod("convert " + test::quoted(rslora) + " --from peft --base " + test::quoted(converted) +
                                   " -o " + test::quoted(dir.file("no.htp")),
                               dir, log),
            0);
  EXPECT_NE(log.find("use_rslora"), std::string::npos) << log;
  EXPECT_FALSE(std::filesystem::exists(dir.file("no.htp")));
}

}  // namespace
}  // namespace heptapod
