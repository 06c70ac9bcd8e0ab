// What the search does beyond the paper's beam: forced target prefixes (exactly the prefix, then the model's
// best continuation, checked against full forward passes), the repetition guards, and sampling (temperature 0
// is greedy search, log-probabilities are the model's, draws are reproducible, and in int8 and bfloat16 a
// sentence's samples do not depend on its batch or the thread count).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "decode_models.h"
#include "heptapod/decode/beam_search.h"
#include "heptapod/decode/sampling_search.h"
#include "heptapod/kernels/threads.h"

namespace heptapod {
namespace {

using test::decode_config;
using test::random_model;
using test::sources;

// Prefixes for sources(): of several lengths, one empty (nothing forced).
std::vector<std::vector<int>> prefixes() { return {{7, 8}, {}, {12, 13, 14}, {21}, {9, 9}}; }

// Full forward logits (T, V) of one source and target (the decoder reads bos + target).
std::vector<float> forward_logits(Transformer<float>& model, const std::vector<int>& src, const std::vector<int>& tgt) {
  const Batch b = make_batch({src}, {tgt}, model.config());
  Arena arena;
  const float* l = model.logits(b, arena);
  return std::vector<float>(l, l + static_cast<std::size_t>(b.T) * model.config().tgt_vocab_size);
}

// The model's log-probability of tgt given src (the end token included when `ended`), by a full forward pass.
double forward_log_prob(Transformer<float>& model, const std::vector<int>& src, const std::vector<int>& tgt, bool ended) {
  const Batch b = make_batch({src}, {tgt}, model.config());
  std::vector<float> nll(b.T);
  Arena arena;
  model.evaluate(b, 0.0f, arena, nll.data());
  double lp = 0;
  for (std::size_t t = 0; t < tgt.size() + (ended ? 1 : 0); ++t) lp -= nll[t];
  return lp;
}

class SearchFeatures : public ::testing::TestWithParam<std::pair<NormPosition, EmbeddingTying>> {
 protected:
  // A random model of the parameter's kind and a decoder over it.
  IncrementalDecoder& decoder(std::uint64_t seed) {
    config_ = decode_config(GetParam().first, GetParam().second);
    model_ = random_model(config_, seed);
    decoder_ = std::make_unique<IncrementalDecoder>(*model_);
    return *decoder_;
  }
  ModelConfig config_;
  std::unique_ptr<Transformer<float>> model_;
  std::unique_ptr<IncrementalDecoder> decoder_;
};

SearchOptions search_options(int beam, int nbest, int max_extra_length, CachePrecision cache = CachePrecision::Float16) {
  SearchOptions o;
  o.beam = beam;
  o.nbest = nbest;
  o.max_extra_length = max_extra_length;
  o.cache = cache;
  return o;
}

TEST_P(SearchFeatures, ForcedPrefixThenTheModelsBestContinuation) {
  IncrementalDecoder& dec = decoder(11);
  const ModelConfig& c = config_;
  Transformer<float>& model = *model_;
  const SearchOptions o = search_options(1, 1, 6, CachePrecision::Float32);
  const auto src = sources();
  const auto pre = prefixes();
  const auto out = beam_search(dec, src, o, pre);
  const std::vector<int> banned = banned_output_ids(c);
  for (std::size_t i = 0; i < src.size(); ++i) {
    SCOPED_TRACE("sentence " + std::to_string(i));
    ASSERT_EQ(out[i].size(), 1u);
    const std::vector<int>& y = out[i][0].tokens;
    ASSERT_GE(y.size(), pre[i].size());
    EXPECT_TRUE(std::equal(pre[i].begin(), pre[i].end(), y.begin())) << "the output does not begin with the prefix";
    // After the prefix every token, and the end, is the full forward pass's most likely allowed token.
    const int limit = static_cast<int>(src[i].size()) + o.max_extra_length;
    const bool ended = static_cast<int>(y.size()) < std::max(limit, static_cast<int>(pre[i].size()) + 1);
    const std::vector<float> logits = forward_logits(model, src[i], y);
    const int V = c.tgt_vocab_size;
    for (std::size_t t = pre[i].size(); t < y.size() + (ended ? 1 : 0); ++t) {
      const float* row = logits.data() + t * V;
      int best = -1;
      for (int v = 0; v < V; ++v)
        if (std::find(banned.begin(), banned.end(), v) == banned.end() && (best < 0 || row[v] > row[best])) best = v;
      EXPECT_EQ(t < y.size() ? y[t] : c.eos_id, best) << "position " << t;
    }
    EXPECT_NEAR(out[i][0].log_prob, forward_log_prob(model, src[i], y, ended), 1e-3);
  }
}

TEST_P(SearchFeatures, PrefixedBeamSearchKeepsThePrefixAndBatchesAsOneByOne) {
  IncrementalDecoder& dec = decoder(12);
  const SearchOptions o = search_options(4, 4, 5);
  const auto src = sources();
  const auto pre = prefixes();
  const auto batched = beam_search(dec, src, o, pre);
  for (std::size_t i = 0; i < src.size(); ++i) {
    const auto single = beam_search(dec, {src[i]}, o, {pre[i]});
    ASSERT_EQ(batched[i].size(), single[0].size());
    for (std::size_t h = 0; h < batched[i].size(); ++h) {
      const std::vector<int>& y = batched[i][h].tokens;
      EXPECT_TRUE(y.size() >= pre[i].size() && std::equal(pre[i].begin(), pre[i].end(), y.begin()));
      EXPECT_EQ(y, single[0][h].tokens) << "sentence " << i << " hypothesis " << h;
    }
  }
}

TEST_P(SearchFeatures, NoRepeatNgramLeavesNoNgramTwice) {
  IncrementalDecoder& dec = decoder(13);
  SearchOptions o = search_options(3, 3, 20);
  o.min_length = 15;  // long outputs, which repeat without the guard
  auto repeats = [](const std::vector<int>& y, int n) {
    std::set<std::vector<int>> seen;
    for (std::size_t s = 0; s + n <= y.size(); ++s)
      if (!seen.insert(std::vector<int>(y.begin() + s, y.begin() + s + n)).second) return true;
    return false;
  };
  int unguarded_repeats = 0;
  for (const auto& hyps : beam_search(dec, sources(), o))
    for (const Hypothesis& h : hyps) unguarded_repeats += repeats(h.tokens, 2);
  EXPECT_GT(unguarded_repeats, 0) << "the test needs outputs that repeat a bigram";
  o.guards.no_repeat_ngram = 2;
  for (const auto& hyps : beam_search(dec, sources(), o))
    for (const Hypothesis& h : hyps) EXPECT_FALSE(repeats(h.tokens, 2));
  // The penalty makes repeated tokens rarer in the best hypotheses.
  auto repeated_tokens = [&](const SearchOptions& opt) {
    int n = 0;
    for (const auto& hyps : beam_search(dec, sources(), opt)) n += static_cast<int>(hyps[0].tokens.size() - std::set<int>(hyps[0].tokens.begin(), hyps[0].tokens.end()).size());
    return n;
  };
  SearchOptions penalised = o;
  penalised.guards = RepetitionGuards{3.0f, 0};
  o.guards = RepetitionGuards{};
  EXPECT_LT(repeated_tokens(penalised), repeated_tokens(o));
}

TEST_P(SearchFeatures, SamplingAtTemperatureZeroIsGreedySearch) {
  IncrementalDecoder& dec = decoder(14);
  const SearchOptions o = search_options(1, 1, 6);
  const auto greedy = beam_search(dec, sources(), o, prefixes());
  const auto sampled = sample_search(dec, sources(), o, SamplingOptions{0.0f, 0, 1.0f, 99}, prefixes());
  for (std::size_t i = 0; i < greedy.size(); ++i) EXPECT_EQ(sampled[i][0].tokens, greedy[i][0].tokens) << i;
}

TEST_P(SearchFeatures, SamplesAreReproducibleAndScoredByTheModel) {
  IncrementalDecoder& dec = decoder(15);
  const SearchOptions o = search_options(1, 3, 6, CachePrecision::Float32);
  const auto src = sources();
  const auto a = sample_search(dec, src, o, SamplingOptions{1.0f, 0, 1.0f, 5});
  const auto b = sample_search(dec, src, o, SamplingOptions{1.0f, 0, 1.0f, 5});
  const auto other = sample_search(dec, src, o, SamplingOptions{1.0f, 0, 1.0f, 6});
  int differ = 0;
  for (std::size_t i = 0; i < src.size(); ++i) {
    ASSERT_EQ(a[i].size(), 3u);
    for (std::size_t s = 0; s < 3; ++s) {
      EXPECT_EQ(a[i][s].tokens, b[i][s].tokens);
      differ += a[i][s].tokens != other[i][s].tokens;
      const Hypothesis& h = a[i][s];
      const bool ended = static_cast<int>(h.tokens.size()) < static_cast<int>(src[i].size()) + o.max_extra_length;
      EXPECT_NEAR(h.log_prob, forward_log_prob(*model_, src[i], h.tokens, ended), 1e-3) << "sentence " << i;
    }
  }
  EXPECT_GT(differ, 0) << "another seed draws the same samples";
}

INSTANTIATE_TEST_SUITE_P(Search, SearchFeatures,
                         ::testing::Values(std::pair{NormPosition::Post, EmbeddingTying::All},
                                           std::pair{NormPosition::Pre, EmbeddingTying::None}));

// In int8 and bfloat16 a sentence's samples are the same alone or in any batch, on one thread or two.
TEST(Sampling, LowPrecisionSamplesDoNotDependOnTheBatchOrThreads) {
  const ModelConfig c = decode_config(NormPosition::Post, EmbeddingTying::All);
  for (ComputeType type : {ComputeType::Int8, ComputeType::BFloat16}) {
    SCOPED_TRACE(compute_type_name(type));
    auto model = random_model(c, 16);
    model->pack_for_inference(InferencePrecision{type, false});
    IncrementalDecoder dec(*model);
    const SearchOptions o = search_options(1, 2, 8);
    const SamplingOptions sampling{1.2f, 10, 0.95f, 77};
    const auto src = sources();
    set_num_threads(2);
    const auto batched = sample_search(dec, src, o, sampling);
    set_num_threads(1);
    for (std::size_t i = 0; i < src.size(); ++i) {
      const auto alone = sample_search(dec, {src[i]}, o, sampling);
      for (std::size_t s = 0; s < 2; ++s) EXPECT_EQ(batched[i][s].tokens, alone[0][s].tokens) << "sentence " << i;
    }
    set_num_threads(0);
  }
}

}  // namespace
}  // namespace heptapod
