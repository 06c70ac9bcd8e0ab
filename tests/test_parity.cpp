// The PyTorch reference test: logits, loss, every parameter gradient and a 10-step Adam trajectory must
// match fixtures written by tools/make_parity_fixtures.py (an independent PyTorch implementation), for two
// encoder-decoders and three decoder-only models (language models: no source, S = 0, no cross-attention), one
// of them with learned positions.
#include <gtest/gtest.h>

#include <cmath>

#include "heptapod/io/model_file.h"
#include "heptapod/io/torch_import.h"
#include "heptapod/model/transformer.h"
#include "heptapod/train/adam.h"
#include "heptapod/train/lr_schedule.h"
#include "test_util.h"

namespace heptapod {
namespace {

using test::fixture;
using test::max_rel_error;

struct Tolerances {
  double logits, loss, grads, adam;
};

template <typename T>
void check_parity(const std::string& name, const Tolerances& tol) {
  const SafetensorsFile f = SafetensorsFile::read(fixture(name));
  ASSERT_EQ(f.metadata("format"), "heptapod-parity-fixture");
  const ModelConfig config = model_config_from_json(f.metadata("config"), name);
  const float smoothing = std::stof(f.metadata("label_smoothing"));
  const Batch batch = test::fixture_batch(f);
  Transformer<T> model(config);
  load_parameters(f, model.parameters(), "param/");
  Arena arena;

  // Logits at the real target positions (padding rows are zeros).
  const std::vector<float> expect_logits = test::expected_logits(f, batch);
  const T* logits = model.logits(batch, arena);
  EXPECT_LT(max_rel_error(logits, expect_logits.data(), expect_logits.size()), tol.logits) << name << " logits";
  if (f.find("expect/pooled")) {  // a classifier's pooled vectors, what its output layer reads
    const std::vector<float> expect_pooled = f.floats<float>("expect/pooled");
    ASSERT_NE(model.pooled(), nullptr);
    EXPECT_LT(max_rel_error(model.pooled(), expect_pooled.data(), expect_pooled.size()), tol.logits) << name << " pooled";
  }

  // Loss and gradients.
  arena.reset();
  model.parameters().zero_grads();
  StepOptions opt;
  opt.label_smoothing = smoothing;
  const LossTotals totals = model.forward_backward(batch, opt, arena);
  const double loss = totals.loss / totals.tokens;
  const double expect_loss = f.floats<double>("expect/loss")[0];
  EXPECT_LT(std::abs(loss - expect_loss) / expect_loss, tol.loss) << name << " loss " << loss << " vs " << expect_loss;

  double global_grad_scale = 0;
  for (const auto& spec : model.parameters().specs())
    for (double g : f.floats<double>("grad/" + spec.name)) global_grad_scale = std::max(global_grad_scale, std::abs(g));
  for (std::size_t i = 0; i < model.parameters().specs().size(); ++i) {
    const ParamSpec& spec = model.parameters().specs()[i];
    const std::vector<double> expect = f.floats<double>("grad/" + spec.name);
    // The floor keeps exactly-zero gradients (k_proj biases) from turning rounding noise into relative error.
    const double err = max_rel_error(model.parameters().grads() + model.parameters().offset(i), expect.data(),
                                      expect.size(), 1e-3 * global_grad_scale);
    EXPECT_LT(err, tol.grads) << name << " gradient of " << spec.name;
  }

  // Ten Adam steps with the paper's schedule.
  const std::vector<double> expect_losses = f.floats<double>("expect/adam_losses");
  ASSERT_EQ(expect_losses.size(), 11u);
  AdamConfig adam_config{std::stod(f.metadata("adam_beta1")), std::stod(f.metadata("adam_beta2")),
                         std::stod(f.metadata("adam_eps"))};
  Adam<T> adam(model.parameters().size(), adam_config);
  LrSchedule schedule;
  schedule.scale = std::stod(f.metadata("lr_scale"));
  schedule.warmup_steps = std::stoi(f.metadata("warmup_steps"));
  schedule.d_model = config.d_model;
  for (int step = 1; step <= 11; ++step) {
    arena.reset();
    model.parameters().zero_grads();
    const LossTotals t = model.forward_backward(batch, opt, arena);
    const double l = t.loss / t.tokens;
    EXPECT_LT(std::abs(l - expect_losses[step - 1]) / expect_losses[step - 1], tol.adam)
        << name << " loss before Adam update " << step;
    if (step <= 10) adam.step(model.parameters().values(), model.parameters().grads(), schedule.at(step));
  }
}

TEST(Parity, PostNormTiedFloat) { check_parity<float>("parity_postnorm_tied.safetensors", {1e-5, 1e-5, 1e-4, 1e-4}); }
TEST(Parity, PreNormUntiedFloat) { check_parity<float>("parity_prenorm_untied.safetensors", {1e-5, 1e-5, 1e-4, 1e-4}); }
// In double precision the only difference left is the fixture's float32 rounding of its expected values.
TEST(Parity, PostNormTiedDouble) { check_parity<double>("parity_postnorm_tied.safetensors", {1e-6, 1e-6, 1e-5, 1e-5}); }
TEST(Parity, PreNormUntiedDouble) { check_parity<double>("parity_prenorm_untied.safetensors", {1e-6, 1e-6, 1e-5, 1e-5}); }

// Decoder-only: pre-norm with the embedding tied to the output layer; post-norm, untied, with an output bias.
TEST(Parity, DecoderOnlyPreNormTiedFloat) {
  check_parity<float>("parity_decoder_only_prenorm.safetensors", {1e-5, 1e-5, 1e-4, 1e-4});
}
TEST(Parity, DecoderOnlyPostNormUntiedFloat) {
  check_parity<float>("parity_decoder_only_postnorm.safetensors", {1e-5, 1e-5, 1e-4, 1e-4});
}
TEST(Parity, DecoderOnlyPreNormTiedDouble) {
  check_parity<double>("parity_decoder_only_prenorm.safetensors", {1e-6, 1e-6, 1e-5, 1e-5});
}
TEST(Parity, DecoderOnlyPostNormUntiedDouble) {
  check_parity<double>("parity_decoder_only_postnorm.safetensors", {1e-6, 1e-6, 1e-5, 1e-5});
}
// GPT-2's style: learned positions (decoder/positions/weight, 12 rows), unscaled embeddings, pre-norm, tied.
TEST(Parity, DecoderOnlyLearnedPositionsFloat) {
  check_parity<float>("parity_decoder_only_learned.safetensors", {1e-5, 1e-5, 1e-4, 1e-4});
}
TEST(Parity, DecoderOnlyLearnedPositionsDouble) {
  check_parity<double>("parity_decoder_only_learned.safetensors", {1e-6, 1e-6, 1e-5, 1e-5});
}

// An encoder-only model (BERT's shape): post-norm, learned positions, token types, the embedding norm, GELU
// and the masked-LM head over the masked positions.
TEST(Parity, EncoderOnlyMaskedLmFloat) {
  check_parity<float>("parity_encoder_only_mlm.safetensors", {1e-5, 1e-5, 1e-4, 1e-4});
}
TEST(Parity, EncoderOnlyMaskedLmDouble) {
  check_parity<double>("parity_encoder_only_mlm.safetensors", {1e-6, 1e-6, 1e-5, 1e-5});
}

// Encoder-only classifiers: [CLS] through the tanh pooler with softmax cross-entropy; mean pooling with a
// sigmoid per class (multi-label).
TEST(Parity, EncoderOnlyClassifierFloat) {
  check_parity<float>("parity_encoder_only_classifier.safetensors", {1e-5, 1e-5, 1e-4, 1e-4});
}
TEST(Parity, EncoderOnlyClassifierDouble) {
  check_parity<double>("parity_encoder_only_classifier.safetensors", {1e-6, 1e-6, 1e-5, 1e-5});
}
TEST(Parity, EncoderOnlyMultiLabelClassifierFloat) {
  check_parity<float>("parity_encoder_only_multilabel.safetensors", {1e-5, 1e-5, 1e-4, 1e-4});
}
TEST(Parity, EncoderOnlyMultiLabelClassifierDouble) {
  check_parity<double>("parity_encoder_only_multilabel.safetensors", {1e-6, 1e-6, 1e-5, 1e-5});
}

TEST(Parity, ImportedNnTransformerMatchesPyTorch) {
  const SafetensorsFile f = SafetensorsFile::read(fixture("torch_nn_transformer.safetensors"));
  NnTransformerImportOptions options;
  options.n_heads = std::stoi(f.metadata("n_heads"));
  options.layer_norm_eps = std::stof(f.metadata("layer_norm_eps"));
  auto model = import_nn_transformer(f, options);
  EXPECT_EQ(model->config().encoder_layers, 2);
  EXPECT_EQ(model->config().decoder_layers, 2);
  EXPECT_EQ(model->config().tgt_vocab_size, 23);
  const Batch batch = test::fixture_batch(f);
  Arena arena;
  const float* logits = model->logits(batch, arena);
  const std::vector<float> expect = test::expected_logits(f, batch);
  EXPECT_LT(max_rel_error(logits, expect.data(), expect.size()), 1e-5);
}

}  // namespace
}  // namespace heptapod
