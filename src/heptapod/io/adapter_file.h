// LoRA adapter files: what a LoRA fine-tuning trained (its adapters, and a classifier head trained beside them)
// in a small safetensors file of its own that names its base model by a checksum of the base file's weights,
// so that one base serves many adapters. Loaded over that base (every front end's --adapter), folded into it
// (heptapod merge), described by heptapod info.
#pragma once

#include <memory>
#include <string>

#include "heptapod/io/model_file.h"
#include "heptapod/io/safetensors.h"
#include "heptapod/model/transformer.h"

namespace heptapod {

inline constexpr const char* kAdapterFormat = "heptapod-adapter";
inline constexpr int kAdapterFormatVersion = 1;

// The checksum of a model file's weights: every tensor but the "extra/" ones (vocabularies, optimiser state),
// by name, as stored (any precision), as 16 hex digits.
std::string weights_checksum(const SafetensorsFile& file);

// Writes the trained tensors of `model` (whose config has LoRA adapters) to `path`, atomically, with the
// model's config, its base's checksum (weights_checksum of the base file) and `extra_tensors` (named "extra/...":
// a new classifier head's class names).
// extra_metadata: keys other than format, format_version, config and base_checksum (a checkpoint's training
// state).
void save_adapter(const std::string& path, const Transformer<float>& model, const std::string& base_checksum,
                  const std::vector<ExtraTensor>& extra_tensors = {},
                  const std::map<std::string, std::string>& extra_metadata = {});

// Whether `file` is an adapter file (its metadata "format").
bool is_adapter_file(const SafetensorsFile& file);

struct AdapterInfo {
  ModelConfig config;         // of the adapted model: the base's (a new head's classes) and the adapters'
  std::string base_checksum;  // weights_checksum of the base file
  long long parameters = 0;   // the tensors' values
};
// Reads an adapter file's metadata, validating format, version and config (an Error names the file).
AdapterInfo read_adapter_info(const SafetensorsFile& adapter);

// The model of base file `base` with the adapters of `adapter` over it, not packed; a base held in low
// precision gives its dequantized weights (as float32, whole: what folding and merging need). Adapters made
// over another base (the checksums differ) are an Error naming both files.
std::unique_ptr<Transformer<float>> load_adapted_model(const SafetensorsFile& base, const SafetensorsFile& adapter);

// The model of the adapters of `adapter` over `base`, the model of base file `base_file` packed for inference
// (any precision), whose weights it shares (Transformer's constructor over a base): packed, its adapters
// unmerged beside the base's matrices, never folded. The same checks as load_adapted_model's.
std::unique_ptr<Transformer<float>> load_adapter_over(std::shared_ptr<const Transformer<float>> base,
                                                      const SafetensorsFile& base_file, const SafetensorsFile& adapter);

// Writes base + adapter with the adapters folded into the weights to `path` (atomically): an ordinary float32
// model file (of a low-precision base's dequantized weights), with the base's vocabularies, metadata and other extra tensors.
void merge_adapter(const SafetensorsFile& base, const SafetensorsFile& adapter, const std::string& path);

}  // namespace heptapod
