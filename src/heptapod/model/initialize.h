// Parameter initialisation: Xavier-uniform linear weights (as nn.Transformer), N(0, d_model^-0.5)
// embeddings (the usual choice for tied embeddings scaled by sqrt(d_model)), zero biases, unit norm gains.
#pragma once

#include <cstdint>
#include <functional>

#include "heptapod/model/config.h"
#include "heptapod/model/parameter_store.h"

namespace heptapod {

// `which` selects the tensors to fill (empty: all); the others still draw their values (discarded), so each
// selected tensor gets what a full initialisation gives it, and their memory is never touched (a frozen base
// that a file fills, or holds in low precision).
template <typename T>
void initialize_parameters(ParameterStore<T>& params, const ModelConfig& config, std::uint64_t seed,
                           const std::function<bool(const ParamSpec&)>& which = {});

}  // namespace heptapod
