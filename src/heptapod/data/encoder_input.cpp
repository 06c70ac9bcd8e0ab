// BERT's layout of an encoder's text or sentence pair, and its cutting to the learned positions.
#include "heptapod/data/encoder_input.h"

#include "heptapod/core/error.h"

namespace heptapod {

EncoderInput layout_text(std::vector<int> first, int limit, int bos_id, int eos_id) {
  require(limit >= 2, "encoder input: room for the start and end tokens is needed");
  EncoderInput in;
  const std::size_t room = static_cast<std::size_t>(limit - 2);
  if (first.size() > room) {
    first.resize(room);
    in.truncated = true;
  }
  in.tokens.reserve(first.size() + 2);
  in.tokens.push_back(bos_id);
  in.tokens.insert(in.tokens.end(), first.begin(), first.end());
  in.tokens.push_back(eos_id);
  in.types.assign(in.tokens.size(), 0);
  return in;
}

EncoderInput layout_pair(std::vector<int> first, std::vector<int> second, int limit, int bos_id, int eos_id,
                         bool double_separator, bool typed) {
  const int framing = double_separator ? 4 : 3;
  require(limit >= framing, "encoder input: a sentence pair needs room for its start and " +
                                std::to_string(framing - 1) + " end tokens");
  EncoderInput in;
  const std::size_t room = static_cast<std::size_t>(limit - framing);
  while (first.size() + second.size() > room) {
    (first.size() >= second.size() ? first : second).pop_back();
    in.truncated = true;
  }
  in.tokens.push_back(bos_id);
  in.tokens.insert(in.tokens.end(), first.begin(), first.end());
  in.tokens.push_back(eos_id);
  if (double_separator) in.tokens.push_back(eos_id);
  in.types.assign(in.tokens.size(), 0);
  in.tokens.insert(in.tokens.end(), second.begin(), second.end());
  in.tokens.push_back(eos_id);
  in.types.resize(in.tokens.size(), double_separator || !typed ? 0 : 1);
  return in;
}

std::pair<std::string, std::string> split_pair(const std::string& line, const std::string& where) {
  const std::size_t tab = line.find('\t');
  require(tab != std::string::npos, where + ": a sentence pair needs a tab between its two texts");
  return {line.substr(0, tab), line.substr(tab + 1)};
}

}  // namespace heptapod
