// Checkpoint averaging (the paper averages the last 5 base checkpoints, 20 for big): the parameter-wise
// mean of several model files with the same config.
#pragma once

#include <string>
#include <vector>

namespace heptapod {

// Averages the models in `paths` and writes the result (with the first file's vocabularies) to `output`.
// Throws Error naming a file whose config differs or that does not load.
void average_checkpoints(const std::vector<std::string>& paths, const std::string& output);

}  // namespace heptapod
