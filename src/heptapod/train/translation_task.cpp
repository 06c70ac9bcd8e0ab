// The translation training task: vocabularies, the parallel corpus and its batches, validation.
#include "heptapod/train/translation_task.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>

#include "heptapod/core/error.h"
#include "heptapod/core/progress.h"
#include "heptapod/data/text_file.h"

namespace heptapod {

namespace fs = std::filesystem;

namespace {

// Where a run keeps its source and target vocabularies.
std::pair<std::string, std::string> vocabulary_paths(const std::string& output_dir) {
  return {(fs::path(output_dir) / "vocab.src.spm").string(), (fs::path(output_dir) / "vocab.tgt.spm").string()};
}

// Vocabularies from the model to fine-tune, the config's files, an earlier run in the output directory, or
// trained now; saved in the output directory.
ModelVocabularies prepare_vocabularies(const TrainConfig& c) {
  const auto [src_path, tgt_path] = vocabulary_paths(c.output_dir);
  ModelVocabularies v;
  if (c.init) {
    v = c.init->vocabularies;
  } else if (!c.vocab.empty()) {
    v.source = v.target = Vocabulary::load(c.vocab);
  } else if (!c.source_vocab.empty()) {
    v.source = Vocabulary::load(c.source_vocab);
    v.target = Vocabulary::load(c.target_vocab);
  } else if (fs::exists(src_path) && fs::exists(tgt_path)) {
    v.source = Vocabulary::load(src_path);
    v.target = Vocabulary::load(tgt_path);
    return v;
  } else {
    // At most the sentences SentencePiece trains on, so memory does not grow with the corpus.
    const ParallelText text = sample_parallel_text(c.train_source, c.train_target,
                                                   static_cast<std::size_t>(c.vocab_config.max_training_sentences),
                                                   c.vocab_config.seed);
    if (c.joint_vocab) {
      std::vector<std::string> both = text.source;
      both.insert(both.end(), text.target.begin(), text.target.end());
      log_line("training a joint vocabulary on " + std::to_string(both.size()) + " lines");
      v.source = v.target = Vocabulary::train(both, c.vocab_config);
    } else {
      log_line("training source and target vocabularies");
      v.source = Vocabulary::train(text.source, c.vocab_config);
      v.target = Vocabulary::train(text.target, c.vocab_config);
    }
  }
  v.source.save(src_path);
  v.target.save(tgt_path);
  return v;
}

// The vocabularies rank 0 prepared, as another rank reads them.
ModelVocabularies shared_vocabularies(const TrainConfig& c, int rank) {
  const auto [src, tgt] = vocabulary_paths(c.output_dir);
  require(fs::exists(src) && fs::exists(tgt),
          "rank " + std::to_string(rank) + " cannot see " + src + " that rank 0 wrote: the output directory " +
              "must be shared by every rank (the same path on a shared filesystem)");
  if (c.init) return c.init->vocabularies;  // the saved copies lack a converted model's ids
  ModelVocabularies v;
  v.source = Vocabulary::load(src);
  v.target = Vocabulary::load(tgt);
  return v;
}

}  // namespace

TranslationTask::TranslationTask(const TrainConfig& config)
    : config_(config), cache_dir_((fs::path(config.output_dir) / "cache").string()) {}

void TranslationTask::prepare(int rank) {
  const TrainConfig& c = config_;
  if (rank == 0) {
    fs::create_directories(cache_dir_);
    vocabs_ = prepare_vocabularies(c);
  } else {
    vocabs_ = shared_vocabularies(c, rank);
  }
  if (c.init)  // the --init model's codes; an unknown one is an Error listing them
    tags_ = read_language_codes(c.init->file).tags(c.source_language, c.target_language, "--source-lang",
                                                   "--target-lang");
  const auto t0 = std::chrono::steady_clock::now();
  corpus_ = std::make_unique<ParallelCorpus>(ParallelCorpus::build(c.train_source, c.train_target, vocabs_.source,
                                                                   vocabs_.target, c.filter,
                                                                   (fs::path(cache_dir_) / "train.cache").string()));
  tokenize_seconds_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  require(corpus_->size() > 0, "no training pairs left after filtering " + c.train_source + " / " + c.train_target);
}

void TranslationTask::prepare_validation() {
  const TrainConfig& c = config_;
  if (c.valid_source.empty()) return;
  // Every pair that fits the model (with learned positions, sentences at most one token shorter than them).
  const LengthFilter keep_all{std::min(1 << 20, c.model.max_target_tokens() - tags_.target_extra()), 0.0};
  dev_ = DevSet{ParallelCorpus::build(c.valid_source, c.valid_target, vocabs_.source, vocabs_.target, keep_all,
                                      (fs::path(cache_dir_) / "valid.cache").string()),
                {}};
  const std::vector<std::string> lines = read_lines(c.valid_target);
  for (std::size_t i = 0; i < dev_->corpus.size(); ++i)
    dev_->references.push_back(lines[dev_->corpus.line_number(i) - 1]);
  log_line("dev data: " + dev_->corpus.stats().summary());
}

ModelConfig TranslationTask::resolve_model(const ModelConfig& requested) const {
  ModelConfig m = requested;
  const ModelVocabularies& v = vocabs_;
  // A table padded past its tokenizer (a converted T5's) keeps its rows.
  m.src_vocab_size = vocabulary_fits(v.source, requested.src_vocab_size) ? requested.src_vocab_size : v.source.size();
  m.tgt_vocab_size = vocabulary_fits(v.target, requested.tgt_vocab_size) ? requested.tgt_vocab_size : v.target.size();
  if (v.source.heptapod_ids() && v.target.heptapod_ids()) {  // else the model's own
    m.pad_id = kPadId;
    m.bos_id = kBosId;
    m.eos_id = kEosId;
  }
  // One embedding serves both sides when an id means the same piece on both: one vocabulary, or (a converted
  // Marian model) two SentencePiece models under one id table.
  const bool same = v.source.fingerprint() == v.target.fingerprint() ||
                    (v.source.ids() && v.target.ids() && v.source.serialized_ids() == v.target.serialized_ids());
  require(m.tie_embeddings != EmbeddingTying::Embeddings || same,
          "--tie embeddings shares one table between the source and target embeddings: it needs one vocabulary "
          "(no --separate-vocab)");
  if (m.tie_embeddings == EmbeddingTying::All && !same) {
    log_line("separate vocabularies: tying only the target embedding and the output projection");
    m.tie_embeddings = EmbeddingTying::TargetOutput;
  }
  return m;
}

std::string TranslationTask::data_summary() const {
  return corpus_->stats().summary() +
         (corpus_->from_cache() ? " [cached]" : " [tokenized in " + format_duration(tokenize_seconds_) + "]");
}

bool TranslationTask::next_batch(TrainState& state, int max_epochs, const ModelConfig& model, Batch& batch) {
  return next_batch_of_epochs(state, max_epochs, [&](const TrainState& at) {
    if (planned_epoch_ != static_cast<std::int64_t>(at.epoch)) {
      plan_ = plan_epoch(*corpus_, BatchingConfig{config_.batch_tokens, config_.window, config_.seed}, at.epoch);
      planned_epoch_ = static_cast<std::int64_t>(at.epoch);
    }
    if (at.batch_in_epoch >= plan_.size()) return false;
    batch = make_corpus_batch(*corpus_, plan_[at.batch_in_epoch], model, tags_);
    return true;
  });
}

ValidationReport TranslationTask::validate(Transformer<float>& model, Arena& arena) {
  const TrainConfig& c = config_;
  const ValidationResult v =
      validate_model(model, *dev_, vocabs_, c.batch_tokens, c.valid_bleu_sentences, c.valid_search, arena, tags_);
  ValidationReport report;
  report.criterion = v.cross_entropy;
  report.metrics = {{"ce", v.cross_entropy}, {"ppl", v.perplexity}, {"tokens", v.tokens}};
  char summary[96];
  std::snprintf(summary, sizeof summary, "ce %.4f ppl %.2f", v.cross_entropy, v.perplexity);
  report.summary = summary;
  if (v.bleu >= 0) {
    report.metrics["bleu"] = v.bleu;
    report.summary += " bleu " + std::to_string(v.bleu).substr(0, 5);
  }
  return report;
}

}  // namespace heptapod
