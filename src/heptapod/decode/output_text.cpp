// OutputText: an output's new text, cut at stop strings and streamed once final.
#include "heptapod/decode/output_text.h"

#include <algorithm>

namespace heptapod {

OutputText::OutputText(const Vocabulary& vocab, std::string prompt_text, std::size_t prompt_tokens,
                       const std::vector<std::string>& stop)
    : vocab_(vocab), prompt_text_(std::move(prompt_text)), prompt_tokens_(prompt_tokens), stop_(stop) {
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

void OutputText::stream_up_to(const std::string& text, std::size_t ready, bool final, const Emit& emit) {
  static constexpr std::string_view kReplacement = "\xEF\xBF\xBD";
  if (text.compare(0, emitted_.size(), emitted_) != 0) return;
  const std::size_t unfinished = text.rfind(kReplacement);
  if (!final && unfinished != std::string::npos && unfinished + kReplacement.size() == text.size())
    ready = std::min(ready, unfinished);
  while (ready > emitted_.size() && ready < text.size() && (static_cast<unsigned char>(text[ready]) & 0xC0) == 0x80)
    --ready;
  if (ready <= emitted_.size()) return;
  emit(std::string_view(text).substr(emitted_.size(), ready - emitted_.size()));
  emitted_ = text.substr(0, ready);
}

bool OutputText::advance(const std::vector<int>& tokens, const Emit& emit) {
  if (stop_.empty() && !emit) return false;
  const std::string text = new_text(tokens);
  const std::size_t cut = first_stop(text);
  if (emit) stream_up_to(text, cut != std::string::npos ? cut : text.size() - std::min(hold_, text.size()), false, emit);
  return cut != std::string::npos;
}

std::string OutputText::finish(const std::vector<int>& tokens, const Emit& emit, bool& stopped) {
  std::string text = new_text(tokens);
  const std::size_t cut = first_stop(text);
  stopped = cut != std::string::npos;
  if (stopped) text.resize(cut);
  if (emit) stream_up_to(text, text.size(), true, emit);
  return text;
}

}  // namespace heptapod
