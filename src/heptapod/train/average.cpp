// Parameter averaging in double precision.
#include "heptapod/train/average.h"

#include <vector>

#include "heptapod/core/error.h"
#include "heptapod/data/model_vocab.h"

namespace heptapod {

void average_checkpoints(const std::vector<std::string>& paths, const std::string& output) {
  require(!paths.empty(), "average: no model files given");
  const SafetensorsFile first = SafetensorsFile::read(paths[0]);
  auto model = load_model(first);
  const std::string config = to_json(model->config());
  const auto vocabs = read_vocabularies(first, model->config());
  auto& params = model->parameters();
  std::vector<double> sum(params.values(), params.values() + params.size());
  for (std::size_t k = 1; k < paths.size(); ++k) {
    const SafetensorsFile f = SafetensorsFile::read(paths[k]);
    require(to_json(read_model_config(f)) == config,
            "average: " + paths[k] + " has a different model config than " + paths[0]);
    load_parameters(f, params);
    for (std::size_t i = 0; i < sum.size(); ++i) sum[i] += params.values()[i];
  }
  for (std::size_t i = 0; i < sum.size(); ++i) params.values()[i] = static_cast<float>(sum[i] / paths.size());
  save_model(output, *model, {{"averaged_from", std::to_string(paths.size()) + " checkpoints"}},
             vocabs ? vocabulary_tensors(*vocabs) : std::vector<ExtraTensor>{});
}

}  // namespace heptapod
