// Writing a decoder-only Heptapod model (gpt2, llama, qwen2 or qwen3 layout) as a GGUF file that llama.cpp
// and other GGUF readers run: the metadata keys and tensor names llama.cpp's converter writes, the
// vocabulary as tokenizer.ggml.*, the chat template, and the weight matrices in float (F32, F16) or
// quantized (Q8_0, Q4_0) blocks; llama models' query and key rows permuted to llama.cpp's rotary layout.
#pragma once

#include <string>

#include "heptapod/io/safetensors.h"
#include "heptapod/kernels/gguf_blocks.h"

namespace heptapod {

// The tensor type of the weight matrices written (norms and biases are always F32).
enum class GgufWeightType { F32, F16, Q8_0, Q4_0 };
// "f32", "f16", "q8_0", "q4_0"; parse_gguf_weight_type names `what` and the accepted names in its Error.
const char* gguf_weight_type_name(GgufWeightType type);
GgufWeightType parse_gguf_weight_type(const std::string& name, const std::string& what);

// Writes `model` (a float Heptapod model file of a decoder-only architecture GGUF can name) to `path`,
// atomically, GGUF version 3. An Error names what the model has that GGUF cannot hold.
void write_gguf(const SafetensorsFile& model, GgufWeightType weights, const std::string& path);

}  // namespace heptapod
