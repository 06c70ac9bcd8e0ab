// The training loop.
#include "heptapod/train/trainer.h"

#include "heptapod/train/run_lock.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <optional>

#include "heptapod/core/error.h"
#include "heptapod/core/progress.h"
#include "heptapod/core/random.h"
#include "heptapod/kernels/threads.h"
#include "heptapod/data/batcher.h"
#include "heptapod/data/text_file.h"
#include "heptapod/kernels/reduce.h"
#include "heptapod/model/initialize.h"
#include "heptapod/train/metrics_log.h"
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

// Vocabularies from the config's files, from an earlier run in the output directory, or trained now.
ModelVocabularies prepare_vocabularies(const TrainConfig& c) {
  const std::string src_path = (fs::path(c.output_dir) / "vocab.src.spm").string();
  const std::string tgt_path = (fs::path(c.output_dir) / "vocab.tgt.spm").string();
  ModelVocabularies v;
  if (!c.vocab.empty()) {
    v.source = v.target = Vocabulary::load(c.vocab);
  } else if (!c.source_vocab.empty()) {
    v.source = Vocabulary::load(c.source_vocab);
    v.target = Vocabulary::load(c.target_vocab);
  } else if (fs::exists(src_path) && fs::exists(tgt_path)) {
    v.source = Vocabulary::load(src_path);
    v.target = Vocabulary::load(tgt_path);
    return v;
  } else {
    const ParallelText text = read_parallel_text(c.train_source, c.train_target);
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
  m.pad_id = kPadId;
  m.bos_id = kBosId;
  m.eos_id = kEosId;
  const bool same = v.source.fingerprint() == v.target.fingerprint();
  if (m.tie_embeddings == EmbeddingTying::All && !same) {
    log_line("separate vocabularies: tying only the target embedding and the output projection");
    m.tie_embeddings = EmbeddingTying::TargetOutput;
  }
  return m;
}

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

std::uint64_t dropout_seed(std::uint64_t seed, long long step, int micro_batch) {
  // mix64 is a bijection: each step gets its own 64-bit base, and the micro-batches count up from it.
  return mix64(mix64(seed ^ mix64(static_cast<std::uint64_t>(step))) + static_cast<std::uint64_t>(micro_batch));
}

TrainResult train(const TrainConfig& config) {
  validate(config);
  set_num_threads(config.threads);
  ensure_writable_dir(config.output_dir);
  const RunLock lock(config.output_dir);  // one run per directory, until this one ends
  const std::string checkpoint_dir = (fs::path(config.output_dir) / "checkpoints").string();
  const std::string cache_dir = (fs::path(config.output_dir) / "cache").string();
  fs::create_directories(checkpoint_dir);
  fs::create_directories(cache_dir);

  const ModelVocabularies vocabs = prepare_vocabularies(config);
  TrainConfig c = config;
  c.model = resolve_model_config(config.model, vocabs);
  c.schedule.d_model = c.model.d_model;
  const std::string key = resume_key(c);

  const ParallelCorpus corpus = ParallelCorpus::build(c.train_source, c.train_target, vocabs.source, vocabs.target,
                                                      c.filter, (fs::path(cache_dir) / "train.cache").string());
  log_line(std::string("training data: ") + corpus.stats().summary() + (corpus.from_cache() ? " [cached]" : ""));
  require(corpus.size() > 0, "no training pairs left after filtering " + c.train_source + " / " + c.train_target);
  std::optional<DevSet> dev;
  if (!c.valid_source.empty()) {
    LengthFilter dev_filter{1 << 20, 0.0};
    dev = DevSet{ParallelCorpus::build(c.valid_source, c.valid_target, vocabs.source, vocabs.target, dev_filter,
                                       (fs::path(cache_dir) / "valid.cache").string()),
                 {}};
    const std::vector<std::string> lines = read_lines(c.valid_target);
    for (std::size_t i = 0; i < dev->corpus.size(); ++i) dev->references.push_back(lines[dev->corpus.line_number(i) - 1]);
    log_line("dev data: " + dev->corpus.stats().summary());
  }

  Transformer<float> model(c.model);
  Adam<float> adam(model.parameters().size(), c.adam);
  TrainState state;
  const std::vector<std::string> existing = list_checkpoints(checkpoint_dir);
  if (!existing.empty()) {
    const std::string& last = existing.back();
    const ModelConfig saved = read_model_config(SafetensorsFile::read(last));
    require(to_json(saved) == to_json(c.model),
            "cannot resume from " + last + ": its model config differs from this command's (" + to_json(saved) +
                " vs " + to_json(c.model) + "); use another --output directory");
    const std::string saved_key = load_checkpoint(last, model, adam, state);
    require(saved_key == key, "cannot resume from " + last +
                                  ": the data, batching or optimiser settings differ from the run that wrote it (" +
                                  saved_key + " vs " + key + "); use another --output directory");
    log_line("resuming from " + last + " at step " + std::to_string(state.step));
  } else {
    initialize_parameters(model.parameters(), c.model, c.seed);
  }
  log_line("model: " + std::to_string(parameter_count(c.model)) + " parameters, d_model " + std::to_string(c.model.d_model) +
           ", " + std::to_string(c.model.encoder_layers) + "+" + std::to_string(c.model.decoder_layers) + " layers");

  MetricsLog metrics((fs::path(c.output_dir) / "metrics.jsonl").string(), state.step);
  BatchStream stream(corpus, BatchingConfig{c.batch_tokens, c.window, c.seed});
  Arena arena;
  Progress progress(c.max_steps, state.step);
  TrainResult result;
  const std::string best_path = (fs::path(c.output_dir) / "best.htp").string();
  const double run_start_elapsed = state.elapsed_seconds;
  const long first_step = state.step;

  double window_loss = 0, window_nll = 0, window_seconds = 0;
  long long window_tokens = 0;
  double last_grad_norm = 0;
  std::vector<std::vector<std::uint32_t>> micro(c.accumulate);
  std::vector<Batch> batches;

  // Writes the checkpoint of the current step and keeps only the newest keep_checkpoints.
  auto checkpoint = [&] {
    save_checkpoint(checkpoint_path(checkpoint_dir, state.step), model, adam, state, key, vocabs);
    const auto all = list_checkpoints(checkpoint_dir);
    for (std::size_t i = 0; i + c.keep_checkpoints < all.size(); ++i) fs::remove(all[i]);
  };

  while (true) {
    if (state.step >= c.max_steps) {
      result.stop_reason = "max steps";
      break;
    }
    // One update: accumulate micro-batches, normalised by the update's target tokens.
    batches.clear();
    bool exhausted = false;
    for (int k = 0; k < c.accumulate; ++k) {
      if (!stream.next(state, c.max_epochs, micro[k])) {
        exhausted = true;
        break;
      }
      batches.push_back(make_corpus_batch(corpus, micro[k], c.model));
    }
    if (exhausted) {
      result.stop_reason = "max epochs";
      break;
    }
    const auto t0 = std::chrono::steady_clock::now();
    long long update_tokens = 0;
    for (const Batch& b : batches) update_tokens += b.target_tokens();
    model.parameters().zero_grads();
    double loss = 0, nll = 0;
    for (std::size_t k = 0; k < batches.size(); ++k) {
      arena.reset();
      StepOptions opt;
      opt.training = true;
      opt.seed = dropout_seed(c.seed, state.step, static_cast<int>(k));
      opt.label_smoothing = c.label_smoothing;
      opt.grad_normalizer = static_cast<double>(update_tokens);
      const LossTotals t = model.forward_backward(batches[k], opt, arena);
      loss += t.loss;
      nll += t.nll;
    }
    if (!std::isfinite(loss)) {
      metrics.write({{"type", "error"}, {"step", state.step + 1}, {"message", "non-finite loss"}});
      throw Error("training stopped at step " + std::to_string(state.step + 1) +
                  ": the loss is not finite (diverged; try a lower learning rate or --clip-norm). The last good "
                  "checkpoint is intact in " + checkpoint_dir);
    }
    last_grad_norm = clip_gradients(model.parameters(), c.clip_norm);
    const double lr = c.schedule.at(state.step + 1);
    adam.step(model.parameters().values(), model.parameters().grads(), lr);
    ++state.step;
    state.target_tokens += update_tokens;
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    state.elapsed_seconds += seconds;
    window_loss += loss;
    window_nll += nll;
    window_tokens += update_tokens;
    window_seconds += seconds;

    char detail[160];
    std::snprintf(detail, sizeof detail, "epoch %llu | loss %.3f ppl %.2f | lr %.2e | %.0f tok/s",
                  static_cast<unsigned long long>(state.epoch) + 1, loss / update_tokens, std::exp(nll / update_tokens), lr,
                  update_tokens / std::max(seconds, 1e-9));
    progress.update(state.step, detail);

    if (state.step % c.log_every == 0 || state.step == c.max_steps) {
      metrics.write({{"type", "train"},
                     {"step", state.step},
                     {"epoch", state.epoch + 1},
                     {"loss", window_loss / window_tokens},
                     {"nll", window_nll / window_tokens},
                     {"ppl", std::exp(window_nll / window_tokens)},
                     {"lr", lr},
                     {"grad_norm", last_grad_norm},
                     {"target_tokens", state.target_tokens},
                     {"tokens_per_second", window_tokens / std::max(window_seconds, 1e-9)},
                     {"elapsed_seconds", state.elapsed_seconds}});
      window_loss = window_nll = window_seconds = 0;
      window_tokens = 0;
    }

    if (state.step % c.valid_every == 0 || state.step == c.max_steps) {
      bool stop = false;
      if (dev) {
        const ValidationResult v = validate_model(model, *dev, vocabs, c.batch_tokens, c.valid_bleu_sentences,
                                                  c.valid_search, arena);
        const bool improved = v.cross_entropy < state.best_valid;
        if (improved) {
          state.best_valid = v.cross_entropy;
          state.best_step = state.step;
          state.bad_validations = 0;
          save_model(best_path, model, {}, vocabulary_tensors(vocabs));
        } else {
          ++state.bad_validations;
        }
        nlohmann::json record = {{"type", "valid"}, {"step", state.step}, {"ce", v.cross_entropy}, {"ppl", v.perplexity},
                                 {"tokens", v.tokens}, {"best_step", state.best_step}};
        if (v.bleu >= 0) record["bleu"] = v.bleu;
        metrics.write(record);
        char line[200];
        std::snprintf(line, sizeof line, "validation at step %ld: ce %.4f ppl %.2f%s%s", state.step, v.cross_entropy,
                      v.perplexity, v.bleu >= 0 ? (" bleu " + std::to_string(v.bleu).substr(0, 5)).c_str() : "",
                      improved ? " (best)" : "");
        if (progress.interactive()) std::fprintf(stderr, "\n");
        log_line(line);
        stop = c.patience > 0 && state.bad_validations >= c.patience;
      }
      checkpoint();
      if (stop) {
        result.stop_reason = "early stopping";
        break;
      }
    }
  }
  if (state.step > first_step && state.step % c.valid_every != 0) checkpoint();  // validation steps saved already
  char detail[96];
  std::snprintf(detail, sizeof detail, "done (%s), %s this run", result.stop_reason.c_str(),
                format_duration(state.elapsed_seconds - run_start_elapsed).c_str());
  progress.finish(state.step, detail);

  result.model_path = (fs::path(c.output_dir) / "model.htp").string();
  if (dev && fs::exists(best_path)) {
    fs::copy_file(best_path, result.model_path + ".tmp", fs::copy_options::overwrite_existing);
    fs::rename(result.model_path + ".tmp", result.model_path);
  } else {
    save_model(result.model_path, model, {}, vocabulary_tensors(vocabs));
  }
  result.state = state;
  return result;
}

}  // namespace heptapod
