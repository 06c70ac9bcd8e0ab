// Writing the GGUF container (docs/models.md section 4; the reader is io/gguf_file.h): version 3,
// little-endian, the typed key/value metadata in the order it was set, the tensor table (dims innermost
// first) and each tensor's bytes at an offset aligned to 32 (general.alignment's default). What the keys
// and tensors mean (a model's mapping to llama.cpp's names) is for the exporters above.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "heptapod/io/gguf_file.h"

namespace heptapod {

class GgufWriter {
 public:
  // Metadata in the order set; a key set twice is an Error naming it.
  void set(const std::string& key, GgufValue value);
  // A tensor of `shape` (PyTorch order: outermost first) stored as `type`: `bytes` are its ggml_row_bytes
  // per row (checked). A name set twice, or longer than GGUF's 64 bytes, is an Error naming it.
  void add_tensor(const std::string& name, std::vector<std::int64_t> shape, kernels::GgmlType type, std::string bytes);
  // The whole file.
  void write(std::ostream& out) const;

  // Value makers, each with GGUF's type.
  static GgufValue u32(std::uint32_t v);
  static GgufValue f32(float v);
  static GgufValue boolean(bool v);
  static GgufValue string(std::string v);
  static GgufValue strings(std::vector<std::string> items);
  static GgufValue f32s(const std::vector<float>& items);
  static GgufValue i32s(const std::vector<std::int32_t>& items);

 private:
  struct Tensor {
    std::string name;
    std::vector<std::int64_t> shape;  // (n_dims,) outermost first
    kernels::GgmlType type;
    std::string bytes;
  };
  std::vector<std::pair<std::string, GgufValue>> metadata_;
  std::vector<Tensor> tensors_;
};

}  // namespace heptapod
