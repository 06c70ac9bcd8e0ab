// Parameter initialisation: Xavier-uniform linear weights (as nn.Transformer), N(0, d_model^-0.5)
// embeddings (the usual choice for tied embeddings scaled by sqrt(d_model)), zero biases, unit norm gains.
#pragma once

#include <cstdint>

#include "heptapod/model/config.h"
#include "heptapod/model/parameter_store.h"

namespace heptapod {

template <typename T>
void initialize_parameters(ParameterStore<T>& params, const ModelConfig& config, std::uint64_t seed);

}  // namespace heptapod
