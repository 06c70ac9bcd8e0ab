// A LoRA model's starting values: its base's weights from the model file it adapts (--init), in the precision
// the file holds them (matrices stored in low precision stay so, frozen: Transformer::hold_frozen_weights),
// and fresh adapters (A random, B zero, so that the model first computes as its base) and a new head. What
// `heptapod train --lora` and the benchmarks start from.
#pragma once

#include <cstdint>
#include <string>

#include "heptapod/io/safetensors.h"
#include "heptapod/model/transformer.h"

namespace heptapod {

// Fills `model` (whose config is the base's with LoRA adapters, and with another head when `new_head`: then
// the base's body alone is read, as load_body_parameters reads it) from `base`; the tensors the file does not
// give are initialised from `seed` as a fresh model's would be. Returns the compute type name the base's
// matrices are held in ("float32", "int8", "bfloat16", "int4", "q8_0" or "ggml").
std::string load_lora_base(Transformer<float>& model, const SafetensorsFile& base, bool new_head, std::uint64_t seed);

}  // namespace heptapod
