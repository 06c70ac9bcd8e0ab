// The decoder state (decode/incremental_decoder.h) with rows at their own positions: a run of tokens fed in
// one pass (a prompt's prefill) gives the logits of feeding them one at a time and of the full forward pass;
// rows that join a running state, and rows left after others were dropped, decode as they would alone; the
// cache grows past start()'s room and reuses what dropped rows freed. The reference is the full forward
// pass (Transformer::logits) of each row's tokens alone.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "decode_models.h"
#include "heptapod/core/error.h"
#include "heptapod/decode/incremental_decoder.h"

namespace heptapod {
namespace {

constexpr float kTolerance = 1e-4f;

// The logits (V) after the last of `fed` (bos first), from the full forward pass of the row alone.
std::vector<float> reference_logits(Transformer<float>& model, const std::vector<int>& source, const std::vector<int>& fed) {
  const ModelConfig& c = model.config();
  const std::vector<int> target(fed.begin() + 1, fed.end());
  const Batch batch = make_batch({source}, {target}, c);
  Arena arena;
  const float* logits = model.logits(batch, arena);  // (T, V)
  const float* row = logits + (fed.size() - 1) * c.tgt_vocab_size;
  return {row, row + c.tgt_vocab_size};
}

// Every row's logits (rows, V) against its reference: sources[sentence_of(r)] and fed[r].
void expect_rows_match(IncrementalDecoder& decoder, Transformer<float>& model, const float* logits,
                       const std::vector<std::vector<int>>& sources, const std::vector<std::vector<int>>& fed,
                       const std::string& where) {
  const int V = decoder.vocabulary_size();
  ASSERT_EQ(static_cast<int>(fed.size()), decoder.rows()) << where;
  for (int r = 0; r < decoder.rows(); ++r) {
    ASSERT_EQ(decoder.length(r), static_cast<int>(fed[r].size())) << where << " row " << r;
    const std::vector<float> want = reference_logits(model, sources[decoder.sentence_of(r)], fed[r]);
    for (int v = 0; v < V; ++v)
      ASSERT_NEAR(logits[static_cast<long>(r) * V + v], want[v], kTolerance) << where << " row " << r << " token " << v;
  }
}

ModelConfig language_model_config() {
  ModelConfig c = test::decode_config(NormPosition::Pre, EmbeddingTying::TargetOutput);
  c.decoder_layers = 3;
  return one_stack_config(c, Architecture::DecoderOnly, 37);
}

TEST(DecoderState, PrefillInOnePassEqualsTokenByTokenAndTheFullForwardPass) {
  const ModelConfig c = language_model_config();
  auto model = test::random_model(c, 31);
  const int bos = c.bos_id;
  std::vector<std::vector<int>> prompts = {{bos, 5, 9, 12, 30}, {bos}, {bos, 20, 21}};
  const std::vector<std::vector<int>> none = {{}, {}, {}};
  const std::vector<int> lengths = {0, 0, 0};
  IncrementalDecoder decoder(*model), one_by_one(*model);
  decoder.start(nullptr, 3, 0, lengths.data(), 1, 12, CachePrecision::Float32);
  const float* logits = decoder.feed_logits(prompts);  // (3, V): each prompt in one pass, rows at 5, 1 and 3
  expect_rows_match(decoder, *model, logits, none, prompts, "prefill");
  // The same prompts a token at a time (the longest decides the steps; a row whose prompt is over repeats
  // nothing: each row here starts alone).
  for (int row = 0; row < 3; ++row) {
    one_by_one.start(nullptr, 1, 0, lengths.data(), 1, 12, CachePrecision::Float32);
    const float* step = nullptr;
    for (const int t : prompts[row]) step = one_by_one.step_logits({t});
    for (int v = 0; v < c.tgt_vocab_size; ++v)
      EXPECT_NEAR(step[v], logits[static_cast<long>(row) * c.tgt_vocab_size + v], kTolerance) << "row " << row;
  }
  // Then rows at different positions step together, and a second run per row continues each.
  for (auto& p : prompts) p.push_back(7);
  logits = decoder.step_logits({7, 7, 7});
  expect_rows_match(decoder, *model, logits, none, prompts, "step after prefill");
  const std::vector<std::vector<int>> more = {{8}, {3, 4, 5, 6}, {11, 12}};
  for (int r = 0; r < 3; ++r) prompts[r].insert(prompts[r].end(), more[r].begin(), more[r].end());
  logits = decoder.feed_logits(more);
  expect_rows_match(decoder, *model, logits, none, prompts, "second runs");
}

TEST(DecoderState, RowsJoinAndLeaveARunningTranslationState) {
  {
    const CachePrecision precision = CachePrecision::Float32;
    const ModelConfig c = test::decode_config(NormPosition::Post, EmbeddingTying::All);
    auto model = test::random_model(c, 32);
    const int bos = c.bos_id;
    // Raw sources (the reference pads them itself); the decoder gets them padded.
    std::vector<std::vector<int>> sources = {{5, 6, 7, 8}, {11, 4}};
    IncrementalDecoder decoder(*model);
    const PaddedSources first = pad_sources(sources, c);
    // Two sentences, two rows each (room for 4 rows x 6 positions), three steps.
    decoder.start(first.tokens.data(), 2, first.S, first.lengths.data(), 2, 6, precision);
    std::vector<std::vector<int>> fed(4, std::vector<int>{bos});
    const float* logits = decoder.step_logits({bos, bos, bos, bos});
    expect_rows_match(decoder, *model, logits, sources, fed, "first step");
    for (int step = 0; step < 2; ++step) {
      std::vector<int> tokens = {9 + step, 10, 12 + step, 13};
      for (int r = 0; r < 4; ++r) fed[r].push_back(tokens[r]);
      logits = decoder.step_logits(tokens);
    }
    expect_rows_match(decoder, *model, logits, sources, fed, "three steps");
    // Sentence 0 leaves (its cross keys/values are compacted away) and sentence 1's first row is doubled.
    decoder.reorder({2, 3, 2});
    fed = {fed[2], fed[3], fed[2]};
    // A longer sentence joins with one row; it feeds a run of three tokens while the others feed one.
    sources.push_back({3, 4, 5, 6, 7, 8, 9, 10});
    const PaddedSources joined = pad_sources({sources.back()}, c);
    EXPECT_EQ(decoder.join(joined.tokens.data(), 1, joined.S, joined.lengths.data(), 1), 2);
    EXPECT_EQ(decoder.padded_source_length(), joined.S);
    std::vector<std::vector<int>> runs = {{14}, {15}, {16}, {bos, 20, 21}};
    fed.push_back({});
    for (int r = 0; r < 4; ++r) fed[r].insert(fed[r].end(), runs[r].begin(), runs[r].end());
    logits = decoder.feed_logits(runs);
    expect_rows_match(decoder, *model, logits, sources, fed, "after join");
    // Past start()'s room: more rows join (slots are reused, then the cache grows) and step to the limit.
    sources.push_back({6, 6, 6});
    sources.push_back({22});
    const PaddedSources later = pad_sources({sources[3], sources[4]}, c);
    decoder.join(later.tokens.data(), 2, later.S, later.lengths.data(), 2);
    for (int r = 0; r < 4; ++r) fed.push_back({});
    runs = {{17}, {18}, {19}, {22}, {bos, 5}, {bos, 6}, {bos}, {bos, 7, 8}};
    for (int r = 0; r < 8; ++r) fed[r].insert(fed[r].end(), runs[r].begin(), runs[r].end());
    logits = decoder.feed_logits(runs);
    expect_rows_match(decoder, *model, logits, sources, fed, "after the second join");
    decoder.reorder({7, 0, 4});
    fed = {fed[7], fed[0], fed[4]};
    logits = decoder.step_logits({25, 26, 27});
    for (int r = 0; r < 3; ++r) fed[r].push_back(25 + r);
    expect_rows_match(decoder, *model, logits, sources, fed, "last step");
    try {
      decoder.step_logits({1, 1, 1});  // row 1 is at 6 positions, the limit
      FAIL() << "stepped past max_steps";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("maximum output length"), std::string::npos) << e.what();
    }
  }
}

TEST(DecoderState, ARowFedNothingStaysWhereItIs) {
  const ModelConfig c = language_model_config();
  auto model = test::random_model(c, 33);
  IncrementalDecoder decoder(*model);
  const std::vector<int> lengths = {0, 0};
  const int bos = c.bos_id;
  decoder.start(nullptr, 2, 0, lengths.data(), 1, 6, CachePrecision::Float32);
  EXPECT_THROW(decoder.feed_logits({{}, {}}), Error);
  EXPECT_THROW(decoder.feed_logits({{bos}}), Error);
  EXPECT_THROW(decoder.feed_logits({{bos}, {c.tgt_vocab_size}}), Error);
  EXPECT_EQ(decoder.length(0), 0);  // nothing changed by the refused calls
  const float* first = decoder.feed_logits({{bos, 5, 6}, {}});  // (2, V): row 1's are zeros
  for (int v = 0; v < c.tgt_vocab_size; ++v) ASSERT_EQ(first[c.tgt_vocab_size + v], 0.0f) << v;
  EXPECT_EQ(decoder.length(0), 3);
  EXPECT_EQ(decoder.length(1), 0);
  // Row 1 catches up in the next pass; both match their full forward passes.
  const float* logits = decoder.feed_logits({{7}, {bos, 9}});
  expect_rows_match(decoder, *model, logits, {{}, {}}, {{bos, 5, 6, 7}, {bos, 9}}, "after catching up");
}

}  // namespace
}  // namespace heptapod
