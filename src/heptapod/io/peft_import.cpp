// PEFT adapters: adapter_config.json to a LoRA config, PEFT's tensor names to Heptapod's.
#include "heptapod/io/peft_import.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <set>

#include "heptapod/core/error.h"
#include "heptapod/io/adapter_file.h"
#include "heptapod/io/atomic_file.h"
#include "heptapod/io/llama_import.h"
#include "heptapod/io/model_file.h"

namespace heptapod {

namespace {

using nlohmann::json;

// PEFT's target module names and the LoRA target each is part of (ffn: all three of gate, up and down).
const std::map<std::string, std::string> kTargets = {{"q_proj", "q"},         {"k_proj", "k"},       {"v_proj", "v"},
                                                     {"o_proj", "o"},         {"gate_proj", "ffn"}, {"up_proj", "ffn"},
                                                     {"down_proj", "ffn"}};

// adapter_config.json as a LoRA config (rank, alpha, targets, dropout); what plain LoRA does not do is refused.
LoraConfig peft_lora_config(const std::string& path) {
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
  refuse_if("fan_in_fan_out", truthy("fan_in_fan_out"), "(Conv1D layouts)");
  refuse_if("rank_pattern", non_empty("rank_pattern"), "(per-module ranks)");
  refuse_if("alpha_pattern", non_empty("alpha_pattern"), "(per-module alphas)");
  refuse_if("modules_to_save", non_empty("modules_to_save"), "(fully trained modules)");
  refuse_if("layers_to_transform", non_empty("layers_to_transform"), "(some layers alone)");
  refuse_if("bias", j.contains("bias") && j.at("bias") != "none", "(trained biases)");
  require(j.contains("r") && j.at("r").is_number_integer() && j.at("r").get<long>() > 0 &&
              j.at("r").get<long>() < (1L << 30),
          path + ": \"r\" must be a positive integer");
  require(j.contains("lora_alpha") && j.at("lora_alpha").is_number(), path + ": \"lora_alpha\" must be a number");
  require(j.contains("target_modules") && j.at("target_modules").is_array(),
          path + ": \"target_modules\" must be a list of module names (a pattern is not converted)");
  LoraConfig lora;
  lora.rank = j.at("r").get<int>();
  lora.alpha = j.at("lora_alpha").get<float>();
  if (j.contains("lora_dropout") && j.at("lora_dropout").is_number()) lora.dropout = j.at("lora_dropout").get<float>();
  lora.targets.clear();
  std::set<std::string> modules;
  for (const json& m : j.at("target_modules")) {
    require(m.is_string() && kTargets.count(m.get<std::string>()) > 0,
            path + ": target module " + m.dump() + " is not one Heptapod adapts (q_proj, k_proj, v_proj, o_proj, "
                                                   "gate_proj, up_proj, down_proj)");
    modules.insert(m.get<std::string>());
    const std::string& target = kTargets.at(m.get<std::string>());
    if (std::find(lora.targets.begin(), lora.targets.end(), target) == lora.targets.end()) lora.targets.push_back(target);
  }
  const bool ffn = std::find(lora.targets.begin(), lora.targets.end(), "ffn") != lora.targets.end();
  require(!ffn || (modules.count("gate_proj") && modules.count("up_proj") && modules.count("down_proj")),
          path + ": the feed-forward network's gate_proj, up_proj and down_proj are adapted together or not at all");
  return lora;
}

// PEFT's name of the A or B tensor of `module` in layer `layer`.
std::string peft_name(Module module, int layer, Leaf leaf) {
  for (const ModuleMapping& m : llama_layer_modules())
    if (m.ours == module)
      return "base_model.model.model.layers." + std::to_string(layer) + "." + m.theirs +
             (leaf == Leaf::LoraA ? ".lora_A.weight" : ".lora_B.weight");
  throw Error(std::string("PEFT: no LLaMA name for module ") + module_name(module, Stack::Decoder, layer));
}

}  // namespace

void convert_peft_adapter(const std::string& directory, const SafetensorsFile& base, const std::string& output) {
  namespace fs = std::filesystem;
  require(fs::is_directory(directory), directory + ": not a directory (PEFT adapters are read from a directory)");
  ModelConfig config = read_model_config(base);
  require(config.architecture == Architecture::DecoderOnly && config.gated_ffn && config.rotary,
          base.where() + ": PEFT adapters convert over a LLaMA-family model (heptapod convert --from llama)");
  config.lora = peft_lora_config((fs::path(directory) / "adapter_config.json").string());
  try {
    validate(config);
  } catch (const Error& e) {
    throw Error(directory + "/adapter_config.json over " + base.where() + ": " + e.what());
  }
  const SafetensorsFile peft = SafetensorsFile::read((fs::path(directory) / "adapter_model.safetensors").string());
  Transformer<float> adapted(config);
  ParameterStore<float>& p = adapted.parameters();
  std::set<std::string> used;
  for (std::size_t i = 0; i < p.specs().size(); ++i) {
    const ParamSpec& spec = p.specs()[i];
    if (spec.role != ParamRole::Adapter) continue;
    const bool a = spec.name.size() > 7 && spec.name.compare(spec.name.size() - 7, 7, "/lora_a") == 0;
    const std::string name = peft_name(spec.module, spec.layer, a ? Leaf::LoraA : Leaf::LoraB);
    const TensorEntry* e = peft.find(name);
    require(e != nullptr, peft.where() + ": missing tensor \"" + name + "\"");
    require(e->shape == spec.shape, peft.where() + ": tensor \"" + name + "\" has shape " + shape_text(e->shape) +
                                        ", the base model needs " + shape_text(spec.shape));
    const std::vector<float> values = peft.floats<float>(name);
    require(std::all_of(values.begin(), values.end(), [](float v) { return std::isfinite(v); }),
            peft.where() + ": tensor \"" + name + "\" holds a non-finite value");
    std::copy(values.begin(), values.end(), p.values() + p.offset(i));
    used.insert(name);
  }
  for (const TensorEntry& e : peft.tensors())
    require(used.count(e.name) > 0, peft.where() + ": unexpected tensor \"" + e.name + "\" (not an adapter of its "
                                                   "config's targets)");
  save_adapter(output, adapted, weights_checksum(base));
}

}  // namespace heptapod
