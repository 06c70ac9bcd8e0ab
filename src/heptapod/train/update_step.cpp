// Forward, backward, accumulation, reduction, clipping and the Adam step of one update.
#include "heptapod/train/update_step.h"

#include <algorithm>
#include <cmath>

#include "heptapod/core/error.h"
#include "heptapod/core/random.h"
#include "heptapod/kernels/parallel.h"
#include "heptapod/kernels/reduce.h"

namespace heptapod {

namespace {

double clip_gradients(ParameterStore<float>& p, double max_norm) {
  const double norm = std::sqrt(kernels::sum_of_squares(p.grads(), static_cast<long>(p.size())));
  if (max_norm > 0 && norm > max_norm) {
    const float scale = static_cast<float>(max_norm / (norm + 1e-6));
    float* g = p.grads();
    const long n = static_cast<long>(p.size());
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

UpdateStep::UpdateStep(Transformer<float>& model, Adam<float>& adam, const UpdateSettings& settings,
                       GradientReducer* reducer)
    : model_(model), adam_(adam), settings_(settings), reducer_(reducer) {}

UpdateStats UpdateStep::run(const std::vector<const Batch*>& micro_batches, const std::vector<int>& indices,
                            long long update_tokens, long long step, double lr) {
  require(micro_batches.size() == indices.size(), "update: one index per micro-batch");
  ParameterStore<float>& p = model_.parameters();
  const long n = static_cast<long>(p.size());
  float* g = p.grads();
  double totals[2] = {0, 0};  // loss, nll
  p.zero_grads();
  for (std::size_t k = 0; k < micro_batches.size(); ++k) {
    if (k > 0) p.zero_grads();
    arena_.reset();
    StepOptions opt;
    opt.training = true;
    opt.seed = dropout_seed(settings_.seed, step, indices[k]);
    opt.label_smoothing = settings_.label_smoothing;
    opt.grad_normalizer = static_cast<double>(update_tokens);
    const LossTotals t = model_.forward_backward(*micro_batches[k], opt, arena_);
    totals[0] += t.loss;
    totals[1] += t.nll;
    if (micro_batches.size() == 1) break;
    if (accumulated_.size() != static_cast<std::size_t>(n)) accumulated_.assign(n, 0.0f);
    float* a = accumulated_.data();
    if (k == 0) {
      std::copy(g, g + n, a);
    } else {
#pragma omp parallel for schedule(static) if (n > kernels::kParallelMinWork)
      for (long i = 0; i < n; ++i) a[i] += g[i];
    }
  }
  if (micro_batches.size() > 1) std::copy(accumulated_.begin(), accumulated_.end(), g);
  if (reducer_) {
    reducer_->sum(g, static_cast<std::size_t>(n));
    reducer_->sum(totals, 2);
  }
  UpdateStats stats;
  stats.loss = totals[0];
  stats.nll = totals[1];
  if (std::isfinite(stats.loss)) {
    stats.grad_norm = clip_gradients(p, settings_.clip_norm);
    adam_.step(p.values(), g, lr);
  }
  return stats;
}

}  // namespace heptapod
