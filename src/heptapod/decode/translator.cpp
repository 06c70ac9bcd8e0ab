// Translator: batching by length, search, detokenisation, scoring.
#include "heptapod/decode/translator.h"

#include <algorithm>

#include "heptapod/core/error.h"

namespace heptapod {

Translator::Translator(const std::string& model_path, const ModelLoadOptions& options) {
  InferenceModel loaded = load_for_inference(model_path, options, Architecture::EncoderDecoder, "translation");
  model_ = std::move(loaded.model);
  vocabs_ = std::move(loaded.vocabs);
  languages_ = std::move(loaded.languages);
  decoder_ = std::make_unique<IncrementalDecoder>(*model_);
}

std::vector<Translation> Translator::translate(const std::vector<std::string>& sentences, const TranslateOptions& o,
                                              const std::vector<std::string>& target_prefixes) {
  require(target_prefixes.empty() || target_prefixes.size() == sentences.size(),
          "translate: " + std::to_string(sentences.size()) + " sentences but " + std::to_string(target_prefixes.size()) +
              " target prefixes");
  std::vector<Translation> out(sentences.size());
  std::vector<std::vector<int>> tokens(sentences.size());
  std::vector<std::size_t> lengths(sentences.size(), 0), todo;
  auto warn = [&](std::size_t i, const std::string& text) {
    out[i].warning += (out[i].warning.empty() ? "" : "; ") + text;
  };
  // A multilingual model's language tags: the source's code before its tokens, the target's forced first.
  const LanguageTags tags = languages_.tags(o.source_language, o.target_language, "source language", "target language");
  // Inputs and prefixes no longer than the options allow, nor than a model with learned positions reaches.
  const ModelConfig& c = model_->config();
  const int max_input = std::max(std::min(o.max_input_tokens, c.max_source_tokens()) - tags.source_extra(), 0);
  const int max_prefix = std::max(std::min(o.max_input_tokens, c.max_target_tokens()) - tags.target_extra(), 0);
  // Each line's prefix tokens, no longer than an input may be, after the target's code.
  std::vector<std::vector<int>> prefixes(target_prefixes.empty() && tags.target_extra() == 0 ? 0 : sentences.size());
  for (std::size_t i = 0; i < prefixes.size(); ++i) {
    if (!target_prefixes.empty()) prefixes[i] = vocabs_.target.encode(target_prefixes[i]);
    if (static_cast<int>(prefixes[i].size()) > max_prefix) {
      warn(i, "target prefix truncated from " + std::to_string(prefixes[i].size()) + " to " +
                  std::to_string(max_prefix) + " tokens");
      prefixes[i].resize(max_prefix);
    }
    prefixes[i] = tags.tag_target(prefixes[i]);
  }
  for (std::size_t i = 0; i < sentences.size(); ++i) {
    if (sentences[i].empty()) {
      if (!target_prefixes.empty() && !target_prefixes[i].empty())
        warn(i, "empty input: nothing to translate, the target prefix is not used");
      continue;
    }
    tokens[i] = vocabs_.source.encode(sentences[i]);
    if (static_cast<int>(tokens[i].size()) > max_input) {
      if (o.reject_long_inputs) {
        warn(i, "input has " + std::to_string(tokens[i].size()) + " tokens, over the limit of " +
                    std::to_string(max_input) + "; not translated");
        continue;
      }
      warn(i, "input truncated from " + std::to_string(tokens[i].size()) + " to " + std::to_string(max_input) +
                  " tokens");
      tokens[i].resize(max_input);
    }
    if (tokens[i].empty()) continue;
    tokens[i] = tags.tag_source(tokens[i]);
    lengths[i] = tokens[i].size();
    todo.push_back(i);
  }
  std::vector<std::size_t> todo_lengths;
  for (std::size_t i : todo) todo_lengths.push_back(lengths[i]);
  const auto batches = length_batches(todo_lengths, o.batch_tokens);
  if (batches.size() > 1 && !prepared_) {  // many batches meet many row counts: make their kernels once, up front
    model_->prepare_for_batches();
    prepared_ = true;
  }
  for (const auto& group : batches) {
    std::vector<std::vector<int>> batch, batch_prefixes;
    for (std::size_t g : group) {
      batch.push_back(tokens[todo[g]]);
      if (!prefixes.empty()) batch_prefixes.push_back(prefixes[todo[g]]);
    }
    const auto results = o.sample ? sample_search(*decoder_, batch, o.search, o.sampling, batch_prefixes)
                                  : beam_search(*decoder_, batch, o.search, batch_prefixes);
    for (std::size_t k = 0; k < group.size(); ++k) {
      Translation& t = out[todo[group[k]]];
      for (const Hypothesis& h : results[k]) {
        TranslatedHypothesis th;
        th.text = vocabs_.target.decode(tags.untag_target(h.tokens));
        th.tokens = h.tokens;
        th.score = h.score;
        th.log_prob = h.log_prob;
        for (std::size_t j = 0; j < h.alignment.size(); ++j) {  // "source-target" pairs
          if (j) th.alignment += ' ';
          th.alignment += std::to_string(h.alignment[j]);
          th.alignment += '-';
          th.alignment += std::to_string(j);
        }
        t.hypotheses.push_back(std::move(th));
      }
    }
  }
  return out;
}

std::vector<SentenceScore> Translator::score(const std::vector<std::string>& sources, const std::vector<std::string>& targets,
                                             int batch_tokens, const std::string& source_language,
                                             const std::string& target_language) {
  require(sources.size() == targets.size(), "score: " + std::to_string(sources.size()) + " sources but " +
                                                std::to_string(targets.size()) + " targets");
  const LanguageTags tags = languages_.tags(source_language, target_language, "source language", "target language");
  std::vector<std::vector<int>> src(sources.size()), tgt(targets.size());
  for (std::size_t i = 0; i < sources.size(); ++i) {
    src[i] = tags.tag_source(vocabs_.source.encode(sources[i]));
    tgt[i] = tags.tag_target(vocabs_.target.encode(targets[i]));
  }
  return score_tokens(*model_, src, tgt, batch_tokens);
}

}  // namespace heptapod
