// PEFT adapters: adapter_config.json to a LoRA config, PEFT's tensor names to Heptapod's, per model family.
#include "heptapod/io/peft_import.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <set>
#include <span>
#include <vector>

#include "heptapod/core/error.h"
#include "heptapod/io/adapter_file.h"
#include "heptapod/io/atomic_file.h"
#include "heptapod/io/bert_import.h"
#include "heptapod/io/gpt2_import.h"
#include "heptapod/io/llama_import.h"
#include "heptapod/io/model_file.h"

namespace heptapod {

namespace {

using nlohmann::json;

// What a family's PEFT files look like: where its layers are under "base_model.model." (the task model's path
// first, then the bare base model's), the modules of a layer, whether they are Conv1D (fan_in_fan_out), and the
// names of a classifier's head that PEFT saves in full (modules_to_save: its SEQ_CLS task's "classifier" and
// "score"), under "base_model.model.<head>.".
struct PeftFamily {
  const char* name;
  std::vector<std::string> layer_paths;
  std::span<const ModuleMapping> modules;
  bool conv1d;
  std::vector<std::string> classifier_heads{};
};

// The family of the checkpoint `config`'s model file was converted from, by the shape only it has.
PeftFamily peft_family(const ModelConfig& c, const std::string& where) {
  if (c.architecture == Architecture::DecoderOnly && c.gated_ffn && c.rotary)
    return {"LLaMA-family", {"model.layers.", "layers."}, llama_layer_modules(), false};
  if (c.architecture == Architecture::DecoderOnly && !c.gated_ffn && !c.rotary && c.learned_positions > 0)
    return {"GPT-2", {"transformer.h.", "h."}, gpt2_block_modules(), true};
  if (c.architecture == Architecture::EncoderOnly && !c.gated_ffn && !c.rotary && c.learned_positions > 0)
    return {"BERT", {"bert.encoder.layer.", "encoder.layer."}, bert_layer_modules(), false, {"classifier", "score"}};
  throw Error(where + ": PEFT adapters convert over a model converted from a LLaMA-family, GPT-2 or BERT checkpoint "
                      "(heptapod convert --from llama, gpt2 or bert)");
}

bool ends_with(const std::string& s, const std::string& end) {
  return s.size() >= end.size() && s.compare(s.size() - end.size(), end.size(), end) == 0;
}

// The family's modules a target_modules entry names, as PEFT matches it: the module's name or its end after a dot.
std::vector<const ModuleMapping*> matched_modules(const PeftFamily& family, const std::string& target) {
  std::vector<const ModuleMapping*> out;
  for (const ModuleMapping& m : family.modules)
    if (m.theirs == target || ends_with(m.theirs, "." + target)) out.push_back(&m);
  return out;
}

// The family's adaptable module names, for messages.
std::string adaptable_names(const PeftFamily& family, bool gated_ffn) {
  std::string out;
  for (const ModuleMapping& m : family.modules)
    if (!lora_target_of(m.ours, gated_ffn).empty() && out.find(m.theirs) == std::string::npos)
      out += (out.empty() ? "" : ", ") + std::string(m.theirs);
  return out;
}

// Whether `list` is a JSON list of names each one of `names`.
bool names_among(const json& list, const std::vector<std::string>& names) {
  return list.is_array() && std::all_of(list.begin(), list.end(), [&](const json& m) {
           return m.is_string() && std::find(names.begin(), names.end(), m.get<std::string>()) != names.end();
         });
}

// What adapter_config.json says: the LoRA config (rank, alpha, targets, dropout) and whether the file holds a
// classifier's head, trained in full (modules_to_save).
struct PeftConfig {
  LoraConfig lora;
  bool classifier_saved = false;
};

// adapter_config.json over a model of `base` (of `family`); what plain LoRA does not do is refused.
PeftConfig peft_config(const std::string& path, const PeftFamily& family, const ModelConfig& base) {
  const json j = json::parse(read_file(path), nullptr, false);
  require(!j.is_discarded() && j.is_object(), path + ": not a JSON object");
  auto refuse_if = [&](const char* key, bool refused, const std::string& what) {
    require(!refused, path + ": \"" + key + "\" " + what + " is not converted (plain LoRA alone)");
  };
  auto truthy = [&](const char* key) { return j.contains(key) && !j.at(key).is_null() && j.at(key) != false; };
  auto non_empty = [&](const char* key) { return j.contains(key) && !j.at(key).is_null() && !j.at(key).empty(); };
  require(j.value("peft_type", "LORA") == "LORA", path + ": \"peft_type\" is not LORA");
  refuse_if("use_rslora", truthy("use_rslora"), "(rank-stabilised scaling)");
  refuse_if("use_dora", truthy("use_dora"), "(DoRA)");
  // PEFT sets fan_in_fan_out itself for Conv1D layers (GPT-2's), whatever the config said: there it changes nothing.
  refuse_if("fan_in_fan_out", !family.conv1d && truthy("fan_in_fan_out"),
            std::string("(Conv1D layouts, which a ") + family.name + " model does not have)");
  refuse_if("rank_pattern", non_empty("rank_pattern"), "(per-module ranks)");
  refuse_if("alpha_pattern", non_empty("alpha_pattern"), "(per-module alphas)");
  const bool saves = non_empty("modules_to_save");
  refuse_if("modules_to_save", saves && !(base.labels > 0 && names_among(j.at("modules_to_save"), family.classifier_heads)),
            "(fully trained modules other than a classifier model's head)");
  refuse_if("layers_to_transform", non_empty("layers_to_transform"), "(some layers alone)");
  refuse_if("exclude_modules", non_empty("exclude_modules"), "(targets with exceptions)");
  refuse_if("bias", j.contains("bias") && j.at("bias") != "none", "(trained biases)");
  require(j.contains("r") && j.at("r").is_number_integer() && j.at("r").get<long>() > 0 &&
              j.at("r").get<long>() < (1L << 30),
          path + ": \"r\" must be a positive integer");
  require(j.contains("lora_alpha") && j.at("lora_alpha").is_number(), path + ": \"lora_alpha\" must be a number");
  require(j.contains("target_modules") && j.at("target_modules").is_array(),
          path + ": \"target_modules\" must be a list of module names (a pattern is not converted)");
  PeftConfig out;
  out.classifier_saved = saves;
  LoraConfig& lora = out.lora;
  lora.rank = j.at("r").get<int>();
  lora.alpha = j.at("lora_alpha").get<float>();
  if (j.contains("lora_dropout") && j.at("lora_dropout").is_number()) lora.dropout = j.at("lora_dropout").get<float>();
  lora.targets.clear();
  std::set<Module> adapted;
  for (const json& m : j.at("target_modules")) {
    const std::vector<const ModuleMapping*> matched =
        m.is_string() ? matched_modules(family, m.get<std::string>()) : std::vector<const ModuleMapping*>{};
    const bool adaptable = !matched.empty() && std::all_of(matched.begin(), matched.end(), [&](const ModuleMapping* x) {
      return !lora_target_of(x->ours, base.gated_ffn).empty();
    });
    require(adaptable, path + ": target module " + m.dump() + " is not one Heptapod adapts in a " + family.name +
                           " model (" + adaptable_names(family, base.gated_ffn) + ")");
    for (const ModuleMapping* x : matched) {
      adapted.insert(x->ours);
      const std::string target = lora_target_of(x->ours, base.gated_ffn);
      if (std::find(lora.targets.begin(), lora.targets.end(), target) == lora.targets.end())
        lora.targets.push_back(target);
    }
  }
  const std::vector<Module> ours = lora_modules(lora, base.gated_ffn);
  if (adapted.size() != ours.size()) {  // a target's modules in part: the feed-forward network's
    std::string ffn;
    for (const ModuleMapping& m : family.modules)
      if (lora_target_of(m.ours, base.gated_ffn) == "ffn") ffn += (ffn.empty() ? "" : ", ") + std::string(m.theirs);
    throw Error(path + ": the feed-forward network's " + ffn + " are adapted together or not at all (a target "
                       "module names every module whose name ends in it)");
  }
  return out;
}

// The layer path under "base_model.model." that the adapter file's tensors use.
std::string peft_layer_path(const SafetensorsFile& peft, const PeftFamily& family) {
  for (const std::string& path : family.layer_paths)
    for (const TensorEntry& e : peft.tensors())
      if (e.name.rfind("base_model.model." + path, 0) == 0) return "base_model.model." + path;
  throw Error(peft.where() + ": no tensor under base_model.model." + family.layer_paths.front() +
              " (PEFT's names of a " + family.name + " model's adapters)");
}

}  // namespace

void convert_peft_adapter(const std::string& directory, const SafetensorsFile& base, const std::string& output) {
  namespace fs = std::filesystem;
  require(fs::is_directory(directory), directory + ": not a directory (PEFT adapters are read from a directory)");
  ModelConfig config = read_model_config(base);
  const PeftFamily family = peft_family(config, base.where());
  const PeftConfig peft_settings = peft_config((fs::path(directory) / "adapter_config.json").string(), family, config);
  config.lora = peft_settings.lora;
  try {
    validate(config);
  } catch (const Error& e) {
    throw Error(directory + "/adapter_config.json over " + base.where() + ": " + e.what());
  }
  const SafetensorsFile peft = SafetensorsFile::read((fs::path(directory) / "adapter_model.safetensors").string());
  const std::string layers = peft_layer_path(peft, family);
  Transformer<float> adapted(config);
  ParameterStore<float>& p = adapted.parameters();
  // A classifier's head trains beside the adapters (the adapter file holds it): the base's, or PEFT's own copy.
  load_selected_parameters<float>(base, p, [](const ParamSpec& s) { return !s.frozen && s.role != ParamRole::Adapter; });
  std::set<std::string> used;
  // The values of PEFT's tensor `name`, which must have `shape` and finite values.
  auto read = [&](const std::string& name, const std::vector<std::int64_t>& shape) {
    const TensorEntry* e = peft.find(name);
    require(e != nullptr, peft.where() + ": missing tensor \"" + name + "\"");
    require(e->shape == shape, peft.where() + ": tensor \"" + name + "\" has shape " + shape_text(e->shape) +
                                   ", the base model needs " + shape_text(shape));
    std::vector<float> values = peft.floats<float>(name);
    require(std::all_of(values.begin(), values.end(), [](float v) { return std::isfinite(v); }),
            peft.where() + ": tensor \"" + name + "\" holds a non-finite value");
    used.insert(name);
    return values;
  };
  for (std::size_t i = 0; i < p.specs().size(); ++i) {
    const ParamSpec& spec = p.specs()[i];
    if (spec.module == Module::Classifier && peft_settings.classifier_saved) {
      const std::string leaf = ends_with(spec.name, "/bias") ? "bias" : "weight";
      const std::vector<float> values = read("base_model.model.classifier." + leaf, spec.shape);
      std::copy(values.begin(), values.end(), p.values() + p.offset(i));
    }
    if (spec.role != ParamRole::Adapter) continue;
    const auto row = std::find_if(family.modules.begin(), family.modules.end(),
                                  [&](const ModuleMapping& x) { return x.ours == spec.module; });
    require(row != family.modules.end(), "PEFT: no " + std::string(family.name) + " name for " + spec.name);
    const ModuleMapping& m = *row;
    const bool a = ends_with(spec.name, "/lora_a");
    const std::string name = layers + std::to_string(spec.layer) + "." + m.theirs + (a ? ".lora_A.weight" : ".lora_B.weight");
    // A fused module's B spans all its blocks' rows (c_attn's q|k|v): this block's rows are ours, A is shared.
    const auto blocks = static_cast<std::int64_t>(
        std::count_if(family.modules.begin(), family.modules.end(),
                      [&](const ModuleMapping& x) { return std::string(x.theirs) == m.theirs; }));
    std::vector<std::int64_t> shape = spec.shape;
    if (!a) shape[0] *= blocks;
    const std::vector<float> values = read(name, shape);
    const auto first = values.begin() + (a || m.block < 0 ? 0 : m.block * spec.numel());
    std::copy(first, first + spec.numel(), p.values() + p.offset(i));
  }
  for (const TensorEntry& e : peft.tensors())
    require(used.count(e.name) > 0, peft.where() + ": unexpected tensor \"" + e.name + "\" (not an adapter of its "
                                                   "config's targets)");
  save_adapter(output, adapted, weights_checksum(base));
}

}  // namespace heptapod
