// The weights of a Hugging Face snapshot directory: model.safetensors, or the shards that
// model.safetensors.index.json names ({"metadata": {...}, "weight_map": {tensor: shard file}}), each checked
// against the index: a missing shard, a shard outside the directory, or a tensor not where the index says is
// an Error naming the index file and the field.
#pragma once

#include <string>
#include <vector>

#include "heptapod/io/safetensors.h"

namespace heptapod {

std::vector<SafetensorsFile> read_checkpoint_files(const std::string& directory);

}  // namespace heptapod
