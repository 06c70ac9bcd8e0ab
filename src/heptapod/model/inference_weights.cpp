// Compute types by name, the parameters that may be low precision, and packing stored matrices.
#include "heptapod/model/inference_weights.h"

#include <cstring>
#include <vector>

#include "heptapod/core/error.h"
#include "heptapod/kernels/block_weights.h"
#include "heptapod/kernels/low_precision_weights.h"
#include "heptapod/model/parameter_layout.h"

namespace heptapod {

namespace {

// The types a user may ask for by name; Ggml (as a GGUF file stores each matrix) is a file's, not a choice.
constexpr std::pair<ComputeType, const char*> kNames[] = {{ComputeType::Float32, "float32"},
                                                          {ComputeType::Int8, "int8"},
                                                          {ComputeType::BFloat16, "bfloat16"},
                                                          {ComputeType::Int4, "int4"},
                                                          {ComputeType::Int8Blocks, "q8_0"}};

// Rows of `m` in float32: rows (m.out, m.in) at `out`.
void to_float(const StoredMatrix& m, float* out) {
  const std::size_t n = static_cast<std::size_t>(m.out) * m.in;
  switch (m.type) {
    case ComputeType::Float32:
      std::memcpy(out, m.values, n * sizeof(float));
      return;
    case ComputeType::BFloat16: {
      std::vector<std::uint16_t> bits(n);  // (out, in)
      std::memcpy(bits.data(), m.values, n * sizeof(std::uint16_t));
      for (std::size_t i = 0; i < n; ++i) out[i] = kernels::from_bfloat16(bits[i]);
      return;
    }
    case ComputeType::Int8: {
      const auto* values = static_cast<const std::int8_t*>(m.values);
      for (int o = 0; o < m.out; ++o) {
        float scale;
        std::memcpy(&scale, static_cast<const std::byte*>(m.scales) + o * sizeof(float), sizeof(float));
        for (int i = 0; i < m.in; ++i) out[static_cast<std::size_t>(o) * m.in + i] = values[static_cast<std::size_t>(o) * m.in + i] * scale;
      }
      return;
    }
    case ComputeType::Int4:
    case ComputeType::Int8Blocks:
    case ComputeType::Ggml: {
      const long row_bytes = kernels::ggml_row_bytes(m.blocks, m.in);
      for (int o = 0; o < m.out; ++o)
        kernels::dequantize_row(m.blocks, static_cast<const std::byte*>(m.values) + o * row_bytes,
                                out + static_cast<std::size_t>(o) * m.in, m.in);
      return;
    }
  }
}

bool is_blocks(const StoredMatrix& m) {
  return m.type == ComputeType::Int4 || m.type == ComputeType::Int8Blocks || m.type == ComputeType::Ggml;
}

// The products of block weights for `parts`: parts stored in blocks keep them; the others are quantized from
// float32 to `target` (Q4_0 for int4's matrices, Q8_0 for those kept in 8 bits).
std::unique_ptr<kernels::WeightMatrix> pack_blocks(ComputeType type, kernels::GgmlType target,
                                                   std::span<const StoredMatrix> parts,
                                                   kernels::PackedWeightsStorage* storage) {
  const int in = parts.front().in;
  std::vector<std::vector<unsigned char>> quantized;  // each converted part: (out, row_bytes)
  std::vector<kernels::BlockPart> blocks;
  for (const StoredMatrix& p : parts) {
    if (is_blocks(p)) {
      blocks.push_back({p.blocks, p.values, p.out});
      continue;
    }
    std::vector<float> floats(static_cast<std::size_t>(p.out) * in);  // (out, in)
    to_float(p, floats.data());
    quantized.push_back(kernels::quantize_rows(target, floats.data(), p.out, in));
    blocks.push_back({target, quantized.back().data(), p.out});
  }
  return std::make_unique<kernels::BlockWeights>(blocks, in, type, storage);
}

// Whether `parts` pack as block weights for `type`.
bool packs_in_blocks(ComputeType type, std::span<const StoredMatrix> parts) {
  const int in = parts.front().in;
  if (type == ComputeType::Int4 || type == ComputeType::Int8Blocks) return in % 32 == 0;
  if (type != ComputeType::Ggml) return false;
  for (const StoredMatrix& p : parts)
    if (is_blocks(p)) return true;
  return false;
}

}  // namespace

kernels::GgmlType block_type(ComputeType type, bool eight_bit) {
  return type == ComputeType::Int4 && !eight_bit ? kernels::GgmlType::Q4_0 : kernels::GgmlType::Q8_0;
}

const char* compute_type_name(ComputeType type) {
  if (type == ComputeType::Ggml) return "ggml";
  for (const auto& [t, name] : kNames)
    if (t == type) return name;
  return "?";
}

ComputeType parse_compute_type(const std::string& name, const std::string& what) {
  for (const auto& [t, n] : kNames)
    if (name == n) return t;
  throw Error(what + ": unknown compute type \"" + name + "\" (expected float32, int8, bfloat16, int4 or q8_0)");
}

bool is_low_precision_parameter(const ModelConfig& config, const ParamSpec& spec) {
  // An encoder's heads (the masked-LM transform, the pooler, the classifier) are small and run in float32.
  // Transformer-XL's distance projections are applied once per batch, in float32.
  const bool relative = spec.module == Module::RelativeProjection;
  return (spec.role == ParamRole::Matrix && spec.part != ParamPart::Output && !relative) ||
         (config.has_decoder() && spec.name == output_projection_name(config));
}

std::unique_ptr<kernels::WeightMatrix> pack_weights(ComputeType type, std::span<const StoredMatrix> parts,
                                                    kernels::PackedWeightsStorage* storage, bool eight_bit) {
  require(!parts.empty(), "pack_weights: no matrix");
  const int in = parts.front().in;
  int out = 0;
  for (const StoredMatrix& p : parts) {
    require(p.in == in && p.out > 0 && p.values, "pack_weights: stacked matrices need one input width");
    out += p.out;
  }
  if (packs_in_blocks(type, parts))
    return pack_blocks(type, block_type(type, eight_bit), parts, storage);
  // What blocks cannot hold: int4 rows of a width blocks do not divide compute in int8; a GGUF file's matrices
  // that are float in all their parts in the float type they are stored in.
  if (type == ComputeType::Int4 || type == ComputeType::Int8Blocks) type = ComputeType::Int8;
  if (type == ComputeType::Ggml) type = parts.front().type;
  // One float32 part packs straight from its values (the common case: a float model, float compute).
  if (type == ComputeType::Float32 && parts.size() == 1 && parts[0].type == ComputeType::Float32)
    return std::make_unique<kernels::PackedWeights>(static_cast<const float*>(parts[0].values), out, in, storage);
  const std::size_t width = in;
  std::vector<float> floats;  // (rows, in): a part converted through float32
  auto part_floats = [&](const StoredMatrix& p) {
    floats.resize(static_cast<std::size_t>(p.out) * width);
    to_float(p, floats.data());
    return floats.data();
  };
  switch (type) {
    case ComputeType::Float32: {
      std::vector<float> w(static_cast<std::size_t>(out) * width);  // (out, in)
      std::size_t row = 0;
      for (const StoredMatrix& p : parts) {
        to_float(p, w.data() + row * width);
        row += p.out;
      }
      return std::make_unique<kernels::PackedWeights>(w.data(), out, in, storage);
    }
    case ComputeType::Int8: {
      std::vector<std::int8_t> values(static_cast<std::size_t>(out) * width);  // (out, in)
      std::vector<float> scales(out);                                           // (out)
      std::size_t row = 0;
      for (const StoredMatrix& p : parts) {
        if (p.type == ComputeType::Int8) {
          std::memcpy(values.data() + row * width, p.values, static_cast<std::size_t>(p.out) * width);
          std::memcpy(scales.data() + row, p.scales, sizeof(float) * p.out);
        } else {
          kernels::quantize_rows_int8(part_floats(p), p.out, in, values.data() + row * width, scales.data() + row);
        }
        row += p.out;
      }
      return std::make_unique<kernels::Int8Weights>(values.data(), scales.data(), out, in, storage);
    }
    case ComputeType::BFloat16: {
      std::vector<std::uint16_t> values(static_cast<std::size_t>(out) * width);  // (out, in)
      std::size_t row = 0;
      for (const StoredMatrix& p : parts) {
        if (p.type == ComputeType::BFloat16)
          std::memcpy(values.data() + row * width, p.values, sizeof(std::uint16_t) * p.out * width);
        else
          kernels::to_bfloat16(part_floats(p), static_cast<long>(p.out) * in, values.data() + row * width);
        row += p.out;
      }
      return std::make_unique<kernels::Bf16Weights>(values.data(), out, in, storage);
    }
    case ComputeType::Int4:
    case ComputeType::Int8Blocks:
    case ComputeType::Ggml: break;  // replaced above
  }
  throw Error("pack_weights: unknown compute type");
}

}  // namespace heptapod
