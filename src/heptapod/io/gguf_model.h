// A GGUF decoder's model (architectures gpt2, llama (also Mistral), qwen2, qwen3): its metadata as the
// ModelConfig the safetensors import of the same checkpoint makes (io/llama_import.h, io/gpt2_import.h), and
// its tensors under Heptapod's parameter names, as a model file holds them (io/model_file.h): F32 tensors and
// the weight matrices point into the GGUF file (a matrix in its ggml type as U8 (out, row bytes)); what must
// change is converted: F16/BF16/quantized norms, biases and untied token tables to F32, GPT-2's fused
// attn_qkv cut into q, k and v rows, llama's q and k rows put back in Hugging Face's order (llama.cpp's
// converter interleaves each head's two halves for its rotation), and LLaMA 3.1's rope_freqs tensor read as the
// llama3 rope scaling it encodes. The vocabulary is data/gguf_vocab.h's.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "heptapod/io/gguf_file.h"
#include "heptapod/io/safetensors.h"
#include "heptapod/model/config.h"

namespace heptapod {

struct GgufModel {
  ModelConfig config;
  std::vector<TensorEntry> in_place;  // tensors read in place: begin and end are offsets in the GGUF file's bytes
  // Tensors made anew (converted to F32, rows reordered), in the order of the parameters.
  struct Owned {
    std::string name;
    DType dtype = DType::F32;
    std::vector<std::int64_t> shape;
    std::string bytes;
  };
  std::vector<Owned> owned;
  std::map<std::string, std::string> ggml_types;  // a U8 tensor's name -> its ggml type ("Q4_K")
  std::string weights;  // model_file.h's "weights": "" for a float model, "bfloat16" or "ggml"
};

// The model config the metadata describes; every message names the file and the key.
ModelConfig gguf_model_config(const GgufFile& gguf);

// The config and the tensors; a missing, unexpected or misshapen tensor, or one of an unknown type, is an
// Error naming it and the file.
GgufModel read_gguf_model(const GgufFile& gguf);

}  // namespace heptapod
