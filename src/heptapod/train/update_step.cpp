// Forward, backward, accumulation, reduction, clipping and the Adam step of one update.
#include "heptapod/train/update_step.h"

#include <algorithm>
#include <chrono>
#include <cmath>

#include "heptapod/core/error.h"
#include "heptapod/core/random.h"
#include "heptapod/kernels/parallel.h"
#include "heptapod/kernels/reduce.h"

namespace heptapod {

namespace {

// Clips the trained gradients g (n) to a global norm of max_norm; returns their norm before.
double clip_gradients(float* g, long n, double max_norm) {
  const double norm = std::sqrt(kernels::sum_of_squares(g, n));
  if (max_norm > 0 && norm > max_norm) {
    const float scale = static_cast<float>(max_norm / (norm + 1e-6));
#pragma omp parallel for schedule(static) if (n > kernels::kParallelMinWork)
    for (long i = 0; i < n; ++i) g[i] *= scale;
  }
  return norm;
}

}  // namespace

std::uint64_t dropout_seed(std::uint64_t seed, long long step, int micro_batch) {
  // mix64 is a bijection: each step gets its own 64-bit base, and the micro-batches count up from it.
  return mix64(mix64(seed ^ mix64(static_cast<std::uint64_t>(step))) + static_cast<std::uint64_t>(micro_batch));
}

UpdateStep::UpdateStep(Transformer<float>& model, Adam<float>& adam, const TrainingLoss& loss,
                       const UpdateSettings& settings, GradientReducer* reducer)
    : model_(model), adam_(adam), loss_(loss), settings_(settings), reducer_(reducer) {
  require(adam.first_moment().size() == model.parameters().trained_size(),
          "update: the optimiser's state must cover the trained parameters alone");
}

void UpdateStep::start_sums(const std::vector<std::size_t>& tensors, bool accumulated) {
  ParameterStore<float>& p = model_.parameters();
  const std::size_t trained = p.trained_offset();
  float* g = p.grads();
  const float* a = accumulated_.data();  // from the store's trained_offset()
  // The trained tensors as runs of adjacent memory, one sum each.
  for (std::size_t i = 0; i < tensors.size();) {
    if (p.offset(tensors[i]) < trained) {
      ++i;
      continue;
    }
    const std::size_t begin = p.offset(tensors[i]);
    std::size_t end = begin + static_cast<std::size_t>(p.specs()[tensors[i]].numel());
    for (++i; i < tensors.size() && p.offset(tensors[i]) == end; ++i)
      end += static_cast<std::size_t>(p.specs()[tensors[i]].numel());
    const long n = static_cast<long>(end - begin);
    if (accumulated) {
      float* gb = g + begin;
      const float* ab = a + (begin - trained);
#pragma omp parallel for schedule(static) if (n > kernels::kParallelMinWork)
      for (long j = 0; j < n; ++j) gb[j] = ab[j] + gb[j];
    }
    reducer_->start_sum(g + begin, end - begin);
  }
}

UpdateStats UpdateStep::run(const std::vector<const Batch*>& micro_batches, const std::vector<int>& indices,
                            long long update_terms, long long step, double lr) {
  require(micro_batches.size() == indices.size(), "update: one index per micro-batch");
  // Every process sums the same sequence of buffers, so every process computes at least one micro-batch.
  require(!micro_batches.empty(), "update: no micro-batch for this process");
  ParameterStore<float>& p = model_.parameters();
  // The trained gradients g (n): a frozen base's are neither computed nor summed.
  const long n = static_cast<long>(p.trained_size());
  float* g = p.grads() + p.trained_offset();
  const bool overlap = reducer_ && settings_.overlap_reduction;
  const bool accumulate = micro_batches.size() > 1;
  if (accumulate && accumulated_.size() != static_cast<std::size_t>(n)) accumulated_.assign(n, 0.0f);
  double totals[2] = {0, 0};  // loss, nll
  p.zero_grads();
  for (std::size_t k = 0; k < micro_batches.size(); ++k) {
    const bool last = k + 1 == micro_batches.size();
    if (k > 0) p.zero_grads();
    arena_.reset();
    StepOptions opt;
    opt.training = true;
    opt.seed = dropout_seed(settings_.seed, step, indices[k]);
    opt.label_smoothing = settings_.label_smoothing;
    opt.grad_normalizer = static_cast<double>(update_terms);
    if (overlap && last)
      opt.gradients_complete = [&](const std::vector<std::size_t>& tensors) { start_sums(tensors, accumulate); };
    const LossTotals t = loss_.forward_backward(model_, *micro_batches[k], opt, arena_);
    totals[0] += t.loss;
    totals[1] += t.nll;
    if (!accumulate || (overlap && last)) continue;
    float* a = accumulated_.data();
    if (k == 0) {
      std::copy(g, g + n, a);
    } else {
#pragma omp parallel for schedule(static) if (n > kernels::kParallelMinWork)
      for (long i = 0; i < n; ++i) a[i] += g[i];
    }
  }
  UpdateStats stats;
  if (reducer_) {
    const auto wait_start = std::chrono::steady_clock::now();
    if (overlap) {
      reducer_->finish_sums();
    } else {
      if (accumulate) std::copy(accumulated_.begin(), accumulated_.end(), g);
      reducer_->sum(g, static_cast<std::size_t>(n));
    }
    reducer_->sum(totals, 2);
    stats.reduce_wait_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - wait_start).count();
  } else if (accumulate) {
    std::copy(accumulated_.begin(), accumulated_.end(), g);
  }
  for (const std::size_t t : settings_.frozen)
    std::fill_n(p.grads() + p.offset(t), static_cast<std::size_t>(p.specs()[t].numel()), 0.0f);
  stats.loss = totals[0];
  stats.nll = totals[1];
  if (std::isfinite(stats.loss)) {
    stats.grad_norm = clip_gradients(g, n, settings_.clip_norm);
    adam_.step(p.values() + p.trained_offset(), g, lr);
  }
  return stats;
}

}  // namespace heptapod
