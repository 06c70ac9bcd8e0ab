// One generated output's text as it is made: its new text past the prompt, where a stop string ends it, and
// which part of it is final and may be streamed, with the new tokens whose text each streamed piece completes.
// Shared by the Generator (one per prompt) and continuous batching (one per sample), so both cut and stream
// the same bytes.
//
// Which tokens go with which piece (the new tokens counted from 0): token i ends where the new text of the
// tokens up to it ends; a token whose text ends inside a character (the text up to it ends with U+FFFD) ends
// where the token that finishes the character ends. A piece carries the tokens not carried before whose end
// lies within the text streamed so far, its own bytes included. The output's tokens of text (finish()) are
// all its new tokens when no stop string cut it, else those that end at or before the cut and the one the cut
// falls inside; the last piece, made by finish(), carries those not carried before, and is empty when no text
// was left to stream. So the pieces add up to the new text and their tokens to the tokens of text. A piece
// may be empty when it carries tokens that add no text of their own. A token of text begins where the one
// before it ends (the first at 0): its byte offset in the new text (token_start).
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
  // Receives each final piece of the new text and the new tokens [first, last) that go with it (see the
  // header).
  using Emit = std::function<void(std::string_view piece, std::size_t first, std::size_t last)>;

  // The finished output's new text, cut before its first stop string (`stopped` says whether one cut it),
  // and how many of its new tokens are tokens of that text (all of them unless a stop string cut it and the
  // OutputText counts tokens).
  struct Finished {
    std::string text;
    bool stopped = false;
    std::size_t tokens = 0;
  };

  // prompt_text: what the output's whole text begins with (the prompt as kept); prompt_tokens: its length in
  // tokens. count_tokens: whether finish() counts the tokens of text and finds where each begins
  // (token_start), for their records (it decodes the output token by token once more). `vocab` must outlive
  // this.
  OutputText(const Vocabulary& vocab, std::string prompt_text, std::size_t prompt_tokens,
             const std::vector<std::string>& stop, bool count_tokens = false);

  // After the output took a token (tokens: the prompt's and the new ones): whether a stop string now appears
  // in its new text. With `emit`, streams what of the new text can no longer change: not a tail that may
  // still become a stop string, nor a character whose bytes have not all arrived.
  bool advance(const std::vector<int>& tokens, const Emit& emit);
  // The finished output (see Finished); with `emit`, streams what advance() held back.
  Finished finish(const std::vector<int>& tokens, const Emit& emit);

  const std::string& prompt_text() const { return prompt_text_; }
  // Where new token i's text begins in the new text (bytes), once a piece carried it (with count_tokens, every
  // token of text of the output finish() finished last).
  std::size_t token_start(std::size_t i) const { return i < starts_.size() ? starts_[i] : 0; }

 private:
  // The new text of `tokens`: the whole text past the prompt's (SentencePiece joins pieces across the seam,
  // so the new tokens alone could lose a leading space), or the new tokens' own text if the whole does not
  // begin with the prompt's.
  std::string new_text(const std::vector<int>& tokens) const;
  std::size_t first_stop(const std::string& text) const;  // where the first stop string begins, or npos
  // Where each new token of `tokens` begins in their new text, for the tokens of that text cut at `cut` (npos:
  // not cut; see the header).
  std::vector<std::size_t> text_token_starts(const std::vector<int>& tokens, std::size_t cut) const;
  // Streams text[emitted, ready) if the text still begins with what was streamed, never ending inside a
  // character (nor, unless final, before an unfinished byte-fallback character, decoded as U+FFFD), with the
  // tokens it completes; final_tokens (npos: not final) is the count of tokens of text, all carried now.
  void stream_up_to(const std::string& text, std::size_t ready, std::size_t final_tokens, const Emit& emit);

  const Vocabulary& vocab_;
  std::string prompt_text_;
  std::size_t prompt_tokens_;
  const std::vector<std::string>& stop_;
  bool count_tokens_;
  std::size_t hold_ = 0;   // bytes held back while they may still become a stop string
  std::string emitted_;    // the new text streamed so far
  std::vector<std::size_t> ends_;    // while streaming: where each new token's text ends (npos: not yet known)
  std::vector<std::size_t> starts_;  // where each token carried (or counted by finish) begins
  std::size_t carried_ = 0;          // new tokens carried by the pieces streamed
};

}  // namespace heptapod
