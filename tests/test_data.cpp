// Data pipeline: UTF-8 validation, vocabularies, the tokenized-corpus cache, and token-budget batching.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <set>

#include "heptapod/core/error.h"
#include "heptapod/data/batcher.h"
#include "heptapod/data/parallel_corpus.h"
#include "heptapod/data/text_file.h"
#include "heptapod/data/utf8.h"
#include "heptapod/io/atomic_file.h"
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

// With byte fallback, characters the vocabulary never saw are spelled as bytes, not unk, and decode back to
// the same text; without it they are unk. Byte fallback is for bpe and unigram only.
TEST(Vocabulary, ByteFallbackSpellsUnseenCharactersAsBytes) {
  VocabConfig c;
  c.size = 400;
  const std::vector<std::string> text = read_lines(test::data_file("numbers.train.en"));
  const std::string unseen = "forty-two %s [\u20ac] {}";
  const Vocabulary plain = Vocabulary::train(text, c);
  const std::vector<int> plain_ids = plain.encode(unseen);
  EXPECT_NE(std::find(plain_ids.begin(), plain_ids.end(), kUnkId), plain_ids.end());
  c.byte_fallback = true;
  const Vocabulary bytes = Vocabulary::train(text, c);
  const std::vector<int> ids = bytes.encode(unseen);
  EXPECT_EQ(std::find(ids.begin(), ids.end(), kUnkId), ids.end());
  EXPECT_EQ(bytes.decode(ids), unseen);
  EXPECT_EQ(bytes.piece(kUnkId), "<unk>");  // the special ids stay where they were
  c.model = VocabConfig::Model::Char;
  EXPECT_THROW(Vocabulary::train(text, c), Error);
}

// A corpus of several tokenizing blocks (16,384 pairs each), cached and in memory, holds exactly what
// tokenizing and filtering each line on its own gives, in order, with its line numbers.
TEST(ParallelCorpus, StreamedBlocksEqualLineByLineTokenization) {
  TempDir dir;
  const std::vector<std::string> en = read_lines(test::data_file("numbers.train.en"));
  const std::vector<std::string> es = read_lines(test::data_file("numbers.train.es"));
  std::string src_text, tgt_text;
  constexpr std::size_t kPairs = 2 * 16384 + 77;
  for (std::size_t i = 0; i < kPairs; ++i) {
    src_text += (i % 1000 == 5 ? "" : en[i % en.size()]) + "\n";  // some empty lines, dropped
    tgt_text += es[(i * 7) % es.size()] + "\n";
  }
  const std::string src = dir.write("s.txt", src_text), tgt = dir.write("t.txt", tgt_text.substr(0, tgt_text.size() - 1));
  const LengthFilter filter{12, 2.0};
  const Vocabulary& v = char_vocab();
  std::vector<std::pair<std::vector<int>, std::vector<int>>> expected;
  std::vector<long long> lines;
  for (std::size_t i = 0; i < kPairs; ++i) {
    const std::string s = i % 1000 == 5 ? "" : en[i % en.size()];
    const std::vector<int> a = s.empty() ? std::vector<int>{} : v.encode(s), b = v.encode(es[(i * 7) % es.size()]);
    if (a.empty() || a.size() > 12 || b.size() > 12) continue;
    if (static_cast<double>(std::max(a.size(), b.size())) / static_cast<double>(std::min(a.size(), b.size())) > 2.0) continue;
    expected.emplace_back(a, b);
    lines.push_back(static_cast<long long>(i + 1));
  }
  for (const std::string& cache : {std::string(), dir.file("c.cache")}) {
    SCOPED_TRACE(cache.empty() ? "in memory" : "cached");
    const auto corpus = ParallelCorpus::build(src, tgt, v, v, filter, cache);
    EXPECT_EQ(corpus.stats().lines, static_cast<long long>(kPairs));
    ASSERT_EQ(corpus.size(), expected.size());
    for (std::size_t i = 0; i < corpus.size(); ++i) {
      ASSERT_TRUE(std::ranges::equal(corpus.source(i), expected[i].first)) << i;
      ASSERT_TRUE(std::ranges::equal(corpus.target(i), expected[i].second)) << i;
      ASSERT_EQ(corpus.line_number(i), lines[i]) << i;
    }
  }
  EXPECT_TRUE(ParallelCorpus::build(src, tgt, v, v, filter, dir.file("c.cache")).from_cache());
}

// A cache cut short, with damaged offsets or with any changed byte is rebuilt (the arrays and their checksum
// are checked before use), never read.
TEST(ParallelCorpus, TruncatedOrDamagedCachesAreRebuilt) {
  TempDir dir;
  const std::string src = dir.write("s.txt", "one two\nthree\nfour\n");
  const std::string tgt = dir.write("t.txt", "uno dos\ntres\ncuatro\n");
  const std::string cache = dir.file("c.cache");
  ParallelCorpus::build(src, tgt, char_vocab(), char_vocab(), LengthFilter{}, cache);
  const std::string whole = read_file(cache);
  for (const std::size_t keep : {std::size_t{300}, whole.size() - 9}) {
    dir.write("c.cache", whole.substr(0, keep));
    const auto c = ParallelCorpus::build(src, tgt, char_vocab(), char_vocab(), LengthFilter{}, cache);
    EXPECT_FALSE(c.from_cache()) << keep;
    EXPECT_EQ(c.size(), 3u);
  }
  std::string damaged = whole;
  std::uint64_t starts_at = 0;  // the header's offset of the pairs' starts (after format, fingerprint, stats,
  std::memcpy(&starts_at, whole.data() + 104, sizeof starts_at);  // pairs, tokens and tokens_at)
  ASSERT_LT(starts_at + 24, whole.size());
  damaged[starts_at + 2 * 8 + 1] ^= 0x40;  // pair 2 now starts 16,384 tokens later, past the end
  dir.write("c.cache", damaged);
  EXPECT_FALSE(ParallelCorpus::build(src, tgt, char_vocab(), char_vocab(), LengthFilter{}, cache).from_cache());

  // Any changed byte of the arrays (a token id, a length, a line number) fails the cache's checksum: it is
  // rebuilt, with a warning naming it, and the corpus read is the files' own.
  ASSERT_GT(whole.size(), 256u + 64);
  const auto fresh = ParallelCorpus::build(src, tgt, char_vocab(), char_vocab(), LengthFilter{});  // in memory
  std::int64_t tokens = 0;  // the header's token count and the offset of the token array (after format,
  std::uint64_t tokens_at = 0;  // fingerprint, stats and pairs)
  std::memcpy(&tokens, whole.data() + 88, sizeof tokens);
  std::memcpy(&tokens_at, whole.data() + 96, sizeof tokens_at);
  int rebuilt = 0;
  for (std::size_t at = 256; at < whole.size(); at += 3) {
    std::string damaged = whole;
    damaged[at] ^= 0x01;
    dir.write("c.cache", damaged);
    testing::internal::CaptureStderr();
    const auto c = ParallelCorpus::build(src, tgt, char_vocab(), char_vocab(), LengthFilter{}, cache);
    const std::string warning = testing::internal::GetCapturedStderr();
    SCOPED_TRACE("byte " + std::to_string(at));
    if (at >= tokens_at && at < tokens_at + 4 * static_cast<std::uint64_t>(tokens)) {
      EXPECT_FALSE(c.from_cache());
    }
    if (!c.from_cache()) {  // (a byte of the padding between arrays is not read, so it need not be found)
      ++rebuilt;
      EXPECT_HAS_SUBSTR(warning, cache);
      EXPECT_EQ(read_file(cache), whole);  // rewritten
    }
    ASSERT_EQ(c.size(), fresh.size());
    for (std::size_t i = 0; i < c.size(); ++i) {
      EXPECT_TRUE(std::ranges::equal(c.source(i), fresh.source(i)));
      EXPECT_TRUE(std::ranges::equal(c.target(i), fresh.target(i)));
      EXPECT_EQ(c.line_number(i), fresh.line_number(i));
    }
  }
  EXPECT_GT(rebuilt, 30);
}

// Both files are read a line at a time: a missing last newline, CRLF, and a count mismatch found late.
TEST(TextFile, ParallelLinesStreamAndNameBothCountsOnMismatch) {
  TempDir dir;
  const std::string a = dir.write("a.txt", "x\r\ny\nz"), b = dir.write("b.txt", "1\n2\n3\n4\n");
  ParallelLineReader reader(a, b);
  std::string s, t;
  std::vector<std::string> got;
  try {
    while (reader.next(s, t)) got.push_back(s + t);
    FAIL() << "no error for 3 lines against 4";
  } catch (const Error& e) {
    EXPECT_HAS_SUBSTR(e.what(), a + " has 3 lines, " + b + " has 4");
  }
  EXPECT_EQ(got, (std::vector<std::string>{"x1", "y2", "z3"}));
  EXPECT_THROW(LineReader(dir.file("missing.txt")), Error);
}

// Vocabulary training reads at most its sample: all pairs in order when the corpus is no larger, else a
// deterministic sample of that size drawn from the whole file.
TEST(TextFile, SampledParallelTextIsBoundedAndDeterministic) {
  const std::string en = test::data_file("numbers.train.en"), es = test::data_file("numbers.train.es");
  const ParallelText all = sample_parallel_text(en, es, 5000, 1);
  EXPECT_EQ(all.source, read_lines(en));
  EXPECT_EQ(all.target, read_lines(es));
  const ParallelText some = sample_parallel_text(en, es, 100, 1);
  ASSERT_EQ(some.source.size(), 100u);
  EXPECT_EQ(some.source, sample_parallel_text(en, es, 100, 1).source);
  EXPECT_NE(some.source, sample_parallel_text(en, es, 100, 2).source);
  const std::vector<std::string> lines = read_lines(en);
  std::size_t late = 0;  // drawn from the second half of the file
  for (std::size_t i = 0; i < some.source.size(); ++i) {
    const auto at = std::find(lines.begin(), lines.end(), some.source[i]) - lines.begin();
    late += at >= 2000;
    EXPECT_EQ(some.target[i], read_lines(es)[static_cast<std::size_t>(at)]) << "pairs stay aligned";
  }
  EXPECT_GT(late, 25u);
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
