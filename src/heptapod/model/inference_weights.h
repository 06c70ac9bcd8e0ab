// The weights an inference model computes with: which compute type each matrix gets, which parameters may be
// stored in low precision, and packing a matrix (float32, or int8 / bfloat16 as a quantized model file holds
// it) into the WeightMatrix its products read.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <string>

#include "heptapod/kernels/gguf_blocks.h"
#include "heptapod/kernels/packed_weights.h"
#include "heptapod/kernels/weight_matrix.h"
#include "heptapod/model/config.h"
#include "heptapod/model/parameter_layout.h"

namespace heptapod {

using kernels::ComputeType;

// "float32", "int8", "bfloat16", "int4", "q8_0", "ggml" (the last is a file's: parse_compute_type refuses it).
const char* compute_type_name(ComputeType type);
// The type a name means; an Error naming `what` (an option or a file field) and the accepted names otherwise.
ComputeType parse_compute_type(const std::string& name, const std::string& what);

struct InferencePrecision {
  ComputeType type = ComputeType::Float32;  // every linear layer's products
  // The output projection, and the embeddings tied to it, stay float32 whatever `type` is.
  bool float_output = false;
};

// One weight matrix (out, in) as the model holds it before packing: float32 row-major (the parameters), or
// as a low-precision model file stores it. Pointers may be unaligned (file data): they are read by memcpy.
struct StoredMatrix {
  ComputeType type = ComputeType::Float32;
  const void* values = nullptr;  // (out, in) float, int8 or bfloat16 bits; Int4 and Ggml: out rows of blocks
  const void* scales = nullptr;  // (out) float: int8's per-row scales (W = values * scale)
  int out = 0, in = 0;
  kernels::GgmlType blocks = kernels::GgmlType::F32;  // Int4, Int8Blocks, Ggml: the rows' block type
};
// Low-precision matrices by parameter name (".../weight").
using StoredMatrices = std::map<std::string, StoredMatrix>;

// Whether a parameter of a model with this config may be stored in low precision: the weight matrices (the
// layers' and the output projection) and an embedding tied to the output projection; not biases, norms, an
// embedding table that is only looked up, or an encoder's heads (which compute in float32).
bool is_low_precision_parameter(const ModelConfig& config, const ParamSpec& spec);

// Packs `parts` (one input width; stacked, their rows one after the other) for products of `type`: float32 in
// the GEMM's layout, int8 quantized per row, bfloat16 rounded, int4 in Q4_0 blocks of 32 (Q8_0 when
// `eight_bit`: what int4 models keep in 8 bits), Int8Blocks in Q8_0 blocks, Ggml in the blocks each part is
// stored in (parts stored in blocks keep them under every block type). A part stored in another type is
// converted (a low-precision one through float32). Block rows whose width is not a multiple of 32 compute in
// int8; a Ggml matrix with no part in blocks in the float type it is stored in. Copies into
// `storage` when it has room.
std::unique_ptr<kernels::WeightMatrix> pack_weights(ComputeType type, std::span<const StoredMatrix> parts,
                                                    kernels::PackedWeightsStorage* storage, bool eight_bit = false);

// The block type a float matrix is quantized to for `type` (Int4 or Int8Blocks): Q4_0 for int4's matrices,
// Q8_0 for q8_0's and for those int4 keeps in 8 bits (`eight_bit`: the output projection).
kernels::GgmlType block_type(ComputeType type, bool eight_bit);

}  // namespace heptapod
