// A decoder-only model (a causal stack and its output layer): its cached one-position steps, through a plain
// key/value cache written here with naive loops, give the full forward pass's logits; the searches continue a
// prompt with it; its batches read no source; and it refuses what needs an encoder with a clear error.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "decode_models.h"
#include "heptapod/core/error.h"
#include "heptapod/decode/beam_search.h"
#include "heptapod/decode/sampling_search.h"
#include "heptapod/layers/attention_step.h"
#include "heptapod/model/initialize.h"
#include "heptapod/model/transformer.h"
#include "test_util.h"

namespace heptapod {
namespace {

// Self-attention over every key and value a row has cached, in plain loops: one row per sequence, all rows at
// the same position.
class NaiveSelfCache final : public AttentionCache<float> {
 public:
  NaiveSelfCache(int layers, int rows, int C, int heads) : rows_(rows), C_(C), H_(heads), kv_(layers) {}
  void attend_self(int layer, const float* q, int ldq, const float* kv, int ldkv, float* context) override {
    std::vector<float>& store = kv_[layer];  // (positions, rows, 2C)
    for (int r = 0; r < rows_; ++r) store.insert(store.end(), kv + static_cast<long>(r) * ldkv, kv + static_cast<long>(r) * ldkv + 2 * C_);
    const int positions = static_cast<int>(store.size() / (static_cast<std::size_t>(rows_) * 2 * C_));
    const int D = C_ / H_;
    for (int r = 0; r < rows_; ++r)
      for (int h = 0; h < H_; ++h) {
        std::vector<double> p(positions);
        double top = -INFINITY, z = 0;
        for (int j = 0; j < positions; ++j) {
          const float* k = store.data() + (static_cast<std::size_t>(j) * rows_ + r) * 2 * C_ + h * D;
          double s = 0;
          for (int d = 0; d < D; ++d) s += static_cast<double>(q[static_cast<long>(r) * ldq + h * D + d]) * k[d];
          p[j] = s / std::sqrt(static_cast<double>(D));
          top = std::max(top, p[j]);
        }
        for (double& x : p) z += x = std::exp(x - top);
        for (int d = 0; d < D; ++d) {
          double c = 0;
          for (int j = 0; j < positions; ++j)
            c += p[j] / z * store[(static_cast<std::size_t>(j) * rows_ + r) * 2 * C_ + C_ + h * D + d];
          context[static_cast<long>(r) * C_ + h * D + d] = static_cast<float>(c);
        }
      }
  }
  void attend_source(int, const float*, int, float*) override { FAIL() << "a decoder-only model has no source"; }

 private:
  int rows_, C_, H_;
  std::vector<std::vector<float>> kv_;  // per layer
};

// The decoding tests' small model as a language model: its decoder alone, 3 layers, 37 tokens.
ModelConfig lm_config(NormPosition norm, EmbeddingTying tie) {
  ModelConfig c = test::decode_config(norm, tie);
  c.decoder_layers = 3;
  return one_stack_config(c, Architecture::DecoderOnly, 37);
}

TEST(DecoderOnly, CachedStepsGiveTheFullForwardPassLogits) {
  for (const auto& [norm, tie] : {std::pair{NormPosition::Post, EmbeddingTying::TargetOutput},
                                  std::pair{NormPosition::Pre, EmbeddingTying::None}}) {
    const ModelConfig c = lm_config(norm, tie);
    Transformer<float> model(c);
    initialize_parameters(model.parameters(), c, 21);
    const std::vector<std::vector<int>> text = {{5, 6, 7, 8, 9, 10}, {30, 4, 4, 12, 33, 3}};  // two rows, 6 tokens
    const Batch batch = make_batch({{}, {}}, text, c);
    ASSERT_EQ(batch.S, 0);
    Arena arena;
    const float* full = model.logits(batch, arena);  // (B*T, V)
    const int V = c.tgt_vocab_size, T = batch.T, rows = 2;

    model.prepare_decoding();
    NaiveSelfCache cache(c.decoder_layers, rows, c.d_model, c.n_heads);
    Arena step_arena;
    double worst = 0;
    for (int t = 0; t < T; ++t) {
      const std::vector<int> tokens = {batch.tgt_in[t], batch.tgt_in[T + t]}, positions(rows, t);
      step_arena.reset();
      const float* x = model.decode_step(tokens.data(), positions.data(), rows, cache, step_arena);  // (rows, C)
      for (const auto& [v0, n] : model.output_column_blocks()) {
        std::vector<float> logits(static_cast<std::size_t>(rows) * n);  // (rows, n)
        model.project_output_columns(x, rows, v0, n, logits.data());
        for (int r = 0; r < rows; ++r)
          for (int v = 0; v < n; ++v) {
            const float expect = full[(static_cast<long>(r) * T + t) * V + v0 + v];
            worst = std::max(worst, std::abs(static_cast<double>(logits[r * n + v] - expect)) / (1 + std::abs(expect)));
          }
      }
    }
    EXPECT_LT(worst, 1e-5);
  }
}

TEST(DecoderOnly, RefusesWhatNeedsAnEncoder) {
  const ModelConfig c = lm_config(NormPosition::Post, EmbeddingTying::TargetOutput);
  Transformer<float> model(c);
  Arena arena;
  const int src[] = {4}, len[] = {1};
  try {
    model.encode(src, 1, 1, len, arena);
    FAIL() << "encode() ran without an encoder";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("a decoder-only model has no encoder"), std::string::npos) << e.what();
  }
  EXPECT_THROW(make_batch({{4, 5}}, {{6}}, c), Error);  // a source for a model that reads none
  // An encoder-only model reads sources alone, and without a head has no loss of its own.
  ModelConfig encoder_only = one_stack_config(model_preset("tiny"), Architecture::EncoderOnly, 20);
  Transformer<float> encoder(encoder_only);
  const Batch b = make_batch({{4, 5}}, {{6}}, model_preset("tiny"));
  try {
    encoder.evaluate(b, 0.0f, arena);
    FAIL() << "an encoder-only model read a target side";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("an encoder-only model reads sources alone"), std::string::npos) << e.what();
  }
  Batch sources;
  sources.B = 1;
  sources.S = 2;
  sources.src = {4, 5};
  sources.src_len = {2};
  sources.tgt_len = {0};
  try {
    encoder.evaluate(sources, 0.0f, arena);
    FAIL() << "an encoder-only model without a head computed a loss";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("without a head has no loss of its own"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace heptapod

namespace heptapod {
namespace {

// The searches run a decoder-only model too: a prompt given as the forced prefix, greedy search continues it
// with the full forward pass's most likely tokens.
TEST(DecoderOnly, GreedySearchContinuesAPromptWithTheMostLikelyTokens) {
  const ModelConfig c = lm_config(NormPosition::Pre, EmbeddingTying::TargetOutput);
  Transformer<float> model(c);
  initialize_parameters(model.parameters(), c, 22);
  IncrementalDecoder decoder(model);
  SearchOptions o;
  o.beam = 1;
  o.max_extra_length = 7;
  o.cache = CachePrecision::Float32;
  const std::vector<std::vector<int>> prompts = {{5, 9, 12}, {20}, {}};
  const auto out = beam_search(decoder, {{}, {}, {}}, o, prompts);
  const std::vector<int> banned = banned_output_ids(c);
  for (std::size_t i = 0; i < prompts.size(); ++i) {
    const std::vector<int>& y = out[i][0].tokens;
    ASSERT_GE(y.size(), prompts[i].size());
    EXPECT_TRUE(std::equal(prompts[i].begin(), prompts[i].end(), y.begin()));
    const Batch b = make_batch({{}}, {y}, c);
    Arena arena;
    const float* logits = model.logits(b, arena);  // (T, V)
    for (std::size_t t = prompts[i].size(); t < y.size(); ++t) {
      const float* row = logits + t * c.tgt_vocab_size;
      int best = -1;
      for (int v = 0; v < c.tgt_vocab_size; ++v)
        if (std::find(banned.begin(), banned.end(), v) == banned.end() && (best < 0 || row[v] > row[best])) best = v;
      EXPECT_EQ(y[t], best) << "prompt " << i << " position " << t;
    }
  }
  // And samples: reproducible, beginning with the prompt.
  const auto a = sample_search(decoder, {{}, {}, {}}, o, SamplingOptions{1.0f, 0, 1.0f, 3}, prompts);
  const auto again = sample_search(decoder, {{}, {}, {}}, o, SamplingOptions{1.0f, 0, 1.0f, 3}, prompts);
  for (std::size_t i = 0; i < prompts.size(); ++i) EXPECT_EQ(a[i][0].tokens, again[i][0].tokens);
}

}  // namespace
}  // namespace heptapod
