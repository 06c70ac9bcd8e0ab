// Training-step properties: no heap allocation in the steady state, gradient accumulation over
// micro-batches equals one big batch, dropout determinism, and a small model learning a copy task.
#include <gtest/gtest.h>

#include <cmath>
#include <condition_variable>
#include <cstring>
#include <mutex>
#include <set>
#include <thread>

#include "heptapod/data/synthetic.h"
#include "heptapod/decode/greedy_reference.h"
#include "heptapod/kernels/reduce.h"
#include "heptapod/model/initialize.h"
#include "heptapod/model/transformer.h"
#include "heptapod/train/adam.h"
#include "heptapod/train/lr_schedule.h"
#include "heptapod/train/update_step.h"
#include "test_util.h"

namespace heptapod {
namespace {

ModelConfig small_config() {
  ModelConfig c = model_preset("tiny");
  c.src_vocab_size = c.tgt_vocab_size = 16;
  c.d_model = 32;
  c.d_ff = 64;
  c.dropout = c.attention_dropout = c.activation_dropout = c.embedding_dropout = 0.1f;
  return c;
}

// Copy pairs; a decoder-only model reads the targets alone.
Batch copy_batch(const ModelConfig& c, std::uint64_t seed, int n, int max_len = 8) {
  std::vector<std::vector<int>> src, tgt;
  for (const auto& p : synthetic_pairs(seed, n, 1, max_len, 3, c.has_encoder() ? c.src_vocab_size : c.tgt_vocab_size,
                                       false)) {
    src.push_back(c.has_encoder() ? p.source : std::vector<int>{});
    tgt.push_back(p.target);
  }
  return make_batch(src, tgt, c);
}

TEST(TrainingStep, SteadyStateDoesNotAllocate) {
  const ModelConfig c = small_config();
  Transformer<float> model(c);
  initialize_parameters(model.parameters(), c, 3);
  Arena arena;
  StepOptions opt;
  opt.training = true;
  const Batch big = copy_batch(c, 1, 24, 8);
  arena.reset();
  model.forward_backward(big, opt, arena);  // first step: the arena grows to the high-water mark
  arena.reset();
  const auto allocations = arena.heap_allocations();
  for (int i = 0; i < 5; ++i) {
    const Batch b = copy_batch(c, 10 + i, 24, 8);  // no larger than the first
    arena.reset();
    opt.seed = i;
    model.forward_backward(b, opt, arena);
  }
  arena.reset();
  EXPECT_EQ(arena.heap_allocations(), allocations);
}

TEST(TrainingStep, MicroBatchesAccumulateToTheFullBatchGradient) {
  ModelConfig c = small_config();
  c.dropout = c.attention_dropout = c.activation_dropout = c.embedding_dropout = 0.0f;
  Transformer<double> model(c);
  initialize_parameters(model.parameters(), c, 5);
  const auto pairs = synthetic_pairs(9, 6, 1, 7, 3, c.src_vocab_size, true);
  std::vector<std::vector<int>> src, tgt;
  for (const auto& p : pairs) {
    src.push_back(p.source);
    tgt.push_back(p.target);
  }
  Arena arena;
  StepOptions opt;
  opt.label_smoothing = 0.1f;
  model.forward_backward(make_batch(src, tgt, c), opt, arena);
  const std::vector<double> full(model.parameters().grads(), model.parameters().grads() + model.parameters().size());

  model.parameters().zero_grads();
  const Batch first = make_batch({src.begin(), src.begin() + 2}, {tgt.begin(), tgt.begin() + 2}, c);
  const Batch second = make_batch({src.begin() + 2, src.end()}, {tgt.begin() + 2, tgt.end()}, c);
  opt.grad_normalizer = static_cast<double>(first.target_tokens() + second.target_tokens());
  arena.reset();
  model.forward_backward(first, opt, arena);
  arena.reset();
  model.forward_backward(second, opt, arena);
  EXPECT_LT(test::max_rel_error(model.parameters().grads(), full.data(), full.size()), 1e-10);
}

TEST(TrainingStep, DropoutIsDeterministicPerSeedAndChangesWithIt) {
  const ModelConfig c = small_config();
  Transformer<float> model(c);
  initialize_parameters(model.parameters(), c, 3);
  const Batch b = copy_batch(c, 4, 8);
  Arena arena;
  StepOptions opt;
  opt.training = true;
  auto loss_with_seed = [&](std::uint64_t seed) {
    arena.reset();
    opt.seed = seed;
    const LossTotals t = model.forward_backward(b, opt, arena);
    return t.loss;
  };
  EXPECT_EQ(loss_with_seed(7), loss_with_seed(7));
  EXPECT_NE(loss_with_seed(7), loss_with_seed(8));
}

// The backward pass reports each tensor's gradient complete exactly once, and nothing after the report changes
// it, for every way of tying the embeddings, with or without final norms, with an encoder or without.
TEST(TrainingStep, BackwardReportsEachGradientCompleteOnceAndFinal) {
  for (const Architecture arch : {Architecture::EncoderDecoder, Architecture::DecoderOnly})
  for (const EmbeddingTying tying : {EmbeddingTying::All, EmbeddingTying::TargetOutput, EmbeddingTying::None}) {
    for (const NormPosition norm : {NormPosition::Post, NormPosition::Pre}) {
      if (arch == Architecture::DecoderOnly && tying == EmbeddingTying::All) continue;  // one embedding table
      SCOPED_TRACE(architecture_name(arch));
      ModelConfig c = small_config();
      c.tie_embeddings = tying;
      c.norm = norm;
      c.output_bias = tying == EmbeddingTying::None;
      if (arch != Architecture::EncoderDecoder) c = one_stack_config(c, arch, c.tgt_vocab_size);
      Transformer<float> model(c);
      initialize_parameters(model.parameters(), c, 3);
      const ParameterStore<float>& p = model.parameters();
      const Batch b = copy_batch(c, 12, 4);
      Arena arena;
      StepOptions opt;
      opt.training = true;
      opt.seed = 9;
      std::vector<int> reports(p.specs().size(), 0);
      std::vector<std::vector<float>> at_report(p.specs().size());  // each tensor's gradient when reported
      opt.gradients_complete = [&](const std::vector<std::size_t>& tensors) {
        for (const std::size_t t : tensors) {
          ++reports[t];
          const float* g = p.grads() + p.offset(t);
          at_report[t].assign(g, g + p.specs()[t].numel());
        }
      };
      model.parameters().zero_grads();
      model.forward_backward(b, opt, arena);
      for (std::size_t t = 0; t < p.specs().size(); ++t) {
        const std::string& name = p.specs()[t].name;
        ASSERT_EQ(reports[t], 1) << name;
        const float* g = p.grads() + p.offset(t);
        EXPECT_EQ(std::memcmp(at_report[t].data(), g, at_report[t].size() * sizeof(float)), 0)
            << name << " changed after it was reported complete";
        EXPECT_GT(kernels::sum_of_squares(g, static_cast<long>(at_report[t].size())), 0.0) << name;
      }
    }
  }
}

// Sums two "processes'" buffers, as MPI_Allreduce does for two ranks: each thread passes its buffer, both
// get a + b.
class TwoThreadReducer : public GradientReducer {
 public:
  void sum(float* v, std::size_t n) override { exchange(v, n); }
  void sum(double* v, std::size_t n) override { exchange(v, n); }

 private:
  template <typename T>
  void exchange(T* v, std::size_t n) {
    std::unique_lock lock(mutex_);
    const int generation = generation_;
    std::vector<T> mine(v, v + n);
    if (!waiting_) {  // first: leave a copy, wait for the other's sum
      waiting_ = true;
      first_ = std::vector<double>(v, v + n);
      done_.wait(lock, [&] { return generation_ != generation; });
      for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<T>(result_[i]);
    } else {
      result_.resize(n);
      for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<T>(static_cast<T>(first_[i]) + mine[i]);
      for (std::size_t i = 0; i < n; ++i) result_[i] = v[i];
      waiting_ = false;
      ++generation_;
      done_.notify_all();
    }
  }
  std::mutex mutex_;
  std::condition_variable done_;
  bool waiting_ = false;
  int generation_ = 0;
  std::vector<double> first_, result_;
};

// The parameters after three updates of `processes` x `per_process` micro-batches (process r computes
// micro-batches r, r + processes, ... of each update, as heptapod train splits them), every process's
// gradients summed by a TwoThreadReducer (1 or 2 processes); fails the test if the processes' models differ.
// lora: LoRA adapters (with their dropout) train over the frozen model, the optimiser's state theirs alone.
std::vector<float> train_processes(int processes, int per_process, bool overlap, bool lora = false) {
  ModelConfig c = small_config();
  if (lora) {
    c.lora.rank = 2;
    c.lora.targets = {"q", "v", "xq", "xv", "ffn"};
    c.lora.dropout = 0.1f;
  }
  constexpr int kUpdates = 3;
  const int per_update = processes * per_process;
  std::vector<Batch> batches;
  for (int i = 0; i < kUpdates * per_update; ++i) batches.push_back(copy_batch(c, 100 + i, 3 + i % 2));
  const UpdateSettings settings{.seed = 5, .label_smoothing = 0.1f, .clip_norm = 1.0, .overlap_reduction = overlap};
  TwoThreadReducer reducer;
  std::vector<std::vector<float>> models(processes);
  std::vector<std::thread> threads;
  for (int r = 0; r < processes; ++r)
    threads.emplace_back([&, r] {
      Transformer<float> model(c);
      initialize_parameters(model.parameters(), c, 11);
      Adam<float> adam(model.parameters().trained_size(), AdamConfig{});
      const ModelLoss loss;
      UpdateStep step(model, adam, loss, settings, processes > 1 ? &reducer : nullptr);
      for (int u = 0; u < kUpdates; ++u) {
        std::vector<const Batch*> mine;
        std::vector<int> indices;
        long long tokens = 0;
        for (int k = 0; k < per_update; ++k) {
          const Batch& b = batches[u * per_update + k];
          tokens += b.target_tokens();
          if (k % processes != r) continue;
          mine.push_back(&b);
          indices.push_back(k);
        }
        step.run(mine, indices, tokens, u, 1e-3);
      }
      const float* v = model.parameters().values();
      models[r].assign(v, v + model.parameters().size());
    });
  for (auto& t : threads) t.join();
  for (int r = 1; r < processes; ++r) EXPECT_TRUE(models[r] == models[0]) << "process " << r << " differs from process 0";
  return models[0];
}

// Two micro-batches accumulated on one process and the same two split over two processes (each with its
// micro-batch's index, so its dropout stream) and summed give the same model, bit for bit, update after
// update, whether the sums run layer by layer during the backward pass or after it.
TEST(TrainingStep, TwoProcessesEqualOneAccumulatingTwoMicroBatches) {
  const std::vector<float> one = train_processes(1, 2, true);
  EXPECT_TRUE(train_processes(2, 1, true) == one) << "summed during backward";
  EXPECT_TRUE(train_processes(2, 1, false) == one) << "summed after backward";
}

// The same with LoRA adapters over a frozen model: the sums cover the adapters' gradients alone, and the frozen
// parameters stay as they were.
TEST(TrainingStep, LoraTwoProcessesEqualOneAccumulatingTwoMicroBatches) {
  const std::vector<float> one = train_processes(1, 2, true, true);
  EXPECT_TRUE(train_processes(2, 1, true, true) == one) << "summed during backward";
  EXPECT_TRUE(train_processes(2, 1, false, true) == one) << "summed after backward";
  EXPECT_TRUE(train_processes(2, 2, true, true) == train_processes(2, 2, false, true));
  ModelConfig c = small_config();
  c.lora.rank = 2;
  c.lora.targets = {"q", "v", "xq", "xv", "ffn"};
  Transformer<float> start(c);
  initialize_parameters(start.parameters(), c, 11);
  const ParameterStore<float>& p = start.parameters();
  ASSERT_EQ(one.size(), p.size());
  EXPECT_TRUE(std::equal(p.values(), p.values() + p.trained_offset(), one.begin())) << "the frozen part moved";
  EXPECT_FALSE(std::equal(p.values() + p.trained_offset(), p.values() + p.size(), one.begin() + p.trained_offset()))
      << "the adapters did not train";
}

// With several micro-batches per process, summing during the last one's backward pass adds the same floats
// in the same order as summing after it.
TEST(TrainingStep, OverlappedSumsEqualSumsAfterBackwardWhenAccumulating) {
  EXPECT_TRUE(train_processes(2, 2, true) == train_processes(2, 2, false));
}

// Every (update, micro-batch) pair draws its own dropout stream, for accumulations far above 64 (the old
// seeding, step * 64 + k, gave micro-batch 64 of step s the masks of micro-batch 0 of step s + 1).
TEST(TrainingStep, DropoutSeedsAreDistinctForEveryUpdateAndMicroBatch) {
  std::set<std::uint64_t> seeds;
  constexpr int kSteps = 300, kMicroBatches = 200;
  for (long long step = 0; step < kSteps; ++step)
    for (int k = 0; k < kMicroBatches; ++k) seeds.insert(dropout_seed(7, step, k));
  EXPECT_EQ(seeds.size(), static_cast<std::size_t>(kSteps * kMicroBatches));
  EXPECT_NE(dropout_seed(7, 3, 64), dropout_seed(7, 4, 0));
  EXPECT_NE(dropout_seed(7, 3, 0), dropout_seed(8, 3, 0));
}

TEST(TrainingStep, SmallModelLearnsToCopy) {
  ModelConfig c = small_config();
  c.dropout = c.attention_dropout = c.activation_dropout = c.embedding_dropout = 0.0f;
  Transformer<float> model(c);
  initialize_parameters(model.parameters(), c, 11);
  Adam<float> adam(model.parameters().size(), AdamConfig{});
  LrSchedule schedule;
  schedule.warmup_steps = 150;
  schedule.scale = 1.5;
  schedule.d_model = c.d_model;
  Arena arena;
  StepOptions opt;
  double first_nll = 0, last_nll = 0;
  for (int step = 1; step <= 600; ++step) {
    const Batch b = copy_batch(c, 100 + step, 64, 6);
    arena.reset();
    model.parameters().zero_grads();
    const LossTotals t = model.forward_backward(b, opt, arena);
    adam.step(model.parameters().values(), model.parameters().grads(), schedule.at(step));
    if (step == 1) first_nll = t.nll / t.tokens;
    last_nll = t.nll / t.tokens;
  }
  EXPECT_GT(first_nll, 2.0);
  EXPECT_LT(last_nll, 0.2);
  int correct = 0;
  const auto test = synthetic_pairs(777, 50, 1, 6, 3, c.src_vocab_size, false);
  for (const auto& p : test) correct += greedy_reference(model, p.source, 10, arena) == p.target;
  EXPECT_GE(correct, 40) << "exact copies out of 50";
}

}  // namespace
}  // namespace heptapod
