// Rotary position embeddings (RoPE, Su et al. 2021) in Hugging Face's layout: each head's first `dims` columns
// are rotated in pairs (i, i + dims/2) ("rotate_half") by the angle position * inv_freq[i], after the query
// and key projections, so that a score depends on the distance between the two rows alone. The frequencies
// follow the rope_scaling types LLaMA-family checkpoints use: none, linear, dynamic (NTK) and llama3's remap.
// Angles are computed in double from the exact frequencies, whatever the type the model computes in.
#pragma once

#include <string>
#include <vector>

#include "heptapod/core/arena.h"

namespace heptapod {

enum class RopeScaling { None, Linear, Dynamic, Llama3 };

// "none", "linear", "dynamic", "llama3"; anything else is an Error naming `where`.
const char* rope_scaling_name(RopeScaling scaling);
RopeScaling rope_scaling_from_name(const std::string& name, const std::string& where);

struct RotaryConfig {
  double theta = 10000.0;  // the base: inv_freq[i] = theta^(-2i / dims)
  int dims = 0;            // rotated columns per head, even (0: the whole head)
  RopeScaling scaling = RopeScaling::None;
  double factor = 1.0;  // linear: positions divided by it; dynamic, llama3: their factor
  // llama3: wavelengths below original_positions / high_freq_factor keep their frequency, those above
  // original_positions / low_freq_factor are divided by factor, those between are blended.
  double low_freq_factor = 1.0, high_freq_factor = 4.0;
  // llama3: the context the model was first trained for; dynamic: the length past which theta grows.
  int original_positions = 0;
};

// Throws Error naming the first invalid field (`where` prefixes it); head_dim: the model's columns per head.
void validate(const RotaryConfig& rope, int head_dim, const std::string& where);

// The columns rotated per head: rope.dims, or the whole head.
inline int rotary_dims(const RotaryConfig& rope, int head_dim) { return rope.dims > 0 ? rope.dims : head_dim; }

// inv_freq (R/2), R = rotary_dims(): the frequencies for a sequence of seq_len positions (only dynamic scaling
// depends on it: theta grows once seq_len passes original_positions).
std::vector<double> rotary_frequencies(const RotaryConfig& rope, int head_dim, int seq_len);

// The cosines and sines of one pass's rows: row n at position[n] of a sequence of length[n] positions (the
// length chooses dynamic scaling's frequencies), (rows, R/2) each.
template <typename T>
struct RotaryAngles {
  const T* cos = nullptr;  // (rows, R/2)
  const T* sin = nullptr;  // (rows, R/2)
  int rows = 0;
  int half = 0;  // R/2
};

// Angles for `rows` rows carved from the arena. positions, lengths: (rows).
template <typename T>
RotaryAngles<T> rotary_angles(const RotaryConfig& rope, int head_dim, const int* positions, const int* lengths,
                              int rows, Arena& arena);

// x: (rows, ld), `heads` heads of head_dim columns from column 0 of each row: each head's first 2 * half
// columns rotated in place by row n's angles (inverse: by their negatives, which is also the rotation's
// backward pass).
template <typename T>
void rotate_heads(const RotaryAngles<T>& angles, T* x, long ld, int heads, int head_dim, bool inverse = false);

}  // namespace heptapod
