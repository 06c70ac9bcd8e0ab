// The encoder-only phases of heptapod_bench (bench/encoder_vs_pytorch.sh runs them beside
// bench/pytorch_bert.py): embedding throughput and latency through the Encoder front end, and masked-
// language-model training throughput, on random full-length inputs.
#pragma once

#include <nlohmann/json.hpp>

#include <string>

#include "heptapod/model/transformer.h"

namespace heptapod::bench {

// A benchmark encoder and its input length: enc-small (4 layers, d_model 256, V 8000, 128 positions) or
// bert-base (BERT-base's shape: 12 layers, d_model 768, V 30522, 512 positions); both BERT's design
// (post-norm, GELU, learned positions, 2 token types, an embedding norm, unscaled embeddings, the masked-LM
// head, dropouts 0.1), inputs of 128 tokens.
struct EncoderShape {
  ModelConfig config;
  int length = 128;
};
EncoderShape bench_encoder_model(const std::string& name);
bool is_encoder_model(const std::string& name);

// Useful matrix work, 2 FLOPs per multiply-add (the formulas bench/pytorch_bert.py states): a sequence of T
// tokens costs T (8 d^2 + 4 d f) + 4 d T^2 per layer; training is 3 x the forward pass, whose masked-LM
// head runs on the `masked` chosen rows: 2 masked (d^2 + d V).
double embed_flops(const ModelConfig& c, int batch, int length);
double mlm_training_flops(const ModelConfig& c, int blocks, int length, long long masked);

// Mean-pooled embeddings of `batch` random inputs (start token, length - 2 random ids, end token) in one
// batch through Encoder::embed_inputs, in `precision`; `warmup` batches untimed, then `repeats` timed, each
// with fresh inputs.
nlohmann::json embed_phase(const EncoderShape& shape, int batch, int repeats, int warmup,
                           const InferencePrecision& precision);

// Masked-language-model updates on batches of 4096 tokens (32 inputs of 128), each ordinary position chosen
// with probability 0.15 (at least one per input) and replaced as BERT does (80% mask, 10% random, 10% kept),
// as `heptapod train --arch encoder-only` runs them (label smoothing 0.1, Adam, the config's dropouts);
// `warmup` updates untimed, then `batches` timed. Products in the precision set_matmul_precision chose.
nlohmann::json mlm_train_phase(const EncoderShape& shape, int batches, int warmup);

}  // namespace heptapod::bench
