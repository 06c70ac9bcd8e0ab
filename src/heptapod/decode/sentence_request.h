// What the strategies' requests of the decoding loop share (beam_search.cpp, sampling_search.cpp): one
// sentence (its source tokens, its forced prefix or prompt), its search options and hooks, its length limit,
// and what follows from them: the prompt's prefill, the token a row feeds next, a prefix's forced token.
#pragma once

#include <utility>
#include <vector>

#include "heptapod/decode/decoding_loop.h"
#include "heptapod/decode/search.h"

namespace heptapod {

class SentenceRequest : public SearchRequest {
 public:
  const std::vector<int>& source() const override { return source_; }
  int max_steps() const override { return limit_ + 1; }
  // The prompt but its last token, after the start token (a model whose sequences begin with their text,
  // prompt_bos false, has none): its last token is the first step's input.
  std::vector<int> prefill() const override {
    if (!options_.prompts || prefix_.empty()) return {};
    std::vector<int> run;
    if (config_.prompt_bos) run.push_back(config_.bos_id);
    run.insert(run.end(), prefix_.begin(), prefix_.end() - 1);
    return run;
  }

 protected:
  SentenceRequest(const ModelConfig& config, std::vector<int> source, std::vector<int> prefix,
                  const SearchOptions& options, SearchHooks hooks)
      : config_(config), source_(std::move(source)), prefix_(std::move(prefix)), options_(options),
        banned_(banned_output_ids(config)), hooks_(std::move(hooks)),
        limit_(length_limit(config, source_, prefix_, options)), prompt_(prompt_length(options, prefix_)) {}

  // The tokens every row begins with: the prompt, or none.
  std::vector<int> first_tokens() const { return options_.prompts ? prefix_ : std::vector<int>(); }
  // The token a row holding `tokens` feeds next.
  int input_after(const std::vector<int>& tokens) const { return tokens.empty() ? config_.bos_id : tokens.back(); }
  // The forced prefix's token a row holding `made` tokens must take now, or -1 (none left, or a prompt).
  int forced(std::size_t made) const { return options_.prompts ? -1 : forced_token(prefix_, made); }

  const ModelConfig& config_;
  std::vector<int> source_, prefix_;
  SearchOptions options_;
  std::vector<int> banned_;  // banned_output_ids: never taken
  SearchHooks hooks_;
  int limit_;   // output tokens before the end token (length_limit)
  int prompt_;  // prompt tokens, which are not scored
};

}  // namespace heptapod
