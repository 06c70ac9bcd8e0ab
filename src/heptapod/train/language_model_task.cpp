// The language-model training task: one vocabulary, the document stream and its blocks, validation.
#include "heptapod/train/language_model_task.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>

#include "heptapod/core/error.h"
#include "heptapod/core/progress.h"
#include "heptapod/core/random.h"
#include "heptapod/data/utf8.h"

namespace heptapod {

namespace fs = std::filesystem;

namespace {

// The length of a text's documents, as bits per character and per byte count it.
TextLength text_length(const std::string& path, DocumentSplit split) {
  DocumentReader reader(path, split);
  TextLength length;
  long long line = 0;
  for (std::string text; reader.next(text, line);) length.add(text);
  return length;
}

}  // namespace

LanguageModelTask::LanguageModelTask(const TrainConfig& config)
    : config_(config), cache_dir_((fs::path(config.output_dir) / "cache").string()) {}

void LanguageModelTask::prepare(int rank) {
  const TrainConfig& c = config_;
  const std::string saved = (fs::path(c.output_dir) / "vocab.spm").string();
  if (!c.init_model.empty()) {
    const ModelVocabularies init = fine_tuning_vocabularies(c.init_model);
    vocab() = masked() ? init.source : init.target;
  } else if (!c.vocab.empty()) {
    vocab() = Vocabulary::load(c.vocab);
  } else if (fs::exists(saved)) {
    vocab() = Vocabulary::load(saved);
  } else {
    require(rank == 0, "rank " + std::to_string(rank) + " cannot see " + saved + " that rank 0 wrote: the output " +
                           "directory must be shared by every rank (the same path on a shared filesystem)");
    // At most the documents SentencePiece trains on, so memory does not grow with the text.
    const auto sample = sample_documents(c.train_text, c.documents,
                                         static_cast<std::size_t>(c.vocab_config.max_training_sentences),
                                         c.vocab_config.seed);
    require(!sample.empty(), c.train_text + " holds no text to train on");
    log_line("training a vocabulary on " + std::to_string(sample.size()) + " documents");
    VocabConfig vocab_config = c.vocab_config;
    if (masked()) vocab_config.control_symbols.push_back(kMaskPiece);
    vocab() = Vocabulary::train(sample, vocab_config);
  }
  if (rank == 0) {
    fs::create_directories(cache_dir_);
    vocab().save(saved);
  }
  const auto t0 = std::chrono::steady_clock::now();
  corpus_ = std::make_unique<ParallelCorpus>(ParallelCorpus::build_documents(
      c.train_text, c.documents, vocab(), (fs::path(cache_dir_) / "train.cache").string()));
  tokenize_seconds_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  require(corpus_->size() > 0, c.train_text + " holds no text to train on");
  if (masked()) {  // masking chooses among ordinary tokens: text of unknown words alone teaches nothing
    bool ordinary = false;
    for (std::size_t d = 0; d < corpus_->size() && !ordinary; ++d)
      for (const int id : corpus_->target(d)) ordinary = ordinary || !vocab().is_special(id);
    require(ordinary, c.train_text + ": every token of it is unknown to the vocabulary or special, so masked "
                      "language modelling has nothing to mask");
  }
}

void LanguageModelTask::prepare_validation() {
  const TrainConfig& c = config_;
  if (c.valid_text.empty()) return;
  dev_ = std::make_unique<DevText>();
  dev_->corpus = std::make_unique<ParallelCorpus>(ParallelCorpus::build_documents(
      c.valid_text, c.documents, vocab(), (fs::path(cache_dir_) / "valid.cache").string()));
  require(dev_->corpus->size() > 0, c.valid_text + " holds no text to validate on");
  dev_->length = text_length(c.valid_text, c.documents);
  log_line("dev data: " + dev_->corpus->stats().summary() + ", " + std::to_string(dev_->length.characters) +
           " characters");
}

ModelConfig LanguageModelTask::resolve_model(const ModelConfig& requested) const {
  ModelConfig m = requested;
  (masked() ? m.src_vocab_size : m.tgt_vocab_size) = vocab().size();
  if (masked()) {
    // A converted model names its own mask token ([MASK]); else the vocabulary an encoder's training makes has one.
    m.mask_id = requested.mask_id >= 0 ? requested.mask_id : vocab().id_of(kMaskPiece);
    require(m.mask_id >= 0 && vocab().is_special(m.mask_id),
            "train: an encoder's vocabulary needs a \"" + std::string(kMaskPiece) + "\" control piece (as the "
            "vocabulary an encoder's training makes has)");
    m.mlm_head = true;
  }
  if (vocab().heptapod_ids()) {  // else the model's own
    m.pad_id = kPadId;
    m.bos_id = kBosId;
    m.eos_id = kEosId;
  }
  return m;
}

void LanguageModelTask::set_update_size(int micro_batches) {
  if (!remembers() || masked()) return;
  const DocumentStream stream(*corpus_, resolve_model(config_.model));
  streams_ = std::make_unique<SegmentStreams>(stream.size(), micro_batches, streams_per_batch(), config_.context);
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
  const std::int64_t tokens = corpus_->token_offset(corpus_->size());
  if (streams_)
    return corpus_->stats().summary() + ", " + std::to_string(tokens) + " tokens as " +
           std::to_string(streams_->groups() * streams_per_batch()) + " streams of " +
           std::to_string(streams_->stream_length()) + " in segments of " + std::to_string(config_.context) +
           " with a memory of " + std::to_string(config_.model.memory_length) +
           (corpus_->from_cache() ? " [cached]" : " [tokenized in " + format_duration(tokenize_seconds_) + "]");
  return corpus_->stats().summary() + ", " + std::to_string(tokens) + " tokens in blocks of " +
         std::to_string(config_.context) +
         (corpus_->from_cache() ? " [cached]" : " [tokenized in " + format_duration(tokenize_seconds_) + "]");
}

const MaskingPlan& LanguageModelTask::masking(const ModelConfig& model) {
  if (!masking_)
    masking_ = std::make_unique<MaskingPlan>(vocab(), model.mask_id, MaskingOptions{config_.mask_rate, config_.whole_word_mask});
  return *masking_;
}

std::int64_t LanguageModelTask::block_count(const DocumentStream& stream) const {
  return masked() ? MaskingPlan::blocks_of(stream.size(), config_.context) : stream.blocks(config_.context);
}

bool LanguageModelTask::next_batch(TrainState& state, int max_epochs, const ModelConfig& model, Batch& batch) {
  const DocumentStream stream(*corpus_, model);
  while (true) {
    if (max_epochs > 0 && state.epoch >= static_cast<std::uint64_t>(max_epochs)) return false;
    if (streams_ ? segment_batch(state, stream, batch) : block_batch(state, stream, model, batch)) {
      ++state.batch_in_epoch;
      return true;
    }
    ++state.epoch;
    state.batch_in_epoch = 0;
  }
}

bool LanguageModelTask::segment_batch(const TrainState& state, const DocumentStream& stream, Batch& batch) const {
  if (state.batch_in_epoch >= static_cast<std::uint64_t>(streams_->batches_per_epoch())) return false;
  const SegmentStreams::Segment s = streams_->segment(static_cast<std::int64_t>(state.batch_in_epoch));
  batch = stream.windows(s.begins, s.length);
  batch.stream_group = s.group;
  batch.stream_start = s.first;
  return true;
}

bool LanguageModelTask::block_batch(const TrainState& state, const DocumentStream& stream, const ModelConfig& model,
                                    Batch& batch) {
  const int context = config_.context;
  const std::int64_t per_batch = std::max(1, config_.batch_tokens / context);
  if (planned_epoch_ != static_cast<std::int64_t>(state.epoch)) {
    // The epoch's block order: a permutation drawn from (seed, epoch), as the translation batches are.
    order_.resize(static_cast<std::size_t>(block_count(stream)));
    for (std::size_t i = 0; i < order_.size(); ++i) order_[i] = static_cast<std::int64_t>(i);
    Rng rng(mix64(config_.seed) ^ mix64(state.epoch + 0x5eed));
    for (std::size_t i = order_.size(); i > 1; --i) std::swap(order_[i - 1], order_[rng.below(i)]);
    planned_epoch_ = static_cast<std::int64_t>(state.epoch);
  }
  const std::uint64_t first = state.batch_in_epoch * static_cast<std::uint64_t>(per_batch);
  if (first >= order_.size()) return false;
  const std::size_t end = std::min<std::size_t>(order_.size(), first + per_batch);
  const std::vector<std::int64_t> blocks(order_.begin() + static_cast<long>(first), order_.begin() + static_cast<long>(end));
  // A masked batch's draws: keyed by the run's seed and the batch's place in the data order.
  batch = masked() ? masking(model).batch(stream, blocks, context,
                                     mix64(config_.seed) ^ mix64(state.epoch * 0x100000001b3ull + state.batch_in_epoch))
                   : stream.batch(blocks, context);
  return true;
}

ValidationReport LanguageModelTask::validate(Transformer<float>& model, Arena& arena) {
  if (masked()) return validate_masked(model, arena);
  const LossTotals totals = dev_loss(model, arena);
  const double nll = totals.nll;
  const long long tokens = totals.tokens;
  ValidationReport report;
  const double ce = tokens > 0 ? nll / static_cast<double>(tokens) : 0.0;
  const double bits = nll / std::log(2.0);
  const double bpc = dev_->length.per_character(bits), bpb = dev_->length.per_byte(bits);
  report.criterion = ce;
  report.metrics = {{"ce", ce}, {"ppl", std::exp(ce)}, {"tokens", tokens}, {"bpc", bpc}, {"bpb", bpb}};
  char summary[128];
  std::snprintf(summary, sizeof summary, "ce %.4f ppl %.2f bpc %.4f bpb %.4f", ce, std::exp(ce), bpc, bpb);
  report.summary = summary;
  return report;
}

LossTotals LanguageModelTask::dev_loss(Transformer<float>& model, Arena& arena) {
  const DocumentStream stream(*dev_->corpus, model.config());
  const int context = config_.context;
  LossTotals totals;
  if (remembers()) {  // the dev text's own streams (as many as its length allows), from an empty memory
    const int count = static_cast<int>(std::min<std::int64_t>(streams_per_batch(), stream.size() - 1));
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
  const std::int64_t per_batch = std::max(1, config_.batch_tokens / context), blocks = stream.blocks(context);
  for (std::int64_t first = 0; first < blocks; first += per_batch) {
    std::vector<std::int64_t> batch;
    for (std::int64_t b = first; b < std::min(blocks, first + per_batch); ++b) batch.push_back(b);
    arena.reset();
    totals += model.evaluate(stream.batch(batch, context), 0.0f, arena);
  }
  return totals;
}

// The dev text's blocks under masks that depend on the block alone, the same at every validation: the
// masked tokens' cross-entropy, perplexity and accuracy (the criterion: cross-entropy).
ValidationReport LanguageModelTask::validate_masked(Transformer<float>& model, Arena& arena) {
  const DocumentStream stream(*dev_->corpus, model.config());
  const int context = config_.context;
  const std::int64_t per_batch = std::max(1, config_.batch_tokens / context);
  const std::int64_t blocks = block_count(stream);
  LossTotals totals;
  for (std::int64_t first = 0; first < blocks; first += per_batch) {
    std::vector<std::int64_t> batch;
    for (std::int64_t b = first; b < std::min(blocks, first + per_batch); ++b) batch.push_back(b);
    arena.reset();
    totals += model.evaluate(masking(model.config()).batch(stream, batch, context, mix64(0xde5c0de ^ static_cast<std::uint64_t>(first))),
                             0.0f, arena);
  }
  ValidationReport report;
  const double tokens = static_cast<double>(std::max<std::int64_t>(totals.tokens, 1));
  const double ce = totals.nll / tokens, accuracy = static_cast<double>(totals.correct) / tokens;
  report.criterion = ce;
  report.metrics = {{"masked_ce", ce}, {"masked_ppl", std::exp(ce)}, {"masked_accuracy", accuracy},
                    {"masked_tokens", totals.tokens}};
  char summary[128];
  std::snprintf(summary, sizeof summary, "masked ce %.4f ppl %.2f accuracy %.4f (%lld tokens)", ce, std::exp(ce),
                accuracy, static_cast<long long>(totals.tokens));
  report.summary = summary;
  return report;
}

}  // namespace heptapod
