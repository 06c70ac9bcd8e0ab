// Parameter averaging in double precision.
#include "heptapod/train/average.h"

#include <vector>

#include "heptapod/core/error.h"
#include "heptapod/data/model_vocab.h"
#include "heptapod/io/adapter_file.h"
#include "heptapod/train/checkpoint.h"

namespace heptapod {

void average_checkpoints(const std::vector<std::string>& paths, const std::string& output) {
  require(!paths.empty(), "average: no model files given");
  const SafetensorsFile first = SafetensorsFile::read(paths[0]);
  // A LoRA run's checkpoints hold their trained tensors alone: those are averaged, into an adapter file.
  const bool adapters = is_adapter_file(first);
  auto trained = [](const ParamSpec& spec) { return !spec.frozen; };
  const std::string base_checksum = adapters ? read_adapter_info(first).base_checksum : "";
  std::unique_ptr<Transformer<float>> model;
  if (adapters) {
    model = std::make_unique<Transformer<float>>(checkpoint_config(first));
    load_selected_parameters<float>(first, model->parameters(), trained);
  } else {
    model = load_model(first);
  }
  const std::string config = to_json(model->config());
  auto& params = model->parameters();
  const std::size_t begin = adapters ? params.trained_offset() : 0;  // the averaged values: [begin, size)
  std::vector<double> sum(params.values() + begin, params.values() + params.size());
  for (std::size_t k = 1; k < paths.size(); ++k) {
    const SafetensorsFile f = SafetensorsFile::read(paths[k]);
    require(is_adapter_file(f) == adapters && to_json(checkpoint_config(f)) == config,
            "average: " + paths[k] + " has a different model config than " + paths[0]);
    if (adapters) {
      require(read_adapter_info(f).base_checksum == base_checksum,
              "average: " + paths[k] + " adapts another base model than " + paths[0]);
      load_selected_parameters<float>(f, params, trained);
    } else {
      load_parameters(f, params);
    }
    for (std::size_t i = 0; i < sum.size(); ++i) sum[i] += params.values()[begin + i];
  }
  for (std::size_t i = 0; i < sum.size(); ++i) params.values()[begin + i] = static_cast<float>(sum[i] / paths.size());
  const std::map<std::string, std::string> averaged = {{"averaged_from", std::to_string(paths.size()) + " checkpoints"}};
  if (adapters) {
    std::vector<ExtraTensor> labels;  // a classifier's class names: its head is the adapter file's
    if (const TensorEntry* e = first.find("extra/labels")) labels.push_back({e->name, e->dtype, e->shape, first.data(*e)});
    save_adapter(output, *model, base_checksum, labels, averaged);
    return;
  }
  const auto vocabs = read_vocabularies(first, model->config());
  save_model(output, *model, averaged, vocabs ? vocabulary_tensors(*vocabs) : std::vector<ExtraTensor>{});
}

}  // namespace heptapod
