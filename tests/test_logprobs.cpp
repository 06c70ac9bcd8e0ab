// Log-probabilities of generated tokens (GenerateOptions::logprobs, decode/token_log_probs.h) on a small
// SentencePiece language model, the converted GPT-2 fixture (byte-level BPE) and the converted LLaMA fixture
// (tokenizer.json): for sampling, greedy and beam search, each record is the token taken with the
// log-probability that scoring the same tokens gives (score_tokens, what `heptapod score --per-token` runs),
// its top K are the K largest of an independent log-softmax of the full forward pass's logits (naive loop),
// and asking for them changes no output; streamed pieces' records add up to the output's, a stop string's cut
// included; each token's raw bytes (Vocabulary::token_bytes) join to the text for every kind of vocabulary.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "heptapod/data/hf_tokenizer.h"
#include "heptapod/data/utf8.h"
#include "heptapod/data/wordpiece.h"
#include "heptapod/decode/generator.h"
#include "test_process.h"
#include "test_util.h"
#include "vocab_model.h"

namespace heptapod {
namespace {

using test::quoted;
using test::TempDir;

// The tokens' bytes joined: the text decoding gives, or that text after the leading space decoding drops.
void expect_bytes_join_to_text(const Vocabulary& vocab, const std::string& text, const std::string& what) {
  const std::vector<int> ids = vocab.encode(text);
  std::string joined;
  for (int id : ids) joined += vocab.token_bytes(id);
  const std::string decoded = vocab.decode(ids);
  EXPECT_TRUE(joined == decoded || joined == " " + decoded) << what << ": \"" << joined << "\" vs \"" << decoded << "\"";
}

TEST(TokenBytes, JoinToTheTextForEveryKindOfVocabulary) {
  const Vocabulary numbers = test::numbers_vocabulary();
  expect_bytes_join_to_text(numbers, "twenty one thousand", "SentencePiece");
  EXPECT_EQ(numbers.token_bytes(numbers.encode("twenty")[0]).front(), ' ');  // "\u2581twenty" keeps its space
  EXPECT_EQ(numbers.token_bytes(kEosId), "</s>");  // a control piece as written
  EXPECT_EQ(numbers.token_bytes(numbers.size()), "");

  const std::string mixed = "Hello world, na\xc3\xafve caf\xc3\xa9 \xe6\x97\xa5\xe6\x9c\xac 42!";
  for (const char* family : {"llama", "mistral", "qwen2"}) {
    const Vocabulary v = Vocabulary::from_tokenizer(HfTokenizer::from_directory(test::fixture(family)));
    expect_bytes_join_to_text(v, mixed, family);
    // The fixtures' small tables cut the CJK characters into bytes: some token holds part of a character.
    bool partial = false;
    for (int id : v.encode(mixed)) {
      const std::string bytes = v.token_bytes(id);
      if (find_invalid_utf8(bytes) == std::string::npos) continue;
      partial = true;
      EXPECT_EQ(token_text(bytes).rfind("bytes:\\x", 0), 0u) << family;
    }
    EXPECT_TRUE(partial) << family;
  }
  // Mistral's byte fallback: a byte piece is that one byte; LLaMA 2's Strip does not take a token's space.
  const Vocabulary mistral = Vocabulary::from_tokenizer(HfTokenizer::from_directory(test::fixture("mistral")));
  EXPECT_EQ(mistral.token_bytes(mistral.id_of("<0xE6>")), "\xe6");
  EXPECT_EQ(token_text("\xe6"), "bytes:\\xe6");
  EXPECT_EQ(mistral.token_bytes(mistral.encode("Hello")[0]).front(), ' ');

  const auto bert = std::make_shared<WordPiece>(
      WordPiece::from_file(test::fixture("bert") + "/vocab.txt", WordPieceOptions{}));
  const Vocabulary wordpiece = Vocabulary::from_tokenizer(bert);
  for (int id = 0; id < wordpiece.size(); ++id) {
    const std::string& piece = bert->table().piece(id);
    const std::string want = bert->table().is_special(id)      ? piece
                             : piece.rfind("##", 0) == 0 ? piece.substr(2)
                                                          : " " + piece;
    ASSERT_EQ(wordpiece.token_bytes(id), want) << piece;
  }
}

// The language models of the tests: the SentencePiece one, and the GPT-2 and LLaMA fixtures converted.
class LogProbs : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new TempDir;
    paths_ = new std::vector<std::string>{test::make_language_model(dir_->file("lm.htp"))};
    for (const auto& [fixture, from] : {std::pair{"gpt2", "gpt2"}, std::pair{"llama", "llama"}}) {
      const std::string out = dir_->file(std::string(fixture) + ".htp");
      std::string log;
      EXPECT_EQ(test::run_heptapod("convert " + quoted(test::fixture(fixture)) + " --from " + from + " -o " + quoted(out),
                                   *dir_, log),
                0)
          << log;
      paths_->push_back(out);
    }
  }
  static void TearDownTestSuite() {
    delete paths_;
    delete dir_;
  }
  static inline TempDir* dir_ = nullptr;
  static inline std::vector<std::string>* paths_ = nullptr;
};

// The three searches, each asking for K most likely tokens.
std::vector<std::pair<std::string, GenerateOptions>> searches(int K) {
  GenerateOptions sample;
  sample.max_tokens = 8;
  sample.cache = CachePrecision::Float32;
  sample.sampling = {1.0f, 0, 1.0f, 7};
  sample.nbest = 2;
  sample.logprobs = K;
  GenerateOptions greedy = sample;
  greedy.sampling.temperature = 0;
  greedy.nbest = 1;
  GenerateOptions beam = sample;
  beam.beam = 3;
  sample.guards.repetition_penalty = 1.5f;  // the records stay the model's raw distribution
  return {{"sampling", sample}, {"greedy", greedy}, {"beam", beam}};
}

// An independent log-softmax of one row (V), in long double.
std::vector<double> naive_log_softmax(const float* row, int V) {
  long double top = row[0], sum = 0;
  for (int v = 0; v < V; ++v) top = std::max<long double>(top, row[v]);
  for (int v = 0; v < V; ++v) sum += std::exp(static_cast<long double>(row[v]) - top);
  std::vector<double> out(static_cast<std::size_t>(V));
  for (int v = 0; v < V; ++v) out[static_cast<std::size_t>(v)] = static_cast<double>(row[v] - top - std::log(sum));
  return out;
}

TEST_F(LogProbs, RecordsAreTheScoresOfTheTokensAndTheirTopKTheLargestOfTheLogSoftmax) {
  constexpr int K = 4;
  for (const std::string& path : *paths_) {
    Generator generator(path);
    const ModelConfig& c = generator.config();
    ASSERT_TRUE(c.prompt_bos) << path;  // scoring feeds the start token, as generation does for these models
    const int V = c.tgt_vocab_size;
    std::size_t checked = 0;
    for (const auto& [name, o] : searches(K)) {
      const std::string what = path + " " + name;
      const Generation got = generator.generate({"one two"}, o)[0];
      GenerateOptions plain = o;
      plain.logprobs = -1;
      const Generation without = generator.generate({"one two"}, plain)[0];
      ASSERT_EQ(got.outputs.size(), without.outputs.size()) << what;
      for (std::size_t s = 0; s < got.outputs.size(); ++s) {
        const GeneratedText& g = got.outputs[s];
        EXPECT_EQ(g.tokens, without.outputs[s].tokens) << what;  // asking changes no output
        EXPECT_EQ(g.log_prob, without.outputs[s].log_prob) << what;
        EXPECT_TRUE(without.outputs[s].token_log_probs.empty()) << what;
        ASSERT_EQ(g.token_log_probs.size(), static_cast<std::size_t>(g.new_tokens)) << what;
        const std::size_t prompt = g.tokens.size() - static_cast<std::size_t>(g.new_tokens);
        const SentenceScore score = score_tokens(generator.model(), {{}}, {g.tokens}, 4096)[0];
        Arena arena;
        const float* logits = generator.model().logits(make_batch({{}}, {g.tokens}, c), arena);  // (T, V)
        for (std::size_t i = 0; i < g.token_log_probs.size(); ++i) {
          const TokenLogProb& r = g.token_log_probs[i];
          const std::size_t t = prompt + i;
          ASSERT_EQ(r.id, g.tokens[t]) << what;
          EXPECT_NEAR(r.log_prob, score.token_log_probs[t], 2e-4) << what << " token " << i;
          const std::vector<double> naive = naive_log_softmax(logits + t * static_cast<std::size_t>(V), V);
          EXPECT_NEAR(r.log_prob, naive[static_cast<std::size_t>(r.id)], 2e-4) << what;
          std::vector<int> order(static_cast<std::size_t>(V));
          std::iota(order.begin(), order.end(), 0);
          std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return naive[a] > naive[b]; });
          ASSERT_EQ(r.top.size(), static_cast<std::size_t>(K)) << what;
          for (int k = 0; k < K; ++k) {
            EXPECT_EQ(r.top[k].first, order[static_cast<std::size_t>(k)]) << what << " token " << i << " rank " << k;
            EXPECT_NEAR(r.top[k].second, naive[static_cast<std::size_t>(r.top[k].first)], 2e-4) << what;
            if (k > 0) EXPECT_GE(r.top[k - 1].second, r.top[k].second) << what;
            if (r.top[k].first == r.id) EXPECT_EQ(r.top[k].second, r.log_prob) << what;  // the same number
          }
          if (name == "greedy") EXPECT_EQ(r.top[0].first, r.id) << what;  // greedy takes the raw argmax here
          ++checked;
        }
      }
    }
    EXPECT_GE(checked, 12u) << path;
  }
}

TEST_F(LogProbs, StreamedPiecesRecordsAddUpToTheOutputsAStopStringsCutIncluded) {
  for (const std::string& path : *paths_) {
    Generator generator(path);
    GenerateOptions o;
    o.max_tokens = 24;
    o.sampling = {1.0f, 0, 1.0f, 11};
    o.logprobs = 2;
    const GeneratedText free = generator.generate({"one"}, o)[0].outputs[0];
    ASSERT_GE(free.new_text.size(), 4u) << path;
    for (const std::vector<std::string>& stop : {std::vector<std::string>{}, {free.new_text.substr(free.new_text.size() / 2, 2)}}) {
      const std::string what = path + (stop.empty() ? "" : " stop \"" + stop[0] + "\"");
      GenerateOptions s = o;
      s.stop = stop;
      std::string pieces;
      std::vector<TokenLogProb> records;
      s.stream = [&](std::size_t, std::string_view piece, std::span<const TokenLogProb> carried) {
        pieces += piece;
        records.insert(records.end(), carried.begin(), carried.end());
      };
      const GeneratedText g = generator.generate({"one"}, s)[0].outputs[0];
      EXPECT_EQ(pieces, g.new_text) << what;
      ASSERT_EQ(records.size(), g.token_log_probs.size()) << what;
      for (std::size_t i = 0; i < records.size(); ++i) {
        EXPECT_EQ(records[i].id, g.token_log_probs[i].id) << what;
        EXPECT_EQ(records[i].log_prob, g.token_log_probs[i].log_prob) << what;
        EXPECT_EQ(records[i].top, g.token_log_probs[i].top) << what;
        EXPECT_EQ(records[i].text_offset, g.token_log_probs[i].text_offset) << what;
        EXPECT_EQ(g.token_log_probs[i].log_prob, free.token_log_probs[i].log_prob) << what;  // the same draws
      }
      ASSERT_FALSE(records.empty()) << what;
      EXPECT_EQ(records[0].text_offset, 0u) << what;
      if (stop.empty()) {
        EXPECT_EQ(g.token_log_probs.size(), static_cast<std::size_t>(g.new_tokens)) << what;
      } else {
        // The tokens of the cut text: every token up to the one the cut falls inside, none after.
        EXPECT_EQ(g.end, "stop") << what;
        EXPECT_LE(g.token_log_probs.size(), static_cast<std::size_t>(g.new_tokens)) << what;
        EXPECT_LT(g.token_log_probs.back().text_offset, std::max<std::size_t>(g.new_text.size(), 1)) << what;
        std::string joined;
        for (const TokenLogProb& r : g.token_log_probs) joined += generator.vocabulary().token_bytes(r.id);
        EXPECT_GE(joined.size(), g.new_text.size()) << what;
      }
      for (std::size_t i = 1; i < records.size(); ++i) EXPECT_LE(records[i - 1].text_offset, records[i].text_offset);
    }
  }
}

TEST_F(LogProbs, TextOffsetsCutTheNewTextIntoTheTokensBytes) {
  Generator generator((*paths_)[0]);  // SentencePiece: every token's bytes are whole characters
  GenerateOptions o;
  o.max_tokens = 12;
  o.sampling = {1.0f, 0, 1.0f, 5};
  o.logprobs = 0;
  const GeneratedText g = generator.generate({"one"}, o)[0].outputs[0];
  const std::vector<TokenLogProb>& r = g.token_log_probs;
  ASSERT_FALSE(r.empty());
  for (std::size_t i = 0; i < r.size(); ++i) {
    EXPECT_TRUE(r[i].top.empty());  // K 0: the token taken alone
    const std::size_t end = i + 1 < r.size() ? r[i + 1].text_offset : g.new_text.size();
    EXPECT_EQ(g.new_text.substr(r[i].text_offset, end - r[i].text_offset), generator.vocabulary().token_bytes(r[i].id));
  }
}

TEST(LogProbsOptions, ANegativeCountOtherThanNoneIsRefused) {
  GenerateOptions o;
  o.logprobs = -2;
  EXPECT_THROW(validate(o), Error);
  o.logprobs = 0;
  EXPECT_NO_THROW(validate(o));
}

}  // namespace
}  // namespace heptapod
