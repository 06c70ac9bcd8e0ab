// Checkpoint save/load: the model, Adam's moments and the training state in one model file, with a checksum
// of the restored values so a damaged checkpoint is refused by name instead of resumed.
#include "heptapod/train/checkpoint.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <utility>

#include "heptapod/core/checksum.h"
#include "heptapod/core/error.h"
#include "heptapod/io/adapter_file.h"
#include "heptapod/io/model_file.h"

namespace heptapod {

using nlohmann::json;

namespace {

std::string state_to_json(const TrainState& s) {
  json j = {{"step", s.step},
            {"epoch", s.epoch},
            {"batch_in_epoch", s.batch_in_epoch},
            {"best_valid", std::isfinite(s.best_valid) ? json(s.best_valid) : json(nullptr)},
            {"best_step", s.best_step},
            {"bad_validations", s.bad_validations},
            {"elapsed_seconds", s.elapsed_seconds},
            {"target_tokens", s.target_tokens}};
  return j.dump();
}

TrainState state_from_json(const std::string& text, const std::string& where) {
  const json j = json::parse(text, nullptr, false);
  require(!j.is_discarded() && j.is_object(), where + ": train_state is not a JSON object");
  TrainState s;
  try {
    s.step = j.at("step").get<long>();
    s.epoch = j.at("epoch").get<std::uint64_t>();
    s.batch_in_epoch = j.at("batch_in_epoch").get<std::uint64_t>();
    s.best_valid = j.at("best_valid").is_null() ? std::numeric_limits<double>::infinity() : j.at("best_valid").get<double>();
    s.best_step = j.at("best_step").get<long>();
    s.bad_validations = j.at("bad_validations").get<int>();
    s.elapsed_seconds = j.at("elapsed_seconds").get<double>();
    s.target_tokens = j.at("target_tokens").get<long long>();
  } catch (const json::exception& e) {
    throw Error(where + ": train_state is incomplete: " + e.what());
  }
  return s;
}

// An Adam moment: one value per parameter.
void read_moment(const SafetensorsFile& f, const std::string& name, std::vector<float>& out) {
  std::vector<float> values = f.floats<float>(name);
  require(values.size() == out.size(), f.where() + ": tensor " + name + " does not match the model's parameter count");
  out = std::move(values);
}

// The checksum of what a checkpoint restores: parameters, both Adam moments and the task's state tensors
// (by name: name -> values), as decimal text.
// `trained_only`: the parameters a LoRA run's checkpoint holds (the trained ones), else all.
std::string values_checksum(const Transformer<float>& model, const Adam<float>& adam,
                            const std::map<std::string, std::vector<float>>& task_state, bool trained_only) {
  const ParameterStore<float>& p = model.parameters();
  const std::size_t first = trained_only ? p.trained_offset() : 0;
  std::uint64_t h = checksum_words(kChecksumSeed, p.values() + first, (p.size() - first) * sizeof(float));
  h = checksum_words(h, adam.first_moment().data(), adam.first_moment().size() * sizeof(float));
  h = checksum_words(h, adam.second_moment().data(), adam.second_moment().size() * sizeof(float));
  for (const auto& [name, values] : task_state) h = checksum_words(h, values.data(), values.size() * sizeof(float));
  return std::to_string(h);
}

}  // namespace

std::string task_state_name(const std::string& name) { return "extra/task/" + name; }

void save_checkpoint(const std::string& path, const Transformer<float>& model, const Adam<float>& adam,
                     const TrainState& state, const std::string& resume_key, const ModelVocabularies& vocabs,
                     const std::vector<TaskStateTensor>& task_state, const std::string& base_checksum) {
  std::vector<ExtraTensor> extras = vocabulary_tensors(vocabs);
  const auto n = static_cast<std::int64_t>(adam.first_moment().size());
  extras.push_back({"extra/adam/m", DType::F32, {n}, adam.first_moment().data()});
  extras.push_back({"extra/adam/v", DType::F32, {n}, adam.second_moment().data()});
  std::map<std::string, std::vector<float>> checked;
  for (const TaskStateTensor& t : task_state) {
    extras.push_back({task_state_name(t.name), DType::F32, t.shape, t.values.data()});
    checked[task_state_name(t.name)] = t.values;
  }
  const bool lora = model.config().lora.enabled();
  const std::map<std::string, std::string> metadata = {{"train_state", state_to_json(state)},
                                                       {"resume_key", resume_key},
                                                       {"adam_steps", std::to_string(adam.steps())},
                                                       {"values_checksum", values_checksum(model, adam, checked, lora)}};
  if (lora) save_adapter(path, model, base_checksum, extras, metadata);
  else save_model(path, model, metadata, extras);
}

ModelConfig checkpoint_config(const SafetensorsFile& file) {
  return is_adapter_file(file) ? read_adapter_info(file).config : read_model_config(file);
}

std::string load_checkpoint(const std::string& path, Transformer<float>& model, Adam<float>& adam, TrainState& state,
                            const std::string& base_checksum) {
  const SafetensorsFile f = SafetensorsFile::read(path);
  require(to_json(checkpoint_config(f)) == to_json(model.config()), path + ": checkpoint config differs from the model");
  const bool trained_only = is_adapter_file(f);
  if (trained_only) {
    const std::string& named = read_adapter_info(f).base_checksum;
    require(named == base_checksum, path + ": written over another base model (base checksum " + named + ", --init has " +
                                        base_checksum + ")");
    load_selected_parameters<float>(f, model.parameters(), [](const ParamSpec& spec) { return !spec.frozen; });
  } else {
    load_parameters(f, model.parameters());
  }
  read_moment(f, "extra/adam/m", adam.first_moment());
  read_moment(f, "extra/adam/v", adam.second_moment());
  adam.set_steps(std::stol(f.metadata("adam_steps")));
  state = state_from_json(f.metadata("train_state"), path);
  std::map<std::string, std::vector<float>> task_state;
  for (const TensorEntry& e : f.tensors())
    if (e.name.rfind(task_state_name(""), 0) == 0) task_state[e.name] = f.floats<float>(e.name);
  const auto saved = f.metadata().find("values_checksum");  // absent from checkpoints of earlier builds
  require(saved == f.metadata().end() || saved->second == values_checksum(model, adam, task_state, trained_only),
          path + ": damaged checkpoint: its parameters or optimizer moments changed since it was written "
                 "(checksum mismatch)");
  return f.metadata("resume_key");
}

std::string checkpoint_path(const std::string& dir, long step) {
  char name[64];
  std::snprintf(name, sizeof name, "step-%08ld.htp", step);
  return (std::filesystem::path(dir) / name).string();
}

std::vector<std::string> list_checkpoints(const std::string& dir) {
  std::vector<std::string> out;
  if (!std::filesystem::is_directory(dir)) return out;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    if (name.size() == 17 && name.rfind("step-", 0) == 0 && name.substr(13) == ".htp") out.push_back(entry.path().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<std::string> last_checkpoints(const std::string& dir, std::size_t n) {
  std::vector<std::string> all = list_checkpoints(dir);
  all.erase(all.begin(), all.end() - static_cast<std::ptrdiff_t>(std::min(n, all.size())));
  return all;
}

}  // namespace heptapod
