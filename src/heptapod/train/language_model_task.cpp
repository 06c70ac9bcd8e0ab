// The causal language-model training task: one vocabulary, the document stream's blocks or segments,
// validation.
#include "heptapod/train/language_model_task.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "heptapod/train/text_vocabulary.h"

namespace heptapod {

LanguageModelTask::LanguageModelTask(const TrainConfig& config) : config_(config), documents_(config_) {}

void LanguageModelTask::prepare(int rank) {
  vocabs_.target = text_vocabulary(config_, rank, config_.init ? &config_.init->vocabularies.target : nullptr,
                                   config_.documents, "documents", false);
  documents_.prepare(rank, vocabs_.target);
}

void LanguageModelTask::prepare_validation() { documents_.prepare_validation(vocabs_.target); }

ModelConfig LanguageModelTask::resolve_model(const ModelConfig& requested) const {
  ModelConfig m = requested;
  m.tgt_vocab_size = vocabs_.target.size();
  if (vocabs_.target.heptapod_ids()) {  // else the model's own
    m.pad_id = kPadId;
    m.bos_id = kBosId;
    m.eos_id = kEosId;
  }
  return m;
}

void LanguageModelTask::set_update_size(int micro_batches) {
  if (!remembers()) return;
  const DocumentStream stream(documents_.train(), resolve_model(config_.model));
  streams_ = std::make_unique<SegmentStreams>(stream.size(), micro_batches, documents_.blocks_per_batch(),
                                              config_.context);
  memory_loss_ = std::make_unique<SegmentMemoryLoss>(micro_batches);
}

std::vector<TaskStateTensor> LanguageModelTask::checkpoint_state(int rank, int ranks, GradientReducer* reducer) const {
  return memory_loss_ ? memory_loss_->checkpoint_state(config_.model, rank, ranks, reducer)
                      : std::vector<TaskStateTensor>{};
}

void LanguageModelTask::restore_state(const SafetensorsFile& checkpoint, int rank, int ranks) {
  if (memory_loss_) memory_loss_->restore_state(config_.model, checkpoint, rank, ranks);
}

std::string LanguageModelTask::data_summary() const {
  if (streams_)
    return documents_.summary(" as " + std::to_string(streams_->groups() * documents_.blocks_per_batch()) +
                              " streams of " + std::to_string(streams_->stream_length()) + " in segments of " +
                              std::to_string(config_.context) + " with a memory of " +
                              std::to_string(config_.model.memory_length));
  return documents_.summary(" in blocks of " + std::to_string(config_.context));
}

bool LanguageModelTask::next_batch(TrainState& state, int max_epochs, const ModelConfig& model, Batch& batch) {
  const DocumentStream stream(documents_.train(), model);
  return next_batch_of_epochs(state, max_epochs, [&](const TrainState& at) {
    if (streams_) return segment_batch(at, stream, batch);
    const std::vector<std::int64_t> blocks = documents_.shuffled(at, stream.blocks(config_.context));
    if (blocks.empty()) return false;
    batch = stream.batch(blocks, config_.context);
    return true;
  });
}

bool LanguageModelTask::segment_batch(const TrainState& state, const DocumentStream& stream, Batch& batch) const {
  if (state.batch_in_epoch >= static_cast<std::uint64_t>(streams_->batches_per_epoch())) return false;
  const SegmentStreams::Segment s = streams_->segment(static_cast<std::int64_t>(state.batch_in_epoch));
  batch = stream.windows(s.begins, s.length);
  batch.stream_group = s.group;
  batch.stream_start = s.first;
  return true;
}

ValidationReport LanguageModelTask::validate(Transformer<float>& model, Arena& arena) {
  const LossTotals totals = dev_loss(model, arena);
  const double nll = totals.nll;
  const long long tokens = totals.tokens;
  ValidationReport report;
  const double ce = tokens > 0 ? nll / static_cast<double>(tokens) : 0.0;
  const double bits = nll / std::log(2.0);
  const double bpc = documents_.dev_length().per_character(bits), bpb = documents_.dev_length().per_byte(bits);
  report.criterion = ce;
  report.metrics = {{"ce", ce}, {"ppl", std::exp(ce)}, {"tokens", tokens}, {"bpc", bpc}, {"bpb", bpb}};
  char summary[128];
  std::snprintf(summary, sizeof summary, "ce %.4f ppl %.2f bpc %.4f bpb %.4f", ce, std::exp(ce), bpc, bpb);
  report.summary = summary;
  return report;
}

LossTotals LanguageModelTask::dev_loss(Transformer<float>& model, Arena& arena) {
  const DocumentStream stream(documents_.dev(), model.config());
  const int context = config_.context;
  LossTotals totals;
  if (remembers()) {  // the dev text's own streams (as many as its length allows), from an empty memory
    const int count = static_cast<int>(std::min<std::int64_t>(documents_.blocks_per_batch(), stream.size() - 1));
    const SegmentStreams streams(stream.size(), 1, count, context);
    const ModelConfig& c = model.config();
    SegmentMemory<float> memory(c.decoder_layers, c.d_model, c.memory_length, MemoryContent::KeysValues);
    for (std::int64_t i = 0; i < streams.batches_per_epoch(); ++i) {
      const SegmentStreams::Segment s = streams.segment(i);
      arena.reset();
      totals += model.evaluate(stream.windows(s.begins, s.length), 0.0f, arena, nullptr, &memory);
    }
    // The last tokens the equal streams leave over (fewer than the streams), so every token is scored.
    const std::int64_t tail = count * streams.stream_length();
    if (tail < stream.size() - 1) {
      arena.reset();
      totals += model.evaluate(stream.windows({tail}, static_cast<int>(stream.size() - 1 - tail)), 0.0f, arena);
    }
    return totals;
  }
  for (const std::vector<std::int64_t>& blocks : documents_.in_order(stream.blocks(context))) {
    arena.reset();
    totals += model.evaluate(stream.batch(blocks, context), 0.0f, arena);
  }
  return totals;
}

}  // namespace heptapod
