// The side-by-side benchmark's workload (bench/vs_pytorch.sh): the two model configs, training batches of
// a realistic length mix, translation batches of 32 sentences and batch-1 latency sentences. Written once as
// JSON so that Heptapod and the PyTorch rival (bench/pytorch_rival.py) run identical work; also the
// "useful" FLOP counts both sides are measured against.
#pragma once

#include <string>
#include <vector>

#include "heptapod/model/config.h"

namespace heptapod::bench {

struct TrainBatch {
  std::vector<int> src_lengths, tgt_lengths;  // (B) source tokens; decoder positions (bos/eos shift included)
};

struct Workload {
  int train_warmup = 2, translate_warmup = 1, latency_warmup = 1;
  std::vector<TrainBatch> train;                 // ~4096 padded tokens each
  std::vector<std::vector<int>> translate;       // batches of 32 source lengths
  std::vector<int> latency;                      // source lengths, one sentence at a time
};

// Deterministic from the seed: sentence lengths from a log-normal mix (median ~20 tokens, 2..100), batched
// after sorting by length under a padded-token budget, as the training batcher does.
Workload make_workload(unsigned seed, int train_batches, int translate_batches, int latency_sentences);
std::string to_json(const Workload& w);
Workload workload_from_json(const std::string& text, const std::string& where);

// "small" (d_model 256, 4 heads, d_ff 1024, 3+3 layers, vocabulary 8000) or "base" (the paper's, vocabulary
// 37000); one shared vocabulary tied to the output projection.
ModelConfig bench_model(const std::string& name);

// Useful FLOPs: real (unpadded) tokens only; attention over the real lengths. Training counts
// forward + backward as 3x the forward.
double training_flops(const ModelConfig& c, const TrainBatch& batch);
// A cached decoder's work for one sentence of n source tokens decoding n output tokens with `rows` hypotheses:
// encoder and cross-attention keys/values once, then one position per row per step.
double translation_flops(const ModelConfig& c, int n, int rows);

// Bytes of fp32 weights one decoding step must read: every decoder layer and the output projection.
double decode_weight_bytes(const ModelConfig& c);

// The language-model benchmark's models (bench/lm_vs_pytorch.sh), decoder-only with their training context:
// "lm-small" is examples/bible-lm's model (6 pre-norm layers, d_model 256, 4 heads, d_ff 1024, ReLU,
// sinusoids, vocabulary 8000, context 256); "gpt2-small" is GPT-2 small's shape (12 pre-norm layers, d_model
// 768, 12 heads, d_ff 3072, GELU, 1024 learned positions, unscaled embeddings, vocabulary 50257, context 1024).
// "smollm-135m" is SmolLM-135M's shape, LLaMA's pieces (30 layers, d_model 576, 9 heads of 64 with 3 key/value
// heads, SwiGLU d_ff 1536, RMSNorm, rotary positions of theta 100000, no biases, vocabulary 49152, context
// 1024). All tie the output layer to the embedding, without an output bias.
struct LanguageModelShape {
  ModelConfig config;
  int context = 0;
};
LanguageModelShape bench_language_model(const std::string& name);

// Useful FLOPs of a language model (the rival counts the same): a block of T tokens costs, per layer,
// T (4 d Q + 4 d K + 4 d d_ff) for the linear layers (Q, K: the query and key/value widths, d each with full
// heads; 6 d d_ff with a gated network) and 2 Q T^2 for the causal attention's two products (half of the
// T x T scores), plus 2 T d V for the output layer; training is 3x the forward. Generating `added` tokens
// after a prompt of P in each of `rows` rows: the prompt's forward (output layer for its last token only),
// then per new token at position t: layers (the linear layers' + 4 Q t) + 2 d V.
double lm_training_flops(const ModelConfig& c, int blocks, int context);
double lm_generation_flops(const ModelConfig& c, int rows, int prompt, int added);

}  // namespace heptapod::bench
