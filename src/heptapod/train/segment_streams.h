// Transformer-XL's training over a stream (Dai et al. 2019; the reference's LMOrderedIterator): the token stream
// cut into `groups x per_group` parallel streams of equal length, each read in consecutive segments, so that a
// stream's segment memory (model/segment_memory.h) always holds the text just before its next segment. An
// update reads one segment of every group (one group per micro-batch, on whichever rank computes it); the
// memories are part of the run's state: a checkpoint holds every group's, gathered from the ranks.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "heptapod/io/safetensors.h"
#include "heptapod/model/segment_memory.h"
#include "heptapod/train/checkpoint.h"
#include "heptapod/train/training_loss.h"
#include "heptapod/train/update_step.h"

namespace heptapod {

// Which windows of the token stream each batch of an epoch reads.
class SegmentStreams {
 public:
  // tokens: the stream's length (the last token is only ever a target); segment: L, the inputs per segment.
  // Throws Error when the stream is too short for one input per stream.
  SegmentStreams(std::int64_t tokens, int groups, int per_group, int segment);
  int groups() const { return groups_; }
  std::int64_t batches_per_epoch() const { return static_cast<std::int64_t>(groups_) * segments_; }
  std::int64_t stream_length() const { return length_; }

  struct Segment {
    int group = 0;
    bool first = false;                // the streams' first segment: their memory starts empty
    std::vector<std::int64_t> begins;  // (per_group) each stream's window start in the token stream
    int length = 0;                    // inputs per stream
  };
  // Batch i of an epoch (0 <= i < batches_per_epoch()): group i % groups, its segment i / groups.
  Segment segment(std::int64_t i) const;

 private:
  int groups_, per_group_, segment_;
  std::int64_t length_ = 0;    // inputs per stream
  std::int64_t segments_ = 0;  // per stream and epoch (the last may be shorter)
};

// The language model's loss over segments with memory: each batch continues the memory of its stream group
// (Batch::stream_group), emptied at the group's first segment.
class SegmentMemoryLoss final : public TrainingLoss {
 public:
  explicit SegmentMemoryLoss(int groups) : memories_(static_cast<std::size_t>(groups)) {}
  LossTotals forward_backward(Transformer<float>& model, const Batch& batch, const StepOptions& options,
                              Arena& arena) const override;
  long long terms(const Batch& batch) const override { return batch.target_tokens(); }

  // Every group's memory for a checkpoint: a collective call when `reducer` is given. Rank `rank` of `ranks`
  // computes the groups g with g % ranks == rank and gives theirs; the others' are zeros here, summed in.
  std::vector<TaskStateTensor> checkpoint_state(const ModelConfig& model, int rank, int ranks,
                                                GradientReducer* reducer) const;
  // Takes back this rank's groups (the others stay empty).
  void restore_state(const ModelConfig& model, const SafetensorsFile& checkpoint, int rank, int ranks);

 private:
  SegmentMemory<float>& memory(const ModelConfig& model, int group) const;
  // Made on first use; the loss's forward passes advance them (the loss is otherwise constant).
  mutable std::vector<std::unique_ptr<SegmentMemory<float>>> memories_;
};

}  // namespace heptapod
