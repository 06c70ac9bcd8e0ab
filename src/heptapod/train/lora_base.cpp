// Loading a LoRA run's base.
#include "heptapod/train/lora_base.h"

#include "heptapod/core/error.h"
#include "heptapod/io/model_file.h"
#include "heptapod/model/initialize.h"

namespace heptapod {

std::string load_lora_base(Transformer<float>& model, const SafetensorsFile& base, bool new_head, std::uint64_t seed) {
  require(model.config().lora.enabled(), "load_lora_base: the model has no LoRA adapters");
  auto from_file = [&](const ParamSpec& spec) {
    return new_head ? is_body_parameter(base, spec) : spec.role != ParamRole::Adapter;
  };
  initialize_parameters(model.parameters(), model.config(), seed, [&](const ParamSpec& spec) { return !from_file(spec); });
  const StoredMatrices stored = load_stored_parameters(base, model, from_file);
  model.hold_frozen_weights(stored);
  if (stored.empty()) return compute_type_name(ComputeType::Float32);
  release_stored_pages(base, stored);  // copied into the held matrices
  return compute_type_name(stored_compute_type(base));
}

}  // namespace heptapod
