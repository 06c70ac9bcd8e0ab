// BLEU and chrF against sacreBLEU: its own published test values (mjpost/sacrebleu test/test_bleu.py,
// test/test_sentence_bleu.py, test/test_chrf.py), hand-computed cases (empty input, brevity penalty, perfect
// match, exp smoothing of zero-match orders, Unicode, several references), the 13a tokenizer rule by rule,
// the Python string rules (UTF-8, whitespace, lowercase), and `heptapod bleu` end to end.
#include <gtest/gtest.h>

#include "test_process.h"

#include <sys/wait.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include <atomic>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "heptapod/core/error.h"
#include "heptapod/eval/bleu.h"
#include "heptapod/eval/chrf.h"
#include "heptapod/io/atomic_file.h"

namespace heptapod::eval {
namespace {

using test::quoted;
using test::run_heptapod;
using test::TempDir;

namespace fs = std::filesystem;
using Lines = std::vector<std::string>;
using Streams = std::vector<std::vector<std::string>>;

constexpr double kTol = 1e-4;  // on 0..100 scores

// The README example of sacreBLEU, used throughout its test/test_bleu.py: two reference streams.
const Lines kHyps = {"The dog bit the man.", "It wasn't surprising.", "The man had just bitten him."};
const Streams kRefs = {{"The dog bit the man.", "It was not unexpected.", "The man bit him first."},
                       {"The dog had bit the man.", "No one was surprised.", "The man had bitten the dog."}};

// sacreBLEU's raw_corpus_bleu(): no tokenization, floor smoothing, effective order.
BleuOptions raw_options(std::optional<double> floor) {
  BleuOptions o;
  o.tokenize = "none";
  o.smooth = BleuSmoothing::kFloor;
  o.smooth_value = floor;
  o.effective_order = true;
  return o;
}

BleuScore score_from_stats(std::vector<std::int64_t> counts, std::vector<std::int64_t> totals, std::int64_t hyp_len,
                           std::int64_t ref_len, BleuOptions o) {
  BleuStats s;
  s.counts = std::move(counts);
  s.totals = std::move(totals);
  s.hyp_len = hyp_len;
  s.ref_len = ref_len;
  return compute_bleu(s, o);
}

// ---------------------------------------------------------------------------------------------------------
// Published values: sacreBLEU test/test_bleu.py
// ---------------------------------------------------------------------------------------------------------

TEST(BleuPublished, CorpusDefaults) {
  // test_corpus_bleu_cases: (_hyps, _refs, {}) -> 48.530827, also with tokenize='13a' and smooth_method='none'.
  const BleuScore s = corpus_bleu(kHyps, kRefs);
  EXPECT_NEAR(s.score, 48.530827, kTol);
  EXPECT_EQ(s.counts, (std::vector<std::int64_t>{14, 7, 5, 3}));
  EXPECT_EQ(s.totals, (std::vector<std::int64_t>{17, 14, 11, 8}));
  EXPECT_EQ(s.hyp_len, 17);
  EXPECT_EQ(s.ref_len, 18);
  EXPECT_EQ(s.format(), "BLEU = 48.53 82.4/50.0/45.5/37.5 (BP = 0.943 ratio = 0.944 hyp_len = 17 ref_len = 18)");
  EXPECT_EQ(s.signature, "nrefs:2|case:mixed|eff:no|tok:13a|smooth:exp|version:2.0.0");
  BleuOptions none;
  none.smooth = BleuSmoothing::kNone;
  EXPECT_NEAR(corpus_bleu(kHyps, kRefs, none).score, 48.530827, kTol);
  EXPECT_EQ(corpus_bleu(kHyps, kRefs, none).signature, "nrefs:2|case:mixed|eff:no|tok:13a|smooth:none|version:2.0.0");
}

TEST(BleuPublished, EmptyHypothesesAreKept) {
  // (('', '', ''), _refs, {}) -> 0.0
  const BleuScore s = corpus_bleu({"", "", ""}, kRefs);
  EXPECT_EQ(s.score, 0.0);
  EXPECT_EQ(s.hyp_len, 0);
  EXPECT_EQ(s.bp, 0.0);  // hyp_len 0 < ref_len
}

TEST(BleuPublished, TokenizeNone) {
  // (_hyps, _refs, {'tokenize': 'none'}) -> 49.1919566
  BleuOptions o;
  o.tokenize = "none";
  const BleuScore s = corpus_bleu(kHyps, kRefs, o);
  EXPECT_NEAR(s.score, 49.1919566, kTol);
  EXPECT_EQ(s.signature, "nrefs:2|case:mixed|eff:no|tok:none|smooth:exp|version:2.0.0");
}

TEST(BleuPublished, MaxNgramOrder) {
  // test_bleu_max_order: f"{score:.2f}" for orders 1..6.
  const char* expected[] = {"77.65", "60.50", "53.93", "48.53", "46.14", "43.28"};
  for (int order = 1; order <= 6; ++order) {
    BleuOptions o;
    o.max_ngram_order = order;
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.2f", corpus_bleu(kHyps, kRefs, o).score);
    EXPECT_EQ(std::string(buf), expected[order - 1]) << "order " << order;
  }
}

TEST(BleuPublished, RawCorpusBleu) {
  // test_raw_bleu_cases and test_case_effective_order, raw_corpus_bleu(hyps, refs, .01).score / 100.
  struct Case {
    Lines hyps;
    Streams refs;
    double expected;
  };
  const Case cases[] = {
      {{"this is a test", "another test"}, {{"ref1", "ref2"}}, 0.0},  // no match at all: 0 (#141)
      {{"this is a test"}, {{"this is a test"}}, 1.0},
      {{"this is a fest"}, {{"this is a test"}}, 0.223606797749979},
      {{"test"}, {{"a test"}}, 0.3678794411714425},
      {{"a test"}, {{"a test"}}, 1.0},
      {{"a little test"}, {{"a test"}}, 0.03218297948685433},
  };
  for (const Case& c : cases)
    EXPECT_NEAR(corpus_bleu(c.hyps, c.refs, raw_options(0.01)).score / 100, c.expected, 1e-8) << c.hyps[0];
}

TEST(BleuPublished, StatisticsAndOffset) {
  // test_case_statistics: counts [4, 2, 1, 0], totals [6, 5, 4, 3].
  const Lines hyp = {"am I am a character sequence"};
  const Streams ref = {{"I am a symbol string sequence a a"}};
  const BleuScore s = corpus_bleu(hyp, ref, raw_options(0.01));
  EXPECT_EQ(s.counts, (std::vector<std::int64_t>{4, 2, 1, 0}));
  EXPECT_EQ(s.totals, (std::vector<std::int64_t>{6, 5, 4, 3}));
  // test_case_offset: floor smoothing with the default 0.1 -> 0.1555722182, with 0.0 -> 0.
  EXPECT_NEAR(corpus_bleu(hyp, ref, raw_options(std::nullopt)).score / 100, 0.1555722182, 1e-8);
  EXPECT_EQ(corpus_bleu(hyp, ref, raw_options(0.0)).score, 0.0);
}

TEST(BleuPublished, ScoringAndDegenerateStatistics) {
  // test_case_scoring: compute_bleu([9,7,5,3], [10,8,6,4], 11, 11) (smooth 'none') -> 0.8375922397.
  BleuOptions none;
  none.smooth = BleuSmoothing::kNone;
  EXPECT_NEAR(score_from_stats({9, 7, 5, 3}, {10, 8, 6, 4}, 11, 11, none).score / 100, 0.8375922397, 1e-8);
  // test_case_degenerate_stats: floor smoothing with these offsets gives exactly 0.
  struct Case {
    std::vector<std::int64_t> counts, totals;
    std::int64_t hyp_len, ref_len;
    double floor;
  };
  const Case cases[] = {{{0, 0, 0, 0}, {4, 4, 2, 1}, 0, 1, 0.0}, {{0, 0, 0, 0}, {10, 11, 12, 0}, 14, 10, 0.0},
                        {{0, 0, 0, 0}, {0, 0, 0, 0}, 0, 0, 0.0}, {{6, 5, 4, 0}, {6, 5, 4, 3}, 6, 6, 0.0},
                        {{0, 0, 0, 0}, {0, 0, 0, 0}, 0, 0, 0.1}, {{0, 0, 0, 0}, {0, 0, 0, 0}, 1, 5, 0.01}};
  for (const Case& c : cases) {
    BleuOptions o;
    o.smooth = BleuSmoothing::kFloor;
    o.smooth_value = c.floor;
    EXPECT_EQ(score_from_stats(c.counts, c.totals, c.hyp_len, c.ref_len, o).score, 0.0);
  }
}

// ---------------------------------------------------------------------------------------------------------
// Published values: sacreBLEU test/test_sentence_bleu.py (a sentence score is the corpus score of one
// segment; these use effective_order=True). Its tolerance is 1e-3.
// ---------------------------------------------------------------------------------------------------------

TEST(BleuPublished, SentenceBleuSmoothingMethods) {
  // Example of sacreBLEU issue #98; note U+0163 (t-cedilla) in the reference vs U+021B (t-comma) in the output.
  const Streams ref = {{"producţia de zahăr brut se exprimă în zahăr alb;"}};
  const Lines sys = {"Producția de zahăr primă va fi exprimată în ceea ce privește zahărul alb;"};
  struct Case {
    BleuSmoothing smooth;
    std::optional<double> value;
    const char* tokenize;
    double expected;
  };
  const Case cases[] = {
      {BleuSmoothing::kExp, std::nullopt, "13a", 8.493},
      {BleuSmoothing::kNone, std::nullopt, "13a", 0.0},
      {BleuSmoothing::kFloor, std::nullopt, "13a", 4.51688},
      {BleuSmoothing::kFloor, 0.1, "13a", 4.51688},
      {BleuSmoothing::kFloor, 0.5, "13a", 10.10},
      {BleuSmoothing::kAddK, std::nullopt, "13a", 14.882},
      {BleuSmoothing::kAddK, 1.0, "13a", 14.882},
      {BleuSmoothing::kAddK, 2.0, "13a", 21.389},
      {BleuSmoothing::kExp, std::nullopt, "none", 7.347},
  };
  for (const Case& c : cases) {
    BleuOptions o;
    o.smooth = c.smooth;
    o.smooth_value = c.value;
    o.tokenize = c.tokenize;
    o.effective_order = true;
    EXPECT_NEAR(corpus_bleu(sys, ref, o).score, c.expected, 1e-3) << static_cast<int>(c.smooth) << " " << c.tokenize;
  }
  // test_cases_zero_bleu (issue #141): no match at all is 0 whatever the smoothing.
  for (BleuSmoothing m : {BleuSmoothing::kExp, BleuSmoothing::kNone, BleuSmoothing::kFloor, BleuSmoothing::kAddK}) {
    BleuOptions o;
    o.smooth = m;
    o.effective_order = true;
    EXPECT_EQ(corpus_bleu({"this is a cat"}, {{"okay thanks"}}, o).score, 0.0);
  }
}

TEST(BleuPublished, SignatureWithSmoothingValues) {
  BleuOptions o;
  o.smooth = BleuSmoothing::kFloor;
  EXPECT_EQ(bleu_signature(o, "1"), "nrefs:1|case:mixed|eff:no|tok:13a|smooth:floor[0.10]|version:2.0.0");
  o.smooth = BleuSmoothing::kAddK;
  o.lowercase = true;
  o.effective_order = true;
  EXPECT_EQ(bleu_signature(o, "var"), "nrefs:var|case:lc|eff:yes|tok:13a|smooth:add-k[1.00]|version:2.0.0");
}

// ---------------------------------------------------------------------------------------------------------
// Hand-computed BLEU cases
// ---------------------------------------------------------------------------------------------------------

TEST(BleuHand, EmptyHypothesisList) {
  // No segment: all statistics 0, no match -> score 0; hyp_len = ref_len = 0 -> BP 1, ratio 0.
  const BleuScore s = corpus_bleu({}, {{}});
  EXPECT_EQ(s.score, 0.0);
  EXPECT_EQ(s.bp, 1.0);
  EXPECT_EQ(s.ratio, 0.0);
  EXPECT_EQ(s.hyp_len, 0);
  EXPECT_EQ(s.ref_len, 0);
  EXPECT_EQ(s.format(), "BLEU = 0.00 0.0/0.0/0.0/0.0 (BP = 1.000 ratio = 0.000 hyp_len = 0 ref_len = 0)");
  EXPECT_EQ(s.signature, "nrefs:1|case:mixed|eff:no|tok:13a|smooth:exp|version:2.0.0");
}

TEST(BleuHand, EmptyHypothesisLines) {
  // Two empty hypotheses against 3 + 2 reference tokens: hyp_len 0, ref_len 5, BP 0, score 0.
  const BleuScore s = corpus_bleu({"", "   "}, {{"a b c", "d e"}});
  EXPECT_EQ(s.score, 0.0);
  EXPECT_EQ(s.hyp_len, 0);
  EXPECT_EQ(s.ref_len, 5);
  EXPECT_EQ(s.bp, 0.0);
  EXPECT_EQ(s.totals, (std::vector<std::int64_t>{0, 0, 0, 0}));
}

TEST(BleuHand, BrevityPenalty) {
  // hyp "the cat sat on the" (5 tokens) is a prefix of ref "the cat sat on the mat today" (7 tokens):
  // matches 5/5, 4/4, 3/3, 2/2, all precisions 100; BP = exp(1 - 7/5) = exp(-0.4) = 0.670320046;
  // BLEU = 100 * 0.670320046 = 67.0320046.
  const BleuScore s = corpus_bleu({"the cat sat on the"}, {{"the cat sat on the mat today"}});
  EXPECT_NEAR(s.bp, std::exp(-0.4), 1e-12);
  EXPECT_NEAR(s.score, 67.0320046, kTol);
  EXPECT_EQ(s.counts, (std::vector<std::int64_t>{5, 4, 3, 2}));
  EXPECT_EQ(s.totals, (std::vector<std::int64_t>{5, 4, 3, 2}));
  EXPECT_NEAR(s.ratio, 5.0 / 7.0, 1e-12);
  // A hypothesis longer than the reference gets no penalty.
  EXPECT_EQ(corpus_bleu({"the cat sat on the mat today and yesterday"}, {{"the cat sat on the mat today"}}).bp, 1.0);
}

TEST(BleuHand, PerfectMatchIs100) {
  const Lines text = {"The quick brown fox jumps over the lazy dog.", "Hello, world! How are you today?",
                      "Zoë's naïve café serves crème brûlée, 3.50 EUR."};
  const BleuScore s = corpus_bleu(text, {text});
  EXPECT_NEAR(s.score, 100.0, 1e-9);
  EXPECT_EQ(s.bp, 1.0);
  for (double p : s.precisions) EXPECT_NEAR(p, 100.0, 1e-9);
}

TEST(BleuHand, ExpSmoothingOfZeroMatchOrders) {
  // hyp "the cat the dog" vs ref "the dog the cat": 1-grams 4/4; 2-grams {the cat, cat the, the dog} vs
  // {the dog, dog the, the cat}: 2/3; 3-grams 0/2; 4-grams 0/1. exp smoothing: the first zero order gets
  // 100 / (2 * 2) = 25, the second 100 / (4 * 1) = 25. BLEU = (100 * 200/3 * 25 * 25)^(1/4) = 45.1801002.
  const BleuScore s = corpus_bleu({"the cat the dog"}, {{"the dog the cat"}});
  EXPECT_EQ(s.counts, (std::vector<std::int64_t>{4, 2, 0, 0}));
  EXPECT_EQ(s.totals, (std::vector<std::int64_t>{4, 3, 2, 1}));
  EXPECT_NEAR(s.precisions[2], 25.0, 1e-12);
  EXPECT_NEAR(s.precisions[3], 25.0, 1e-12);
  EXPECT_NEAR(s.score, std::pow(100.0 * 200.0 / 3.0 * 25.0 * 25.0, 0.25), 1e-9);
  EXPECT_NEAR(s.score, 45.1801002, kTol);
  // Without smoothing a zero order makes the score 0.
  BleuOptions none;
  none.smooth = BleuSmoothing::kNone;
  EXPECT_EQ(corpus_bleu({"the cat the dog"}, {{"the dog the cat"}}, none).score, 0.0);
  // An order with no hypothesis n-gram at all (3 tokens: no 4-gram) stops the walk: precision 0, score 0.
  EXPECT_EQ(corpus_bleu({"a b c"}, {{"a b c"}}).score, 0.0);
}

TEST(BleuHand, Unicode) {
  // Accents are part of the token: "resume" does not match "résumé". 4 tokens each, one differs:
  // 1-grams 3/4, 2-grams 2/3 ("J'ai mon", "mon vieux"), 3-grams 1/2, 4-grams 0/1 -> exp: 100/(2*1) = 50.
  // BLEU = (75 * 66.667 * 50 * 50)^(1/4) = 59.4603558.
  const BleuScore s = corpus_bleu({"J'ai mon vieux resume"}, {{"J'ai mon vieux résumé"}});
  EXPECT_EQ(s.counts, (std::vector<std::int64_t>{3, 2, 1, 0}));
  EXPECT_NEAR(s.score, std::pow(75.0 * 200.0 / 3.0 * 50.0 * 50.0, 0.25), 1e-9);
  EXPECT_NEAR(s.score, 59.4603558, kTol);
  // CJK: 13a splits only ASCII punctuation, so "。" stays inside the token while "." is split off.
  const BleuScore cjk = corpus_bleu({"我 喜欢 猫 和 狗。"}, {{"我 喜欢 猫 和 狗。"}});
  EXPECT_NEAR(cjk.score, 100.0, 1e-9);
  EXPECT_EQ(cjk.hyp_len, 5);
  EXPECT_EQ(corpus_bleu({"我 喜欢 猫 和 狗."}, {{"我 喜欢 猫 和 狗."}}).hyp_len, 6);
}

TEST(BleuHand, MultipleReferences) {
  // Closest reference length, the shorter on a tie: hyp of 5 tokens vs refs of 4 and 6 -> 4 (BP 1).
  const BleuScore tie = corpus_bleu({"a b c d e"}, {{"a b c d"}, {"a b c d e f"}});
  EXPECT_EQ(tie.ref_len, 4);
  EXPECT_EQ(tie.bp, 1.0);
  // hyp of 6 tokens vs refs of 3 and 8 -> 8 (|6-8| < |6-3|), not the shortest: BP = exp(1 - 8/6).
  const BleuScore closest = corpus_bleu({"a b c d e f"}, {{"a b c"}, {"a b c d e f g h"}});
  EXPECT_EQ(closest.ref_len, 8);
  EXPECT_NEAR(closest.bp, std::exp(1.0 - 8.0 / 6.0), 1e-12);
  // Clipping uses the maximum count over the references: "the" x3 in the hypothesis, 1 in ref 1, 2 in ref 2.
  const BleuScore clip = corpus_bleu({"the the the"}, {{"the cat"}, {"the the dog"}});
  EXPECT_EQ(clip.counts[0], 2);
  // An empty reference is dropped for its segment; the reference count then varies ("var").
  const BleuScore var = corpus_bleu({"a b c d", "e f g h"}, {{"a b c d", "e f g h"}, {"a b c d", ""}});
  EXPECT_NEAR(var.score, 100.0, 1e-9);
  EXPECT_EQ(var.signature, "nrefs:var|case:mixed|eff:no|tok:13a|smooth:exp|version:2.0.0");
  // A segment whose references are all empty is an error, as in sacreBLEU.
  EXPECT_THROW(corpus_bleu({"a"}, {{""}}), Error);
  // Streams of unequal length are an error.
  EXPECT_THROW(corpus_bleu({"a", "b"}, {{"a"}}), Error);
}

TEST(BleuHand, Lowercase) {
  BleuOptions lc;
  lc.lowercase = true;
  const Lines hyp = {"THE DOG BIT THE MAN. ÉTÉ ÀÖ"};
  const Streams ref = {{"the dog bit the man. été àö"}};
  EXPECT_NEAR(corpus_bleu(hyp, ref, lc).score, 100.0, 1e-9);
  EXPECT_EQ(corpus_bleu(hyp, ref).counts[0], 1);  // only "." matches with case kept
  EXPECT_EQ(corpus_bleu(hyp, ref, lc).signature, "nrefs:1|case:lc|eff:no|tok:13a|smooth:exp|version:2.0.0");
}

TEST(BleuHand, InvalidUtf8IsAnError) {
  try {
    corpus_bleu({"ok", "bad \xC3("}, {{"ok", "ok"}});
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_HAS_SUBSTR(e.what(), "hypothesis line 2");
  }
}

// ---------------------------------------------------------------------------------------------------------
// The 13a tokenizer. sacreBLEU has no unit test of its own for it (its test.sh compares whole WMT runs with
// mteval-v13a.pl); each expected output below follows from the rules in tokenizer_13a.py / tokenizer_re.py
// (listed in bleu.h) and was checked by running those exact regular expressions in Python.
// ---------------------------------------------------------------------------------------------------------

TEST(Tokenizer13a, Rules) {
  const std::pair<const char*, const char*> cases[] = {
      {"Hello, world!", "Hello , world !"},
      {"I'm a student.", "I'm a student ."},                                  // apostrophes stay inside words
      {"It costs $3.50, or 3,000 yen.", "It costs $ 3.50 , or 3,000 yen ."},  // digit.digit and digit,digit kept
      {"&quot;quoted&quot; &amp;lt;tag&amp;gt;", "\" quoted \" < tag >"},     // &amp;lt; -> &lt; -> <
      {"&amp;amp;", "& amp ;"},
      {"<skipped> well-\nknown", "wellknown"},  // <skipped> removed, "-\n" joins
      {"line one\nline two", "line one line two"},
      {"1990-2000 and e-mail", "1990 - 2000 and e-mail"},  // dash split only after a digit
      {"3-4 -5 a-", "3 - 4 -5 a-"},
      {"U.S.A. is big.", "U . S . A . is big ."},
      {"x...y", "x . . . y"},
      {"1.5.2", "1.5.2"},
      {"a.1 1.a 1,a a,1", "a . 1 1 . a 1 , a a , 1"},
      {"Price: 5.5% (approx.)", "Price : 5.5 % ( approx . )"},
      {"{[(<a|b>)]}~^_`@#", "{ [ ( < a | b > ) ] } ~ ^ _ ` @ #"},
      {"Mr. Smith's car-park.", "Mr . Smith's car-park ."},
      {"  a\t b  ", "a b"},
      {"naïve café, résumé.", "naïve café , résumé ."},
      {"Hello, 世界.", "Hello , 世界 ."},
      {"a\u00A0b\u3000c\u200Bd", "a b c\u200Bd"},  // NBSP and ideographic space split, zero-width space does not
      {"", ""},
  };
  for (const auto& [in, out] : cases) EXPECT_EQ(tokenize_13a(in), out) << "input: " << in;
}

TEST(Tokenizer13a, PreprocessStripsBeforeTokenizing) {
  BleuOptions o;
  // rstrip() runs first, so a final "-\n" is stripped to "-" and not joined with anything.
  EXPECT_EQ(bleu_preprocess("well-\n", o), "well-");
  EXPECT_EQ(bleu_preprocess("Hi there.  \t", o), "Hi there .");
  o.tokenize = "none";
  EXPECT_EQ(bleu_preprocess("Hi there.  ", o), "Hi there.");
}

// ---------------------------------------------------------------------------------------------------------
// Python string rules
// ---------------------------------------------------------------------------------------------------------

TEST(PythonText, StrictUtf8) {
  std::size_t bad = 99;
  EXPECT_TRUE(is_valid_utf8("plain, é, €, 𝄞"));
  EXPECT_FALSE(is_valid_utf8("\xC0\x80", &bad));  // overlong NUL
  EXPECT_EQ(bad, 0u);
  EXPECT_FALSE(is_valid_utf8("ab\xED\xA0\x80", &bad));  // surrogate U+D800
  EXPECT_EQ(bad, 2u);
  EXPECT_FALSE(is_valid_utf8("\xF4\x90\x80\x80"));  // past U+10FFFF
  EXPECT_FALSE(is_valid_utf8("\xE2\x82"));          // truncated
  EXPECT_FALSE(is_valid_utf8("\x80"));              // lone continuation byte
  EXPECT_EQ(to_u32("a€𝄞"), (std::u32string{U'a', 0x20AC, 0x1D11E}));
  EXPECT_EQ(to_utf8(to_u32("a€𝄞")), "a€𝄞");
}

TEST(PythonText, SplitAndStrip) {
  EXPECT_EQ(python_split("  a\x1c"
                         "b\u0085c\u2028d  "),
            (std::vector<std::string_view>{"a", "b", "c", "d"}));
  EXPECT_TRUE(python_split(" \t\n").empty());
  EXPECT_EQ(python_rstrip("x y \u00A0\u3000\r\n"), "x y");
  EXPECT_EQ(python_rstrip("x\u200B"), "x\u200B");  // U+200B is not whitespace for Python
}

TEST(PythonText, Lowercase) {
  EXPECT_EQ(python_lower(std::string_view("ABC ÀÉÎÕÜ ĀĞŁŸ")), "abc àéîõü āğłÿ");
  EXPECT_EQ(python_lower(std::string_view("ΑΒΓΔ АБВГ ԱԲ")), "αβγδ абвг աբ");
  EXPECT_EQ(python_lower(std::string_view("\u01C4\u01C5\u1E9E\u2160\uFF21\U00010400")),
            "\u01C6\u01C6\u00DF\u2170\uFF41\U00010428");
  EXPECT_EQ(python_lower(std::string_view("İ")), "i\u0307");  // the one multi-code-point mapping
  EXPECT_EQ(python_lower(std::string_view("ß 日本 ǆ")), "ß 日本 ǆ");
}

// ---------------------------------------------------------------------------------------------------------
// chrF. Published values: sacreBLEU test/test_chrf.py (its tolerance is 1e-4).
// ---------------------------------------------------------------------------------------------------------

struct ChrfCase {
  Lines hyps, refs;
  double expected;
};

TEST(ChrfPublished, EpsSmoothingBeta3) {
  // test_chrf: corpus_chrf(hyps, [refs], char_order=6, word_order=0, beta=3, eps_smoothing=True)
  const ChrfCase cases[] = {
      {{"abcdefg"}, {"hijklmnop"}, 0.0},
      {{"a"}, {"b"}, 0.0},
      {{""}, {"b"}, 0.0},
      {{""}, {"ref"}, 0.0},
      {{""}, {"reference"}, 0.0},
      {{"aa"}, {"ab"}, 8.3333},
      {{"a", "b"}, {"a", "c"}, 8.3333},
      {{"a"}, {"a"}, 16.6667},
      {{"a b c"}, {"a b c"}, 50.0},
      {{"a b c"}, {"abc"}, 50.0},
      {{" risk assessment must be made of those who are qualified and expertise in the sector - these are the "
        "scientists ."},
       {"risk assessment has to be undertaken by those who are qualified and expert in that area - that is the "
        "scientists ."},
       63.361730},
      {{" Die    Beziehung zwischen  Obama und Netanjahu ist nicht gerade  freundlich. "},
       {"Das Verhältnis zwischen Obama und Netanyahu ist nicht gerade freundschaftlich."},
       64.1302698},
      {{"Niemand hat die Absicht, eine Mauer zu errichten"},
       {"Niemand hat die Absicht, eine Mauer zu errichten"},
       100.0},
  };
  ChrfOptions o;
  o.beta = 3;
  o.eps_smoothing = true;
  for (const ChrfCase& c : cases) EXPECT_NEAR(corpus_chrf(c.hyps, {c.refs}, o).score, c.expected, kTol) << c.hyps[0];
}

TEST(ChrfPublished, EffectiveOrderBeta3) {
  // test_chrf_eff_order: beta=3, eps_smoothing=False (sacreBLEU's default averaging).
  const ChrfCase cases[] = {
      {{"a"}, {"a"}, 100.0}, {{""}, {"reference"}, 0.0},     {{"a b c"}, {"a b c"}, 100.0}, {{"a b c"}, {"abc"}, 100.0},
      {{""}, {"c"}, 0.0},    {{"a", "b"}, {"a", "c"}, 50.0}, {{"aa"}, {"ab"}, 25.0},
  };
  ChrfOptions o;
  o.beta = 3;
  for (const ChrfCase& c : cases) EXPECT_NEAR(corpus_chrf(c.hyps, {c.refs}, o).score, c.expected, kTol) << c.hyps[0];
}

TEST(ChrfPublished, KeepWhitespaceBeta3) {
  // test_chrf_keep_whitespace: beta=3, remove_whitespace=False.
  const ChrfCase cases[] = {
      {{"Die Beziehung zwischen Obama und Netanjahu ist nicht gerade freundlich."},
       {"Das Verhältnis zwischen Obama und Netanyahu ist nicht gerade freundschaftlich."},
       67.3481606},
      {{"risk assessment must be made of those who are qualified and expertise in the sector - these are the "
        "scientists ."},
       {"risk assessment has to be undertaken by those who are qualified and expert in that area - that is the "
        "scientists ."},
       65.2414427},
  };
  ChrfOptions o;
  o.beta = 3;
  o.whitespace = true;
  for (const ChrfCase& c : cases) EXPECT_NEAR(corpus_chrf(c.hyps, {c.refs}, o).score, c.expected, kTol) << c.hyps[0];
  EXPECT_EQ(chrf_signature(o, "1"), "nrefs:1|case:mixed|eff:yes|nc:6|nw:0|space:yes|version:2.0.0");
}

TEST(ChrfPublished, SentenceLevelCzech) {
  // test_chrf_sentence_level: sentence_chrf(hyp, refs, eps_smoothing=True), beta 2.
  const ChrfCase cases[] = {
      {{"Co nás nejvíc trápí, protože lékaři si vybírají, kdo bude žít a kdo zemře."},
       {"Nejvíce smutní jsme z toho, že musíme rozhodovat o tom, kdo bude žít a kdo zemře."},
       39.14078509},
      {{"Nebo prostě nemají vybavení, které by jim pomohlo, uvedli lékaři."},
       {"A někdy nemáme ani potřebný materiál, abychom jim pomohli, popsali lékaři."},
       31.22557079},
      {{"Lapali po dechu, jejich životy skončily dřív, než skutečně začaly."},
       {"Lapali po dechu a pak jejich život skončil - dřív, než skutečně mohl začít, připomněli."},
       57.15704367},
  };
  ChrfOptions o;
  o.eps_smoothing = true;
  for (const ChrfCase& c : cases) EXPECT_NEAR(corpus_chrf(c.hyps, {c.refs}, o).score, c.expected, kTol) << c.hyps[0];
}

// ---------------------------------------------------------------------------------------------------------
// Hand-computed chrF cases (defaults: nc 6, nw 0, beta 2, whitespace removed, effective-order averaging)
// ---------------------------------------------------------------------------------------------------------

TEST(ChrfHand, DefaultsAndSignature) {
  const ChrfScore s = corpus_chrf(kHyps, kRefs);
  EXPECT_EQ(s.name, "chrF2");
  EXPECT_EQ(s.signature, "nrefs:2|case:mixed|eff:yes|nc:6|nw:0|space:no|version:2.0.0");
  EXPECT_EQ(s.stats.size(), 18u);
  const Lines text = {"Perfect match, with punctuation!", "日本語のテキスト"};
  EXPECT_NEAR(corpus_chrf(text, {text}).score, 100.0, 1e-9);
  EXPECT_EQ(corpus_chrf({}, {{}}).score, 0.0);         // empty corpus
  EXPECT_EQ(corpus_chrf({""}, {{"abc"}}).score, 0.0);  // empty hypothesis line
}

TEST(ChrfHand, CjkCodePoints) {
  // hyp "日本語" vs ref "日本", characters as code points: 1-grams 3 hyp / 2 ref / 2 matches; 2-grams 2 / 1 / 1;
  // 3-grams: the reference has none, so the order is skipped (hyp count reported as 0). Averaged over the 2
  // effective orders: P = (2/3 + 1/2) / 2 = 7/12, R = (1 + 1) / 2 = 1; F2 = 5PR / (4P + R) = 35/40 = 87.5.
  const ChrfScore s = corpus_chrf({"日本語"}, {{"日本"}});
  EXPECT_NEAR(s.score, 87.5, 1e-9);
  EXPECT_EQ(s.stats, (std::vector<std::int64_t>{3, 2, 2, 2, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}));
  EXPECT_EQ(s.format(), "chrF2 = 87.50");
}

TEST(ChrfHand, WhitespaceAndCase) {
  // Whitespace (Python's, Unicode-aware) is removed before n-grams are taken.
  EXPECT_NEAR(corpus_chrf({"a b\u00A0c\u3000d"}, {{"abcd"}}).score, 100.0, 1e-9);
  ChrfOptions lc;
  lc.lowercase = true;
  EXPECT_NEAR(corpus_chrf({"ÉCOLE Straße"}, {{"école straße"}}, lc).score, 100.0, 1e-9);
  EXPECT_LT(corpus_chrf({"ÉCOLE Straße"}, {{"école straße"}}).score, 100.0);
}

TEST(ChrfHand, MultipleReferencesPickTheBestF) {
  // The segment statistics come from the reference with the best sentence F-score: a perfect second
  // reference makes the corpus score 100 whatever the first one is.
  EXPECT_NEAR(corpus_chrf({"abcdef"}, {{"zzz"}, {"abcdef"}}).score, 100.0, 1e-9);
  EXPECT_NEAR(corpus_chrf({"abcdef"}, {{"abcdef"}, {"zzz"}}).score, 100.0, 1e-9);
  EXPECT_THROW(corpus_chrf({"a"}, {{""}}), Error);
}

TEST(ChrfHand, WordNgramsChrFPlusPlus) {
  // chrF++ (word_order 2): "Hello, world" -> words "Hello" "," "world"; identical text scores 100.
  ChrfOptions o;
  o.word_order = 2;
  const ChrfScore s = corpus_chrf({"Hello, world!"}, {{"Hello, world!"}}, o);
  EXPECT_EQ(s.name, "chrF2++");
  EXPECT_NEAR(s.score, 100.0, 1e-9);
  EXPECT_EQ(s.stats.size(), 24u);
  EXPECT_EQ(s.stats[18], 4);  // word 1-grams: Hello , world !
  EXPECT_EQ(s.signature, "nrefs:1|case:mixed|eff:yes|nc:6|nw:2|space:no|version:2.0.0");
}

// ---------------------------------------------------------------------------------------------------------
// heptapod bleu
// ---------------------------------------------------------------------------------------------------------

std::string join_lines(const Lines& lines) {
  std::string text;
  for (const std::string& l : lines) text += l + "\n";
  return text;
}

TEST(BleuCommand, PrintsSacrebleuLines) {
  TempDir dir;
  const std::string hyp = dir.write("hyp.txt", join_lines(kHyps));
  const std::string ref1 = dir.write("ref1.txt", join_lines(kRefs[0]));
  const std::string ref2 = dir.write("ref2.txt", join_lines(kRefs[1]));
  std::string log;
  ASSERT_EQ(run_heptapod("bleu " + quoted(ref1) + " " + quoted(ref2) + " -i " + quoted(hyp), dir, log), 0) << log;
  char chrf_line[64];
  std::snprintf(chrf_line, sizeof chrf_line, "chrF2 = %.2f\n", corpus_chrf(kHyps, kRefs).score);
  EXPECT_EQ(log,
            "BLEU = 48.53 82.4/50.0/45.5/37.5 (BP = 0.943 ratio = 0.944 hyp_len = 17 ref_len = 18)\n"
            "nrefs:2|case:mixed|eff:no|tok:13a|smooth:exp|version:2.0.0\n" +
                std::string(chrf_line) + "nrefs:2|case:mixed|eff:yes|nc:6|nw:0|space:no|version:2.0.0\n");

  // Standard input, CRLF line ends and no final newline give the same result.
  const std::string crlf = dir.write("crlf.txt", kHyps[0] + "\r\n" + kHyps[1] + "\r\n" + kHyps[2]);
  std::string log2;
  ASSERT_EQ(run_heptapod("bleu " + quoted(ref1) + " " + quoted(ref2) + " < " + quoted(crlf), dir, log2), 0) << log2;
  EXPECT_EQ(log2, log);

  // --metrics picks and orders the metrics.
  ASSERT_EQ(run_heptapod("bleu " + quoted(ref1) + " -i " + quoted(hyp) + " --metrics chrf", dir, log), 0) << log;
  EXPECT_EQ(log.rfind("chrF2 = ", 0), 0u) << log;
  EXPECT_EQ(log.find("BLEU"), std::string::npos) << log;
}

TEST(BleuCommand, Json) {
  TempDir dir;
  const std::string hyp = dir.write("hyp.txt", join_lines(kHyps));
  const std::string ref1 = dir.write("ref1.txt", join_lines(kRefs[0]));
  const std::string ref2 = dir.write("ref2.txt", join_lines(kRefs[1]));
  std::string log;
  ASSERT_EQ(run_heptapod("bleu " + quoted(ref1) + " " + quoted(ref2) + " -i " + quoted(hyp) + " --json", dir, log), 0)
      << log;
  const nlohmann::json j = nlohmann::json::parse(log);
  ASSERT_EQ(j.size(), 2u);
  EXPECT_EQ(j[0]["name"], "BLEU");
  EXPECT_NEAR(j[0]["score"].get<double>(), 48.530827, kTol);
  EXPECT_EQ(j[0]["counts"], nlohmann::json({14, 7, 5, 3}));
  EXPECT_EQ(j[0]["ref_len"], 18);
  EXPECT_EQ(j[0]["tok"], "13a");
  EXPECT_EQ(j[0]["verbose_score"], "82.4/50.0/45.5/37.5 (BP = 0.943 ratio = 0.944 hyp_len = 17 ref_len = 18)");
  EXPECT_EQ(j[1]["name"], "chrF2");
  EXPECT_NEAR(j[1]["score"].get<double>(), corpus_chrf(kHyps, kRefs).score, 1e-9);
  EXPECT_EQ(j[1]["nrefs"], "2");
}

TEST(BleuCommand, LineCountMismatchNamesFilesAndCounts) {
  TempDir dir;
  const std::string hyp = dir.write("hyp.txt", "a\nb\nc\n");
  const std::string ref = dir.write("short_ref.txt", "a\nb\n");
  std::string log;
  EXPECT_EQ(run_heptapod("bleu " + quoted(ref) + " -i " + quoted(hyp), dir, log), 1);
  EXPECT_HAS_SUBSTR(log, "hyp.txt has 3 lines");
  EXPECT_HAS_SUBSTR(log, "short_ref.txt has 2");
}

TEST(BleuCommand, InvalidUtf8NamesFileAndLine) {
  TempDir dir;
  const std::string hyp = dir.write("hyp.txt", "a\nb\n");
  const std::string ref = dir.write("bad_ref.txt", "a\nb \xFF c\n");
  std::string log;
  EXPECT_EQ(run_heptapod("bleu " + quoted(ref) + " -i " + quoted(hyp), dir, log), 1);
  EXPECT_HAS_SUBSTR(log, "bad_ref.txt:2: invalid UTF-8");
}

}  // namespace
}  // namespace heptapod::eval
