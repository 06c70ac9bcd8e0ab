// The training loop.
#include "heptapod/train/trainer.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <utility>

#include "heptapod/core/error.h"
#include "heptapod/core/progress.h"
#include "heptapod/data/language_codes.h"
#include "heptapod/kernels/threads.h"
#include "heptapod/io/adapter_file.h"
#include "heptapod/io/model_file.h"
#include "heptapod/model/initialize.h"
#include "heptapod/train/average.h"
#include "heptapod/train/checkpoint.h"
#include "heptapod/train/communicator.h"
#include "heptapod/train/lora_base.h"
#include "heptapod/train/metrics_log.h"
#include "heptapod/train/model_choice.h"
#include "heptapod/train/run_lock.h"
#include "heptapod/train/training_task.h"
#include "heptapod/train/update_step.h"

namespace heptapod {

namespace fs = std::filesystem;

namespace {

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
    // An encoder's head (its output part) is in no group: freezing the encoder trains the head alone.
    const bool head = spec.part == ParamPart::Output && spec.stack == Stack::Encoder;
    const bool embedding = spec.part == ParamPart::Embedding || (spec.part == ParamPart::Output && !head);
    for (const std::string& g : groups)
      if (!head && ((g == "embeddings" && embedding) || (!embedding && g == stack_name(spec.stack)))) {
        frozen.push_back(t);
        break;
      }
  }
  return frozen;
}

}  // namespace

struct Trainer::Run {
  Communicator* comm = nullptr;
  TrainConfig c;
  std::string checkpoint_dir, best_path, key;
  std::string base_checksum;  // a LoRA run's: weights_checksum of the --init file, which its adapter files name
  std::unique_ptr<RunLock> lock;
  std::unique_ptr<TrainingTask> task;
  std::unique_ptr<Transformer<float>> model;
  std::unique_ptr<Adam<float>> adam;
  std::unique_ptr<UpdateStep> step;
  TrainState state;
  std::unique_ptr<MetricsLog> metrics;
  std::unique_ptr<Progress> progress;
  Arena arena;  // validation's
  std::string stop_reason;
  double run_start_elapsed = 0;
  long first_step = 0;
  long long checkpointed_step = -1;  // the step of the last checkpoint this run wrote
  double window_loss = 0, window_nll = 0, window_seconds = 0;
  long long window_tokens = 0;
  std::vector<Batch> batches;  // (accumulate x ranks) the current update's micro-batches

  // The task and its data (rank 0 first), the model config the data settles, the resume key.
  void prepare_data(const TrainConfig& config);
  // The model and the optimiser: resumed from the last checkpoint (with the task's state), else the model to
  // fine-tune's weights, else fresh.
  void start_model();
  // The trained model as a run's result (best.htp, the final one): a LoRA run's adapter file (with a
  // classifier's class names), else the model with its vocabularies.
  void save_result(const std::string& path) const {
    const std::vector<ExtraTensor> vocabularies = vocabulary_tensors(task->vocabularies());
    if (!c.model.lora.enabled()) {
      // A multilingual model's language codes go on with it (its tokens and ids are the fine-tuned model's).
      std::map<std::string, std::string> metadata;
      if (c.init && c.init->file.metadata().count(kLanguagesMetadata))
        read_language_codes(c.init->file).add_metadata(metadata);
      save_model(path, *model, metadata, vocabularies);
      return;
    }
    std::vector<ExtraTensor> labels;  // a classifier's class names: its head is the adapter file's
    for (const ExtraTensor& e : vocabularies)
      if (e.name == "extra/labels") labels.push_back(e);
    save_adapter(path, *model, base_checksum, labels);
  }
  // last: the run's final update, whose metrics line is written whatever log_every says.
  void log(const UpdateStats& u, long long update_tokens, double lr, double seconds, bool last);
  bool validate();  // false: early stopping
  // Writes the checkpoint of the current step and keeps only the newest max(keep_checkpoints, average_last):
  // a collective call (every rank gives the task's state; rank 0 writes).
  void checkpoint() {
    const std::vector<TaskStateTensor> task_state =
        task->checkpoint_state(comm->rank(), comm->size(), comm->size() > 1 ? comm : nullptr);
    checkpointed_step = static_cast<long long>(state.step);
    if (comm->rank() > 0) return;
    save_checkpoint(checkpoint_path(checkpoint_dir, state.step), *model, *adam, state, key, task->vocabularies(),
                    task_state, base_checksum);
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
  r.checkpoint_dir = (fs::path(config.output_dir) / "checkpoints").string();
  NewDirectory created(rank == 0 ? config.output_dir : "");
  if (rank == 0) {
    ensure_writable_dir(config.output_dir);
    r.lock = std::make_unique<RunLock>(config.output_dir);  // one run per directory, until this one ends
    fs::create_directories(r.checkpoint_dir);
  }
  r.prepare_data(config);
  const TrainConfig& c = r.c;
  r.model = std::make_unique<Transformer<float>>(c.model);
  // Adam's state covers the trained parameters alone (a LoRA run's adapters and new head).
  r.adam = std::make_unique<Adam<float>>(r.model->parameters().trained_size(), c.adam);
  r.start_model();
  if (rank == 0)
    log_line("model: " + std::string(architecture_name(c.model.architecture)) + ", " +
             std::to_string(parameter_count(c.model)) + " parameters, d_model " + std::to_string(c.model.d_model) +
             ", " +
             (c.model.architecture == Architecture::EncoderDecoder
                  ? std::to_string(c.model.encoder_layers) + "+" + std::to_string(c.model.decoder_layers)
                  : std::to_string(c.model.has_decoder() ? c.model.decoder_layers : c.model.encoder_layers)) +
             " layers, " +
           kernels::matmul_precision_name(precision.precision) + " products" +
           (precision.reason.empty() ? "" : std::string(" (bfloat16 asked for, but ") + precision.reason + ")"));

  UpdateSettings settings{.seed = c.seed,
                          .label_smoothing = c.label_smoothing,
                          .clip_norm = c.clip_norm,
                          .overlap_reduction = c.overlap_allreduce};
  settings.frozen = frozen_tensors(r.model->parameters(), c.freeze);
  r.step = std::make_unique<UpdateStep>(*r.model, *r.adam, r.task->loss(), settings, ranks > 1 ? r.comm : nullptr);
  if (rank == 0)
    r.metrics = std::make_unique<MetricsLog>((fs::path(c.output_dir) / "metrics.jsonl").string(), r.state.step);
  r.progress = std::make_unique<Progress>(c.max_steps, r.state.step);
  r.best_path = (fs::path(c.output_dir) / "best.htp").string();
  r.run_start_elapsed = r.state.elapsed_seconds;
  r.first_step = r.state.step;
  r.batches.resize(static_cast<std::size_t>(c.accumulate) * ranks);
  created.keep();
}

void Trainer::Run::prepare_data(const TrainConfig& config) {
  const int rank = comm->rank(), ranks = comm->size();
  c = config;
  // Rank 0 prepares the data (training vocabularies, writing corpus caches) while the others wait; they then
  // read what it wrote in the output directory, which every rank must see at the same path.
  task = make_training_task(config);
  if (rank == 0) task->prepare(rank);
  comm->barrier();
  if (rank > 0) task->prepare(rank);
  c.model = task->resolve_model(config.model);
  c.schedule.d_model = c.model.d_model;
  c.schedule.total_steps = c.max_steps;
  // The update is accumulate micro-batches on each of the ranks: what a resume must agree on is their total,
  // so a run may resume on another number of ranks with the same total (re-sharded deterministically).
  TrainConfig keyed = c;
  keyed.accumulate = c.accumulate * ranks;
  key = resume_key(keyed);
  task->set_update_size(keyed.accumulate);
  if (rank == 0)
    log_line("training data: " + task->data_summary() +
             (ranks > 1 ? ", " + std::to_string(ranks) + " ranks x " + std::to_string(c.accumulate) + " micro-batches" : ""));
  if (rank == 0) task->prepare_validation();
}

void Trainer::Run::start_model() {
  const int rank = comm->rank(), ranks = comm->size();
  const bool lora = c.model.lora.enabled();
  bool new_head = false;  // an encoder given another head than the model to fine-tune's
  if (c.init) {
    ModelConfig base = c.model;
    base.lora = {};
    const ConfigChange change = config_change(c.init->config, base);
    require(change != ConfigChange::Body,
            "--init " + c.init->path + ": the model config to train differs from the file's (sizes, norms, tying): " +
                to_json(base) + " vs " + to_json(c.init->config));
    new_head = change == ConfigChange::Head;
  }
  std::string held;  // the precision a LoRA run's base is held in
  if (lora) {
    require(c.init != nullptr, "train: LoRA adapters need their base model (--init)");
    base_checksum = weights_checksum(c.init->file);  // before loading gives the file's pages back
    // The base's weights and fresh adapters; a resume then restores the trained tensors from its checkpoint.
    held = load_lora_base(*model, c.init->file, new_head, c.seed);
  }
  const std::vector<std::string> existing = list_checkpoints(checkpoint_dir);
  if (!existing.empty()) {
    const std::string& last = existing.back();
    const SafetensorsFile file = SafetensorsFile::read(last);
    const ModelConfig saved = checkpoint_config(file);
    require(config_change(saved, c.model) == ConfigChange::None,
            "cannot resume from " + last + ": its model config differs from this command's (" + to_json(saved) +
                " vs " + to_json(c.model) + "); use another --output directory");
    std::string saved_key;
    try {
      saved_key = load_checkpoint(last, *model, *adam, state, base_checksum);
    } catch (const Error& e) {
      throw Error(std::string(e.what()) + "; move it away to resume from " +
                  (existing.size() > 1 ? existing[existing.size() - 2] : std::string("the start")));
    }
    require(saved_key == key, "cannot resume from " + last +
                                  ": the data, batching or optimiser settings differ from the run that wrote it (" +
                                  saved_key + " vs " + key + "); use another --output directory");
    task->restore_state(file, rank, ranks);
    if (rank == 0) log_line("resuming from " + last + " at step " + std::to_string(state.step));
  } else if (c.init) {
    if (new_head && !lora) {  // an encoder given another head: the body's weights, a fresh head
      initialize_parameters(model->parameters(), c.model, c.seed);
      load_body_parameters(c.init->file, model->parameters());
    } else if (!lora) {
      load_parameters(c.init->file, model->parameters());
    }
    if (rank == 0)
      log_line("fine-tuning " + c.init->path + (new_head ? " with a new head" : "") +
               (c.freeze.empty() ? "" : ", frozen: " + join(c.freeze)) +
               (lora ? ", LoRA rank " + std::to_string(c.model.lora.rank) + " on " + join(c.model.lora.targets) + ", " +
                           std::to_string(model->parameters().trained_size()) + " parameters trained" +
                           (held == compute_type_name(ComputeType::Float32) ? "" : ", the base held in " + held)
                     : ""));
  } else {
    initialize_parameters(model->parameters(), c.model, c.seed);
  }
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
  if (c.max_minutes > 0 && state.elapsed_seconds >= 60 * c.max_minutes) {  // a resume of a run that used its time
    r.stop_reason = "time limit";
    return false;
  }
  // One update: accumulate x ranks micro-batches, normalised by the update's loss terms; rank r computes
  // micro-batches r, r + ranks, r + 2 ranks, ...
  const int rank = r.comm->rank(), ranks = r.comm->size();
  for (Batch& batch : r.batches)
    if (!r.task->next_batch(state, c.max_epochs, c.model, batch)) {
      r.stop_reason = "max epochs";
      return false;
    }
  const auto t0 = std::chrono::steady_clock::now();
  long long update_tokens = 0;
  std::vector<const Batch*> mine;
  std::vector<int> indices;
  for (std::size_t k = 0; k < r.batches.size(); ++k) {
    update_tokens += r.task->loss().terms(r.batches[k]);
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
  // The time limit ends the run at this update on every rank: rank 0's clock decides.
  const bool out_of_time =
      c.max_minutes > 0 && r.comm->broadcast(rank == 0 && state.elapsed_seconds >= 60 * c.max_minutes ? 1 : 0) != 0;
  if (out_of_time) r.stop_reason = "time limit";
  const bool last = out_of_time || state.step == c.max_steps;
  if (rank == 0) r.log(u, update_tokens, lr, seconds, last);
  if (state.step % c.valid_every == 0 || last) {
    // Rank 0 validates and writes the checkpoint; its early-stopping decision holds for every rank.
    const bool go_on = r.comm->broadcast(rank == 0 ? r.validate() : 1) != 0;
    r.task->check_intact();  // no checkpoint from batches a shrunken cache fed as zeros
    r.checkpoint();
    if (!go_on) {
      r.stop_reason = "early stopping";
      return false;
    }
  }
  return true;
}

void Trainer::Run::log(const UpdateStats& u, long long update_tokens, double lr, double seconds, bool last) {
  window_loss += u.loss;
  window_nll += u.nll;
  window_tokens += update_tokens;
  window_seconds += seconds;
  char detail[160];
  std::snprintf(detail, sizeof detail, "epoch %llu | loss %.3f ppl %.2f | lr %.2e | %.0f tok/s",
                static_cast<unsigned long long>(state.epoch) + 1, u.loss / update_tokens, std::exp(u.nll / update_tokens),
                lr, update_tokens / std::max(seconds, 1e-9));
  progress->update(state.step, detail);
  if (state.step % c.log_every == 0 || last) {
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
  if (!task->validates()) return true;
  const ValidationReport v = task->validate(*model, arena);
  const bool improved = v.criterion < state.best_valid;
  if (improved) {
    state.best_valid = v.criterion;
    state.best_step = state.step;
    state.bad_validations = 0;
    save_result(best_path);
  } else {
    ++state.bad_validations;
  }
  nlohmann::json record = v.metrics;
  record["type"] = "valid";
  record["step"] = state.step;
  record["best_step"] = state.best_step;
  metrics->write(record);
  if (progress->interactive()) std::fprintf(stderr, "\n");
  log_line("validation at step " + std::to_string(state.step) + ": " + v.summary + (improved ? " (best)" : ""));
  return !(c.patience > 0 && state.bad_validations >= c.patience);
}

TrainResult Trainer::finish() {
  Run& r = *run_;
  const TrainConfig& c = r.c;
  TrainState& state = r.state;
  TrainResult result;
  result.stop_reason = r.stop_reason;
  result.state = state;
  result.model_path = (fs::path(c.output_dir) / (c.model.lora.enabled() ? "adapter.htp" : "model.htp")).string();
  // Every rank knows whether the last step has its checkpoint (they all run update() alike).
  if (state.step > r.first_step && static_cast<long long>(state.step) != r.checkpointed_step) r.checkpoint();
  if (r.comm->rank() > 0) return result;  // rank 0 writes
  char detail[96];
  std::snprintf(detail, sizeof detail, "done (%s), %s this run", r.stop_reason.c_str(),
                format_duration(state.elapsed_seconds - r.run_start_elapsed).c_str());
  r.progress->finish(state.step, detail);
  if (r.task->validates() && fs::exists(r.best_path)) {
    fs::copy_file(r.best_path, result.model_path + ".tmp", fs::copy_options::overwrite_existing);
    fs::rename(result.model_path + ".tmp", result.model_path);
  } else {
    r.save_result(result.model_path);
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
