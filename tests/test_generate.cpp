// The Generator (decode/generator.h) and `heptapod generate` on a small random language model: greedy output
// is the full forward pass's most likely continuation of the prompt (so the one-pass prefill feeds the
// prompt as a token-by-token feed would), beam 1 equals greedy sampling at temperature 0, seeded samples do
// not depend on the batch, stop strings cut and end an output, streamed pieces add up to the output, long
// prompts keep their last tokens, and the CLI prints what the library returns.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "heptapod/decode/generator.h"
#include "heptapod/decode/translator.h"
#include "test_process.h"
#include "vocab_model.h"

namespace heptapod {
namespace {


using test::run_heptapod;
using test::TempDir;

class GenerateTest : public ::testing::Test {
 protected:
  TempDir dir;
  std::string path = test::make_language_model(dir.file("lm.htp"));
};

GenerateOptions greedy(int max_tokens) {
  GenerateOptions o;
  o.beam = 1;
  o.max_tokens = max_tokens;
  o.cache = CachePrecision::Float32;
  return o;
}

TEST_F(GenerateTest, GreedyContinuesThePromptWithTheFullForwardPassesMostLikelyTokens) {
  Generator generator(path);
  const ModelConfig& c = generator.config();
  const SafetensorsFile file = SafetensorsFile::read(path);
  auto model = std::make_unique<Transformer<float>>(read_model_config(file));  // the plain float32 model
  load_parameters(file, model->parameters());
  const std::vector<std::string> prompts = {"twenty thousand", "", "one hundred and"};
  const auto out = generator.generate(prompts, greedy(6));
  const std::vector<int> banned = banned_output_ids(c);
  for (std::size_t i = 0; i < prompts.size(); ++i) {
    ASSERT_EQ(out[i].outputs.size(), 1u);
    const GeneratedText& g = out[i].outputs[0];
    const std::vector<int> prompt = generator.vocabulary().encode(prompts[i]);
    ASSERT_GE(g.tokens.size(), prompt.size());
    EXPECT_TRUE(std::equal(prompt.begin(), prompt.end(), g.tokens.begin()));
    EXPECT_EQ(g.new_tokens, static_cast<int>(g.tokens.size() - prompt.size()));
    // Each new token is the argmax of the full forward pass over everything before it.
    Arena arena;
    const Batch b = make_batch({{}}, {g.tokens}, c);
    const float* logits = model->logits(b, arena);  // (T, V)
    for (std::size_t t = prompt.size(); t < g.tokens.size(); ++t) {
      const float* row = logits + t * c.tgt_vocab_size;
      int best = -1;
      for (int v = 0; v < c.tgt_vocab_size; ++v)
        if (std::find(banned.begin(), banned.end(), v) == banned.end() && (best < 0 || row[v] > row[best])) best = v;
      EXPECT_EQ(g.tokens[t], best) << "prompt " << i << " position " << t;
    }
    EXPECT_EQ(g.text, generator.vocabulary().decode(prompt) + g.new_text);
    EXPECT_TRUE(g.end == "length" || g.end == "end") << g.end;
  }
}

// The length penalty counts the new tokens (and the end token), not the prompt.
TEST_F(GenerateTest, ScoresNormaliseByTheNewTokensAlone) {
  Generator generator(path);
  GenerateOptions o = greedy(6);
  o.beam = 3;
  o.nbest = 2;
  o.length_penalty = 1.0f;
  for (const auto& g : generator.generate({"nine hundred and ninety nine thousand", ""}, o))
    for (const GeneratedText& t : g.outputs) {
      const int length = t.new_tokens + (t.end == "end" ? 1 : 0);
      EXPECT_NEAR(t.score, t.log_prob / ((5.0 + length) / 6.0), 1e-5) << t.text;
    }
}

TEST_F(GenerateTest, BeamOneIsSamplingAtTemperatureZeroAndSamplesDoNotDependOnTheBatch) {
  Generator generator(path);
  const std::vector<std::string> prompts = {"three", "forty two", ""};
  GenerateOptions sample_greedy = greedy(8);
  sample_greedy.beam = 0;
  sample_greedy.sampling.temperature = 0;
  const auto a = generator.generate(prompts, greedy(8)), b = generator.generate(prompts, sample_greedy);
  for (std::size_t i = 0; i < prompts.size(); ++i) EXPECT_EQ(a[i].outputs[0].tokens, b[i].outputs[0].tokens);
  GenerateOptions o;
  o.nbest = 3;
  o.max_tokens = 8;
  o.sampling.seed = 7;
  const auto together = generator.generate(prompts, o);
  const auto alone = generator.generate({prompts[1]}, o);
  ASSERT_EQ(together[1].outputs.size(), 3u);
  for (int k = 0; k < 3; ++k) EXPECT_EQ(together[1].outputs[k].tokens, alone[0].outputs[k].tokens);
  o.sampling.seed = 8;
  const auto other = generator.generate({prompts[1]}, o);
  bool differs = false;
  for (int k = 0; k < 3; ++k) differs = differs || other[0].outputs[k].tokens != alone[0].outputs[k].tokens;
  EXPECT_TRUE(differs) << "another seed draws other samples";
}

TEST_F(GenerateTest, StopStringsCutAndEndAnOutputAndStreamedPiecesAddUp) {
  Generator generator(path);
  const auto free = generator.generate({"seven"}, greedy(12))[0].outputs[0];
  ASSERT_GE(free.new_text.size(), 4u) << free.new_text;
  const std::string stop = free.new_text.substr(free.new_text.size() / 2, 2);
  GenerateOptions o = greedy(12);
  o.beam = 0;  // greedy by sampling at temperature 0: sampled text streams
  o.sampling.temperature = 0;
  o.stop = {stop};
  std::string streamed;
  o.stream = [&](std::size_t prompt, std::string_view piece, std::span<const TokenLogProb>) {
    EXPECT_EQ(prompt, 0u);
    streamed += piece;
  };
  const auto cut = generator.generate({"seven"}, o)[0].outputs[0];
  EXPECT_EQ(cut.end, "stop");
  EXPECT_EQ(cut.new_text, free.new_text.substr(0, free.new_text.find(stop)));
  EXPECT_LE(cut.new_tokens, free.new_tokens);
  EXPECT_EQ(streamed, cut.new_text);
  // Without a stop string the pieces add up to the whole new text.
  streamed.clear();
  o.stop.clear();
  EXPECT_EQ(generator.generate({"seven"}, o)[0].outputs[0].new_text, free.new_text);
  EXPECT_EQ(streamed, free.new_text);
}

TEST_F(GenerateTest, LongPromptsKeepTheirLastTokensAndModelsOfTheOtherKindAreRefused) {
  Generator generator(path);
  GenerateOptions o = greedy(2);
  o.max_prompt_tokens = 2;
  const auto out = generator.generate({"one two three four five"}, o);
  EXPECT_NE(out[0].warning.find("kept its last 2"), std::string::npos) << out[0].warning;
  const std::vector<int> all = generator.vocabulary().encode("one two three four five");
  EXPECT_TRUE(std::equal(all.end() - 2, all.end(), out[0].outputs[0].tokens.begin()));
  // What a terminal sees first: the prompt as kept, which every output's text begins with.
  const KeptPrompt kept = generator.keep_prompt("one two three four five", o);
  EXPECT_EQ(kept.text + out[0].outputs[0].new_text, out[0].outputs[0].text);
  EXPECT_EQ(kept.warning, out[0].warning);
  o.sampling.top_p = 0;
  o.beam = 0;
  EXPECT_THROW(generator.generate({"x"}, o), Error);
  try {
    Generator wrong(test::make_model(dir));
    FAIL() << "a translation model loaded for generation";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("generation needs a decoder-only model"), std::string::npos) << e.what();
  }
  try {
    Translator wrong(path);
    FAIL() << "a language model loaded for translation";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("translation needs an encoder-decoder model"), std::string::npos) << e.what();
  }
}

TEST_F(GenerateTest, TheCommandPrintsWhatTheLibraryReturns) {
  std::string log;
  ASSERT_EQ(run_heptapod("info -m " + test::quoted(path), dir, log), 0) << log;
  EXPECT_NE(log.find("kind:     decoder-only (commands: generate, score --input"), std::string::npos) << log;
  std::ofstream(dir.file("prompts.txt")) << "twenty\n\nnine hundred\n";
  ASSERT_EQ(run_heptapod("generate -m " + test::quoted(path) + " -i " + test::quoted(dir.file("prompts.txt")) +
                             " --beam 1 --max-tokens 5 --cache float32 -o " + test::quoted(dir.file("out.txt")),
                         dir, log),
            0)
      << log;
  Generator generator(path);
  std::string want;
  for (const auto& g : generator.generate({"twenty", "", "nine hundred"}, greedy(5))) want += g.outputs[0].text + "\n";
  EXPECT_EQ(test::slurp(dir.file("out.txt")), want);
  // n-best lines, and sampled output that a seed reproduces.
  ASSERT_EQ(run_heptapod("generate -m " + test::quoted(path) + " --prompt twenty --nbest 2 --seed 3 -o " +
                             test::quoted(dir.file("a.txt")),
                         dir, log),
            0)
      << log;
  ASSERT_EQ(run_heptapod("generate -m " + test::quoted(path) + " --prompt twenty --nbest 2 --seed 3 -o " +
                             test::quoted(dir.file("b.txt")),
                         dir, log),
            0)
      << log;
  const std::string a = test::slurp(dir.file("a.txt"));
  EXPECT_EQ(a, test::slurp(dir.file("b.txt")));
  EXPECT_EQ(a.rfind("0 ||| twenty", 0), 0u) << a;
  EXPECT_NE(run_heptapod("generate -m " + test::quoted(path) + " --prompt x --top-p 0", dir, log), 0);
  EXPECT_NE(run_heptapod("generate -m " + test::quoted(path) + " --prompt x --temperature -1", dir, log), 0);
}

// --logprobs K: one JSON line per output (n-best too), its records the library's, each token named by its text
// and bytes; K outside 0..20 is refused naming the option.
TEST_F(GenerateTest, LogprobsWriteJsonLinesOfTheLibrarysRecords) {
  std::ofstream(dir.file("prompts.txt")) << "twenty\nnine hundred\n";
  std::string log;
  ASSERT_EQ(run_heptapod("generate -m " + test::quoted(path) + " -i " + test::quoted(dir.file("prompts.txt")) +
                             " --nbest 2 --seed 4 --max-tokens 6 --logprobs 3 -o " + test::quoted(dir.file("out.jsonl")),
                         dir, log),
            0)
      << log;
  Generator generator(path);
  GenerateOptions o;
  o.nbest = 2;
  o.sampling.seed = 4;
  o.max_tokens = 6;
  o.logprobs = 3;
  const std::vector<Generation> want = generator.generate({"twenty", "nine hundred"}, o);
  std::istringstream lines(test::slurp(dir.file("out.jsonl")));
  std::string line;
  std::size_t outputs = 0;
  for (std::size_t p = 0; p < want.size(); ++p)
    for (std::size_t s = 0; s < want[p].outputs.size(); ++s, ++outputs) {
      ASSERT_TRUE(std::getline(lines, line));
      const nlohmann::json j = nlohmann::json::parse(line);
      const GeneratedText& g = want[p].outputs[s];
      EXPECT_EQ(j["prompt"], p);
      EXPECT_EQ(j["output"], s);
      EXPECT_EQ(j["text"], g.text);
      EXPECT_EQ(j["new_text"], g.new_text);
      EXPECT_EQ(j["end"], g.end);
      ASSERT_EQ(j["logprobs"].size(), g.token_log_probs.size()) << line;
      for (std::size_t i = 0; i < g.token_log_probs.size(); ++i) {
        const nlohmann::json& r = j["logprobs"][i];
        const TokenLogProb& w = g.token_log_probs[i];
        const std::string bytes = generator.vocabulary().token_bytes(w.id);
        EXPECT_EQ(r["id"], w.id);
        EXPECT_EQ(r["token"], bytes);
        EXPECT_EQ(r["bytes"], std::vector<int>(bytes.begin(), bytes.end()));
        EXPECT_EQ(r["logprob"].get<float>(), w.log_prob);
        ASSERT_EQ(r["top_logprobs"].size(), 3u);
        for (std::size_t k = 0; k < 3; ++k) {
          EXPECT_EQ(r["top_logprobs"][k]["id"], w.top[k].first);
          EXPECT_EQ(r["top_logprobs"][k]["logprob"].get<float>(), w.top[k].second);
        }
      }
    }
  EXPECT_FALSE(std::getline(lines, line)) << line;
  EXPECT_EQ(outputs, 4u);
  for (const char* bad : {"21", "-1"}) {
    EXPECT_NE(run_heptapod("generate -m " + test::quoted(path) + " --prompt x --logprobs " + bad, dir, log), 0);
    EXPECT_NE(log.find("--logprobs"), std::string::npos) << log;
  }
}

TEST_F(GenerateTest, ScoreGivesEachLinesLogProbabilityAndTheTextsPerplexity) {
  const std::vector<std::string> lines = {"twenty one", "", "nine hundred and ninety nine"};
  std::ofstream(dir.file("text.txt")) << lines[0] << "\n" << lines[1] << "\n" << lines[2] << "\n";
  std::string log;
  ASSERT_EQ(run_heptapod("score -m " + test::quoted(path) + " -i " + test::quoted(dir.file("text.txt")) +
                             " --per-token -o " + test::quoted(dir.file("scores.txt")),
                         dir, log),
            0)
      << log;
  EXPECT_NE(log.find("3 lines"), std::string::npos) << log;
  EXPECT_NE(log.find("bits per character"), std::string::npos) << log;
  // Each line: its log-probability as a document, from log-softmax of the full forward pass's logits.
  Generator generator(path);
  const ModelConfig& c = generator.config();
  const SafetensorsFile file = SafetensorsFile::read(path);
  Transformer<float> model(read_model_config(file));
  load_parameters(file, model.parameters());
  std::istringstream scores(test::slurp(dir.file("scores.txt")));
  for (const std::string& line : lines) {
    std::string row;
    ASSERT_TRUE(std::getline(scores, row));
    std::istringstream fields(row);
    double total = 0, token = 0;
    fields >> total;
    const std::vector<int> tokens = generator.vocabulary().encode(line);
    Arena arena;
    const Batch b = make_batch({{}}, {tokens}, c);
    const float* logits = model.logits(b, arena);  // (T, V)
    double want = 0;
    for (int t = 0; t < b.T; ++t) {
      const float* z = logits + static_cast<long>(t) * c.tgt_vocab_size;
      double top = z[0], sum = 0;
      for (int v = 0; v < c.tgt_vocab_size; ++v) top = std::max(top, static_cast<double>(z[v]));
      for (int v = 0; v < c.tgt_vocab_size; ++v) sum += std::exp(z[v] - top);
      const double lp = z[b.tgt_out[t]] - top - std::log(sum);
      ASSERT_TRUE(fields >> token);
      EXPECT_NEAR(token, lp, 1e-4) << line << " token " << t;
      want += lp;
    }
    EXPECT_NEAR(total, want, 1e-3) << line;
    EXPECT_FALSE(fields >> token) << "one log-probability per token and the end token: " << row;
  }
}

TEST_F(GenerateTest, LearnedPositionsBoundPromptsAndOutputsWithWarnings) {
  Generator generator(test::make_language_model(dir.file("learned.htp"), 6));
  GenerateOptions o = greedy(20);
  const auto out = generator.generate({"one two three four five six seven", "two"}, o);
  // The long prompt keeps its last 5 tokens (room for one more within 6 positions, the start token first).
  EXPECT_NE(out[0].warning.find("the model's context is 6 positions"), std::string::npos) << out[0].warning;
  // A text longer than the positions is scored as far as it fits, and says so.
  const auto scores = generator.score({"one two three four five six seven eight", "two"});
  EXPECT_TRUE(scores[0].truncated);
  EXPECT_EQ(scores[0].tokens, 6);  // 5 tokens after the start token, then the end token
  EXPECT_FALSE(scores[1].truncated);
  for (const Generation& g : out) {
    ASSERT_EQ(g.outputs.size(), 1u);
    EXPECT_LE(g.outputs[0].tokens.size(), 6u);
    if (g.outputs[0].end == "length") {
      EXPECT_NE(g.warning.find("stopped at the model's context (6 positions)"), std::string::npos) << g.warning;
    }
  }
}

}  // namespace
}  // namespace heptapod
