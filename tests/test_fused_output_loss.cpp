// The output layer fused with its loss (LanguageModelHead::fused_loss): over a vocabulary wide enough that the
// logits come in several chunks of rows, every row's loss and -log p, the gradient at the stack's output and the
// projection's gradient against the unfused path (the whole logit matrix, OutputHead's default), and the arena's
// high-water mark below one full logit matrix.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "heptapod/core/arena.h"
#include "heptapod/core/random.h"
#include "heptapod/model/language_model_head.h"
#include "heptapod/model/parameter_names.h"

namespace heptapod {
namespace {

struct HeadRun {
  LossTotals totals;
  std::vector<float> nll, dhidden, dweight;  // (N), (N, C), (V, C)
  std::size_t arena_bytes = 0;               // the arena's capacity after the run: its high-water mark + 25%
};

TEST(FusedOutputLoss, ChunksEqualTheWholeLogitMatrix) {
  ModelConfig config = one_stack_config(model_preset("tiny"), Architecture::DecoderOnly, 40000);
  config.output_bias = true;
  const int V = config.tgt_vocab_size, C = config.d_model;
  ParameterStore<float> params(parameter_layout(config));
  Rng rng(7);
  for (std::size_t i = 0; i < params.size(); ++i) params.values()[i] = static_cast<float>(rng.uniform() - 0.5);
  LanguageModelHead<float> head(params, config);

  Batch batch;  // 4 sequences of 500 targets: 2000 rows, more than one chunk of a 40000-wide vocabulary
  batch.B = 4;
  batch.T = 500;
  batch.tgt_in.resize(batch.B * batch.T);
  batch.tgt_out.resize(batch.B * batch.T);
  for (int& t : batch.tgt_in) t = 3 + static_cast<int>(rng.uniform() * (V - 3));
  for (int& t : batch.tgt_out) t = 3 + static_cast<int>(rng.uniform() * (V - 3));
  batch.tgt_len.assign(batch.B, batch.T);
  batch.src_len.assign(batch.B, 0);
  const PackedBatch packed(batch);
  const int N = head.rows(packed);
  const std::size_t chunk_rows = LanguageModelHead<float>::kFusedChunkBytes / (sizeof(float) * V);
  ASSERT_LT(chunk_rows * 2, static_cast<std::size_t>(N) + chunk_rows) << "the batch must span several chunks";
  std::vector<float> hidden(static_cast<std::size_t>(N) * C);  // (N, C)
  for (float& x : hidden) x = static_cast<float>(2 * rng.uniform() - 1);

  const std::string weight = output_projection_name(config);
  auto run = [&](bool fused) {
    HeadRun r;
    std::fill(params.grads(), params.grads() + params.size(), 0.0f);
    r.nll.resize(N);
    Arena arena;
    float* dhidden = nullptr;
    r.totals = fused ? head.fused_loss(hidden.data(), packed, 0.1f, 1.0f / N, r.nll.data(), &dhidden, arena)
                     : head.OutputHead<float>::fused_loss(hidden.data(), packed, 0.1f, 1.0f / N, r.nll.data(),
                                                          &dhidden, arena);
    r.dhidden.assign(dhidden, dhidden + static_cast<std::size_t>(N) * C);
    const float* dw = params.grad(weight);
    r.dweight.assign(dw, dw + static_cast<std::size_t>(V) * C);
    arena.reset();
    r.arena_bytes = arena.capacity();
    return r;
  };
  const HeadRun whole = run(false), chunked = run(true);

  EXPECT_EQ(chunked.totals.tokens, whole.totals.tokens);
  EXPECT_EQ(chunked.totals.correct, whole.totals.correct);
  EXPECT_NEAR(chunked.totals.loss, whole.totals.loss, 1e-9 * std::abs(whole.totals.loss));
  EXPECT_NEAR(chunked.totals.nll, whole.totals.nll, 1e-9 * std::abs(whole.totals.nll));
  auto max_difference = [](const std::vector<float>& a, const std::vector<float>& b) {
    double worst = 0, scale = 0;
    for (std::size_t i = 0; i < a.size(); ++i) {
      worst = std::max(worst, std::abs(static_cast<double>(a[i]) - b[i]));
      scale = std::max(scale, std::abs(static_cast<double>(b[i])));
    }
    return worst / std::max(scale, 1e-30);
  };
  EXPECT_LT(max_difference(chunked.nll, whole.nll), 1e-6);
  EXPECT_LT(max_difference(chunked.dhidden, whole.dhidden), 1e-5);
  EXPECT_LT(max_difference(chunked.dweight, whole.dweight), 1e-5);
  // The unfused run held the whole (N, V) matrix; the fused one a chunk of it.
  const std::size_t logit_bytes = sizeof(float) * static_cast<std::size_t>(N) * V;
  EXPECT_GE(whole.arena_bytes, logit_bytes);
  EXPECT_LT(chunked.arena_bytes, logit_bytes * 3 / 4);
}

}  // namespace
}  // namespace heptapod
