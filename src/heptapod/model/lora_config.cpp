// The LoRA targets' names and the modules they name.
#include "heptapod/model/lora_config.h"

#include <algorithm>
#include <cmath>

#include "heptapod/core/error.h"
#include "heptapod/model/config.h"

namespace heptapod {

const char* lora_target_names() { return "q, k, v, o, xq, xk, xv, xo, ffn"; }

std::vector<Module> lora_target_modules(const std::string& target, bool gated_ffn, const std::string& where) {
  if (target == "q") return {Module::SelfAttnQuery};
  if (target == "k") return {Module::SelfAttnKey};
  if (target == "v") return {Module::SelfAttnValue};
  if (target == "o") return {Module::SelfAttnOutput};
  if (target == "xq") return {Module::CrossAttnQuery};
  if (target == "xk") return {Module::CrossAttnKey};
  if (target == "xv") return {Module::CrossAttnValue};
  if (target == "xo") return {Module::CrossAttnOutput};
  if (target == "ffn") {
    if (gated_ffn) return {Module::FfnIn, Module::FfnGate, Module::FfnOut};
    return {Module::FfnIn, Module::FfnOut};
  }
  throw Error(where + ": unknown LoRA target \"" + target + "\" (the targets are " + lora_target_names() + ")");
}

std::string lora_target_of(Module module, bool gated_ffn) {
  for (const char* target : {"q", "k", "v", "o", "xq", "xk", "xv", "xo", "ffn"}) {
    const std::vector<Module> modules = lora_target_modules(target, gated_ffn, "LoRA");
    if (std::find(modules.begin(), modules.end(), module) != modules.end()) return target;
  }
  return "";
}

std::vector<Module> lora_modules(const LoraConfig& lora, bool gated_ffn) {
  std::vector<Module> modules;
  for (const std::string& t : lora.targets)
    for (const Module m : lora_target_modules(t, gated_ffn, "LoRA targets"))
      if (std::find(modules.begin(), modules.end(), m) == modules.end()) modules.push_back(m);
  return modules;
}

std::pair<int, int> lora_matrix_shape(Module module, const ModelConfig& c) {
  const int C = c.d_model, Q = c.query_width(), K = c.key_value_width(), F = c.d_ff;
  switch (module) {
    case Module::SelfAttnQuery:
    case Module::CrossAttnQuery: return {Q, C};
    case Module::SelfAttnKey:
    case Module::SelfAttnValue:
    case Module::CrossAttnKey:
    case Module::CrossAttnValue: return {K, C};
    case Module::SelfAttnOutput:
    case Module::CrossAttnOutput: return {C, Q};
    case Module::FfnIn:
    case Module::FfnGate: return {F, C};
    case Module::FfnOut: return {C, F};
    default: throw Error("LoRA: " + module_name(module, Stack::Decoder, 0) + " is no target of adapters");
  }
}

void validate_lora(const ModelConfig& c) {
  const LoraConfig& l = c.lora;
  require(l.rank >= 0, "LoRA: the rank must not be negative");
  if (!l.enabled()) return;
  require(l.alpha > 0 && std::isfinite(l.alpha), "LoRA: alpha must be positive, got " + std::to_string(l.alpha));
  require(l.dropout >= 0 && l.dropout < 1, "LoRA: dropout must be in [0, 1), got " + std::to_string(l.dropout));
  require(!l.targets.empty(), std::string("LoRA: no targets (the targets are ") + lora_target_names() + ")");
  for (std::size_t i = 0; i < l.targets.size(); ++i) {
    const std::string& t = l.targets[i];
    lora_target_modules(t, c.gated_ffn, "LoRA");  // an unknown name throws
    require(std::find(l.targets.begin(), l.targets.begin() + i, t) == l.targets.begin() + i,
            "LoRA: target \"" + t + "\" given twice");
    require(t[0] != 'x' || c.architecture == Architecture::EncoderDecoder,
            "LoRA: target \"" + t + "\" names the cross-attention, which only an encoder-decoder model has");
    for (const Module m : lora_target_modules(t, c.gated_ffn, "LoRA")) {
      const auto [out, in] = lora_matrix_shape(m, c);
      require(l.rank <= std::min(out, in), "LoRA: rank " + std::to_string(l.rank) + " is above the size of target " +
                                               t + "'s matrix (" + std::to_string(out) + " x " + std::to_string(in) +
                                               ")");
    }
  }
}

}  // namespace heptapod
