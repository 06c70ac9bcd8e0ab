// OutputText: an output's new text, cut at stop strings and streamed once final, with its tokens.
#include "heptapod/decode/output_text.h"

#include <algorithm>

namespace heptapod {

namespace {

constexpr std::string_view kReplacement = "\xEF\xBF\xBD";

// Whether decoded text ends with U+FFFD: a character whose bytes have not all arrived.
bool ends_unfinished(const std::string& text) {
  return text.size() >= kReplacement.size() &&
         text.compare(text.size() - kReplacement.size(), kReplacement.size(), kReplacement) == 0;
}

// Records that the first `count` new tokens' text is `text`: the last one, and any before it that ended inside
// a character, end where it ends, unless it too ends inside one.
void note_end(std::vector<std::size_t>& ends, std::size_t count, const std::string& text) {
  ends.resize(count, std::string::npos);
  if (ends_unfinished(text)) return;
  for (std::size_t i = count; i-- > 0 && ends[i] == std::string::npos;) ends[i] = text.size();
}

}  // namespace

OutputText::OutputText(const Vocabulary& vocab, std::string prompt_text, std::size_t prompt_tokens,
                       const std::vector<std::string>& stop, bool count_tokens)
    : vocab_(vocab), prompt_text_(std::move(prompt_text)), prompt_tokens_(prompt_tokens), stop_(stop),
      count_tokens_(count_tokens) {
  for (const std::string& s : stop_) hold_ = std::max(hold_, s.size() - 1);
}

std::string OutputText::new_text(const std::vector<int>& tokens) const {
  const std::string whole = vocab_.decode(tokens);
  if (whole.compare(0, prompt_text_.size(), prompt_text_) == 0) return whole.substr(prompt_text_.size());
  return vocab_.decode({tokens.begin() + static_cast<long>(prompt_tokens_), tokens.end()});
}

std::size_t OutputText::first_stop(const std::string& text) const {
  std::size_t at = std::string::npos;
  for (const std::string& s : stop_) at = std::min(at, text.find(s));
  return at;
}

std::vector<std::size_t> OutputText::text_token_starts(const std::vector<int>& tokens, std::size_t cut) const {
  const std::size_t n = tokens.size() - prompt_tokens_;
  std::vector<std::size_t> ends;
  std::vector<int> upto(tokens.begin(), tokens.begin() + static_cast<long>(prompt_tokens_));
  std::string text;
  for (std::size_t i = 0; i < n; ++i) {
    upto.push_back(tokens[prompt_tokens_ + i]);
    text = new_text(upto);
    note_end(ends, i + 1, text);
  }
  for (std::size_t& end : ends) end = std::min(end, text.size());  // the last character never finished
  std::vector<std::size_t> starts;
  for (std::size_t i = 0, begin = 0; i < n && (begin < cut || ends[i] <= cut); begin = ends[i++]) starts.push_back(begin);
  return starts;
}

void OutputText::stream_up_to(const std::string& text, std::size_t ready, std::size_t final_tokens,
                              const Emit& emit) {
  const bool final = final_tokens != std::string::npos;
  std::string_view piece;
  if (text.compare(0, emitted_.size(), emitted_) == 0) {
    const std::size_t unfinished = text.rfind(kReplacement);
    if (!final && unfinished != std::string::npos && unfinished + kReplacement.size() == text.size())
      ready = std::min(ready, unfinished);
    while (ready > emitted_.size() && ready < text.size() && (static_cast<unsigned char>(text[ready]) & 0xC0) == 0x80)
      --ready;
    if (ready > emitted_.size()) {
      piece = std::string_view(text).substr(emitted_.size(), ready - emitted_.size());
      emitted_ = text.substr(0, ready);
    }
  }
  const std::size_t first = carried_;
  if (final)
    carried_ = std::max(carried_, final_tokens);
  else
    for (; carried_ < ends_.size() && ends_[carried_] <= emitted_.size(); ++carried_)
      starts_.push_back(carried_ > 0 ? ends_[carried_ - 1] : 0);
  if (!piece.empty() || carried_ > first) emit(piece, first, carried_);
}

bool OutputText::advance(const std::vector<int>& tokens, const Emit& emit) {
  if (stop_.empty() && !emit) return false;
  const std::string text = new_text(tokens);
  const std::size_t cut = first_stop(text);
  if (emit) {
    note_end(ends_, tokens.size() - prompt_tokens_, text);
    stream_up_to(text, cut != std::string::npos ? cut : text.size() - std::min(hold_, text.size()),
                 std::string::npos, emit);
  }
  return cut != std::string::npos;
}

OutputText::Finished OutputText::finish(const std::vector<int>& tokens, const Emit& emit) {
  Finished f;
  f.text = new_text(tokens);
  const std::size_t cut = first_stop(f.text);
  f.stopped = cut != std::string::npos;
  f.tokens = tokens.size() - prompt_tokens_;
  if (count_tokens_) {
    const std::vector<std::size_t> starts = text_token_starts(tokens, cut);
    starts_.resize(carried_);  // a beam's outputs finish one after another, none streamed
    for (std::size_t i = starts_.size(); i < starts.size(); ++i) starts_.push_back(starts[i]);
    f.tokens = starts_.size();  // those streamed already among them
  }
  if (f.stopped) f.text.resize(cut);
  if (emit) stream_up_to(f.text, f.text.size(), f.tokens, emit);
  return f;
}

}  // namespace heptapod
