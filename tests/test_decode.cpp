// Incremental decoding and beam search: the cached decoder equals full recomputation, beam 1 equals greedy,
// batched search equals one sentence at a time, scores are the model's log-probabilities, and output is
// deterministic.
#include <gtest/gtest.h>

#include <cmath>
#include <optional>

#include "heptapod/decode/beam_search.h"
#include "heptapod/decode/greedy_reference.h"
#include "heptapod/model/initialize.h"
#include "decode_models.h"
#include "test_util.h"

namespace heptapod {
namespace {

using test::decode_config;
using test::random_model;
using test::sources;

class DecodeTest : public ::testing::TestWithParam<std::pair<NormPosition, EmbeddingTying>> {};

// The worst relative error of the incremental decoder's log-probabilities (every token, teacher-forced)
// against a full forward pass of the same model (packed for inference, in that precision, when asked).
double worst_incremental_error(const ModelConfig& c, CachePrecision cache,
                               std::optional<InferencePrecision> packed = std::nullopt) {
  auto model = random_model(c, 3);
  if (packed) model->pack_for_inference(*packed);
  const auto src = sources();
  // Teacher-forced targets of different lengths.
  std::vector<std::vector<int>> tgt = {{4, 5, 6, 7}, {8, 9}, {10, 11, 12, 13, 14, 15}, {16}, {17, 18, 19}};
  const Batch batch = make_batch(src, tgt, c);
  Arena arena;
  const float* logits = model->logits(batch, arena);  // (B*T, V)

  IncrementalDecoder dec(*model);
  dec.start(batch.src.data(), batch.B, batch.S, batch.src_len.data(), 1, batch.T, cache);
  const int V = c.tgt_vocab_size;
  double worst = 0;
  for (int t = 0; t < batch.T; ++t) {
    std::vector<int> tokens(batch.B);
    for (int b = 0; b < batch.B; ++b) tokens[b] = batch.tgt_in[b * batch.T + t];
    const NextTokens& next = dec.step(tokens, V);  // every token, best first
    std::vector<float> logp(static_cast<std::size_t>(batch.B) * V);  // (B, V) by token id
    for (int b = 0; b < batch.B; ++b)
      for (int i = 0; i < V; ++i) logp[static_cast<std::size_t>(b) * V + next.ids[b * V + i]] = next.log_probs[b * V + i];
    for (int b = 0; b < batch.B; ++b) {
      if (t >= batch.tgt_len[b]) continue;  // past the sentence: padding tokens, not compared
      const float* row = logits + (static_cast<long>(b) * batch.T + t) * V;
      double m = row[0], z = 0;
      for (int v = 1; v < V; ++v) m = std::max<double>(m, row[v]);
      for (int v = 0; v < V; ++v) z += std::exp(row[v] - m);
      std::vector<double> expect(V);
      for (int v = 0; v < V; ++v) expect[v] = row[v] - m - std::log(z);
      worst = std::max(worst, test::max_rel_error(logp.data() + static_cast<long>(b) * V, expect.data(), V));
    }
  }
  return worst;
}

TEST_P(DecodeTest, IncrementalLogProbsEqualFullRecomputation) {
  const ModelConfig c = decode_config(GetParam().first, GetParam().second);
  EXPECT_LT(worst_incremental_error(c, CachePrecision::Float32), 1e-5);
  // Half-precision keys and values: close, not equal (11 significant bits per cached value).
  const double half = worst_incremental_error(c, CachePrecision::Float16);
  EXPECT_LT(half, 5e-3);
  EXPECT_GT(half, 0.0);  // the half cache is really in use
}

// One decoder code path: the incremental decoder runs the layers' own products, so low-precision weights
// give it what they give the full forward pass (int8 rows are quantized one token at a time either way).
TEST_P(DecodeTest, IncrementalEqualsFullRecomputationInLowPrecision) {
  const ModelConfig c = decode_config(GetParam().first, GetParam().second);
  for (ComputeType type : {ComputeType::Int8, ComputeType::BFloat16})
    EXPECT_LT(worst_incremental_error(c, CachePrecision::Float32, InferencePrecision{type, false}), 1e-5)
        << compute_type_name(type);
}

TEST_P(DecodeTest, BeamOneEqualsGreedy) {
  const ModelConfig c = decode_config(GetParam().first, GetParam().second);
  auto model = random_model(c, 4);
  IncrementalDecoder dec(*model);
  SearchOptions o;
  o.beam = 1;
  o.max_extra_length = 8;
  const auto src = sources();
  const auto out = beam_search(dec, src, o);
  Arena arena;
  for (std::size_t i = 0; i < src.size(); ++i) {
    const auto expect = greedy_reference(*model, src[i], static_cast<int>(src[i].size()) + 8, arena);
    ASSERT_EQ(out[i].size(), 1u);
    EXPECT_EQ(out[i][0].tokens, expect) << "sentence " << i;
  }
}

TEST_P(DecodeTest, MinLengthBansTheEndTokenUntilReached) {
  const ModelConfig c = decode_config(GetParam().first, GetParam().second);
  auto model = random_model(c, 6);
  IncrementalDecoder dec(*model);
  SearchOptions o;
  o.max_extra_length = 0;  // outputs stop at the source length...
  o.min_length = 1000;     // ...and may not end before: every output is exactly as long as its source
  const auto src = sources();
  const auto out = beam_search(dec, src, o);
  for (std::size_t i = 0; i < src.size(); ++i) {
    ASSERT_FALSE(out[i].empty());
    EXPECT_EQ(out[i][0].tokens.size(), std::max<std::size_t>(src[i].size(), 1)) << "sentence " << i;
    for (int t : out[i][0].tokens) EXPECT_NE(t, c.eos_id);
  }
}

TEST_P(DecodeTest, BatchedBeamEqualsOneByOneAndIsDeterministic) {
  const ModelConfig c = decode_config(GetParam().first, GetParam().second);
  auto model = random_model(c, 5);
  IncrementalDecoder dec(*model);
  SearchOptions o;
  o.beam = 4;
  o.nbest = 4;
  o.max_extra_length = 6;
  const auto src = sources();
  const auto batched = beam_search(dec, src, o);
  const auto again = beam_search(dec, src, o);
  for (std::size_t i = 0; i < src.size(); ++i) {
    const auto single = beam_search(dec, {src[i]}, o);
    ASSERT_EQ(batched[i].size(), single[0].size()) << "sentence " << i;
    ASSERT_FALSE(batched[i].empty());
    for (std::size_t h = 0; h < batched[i].size(); ++h) {
      EXPECT_EQ(batched[i][h].tokens, single[0][h].tokens) << "sentence " << i << " hypothesis " << h;
      EXPECT_NEAR(batched[i][h].score, single[0][h].score, 1e-4);
      EXPECT_EQ(batched[i][h].tokens, again[i][h].tokens);
      EXPECT_EQ(batched[i][h].score, again[i][h].score);
    }
    for (std::size_t h = 1; h < batched[i].size(); ++h) EXPECT_GE(batched[i][h - 1].score, batched[i][h].score);
  }
}

TEST_P(DecodeTest, EmptySourcesAloneDecodeOnAFreshDecoder) {
  const ModelConfig c = decode_config(GetParam().first, GetParam().second);
  auto model = random_model(c, 5);
  IncrementalDecoder dec(*model);  // nothing sized yet: no earlier batch left its caches behind
  SearchOptions o;
  o.max_extra_length = 4;
  const auto out = beam_search(dec, {{}, {}}, o);
  ASSERT_EQ(out.size(), 2u);
  for (const auto& hyps : out) {
    ASSERT_FALSE(hyps.empty());
    EXPECT_LE(hyps[0].tokens.size(), 4u);
  }
}

TEST_P(DecodeTest, HypothesisScoresAreTheModelsLogProbabilities) {
  const ModelConfig c = decode_config(GetParam().first, GetParam().second);
  auto model = random_model(c, 6);
  IncrementalDecoder dec(*model);
  SearchOptions o;
  o.beam = 3;
  o.nbest = 3;
  o.max_extra_length = 5;
  const auto src = sources();
  const auto out = beam_search(dec, src, o);
  Arena arena;
  for (std::size_t i = 0; i < src.size(); ++i)
    for (const Hypothesis& h : out[i]) {
      // Full forward pass over the hypothesis: its log-probability (the end token included when it was produced).
      const Batch b = make_batch({src[i]}, {h.tokens}, c);
      std::vector<float> nll(b.T);
      arena.reset();
      model->evaluate(b, 0.0f, arena, nll.data());
      const bool ended = static_cast<int>(h.tokens.size()) < static_cast<int>(src[i].size()) + o.max_extra_length;
      double lp = 0;
      for (std::size_t t = 0; t < h.tokens.size() + (ended ? 1 : 0); ++t) lp -= nll[t];
      EXPECT_NEAR(h.log_prob, lp, 1e-3 * std::max(1.0, std::abs(lp))) << "sentence " << i;
      EXPECT_NEAR(h.score, h.log_prob / length_penalty(static_cast<int>(h.tokens.size()) + (ended ? 1 : 0), 0.6f), 1e-4);
      EXPECT_EQ(h.alignment.size(), h.tokens.size());
    }
}

// A model packed for inference (weights in the GEMM's layout, row-major copies released, a tied embedding read
// through the packed projection) computes what the unpacked model computes, and refuses training.
TEST_P(DecodeTest, PackedModelMatchesTheUnpackedOneAndRefusesTraining) {
  const ModelConfig c = decode_config(GetParam().first, GetParam().second);
  auto plain = random_model(c, 8);
  auto packed = std::make_unique<Transformer<float>>(c);
  std::copy_n(plain->parameters().values(), plain->parameters().size(), packed->parameters().values());
  packed->pack_for_inference();
  ASSERT_TRUE(packed->packed_for_inference());

  const auto src = sources();
  std::vector<std::vector<int>> tgt = {{4, 5, 6, 7}, {8, 9}, {10, 11, 12, 13, 14, 15}, {16}, {17, 18, 19}};
  const Batch batch = make_batch(src, tgt, c);
  Arena a1, a2;
  const float* want = plain->logits(batch, a1);
  const float* got = packed->logits(batch, a2);
  EXPECT_LT(test::max_rel_error(got, want, static_cast<std::size_t>(batch.B) * batch.T * c.tgt_vocab_size), 1e-5);

  SearchOptions o;
  o.beam = 3;
  o.max_extra_length = 6;
  IncrementalDecoder plain_dec(*plain), packed_dec(*packed);
  const auto expect = beam_search(plain_dec, src, o);
  const auto out = beam_search(packed_dec, src, o);
  ASSERT_EQ(out.size(), expect.size());
  for (std::size_t i = 0; i < src.size(); ++i) {
    ASSERT_EQ(out[i].size(), expect[i].size()) << "sentence " << i;
    for (std::size_t k = 0; k < out[i].size(); ++k) {
      EXPECT_EQ(out[i][k].tokens, expect[i][k].tokens) << "sentence " << i << " hypothesis " << k;
      // A sum of float32 log-probabilities over the output: 2e-5 of its size (the GEMM's two layouts round
      // apart by up to 1.8e-4 on a -6.96 hypothesis on an Intel Xeon's oneDNN kernels).
      EXPECT_NEAR(out[i][k].log_prob, expect[i][k].log_prob, 1e-4 + 2e-5 * std::abs(expect[i][k].log_prob))
          << "sentence " << i << " hypothesis " << k;
    }
  }

  StepOptions train;
  train.training = true;
  EXPECT_THROW(packed->forward_backward(batch, train, a2), Error);
  EXPECT_THROW(packed->parameters().values(), Error);
}

// encode() runs large batches in groups of sentences; each sentence's encoding equals encoding it alone.
TEST_P(DecodeTest, EncodingInGroupsEqualsOneSentenceAtATime) {
  const ModelConfig c = decode_config(GetParam().first, GetParam().second);
  auto model = random_model(c, 9);
  const int B = 70, S = 17, C = c.d_model;  // 1190 token rows: several groups
  std::vector<int> src(B * S, c.pad_id), len(B);
  for (int b = 0; b < B; ++b) {
    len[b] = 1 + (b * 7) % S;
    for (int s = 0; s < len[b]; ++s) src[b * S + s] = 4 + (b * 13 + s * 5) % (c.src_vocab_size - 4);
  }
  Arena whole, single;
  const float* all = model->encode(src.data(), B, S, len.data(), whole);  // (B*S, C)
  for (int b = 0; b < B; ++b) {
    single.reset();
    const float* one = model->encode(src.data() + b * S, 1, S, len.data() + b, single);  // (S, C)
    // Rows past the sentence's length are padding and not compared.
    EXPECT_LT(test::max_rel_error(all + static_cast<long>(b) * S * C, one, static_cast<std::size_t>(len[b]) * C), 1e-5)
        << "sentence " << b;
  }
}

TEST(Decode, LargeVocabularyIsScoredBlockByBlock) {
  ModelConfig c = decode_config(NormPosition::Post, EmbeddingTying::All);
  c.src_vocab_size = c.tgt_vocab_size = 20000;  // more than two blocks, the last one partial
  EXPECT_GT(Transformer<float>(c).output_column_blocks().size(), 2u);
  EXPECT_LT(worst_incremental_error(c, CachePrecision::Float32), 1e-5);
  EXPECT_LT(worst_incremental_error(c, CachePrecision::Float32, InferencePrecision{}), 1e-5);
}

// The pad and start tokens are never emitted, however likely the model makes them (an output bias of +30 on
// each), by beam search and by the greedy oracle alike; with the start token equal to the end token (fairseq)
// only pad is banned, so the end token still ends the output.
TEST(Decode, PadAndStartTokensAreNeverEmitted) {
  ModelConfig c = decode_config(NormPosition::Post, EmbeddingTying::None);
  auto model = random_model(c, 5);
  float* bias = model->parameters().value("decoder/output_proj/bias");
  bias[c.pad_id] += 30;
  bias[c.bos_id] += 30;
  IncrementalDecoder dec(*model);
  Arena arena;
  for (int beam : {1, 4}) {
    SearchOptions o;
    o.beam = beam;
    o.max_extra_length = 6;
    for (const auto& out : beam_search(dec, sources(), o))
      for (int t : out[0].tokens) EXPECT_TRUE(t != c.pad_id && t != c.bos_id) << "beam " << beam << " emitted " << t;
  }
  for (const auto& s : sources())
    for (int t : greedy_reference(*model, s, static_cast<int>(s.size()) + 6, arena))
      EXPECT_TRUE(t != c.pad_id && t != c.bos_id) << "greedy emitted " << t;
  EXPECT_EQ(banned_output_ids(c), (std::vector<int>{c.pad_id, c.bos_id}));
  c.bos_id = c.eos_id;
  EXPECT_EQ(banned_output_ids(c), std::vector<int>{c.pad_id});
}

INSTANTIATE_TEST_SUITE_P(Decode, DecodeTest,
                         ::testing::Values(std::pair{NormPosition::Post, EmbeddingTying::All},
                                           std::pair{NormPosition::Pre, EmbeddingTying::None}));

}  // namespace
}  // namespace heptapod
