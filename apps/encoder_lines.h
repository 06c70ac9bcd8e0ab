// A window of input lines as an encoder-only model reads them (`heptapod embed`, `classify` and `score`):
// texts, or with --pairs sentence pairs "first<TAB>second", each tokenized once, with a warning on stderr for
// every line cut to the model's length (Encoder::input_limit()).
#pragma once

#include <cstdio>
#include <string>
#include <vector>

#include "heptapod/decode/encoder.h"

namespace heptapod::app {

// lines: the window, the first of them line first + 1 of `input` ("" or "-": standard input); `verb` says
// what the command does with what fits ("embedded").
inline std::vector<EncoderInput> encode_window(const Encoder& encoder, const std::vector<std::string>& lines,
                                               bool pairs, const std::string& input, std::size_t first,
                                               const char* verb) {
  const std::string source = input.empty() || input == "-" ? "standard input" : input;
  std::vector<EncoderInput> inputs = encoder.encode_lines(lines, pairs, source, first);
  for (std::size_t i = 0; i < inputs.size(); ++i)
    if (inputs[i].truncated)
      std::fprintf(stderr, "warning: line %zu: longer than the model's %d tokens (its limit, or --max-length); %s the "
                           "%zu that fit\n",
                   first + i + 1, encoder.input_limit(), verb, inputs[i].tokens.size());
  return inputs;
}

}  // namespace heptapod::app
