// Encoder: texts read as BERT reads them, batched by length, encoded and pooled.
#include "heptapod/decode/encoder.h"

#include <algorithm>
#include <cmath>

#include "heptapod/core/error.h"
#include "heptapod/core/random.h"
#include "heptapod/decode/logits_processors.h"

namespace heptapod {

void validate(const EmbedOptions& o) {
  require(o.batch_tokens >= 1, "embed: batch_tokens must be at least 1");
}

void validate(const MaskedScoreOptions& o) {
  require(o.masking.rate > 0.0f && o.masking.rate < 1.0f, "score: the mask rate must be in (0, 1)");
  require(o.batch_tokens >= 1, "score: batch_tokens must be at least 1");
}

void validate(const ClassifyOptions& o) {
  require(o.top_k >= 1, "classify: top_k must be at least 1");
  require(o.batch_tokens >= 1, "classify: batch_tokens must be at least 1");
}

Encoder::Encoder(const std::string& model_path, const ModelLoadOptions& options, const std::string& purpose)
    : Encoder(load_for_inference(model_path, options, Architecture::EncoderOnly, purpose)) {}

Encoder::Encoder(InferenceModel loaded) : model_(std::move(loaded.model)), vocabs_(std::move(loaded.vocabs)) {
  require(model_ && model_->config().architecture == Architecture::EncoderOnly, "Encoder: not an encoder-only model");
}

EncoderInput Encoder::encode_text(const std::string& text) const {
  const ModelConfig& c = config();
  return layout_text(vocabs_.source.encode(text), c.encoder_input_limit(), c.bos_id, c.eos_id);
}

EncoderInput Encoder::encode_pair(const std::string& first, const std::string& second) const {
  const ModelConfig& c = config();
  require(c.token_types >= 2 || c.double_separator, "the model reads single texts: it has no token type for a "
                                                     "sentence pair's second segment");
  return layout_pair(vocabs_.source.encode(first), vocabs_.source.encode(second), c.encoder_input_limit(), c.bos_id,
                     c.eos_id, c.double_separator);
}

std::vector<EncoderInput> Encoder::encode_lines(const std::vector<std::string>& lines, bool pairs,
                                                const std::string& source, std::size_t first_line) const {
  std::vector<EncoderInput> inputs;
  inputs.reserve(lines.size());
  pairs = pairs || config().sentence_pairs;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (!pairs) {
      inputs.push_back(encode_text(lines[i]));
      continue;
    }
    const auto [first, second] = split_pair(lines[i], source + ":" + std::to_string(first_line + i + 1));
    inputs.push_back(encode_pair(first, second));
  }
  return inputs;
}

void Encoder::for_each_batch(const std::vector<EncoderInput>& inputs, int batch_tokens,
                             const std::function<void(const std::vector<std::size_t>&, Batch&)>& run) {
  const ModelConfig& c = config();
  std::vector<std::size_t> lengths(inputs.size());
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const EncoderInput& in = inputs[i];
    require(!in.tokens.empty() && static_cast<int>(in.tokens.size()) <= c.position_limit(),
            "Encoder: input " + std::to_string(i) + " has " + std::to_string(in.tokens.size()) +
                " tokens; an input has 1 to " + std::to_string(c.position_limit()) + " (the learned positions)");
    require(in.types.empty() || in.types.size() == in.tokens.size(), "Encoder: input " + std::to_string(i) +
                                                                         " has a type for each token or none");
    lengths[i] = in.tokens.size();
  }
  for (const auto& group : length_batches(lengths, batch_tokens)) {
    Batch batch;
    batch.B = static_cast<int>(group.size());
    for (std::size_t i : group) batch.S = std::max(batch.S, static_cast<int>(lengths[i]));
    batch.src.assign(static_cast<std::size_t>(batch.B) * batch.S, c.pad_id);  // (B, S)
    bool second_segment = false;
    for (int b = 0; b < batch.B; ++b) {
      const EncoderInput& in = inputs[group[static_cast<std::size_t>(b)]];
      std::copy(in.tokens.begin(), in.tokens.end(), batch.src.begin() + static_cast<long>(b) * batch.S);
      batch.src_len.push_back(static_cast<int>(in.tokens.size()));
      second_segment = second_segment || std::any_of(in.types.begin(), in.types.end(), [](int t) { return t != 0; });
    }
    if (second_segment) {  // (B, S); without it every token reads type 0, as an input without types does
      batch.src_types.assign(batch.src.size(), 0);
      for (int b = 0; b < batch.B; ++b) {
        const EncoderInput& in = inputs[group[static_cast<std::size_t>(b)]];
        std::copy(in.types.begin(), in.types.end(), batch.src_types.begin() + static_cast<long>(b) * batch.S);
      }
    }
    batch.tgt_len.assign(static_cast<std::size_t>(batch.B), 0);
    arena_.reset();
    run(group, batch);
  }
}

std::vector<std::vector<float>> Encoder::embed(const std::vector<std::string>& texts, const EmbedOptions& o) {
  return embed_inputs(encode_lines(texts, o.pairs), o);
}

std::vector<std::vector<float>> Encoder::embed_inputs(const std::vector<EncoderInput>& inputs, const EmbedOptions& o) {
  validate(o);
  const int C = config().d_model;
  const Pooling pooling = o.pooling.value_or(config().embed_pooling);
  const bool normalize = o.normalize.value_or(config().embed_normalize);
  std::vector<std::vector<float>> out(inputs.size(), std::vector<float>(static_cast<std::size_t>(C)));
  for_each_batch(inputs, o.batch_tokens, [&](const std::vector<std::size_t>& group, Batch& batch) {
    const int B = batch.B, S = batch.S;
    const std::vector<int>& len = batch.src_len;  // (B)
    const int* types = batch.src_types.empty() ? nullptr : batch.src_types.data();  // (B, S) or none
    const float* y = model_->encode(batch.src.data(), B, S, len.data(), arena_, types);  // (B*S, C)
    for (int b = 0; b < B; ++b) {
      std::vector<float>& v = out[group[static_cast<std::size_t>(b)]];
      const float* rows = y + static_cast<std::size_t>(b) * S * C;
      const int n = pooling == Pooling::Cls ? 1 : len[static_cast<std::size_t>(b)];
      std::vector<double> pooled(rows, rows + C);  // (C): the first row; then the sum or the largest, in order
      for (int s = 1; s < n; ++s)
        for (int c = 0; c < C; ++c) {
          const double x = rows[static_cast<std::size_t>(s) * C + c];
          double& p = pooled[static_cast<std::size_t>(c)];
          p = pooling == Pooling::Max ? std::max(p, x) : p + x;
        }
      double norm = 0;
      for (int c = 0; c < C; ++c) {
        const double p = pooled[static_cast<std::size_t>(c)];
        v[static_cast<std::size_t>(c)] = static_cast<float>(pooling == Pooling::Max ? p : p / n);
        norm += static_cast<double>(v[static_cast<std::size_t>(c)]) * v[static_cast<std::size_t>(c)];
      }
      if (normalize && norm > 0)
        for (float& x : v) x = static_cast<float>(x / std::sqrt(norm));
    }
  });
  return out;
}

std::vector<Classification> Encoder::classify(const std::vector<std::string>& texts, const ClassifyOptions& o) {
  return classify_inputs(encode_lines(texts, o.pairs), o);
}

std::vector<Classification> Encoder::classify_inputs(const std::vector<EncoderInput>& inputs, const ClassifyOptions& o) {
  validate(o);
  const ModelConfig& c = config();
  require(c.labels > 0, "classify: the model has no classifier (an encoder trained with --task classify has)");
  const int L = c.labels;
  std::vector<Classification> out(inputs.size());
  for_each_batch(inputs, o.batch_tokens, [&](const std::vector<std::size_t>& group, Batch& batch) {
    const float* logits = model_->logits(batch, arena_);  // (B, L)
    for (int b = 0; b < batch.B; ++b) {
      const float* row = logits + static_cast<std::size_t>(b) * L;
      std::vector<ClassScore> scores(static_cast<std::size_t>(L));
      const float top = *std::max_element(row, row + L);
      double sum = 0;
      for (int l = 0; l < L; ++l) sum += std::exp(static_cast<double>(row[l] - top));
      for (int l = 0; l < L; ++l) {
        const double p = c.multi_label ? 1.0 / (1.0 + std::exp(-static_cast<double>(row[l])))
                                       : std::exp(static_cast<double>(row[l] - top)) / sum;
        scores[static_cast<std::size_t>(l)] = {vocabs_.labels.names()[static_cast<std::size_t>(l)], l, static_cast<float>(p)};
      }
      std::stable_sort(scores.begin(), scores.end(), [](const ClassScore& x, const ClassScore& y) {
        return x.probability > y.probability;
      });
      Classification& result = out[group[static_cast<std::size_t>(b)]];
      for (const ClassScore& s : scores)
        if (c.multi_label ? s.probability > 0.5f : result.labels.empty()) result.labels.push_back(s.label);
      scores.resize(std::min(scores.size(), static_cast<std::size_t>(o.top_k)));
      result.top = std::move(scores);
    }
  });
  return out;
}

std::vector<SentenceScore> Encoder::score_masked(const std::vector<std::string>& texts, std::size_t first_index,
                                                  const MaskedScoreOptions& o) {
  return score_masked_inputs(encode_lines(texts, o.pairs), first_index, o);
}

std::vector<SentenceScore> Encoder::score_masked_inputs(std::vector<EncoderInput> inputs, std::size_t first_index,
                                                        const MaskedScoreOptions& o) {
  validate(o);
  const ModelConfig& c = config();
  require(c.mlm_head, "score: the model has no masked-language-model head (a pre-trained encoder has; a classifier "
                      "is scored with its labels)");
  const MaskingPlan masking(vocabs_.source, c.mask_id, o.masking);
  std::vector<SentenceScore> out(inputs.size());
  std::vector<std::vector<int>> targets(inputs.size());  // each (length): -1 where not masked
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    out[i].truncated = inputs[i].truncated;
    masking.mask(inputs[i].tokens, targets[i], mix64(o.seed) ^ mix64(first_index + i));
  }
  const int V = c.src_vocab_size;
  for_each_batch(inputs, o.batch_tokens, [&](const std::vector<std::size_t>& group, Batch& batch) {
    batch.mlm_targets.assign(batch.src.size(), -1);  // (B, S)
    for (int b = 0; b < batch.B; ++b) {
      const std::vector<int>& t = targets[group[static_cast<std::size_t>(b)]];
      std::copy(t.begin(), t.end(), batch.mlm_targets.begin() + static_cast<long>(b) * batch.S);
    }
    if (std::all_of(batch.mlm_targets.begin(), batch.mlm_targets.end(), [](int t) { return t < 0; }))
      return;  // texts without an ordinary token: nothing masked, nothing scored
    float* logits = model_->logits(batch, arena_);  // (Nm, V): the masked positions in row-major order
    std::size_t row = 0;
    for (int b = 0; b < batch.B; ++b) {
      SentenceScore& score = out[group[static_cast<std::size_t>(b)]];
      for (const int target : targets[group[static_cast<std::size_t>(b)]]) {
        if (target < 0) continue;
        float* r = logits + row++ * static_cast<std::size_t>(V);
        const int best = static_cast<int>(std::max_element(r, r + V) - r);
        log_softmax(r, V);
        score.token_log_probs.push_back(r[target]);
        score.log_prob += r[target];
        ++score.tokens;
        score.correct += best == target ? 1 : 0;
      }
    }
  });
  return out;
}

}  // namespace heptapod
