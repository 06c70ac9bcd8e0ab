// Benchmark workload: generation, JSON exchange with the PyTorch rival, and useful-FLOP counts.
#include "workload.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <random>

#include "heptapod/core/error.h"

namespace heptapod::bench {

using nlohmann::json;

namespace {

constexpr int kTranslateBatch = 32;
constexpr int kTrainBudget = 4096;  // padded tokens per training batch: B * max(S, T)

struct LengthMix {
  std::mt19937 rng;
  std::lognormal_distribution<double> length{std::log(20.0), 0.55};
  std::uniform_real_distribution<double> ratio{0.8, 1.25};
  explicit LengthMix(unsigned seed) : rng(seed) {}
  int source() { return std::clamp(static_cast<int>(std::lround(length(rng))), 2, 100); }
  int target(int source) { return std::clamp(static_cast<int>(std::lround(source * ratio(rng))), 2, 100) + 1; }
};

}  // namespace

Workload make_workload(unsigned seed, int train_batches, int translate_batches, int latency_sentences) {
  Workload w;
  LengthMix mix(seed);
  // Training: a pool of pairs sorted by length, cut under the token budget, then batches drawn at random.
  std::vector<std::pair<int, int>> pairs(4000);
  for (auto& p : pairs) {
    p.first = mix.source();
    p.second = mix.target(p.first);
  }
  std::sort(pairs.begin(), pairs.end(),
            [](auto a, auto b) { return std::max(a.first, a.second) < std::max(b.first, b.second); });
  std::vector<TrainBatch> all;
  TrainBatch current;
  int longest = 0;
  for (const auto& [s, t] : pairs) {
    const int len = std::max({longest, s, t});
    if (!current.src_lengths.empty() && len * static_cast<int>(current.src_lengths.size() + 1) > kTrainBudget) {
      all.push_back(std::move(current));
      current = {};
    }
    longest = current.src_lengths.empty() ? std::max(s, t) : len;
    current.src_lengths.push_back(s);
    current.tgt_lengths.push_back(t);
  }
  std::shuffle(all.begin(), all.end(), mix.rng);
  // The largest batch goes first (a warm-up batch), so that neither side times its memory growing.
  auto padded = [](const TrainBatch& b) {
    return b.src_lengths.size() * static_cast<std::size_t>(*std::max_element(b.src_lengths.begin(), b.src_lengths.end()) +
                                                          *std::max_element(b.tgt_lengths.begin(), b.tgt_lengths.end()));
  };
  std::iter_swap(all.begin(), std::max_element(all.begin(), all.end(), [&](auto& a, auto& b) { return padded(a) < padded(b); }));
  all.resize(std::min<std::size_t>(all.size(), train_batches + w.train_warmup));
  w.train = std::move(all);
  // Translation: sorted by length and cut into batches of 32, as `heptapod translate` batches its input.
  std::vector<int> sources(static_cast<std::size_t>(kTranslateBatch) * (translate_batches + w.translate_warmup));
  for (int& s : sources) s = mix.source();
  std::sort(sources.begin(), sources.end());
  for (std::size_t i = 0; i < sources.size(); i += kTranslateBatch)
    w.translate.emplace_back(sources.begin() + i, sources.begin() + i + kTranslateBatch);
  std::shuffle(w.translate.begin(), w.translate.end(), mix.rng);
  for (int i = 0; i < latency_sentences + w.latency_warmup; ++i) w.latency.push_back(mix.source());
  return w;
}

std::string to_json(const Workload& w) {
  json j;
  for (const char* name : {"small", "base"}) {
    const ModelConfig c = bench_model(name);
    j["models"][name] = {{"d_model", c.d_model},          {"heads", c.n_heads},
                         {"d_ff", c.d_ff},                {"encoder_layers", c.encoder_layers},
                         {"decoder_layers", c.decoder_layers}, {"vocab", c.tgt_vocab_size}};
  }
  j["train"]["warmup"] = w.train_warmup;
  j["train"]["batches"] = json::array();
  for (const auto& b : w.train)
    j["train"]["batches"].push_back({{"src_lengths", b.src_lengths}, {"tgt_lengths", b.tgt_lengths}});
  j["translate"]["warmup"] = w.translate_warmup;
  j["translate"]["batches"] = json::array();
  for (const auto& b : w.translate) j["translate"]["batches"].push_back({{"src_lengths", b}});
  j["latency"] = {{"warmup", w.latency_warmup}, {"src_lengths", w.latency}};
  return j.dump();
}

Workload workload_from_json(const std::string& text, const std::string& where) {
  try {
    const json j = json::parse(text);
    Workload w;
    w.train_warmup = j.at("train").at("warmup").get<int>();
    for (const auto& b : j.at("train").at("batches"))
      w.train.push_back({b.at("src_lengths").get<std::vector<int>>(), b.at("tgt_lengths").get<std::vector<int>>()});
    w.translate_warmup = j.at("translate").at("warmup").get<int>();
    for (const auto& b : j.at("translate").at("batches")) w.translate.push_back(b.at("src_lengths").get<std::vector<int>>());
    w.latency_warmup = j.at("latency").at("warmup").get<int>();
    w.latency = j.at("latency").at("src_lengths").get<std::vector<int>>();
    return w;
  } catch (const json::exception& e) {
    throw Error(where + ": not a benchmark workload: " + e.what());
  }
}

ModelConfig bench_model(const std::string& name) {
  require(name == "small" || name == "base", "benchmark model must be small or base, got \"" + name + "\"");
  ModelConfig c = model_preset(name);
  c.src_vocab_size = c.tgt_vocab_size = name == "small" ? 8000 : 37000;
  c.tie_embeddings = EmbeddingTying::All;
  return c;
}

namespace {

// One encoder layer over s tokens; one decoder layer's per-position work for t positions attending tk
// previous keys each (self) and s source tokens (cross), cross keys/values excluded.
double encoder_layer_flops(const ModelConfig& c, double s) {
  const double d = c.d_model, f = c.d_ff;
  return 8 * s * d * d + 4 * s * s * d + 4 * s * d * f;
}
double decoder_position_flops(const ModelConfig& c, double self_keys, double s) {
  const double d = c.d_model, f = c.d_ff;
  return 12 * d * d + 4 * self_keys * d + 4 * s * d + 4 * d * f;
}
double cross_kv_flops(const ModelConfig& c, double s) { return 4 * s * c.d_model * static_cast<double>(c.d_model); }

}  // namespace

double training_flops(const ModelConfig& c, const TrainBatch& batch) {
  double forward = 0;
  for (std::size_t i = 0; i < batch.src_lengths.size(); ++i) {
    const double s = batch.src_lengths[i], t = batch.tgt_lengths[i];
    forward += c.encoder_layers * encoder_layer_flops(c, s);
    // Decoder self-attention over all t keys per position, as a batched GEMM computes it.
    forward += c.decoder_layers * (t * decoder_position_flops(c, t, s) + cross_kv_flops(c, s));
    forward += 2 * t * c.d_model * static_cast<double>(c.tgt_vocab_size);
  }
  return 3 * forward;
}

double translation_flops(const ModelConfig& c, int n, int rows) {
  double total = c.encoder_layers * encoder_layer_flops(c, n) + c.decoder_layers * cross_kv_flops(c, n);
  for (int step = 0; step < n; ++step)
    total += rows * (c.decoder_layers * decoder_position_flops(c, step + 1, n) +
                     2.0 * c.d_model * static_cast<double>(c.tgt_vocab_size));
  return total;
}

double decode_weight_bytes(const ModelConfig& c) {
  const double d = c.d_model, f = c.d_ff, q = c.query_width(), k = c.key_value_width();
  const double attentions = c.has_encoder() ? 2 : 1;  // self (and cross)
  const double norm = c.norm_type == NormType::Layer ? 2 * d : d;  // a gain, and a layer norm's shift
  const double attention = 2 * d * q + 2 * d * k + (c.attention_qkv_bias ? q + 2 * k : 0) +
                           (c.attention_out_bias ? d : 0) + norm;
  const double matrices = c.gated_ffn ? 3 : 2;
  const double ffn = matrices * d * f + (c.ffn_bias ? (matrices - 1) * f + d : 0) + norm;
  return 4 * (c.decoder_layers * (attentions * attention + ffn) + d * c.tgt_vocab_size);
}

LanguageModelShape bench_language_model(const std::string& name) {
  require(name == "lm-small" || name == "gpt2-small" || name == "smollm-135m",
          "language-model benchmark model must be lm-small, gpt2-small or smollm-135m, got \"" + name + "\"");
  ModelConfig preset = model_preset(name == "lm-small" ? "small" : "base");
  preset.norm = NormPosition::Pre;
  preset.attention_dropout = preset.activation_dropout = 0.0f;
  LanguageModelShape shape;
  if (name == "smollm-135m") {
    preset.d_model = 576;
    preset.n_heads = 9;
    preset.kv_heads = 3;
    preset.d_ff = 1536;
    preset.decoder_layers = 30;
    preset.norm_type = NormType::Rms;
    preset.gated_ffn = true;
    preset.activation = Activation::Silu;
    preset.attention_qkv_bias = preset.attention_out_bias = preset.ffn_bias = false;
    preset.scale_embeddings = false;
    preset.rotary = true;
    preset.rope.theta = 100000.0;
    preset.max_positions = 2048;
    preset.dropout = preset.embedding_dropout = 0.0f;
    shape.config = one_stack_config(preset, Architecture::DecoderOnly, 49152);
    shape.config.layer_norm_eps = 1e-5f;
    shape.context = 1024;
  } else if (name == "lm-small") {
    preset.decoder_layers = 6;
    shape.config = one_stack_config(preset, Architecture::DecoderOnly, 8000);
    shape.context = 256;
  } else {
    preset.d_model = 768;
    preset.n_heads = 12;
    preset.d_ff = 3072;
    preset.decoder_layers = 12;
    preset.activation = Activation::Gelu;
    preset.scale_embeddings = false;
    preset.attention_dropout = 0.1f;
    preset.learned_positions = 1024;
    shape.config = one_stack_config(preset, Architecture::DecoderOnly, 50257);
    shape.context = 1024;
  }
  validate(shape.config);
  return shape;
}

namespace {

// A layer's linear layers per token: q and out (d x Q each), k and v (d x K each), the feed-forward network's
// two matrices (three when gated), 2 FLOPs per multiply-add.
double layer_linear_flops(const ModelConfig& c) {
  const double d = c.d_model, f = c.d_ff;
  return 4 * d * c.query_width() + 4 * d * c.key_value_width() + (c.gated_ffn ? 6 : 4) * d * f;
}

}  // namespace

double lm_training_flops(const ModelConfig& c, int blocks, int context) {
  const double d = c.d_model, T = context, Q = c.query_width();
  const double forward = c.decoder_layers * (T * layer_linear_flops(c) + 2 * Q * T * T) + 2 * T * d * c.tgt_vocab_size;
  return 3 * forward * blocks;
}

double lm_generation_flops(const ModelConfig& c, int rows, int prompt, int added) {
  const double d = c.d_model, P = prompt, V = c.tgt_vocab_size, Q = c.query_width();
  double total = c.decoder_layers * (P * layer_linear_flops(c) + 2 * Q * P * P) + 2 * d * V;
  for (int i = 1; i < added; ++i)  // the first new token came from the prompt's forward
    total += c.decoder_layers * (layer_linear_flops(c) + 4 * Q * (P + i)) + 2 * d * V;
  return rows * total;
}

}  // namespace heptapod::bench
