// Reading a snapshot's safetensors files, sharded or whole.
#include "heptapod/io/hf_checkpoint.h"

#include <filesystem>
#include <map>
#include <set>

#include "heptapod/core/error.h"
#include "heptapod/io/atomic_file.h"
#include "heptapod/io/hf_config.h"

namespace heptapod {

std::vector<SafetensorsFile> read_checkpoint_files(const std::string& dir) {
  const std::string whole = dir + "/model.safetensors", index_path = dir + "/model.safetensors.index.json";
  if (!std::filesystem::exists(index_path)) {
    require(std::filesystem::exists(whole),
            dir + ": holds neither model.safetensors nor model.safetensors.index.json (PyTorch .bin checkpoints are "
                  "not read: save the model with safe_serialization)");
    std::vector<SafetensorsFile> files;
    files.push_back(SafetensorsFile::read(whole));
    return files;
  }
  const nlohmann::json index = parse_config_object(read_file(index_path), index_path);
  require(index.contains("weight_map") && index["weight_map"].is_object() && !index["weight_map"].empty(),
          index_path + ": \"weight_map\" must be an object of tensor names and their shard files");
  std::map<std::string, std::set<std::string>> shards;  // shard file -> the tensors the index puts there
  for (const auto& [tensor, shard] : index["weight_map"].items()) {
    require(shard.is_string(), index_path + ": weight_map[\"" + tensor + "\"] must be a file name");
    const std::string name = shard.get<std::string>();
    require(!name.empty() && name.find('/') == std::string::npos && name.find('\\') == std::string::npos &&
                name != "." && name != "..",
            index_path + ": weight_map[\"" + tensor + "\"] names \"" + name + "\", not a file of the directory");
    shards[name].insert(tensor);
  }
  std::vector<SafetensorsFile> files;
  for (const auto& [name, tensors] : shards) {
    const std::string path = dir + "/" + name;
    require(std::filesystem::exists(path), index_path + ": weight_map names shard \"" + name + "\" (tensor \"" +
                                               *tensors.begin() + "\"), which is missing");
    files.push_back(SafetensorsFile::read(path));
    for (const std::string& tensor : tensors)
      require(files.back().find(tensor) != nullptr,
              index_path + ": weight_map puts tensor \"" + tensor + "\" in " + name + ", which does not hold it");
  }
  return files;
}

}  // namespace heptapod
