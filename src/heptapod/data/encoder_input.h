// An encoder's input as BERT lays it out: a text as the start token ([CLS]), its tokens and the end token
// ([SEP]), all of segment (token type) 0; a sentence pair as [CLS] first [SEP] second [SEP], the second text
// and its end token of segment 1. Cut to the model's learned positions: a text keeps its first tokens, a
// pair drops the last token of its longer text until it fits (the first's on a tie), as BERT cuts pairs.
// RoBERTa lays a pair out as <s> first </s></s> second </s>, all of segment 0; DistilBERT as BERT, all of
// segment 0.
// Shared by training (train/classification_task.h) and the Encoder front end (decode/encoder.h), so a text
// is read the same way by both.
#pragma once

#include <string>
#include <vector>

namespace heptapod {

struct EncoderInput {
  std::vector<int> tokens;  // (n): start token, the text's tokens (as kept), end token (and the second's)
  std::vector<int> types;   // (n): each token's segment, 0 or 1
  bool truncated = false;   // longer than `limit`: tokens were dropped
};

// A text's tokens (`first`), or a pair's (`first`, `second`), laid out under at most `limit` tokens in all
// (limit >= 2 for a text, >= 3 for a pair).
EncoderInput layout_text(std::vector<int> first, int limit, int bos_id, int eos_id);
// double_separator: RoBERTa's pair, <s> first </s></s> second </s>, every token of segment 0 (limit >= 4).
// typed false: every token of segment 0 (DistilBERT's [CLS] first [SEP] second [SEP]: it has no token types).
EncoderInput layout_pair(std::vector<int> first, std::vector<int> second, int limit, int bos_id, int eos_id,
                         bool double_separator = false, bool typed = true);

// A sentence pair's line: "first<TAB>second", split at its first tab. An Error when it has no tab, naming
// `where` (a file and line).
std::pair<std::string, std::string> split_pair(const std::string& line, const std::string& where);

}  // namespace heptapod
