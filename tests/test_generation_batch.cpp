// Continuous batching (decode/generation_batch.h) against the Generator alone: jobs that join a running batch
// at different steps, beside other jobs of other settings, get exactly the outputs (tokens, text,
// log-probability, why they ended) and streamed pieces that Generator::generate gives each alone, in int8 and
// bfloat16 (batch-invariant compute types), also in a batch that never empties (its decoder forgetting the
// finished sentences); beam searches join as rows of the running batch, giving what they give alone without
// changing what the other rows draw; a cancelled job leaves and frees its rows.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>

#include "heptapod/data/text_file.h"
#include "heptapod/decode/generation_batch.h"
#include "heptapod/decode/generator.h"
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
  Generator generator{path, {GetParam()}};
  IncrementalDecoder decoder{generator.model()};
};

TEST_P(GenerationBatchTest, JobsJoiningARunningBatchGetWhatTheGeneratorGivesEachAlone) {
  const std::vector<Case> all = cases();
  std::vector<Generation> alone;
  std::vector<std::map<int, std::string>> alone_streamed(all.size());
  for (std::size_t i = 0; i < all.size(); ++i) {
    GenerateOptions o = all[i].options;
    std::string streamed;
    if (o.nbest == 1)
      o.stream = [&](std::size_t, std::string_view piece, std::span<const TokenLogProb>) { streamed += piece; };
    alone.push_back(generator.generate({all[i].prompt}, o)[0]);
    if (o.nbest == 1) {
      EXPECT_EQ(streamed, alone.back().outputs[0].new_text) << i;
    }
  }

  GenerationBatchOptions bo;
  bo.max_rows = 7;  // fewer than all the samples: jobs wait for rows and join as others leave
  GenerationBatch batch(decoder, generator.vocabulary(), bo);
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
      job.piece = [&streamed, i](int sample, std::string_view piece, std::span<const TokenLogProb>) {
        streamed[i][sample] += piece;
      };
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
  GenerationBatchOptions bo;
  bo.max_rows = 4;
  GenerationBatch batch(decoder, generator.vocabulary(), bo);
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
  beam.beam = 5;
  GenerationJob searched;
  searched.prompt = generator.keep_prompt("one", beam);
  searched.options = beam;
  EXPECT_THROW(batch.add(std::move(searched)), Error);  // a beam of 5 rows in a batch of 4
}

TEST_P(GenerationBatchTest, ABeamSearchJoinsAsRowsOfTheRunningBatch) {
  const std::vector<Case> sampled = cases();
  GenerateOptions beam;
  beam.beam = 4;
  beam.nbest = 3;
  beam.max_tokens = 9;
  beam.length_penalty = 0.6f;
  beam.stop = {"y"};
  const std::string beam_prompt = read_lines(test::data_file("numbers.dev.en"))[3];
  const Generation beam_alone = generator.generate({beam_prompt}, beam)[0];
  ASSERT_EQ(beam_alone.outputs.size(), 3u);

  // The sampling jobs run twice on the same schedule, the beam job joining the second run at its 3rd step.
  auto run = [&](bool with_beam, std::vector<GeneratedText>& beam_outputs) {
    GenerationBatchOptions bo;
    bo.max_rows = 12;
    GenerationBatch batch(decoder, generator.vocabulary(), bo);
    std::vector<std::vector<GeneratedText>> got(sampled.size());
    for (std::size_t i = 0; i < 4; ++i) {
      GenerationJob job;
      job.prompt = generator.keep_prompt(sampled[i].prompt, sampled[i].options);
      job.options = sampled[i].options;
      job.done = [&got, i](std::vector<GeneratedText> samples, std::string) { got[i] = std::move(samples); };
      batch.add(std::move(job));
    }
    for (int steps = 0; !batch.empty() && steps < 200; ++steps) {
      if (with_beam && steps == 2) {
        GenerationJob job;
        job.prompt = generator.keep_prompt(beam_prompt, beam);
        job.options = beam;
        job.done = [&beam_outputs](std::vector<GeneratedText> outputs, std::string) { beam_outputs = std::move(outputs); };
        batch.add(std::move(job));
        EXPECT_GT(batch.rows(), 0);  // it joins a running batch
      }
      batch.step();
    }
    EXPECT_TRUE(batch.empty());
    return got;
  };
  std::vector<GeneratedText> beam_outputs, unused;
  const auto without = run(false, unused);
  const auto with = run(true, beam_outputs);
  for (std::size_t i = 0; i < 4; ++i) {
    ASSERT_EQ(with[i].size(), without[i].size()) << i;
    for (std::size_t s = 0; s < with[i].size(); ++s)
      expect_same(with[i][s], without[i][s], "sampled job " + std::to_string(i) + " beside the beam");
  }
  ASSERT_EQ(beam_outputs.size(), beam_alone.outputs.size());
  for (std::size_t k = 0; k < beam_outputs.size(); ++k)
    expect_same(beam_outputs[k], beam_alone.outputs[k], "beam hypothesis " + std::to_string(k));
}

TEST_P(GenerationBatchTest, ABatchThatNeverEmptiesForgetsFinishedSentencesAndStaysExact) {
  // A job joins at every step while the earlier ones run, so the decoder's sentence records are compacted
  // (more than 64 finished ones) under rows that keep running.
  const std::vector<std::string> lines = read_lines(test::data_file("numbers.dev.en"));
  GenerationBatch batch(decoder, generator.vocabulary(), {});
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
