// The translation queue: a BatchQueue over Translator::translate, batching requests of the same search.
#include "heptapod/serve/translation_queue.h"

namespace heptapod {

bool same_search(const TranslateOptions& a, const TranslateOptions& b) {
  const SearchOptions &s = a.search, &t = b.search;
  return s.beam == t.beam && s.length_penalty == t.length_penalty && s.max_extra_length == t.max_extra_length &&
         s.nbest == t.nbest && s.min_length == t.min_length && s.cache == t.cache &&
         s.guards.repetition_penalty == t.guards.repetition_penalty &&
         s.guards.no_repeat_ngram == t.guards.no_repeat_ngram && a.sample == b.sample &&
         a.sampling.temperature == b.sampling.temperature && a.sampling.top_k == b.sampling.top_k &&
         a.sampling.top_p == b.sampling.top_p && a.sampling.seed == b.sampling.seed &&
         a.batch_tokens == b.batch_tokens && a.max_input_tokens == b.max_input_tokens &&
         a.reject_long_inputs == b.reject_long_inputs && a.source_language == b.source_language &&
         a.target_language == b.target_language;
}

TranslationQueue::TranslationQueue(Translator& translator, const QueueOptions& options)
    : BatchQueue(
          [&translator](const std::vector<std::string>& sentences, const TranslateOptions& o) {
            return translator.translate(sentences, o);
          },
          same_search, options,
          [](const Translation& t) -> std::uint64_t { return t.hypotheses.empty() ? 0 : t.hypotheses[0].tokens.size(); }) {}

}  // namespace heptapod
