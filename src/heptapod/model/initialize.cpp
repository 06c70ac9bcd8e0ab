// Deterministic parameter initialisation from a seed.
#include "heptapod/model/initialize.h"

#include <cmath>

#include "heptapod/core/random.h"

namespace heptapod {

template <typename T>
void initialize_parameters(ParameterStore<T>& params, const ModelConfig& config, std::uint64_t seed) {
  Rng rng(seed);
  for (std::size_t i = 0; i < params.specs().size(); ++i) {
    const ParamSpec& spec = params.specs()[i];
    T* v = params.values() + params.offset(i);
    const auto n = spec.numel();
    switch (spec.init) {
      case ParamSpec::Init::Xavier: {
        const double bound = std::sqrt(6.0 / static_cast<double>(spec.shape[0] + spec.shape[1]));
        for (std::int64_t k = 0; k < n; ++k) v[k] = static_cast<T>((2.0 * rng.uniform() - 1.0) * bound);
        break;
      }
      case ParamSpec::Init::Embedding: {
        const double std_dev = 1.0 / std::sqrt(static_cast<double>(config.d_model));
        for (std::int64_t k = 0; k < n; ++k) v[k] = static_cast<T>(rng.normal() * std_dev);
        break;
      }
      case ParamSpec::Init::Zero:
        for (std::int64_t k = 0; k < n; ++k) v[k] = T(0);
        break;
      case ParamSpec::Init::KaimingUniform: {
        const double bound = 1.0 / std::sqrt(static_cast<double>(spec.shape[1]));
        for (std::int64_t k = 0; k < n; ++k) v[k] = static_cast<T>((2.0 * rng.uniform() - 1.0) * bound);
        break;
      }
      case ParamSpec::Init::One:
        for (std::int64_t k = 0; k < n; ++k) v[k] = T(1);
        break;
    }
  }
}

template void initialize_parameters<float>(ParameterStore<float>&, const ModelConfig&, std::uint64_t);
template void initialize_parameters<double>(ParameterStore<double>&, const ModelConfig&, std::uint64_t);

}  // namespace heptapod
