// The language-model phases of heptapod_bench (bench/lm_vs_pytorch.sh runs them beside bench/pytorch_gpt.py):
// training throughput on random blocks, generation throughput after prompts, and the export of a real
// training run's batches so that the rival trains on the same data in the same order.
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "heptapod/model/transformer.h"
#include "workload.h"

namespace heptapod::bench {

// Updates on `batches` in order, as `heptapod train` runs them (its default label smoothing, clipping and
// seed; Adam at 1e-4; the config's dropouts), of a model of config c freshly initialised: the first `warmup`
// untimed. Returns the seconds of the others. Products in the precision set_matmul_precision chose.
double timed_updates(const ModelConfig& c, std::vector<Batch>& batches, int warmup);
// The same with `model` as it is (its trained parameters alone updated: a LoRA model's adapters), each update
// made of `accumulate` consecutive batches as micro-batches (`heptapod train --accumulate`): `warmup` counts
// updates.
double timed_updates(Transformer<float>& model, std::vector<Batch>& batches, int warmup, int accumulate = 1);

// A model file to fine-tune instead of a fresh model of the preset: in full (float32 files), or with LoRA
// adapters over its frozen base in whatever precision the file holds (lora.rank > 0).
struct FineTuning {
  std::string model_file;
  LoraConfig lora;
};

// Training updates on batches of 4096 tokens (4096 / context blocks of random ids), as `heptapod train`
// runs them (label smoothing 0.1, Adam, dropout of the model's config); `warmup` updates untimed, then
// `batches` timed. Products in the precision set_matmul_precision chose.
// With fine_tuning: the model file's model instead (the preset gives the context), and "start" and
// "trained_parameters" say what was trained. accumulate > 1: each update's blocks in that many micro-batches.
nlohmann::json lm_train_phase(const LanguageModelShape& shape, int batches, int warmup,
                              const FineTuning* fine_tuning = nullptr, int accumulate = 1);

// Greedy generation with the end token banned, so every row adds exactly `added` tokens after its prompt of
// `prompt` random ids: `rows` prompts prefilled in one pass, then one token per row per step, with the
// key/value cache `heptapod generate` uses. `warmup` rounds untimed, then `repeats` timed, each with fresh
// prompts.
nlohmann::json generate_phase(const LanguageModelShape& shape, int rows, int prompt, int added, int repeats, int warmup,
                              const InferencePrecision& precision);
// The same with a model already packed for inference (a model file's, bench --model-file).
nlohmann::json generate_phase(Transformer<float>& model, int rows, int prompt, int added, int repeats, int warmup);

// The log-probability cost of each compute type: `tokens` + 1 random ids (seeded by `seed`), each predicting
// the next, under a model of config c with the float32 parameters `params` (or freshly initialised ones when
// null, the standard deviation of GPT-2's initialisation), computed in float64, in float32 and packed in each
// of `types`. For each: the summed log-probability, its difference from float64's, and the mean and largest
// per-token absolute difference.
nlohmann::json quantization_error_phase(const ModelConfig& c, const float* params, int tokens,
                                        const std::vector<ComputeType>& types, unsigned seed);

// What the language-model trainer would read for `heptapod train --arch decoder-only --text TEXT --vocab VOCAB
// --documents DOCUMENTS --context C --batch-tokens N --seed S`: its first `batches` batches, in order, as
// PREFIX.inputs and PREFIX.targets (little-endian int32, (batches, rows, context), pad_id where a block is
// shorter or absent) and PREFIX.json ({"batches", "rows", "context", "pad_id", "epochs"}). work_dir holds the
// corpus cache.
struct BlockExport {
  std::string text, vocab, documents = "lines", prefix, work_dir;
  int context = 256, batch_tokens = 4096;
  long long batches = 0;
  unsigned long long seed = 1;
};
void export_lm_blocks(const BlockExport& e);

}  // namespace heptapod::bench
