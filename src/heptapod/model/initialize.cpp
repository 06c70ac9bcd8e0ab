// Deterministic parameter initialisation from a seed.
#include "heptapod/model/initialize.h"

#include <cmath>
#include <vector>

#include "heptapod/core/random.h"

namespace heptapod {

template <typename T>
void initialize_parameters(ParameterStore<T>& params, const ModelConfig& config, std::uint64_t seed,
                           const std::function<bool(const ParamSpec&)>& which) {
  Rng rng(seed);
  constexpr std::int64_t kDiscarded = 4096;  // a power of two
  std::vector<T> discarded(kDiscarded);  // a tensor left out still draws its values, into here, a chunk at a time
  for (std::size_t i = 0; i < params.specs().size(); ++i) {
    const ParamSpec& spec = params.specs()[i];
    const bool selected = !which || which(spec);
    T* v = selected ? params.values() + params.offset(i) : discarded.data();
    const std::int64_t n = spec.numel(), mask = selected ? ~std::int64_t(0) : kDiscarded - 1;
    // Value k of the tensor, from gen().
    auto fill = [&](auto gen) {
      for (std::int64_t k = 0; k < n; ++k) v[k & mask] = static_cast<T>(gen());
    };
    switch (spec.init) {
      case ParamSpec::Init::Xavier: {
        const double bound = std::sqrt(6.0 / static_cast<double>(spec.shape[0] + spec.shape[1]));
        fill([&] { return (2.0 * rng.uniform() - 1.0) * bound; });
        break;
      }
      case ParamSpec::Init::Embedding: {
        const double std_dev = 1.0 / std::sqrt(static_cast<double>(config.d_model));
        fill([&] { return rng.normal() * std_dev; });
        break;
      }
      case ParamSpec::Init::Zero:
        if (selected) fill([] { return 0.0; });
        break;
      case ParamSpec::Init::KaimingUniform: {
        const double bound = 1.0 / std::sqrt(static_cast<double>(spec.shape[1]));
        fill([&] { return (2.0 * rng.uniform() - 1.0) * bound; });
        break;
      }
      case ParamSpec::Init::One:
        if (selected) fill([] { return 1.0; });
        break;
    }
  }
}

template void initialize_parameters<float>(ParameterStore<float>&, const ModelConfig&, std::uint64_t,
                                          const std::function<bool(const ParamSpec&)>&);
template void initialize_parameters<double>(ParameterStore<double>&, const ModelConfig&, std::uint64_t,
                                           const std::function<bool(const ParamSpec&)>&);

}  // namespace heptapod
