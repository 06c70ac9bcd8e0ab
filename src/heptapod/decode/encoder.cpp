// Encoder: texts read as BERT reads them, batched by length, encoded and pooled.
#include "heptapod/decode/encoder.h"

#include <algorithm>
#include <cmath>

#include "heptapod/core/error.h"
#include "heptapod/core/random.h"
#include "heptapod/decode/logits_processors.h"
#include "heptapod/model/parameter_names.h"

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
  input_limit_ = config().encoder_input_limit();
}

void Encoder::limit_inputs(int tokens, const std::string& option) {
  const int positions = config().position_limit();
  require(tokens >= 3 && tokens <= positions, option + ": " + std::to_string(tokens) + " is not in [3, " +
                                                  std::to_string(positions) + "] (the model's learned positions)");
  input_limit_ = tokens;
}

EncoderInput Encoder::encode_text(const std::string& text) const {
  const ModelConfig& c = config();
  return layout_text(vocabs_.source.encode(text), input_limit_, c.bos_id, c.eos_id);
}

EncoderInput Encoder::encode_pair(const std::string& first, const std::string& second) const {
  const ModelConfig& c = config();
  return layout_pair(vocabs_.source.encode(first), vocabs_.source.encode(second), input_limit_, c.bos_id,
                     c.eos_id, c.double_separator, c.token_types >= 2);
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

namespace {

// One pooling mode over a text's n output rows (n, C), into pooled (C): the mean; the first row; each column's
// largest value; the sum over sqrt(n); the mean weighted by the positions 1..n; the last row.
void pool_rows(const float* rows, int n, int C, Pooling mode, double* pooled) {
  const int first = mode == Pooling::LastToken ? n - 1 : 0;
  const int last = mode == Pooling::Cls ? 1 : n;
  double weights = 0;
  std::fill(pooled, pooled + C, mode == Pooling::Max ? -HUGE_VAL : 0.0);
  for (int s = first; s < last; ++s) {
    const double w = mode == Pooling::WeightedMean ? s + 1 : 1;
    weights += w;
    for (int c = 0; c < C; ++c) {
      const double x = rows[static_cast<std::size_t>(s) * C + c];
      pooled[c] = mode == Pooling::Max ? std::max(pooled[c], x) : pooled[c] + w * x;
    }
  }
  const double divisor = mode == Pooling::Max ? 1 : mode == Pooling::MeanSqrtLen ? std::sqrt(weights) : weights;
  for (int c = 0; c < C; ++c) pooled[c] /= divisor;
}

}  // namespace

bool Encoder::applies_dense(const EmbedOptions& o) const {
  const ModelConfig& c = config();
  return c.embed_dense_features > 0 && (o.pooling ? c.d_model : c.pooled_width()) == c.pooled_width();
}

int Encoder::embedding_width(const EmbedOptions& o) const {
  return applies_dense(o) ? config().embed_dense_features : o.pooling ? config().d_model : config().pooled_width();
}

std::vector<std::vector<float>> Encoder::embed_inputs(const std::vector<EncoderInput>& inputs, const EmbedOptions& o) {
  validate(o);
  const ModelConfig& c = config();
  const int C = c.d_model;
  const std::vector<Pooling> poolings = o.pooling ? std::vector<Pooling>{*o.pooling} : c.embed_pooling;
  const bool normalize = o.normalize.value_or(c.embed_normalize);
  const int P = C * static_cast<int>(poolings.size()), F = embedding_width(o);
  const bool dense = applies_dense(o);
  const float* dense_weight = dense ? model_->parameters().value(tensor_name(Module::EmbedDense, Leaf::Weight)) : nullptr;  // (F, P)
  const float* dense_bias =
      dense && c.embed_dense_bias ? model_->parameters().value(tensor_name(Module::EmbedDense, Leaf::Bias)) : nullptr;  // (F)
  std::vector<std::vector<float>> out(inputs.size(), std::vector<float>(static_cast<std::size_t>(F)));
  std::vector<double> pooled(static_cast<std::size_t>(P));  // (P): the modes' vectors side by side
  auto dense_output = [&](int f) {  // act(W pooled + b) at output f
    const float* w = dense_weight + static_cast<std::size_t>(f) * P;
    double x = dense_bias ? dense_bias[f] : 0.0;
    for (int p = 0; p < P; ++p) x += w[p] * pooled[static_cast<std::size_t>(p)];
    return c.embed_dense_tanh ? std::tanh(x) : x;
  };
  for_each_batch(inputs, o.batch_tokens, [&](const std::vector<std::size_t>& group, Batch& batch) {
    const int B = batch.B, S = batch.S;
    const std::vector<int>& len = batch.src_len;  // (B)
    const int* types = batch.src_types.empty() ? nullptr : batch.src_types.data();  // (B, S) or none
    const float* y = model_->encode(batch.src.data(), B, S, len.data(), arena_, types);  // (B*S, C)
    for (int b = 0; b < B; ++b) {
      std::vector<float>& v = out[group[static_cast<std::size_t>(b)]];  // (F)
      const float* rows = y + static_cast<std::size_t>(b) * S * C;
      for (std::size_t m = 0; m < poolings.size(); ++m)
        pool_rows(rows, len[static_cast<std::size_t>(b)], C, poolings[m], pooled.data() + m * C);
      for (int f = 0; f < F; ++f)
        v[static_cast<std::size_t>(f)] = static_cast<float>(dense ? dense_output(f) : pooled[static_cast<std::size_t>(f)]);
      double norm = 0;
      for (const float x : v) norm += static_cast<double>(x) * x;
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
