// Language-model phases of heptapod_bench: training and generation throughput, and the batch export for the
// rival's wall-time training comparison.
#include "lm_phases.h"

#include <algorithm>
#include <chrono>
#include <random>

#include "heptapod/core/error.h"
#include "heptapod/decode/beam_search.h"
#include "heptapod/decode/incremental_decoder.h"
#include "heptapod/io/atomic_file.h"
#include "heptapod/io/model_file.h"
#include "heptapod/model/initialize.h"
#include "heptapod/model/parameter_names.h"
#include "heptapod/train/adam.h"
#include "heptapod/train/language_model_task.h"
#include "heptapod/train/lora_base.h"
#include "heptapod/train/model_choice.h"
#include "heptapod/train/train_config.h"
#include "heptapod/train/update_step.h"

namespace heptapod::bench {

using nlohmann::json;
using Clock = std::chrono::steady_clock;

namespace {

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

// (count) random real ids: 4..V-1.
std::vector<int> random_ids(int count, int vocab, std::mt19937& rng) {
  std::uniform_int_distribution<int> id(4, vocab - 1);
  std::vector<int> out(static_cast<std::size_t>(count));
  for (int& t : out) t = id(rng);
  return out;
}

// A training batch of `blocks` full blocks: inputs (blocks, context) and their next tokens.
Batch random_blocks(int blocks, int context, int vocab, std::mt19937& rng) {
  Batch b;
  b.B = blocks;
  b.T = context;
  b.src_len.assign(blocks, 0);
  b.tgt_len.assign(blocks, context);
  for (int i = 0; i < blocks; ++i) {
    const std::vector<int> ids = random_ids(context + 1, vocab, rng);  // (context + 1)
    b.tgt_in.insert(b.tgt_in.end(), ids.begin(), ids.end() - 1);
    b.tgt_out.insert(b.tgt_out.end(), ids.begin() + 1, ids.end());
  }
  return b;
}

// log p(next token) of each row of a decoder-only batch's logits (N, V) in double: (N).
template <typename T>
std::vector<double> next_token_log_probs(const T* logits, const Batch& b, int vocab) {
  std::vector<double> out;
  for (std::size_t r = 0; r < b.tgt_out.size(); ++r) {
    const T* row = logits + r * static_cast<std::size_t>(vocab);
    double max = row[0], sum = 0;
    for (int v = 1; v < vocab; ++v) max = std::max<double>(max, row[v]);
    for (int v = 0; v < vocab; ++v) sum += std::exp(static_cast<double>(row[v]) - max);
    out.push_back(static_cast<double>(row[b.tgt_out[r]]) - max - std::log(sum));
  }
  return out;
}

}  // namespace

json quantization_error_phase(const ModelConfig& c, const float* params, int tokens,
                              const std::vector<ComputeType>& types, unsigned seed) {
  std::mt19937 rng(seed);
  const Batch b = random_blocks(1, tokens, c.tgt_vocab_size, rng);
  Transformer<float> source(c);
  if (params)
    std::copy_n(params, source.parameters().size(), source.parameters().values());
  else
    initialize_parameters(source.parameters(), c, seed);
  Transformer<double> exact(c);
  std::copy_n(source.parameters().values(), source.parameters().size(), exact.parameters().values());
  Arena arena;
  const std::vector<double> want = next_token_log_probs(exact.logits(b, arena), b, c.tgt_vocab_size);  // (tokens)
  const double want_sum = std::accumulate(want.begin(), want.end(), 0.0);
  json rows = json::array();
  auto measure = [&](const std::string& name, Transformer<float>& model) {
    Arena a;
    const std::vector<double> got = next_token_log_probs(model.logits(b, a), b, c.tgt_vocab_size);  // (tokens)
    double sum = 0, mean = 0, worst = 0;
    for (std::size_t i = 0; i < got.size(); ++i) {
      sum += got[i];
      mean += std::fabs(got[i] - want[i]) / static_cast<double>(got.size());
      worst = std::max(worst, std::fabs(got[i] - want[i]));
    }
    rows.push_back({{"type", name}, {"log_prob", sum}, {"error", sum - want_sum}, {"mean_token_error", mean},
                    {"max_token_error", worst}});
  };
  measure("float32", source);
  for (ComputeType type : types) {
    Transformer<float> model(c);
    std::copy_n(source.parameters().values(), source.parameters().size(), model.parameters().values());
    model.pack_for_inference({type});
    measure(compute_type_name(type), model);
    if (type != ComputeType::Int4 || c.d_model % 32 != 0) continue;
    // int4 with the output projection in Q4_0 as well: what keeping it in Q8_0 buys.
    Transformer<float> all4(c);
    std::copy_n(source.parameters().values(), source.parameters().size(), all4.parameters().values());
    const std::string output = output_projection_name(c);
    const int rows = static_cast<int>(all4.parameters().spec(output).shape[0]);
    const std::vector<unsigned char> blocks =  // (rows, row bytes)
        kernels::quantize_rows(kernels::GgmlType::Q4_0, all4.parameters().value(output), rows, c.d_model);
    all4.pack_for_inference({ComputeType::Int4},
                            {{output, {ComputeType::Int4, blocks.data(), nullptr, rows, c.d_model, kernels::GgmlType::Q4_0}}});
    measure("int4, output in Q4_0", all4);
  }
  return {{"phase", "quant-error"}, {"tokens", tokens}, {"float64_log_prob", want_sum}, {"types", rows}};
}

double timed_updates(const ModelConfig& c, std::vector<Batch>& batches, int warmup) {
  Transformer<float> model(c);
  initialize_parameters(model.parameters(), c, 1);
  return timed_updates(model, batches, warmup);
}

double timed_updates(Transformer<float>& model, std::vector<Batch>& batches, int warmup, int accumulate) {
  Adam<float> adam(model.parameters().trained_size(), AdamConfig{});
  const TrainConfig defaults;
  const ModelLoss loss;
  UpdateStep update(model, adam, loss,
                    UpdateSettings{.seed = defaults.seed, .label_smoothing = defaults.label_smoothing,
                                   .clip_norm = defaults.clip_norm, .overlap_reduction = false},
                    nullptr);
  Clock::time_point t0 = Clock::now();
  for (int u = 0; u < static_cast<int>(batches.size()) / accumulate; ++u) {
    if (u == warmup) t0 = Clock::now();
    std::vector<const Batch*> micro_batches;
    std::vector<int> indices;
    long long tokens = 0;
    for (int m = 0; m < accumulate; ++m) {
      micro_batches.push_back(&batches[static_cast<std::size_t>(u * accumulate + m)]);
      indices.push_back(m);
      tokens += micro_batches.back()->target_tokens();
    }
    update.run(micro_batches, indices, tokens, u, 1e-4);
  }
  return seconds_since(t0);
}

json lm_train_phase(const LanguageModelShape& shape, int batches, int warmup, const FineTuning* fine_tuning,
                    int accumulate) {
  std::unique_ptr<Transformer<float>> model;
  std::string base = "fresh";  // what the model starts from
  if (fine_tuning) {
    const SafetensorsFile file = SafetensorsFile::read(fine_tuning->model_file);
    ModelConfig config = read_model_config(file);
    require(config.position_limit() >= shape.context, fine_tuning->model_file + ": fewer positions than the context");
    if (fine_tuning->lora.enabled()) {
      config.lora = fine_tuning->lora;
      validate_lora(config);
      model = std::make_unique<Transformer<float>>(config);
      base = "LoRA over " + load_lora_base(*model, file, false, 1);
    } else {
      model = load_model(file);
      base = "full fine-tuning";
    }
  } else {
    model = std::make_unique<Transformer<float>>(shape.config);
    initialize_parameters(model->parameters(), shape.config, 1);
  }
  const ModelConfig& c = model->config();
  const int blocks = std::max(1, 4096 / shape.context);
  require(accumulate >= 1 && blocks % accumulate == 0,
          "--accumulate must divide the " + std::to_string(blocks) + " blocks of an update");
  std::mt19937 rng(7);
  std::vector<Batch> all;  // (warmup + batches) * accumulate micro-batches of blocks / accumulate blocks
  for (int i = 0; i < (warmup + batches) * accumulate; ++i)
    all.push_back(random_blocks(blocks / accumulate, shape.context, c.tgt_vocab_size, rng));
  long long tokens = 0;
  for (std::size_t m = static_cast<std::size_t>(warmup) * accumulate; m < all.size(); ++m) tokens += all[m].target_tokens();
  const double seconds = timed_updates(*model, all, warmup, accumulate);
  return {{"tokens", tokens}, {"seconds", seconds},
          {"gflop", lm_training_flops(c, blocks, shape.context) * batches / 1e9}, {"blocks", blocks},
          {"context", shape.context}, {"accumulate", accumulate}, {"start", base}, {"trained_parameters", model->parameters().trained_size()}};
}

json generate_phase(const LanguageModelShape& shape, int rows, int prompt, int added, int repeats, int warmup,
                    const InferencePrecision& precision) {
  Transformer<float> model(shape.config);
  initialize_parameters(model.parameters(), shape.config, 1);
  model.pack_for_inference(precision);
  return generate_phase(model, rows, prompt, added, repeats, warmup);
}

json generate_phase(Transformer<float>& model, int rows, int prompt, int added, int repeats, int warmup) {
  const ModelConfig& c = model.config();
  require(prompt + added <= c.position_limit(), "benchmark: prompt + new tokens exceed the learned positions");
  model.prepare_for_batches();
  IncrementalDecoder decoder(model);
  SearchOptions options;  // greedy, the key/value cache `heptapod generate` keeps (float16)
  options.beam = 1;
  options.length_penalty = 0;
  options.prompts = true;
  options.max_extra_length = added;
  options.min_length = 1 << 20;  // the end token banned: every row adds exactly `added` tokens
  std::mt19937 rng(11);
  const std::vector<std::vector<int>> sources(static_cast<std::size_t>(rows));
  long long tokens = 0;
  Clock::time_point t0 = Clock::now();
  for (int r = 0; r < warmup + repeats; ++r) {
    std::vector<std::vector<int>> prompts;
    for (int i = 0; i < rows; ++i) prompts.push_back(random_ids(prompt, c.tgt_vocab_size, rng));
    if (r == warmup) t0 = Clock::now();
    const auto result = beam_search(decoder, sources, options, prompts);
    if (r < warmup) continue;
    for (const auto& hypotheses : result) {
      require(static_cast<int>(hypotheses.front().tokens.size()) == prompt + added, "benchmark: unexpected output length");
      tokens += added;
    }
  }
  const double seconds = seconds_since(t0);
  return {{"tokens", tokens}, {"seconds", seconds}, {"rows", rows}, {"prompt", prompt}, {"new", added},
          {"gflop", lm_generation_flops(c, rows, prompt, added) * repeats / 1e9},
          {"ms_per_token", seconds / repeats / added * 1000}};
}

void export_lm_blocks(const BlockExport& e) {
  TrainConfig c;
  c.train_text = e.text;
  c.vocab = e.vocab;
  c.documents = document_split_from_name(e.documents, "--documents");
  c.context = e.context;
  c.batch_tokens = e.batch_tokens;
  c.seed = e.seed;
  c.output_dir = e.work_dir;
  ModelChoice tiny;  // the blocks depend on the vocabulary's special ids, not on the model's shape
  tiny.preset = "tiny";
  tiny.architecture = Architecture::DecoderOnly;
  resolve_model(tiny, c);
  LanguageModelTask task(c);
  task.prepare(0);
  const ModelConfig model = task.resolve_model(c.model);
  const int rows = std::max(1, e.batch_tokens / e.context);
  std::vector<std::int32_t> inputs(static_cast<std::size_t>(e.batches) * rows * e.context, model.pad_id),
      targets(inputs.size(), model.pad_id);  // (batches, rows, context) each
  TrainState state;
  Batch batch;
  for (long long n = 0; n < e.batches; ++n) {
    require(task.next_batch(state, 0, model, batch), "benchmark: the text gave no batch");
    for (int i = 0; i < batch.B; ++i)
      for (int t = 0; t < batch.tgt_len[i]; ++t) {
        const std::size_t at = (static_cast<std::size_t>(n) * rows + i) * e.context + t;
        inputs[at] = batch.tgt_in[static_cast<std::size_t>(i) * batch.T + t];
        targets[at] = batch.tgt_out[static_cast<std::size_t>(i) * batch.T + t];
      }
  }
  auto write = [](const std::string& path, const std::vector<std::int32_t>& v) {
    write_file_atomic(path, [&](std::ostream& out) {
      out.write(reinterpret_cast<const char*>(v.data()), static_cast<std::streamsize>(v.size() * sizeof v[0]));
    });
  };
  write(e.prefix + ".inputs", inputs);
  write(e.prefix + ".targets", targets);
  const json meta = {{"batches", e.batches}, {"rows", rows}, {"context", e.context}, {"pad_id", model.pad_id},
                     {"epochs", state.epoch + (state.batch_in_epoch > 0 ? 1 : 0)}};
  write_file_atomic(e.prefix + ".json", [&](std::ostream& out) { out << meta.dump() << "\n"; });
}

}  // namespace heptapod::bench
