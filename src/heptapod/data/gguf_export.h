// Writing a decoder-only Heptapod model (gpt2, llama, qwen2 or qwen3 layout) as a GGUF file that llama.cpp
// and other GGUF readers run: the metadata keys and tensor names llama.cpp's converter (convert_hf_to_gguf.py)
// writes, the vocabulary as tokenizer.ggml.* (data/gguf_tokenizer.h), the chat template, and the weight
// matrices in float (F32, F16) or quantized (Q8_0, Q4_0) blocks; llama models' query and key rows permuted
// to llama.cpp's rotary layout (adjacent pairs; qwen2 and qwen3 rotate halves, as Heptapod, and are written
// as they are).
//
// Which GGUF architecture: learned positions, layer norms and a plain GELU network are gpt2 (its fused
// attn_qkv; biases a model lacks written as zeros, since llama.cpp's gpt2 requires them); rotary positions,
// RMSNorm and SwiGLU are qwen3 with query/key norms, qwen2 with biases on q, k and v alone, else llama
// (optional biases; LLaMA 3's rope scaling as the rope_freqs tensor of per-pair divisors). Anything these
// cannot express is an Error naming it: another architecture (encoder-decoder, encoder-only), post-norm,
// sinusoidal or Transformer-XL positions, scaled embeddings, an output bias, dynamic rope scaling, ...
//
// Tensor types, as llama.cpp's converter and llama-quantize choose them: 1-D tensors (norms, biases,
// rope_freqs) and position_embd are F32 in every file; the other matrices take `weights`, except that in a
// Q4_0 file the output layer (the token embedding where it is tied) is Q8_0 (llama-quantize writes Q6_K,
// which Heptapod does not quantize to; Q8_0 is the more precise). A matrix whose rows are not a multiple
// of 32 cannot be Q8_0 or Q4_0 and falls back to F16, and one with a value past float16's range (65504)
// to F32; each fallback is a note.
#pragma once

#include <string>
#include <vector>

#include "heptapod/io/safetensors.h"
#include "heptapod/kernels/gguf_blocks.h"

namespace heptapod {

// The tensor type of the weight matrices written (norms and biases are always F32).
enum class GgufWeightType { F32, F16, Q8_0, Q4_0 };
// "f32", "f16", "q8_0", "q4_0"; parse_gguf_weight_type names `what` and the accepted names in its Error.
const char* gguf_weight_type_name(GgufWeightType type);
GgufWeightType parse_gguf_weight_type(const std::string& name, const std::string& what);

struct GgufExport {
  std::string architecture;        // general.architecture: "gpt2", "llama", "qwen2" or "qwen3"
  std::vector<std::string> notes;  // the tensors that fell back to another type, and why
};

// Writes `model` (a float Heptapod model file of a decoder-only architecture GGUF can name, with its
// vocabulary) to `path`, atomically, GGUF version 3. An Error names what the model has that GGUF cannot hold.
GgufExport write_gguf(const SafetensorsFile& model, GgufWeightType weights, const std::string& path);

}  // namespace heptapod
