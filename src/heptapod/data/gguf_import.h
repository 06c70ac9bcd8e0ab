// GGUF files as Heptapod model files: a GGUF decoder (architectures gpt2, llama, qwen2, qwen3) read as the
// model file `heptapod convert model.gguf -o model.htp` would write, so every command that opens a model
// file opens a GGUF file the same way (open_model_file). The metadata becomes the model config and the
// tensors the parameters (io/gguf_model.h), the tokenizer.ggml.* keys the vocabulary and
// tokenizer.chat_template the chat template (data/gguf_vocab.h); the weight matrices keep their ggml block
// types ("weights": "ggml", io/model_file.h), read in place from the mapped file. Unknown architectures, keys
// the mapping needs but cannot read, and unknown tensor types are Errors naming them.
#pragma once

#include <string>

#include "heptapod/io/gguf_file.h"
#include "heptapod/io/safetensors.h"

namespace heptapod {

// Whether the file at `path` begins with GGUF's magic bytes (false for a file that cannot be read).
bool is_gguf_path(const std::string& path);

// The GGUF file as a Heptapod model file (format version 1 when every weight is F32; else 2, weights
// "bfloat16" or "ggml"); `where` in its messages is the GGUF file's path. It keeps the GGUF file's bytes alive.
SafetensorsFile gguf_model_file(const GgufFile& gguf);

// A model file by path: a GGUF file through gguf_model_file, anything else SafetensorsFile::read.
SafetensorsFile open_model_file(const std::string& path);

}  // namespace heptapod
