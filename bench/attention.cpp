// Attention alone, forward and backward, with its probabilities kept for the backward pass (Keep) against
// recomputed tile by tile (Recompute, the fused path), on GPT-2 small's shape (d_model 768, 12 heads of 64):
// causal self-attention over sentences of one length, as many as make about 4096 tokens, at lengths 16 to 2048.
// Prints a table: ms per forward and per backward pass (the projections included), the memory each policy
// takes from the step's arena, and Recompute's time over Keep's.
//   attention [seconds per case, default 1] [length ...]
#include <omp.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "heptapod/core/arena.h"
#include "heptapod/core/random.h"
#include "heptapod/layers/attention.h"

namespace heptapod::bench {
namespace {

using Clock = std::chrono::steady_clock;
constexpr int kC = 768, kHeads = 12, kTokens = 4096;

std::vector<float> random_values(std::size_t n, std::uint64_t seed, float scale) {
  Rng rng(seed);
  std::vector<float> v(n);
  for (float& x : v) x = scale * (2.0f * static_cast<float>(rng.uniform()) - 1.0f);
  return v;
}

// One projection's weights and gradients.
struct Projection {
  std::vector<float> w, b, dw, db;
  explicit Projection(std::uint64_t seed)
      : w(random_values(static_cast<std::size_t>(kC) * kC, seed, 0.05f)), b(kC, 0.0f), dw(w.size()), db(kC) {}
  Linear<float> layer() { return Linear<float>{w.data(), b.data(), dw.data(), db.data(), kC, kC}; }
};

struct Timing {
  double forward_ms = 0, backward_ms = 0;
  double arena_mb = 0;
};

Timing time_policy(int length, AttentionProbabilities policy, double seconds) {
  Projection q(1), k(2), v(3), o(4);
  MultiHeadAttention<float> attn;
  attn.q_proj = q.layer();
  attn.k_proj = k.layer();
  attn.v_proj = v.layer();
  attn.out_proj = o.layer();
  attn.heads = kHeads;
  const int sentences = std::max(1, kTokens / length);
  const std::vector<int> lengths(sentences, length);
  const Sequences seq(lengths.data(), sentences);
  const AttentionShape shape(seq, seq, true);
  const std::vector<float> x = random_values(static_cast<std::size_t>(seq.rows()) * kC, 5, 1.0f);
  const std::vector<float> dy = random_values(x.size(), 6, 1.0f);
  std::vector<float> y(x.size()), dx(x.size());
  Arena arena;
  Timing t;
  int runs = 0;
  const Clock::time_point start = Clock::now();
  do {  // the first pass sizes the arena; it is timed with the rest
    arena.reset();
    AttentionSaved<float> saved;
    saved.policy = policy;
    const Clock::time_point t0 = Clock::now();
    attention_forward(attn, x.data(), x.data(), shape, DropoutSite{}, arena, saved, y.data());
    const Clock::time_point t1 = Clock::now();
    attention_backward(attn, dy.data(), x.data(), x.data(), shape, DropoutSite{}, saved, arena, dx.data(), false,
                       dx.data());
    const Clock::time_point t2 = Clock::now();
    t.forward_ms += std::chrono::duration<double, std::milli>(t1 - t0).count();
    t.backward_ms += std::chrono::duration<double, std::milli>(t2 - t1).count();
    ++runs;
  } while (std::chrono::duration<double>(Clock::now() - start).count() < seconds || runs < 3);
  t.forward_ms /= runs;
  t.backward_ms /= runs;
  arena.reset();  // one block of the high-water mark plus a quarter
  t.arena_mb = arena.capacity() / 1.25 / (1 << 20);
  return t;
}

}  // namespace
}  // namespace heptapod::bench

int main(int argc, char** argv) {
  using namespace heptapod;
  using namespace heptapod::bench;
  const double seconds = argc > 1 ? std::atof(argv[1]) : 1.0;
  std::vector<int> lengths;
  for (int i = 2; i < argc; ++i) lengths.push_back(std::atoi(argv[i]));
  if (lengths.empty()) lengths = {16, 64, 128, 256, 512, 1024, 2048};
  std::printf("causal self-attention, d_model %d, %d heads, about %d tokens per pass, %d threads\n\n", kC, kHeads,
              kTokens, omp_get_max_threads());
  std::printf("| length | sentences | keep fwd ms | keep bwd ms | keep arena MB | recompute fwd ms | recompute bwd ms "
              "| recompute arena MB | recompute time / keep |\n|---|---|---|---|---|---|---|---|---|\n");
  for (int length : lengths) {
    const Timing keep = time_policy(length, AttentionProbabilities::Keep, seconds);
    const Timing remade = time_policy(length, AttentionProbabilities::Recompute, seconds);
    std::printf("| %d | %d | %.1f | %.1f | %.0f | %.1f | %.1f | %.0f | %.2fx |\n", length, std::max(1, kTokens / length),
                keep.forward_ms, keep.backward_ms, keep.arena_mb, remade.forward_ms, remade.backward_ms,
                remade.arena_mb, (remade.forward_ms + remade.backward_ms) / (keep.forward_ms + keep.backward_ms));
    std::fflush(stdout);
  }
  return 0;
}
