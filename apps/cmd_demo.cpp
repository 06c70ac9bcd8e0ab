// `heptapod demo`: trains a small model on a synthetic copy (or reverse) task and shows it learning:
// loss falling, then exact-match accuracy and examples on held-out sentences.
#include <cmath>
#include <cstdio>
#include <memory>
#include <string>

#include "commands.h"
#include "heptapod/core/progress.h"
#include "heptapod/kernels/threads.h"
#include "heptapod/data/synthetic.h"
#include "heptapod/decode/greedy_reference.h"
#include "heptapod/io/model_file.h"
#include "heptapod/model/initialize.h"
#include "heptapod/train/adam.h"
#include "heptapod/train/lr_schedule.h"
#include "heptapod/train/update_step.h"

namespace heptapod::app {

namespace {

struct DemoOptions {
  std::string task = "copy";
  int steps = 1500;
  int batch_size = 128;
  int max_len = 10;
  int vocab = 24;
  int threads = 0;
  std::uint64_t seed = 1;
  std::string output;
};

std::string tokens_string(const std::vector<int>& t) {
  std::string s;
  for (int x : t) s += (s.empty() ? "" : " ") + std::to_string(x);
  return s;
}

int run_demo(const DemoOptions& o) {
  set_num_threads(o.threads);
  ModelConfig config = model_preset("tiny");
  config.src_vocab_size = config.tgt_vocab_size = o.vocab;
  config.dropout = config.attention_dropout = config.activation_dropout = config.embedding_dropout = 0.0f;
  Transformer<float> model(config);
  initialize_parameters(model.parameters(), config, o.seed);
  Adam<float> adam(model.parameters().size(), AdamConfig{});
  const ModelLoss loss;
  UpdateStep update(model, adam, loss, UpdateSettings{.seed = o.seed, .label_smoothing = 0.1f, .clip_norm = 0.0});
  LrSchedule schedule;
  schedule.warmup_steps = 400;
  schedule.scale = 1.0;
  schedule.d_model = config.d_model;
  const bool reverse = o.task == "reverse";
  const int first_id = 3;  // after pad, bos, eos

  std::printf("demo: learning to %s token strings (length 1-%d, %d symbols) with a %lld-parameter Transformer\n",
              o.task.c_str(), o.max_len, o.vocab - first_id, parameter_count(config));
  Arena arena;
  Progress progress(o.steps);
  double smoothed = 0;
  for (int step = 1; step <= o.steps; ++step) {
    const auto pairs = synthetic_pairs(o.seed * 1000003 + step, o.batch_size, 1, o.max_len, first_id, o.vocab, reverse);
    std::vector<std::vector<int>> src, tgt;
    for (const auto& p : pairs) {
      src.push_back(p.source);
      tgt.push_back(p.target);
    }
    const Batch batch = make_batch(src, tgt, config);
    const UpdateStats t = update.run({&batch}, {0}, batch.target_tokens(), step - 1, schedule.at(step));
    const double nll = t.nll / batch.target_tokens();
    smoothed = step == 1 ? nll : 0.9 * smoothed + 0.1 * nll;
    char detail[96];
    std::snprintf(detail, sizeof detail, "nll %.3f ppl %.2f lr %.2e", smoothed, std::exp(smoothed), schedule.at(step));
    if (step == o.steps) progress.finish(step, detail);
    else progress.update(step, detail);
  }

  const auto test = synthetic_pairs(o.seed + 424242, 200, 1, o.max_len, first_id, o.vocab, reverse);
  int correct = 0;
  for (std::size_t i = 0; i < test.size(); ++i) {
    const auto out = greedy_reference(model, test[i].source, o.max_len + 5, arena);
    correct += out == test[i].target;
    if (i < 5)
      std::printf("  source %-30s -> output %-30s %s\n", tokens_string(test[i].source).c_str(),
                  tokens_string(out).c_str(), out == test[i].target ? "ok" : "WRONG");
  }
  std::printf("held-out exact match: %d / %zu (%.1f%%)\n", correct, test.size(), 100.0 * correct / test.size());
  if (!o.output.empty()) {
    save_model(o.output, model);
    std::printf("model written to %s\n", o.output.c_str());
  }
  return 0;
}

}  // namespace

Runner add_demo_command(CLI::App& root) {
  auto* cmd = root.add_subcommand("demo", "Train a small model on a synthetic copy/reverse task and show it learning");
  auto o = std::make_shared<DemoOptions>();
  cmd->add_option("--task", o->task, "copy or reverse")->check(CLI::IsMember({"copy", "reverse"}));
  cmd->add_option("--steps", o->steps, "Training steps")->check(CLI::Range(1, 1000000));
  cmd->add_option("--batch-size", o->batch_size, "Sentences per step")->check(CLI::Range(1, 100000));
  cmd->add_option("--max-len", o->max_len, "Longest sequence")->check(CLI::Range(1, 1000));
  cmd->add_option("--vocab", o->vocab, "Vocabulary size (3 ids are special)")->check(CLI::Range(4, 100000));
  cmd->add_option("--threads", o->threads, "Threads (0: all cores)")->check(CLI::NonNegativeNumber);
  cmd->add_option("--seed", o->seed, "Random seed")->check(integer_check<std::uint64_t>());
  cmd->add_option("-o,--output", o->output, "Write the trained model here");
  return [o] { return run_demo(*o); };
}

}  // namespace heptapod::app
