// Encoder-only phases of heptapod_bench: embedding and masked-language-model training throughput.
#include "encoder_phases.h"

#include <algorithm>
#include <chrono>
#include <random>

#include "heptapod/core/error.h"
#include "heptapod/decode/encoder.h"
#include "heptapod/model/initialize.h"
#include "lm_phases.h"

namespace heptapod::bench {

using nlohmann::json;
using Clock = std::chrono::steady_clock;

namespace {

constexpr int kFirstOrdinaryId = 5;  // pad 0, bos 1, eos 2, unk 3, mask 4

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

// An input as the encoder reads one: the start token, length - 2 random ordinary ids, the end token.
std::vector<int> random_input(const ModelConfig& c, int length, std::mt19937& rng) {
  std::uniform_int_distribution<int> id(kFirstOrdinaryId, c.src_vocab_size - 1);
  std::vector<int> tokens(static_cast<std::size_t>(length));  // (length)
  for (int& t : tokens) t = id(rng);
  tokens.front() = c.bos_id;
  tokens.back() = c.eos_id;
  return tokens;
}

// A masked-LM training batch of `blocks` random inputs (blocks, length).
Batch masked_batch(const ModelConfig& c, int blocks, int length, std::mt19937& rng) {
  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::uniform_int_distribution<int> id(kFirstOrdinaryId, c.src_vocab_size - 1);
  std::uniform_int_distribution<int> position(1, length - 2);
  Batch b;
  b.B = blocks;
  b.S = length;
  b.tgt_len.assign(static_cast<std::size_t>(blocks), 0);
  b.src_len.assign(static_cast<std::size_t>(blocks), length);
  b.mlm_targets.assign(static_cast<std::size_t>(blocks) * length, -1);  // (blocks, length)
  for (int i = 0; i < blocks; ++i) {
    std::vector<int> tokens = random_input(c, length, rng);  // (length)
    int* targets = b.mlm_targets.data() + static_cast<std::size_t>(i) * length;
    for (int s = 1; s < length - 1; ++s)
      if (u(rng) < 0.15) targets[s] = tokens[static_cast<std::size_t>(s)];
    if (std::all_of(targets, targets + length, [](int t) { return t < 0; })) {
      const int s = position(rng);
      targets[s] = tokens[static_cast<std::size_t>(s)];
    }
    for (int s = 0; s < length; ++s) {
      if (targets[s] < 0) continue;
      const double r = u(rng);
      if (r < 0.8) tokens[static_cast<std::size_t>(s)] = c.mask_id;
      else if (r < 0.9) tokens[static_cast<std::size_t>(s)] = id(rng);
    }
    b.src.insert(b.src.end(), tokens.begin(), tokens.end());
  }
  return b;
}

}  // namespace

bool is_encoder_model(const std::string& name) { return name == "enc-small" || name == "bert-base"; }

EncoderShape bench_encoder_model(const std::string& name) {
  require(is_encoder_model(name), "encoder benchmark model must be enc-small or bert-base, got \"" + name + "\"");
  ModelConfig preset = model_preset(name == "enc-small" ? "small" : "base");
  preset.norm = NormPosition::Post;
  preset.activation = Activation::Gelu;
  preset.scale_embeddings = false;
  preset.dropout = preset.attention_dropout = preset.activation_dropout = preset.embedding_dropout = 0.1f;
  preset.token_types = 2;
  preset.embedding_norm = true;
  preset.mlm_head = true;
  preset.mask_id = 4;
  preset.tie_embeddings = EmbeddingTying::None;
  preset.output_bias = false;
  int vocab = 8000;
  if (name == "enc-small") {
    preset.encoder_layers = 4;
    preset.learned_positions = 128;
  } else {
    preset.d_model = 768;
    preset.n_heads = 12;
    preset.d_ff = 3072;
    preset.encoder_layers = 12;
    preset.learned_positions = 512;
    vocab = 30522;
  }
  EncoderShape shape;
  shape.config = one_stack_config(preset, Architecture::EncoderOnly, vocab);
  validate(shape.config);
  return shape;
}

double embed_flops(const ModelConfig& c, int batch, int length) {
  const double d = c.d_model, f = c.d_ff, T = length;
  return static_cast<double>(batch) * c.encoder_layers * (T * (8 * d * d + 4 * d * f) + 4 * d * T * T);
}

double mlm_training_flops(const ModelConfig& c, int blocks, int length, long long masked) {
  const double d = c.d_model, V = c.src_vocab_size;
  return 3 * (embed_flops(c, blocks, length) + 2 * static_cast<double>(masked) * (d * d + d * V));
}

json embed_phase(const EncoderShape& shape, int batch, int repeats, int warmup, const InferencePrecision& precision) {
  const ModelConfig& c = shape.config;
  InferenceModel loaded;
  loaded.model = std::make_unique<Transformer<float>>(c);
  initialize_parameters(loaded.model->parameters(), c, 1);
  loaded.model->pack_for_inference(precision);
  Encoder encoder(std::move(loaded));
  EmbedOptions options;  // mean pooling, as `heptapod embed`
  options.batch_tokens = batch * shape.length;
  std::mt19937 rng(11);
  std::vector<std::vector<EncoderInput>> rounds(static_cast<std::size_t>(warmup + repeats));  // each (batch)
  for (auto& inputs : rounds)
    for (int i = 0; i < batch; ++i) inputs.push_back({random_input(c, shape.length, rng), {}, false});
  Clock::time_point t0 = Clock::now();
  for (int r = 0; r < warmup + repeats; ++r) {
    if (r == warmup) t0 = Clock::now();
    const auto vectors = encoder.embed_inputs(rounds[static_cast<std::size_t>(r)], options);  // (batch, d_model)
    require(static_cast<int>(vectors.size()) == batch, "benchmark: unexpected embedding count");
  }
  const double seconds = seconds_since(t0);
  return {{"batch", batch}, {"length", shape.length}, {"sentences", batch * repeats}, {"seconds", seconds},
          {"sentences_per_second", batch * repeats / seconds}, {"ms_per_batch", seconds / repeats * 1000},
          {"gflop", embed_flops(c, batch, shape.length) * repeats / 1e9}};
}

json mlm_train_phase(const EncoderShape& shape, int batches, int warmup) {
  const ModelConfig& c = shape.config;
  const int blocks = std::max(1, 4096 / shape.length);
  std::mt19937 rng(7);
  std::vector<Batch> all;
  for (int i = 0; i < warmup + batches; ++i) all.push_back(masked_batch(c, blocks, shape.length, rng));
  long long masked = 0;
  for (int u = warmup; u < warmup + batches; ++u) masked += all[static_cast<std::size_t>(u)].target_tokens();
  const double seconds = timed_updates(c, all, warmup);
  return {{"tokens", static_cast<long long>(blocks) * shape.length * batches}, {"masked_tokens", masked},
          {"seconds", seconds}, {"gflop", mlm_training_flops(c, blocks * batches, shape.length, masked) / 1e9}};
}

}  // namespace heptapod::bench
