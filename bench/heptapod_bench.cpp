// Heptapod's side of the benchmarks against PyTorch (bench/vs_pytorch.sh, bench/lm_vs_pytorch.sh and
// bench/encoder_vs_pytorch.sh run both sides and print the tables).
//   heptapod_bench workload -o W.json [--train-batches N --translate-batches N --latency-sentences N --seed S]
//   heptapod_bench run --workload W.json --phase train|beam4|greedy|latency|allreduce --model small|base [--threads N]
//       [--compute-type float32|int8|bfloat16]  (train: float32 or bfloat16 products)
//   heptapod_bench run --phase lm-train|generate --model lm-small|gpt2-small|smollm-135m [--batches N --accumulate A] [--batch B --prompt P
//       --new N --repeats R] [--compute-type ...] [--model-file F [--lora R --lora-targets T ...]]  (language models,
//       bench/lm_phases.h; no workload file; lm-train with --model-file fine-tunes F, in full or by LoRA over it)
//   heptapod_bench run --phase embed|mlm-train --model enc-small|bert-base [--batch B --repeats R] [--batches N]
//       [--compute-type ...]  (encoder-only models, bench/encoder_phases.h; no workload file)
//   heptapod_bench ceiling --workload W.json --model small|base|lm-small|gpt2-small|smollm-135m [--threads N]
//   heptapod_bench lm-model --model lm-small|gpt2-small|smollm-135m -o F.htp  (its random weights, no vocabulary)
//   heptapod_bench quant-error --model lm-small|gpt2-small|smollm-135m | --model-file F [--types T ...] [--tokens N]
//   heptapod_bench lm-blocks --text T --vocab V -o PREFIX [--documents --context --batch-tokens --seed --batches]
// `run` and `ceiling` print one JSON line; each phase runs in its own process so peak RSS is the phase's.
#include <sys/resource.h>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <map>
#include <numeric>
#include <random>
#include <tuple>

#include "heptapod/core/error.h"
#include "heptapod/kernels/threads.h"
#include "heptapod/decode/beam_search.h"
#include "heptapod/io/atomic_file.h"
#include "heptapod/io/model_file.h"
#include "heptapod/kernels/blas.h"
#include "heptapod/kernels/matmul_precision.h"
#include "heptapod/model/initialize.h"
#include "heptapod/model/transformer.h"
#include "heptapod/train/adam.h"
#include "heptapod/train/communicator.h"
#include "heptapod/train/train_config.h"
#include "heptapod/train/update_step.h"
#include "encoder_phases.h"
#include "lm_phases.h"
#include "workload.h"

namespace heptapod::bench {
namespace {

using Clock = std::chrono::steady_clock;
using nlohmann::json;

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }
double peak_rss_mb() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_maxrss / 1024.0;
}

// Random real tokens (ids 4..V-1) of the given lengths.
std::vector<std::vector<int>> random_sentences(const std::vector<int>& lengths, int vocab, std::mt19937& rng) {
  std::uniform_int_distribution<int> id(4, vocab - 1);
  std::vector<std::vector<int>> out;
  for (int n : lengths) {
    std::vector<int> s(n);
    for (int& t : s) t = id(rng);
    out.push_back(std::move(s));
  }
  return out;
}

json train_phase(const ModelConfig& c, const Workload& w, bool overlap) {
  Transformer<float> model(c);
  initialize_parameters(model.parameters(), c, 1);
  Adam<float> adam(model.parameters().size(), AdamConfig{});
  std::mt19937 rng(7);
  std::vector<Batch> batches;
  for (const auto& b : w.train) {
    std::vector<int> tgt_tokens(b.tgt_lengths.size());  // targets without the bos/eos shift
    std::transform(b.tgt_lengths.begin(), b.tgt_lengths.end(), tgt_tokens.begin(), [](int t) { return t - 1; });
    batches.push_back(make_batch(random_sentences(b.src_lengths, c.src_vocab_size, rng),
                                 random_sentences(tgt_tokens, c.tgt_vocab_size, rng), c));
  }
  // The settings heptapod train runs with by default (label smoothing 0.1, no clipping). Under mpirun each
  // update takes one batch per rank (rank r: batch u * ranks + r) and sums the gradients, as heptapod train
  // does; the figures count every rank's tokens.
  const TrainConfig defaults;
  Communicator& comm = communicator();
  const int ranks = comm.size(), rank = comm.rank();
  const ModelLoss loss;
  UpdateStep update(model, adam, loss,
                    UpdateSettings{.seed = defaults.seed,
                                   .label_smoothing = defaults.label_smoothing,
                                   .clip_norm = defaults.clip_norm,
                                   .overlap_reduction = overlap},
                    ranks > 1 ? &comm : nullptr);
  const std::size_t updates = batches.size() / ranks;
  const std::size_t warmup = std::min(static_cast<std::size_t>(w.train_warmup), updates / 2);
  long long tokens = 0;
  double flops = 0, reduce_wait = 0;
  Clock::time_point t0;
  for (std::size_t u = 0; u < updates; ++u) {
    if (u == warmup) {
      comm.barrier();
      t0 = Clock::now();
    }
    long long update_tokens = 0;
    for (int r = 0; r < ranks; ++r) update_tokens += batches[u * ranks + r].target_tokens();
    const UpdateStats stats =
        update.run({&batches[u * ranks + rank]}, {rank}, update_tokens, static_cast<long long>(u), 1e-4);
    if (u >= warmup) {
      reduce_wait += stats.reduce_wait_seconds;
      tokens += update_tokens;
      for (int r = 0; r < ranks; ++r) flops += training_flops(c, w.train[u * ranks + r]);
    }
  }
  comm.barrier();
  const double seconds = seconds_since(t0);
  return {{"tokens", tokens}, {"seconds", seconds}, {"gflop", flops / 1e9}, {"ranks", ranks}, {"overlap", overlap},
          // Rank 0's wait for the gradient sums after its backward passes, per update.
          {"reduce_wait_seconds_per_update", reduce_wait / static_cast<double>(updates - warmup)}};
}

// The gradient all-reduce alone: a buffer of the model's parameter count summed across the ranks (under
// mpirun), once to warm up and then five times.
json allreduce_phase(const ModelConfig& c) {
  Communicator& comm = communicator();
  std::vector<float> gradients(static_cast<std::size_t>(parameter_count(c)), 1.0f);
  comm.sum(gradients.data(), gradients.size());
  comm.barrier();
  constexpr int kRepeats = 5;
  const Clock::time_point t0 = Clock::now();
  for (int i = 0; i < kRepeats; ++i) comm.sum(gradients.data(), gradients.size());
  const double seconds = seconds_since(t0) / kRepeats;
  const double bytes = gradients.size() * sizeof(float);
  return {{"ranks", comm.size()}, {"bytes", bytes}, {"seconds", seconds},
          {"bus_gbytes_per_second", 2.0 * (comm.size() - 1) / comm.size() * bytes / seconds / 1e9}};
}

// Translates each batch with the end token banned, so every sentence decodes exactly as many tokens as its
// source has (the rival does the same).
json translate_phase(const ModelConfig& c, const std::vector<std::vector<int>>& batches, int warmup, int beam,
                     const InferencePrecision& precision) {
  Transformer<float> model(c);
  initialize_parameters(model.parameters(), c, 1);
  model.pack_for_inference(precision);
  model.prepare_for_batches();  // as `heptapod translate` does for inputs of more than one batch
  IncrementalDecoder decoder(model);
  SearchOptions options;
  options.beam = beam;
  options.max_extra_length = 0;
  options.min_length = 1 << 20;
  std::mt19937 rng(11);
  long long tokens = 0;
  double flops = 0;
  Clock::time_point t0;
  for (std::size_t i = 0; i < batches.size(); ++i) {
    if (static_cast<int>(i) == warmup) t0 = Clock::now();
    const auto sources = random_sentences(batches[i], c.src_vocab_size, rng);
    const auto result = beam_search(decoder, sources, options);
    if (static_cast<int>(i) < warmup) continue;
    for (std::size_t s = 0; s < sources.size(); ++s) {
      require(result[s].front().tokens.size() == sources[s].size(), "benchmark: unexpected output length");
      tokens += static_cast<long long>(sources[s].size());
      flops += translation_flops(c, static_cast<int>(sources[s].size()), beam);
    }
  }
  const double seconds = seconds_since(t0);
  return {{"tokens", tokens}, {"seconds", seconds}, {"gflop", flops / 1e9}};
}

// Memory read bandwidth (GB/s): the best of a few parallel sums over 512 MB, the floor of weight-bound
// batch-1 decoding.
double read_bandwidth() {
  const long n = 128L << 20;
  std::vector<float> data(n, 1.0f);
  double best = 1e30, sink = 0;
  for (int r = 0; r < 4; ++r) {
    const auto t0 = Clock::now();
    double sum = 0;
#pragma omp parallel for reduction(+ : sum) schedule(static)
    for (long i = 0; i < n; i += 8) sum += data[i] + data[i + 1] + data[i + 2] + data[i + 3] + data[i + 4] + data[i + 5] + data[i + 6] + data[i + 7];
    best = std::min(best, seconds_since(t0));
    sink += sum;
  }
  require(sink > 0, "benchmark: bandwidth sum");
  return n * sizeof(float) / best / 1e9;
}

// The linear layers' GEMMs of a training step (forward, input and weight gradients), counted by shape.
class TrainingGemms {
 public:
  // `times` linear layers of `in` -> `out` features over `rows` tokens.
  void linear(int rows, int in, int out, int times) {
    using kernels::Trans;
    counts_[{Trans::No, Trans::Yes, rows, out, in}] += times;  // y = x W^T
    counts_[{Trans::No, Trans::No, rows, in, out}] += times;   // dx = dy W
    counts_[{Trans::Yes, Trans::No, out, in, rows}] += times;  // dW = dy^T x
  }
  // sgemm GFLOP/s over every counted GEMM, each product timed through the same dispatch the model uses.
  json measure() const {
    double flops = 0, seconds = 0;
    for (const auto& [g, times] : counts_) {
      const int rows_a = g.ta == kernels::Trans::No ? g.M : g.K, cols_a = g.ta == kernels::Trans::No ? g.K : g.M;
      const int rows_b = g.tb == kernels::Trans::No ? g.K : g.N, cols_b = g.tb == kernels::Trans::No ? g.N : g.K;
      std::vector<float> A(static_cast<std::size_t>(rows_a) * cols_a, 0.5f), Bm(static_cast<std::size_t>(rows_b) * cols_b, 0.25f),
          C(static_cast<std::size_t>(g.M) * g.N);
      auto run = [&] { kernels::gemm<float>(g.ta, g.tb, g.M, g.N, g.K, 1.0f, A.data(), cols_a, Bm.data(), cols_b, 0.0f, C.data(), g.N); };
      run();  // warm-up
      double best = 1e30;
      for (int r = 0; r < 3; ++r) {
        const auto t0 = Clock::now();
        run();
        best = std::min(best, seconds_since(t0));
      }
      flops += 2.0 * g.M * g.N * g.K * times;
      seconds += best * times;
    }
    return {{"gflop", flops / 1e9}, {"seconds", seconds}, {"gflops", flops / 1e9 / seconds},
            {"read_gb_per_s", read_bandwidth()}};
  }

 private:
  struct Gemm {
    kernels::Trans ta, tb;
    int M, N, K;
    auto key() const { return std::tuple(ta, tb, M, N, K); }
    bool operator<(const Gemm& o) const { return key() < o.key(); }
  };
  std::map<Gemm, int> counts_;
};

// The ceiling of a translation model: the timed training batches' GEMMs.
json ceiling_phase(const ModelConfig& c, const Workload& w) {
  TrainingGemms gemms;
  const int d = c.d_model, f = c.d_ff, V = c.tgt_vocab_size;
  for (std::size_t i = w.train_warmup; i < w.train.size(); ++i) {
    const auto& b = w.train[i];
    // The model runs every sentence's real tokens end to end, without padding: these are its row counts.
    const int ns = std::accumulate(b.src_lengths.begin(), b.src_lengths.end(), 0);
    const int nt = std::accumulate(b.tgt_lengths.begin(), b.tgt_lengths.end(), 0);
    gemms.linear(ns, d, d, 4 * c.encoder_layers + 2 * c.decoder_layers);  // encoder q,k,v,o; cross k,v
    gemms.linear(ns, d, f, c.encoder_layers);
    gemms.linear(ns, f, d, c.encoder_layers);
    gemms.linear(nt, d, d, 6 * c.decoder_layers);  // self q,k,v,o; cross q,o
    gemms.linear(nt, d, f, c.decoder_layers);
    gemms.linear(nt, f, d, c.decoder_layers);
    gemms.linear(nt, d, V, 1);
  }
  return gemms.measure();
}

// The ceiling of a language model: one training batch's GEMMs (4096 tokens).
json lm_ceiling_phase(const LanguageModelShape& shape) {
  TrainingGemms gemms;
  const ModelConfig& c = shape.config;
  const int n = std::max(1, 4096 / shape.context) * shape.context;
  gemms.linear(n, c.d_model, c.d_model, 4 * c.decoder_layers);  // q,k,v,o
  gemms.linear(n, c.d_model, c.d_ff, c.decoder_layers);
  gemms.linear(n, c.d_ff, c.d_model, c.decoder_layers);
  gemms.linear(n, c.d_model, c.tgt_vocab_size, 1);
  return gemms.measure();
}

Workload load_workload(const std::string& path) {
  return workload_from_json(read_file(path), path);
}

int main(int argc, char** argv) {
  CLI::App app{"Heptapod's side of the benchmarks against PyTorch"};
  app.require_subcommand(1);
  std::string out_path, workload_path, phase, model_name, compute_type = "float32";
  int train_batches = 8, translate_batches = 4, latency_sentences = 6, threads = 2;
  int lm_batches = 3, rows = 1, prompt = 64, added = 128, repeats = 2, warmup = 1;
  unsigned seed = 1;
  auto* make = app.add_subcommand("workload", "Write the benchmark workload (JSON)");
  make->add_option("-o,--output", out_path)->required();
  make->add_option("--train-batches", train_batches);
  make->add_option("--translate-batches", translate_batches);
  make->add_option("--latency-sentences", latency_sentences);
  make->add_option("--seed", seed);
  auto* run = app.add_subcommand("run", "Run one phase and print its JSON line");
  auto* ceiling = app.add_subcommand("ceiling", "Measure the sgemm ceiling on the training GEMM shapes");
  for (auto* sub : {run, ceiling}) {
    sub->add_option("--workload", workload_path, "Translation models: the workload JSON");
    sub->add_option("--model", model_name)
        ->required()
        ->check(CLI::IsMember({"small", "base", "lm-small", "gpt2-small", "smollm-135m", "enc-small", "bert-base"}));
    sub->add_option("--threads", threads);
  }
  bool overlap = true;
  run->add_flag("!--no-overlap", overlap, "Train phase under mpirun: sum the gradients after the backward pass");
  run->add_option("--phase", phase)
      ->required()
      ->check(CLI::IsMember({"train", "beam4", "greedy", "latency", "allreduce", "lm-train", "generate", "embed",
                             "mlm-train"}));
  std::string model_file;
  run->add_option("--model-file", model_file,
                  "generate: the weights of this model file (its shape must be --model's), in its stored types "
                  "unless --compute-type is given; lm-train: fine-tune this model file (float32), or train LoRA "
                  "adapters over it (--lora, any stored precision)");
  int lora_rank = 0;
  std::vector<std::string> lora_targets{"q", "v"};
  run->add_option("--lora", lora_rank, "lm-train with --model-file: LoRA adapters of this rank (alpha = rank)")
      ->check(CLI::PositiveNumber);
  run->add_option("--lora-targets", lora_targets, "lm-train with --lora: the adapted matrices (default q v)");
  auto* compute_type_option = run->add_option("--compute-type", compute_type,
                  "Translation, generate and embed phases: float32, int8, bfloat16, int4 or q8_0 weights; train, lm-train, "
                  "mlm-train: float32 or bfloat16 products")
      ->check(CLI::IsMember({"float32", "int8", "bfloat16", "int4", "q8_0"}));
  run->add_option("--batches", lm_batches, "lm-train, mlm-train: timed updates (after --warmup)")->check(CLI::PositiveNumber);
  int accumulate = 1;
  run->add_option("--accumulate", accumulate, "lm-train: each update's blocks in this many micro-batches")
      ->check(CLI::PositiveNumber);
  run->add_option("--batch", rows, "generate: prompts generated together; embed: inputs embedded together")
      ->check(CLI::PositiveNumber);
  run->add_option("--prompt", prompt, "generate: prompt tokens")->check(CLI::PositiveNumber);
  run->add_option("--new", added, "generate: new tokens per prompt")->check(CLI::PositiveNumber);
  run->add_option("--repeats", repeats, "generate, embed: timed rounds (after --warmup)")->check(CLI::PositiveNumber);
  run->add_option("--warmup", warmup, "lm-train, mlm-train, generate, embed: untimed updates or rounds first")
      ->check(CLI::NonNegativeNumber);
  BlockExport blocks;
  auto* export_blocks = app.add_subcommand("lm-blocks", "Write the batches a language model's training reads, in order");
  export_blocks->add_option("--text", blocks.text)->required();
  export_blocks->add_option("--vocab", blocks.vocab)->required();
  export_blocks->add_option("-o,--output", blocks.prefix, "Prefix of the .inputs, .targets and .json files")->required();
  export_blocks->add_option("--work-dir", blocks.work_dir, "Where the corpus cache goes")->required();
  export_blocks->add_option("--documents", blocks.documents);
  export_blocks->add_option("--context", blocks.context)->check(CLI::PositiveNumber);
  export_blocks->add_option("--batch-tokens", blocks.batch_tokens)->check(CLI::PositiveNumber);
  export_blocks->add_option("--seed", blocks.seed);
  export_blocks->add_option("--batches", blocks.batches)->required()->check(CLI::PositiveNumber);
  std::string preset_model, preset_path;
  auto* write_model = app.add_subcommand("lm-model", "Write a language model preset's random weights as a model file");
  write_model->add_option("--model", preset_model)->required()->check(CLI::IsMember({"lm-small", "gpt2-small", "smollm-135m"}));
  write_model->add_option("-o,--output", preset_path)->required();
  std::string error_model, error_file;
  std::vector<std::string> error_types{"int8", "q8_0", "int4", "bfloat16"};
  int error_tokens = 127;
  auto* error = app.add_subcommand("quant-error", "Log-probability error of each compute type against float64");
  auto* error_preset = error->add_option("--model", error_model, "A language model preset of random weights")
                           ->check(CLI::IsMember({"lm-small", "gpt2-small", "smollm-135m"}));
  error->add_option("--model-file", error_file, "Or a decoder-only model file")->excludes(error_preset);
  error->add_option("--types", error_types, "Compute types to measure")
      ->check(CLI::IsMember({"int8", "bfloat16", "int4", "q8_0"}));
  error->add_option("--tokens", error_tokens, "Tokens predicted")->check(CLI::PositiveNumber);
  error->add_option("--seed", seed, "Seed of the tokens (and of the preset's weights)");
  error->add_option("--threads", threads);
  CLI11_PARSE(app, argc, argv);

  try {
    if (write_model->parsed()) {
      const ModelConfig c = bench_language_model(preset_model).config;
      Transformer<float> model(c);
      initialize_parameters(model.parameters(), c, 1);  // generate_phase's weights
      save_model(preset_path, model);
      return 0;
    }
    if (error->parsed()) {
      set_num_threads(threads);
      std::vector<ComputeType> types;
      for (const std::string& t : error_types) types.push_back(parse_compute_type(t, "--types"));
      if (!error_file.empty()) {
        const auto model = load_model(error_file);
        require(model->config().architecture == Architecture::DecoderOnly, error_file + ": not a decoder-only model");
        std::cout << quantization_error_phase(model->config(), model->parameters().values(), error_tokens, types, seed)
                  << std::endl;
      } else {
        require(!error_model.empty(), "quant-error: --model or --model-file is required");
        std::cout << quantization_error_phase(bench_language_model(error_model).config, nullptr, error_tokens, types,
                                              seed)
                  << std::endl;
      }
      return 0;
    }
    if (make->parsed()) {
      const std::string text = to_json(make_workload(seed, train_batches, translate_batches, latency_sentences));
      write_file_atomic(out_path, [&](std::ostream& out) { out << text; });
      return 0;
    }
    if (export_blocks->parsed()) {
      export_lm_blocks(blocks);
      return 0;
    }
    set_num_threads(threads);
    const bool compute_type_given = compute_type_option->count() > 0;
    const bool language_model = model_name == "lm-small" || model_name == "gpt2-small" || model_name == "smollm-135m";
    const bool lm_phase = phase == "lm-train" || phase == "generate";
    const bool encoder = is_encoder_model(model_name), encoder_phase = phase == "embed" || phase == "mlm-train";
    require(!run->parsed() || (language_model == lm_phase && encoder == encoder_phase),
            "--phase " + phase + " is not for the " + model_name + " model");
    require(!ceiling->parsed() || !encoder, "ceiling: not measured for the encoder models");
    const bool train = run->parsed() && (phase == "train" || phase == "lm-train" || phase == "mlm-train");
    require(!train || compute_type != "int8", "--compute-type int8 is for the inference phases");
    if (train && compute_type == "bfloat16") {  // as `train --matmul-precision bfloat16`
      const kernels::MatmulPrecisionChoice choice = kernels::set_matmul_precision(kernels::MatmulPrecision::bfloat16);
      require(choice.reason.empty(), "--compute-type bfloat16: " + choice.reason);
    }
    const InferencePrecision precision{parse_compute_type(train ? "float32" : compute_type, "--compute-type"), false};
    json result;
    ModelConfig c;
    if (encoder) {
      const EncoderShape shape = bench_encoder_model(model_name);
      c = shape.config;
      result = phase == "embed" ? embed_phase(shape, rows, repeats, warmup, precision)
                                : mlm_train_phase(shape, lm_batches, warmup);
    } else if (language_model) {
      const LanguageModelShape shape = bench_language_model(model_name);
      c = shape.config;
      if (ceiling->parsed()) {
        result = lm_ceiling_phase(shape);
        phase = "ceiling";
      } else if (phase == "lm-train") {
        FineTuning fine_tuning{model_file, {}};
        if (lora_rank > 0) fine_tuning.lora = {.rank = lora_rank, .alpha = static_cast<float>(lora_rank), .targets = lora_targets};
        require(lora_rank == 0 || !model_file.empty(), "--lora needs --model-file (the base)");
        result = lm_train_phase(shape, lm_batches, warmup, model_file.empty() ? nullptr : &fine_tuning, accumulate);
      } else if (!model_file.empty()) {  // the model file's weights (a GGUF file's types), not a preset's
        const SafetensorsFile file = SafetensorsFile::read(model_file);
        InferencePrecision stored = stored_precision(file);
        if (compute_type_given) stored.type = precision.type;
        const auto model = load_inference_model(file, stored);
        c = model->config();
        result = generate_phase(*model, rows, prompt, added, repeats, warmup);
      } else {
        result = generate_phase(shape, rows, prompt, added, repeats, warmup, precision);
      }
    } else {
      require(!workload_path.empty(), "--workload is required for the " + model_name + " model");
      const Workload w = load_workload(workload_path);
      c = bench_model(model_name);
      if (ceiling->parsed()) {
        result = ceiling_phase(c, w);
        phase = "ceiling";
      } else if (phase == "train") {
        result = train_phase(c, w, overlap);
      } else if (phase == "allreduce") {
        result = allreduce_phase(c);
      } else if (phase == "latency") {
        std::vector<std::vector<int>> singles;
        for (int n : w.latency) singles.push_back({n});
        result = translate_phase(c, singles, w.latency_warmup, 1, precision);
        result["ms_per_sentence"] = result["seconds"].get<double>() * 1000 / (singles.size() - w.latency_warmup);
      } else {
        result = translate_phase(c, w.translate, w.translate_warmup, phase == "beam4" ? 4 : 1, precision);
      }
    }
    result["side"] = "heptapod";
    result["phase"] = phase;
    result["compute_type"] = compute_type;
    result["model"] = model_name;
    result["threads"] = threads;
    if (result.contains("tokens")) result["tokens_per_second"] = result["tokens"].get<double>() / result["seconds"].get<double>();
    result["peak_rss_mb"] = peak_rss_mb();
    result["model_mb"] = parameter_count(c) * 4.0 / (1 << 20);
    result["decode_weight_mb"] = decode_weight_bytes(c) / (1 << 20);
    result["blas"] = kernels::blas_description();
    if (communicator().rank() == 0) std::cout << result.dump() << std::endl;
  } catch (const std::exception& e) {
    std::cerr << "heptapod_bench: " << e.what() << "\n";
    return 1;
  }
  return 0;
}

}  // namespace
}  // namespace heptapod::bench

int main(int argc, char** argv) { return heptapod::bench::main(argc, argv); }
