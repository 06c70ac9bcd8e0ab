// SegmentStreams and SegmentMemoryLoss: the order of Transformer-XL's training segments and their memories.
#include "heptapod/train/segment_streams.h"

#include <algorithm>
#include <numeric>

#include "heptapod/core/error.h"

namespace heptapod {

SegmentStreams::SegmentStreams(std::int64_t tokens, int groups, int per_group, int segment)
    : groups_(groups), per_group_(per_group), segment_(segment) {
  require(groups > 0 && per_group > 0 && segment > 0, "segment streams: groups, streams and length must be > 0");
  const std::int64_t streams = static_cast<std::int64_t>(groups) * per_group;
  length_ = (tokens - 1) / streams;
  require(length_ > 0, "the training text has " + std::to_string(tokens) + " tokens: too few for " +
                           std::to_string(streams) + " parallel streams (fewer --batch-tokens, or more text)");
  segments_ = (length_ + segment - 1) / segment;
}

SegmentStreams::Segment SegmentStreams::segment(std::int64_t i) const {
  Segment s;
  s.group = static_cast<int>(i % groups_);
  const std::int64_t k = i / groups_;  // the segment within each stream
  s.first = k == 0;
  s.length = static_cast<int>(std::min<std::int64_t>(segment_, length_ - k * segment_));
  for (int j = 0; j < per_group_; ++j)
    s.begins.push_back((static_cast<std::int64_t>(s.group) * per_group_ + j) * length_ + k * segment_);
  return s;
}

SegmentMemory<float>& SegmentMemoryLoss::memory(const ModelConfig& model, int group) const {
  require(group >= 0 && group < static_cast<int>(memories_.size()),
          "segment memory loss: the batch names stream group " + std::to_string(group) + " of " +
              std::to_string(memories_.size()));
  auto& m = memories_[static_cast<std::size_t>(group)];
  if (!m) m = std::make_unique<SegmentMemory<float>>(model.decoder_layers, model.d_model, model.memory_length);
  return *m;
}

LossTotals SegmentMemoryLoss::forward_backward(Transformer<float>& model, const Batch& batch,
                                               const StepOptions& options, Arena& arena) const {
  SegmentMemory<float>& m = memory(model.config(), batch.stream_group);
  if (batch.stream_start) m.clear();
  return model.forward_backward(batch, options, arena, &m);
}

std::vector<TaskStateTensor> SegmentMemoryLoss::checkpoint_state(const ModelConfig& model, int rank, int ranks,
                                                                GradientReducer* reducer) const {
  const int groups = static_cast<int>(memories_.size()), layers = model.decoder_layers, C = model.d_model;
  auto sum = [&](std::vector<float>& v) {
    if (reducer && !v.empty()) reducer->sum(v.data(), v.size());
  };
  auto mine = [&](int g) { return g % ranks == rank && memories_[g] != nullptr; };
  // Three sums over the ranks: each group's stream count, their lengths, then the rows; a group another
  // rank computes is zeros here.
  std::vector<float> counts(static_cast<std::size_t>(groups), 0.0f);
  for (int g = 0; g < groups; ++g)
    if (mine(g)) counts[g] = static_cast<float>(memories_[g]->streams());
  sum(counts);
  std::vector<std::size_t> length_at(static_cast<std::size_t>(groups) + 1, 0);
  for (int g = 0; g < groups; ++g) length_at[g + 1] = length_at[g] + static_cast<std::size_t>(counts[g]);
  std::vector<float> lengths(length_at.back(), 0.0f);
  for (int g = 0; g < groups; ++g)
    if (mine(g))
      for (int b = 0; b < memories_[g]->streams(); ++b) lengths[length_at[g] + b] = static_cast<float>(memories_[g]->lengths()[b]);
  sum(lengths);
  std::vector<std::size_t> rows_at(static_cast<std::size_t>(groups) + 1, 0);  // rows of every layer, per group
  for (int g = 0; g < groups; ++g)
    rows_at[g + 1] = rows_at[g] + static_cast<std::size_t>(std::accumulate(
                                      lengths.begin() + static_cast<long>(length_at[g]),
                                      lengths.begin() + static_cast<long>(length_at[g + 1]), 0.0));
  std::vector<float> rows(rows_at.back() * layers * C, 0.0f);  // per group: (layers, rows, C)
  for (int g = 0; g < groups; ++g)
    if (mine(g) && memories_[g]->rows() > 0)
      for (int l = 0; l < layers; ++l)
        std::copy(memories_[g]->layer_rows(l).begin(), memories_[g]->layer_rows(l).end(),
                  rows.begin() + static_cast<long>((rows_at[g] * layers + (rows_at[g + 1] - rows_at[g]) * l) * C));
  sum(rows);
  std::vector<TaskStateTensor> out;
  for (int g = 0; g < groups; ++g) {
    const std::string prefix = "memory/" + std::to_string(g) + "/";
    const auto n = static_cast<std::int64_t>(rows_at[g + 1] - rows_at[g]);
    out.push_back({prefix + "lengths", {static_cast<std::int64_t>(counts[g])},
                   std::vector<float>(lengths.begin() + static_cast<long>(length_at[g]),
                                      lengths.begin() + static_cast<long>(length_at[g + 1]))});
    out.push_back({prefix + "rows", {layers, n, C},
                   std::vector<float>(rows.begin() + static_cast<long>(rows_at[g] * layers * C),
                                      rows.begin() + static_cast<long>(rows_at[g + 1] * layers * C))});
  }
  return out;
}

void SegmentMemoryLoss::restore_state(const ModelConfig& model, const SafetensorsFile& checkpoint, int rank,
                                      int ranks) {
  const int layers = model.decoder_layers, C = model.d_model;
  for (int g = rank; g < static_cast<int>(memories_.size()); g += ranks) {
    const std::string prefix = task_state_name("memory/" + std::to_string(g) + "/");
    require(checkpoint.find(prefix + "lengths") && checkpoint.find(prefix + "rows"),
            checkpoint.where() + ": the checkpoint holds no segment memory for stream group " + std::to_string(g));
    std::vector<int> lengths;
    for (const float n : checkpoint.floats<float>(prefix + "lengths")) lengths.push_back(static_cast<int>(n));
    const std::vector<float> rows = checkpoint.floats<float>(prefix + "rows");
    const std::size_t per_layer = rows.size() / static_cast<std::size_t>(layers);
    std::vector<std::vector<float>> by_layer;
    for (int l = 0; l < layers; ++l)
      by_layer.emplace_back(rows.begin() + static_cast<long>(per_layer * l), rows.begin() + static_cast<long>(per_layer * (l + 1)));
    SegmentMemory<float>& m = memory(model, g);
    m.restore(lengths, std::move(by_layer), checkpoint.where() + " (" + prefix + "rows, (" + std::to_string(C) + " wide))");
  }
}

}  // namespace heptapod
