// One generated output's text as it is made: its new text past the prompt, where a stop string ends it, and
// which part of it is final and may be streamed. Shared by the Generator (one per prompt) and continuous
// batching (one per sample), so both cut and stream the same bytes.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "heptapod/data/vocabulary.h"

namespace heptapod {

class OutputText {
 public:
  // Receives each final piece of the new text; the pieces add up to the finished output's new text.
  using Emit = std::function<void(std::string_view piece)>;

  // prompt_text: what the output's whole text begins with (the prompt as kept); prompt_tokens: its length in
  // tokens. `vocab` must outlive this.
  OutputText(const Vocabulary& vocab, std::string prompt_text, std::size_t prompt_tokens,
             const std::vector<std::string>& stop);

  // After the output took a token (tokens: the prompt's and the new ones): whether a stop string now appears
  // in its new text. With `emit`, streams what of the new text can no longer change: not a tail that may
  // still become a stop string, nor a character whose bytes have not all arrived.
  bool advance(const std::vector<int>& tokens, const Emit& emit);
  // The finished output's new text, cut before its first stop string (`stopped` says whether one cut it);
  // with `emit`, streams what advance() held back.
  std::string finish(const std::vector<int>& tokens, const Emit& emit, bool& stopped);

  const std::string& prompt_text() const { return prompt_text_; }

 private:
  // The new text of `tokens`: the whole text past the prompt's (SentencePiece joins pieces across the seam,
  // so the new tokens alone could lose a leading space), or the new tokens' own text if the whole does not
  // begin with the prompt's.
  std::string new_text(const std::vector<int>& tokens) const;
  std::size_t first_stop(const std::string& text) const;  // where the first stop string begins, or npos
  // Streams text[emitted, ready) if the text still begins with what was streamed, never ending inside a
  // character (nor, unless final, before an unfinished byte-fallback character, decoded as U+FFFD).
  void stream_up_to(const std::string& text, std::size_t ready, bool final, const Emit& emit);

  const Vocabulary& vocab_;
  std::string prompt_text_;
  std::size_t prompt_tokens_;
  const std::vector<std::string>& stop_;
  std::size_t hold_ = 0;   // bytes held back while they may still become a stop string
  std::string emitted_;    // the new text streamed so far
};

}  // namespace heptapod
