// Data pipeline: UTF-8 validation, vocabularies, the tokenized-corpus cache, and token-budget batching.
#include <gtest/gtest.h>

#include <set>

#include "heptapod/core/error.h"
#include "heptapod/data/batcher.h"
#include "heptapod/data/parallel_corpus.h"
#include "heptapod/data/text_file.h"
#include "heptapod/data/utf8.h"
#include "test_process.h"

namespace heptapod {
namespace {

using test::TempDir;

TEST(Utf8, ValidAndInvalidSequences) {
  EXPECT_EQ(find_invalid_utf8("plain, é, €, 𝄞"), std::string_view::npos);
  EXPECT_EQ(find_invalid_utf8("ab\xC0\x80"), 2u);          // overlong
  EXPECT_EQ(find_invalid_utf8("\xED\xA0\x80"), 0u);        // surrogate
  EXPECT_EQ(find_invalid_utf8("x\xF4\x90\x80\x80"), 1u);   // past U+10FFFF
  EXPECT_EQ(find_invalid_utf8("abc\xE2\x82"), 3u);         // truncated
  EXPECT_EQ(decode_utf8("a€"), (std::vector<char32_t>{U'a', U'€'}));
}

const Vocabulary& char_vocab() {
  static const Vocabulary v = [] {
    VocabConfig c;
    c.model = VocabConfig::Model::Char;
    return Vocabulary::train(read_lines(test::data_file("numbers.dev.en")), c);
  }();
  return v;
}

TEST(Vocabulary, SpecialIdsRoundTripAndSerialization) {
  const Vocabulary& v = char_vocab();
  EXPECT_EQ(v.piece(kPadId), "<pad>");
  EXPECT_EQ(v.piece(kBosId), "<s>");
  EXPECT_EQ(v.piece(kEosId), "</s>");
  EXPECT_EQ(v.decode(v.encode("forty-two")), "forty-two");
  const Vocabulary back = Vocabulary::from_serialized(v.serialized(), "test");
  EXPECT_EQ(back.encode("nine"), v.encode("nine"));
  EXPECT_EQ(back.fingerprint(), v.fingerprint());
  EXPECT_THROW(Vocabulary::from_serialized("garbage", "blob"), Error);
}

TEST(ParallelCorpus, CacheIsReusedUntilTheTextChanges) {
  TempDir dir;
  const std::string src = dir.write("s.txt", "one two\nthree\n\nfour\n");
  const std::string tgt = dir.write("t.txt", "uno dos\ntres\ncero\ncuatro\n");
  const std::string cache = dir.file("c.cache");
  const auto first = ParallelCorpus::build(src, tgt, char_vocab(), char_vocab(), LengthFilter{}, cache);
  EXPECT_FALSE(first.from_cache());
  EXPECT_EQ(first.size(), 3u);
  EXPECT_EQ(first.stats().empty, 1);
  EXPECT_EQ(first.line_number(2), 4);
  const auto second = ParallelCorpus::build(src, tgt, char_vocab(), char_vocab(), LengthFilter{}, cache);
  EXPECT_TRUE(second.from_cache());
  ASSERT_EQ(second.size(), 3u);
  for (std::size_t i = 0; i < 3; ++i) {
    EXPECT_TRUE(std::equal(first.source(i).begin(), first.source(i).end(), second.source(i).begin(), second.source(i).end()));
    EXPECT_TRUE(std::equal(first.target(i).begin(), first.target(i).end(), second.target(i).begin(), second.target(i).end()));
  }
  dir.write("t.txt", "uno dos\ntres\ncero\ncinco\n");
  EXPECT_FALSE(ParallelCorpus::build(src, tgt, char_vocab(), char_vocab(), LengthFilter{}, cache).from_cache());
  LengthFilter strict{3, 0.0};
  EXPECT_FALSE(ParallelCorpus::build(src, tgt, char_vocab(), char_vocab(), strict, cache).from_cache());
  dir.write("c.cache", "damaged");  // a broken cache is rebuilt, not an error
  EXPECT_FALSE(ParallelCorpus::build(src, tgt, char_vocab(), char_vocab(), LengthFilter{}, cache).from_cache());
}

TEST(Batcher, EpochPlansCoverEverySentenceOnceWithinTheBudgetAndAreDeterministic) {
  const auto corpus = ParallelCorpus::build(test::data_file("numbers.dev.en"), test::data_file("numbers.dev.es"),
                                            char_vocab(), char_vocab(), LengthFilter{});
  BatchingConfig config{600, 64, 5};
  const auto plan = plan_epoch(corpus, config, 0);
  EXPECT_EQ(plan, plan_epoch(corpus, config, 0));
  EXPECT_NE(plan, plan_epoch(corpus, config, 1));
  std::multiset<std::uint32_t> seen;
  for (const auto& batch : plan) {
    std::size_t max_s = 0, max_t = 0;
    for (std::uint32_t i : batch) {
      seen.insert(i);
      max_s = std::max(max_s, corpus.source(i).size());
      max_t = std::max(max_t, corpus.target(i).size() + 1);
    }
    EXPECT_TRUE(batch.size() == 1 || batch.size() * (max_s + max_t) <= 600u);
  }
  EXPECT_EQ(seen.size(), corpus.size());
  EXPECT_EQ(std::set<std::uint32_t>(seen.begin(), seen.end()).size(), corpus.size());
}

}  // namespace
}  // namespace heptapod
