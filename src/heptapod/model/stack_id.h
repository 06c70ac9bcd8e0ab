// Which stack of a model something belongs to. The values are part of the dropout stream ids
// (dropout_streams.h), so they never change.
#pragma once

#include <cstdint>

namespace heptapod {

// Encoder: the bidirectional stack (of an encoder-decoder or an encoder-only model); Decoder: the causal stack
// (of an encoder-decoder or a decoder-only model); Shared: an embedding table both stacks read.
enum class Stack : std::uint64_t { Shared = 0, Encoder = 1, Decoder = 2 };

}  // namespace heptapod
