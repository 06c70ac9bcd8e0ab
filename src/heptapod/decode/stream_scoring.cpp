// Stream scoring: segments with memory, fixed blocks, or the sliding window.
#include "heptapod/decode/stream_scoring.h"

#include <algorithm>

#include "heptapod/core/arena.h"
#include "heptapod/core/error.h"
#include "heptapod/model/segment_memory.h"

namespace heptapod {

namespace {

// Windows [begin, begin + length) of the stream as inputs, each with its next tokens as targets.
Batch windows_batch(const std::vector<int>& stream, const std::vector<std::pair<long, int>>& windows) {
  Batch b;
  b.B = static_cast<int>(windows.size());
  for (const auto& [begin, length] : windows) b.T = std::max(b.T, length);
  b.tgt_in.assign(static_cast<std::size_t>(b.B) * b.T, 0);
  b.tgt_out.assign(b.tgt_in.size(), 0);
  b.src_len.assign(b.B, 0);
  for (int i = 0; i < b.B; ++i) {
    const auto [begin, length] = windows[i];
    b.tgt_len.push_back(length);
    std::copy_n(stream.begin() + begin, length, b.tgt_in.begin() + static_cast<long>(i) * b.T);
    std::copy_n(stream.begin() + begin + 1, length, b.tgt_out.begin() + static_cast<long>(i) * b.T);
  }
  return b;
}

// Scores the windows (each ending before the stream's last token) and hands each target's log-probability
// to take(window index, position in the window, log p).
template <typename Take>
void score_windows(Transformer<float>& model, const std::vector<int>& stream,
                   const std::vector<std::pair<long, int>>& windows, SegmentMemory<float>* memory, Arena& arena,
                   Take&& take) {
  const Batch b = windows_batch(stream, windows);
  std::vector<float> nll(static_cast<std::size_t>(b.B) * b.T);  // (B, T)
  arena.reset();
  model.evaluate(b, 0.0f, arena, nll.data(), memory);
  for (int i = 0; i < b.B; ++i)
    for (int t = 0; t < b.tgt_len[i]; ++t) take(i, t, -static_cast<double>(nll[static_cast<std::size_t>(i) * b.T + t]));
}

}  // namespace

void validate(const StreamScoring& o, const ModelConfig& model) {
  require(model.architecture == Architecture::DecoderOnly, "stream scoring needs a decoder-only model");
  require((o.segment > 0) != (o.window > 0), "score: give either --segment or --sliding-window");
  require(o.memory >= 0, "--memory must be 0 or positive");
  require(o.memory == 0 || model.relative_positions,
          "--memory: the model has no relative positions, which Transformer-XL's memory needs (a model trained "
          "with --positions relative)");
  require(o.memory == 0 || o.segment > 0, "--memory goes with --segment");
  const int longest = std::max(o.segment, o.window);
  require(longest <= model.position_limit(),
          std::string(o.segment > 0 ? "--segment " : "--sliding-window ") + std::to_string(longest) +
              " is longer than the model's learned positions (" + std::to_string(model.position_limit()) + ")");
}

std::vector<double> stream_log_probs(Transformer<float>& model, const std::vector<int>& stream,
                                     const StreamScoring& o) {
  validate(o, model.config());
  const long n = static_cast<long>(stream.size());
  std::vector<double> out(static_cast<std::size_t>(std::max(n - 1, 0L)));
  if (n < 2) return out;
  Arena arena;
  const ModelConfig& c = model.config();
  const int per_batch = std::max(1, o.batch_tokens / std::max(o.segment, o.window));
  if (o.segment > 0 && o.memory > 0) {  // one segment after another over the memory of the text before it
    SegmentMemory<float> memory(c.decoder_layers, c.d_model, o.memory, MemoryContent::KeysValues);
    for (long begin = 0; begin < n - 1; begin += o.segment) {
      const int length = static_cast<int>(std::min<long>(o.segment, n - 1 - begin));
      score_windows(model, stream, {{begin, length}}, &memory, arena,
                    [&](int, int t, double lp) { out[static_cast<std::size_t>(begin + t)] = lp; });
    }
    return out;
  }
  // Windows scored together: fixed blocks, every position scored; or sliding windows, the last position of
  // each, after one window that scores the first tokens from all the text before them.
  std::vector<std::pair<long, int>> windows;
  std::vector<long> first_target;  // each window's first target kept (its index into out)
  auto flush = [&] {
    if (windows.empty()) return;
    score_windows(model, stream, windows, nullptr, arena, [&](int i, int t, double lp) {
      const long at = windows[i].first + t;  // the target stream[at + 1], out[at]
      if (at >= first_target[i]) out[static_cast<std::size_t>(at)] = lp;
    });
    windows.clear();
    first_target.clear();
  };
  auto add = [&](long begin, int length, long keep_from) {
    windows.emplace_back(begin, length);
    first_target.push_back(keep_from);
    if (static_cast<int>(windows.size()) == per_batch) flush();
  };
  if (o.segment > 0) {
    for (long begin = 0; begin < n - 1; begin += o.segment)
      add(begin, static_cast<int>(std::min<long>(o.segment, n - 1 - begin)), begin);
  } else {
    const int first = static_cast<int>(std::min<long>(o.window, n - 1));
    add(0, first, 0);  // targets 1 .. first from everything before them
    for (long at = first; at < n - 1; ++at) add(at + 1 - o.window, o.window, at);  // target at + 1
  }
  flush();
  return out;
}

}  // namespace heptapod
