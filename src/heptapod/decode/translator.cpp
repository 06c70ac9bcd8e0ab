// Translator: batching by length, search, detokenisation, scoring.
#include "heptapod/decode/translator.h"

#include <algorithm>
#include <numeric>

#include "heptapod/core/error.h"
#include "heptapod/io/model_file.h"

namespace heptapod {

namespace {

// Indices of `lengths` sorted by length, cut into groups of at most `budget` padded tokens.
std::vector<std::vector<std::size_t>> length_batches(const std::vector<std::size_t>& lengths, int budget) {
  std::vector<std::size_t> order(lengths.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return lengths[a] < lengths[b]; });
  std::vector<std::vector<std::size_t>> batches;
  std::vector<std::size_t> current;
  std::size_t longest = 0;
  for (std::size_t i : order) {
    const std::size_t l = std::max<std::size_t>(std::max(longest, lengths[i]), 1);
    if (!current.empty() && (current.size() + 1) * l > static_cast<std::size_t>(std::max(budget, 1))) {
      batches.push_back(std::move(current));
      current.clear();
      longest = 0;
    }
    current.push_back(i);
    longest = std::max(longest, lengths[i]);
  }
  if (!current.empty()) batches.push_back(std::move(current));
  return batches;
}

}  // namespace

Translator::Translator(const std::string& model_path, const TranslatorOptions& options) {
  const SafetensorsFile file = SafetensorsFile::read(model_path);
  InferencePrecision precision = stored_precision(file);
  if (options.compute_type) precision.type = *options.compute_type;
  precision.float_output = precision.float_output || options.float_output;
  const ModelConfig config = read_model_config(file);
  require(config.architecture == Architecture::EncoderDecoder,
          model_path + ": a " + std::string(architecture_name(config.architecture)) +
              " model; translation needs an encoder-decoder");
  model_ = load_inference_model(file, precision);
  auto vocabs = read_vocabularies(file, model_->config());
  require(vocabs.has_value(), model_path + ": the model file holds no vocabularies (models written by heptapod train do; "
                                           "a converted model needs them added)");
  vocabs_ = std::move(*vocabs);
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
  // Each line's prefix tokens, no longer than an input may be.
  std::vector<std::vector<int>> prefixes(target_prefixes.size());
  for (std::size_t i = 0; i < target_prefixes.size(); ++i) {
    prefixes[i] = vocabs_.target.encode(target_prefixes[i]);
    if (static_cast<int>(prefixes[i].size()) <= o.max_input_tokens) continue;
    warn(i, "target prefix truncated from " + std::to_string(prefixes[i].size()) + " to " +
                std::to_string(o.max_input_tokens) + " tokens");
    prefixes[i].resize(o.max_input_tokens);
  }
  for (std::size_t i = 0; i < sentences.size(); ++i) {
    if (sentences[i].empty()) {
      if (!target_prefixes.empty() && !target_prefixes[i].empty())
        warn(i, "empty input: nothing to translate, the target prefix is not used");
      continue;
    }
    tokens[i] = vocabs_.source.encode(sentences[i]);
    if (static_cast<int>(tokens[i].size()) > o.max_input_tokens) {
      if (o.reject_long_inputs) {
        warn(i, "input has " + std::to_string(tokens[i].size()) + " tokens, over the limit of " +
                    std::to_string(o.max_input_tokens) + "; not translated");
        continue;
      }
      warn(i, "input truncated from " + std::to_string(tokens[i].size()) + " to " +
                  std::to_string(o.max_input_tokens) + " tokens");
      tokens[i].resize(o.max_input_tokens);
    }
    if (tokens[i].empty()) continue;
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
        th.text = vocabs_.target.decode(h.tokens);
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
                                             int batch_tokens) {
  require(sources.size() == targets.size(), "score: " + std::to_string(sources.size()) + " sources but " +
                                                std::to_string(targets.size()) + " targets");
  const ModelConfig& c = model_->config();
  std::vector<std::vector<int>> src(sources.size()), tgt(targets.size());
  std::vector<std::size_t> lengths(sources.size());
  for (std::size_t i = 0; i < sources.size(); ++i) {
    src[i] = vocabs_.source.encode(sources[i]);
    tgt[i] = vocabs_.target.encode(targets[i]);
    lengths[i] = src[i].size() + tgt[i].size() + 1;
  }
  std::vector<SentenceScore> out(sources.size());
  Arena arena;
  for (const auto& group : length_batches(lengths, batch_tokens)) {
    std::vector<std::vector<int>> bs, bt;
    for (std::size_t i : group) {
      bs.push_back(src[i]);
      bt.push_back(tgt[i]);
    }
    const Batch b = make_batch(bs, bt, c);
    std::vector<float> nll(static_cast<std::size_t>(b.B) * b.T);
    arena.reset();
    model_->evaluate(b, 0.0f, arena, nll.data());
    for (std::size_t k = 0; k < group.size(); ++k) {
      SentenceScore& s = out[group[k]];
      s.tokens = b.tgt_len[k];
      for (int t = 0; t < b.tgt_len[k]; ++t) {
        s.token_log_probs.push_back(-nll[k * b.T + t]);
        s.log_prob -= nll[k * b.T + t];
      }
    }
  }
  return out;
}

}  // namespace heptapod
