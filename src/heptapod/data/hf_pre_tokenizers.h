// The pre-tokenizers of a tokenizer.json ("pre_tokenizer"): Split (a string or regular expression, each of
// Hugging Face's five delimiter behaviours, inverted or not), ByteLevel (GPT-2's pattern when use_regex, the
// text's bytes as GPT-2's byte symbols), Metaspace (spaces as "▁", prepended always, first or never, split
// before each "▁" or not), Digits, Whitespace, WhitespaceSplit and Sequence (read as its steps in order).
// The others (BertPreTokenizer, Punctuation, CharDelimiterSplit, UnicodeScripts, ...) are refused by name.
// Each step cuts every text piece into smaller ones; the added tokens split out before stay as they are, and
// empty pieces are dropped.
#pragma once

#include <string>
#include <variant>
#include <vector>

#include "heptapod/data/hf_json.h"
#include "heptapod/data/hf_regex.h"

namespace heptapod::hf {

// A part of the input on its way to the model: text, or an added token already found (id >= 0).
struct Piece {
  std::string text;
  int id = -1;
  bool at_start = false;  // the piece begins the input (where Metaspace's "first" scheme prepends)
};

// What becomes of the delimiters a pattern finds, as Hugging Face names it ("the-final--countdown" split on
// "-": Removed the|final|countdown, Isolated the|-|final|-|-|countdown, MergedWithPrevious the-|final-|-|
// countdown, MergedWithNext the|-final|-|-countdown, Contiguous the|-|final|--|countdown).
enum class SplitBehavior { Removed, Isolated, MergedWithPrevious, MergedWithNext, Contiguous };

struct Split {
  Regex pattern;
  SplitBehavior behavior;
  bool invert = false;  // the pattern finds the pieces, and the text between them is the delimiter
};
struct ByteLevel {
  bool add_prefix_space = true;  // a space before every piece that lacks one
  bool use_regex = true;         // cut by GPT-2's pattern first
};
enum class PrependScheme { Always, First, Never };
struct Metaspace {
  std::string replacement = "\xe2\x96\x81";  // one character, "▁" by default
  PrependScheme prepend = PrependScheme::Always;
  bool split = true;
};
struct Digits {
  bool individual_digits = false;  // every digit alone, else each run of digits
};
struct Whitespace {};       // runs of word characters and runs of other non-space characters
struct WhitespaceSplit {};  // the text between white space
using PreTokenizer = std::variant<Split, ByteLevel, Metaspace, Digits, Whitespace, WhitespaceSplit>;

// The "pre_tokenizer" node (absent or null: none) as its steps in order.
std::vector<PreTokenizer> read_pre_tokenizers(const JsonNode& tokenizer_json);
// A Metaspace node (the pre-tokenizer's and the decoder's): replacement, prepend_scheme or the older
// add_prefix_space, split.
Metaspace read_metaspace(const JsonNode& node);

// The pieces after every step.
std::vector<Piece> pre_tokenize(const std::vector<PreTokenizer>& steps, std::vector<Piece> pieces);

}  // namespace heptapod::hf
