// Edit-distance error rates (WER/PER) with several references, and word-level vocabularies for symbol
// sequences such as phonemes.
#include <gtest/gtest.h>

#include "heptapod/core/error.h"
#include "heptapod/data/vocabulary.h"
#include "heptapod/eval/error_rate.h"
#include "test_process.h"

namespace heptapod {
namespace {

std::vector<std::string_view> tok(std::initializer_list<std::string_view> t) { return t; }

TEST(ErrorRate, EditDistanceCountsInsertionsDeletionsSubstitutions) {
  EXPECT_EQ(eval::edit_distance(tok({}), tok({})), 0u);
  EXPECT_EQ(eval::edit_distance(tok({"a", "b"}), tok({})), 2u);
  EXPECT_EQ(eval::edit_distance(tok({}), tok({"a"})), 1u);
  EXPECT_EQ(eval::edit_distance(tok({"K", "AE", "T"}), tok({"K", "AE", "T"})), 0u);
  EXPECT_EQ(eval::edit_distance(tok({"K", "AE", "T"}), tok({"K", "AH", "T"})), 1u);
  EXPECT_EQ(eval::edit_distance(tok({"a", "b", "c", "d"}), tok({"b", "c", "d", "e"})), 2u);  // delete a, insert e
  EXPECT_EQ(eval::edit_distance(tok({"k", "i", "t", "t", "e", "n"}), tok({"s", "i", "t", "t", "i", "n", "g"})), 3u);
}

TEST(ErrorRate, ClosestReferenceCountsAndAnyExactMatchIsRight) {
  // "tomato" has two pronunciations: the hypothesis matches the second one.
  const eval::ErrorRates r = eval::error_rates(
      {"T AH M EY T OW", "K AE T", ""}, {{"T AH M AA T OW", "T AH M EY T OW"}, {"D AO G"}, {"AH"}});
  EXPECT_EQ(r.lines, 3);
  EXPECT_EQ(r.wrong_lines, 2);
  EXPECT_EQ(r.edits, 0 + 3 + 1);
  EXPECT_EQ(r.reference_tokens, 6 + 3 + 1);
  EXPECT_NEAR(r.token_error_rate(), 40.0, 1e-9);
  EXPECT_NEAR(r.line_error_rate(), 200.0 / 3, 1e-9);
  EXPECT_THROW(eval::error_rates({"a"}, {}), Error);
  EXPECT_THROW(eval::error_rates({"a"}, {{}}), Error);
}

TEST(ErrorRate, CliReadsAlternativesAndReportsBoth) {
  test::TempDir dir;
  const std::string refs = dir.write("refs.txt", "T AH M AA T OW ||| T AH M EY T OW\nD AO G\n");
  const std::string hyps = dir.write("hyps.txt", "T AH M EY T OW\nD AO\n");
  std::string log;
  ASSERT_EQ(test::run_heptapod("error-rate " + test::quoted(refs) + " -i " + test::quoted(hyps), dir, log), 0) << log;
  EXPECT_HAS_SUBSTR(log, "token error rate = 11.11% (1 edits / 9 reference tokens)");
  EXPECT_HAS_SUBSTR(log, "line error rate = 50.00% (1 of 2 lines wrong)");
}

TEST(Vocabulary, WordModelKeepsEverySymbolWhole) {
  VocabConfig c;
  c.model = VocabConfig::Model::Word;
  const Vocabulary v = Vocabulary::train({"HH AH L OW", "W ER L D", "HH AH L OW W ER L D"}, c);
  EXPECT_EQ(v.encode("HH AH L OW").size(), 4u);
  EXPECT_EQ(v.decode(v.encode("W ER L D")), "W ER L D");
}

}  // namespace
}  // namespace heptapod
