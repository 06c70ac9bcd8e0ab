// The GGUF block types decoded one block at a time with plain loops (kernels/gguf_blocks.h), and the Q8_0 and
// Q4_0 reference quantizers. Every multi-byte field is read little-endian byte by byte, whatever the host.
// In the decoders each product of a scale and a quantised value is exact in float32 (at most 24 significant
// bits), so a value is its exact real value rounded once.
#include "heptapod/kernels/gguf_blocks.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>

#include "heptapod/core/error.h"
#include "heptapod/kernels/half.h"

namespace heptapod::kernels {
namespace {

constexpr GgmlTypeInfo kTypes[] = {
    {GgmlType::F32, "F32", 1, 4},        {GgmlType::F16, "F16", 1, 2},        {GgmlType::Q4_0, "Q4_0", 32, 18},
    {GgmlType::Q4_1, "Q4_1", 32, 20},    {GgmlType::Q5_0, "Q5_0", 32, 22},    {GgmlType::Q5_1, "Q5_1", 32, 24},
    {GgmlType::Q8_0, "Q8_0", 32, 34},    {GgmlType::Q2_K, "Q2_K", 256, 84},   {GgmlType::Q3_K, "Q3_K", 256, 110},
    {GgmlType::Q4_K, "Q4_K", 256, 144},  {GgmlType::Q5_K, "Q5_K", 256, 176},  {GgmlType::Q6_K, "Q6_K", 256, 210},
    {GgmlType::BF16, "BF16", 1, 2},
};

using Bytes = const unsigned char*;

float read_half(Bytes p) { return from_half_scalar(static_cast<half>(p[0] | (p[1] << 8))); }

void write_half(float value, unsigned char* p) {
  const half h = to_half_scalar(value);
  p[0] = static_cast<unsigned char>(h & 0xff);
  p[1] = static_cast<unsigned char>(h >> 8);
}

float read_f32(Bytes p) {
  const std::uint32_t bits = p[0] | (p[1] << 8) | (p[2] << 16) | (static_cast<std::uint32_t>(p[3]) << 24);
  float value;
  std::memcpy(&value, &bits, sizeof value);
  return value;
}

float read_bf16(Bytes p) {
  const std::uint32_t bits = static_cast<std::uint32_t>(p[0] | (p[1] << 8)) << 16;
  float value;
  std::memcpy(&value, &bits, sizeof value);
  return value;
}

// Q8_0 block (34 B): f16 d; i8 qs[32]. y: (32).
void decode_q8_0(Bytes b, float* y) {
  const float d = read_half(b);
  for (int j = 0; j < 32; ++j) y[j] = d * static_cast<float>(static_cast<std::int8_t>(b[2 + j]));
}

// The 4-bit values of a 32-element block: element j is the low nibble of qs[j], element j + 16 the high one;
// the fifth bit of element j, where there is one, is bit j of qh (u32, little-endian). q: (32).
void unpack_32(Bytes qs, std::uint32_t qh, int* q) {
  for (int j = 0; j < 16; ++j) {
    q[j] = (qs[j] & 15) | static_cast<int>(((qh >> j) & 1u) << 4);
    q[j + 16] = (qs[j] >> 4) | static_cast<int>(((qh >> (j + 16)) & 1u) << 4);
  }
}

std::uint32_t read_u32(Bytes p) {
  return p[0] | (p[1] << 8) | (p[2] << 16) | (static_cast<std::uint32_t>(p[3]) << 24);
}

// Q4_0 (18 B): f16 d; qs[16] -> d * (q - 8). Q5_0 (22 B): f16 d; qh[4]; qs[16] -> d * (q - 16). y: (32).
void decode_q4_0(Bytes b, float* y) {
  int q[32];
  unpack_32(b + 2, 0, q);
  const float d = read_half(b);
  for (int j = 0; j < 32; ++j) y[j] = d * static_cast<float>(q[j] - 8);
}

void decode_q5_0(Bytes b, float* y) {
  int q[32];
  unpack_32(b + 6, read_u32(b + 2), q);
  const float d = read_half(b);
  for (int j = 0; j < 32; ++j) y[j] = d * static_cast<float>(q[j] - 16);
}

// Q4_1 (20 B): f16 d, f16 m; qs[16]. Q5_1 (24 B): f16 d, f16 m; qh[4]; qs[16]. Both d * q + m. y: (32).
void decode_q4_1(Bytes b, float* y) {
  int q[32];
  unpack_32(b + 4, 0, q);
  const float d = read_half(b), m = read_half(b + 2);
  for (int j = 0; j < 32; ++j) y[j] = d * static_cast<float>(q[j]) + m;
}

void decode_q5_1(Bytes b, float* y) {
  int q[32];
  unpack_32(b + 8, read_u32(b + 4), q);
  const float d = read_half(b), m = read_half(b + 2);
  for (int j = 0; j < 32; ++j) y[j] = d * static_cast<float>(q[j]) + m;
}

// The 2-bit field of value e (0..255) of a Q2_K / Q3_K block: in half e / 128 (32 bytes of qs), byte e % 32, bits
// 2 ((e % 128) / 32) and up.
int two_bits(Bytes qs, int e) { return (qs[32 * (e / 128) + e % 32] >> (2 * ((e % 128) / 32))) & 3; }

// Q2_K (84 B): scales[16] (low nibble scale, high nibble min, per 16 values); qs[64]; f16 d, f16 dmin.
// d * scale * q - dmin * min. y: (256).
void decode_q2_k(Bytes b, float* y) {
  const float d = read_half(b + 80), dmin = read_half(b + 82);
  for (int e = 0; e < 256; ++e) {
    const int packed_scale = b[e / 16];
    y[e] = d * static_cast<float>(packed_scale & 15) * static_cast<float>(two_bits(b + 16, e)) -
           dmin * static_cast<float>(packed_scale >> 4);
  }
}

// Q3_K (110 B): hmask[32]; qs[64]; scales[12]; f16 d. Value e: 2 low bits as in Q2_K, minus 4 unless bit e / 32
// of hmask[e % 32] is set; the 6-bit scale of its 16 values j = e / 16: nibble j / 8 of scales[j % 8] with
// bits 2 (j / 4), 2 (j / 4) + 1 of scales[8 + j % 4] above it. d * (scale - 32) * q. y: (256).
void decode_q3_k(Bytes b, float* y) {
  const float d = read_half(b + 108);
  Bytes hmask = b, scales = b + 96;
  for (int e = 0; e < 256; ++e) {
    const int j = e / 16;
    const int scale = ((scales[j % 8] >> (4 * (j / 8))) & 15) | (((scales[8 + j % 4] >> (2 * (j / 4))) & 3) << 4);
    const int q = two_bits(b + 32, e) - ((hmask[e % 32] >> (e / 32)) & 1 ? 0 : 4);
    y[e] = d * static_cast<float>(scale - 32) * static_cast<float>(q);
  }
}

// Q4_K (144 B): f16 d, f16 dmin; scales[12]; qs[128]. Q5_K (176 B): the same with qh[32] before qs. Sub-block
// 2c + h (chunk c = 0..3, h = 0 low nibbles, 1 high) holds qs[32c + l] nibble h plus, for Q5_K, bit 2c + h of
// qh[l] as 16; value d * scale * q - dmin * min. qh: nullptr for Q4_K. y: (256).
void decode_k4_k5(Bytes b, Bytes qh, Bytes qs, float* y) {
  const float d = read_half(b), dmin = read_half(b + 2);
  Bytes scales = b + 4;
  for (int sub = 0; sub < 8; ++sub) {
    int scale, min;
    k_scale_min(scales, sub, scale, min);
    const float step = d * static_cast<float>(scale), offset = dmin * static_cast<float>(min);
    const int chunk = sub / 2, shift = 4 * (sub % 2);
    for (int l = 0; l < 32; ++l) {
      int q = (qs[32 * chunk + l] >> shift) & 15;
      if (qh) q |= ((qh[l] >> sub) & 1) << 4;
      y[32 * sub + l] = step * static_cast<float>(q) - offset;
    }
  }
}

// Q6_K (210 B): ql[128]; qh[64]; i8 scales[16]; f16 d. Each half of 128 values (ql 64 B, qh 32 B, 8 scales):
// value 32i + l (i = 0..3, l < 32) has low 4 bits from ql[l + 32 (i % 2)] nibble i / 2 and high 2 bits from
// qh[l] bits 2i, 2i + 1; d * scale[l / 16 + 2i] * (q - 32). y: (256).
void decode_q6_k(Bytes b, float* y) {
  const float d = read_half(b + 208);
  for (int half_index = 0; half_index < 2; ++half_index) {
    Bytes ql = b + 64 * half_index, qh = b + 128 + 32 * half_index;
    const auto* scales = reinterpret_cast<const std::int8_t*>(b + 192 + 8 * half_index);
    float* out = y + 128 * half_index;
    for (int i = 0; i < 4; ++i) {
      for (int l = 0; l < 32; ++l) {
        const int low = (ql[l + 32 * (i % 2)] >> (4 * (i / 2))) & 15;
        const int high = (qh[l] >> (2 * i)) & 3;
        const int q = (low | (high << 4)) - 32;
        out[32 * i + l] = d * static_cast<float>(scales[l / 16 + 2 * i]) * static_cast<float>(q);
      }
    }
  }
}

void require_whole_blocks(const GgmlTypeInfo& info, long n) {
  require(n >= 0 && n % info.block_elements == 0,
          std::string("a row of ") + info.name + " values must be a whole number of blocks of " +
              std::to_string(info.block_elements) + ", not " + std::to_string(n) + " values");
}

}  // namespace

const GgmlTypeInfo* find_ggml_type(std::uint32_t id) {
  for (const GgmlTypeInfo& info : kTypes)
    if (static_cast<std::uint32_t>(info.type) == id) return &info;
  return nullptr;
}

GgmlType ggml_type_from_id(std::uint32_t id) {
  const GgmlTypeInfo* info = find_ggml_type(id);
  if (info == nullptr) throw Error("unknown ggml tensor type " + std::to_string(id));
  return info->type;
}

const GgmlTypeInfo& ggml_type_info(GgmlType type) {
  for (const GgmlTypeInfo& info : kTypes)
    if (info.type == type) return info;
  throw Error("unknown ggml tensor type " + std::to_string(static_cast<std::uint32_t>(type)));
}

const char* ggml_type_name(GgmlType type) { return ggml_type_info(type).name; }

long ggml_row_bytes(GgmlType type, long n) {
  const GgmlTypeInfo& info = ggml_type_info(type);
  require_whole_blocks(info, n);
  require(n / info.block_elements <= std::numeric_limits<long>::max() / info.block_bytes,
          std::string("a row of ") + std::to_string(n) + " " + info.name + " values is too large");
  return n / info.block_elements * info.block_bytes;
}

void dequantize_row(GgmlType type, const void* blocks, float* out, long n) {
  const GgmlTypeInfo& info = ggml_type_info(type);
  require_whole_blocks(info, n);
  const auto* bytes = static_cast<Bytes>(blocks);
  for (long block = 0; block < n / info.block_elements; ++block) {
    Bytes b = bytes + block * info.block_bytes;
    float* y = out + block * info.block_elements;
    switch (type) {
      case GgmlType::F32: *y = read_f32(b); break;
      case GgmlType::F16: *y = read_half(b); break;
      case GgmlType::BF16: *y = read_bf16(b); break;
      case GgmlType::Q8_0: decode_q8_0(b, y); break;
      case GgmlType::Q4_0: decode_q4_0(b, y); break;
      case GgmlType::Q4_1: decode_q4_1(b, y); break;
      case GgmlType::Q5_0: decode_q5_0(b, y); break;
      case GgmlType::Q5_1: decode_q5_1(b, y); break;
      case GgmlType::Q4_K: decode_k4_k5(b, nullptr, b + 16, y); break;
      case GgmlType::Q5_K: decode_k4_k5(b, b + 16, b + 48, y); break;
      case GgmlType::Q6_K: decode_q6_k(b, y); break;
      case GgmlType::Q2_K: decode_q2_k(b, y); break;
      case GgmlType::Q3_K: decode_q3_k(b, y); break;
    }
  }
}

bool ggml_row_finite(GgmlType type, const void* blocks, long n) {
  const GgmlTypeInfo& info = ggml_type_info(type);
  require_whole_blocks(info, n);
  const auto* bytes = static_cast<Bytes>(blocks);
  const long count = n / info.block_elements;
  auto finite_half = [](Bytes p) { return (p[1] & 0x7c) != 0x7c; };  // exponent bits not all ones
  switch (type) {
    case GgmlType::F32:
      for (long k = 0; k < count; ++k)
        if (!std::isfinite(read_f32(bytes + 4 * k))) return false;
      return true;
    case GgmlType::BF16:
      for (long k = 0; k < count; ++k)
        if ((bytes[2 * k + 1] & 0x7f) == 0x7f && (bytes[2 * k] & 0x80)) return false;
      return true;
    default: break;
  }
  // The float16 fields of each block: every value of F16; d (and dmin / m) of the block types.
  long fields[2] = {0, -1};
  switch (type) {
    case GgmlType::Q4_1: case GgmlType::Q5_1: case GgmlType::Q4_K: case GgmlType::Q5_K: fields[1] = 2; break;
    case GgmlType::Q2_K: fields[0] = 80, fields[1] = 82; break;
    case GgmlType::Q3_K: fields[0] = 108; break;
    case GgmlType::Q6_K: fields[0] = 208; break;
    default: break;
  }
  for (long k = 0; k < count; ++k)
    for (long f : fields)
      if (f >= 0 && !finite_half(bytes + k * info.block_bytes + f)) return false;
  return true;
}

void quantize_row_q8_0(const float* x, void* blocks, long n) {
  require_whole_blocks(ggml_type_info(GgmlType::Q8_0), n);
  auto* out = static_cast<unsigned char*>(blocks);
  for (long block = 0; block < n / 32; ++block, x += 32, out += 34) {
    float amax = 0.0f;
    for (int j = 0; j < 32; ++j) amax = std::max(amax, std::fabs(x[j]));
    const float d = amax / 127.0f;
    const float inverse = d != 0.0f ? 1.0f / d : 0.0f;
    write_half(d, out);
    for (int j = 0; j < 32; ++j)
      out[2 + j] = static_cast<unsigned char>(static_cast<std::int8_t>(std::round(x[j] * inverse)));
  }
}

void quantize_row_q4_0(const float* x, void* blocks, long n) {
  require_whole_blocks(ggml_type_info(GgmlType::Q4_0), n);
  auto* out = static_cast<unsigned char*>(blocks);
  for (long block = 0; block < n / 32; ++block, x += 32, out += 18) {
    float amax = 0.0f, extreme = 0.0f;  // the first value of largest magnitude, with its sign
    for (int j = 0; j < 32; ++j) {
      if (amax < std::fabs(x[j])) {
        amax = std::fabs(x[j]);
        extreme = x[j];
      }
    }
    const float d = extreme / -8.0f;
    const float inverse = d != 0.0f ? 1.0f / d : 0.0f;
    write_half(d, out);
    // x * inverse rounded to float, then + 8.5 rounded to float (the sum is formed in double, where it is
    // exact, so no fused multiply-add can skip the first rounding), truncated.
    const auto level = [&](float value) {
      const float scaled = value * inverse;
      return std::min(15, static_cast<int>(static_cast<float>(static_cast<double>(scaled) + 8.5)));
    };
    for (int j = 0; j < 16; ++j)
      out[2 + j] = static_cast<unsigned char>(level(x[j]) | (level(x[j + 16]) << 4));
  }
}

void quantize_row(GgmlType type, const float* x, void* blocks, long n) {
  auto* out = static_cast<unsigned char*>(blocks);
  switch (type) {
    case GgmlType::F32: std::memcpy(out, x, static_cast<std::size_t>(n) * sizeof(float)); return;
    case GgmlType::F16:
      for (long i = 0; i < n; ++i) write_half(x[i], out + 2 * i);
      return;
    case GgmlType::Q8_0: return quantize_row_q8_0(x, blocks, n);
    case GgmlType::Q4_0: return quantize_row_q4_0(x, blocks, n);
    default: throw Error(std::string("no encoder for ggml type ") + ggml_type_name(type));
  }
}

std::vector<unsigned char> quantize_rows(GgmlType type, const float* w, long rows, long n) {
  const long row_bytes = ggml_row_bytes(type, n);
  std::vector<unsigned char> out(static_cast<std::size_t>(rows * row_bytes));  // (rows, row_bytes)
  for (long r = 0; r < rows; ++r) quantize_row(type, w + r * n, out.data() + r * row_bytes, n);
  return out;
}

void pack_k_scales(const int* scales, const int* mins, std::uint8_t* s) {
  for (int j = 0; j < 4; ++j) {
    s[j] = static_cast<std::uint8_t>((scales[j] & 63) | ((scales[j + 4] >> 4) << 6));
    s[j + 4] = static_cast<std::uint8_t>((mins[j] & 63) | ((mins[j + 4] >> 4) << 6));
    s[j + 8] = static_cast<std::uint8_t>((scales[j + 4] & 15) | ((mins[j + 4] & 15) << 4));
  }
}

}  // namespace heptapod::kernels
