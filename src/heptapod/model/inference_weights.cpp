// Compute types by name, the parameters that may be low precision, and packing stored matrices.
#include "heptapod/model/inference_weights.h"

#include <cstring>
#include <vector>

#include "heptapod/core/error.h"
#include "heptapod/kernels/low_precision_weights.h"
#include "heptapod/model/parameter_layout.h"

namespace heptapod {

namespace {

constexpr std::pair<ComputeType, const char*> kNames[] = {
    {ComputeType::Float32, "float32"}, {ComputeType::Int8, "int8"}, {ComputeType::BFloat16, "bfloat16"}};

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
  }
}

}  // namespace

const char* compute_type_name(ComputeType type) {
  for (const auto& [t, name] : kNames)
    if (t == type) return name;
  return "?";
}

ComputeType parse_compute_type(const std::string& name, const std::string& what) {
  for (const auto& [t, n] : kNames)
    if (name == n) return t;
  throw Error(what + ": unknown compute type \"" + name + "\" (expected float32, int8 or bfloat16)");
}

bool is_low_precision_parameter(const ModelConfig& config, const ParamSpec& spec) {
  // An encoder's heads (the masked-LM transform, the pooler, the classifier) are small and run in float32.
  // Transformer-XL's distance projections are applied once per batch, in float32.
  const bool relative = spec.module == Module::RelativeProjection;
  return (spec.role == ParamRole::Matrix && spec.part != ParamPart::Output && !relative) ||
         (config.has_decoder() && spec.name == output_projection_name(config));
}

std::unique_ptr<kernels::WeightMatrix> pack_weights(ComputeType type, std::span<const StoredMatrix> parts,
                                                    kernels::PackedWeightsStorage* storage) {
  require(!parts.empty(), "pack_weights: no matrix");
  const int in = parts.front().in;
  int out = 0;
  for (const StoredMatrix& p : parts) {
    require(p.in == in && p.out > 0 && p.values, "pack_weights: stacked matrices need one input width");
    out += p.out;
  }
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
  }
  throw Error("pack_weights: unknown compute type");
}

}  // namespace heptapod
