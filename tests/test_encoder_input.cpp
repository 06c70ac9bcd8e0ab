// BERT's layout of an encoder's input (data/encoder_input.h): a text as [CLS] tokens [SEP] of segment 0, a
// pair as [CLS] first [SEP] second [SEP] with the second part of segment 1; cutting keeps a text's first
// tokens and drops a pair's tokens from the end of its longer text (the first's on a tie), as BERT's
// truncate_seq_pair does; a pair's line splits at its first tab.
#include <gtest/gtest.h>

#include "heptapod/core/error.h"
#include "heptapod/data/encoder_input.h"

namespace heptapod {
namespace {

constexpr int kBos = 1, kEos = 2;

TEST(EncoderInput, ATextIsStartTokensEndOfSegmentZero) {
  const EncoderInput in = layout_text({7, 8, 9}, 10, kBos, kEos);
  EXPECT_EQ(in.tokens, (std::vector<int>{kBos, 7, 8, 9, kEos}));
  EXPECT_EQ(in.types, (std::vector<int>{0, 0, 0, 0, 0}));
  EXPECT_FALSE(in.truncated);
  const EncoderInput cut = layout_text({7, 8, 9}, 4, kBos, kEos);
  EXPECT_EQ(cut.tokens, (std::vector<int>{kBos, 7, 8, kEos}));
  EXPECT_TRUE(cut.truncated);
  EXPECT_EQ(layout_text({}, 2, kBos, kEos).tokens, (std::vector<int>{kBos, kEos}));
  EXPECT_THROW(layout_text({7}, 1, kBos, kEos), Error);
}

TEST(EncoderInput, APairsSecondTextAndItsEndTokenAreSegmentOne) {
  const EncoderInput in = layout_pair({7, 8}, {20, 21, 22}, 16, kBos, kEos);
  EXPECT_EQ(in.tokens, (std::vector<int>{kBos, 7, 8, kEos, 20, 21, 22, kEos}));
  EXPECT_EQ(in.types, (std::vector<int>{0, 0, 0, 0, 1, 1, 1, 1}));
  EXPECT_FALSE(in.truncated);
  EXPECT_EQ(layout_pair({}, {}, 3, kBos, kEos).tokens, (std::vector<int>{kBos, kEos, kEos}));
  EXPECT_THROW(layout_pair({7}, {8}, 2, kBos, kEos), Error);
}

// DistilBERT's pair (a model without token types): BERT's layout, every token of segment 0.
TEST(EncoderInput, AnUntypedPairIsAllSegmentZero) {
  const EncoderInput in = layout_pair({7, 8}, {20, 21, 22}, 16, kBos, kEos, false, false);
  EXPECT_EQ(in.tokens, (std::vector<int>{kBos, 7, 8, kEos, 20, 21, 22, kEos}));
  EXPECT_EQ(in.types, std::vector<int>(8, 0));
}

TEST(EncoderInput, APairLosesTokensFromTheEndOfItsLongerText) {
  // Room for 4 of 2 + 5 tokens: the second loses three (5 -> 4 -> 3 -> 2, the first's 2 never longer).
  const EncoderInput a = layout_pair({7, 8}, {20, 21, 22, 23, 24}, 7, kBos, kEos);
  EXPECT_EQ(a.tokens, (std::vector<int>{kBos, 7, 8, kEos, 20, 21, kEos}));
  EXPECT_TRUE(a.truncated);
  // A tie drops from the first: room 3 of 2 + 2 -> the first loses one.
  const EncoderInput b = layout_pair({7, 8}, {20, 21}, 6, kBos, kEos);
  EXPECT_EQ(b.tokens, (std::vector<int>{kBos, 7, kEos, 20, 21, kEos}));
  EXPECT_EQ(b.types, (std::vector<int>{0, 0, 0, 1, 1, 1}));
  // Room 2 of 4 + 4: first, second, first, second... leaves one each.
  const EncoderInput c = layout_pair({7, 8, 9, 10}, {20, 21, 22, 23}, 5, kBos, kEos);
  EXPECT_EQ(c.tokens, (std::vector<int>{kBos, 7, kEos, 20, kEos}));
}

TEST(EncoderInput, APairsLineSplitsAtItsFirstTab) {
  EXPECT_EQ(split_pair("a b\tc\td", "f:1"), (std::pair<std::string, std::string>{"a b", "c\td"}));
  EXPECT_EQ(split_pair("\t", "f:1"), (std::pair<std::string, std::string>{"", ""}));
  try {
    split_pair("no tab here", "pairs.txt:7");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("pairs.txt:7: a sentence pair needs a tab"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace heptapod
