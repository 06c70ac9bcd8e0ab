// The training loop.
#include "heptapod/train/trainer.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <optional>
#include <utility>

#include "heptapod/core/error.h"
#include "heptapod/core/progress.h"
#include "heptapod/kernels/threads.h"
#include "heptapod/data/batcher.h"
#include "heptapod/data/model_vocab.h"
#include "heptapod/data/text_file.h"
#include "heptapod/io/model_file.h"
#include "heptapod/model/initialize.h"
#include "heptapod/train/average.h"
#include "heptapod/train/communicator.h"
#include "heptapod/train/metrics_log.h"
#include "heptapod/train/run_lock.h"
#include "heptapod/train/update_step.h"
#include "heptapod/train/validation.h"

namespace heptapod {

namespace fs = std::filesystem;

namespace {

void log_line(const std::string& text) {
  std::fprintf(stderr, "%s\n", text.c_str());
  std::fflush(stderr);
}

void ensure_writable_dir(const std::string& dir) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  require(!ec, "cannot create output directory " + dir + ": " + ec.message());
  const std::string probe = (fs::path(dir) / ".write-test").string();
  std::ofstream out(probe);
  require(static_cast<bool>(out), "output directory " + dir + " is not writable");
  out.close();
  fs::remove(probe);
}

// The output directory of a first run, removed again unless kept: a run that fails before it can train (a
// bad input found while the vocabularies or corpora are prepared) leaves no directory behind. A directory
// that already existed (a resume) is never removed.
class NewDirectory {
 public:
  explicit NewDirectory(const std::string& dir) : dir_(fs::exists(dir) ? "" : dir) {}
  ~NewDirectory() {
    std::error_code ignored;
    if (!dir_.empty()) fs::remove_all(dir_, ignored);
  }
  NewDirectory(const NewDirectory&) = delete;
  NewDirectory& operator=(const NewDirectory&) = delete;
  void keep() { dir_.clear(); }

 private:
  std::string dir_;
};

// The config without its dropout rates: what fine-tuning must keep.
ModelConfig without_dropout(ModelConfig c) {
  c.dropout = c.attention_dropout = c.activation_dropout = c.embedding_dropout = 0;
  return c;
}

std::string join(const std::vector<std::string>& parts) {
  std::string s;
  for (const std::string& p : parts) s += (s.empty() ? "" : ", ") + p;
  return s;
}

// The tensors of the frozen groups (TrainConfig::freeze), by index in the parameter store.
std::vector<std::size_t> frozen_tensors(const ParameterStore<float>& p, const std::vector<std::string>& groups) {
  std::vector<std::size_t> frozen;
  for (std::size_t t = 0; t < p.specs().size(); ++t) {
    const ParamSpec& spec = p.specs()[t];
    const bool embedding = spec.part == ParamPart::Embedding || spec.part == ParamPart::Output;
    for (const std::string& g : groups)
      if ((g == "embeddings" && embedding) || (!embedding && g == stack_name(spec.stack))) {
        frozen.push_back(t);
        break;
      }
  }
  return frozen;
}

// Where a run keeps its source and target vocabularies.
std::pair<std::string, std::string> vocabulary_paths(const std::string& output_dir) {
  return {(fs::path(output_dir) / "vocab.src.spm").string(), (fs::path(output_dir) / "vocab.tgt.spm").string()};
}

// The vocabularies of the model to fine-tune (with their own ids, if it was converted).
ModelVocabularies init_vocabularies(const std::string& init_model) {
  const SafetensorsFile file = SafetensorsFile::read(init_model);
  auto vocabs = read_vocabularies(file, read_model_config(file));
  require(vocabs.has_value(), init_model + " holds no vocabularies, so it cannot be fine-tuned on text");
  return std::move(*vocabs);
}

// Vocabularies from the model to fine-tune, the config's files, an earlier run in the output directory, or
// trained now.
ModelVocabularies prepare_vocabularies(const TrainConfig& c) {
  const auto [src_path, tgt_path] = vocabulary_paths(c.output_dir);
  ModelVocabularies v;
  if (!c.init_model.empty()) {
    v = init_vocabularies(c.init_model);
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

ModelConfig resolve_model_config(ModelConfig m, const ModelVocabularies& v) {
  m.src_vocab_size = v.source.size();
  m.tgt_vocab_size = v.target.size();
  if (!v.source.ids() && !v.target.ids()) {  // SentencePiece's ids, Heptapod's specials; else the model's own
    m.pad_id = kPadId;
    m.bos_id = kBosId;
    m.eos_id = kEosId;
  }
  // One embedding serves both sides when an id means the same piece on both: one vocabulary, or (a converted
  // Marian model) two SentencePiece models under one id table.
  const bool same = v.source.fingerprint() == v.target.fingerprint() ||
                    (v.source.ids() && v.target.ids() && v.source.serialized_ids() == v.target.serialized_ids());
  if (m.tie_embeddings == EmbeddingTying::All && !same) {
    log_line("separate vocabularies: tying only the target embedding and the output projection");
    m.tie_embeddings = EmbeddingTying::TargetOutput;
  }
  return m;
}

// Walks epochs and their batch plans; the position (epoch, batch_in_epoch) lives in the TrainState.
class BatchStream {
 public:
  BatchStream(const ParallelCorpus& corpus, const BatchingConfig& config) : corpus_(corpus), config_(config) {}
  // The next batch's sentence indices, advancing state; false when max_epochs is reached.
  bool next(TrainState& state, int max_epochs, std::vector<std::uint32_t>& out) {
    while (true) {
      if (max_epochs > 0 && state.epoch >= static_cast<std::uint64_t>(max_epochs)) return false;
      if (planned_epoch_ != static_cast<std::int64_t>(state.epoch)) {
        plan_ = plan_epoch(corpus_, config_, state.epoch);
        planned_epoch_ = static_cast<std::int64_t>(state.epoch);
      }
      if (state.batch_in_epoch < plan_.size()) {
        out = plan_[state.batch_in_epoch++];
        return true;
      }
      ++state.epoch;
      state.batch_in_epoch = 0;
    }
  }

 private:
  const ParallelCorpus& corpus_;
  BatchingConfig config_;
  std::vector<std::vector<std::uint32_t>> plan_;
  std::int64_t planned_epoch_ = -1;
};

}  // namespace

struct Trainer::Run {
  Communicator* comm = nullptr;
  TrainConfig c;
  std::string checkpoint_dir, best_path, key;
  std::unique_ptr<RunLock> lock;
  ModelVocabularies vocabs;
  std::unique_ptr<ParallelCorpus> corpus;
  std::optional<DevSet> dev;
  std::unique_ptr<Transformer<float>> model;
  std::unique_ptr<Adam<float>> adam;
  std::unique_ptr<UpdateStep> step;
  TrainState state;
  std::unique_ptr<MetricsLog> metrics;
  std::unique_ptr<BatchStream> stream;
  std::unique_ptr<Progress> progress;
  Arena arena;  // validation's
  std::string stop_reason;
  double run_start_elapsed = 0;
  long first_step = 0;
  double window_loss = 0, window_nll = 0, window_seconds = 0;
  long long window_tokens = 0;
  std::vector<std::vector<std::uint32_t>> micro;
  std::vector<Batch> batches;

  void log(const UpdateStats& u, long long update_tokens, double lr, double seconds);
  bool validate();  // false: early stopping
  // Writes the checkpoint of the current step and keeps only the newest max(keep_checkpoints, average_last).
  void checkpoint() {
    save_checkpoint(checkpoint_path(checkpoint_dir, state.step), *model, *adam, state, key, vocabs);
    const auto all = list_checkpoints(checkpoint_dir);
    const std::size_t keep = std::max(c.keep_checkpoints, c.average_last);
    for (std::size_t i = 0; i + keep < all.size(); ++i) fs::remove(all[i]);
  }
  // averaged.htp from the newest average_last checkpoints (all there are, if fewer); its path, empty if none.
  std::string write_average() {
    const auto last = last_checkpoints(checkpoint_dir, static_cast<std::size_t>(c.average_last));
    if (last.empty()) {
      log_line("no checkpoints in " + checkpoint_dir + " to average");
      return {};
    }
    const std::string path = (fs::path(c.output_dir) / "averaged.htp").string();
    average_checkpoints(last, path);
    log_line("averaged the last " + std::to_string(last.size()) + " checkpoints (" + fs::path(last.front()).filename().string() +
             " to " + fs::path(last.back()).filename().string() + ") into " + path);
    return path;
  }
};

Trainer::Trainer(const TrainConfig& config) : run_(std::make_unique<Run>()) {
  Run& r = *run_;
  r.comm = &communicator();
  const int rank = r.comm->rank(), ranks = r.comm->size();
  validate(config);
  set_num_threads(config.threads);
  const kernels::MatmulPrecisionChoice precision = kernels::set_matmul_precision(config.matmul_precision);
  const std::string cache_dir = (fs::path(config.output_dir) / "cache").string();
  r.checkpoint_dir = (fs::path(config.output_dir) / "checkpoints").string();
  NewDirectory created(rank == 0 ? config.output_dir : "");
  if (rank == 0) {
    ensure_writable_dir(config.output_dir);
    r.lock = std::make_unique<RunLock>(config.output_dir);  // one run per directory, until this one ends
    fs::create_directories(r.checkpoint_dir);
    fs::create_directories(cache_dir);
    r.vocabs = prepare_vocabularies(config);
  }
  TrainConfig& c = r.c;
  c = config;
  // Rank 0 trains the vocabularies and tokenizes the corpora (writing the caches) while the others wait; they
  // then read both from the output directory, which every rank must see at the same path.
  double corpus_seconds = 0;
  auto build_corpus = [&] {
    const auto t0 = std::chrono::steady_clock::now();
    r.corpus = std::make_unique<ParallelCorpus>(ParallelCorpus::build(c.train_source, c.train_target, r.vocabs.source,
                                                                      r.vocabs.target, c.filter,
                                                                      (fs::path(cache_dir) / "train.cache").string()));
    corpus_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  };
  if (rank == 0) build_corpus();
  r.comm->barrier();
  if (rank > 0) {
    const auto [src, tgt] = vocabulary_paths(config.output_dir);
    require(fs::exists(src) && fs::exists(tgt),
            "rank " + std::to_string(rank) + " cannot see " + src + " that rank 0 wrote: the output directory " +
                "must be shared by every rank (the same path on a shared filesystem)");
    if (config.init_model.empty()) {
      r.vocabs.source = Vocabulary::load(src);
      r.vocabs.target = Vocabulary::load(tgt);
    } else {
      r.vocabs = init_vocabularies(config.init_model);  // the saved copies lack a converted model's ids
    }
    build_corpus();
  }
  c.model = resolve_model_config(config.model, r.vocabs);
  c.schedule.d_model = c.model.d_model;
  c.schedule.total_steps = c.max_steps;
  // The update is accumulate micro-batches on each of the ranks: what a resume must agree on is their total,
  // so a run may resume on another number of ranks with the same total (re-sharded deterministically).
  TrainConfig keyed = c;
  keyed.accumulate = c.accumulate * ranks;
  r.key = resume_key(keyed);

  const ParallelCorpus& corpus = *r.corpus;
  if (rank == 0)
    log_line(std::string("training data: ") + corpus.stats().summary() +
             (corpus.from_cache() ? " [cached]" : " [tokenized in " + format_duration(corpus_seconds) + "]") +
             (ranks > 1 ? ", " + std::to_string(ranks) + " ranks x " + std::to_string(c.accumulate) + " micro-batches" : ""));
  require(corpus.size() > 0, "no training pairs left after filtering " + c.train_source + " / " + c.train_target);
  if (rank == 0 && !c.valid_source.empty()) {
    LengthFilter dev_filter{1 << 20, 0.0};
    r.dev = DevSet{ParallelCorpus::build(c.valid_source, c.valid_target, r.vocabs.source, r.vocabs.target, dev_filter,
                                         (fs::path(cache_dir) / "valid.cache").string()),
                   {}};
    const std::vector<std::string> lines = read_lines(c.valid_target);
    for (std::size_t i = 0; i < r.dev->corpus.size(); ++i)
      r.dev->references.push_back(lines[r.dev->corpus.line_number(i) - 1]);
    log_line("dev data: " + r.dev->corpus.stats().summary());
  }

  r.model = std::make_unique<Transformer<float>>(c.model);
  r.adam = std::make_unique<Adam<float>>(r.model->parameters().size(), c.adam);
  const std::vector<std::string> existing = list_checkpoints(r.checkpoint_dir);
  if (!existing.empty()) {
    const std::string& last = existing.back();
    const ModelConfig saved = read_model_config(SafetensorsFile::read(last));
    require(to_json(saved) == to_json(c.model),
            "cannot resume from " + last + ": its model config differs from this command's (" + to_json(saved) +
                " vs " + to_json(c.model) + "); use another --output directory");
    std::string saved_key;
    try {
      saved_key = load_checkpoint(last, *r.model, *r.adam, r.state);
    } catch (const Error& e) {
      throw Error(std::string(e.what()) + "; move it away to resume from " +
                  (existing.size() > 1 ? existing[existing.size() - 2] : std::string("the start")));
    }
    require(saved_key == r.key, "cannot resume from " + last +
                                    ": the data, batching or optimiser settings differ from the run that wrote it (" +
                                    saved_key + " vs " + r.key + "); use another --output directory");
    if (rank == 0) log_line("resuming from " + last + " at step " + std::to_string(r.state.step));
  } else if (!c.init_model.empty()) {
    const SafetensorsFile file = SafetensorsFile::read(c.init_model);
    require(to_json(without_dropout(read_model_config(file))) == to_json(without_dropout(c.model)),
            "--init " + c.init_model + ": the model config to train differs from the file's (sizes, norms, tying)");
    load_parameters(file, r.model->parameters());
    if (rank == 0) log_line("fine-tuning " + c.init_model + (c.freeze.empty() ? "" : ", frozen: " + join(c.freeze)));
  } else {
    initialize_parameters(r.model->parameters(), c.model, c.seed);
  }
  if (rank == 0)
    log_line("model: " + std::to_string(parameter_count(c.model)) + " parameters, d_model " +
           std::to_string(c.model.d_model) + ", " + std::to_string(c.model.encoder_layers) + "+" +
           std::to_string(c.model.decoder_layers) + " layers, " +
           kernels::matmul_precision_name(precision.precision) + " products" +
           (precision.reason.empty() ? "" : std::string(" (bfloat16 asked for, but ") + precision.reason + ")"));

  UpdateSettings settings{.seed = c.seed,
                          .label_smoothing = c.label_smoothing,
                          .clip_norm = c.clip_norm,
                          .overlap_reduction = c.overlap_allreduce};
  settings.frozen = frozen_tensors(r.model->parameters(), c.freeze);
  r.step = std::make_unique<UpdateStep>(*r.model, *r.adam, settings, ranks > 1 ? r.comm : nullptr);
  if (rank == 0)
    r.metrics = std::make_unique<MetricsLog>((fs::path(c.output_dir) / "metrics.jsonl").string(), r.state.step);
  r.stream = std::make_unique<BatchStream>(corpus, BatchingConfig{c.batch_tokens, c.window, c.seed});
  r.progress = std::make_unique<Progress>(c.max_steps, r.state.step);
  r.best_path = (fs::path(c.output_dir) / "best.htp").string();
  r.run_start_elapsed = r.state.elapsed_seconds;
  r.first_step = r.state.step;
  r.micro.resize(static_cast<std::size_t>(c.accumulate) * ranks);
  created.keep();
}

Trainer::~Trainer() = default;

const TrainState& Trainer::state() const { return run_->state; }
const std::string& Trainer::stop_reason() const { return run_->stop_reason; }

bool Trainer::update() {
  Run& r = *run_;
  const TrainConfig& c = r.c;
  TrainState& state = r.state;
  if (!r.stop_reason.empty()) return false;
  if (state.step >= c.max_steps) {
    r.stop_reason = "max steps";
    return false;
  }
  // One update: accumulate x ranks micro-batches, normalised by the update's target tokens; rank r computes
  // micro-batches r, r + ranks, r + 2 ranks, ...
  const int rank = r.comm->rank(), ranks = r.comm->size();
  r.batches.clear();
  for (std::size_t k = 0; k < r.micro.size(); ++k) {
    if (!r.stream->next(state, c.max_epochs, r.micro[k])) {
      r.stop_reason = "max epochs";
      return false;
    }
    r.batches.push_back(make_corpus_batch(*r.corpus, r.micro[k], c.model));
  }
  const auto t0 = std::chrono::steady_clock::now();
  long long update_tokens = 0;
  std::vector<const Batch*> mine;
  std::vector<int> indices;
  for (std::size_t k = 0; k < r.batches.size(); ++k) {
    update_tokens += r.batches[k].target_tokens();
    if (static_cast<int>(k % ranks) != rank) continue;
    mine.push_back(&r.batches[k]);
    indices.push_back(static_cast<int>(k));
  }
  const double lr = c.schedule.at(state.step + 1);
  const UpdateStats u = r.step->run(mine, indices, update_tokens, state.step, lr);
  if (!std::isfinite(u.loss)) {
    if (r.metrics) r.metrics->write({{"type", "error"}, {"step", state.step + 1}, {"message", "non-finite loss"}});
    throw Error("training stopped at step " + std::to_string(state.step + 1) +
                ": the loss is not finite (diverged; try a lower learning rate or --clip-norm). The last good "
                "checkpoint is intact in " + r.checkpoint_dir);
  }
  ++state.step;
  state.target_tokens += update_tokens;
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  state.elapsed_seconds += seconds;
  if (rank == 0) r.log(u, update_tokens, lr, seconds);
  if (state.step % c.valid_every == 0 || state.step == c.max_steps) {
    // Rank 0 validates and writes the checkpoint; its early-stopping decision holds for every rank.
    const bool go_on = r.comm->broadcast(rank == 0 ? r.validate() : 1) != 0;
    r.corpus->check_intact();  // no checkpoint from batches a shrunken cache fed as zeros
    if (rank == 0) r.checkpoint();
    if (!go_on) {
      r.stop_reason = "early stopping";
      return false;
    }
  }
  return true;
}

void Trainer::Run::log(const UpdateStats& u, long long update_tokens, double lr, double seconds) {
  window_loss += u.loss;
  window_nll += u.nll;
  window_tokens += update_tokens;
  window_seconds += seconds;
  char detail[160];
  std::snprintf(detail, sizeof detail, "epoch %llu | loss %.3f ppl %.2f | lr %.2e | %.0f tok/s",
                static_cast<unsigned long long>(state.epoch) + 1, u.loss / update_tokens, std::exp(u.nll / update_tokens),
                lr, update_tokens / std::max(seconds, 1e-9));
  progress->update(state.step, detail);
  if (state.step % c.log_every == 0 || state.step == c.max_steps) {
    metrics->write({{"type", "train"},
                    {"step", state.step},
                    {"epoch", state.epoch + 1},
                    {"loss", window_loss / window_tokens},
                    {"nll", window_nll / window_tokens},
                    {"ppl", std::exp(window_nll / window_tokens)},
                    {"lr", lr},
                    {"grad_norm", u.grad_norm},
                    {"target_tokens", state.target_tokens},
                    {"tokens_per_second", window_tokens / std::max(window_seconds, 1e-9)},
                    {"elapsed_seconds", state.elapsed_seconds}});
    window_loss = window_nll = window_seconds = 0;
    window_tokens = 0;
  }
}

bool Trainer::Run::validate() {
  if (!dev) return true;
  const ValidationResult v =
      validate_model(*model, *dev, vocabs, c.batch_tokens, c.valid_bleu_sentences, c.valid_search, arena);
  const bool improved = v.cross_entropy < state.best_valid;
  if (improved) {
    state.best_valid = v.cross_entropy;
    state.best_step = state.step;
    state.bad_validations = 0;
    save_model(best_path, *model, {}, vocabulary_tensors(vocabs));
  } else {
    ++state.bad_validations;
  }
  nlohmann::json record = {{"type", "valid"}, {"step", state.step}, {"ce", v.cross_entropy}, {"ppl", v.perplexity},
                           {"tokens", v.tokens}, {"best_step", state.best_step}};
  if (v.bleu >= 0) record["bleu"] = v.bleu;
  metrics->write(record);
  char line[200];
  std::snprintf(line, sizeof line, "validation at step %ld: ce %.4f ppl %.2f%s%s", state.step, v.cross_entropy,
                v.perplexity, v.bleu >= 0 ? (" bleu " + std::to_string(v.bleu).substr(0, 5)).c_str() : "",
                improved ? " (best)" : "");
  if (progress->interactive()) std::fprintf(stderr, "\n");
  log_line(line);
  return !(c.patience > 0 && state.bad_validations >= c.patience);
}

TrainResult Trainer::finish() {
  Run& r = *run_;
  const TrainConfig& c = r.c;
  TrainState& state = r.state;
  TrainResult result;
  result.stop_reason = r.stop_reason;
  result.state = state;
  result.model_path = (fs::path(c.output_dir) / "model.htp").string();
  if (r.comm->rank() > 0) return result;  // rank 0 writes
  if (state.step > r.first_step && state.step % c.valid_every != 0) r.checkpoint();  // validation steps saved already
  char detail[96];
  std::snprintf(detail, sizeof detail, "done (%s), %s this run", r.stop_reason.c_str(),
                format_duration(state.elapsed_seconds - r.run_start_elapsed).c_str());
  r.progress->finish(state.step, detail);
  if (r.dev && fs::exists(r.best_path)) {
    fs::copy_file(r.best_path, result.model_path + ".tmp", fs::copy_options::overwrite_existing);
    fs::rename(result.model_path + ".tmp", result.model_path);
  } else {
    save_model(result.model_path, *r.model, {}, vocabulary_tensors(r.vocabs));
  }
  if (c.average_last > 1) result.averaged_path = r.write_average();
  return result;
}

TrainResult train(const TrainConfig& config) {
  Trainer trainer(config);
  while (trainer.update()) {
  }
  return trainer.finish();
}

}  // namespace heptapod
