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

}  // namespace heptapod::bench
