// Continuous batching (decode/generation_batch.h) against the Generator alone: jobs that join a running batch
// at different steps, beside other jobs of other settings, get exactly the outputs (tokens, text,
// log-probability, why they ended) and streamed pieces that Generator::generate gives each alone, in int8 and
// bfloat16 (batch-invariant compute types), also in a batch that never empties (its decoder forgetting the
// finished sentences); a cancelled job leaves and frees its rows.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>

#include "heptapod/data/text_file.h"
#include "heptapod/decode/generation_batch.h"
#include "test_process.h"
#include "vocab_model.h"

namespace heptapod {
namespace {

using test::TempDir;

struct Case {
  std::string prompt;
  GenerateOptions options;
};

// Varied requests: seeds, temperatures (0: greedy), top-k/top-p, samples, stop strings, guards, lengths.
std::vector<Case> cases() {
  const std::vector<std::string> lines = read_lines(test::data_file("numbers.dev.en"));
  std::vector<Case> out;
  for (int i = 0; i < 12; ++i) {
    Case c;
    c.prompt = i == 5 ? "" : lines[static_cast<std::size_t>(i * 7) % lines.size()];
    GenerateOptions& o = c.options;
    o.max_tokens = 4 + (i * 5) % 17;
    o.sampling = {i % 4 == 0 ? 0.0f : 0.6f + 0.1f * static_cast<float>(i % 5), i % 3 == 0 ? 0 : 20,
                  i % 2 == 0 ? 1.0f : 0.9f, static_cast<std::uint64_t>(100 + i)};
    o.nbest = 1 + i % 3;
    if (i % 4 == 1) o.stop = {"e"};
    if (i % 5 == 2) o.guards.repetition_penalty = 1.3f;
    out.push_back(c);
  }
  return out;
}

void expect_same(const GeneratedText& a, const GeneratedText& b, const std::string& what) {
  EXPECT_EQ(a.tokens, b.tokens) << what;
  EXPECT_EQ(a.text, b.text) << what;
  EXPECT_EQ(a.new_text, b.new_text) << what;
  EXPECT_EQ(a.end, b.end) << what;
  EXPECT_EQ(a.new_tokens, b.new_tokens) << what;
  EXPECT_EQ(a.log_prob, b.log_prob) << what;
  EXPECT_EQ(a.score, b.score) << what;
}

class GenerationBatchTest : public ::testing::TestWithParam<ComputeType> {
 protected:
  TempDir dir;
  std::string path = test::make_language_model(dir.file("lm.htp"), 64);
};

TEST_P(GenerationBatchTest, JobsJoiningARunningBatchGetWhatTheGeneratorGivesEachAlone) {
  Generator generator(path, {GetParam()});
  const std::vector<Case> all = cases();
  std::vector<Generation> alone;
  std::vector<std::map<int, std::string>> alone_streamed(all.size());
  for (std::size_t i = 0; i < all.size(); ++i) {
    GenerateOptions o = all[i].options;
    std::string streamed;
    if (o.nbest == 1) o.stream = [&](std::size_t, std::string_view piece) { streamed += piece; };
    alone.push_back(generator.generate({all[i].prompt}, o)[0]);
    if (o.nbest == 1) EXPECT_EQ(streamed, alone.back().outputs[0].new_text) << i;
  }

  GenerationBatchOptions bo;
  bo.max_rows = 7;  // fewer than all the samples: jobs wait for rows and join as others leave
  GenerationBatch batch(generator, bo);
  std::vector<std::vector<GeneratedText>> got(all.size());
  std::vector<std::map<int, std::string>> streamed(all.size());
  std::vector<int> first_tokens(all.size(), 0);
  std::size_t next = 0;
  int steps = 0;
  while ((next < all.size() || !batch.empty()) && steps < 2000) {
    // Join one job every other step while rows are free, so jobs join at different positions of others.
    if (next < all.size() && steps % 2 == 0 && batch.free_rows() >= all[next].options.nbest) {
      GenerationJob job;
      job.prompt = generator.keep_prompt(all[next].prompt, all[next].options);
      job.options = all[next].options;
      const std::size_t i = next;
      job.piece = [&streamed, i](int sample, std::string_view piece) { streamed[i][sample] += piece; };
      job.first_token = [&first_tokens, i] { ++first_tokens[i]; };
      job.done = [&got, i](std::vector<GeneratedText> samples, std::string) { got[i] = std::move(samples); };
      batch.add(std::move(job));
      ++next;
    }
    batch.step();
    ++steps;
  }
  ASSERT_TRUE(batch.empty());
  for (std::size_t i = 0; i < all.size(); ++i) {
    ASSERT_EQ(got[i].size(), alone[i].outputs.size()) << i;
    EXPECT_EQ(first_tokens[i], 1) << i;
    for (std::size_t s = 0; s < got[i].size(); ++s) EXPECT_EQ(streamed[i][static_cast<int>(s)], got[i][s].new_text) << i;
    // The Generator ranks samples best first; the batch gives them in draw order.
    std::vector<GeneratedText> ranked = got[i];
    std::stable_sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) { return a.score > b.score; });
    for (std::size_t s = 0; s < ranked.size(); ++s)
      expect_same(ranked[s], alone[i].outputs[s], "case " + std::to_string(i) + " sample " + std::to_string(s));
  }
}

TEST_P(GenerationBatchTest, ACancelledJobLeavesAndFreesItsRows) {
  Generator generator(path, {GetParam()});
  GenerationBatchOptions bo;
  bo.max_rows = 4;
  GenerationBatch batch(generator, bo);
  GenerateOptions o;
  o.max_tokens = 40;
  o.nbest = 3;
  o.sampling.temperature = 1.0f;
  o.sampling.top_k = 0;
  bool done = false;
  GenerationJob job;
  job.prompt = generator.keep_prompt("one two", o);
  job.options = o;
  job.done = [&](std::vector<GeneratedText>, std::string) { done = true; };
  const int id = batch.add(std::move(job));
  EXPECT_EQ(batch.free_rows(), 1);
  batch.step();
  batch.step();
  EXPECT_EQ(batch.rows(), 3);
  batch.cancel(id);
  batch.step();
  EXPECT_TRUE(batch.empty());
  EXPECT_EQ(batch.rows(), 0);
  EXPECT_EQ(batch.free_rows(), 4);
  EXPECT_FALSE(done);
  GenerateOptions beam = o;
  beam.beam = 3;
  GenerationJob searched;
  searched.prompt = generator.keep_prompt("one", beam);
  searched.options = beam;
  EXPECT_THROW(batch.add(std::move(searched)), Error);
}

TEST_P(GenerationBatchTest, ABatchThatNeverEmptiesForgetsFinishedSentencesAndStaysExact) {
  // A job joins at every step while the earlier ones run, so the decoder's sentence records are compacted
  // (more than 64 finished ones) under rows that keep running.
  Generator generator(path, {GetParam()});
  const std::vector<std::string> lines = read_lines(test::data_file("numbers.dev.en"));
  GenerationBatch batch(generator, {});
  constexpr int kJobs = 160;
  std::vector<std::vector<GeneratedText>> got(kJobs);
  auto options_of = [](int i) {
    GenerateOptions o;
    o.max_tokens = 2 + i % 5;
    o.nbest = 1 + i % 2;
    o.sampling = {0.9f, 0, 1.0f, static_cast<std::uint64_t>(i)};
    return o;
  };
  for (int i = 0; i < kJobs || !batch.empty();) {
    if (i < kJobs) {
      GenerationJob job;
      job.options = options_of(i);
      job.prompt = generator.keep_prompt(lines[static_cast<std::size_t>(i) % lines.size()], job.options);
      job.done = [&got, i](std::vector<GeneratedText> samples, std::string) { got[i] = std::move(samples); };
      batch.add(std::move(job));
      ++i;
    }
    batch.step();
  }
  for (int i = 0; i < kJobs; ++i) {
    const Generation alone = generator.generate({lines[static_cast<std::size_t>(i) % lines.size()]}, options_of(i))[0];
    std::vector<GeneratedText> ranked = got[i];
    std::stable_sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) { return a.score > b.score; });
    ASSERT_EQ(ranked.size(), alone.outputs.size()) << i;
    for (std::size_t s = 0; s < ranked.size(); ++s) expect_same(ranked[s], alone.outputs[s], "job " + std::to_string(i));
  }
}

INSTANTIATE_TEST_SUITE_P(BatchInvariantTypes, GenerationBatchTest,
                         ::testing::Values(ComputeType::Int8, ComputeType::BFloat16),
                         [](const auto& info) { return info.param == ComputeType::Int8 ? "int8" : "bfloat16"; });

}  // namespace
}  // namespace heptapod
