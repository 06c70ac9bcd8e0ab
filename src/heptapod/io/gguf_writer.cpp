// The GGUF container, written.
#include "heptapod/io/gguf_writer.h"

#include <algorithm>
#include <cstring>

#include "heptapod/core/error.h"

namespace heptapod {

namespace {

constexpr std::uint32_t kVersion = 3;
constexpr std::uint64_t kAlignment = 32;  // general.alignment's default, so the key is not written
constexpr std::size_t kMaxNameBytes = 63;  // GGML_MAX_NAME 64 with its terminator

template <typename T>
void put(std::string& out, T value) {  // little-endian, as the hosts Heptapod builds for
  char bytes[sizeof(T)];
  std::memcpy(bytes, &value, sizeof(T));
  out.append(bytes, sizeof(T));
}

void put_string(std::string& out, const std::string& s) {
  put<std::uint64_t>(out, s.size());
  out += s;
}

void put_scalar(std::string& out, GgufType type, const GgufScalar& v) {
  switch (type) {
    case GgufType::U32: put<std::uint32_t>(out, static_cast<std::uint32_t>(std::get<std::uint64_t>(v))); return;
    case GgufType::I32: put<std::int32_t>(out, static_cast<std::int32_t>(std::get<std::int64_t>(v))); return;
    case GgufType::F32: put<float>(out, static_cast<float>(std::get<double>(v))); return;
    case GgufType::Bool: put<std::uint8_t>(out, std::get<bool>(v) ? 1 : 0); return;
    case GgufType::String: put_string(out, std::get<std::string>(v)); return;
    default: throw Error(std::string("GGUF writer: values of type ") + gguf_type_name(type) + " are not written");
  }
}

std::uint64_t align_up(std::uint64_t n) { return (n + kAlignment - 1) / kAlignment * kAlignment; }

GgufValue scalar(GgufType type, GgufScalar v) {
  GgufValue value;
  value.type = type;
  value.scalar = std::move(v);
  return value;
}

GgufValue array(GgufType item_type, std::vector<GgufScalar> items) {
  GgufValue value;
  value.type = GgufType::Array;
  value.item_type = item_type;
  value.items = std::move(items);
  return value;
}

}  // namespace

GgufValue GgufWriter::u32(std::uint32_t v) { return scalar(GgufType::U32, std::uint64_t{v}); }
GgufValue GgufWriter::f32(float v) { return scalar(GgufType::F32, static_cast<double>(v)); }
GgufValue GgufWriter::boolean(bool v) { return scalar(GgufType::Bool, v); }
GgufValue GgufWriter::string(std::string v) { return scalar(GgufType::String, std::move(v)); }

GgufValue GgufWriter::strings(std::vector<std::string> items) {
  std::vector<GgufScalar> out;
  out.reserve(items.size());
  for (std::string& s : items) out.emplace_back(std::move(s));
  return array(GgufType::String, std::move(out));
}

GgufValue GgufWriter::f32s(const std::vector<float>& items) {
  std::vector<GgufScalar> out(items.begin(), items.end());
  for (std::size_t i = 0; i < items.size(); ++i) out[i] = static_cast<double>(items[i]);
  return array(GgufType::F32, std::move(out));
}

GgufValue GgufWriter::i32s(const std::vector<std::int32_t>& items) {
  std::vector<GgufScalar> out;
  out.reserve(items.size());
  for (std::int32_t v : items) out.emplace_back(std::int64_t{v});
  return array(GgufType::I32, std::move(out));
}

void GgufWriter::set(const std::string& key, GgufValue value) {
  for (const auto& [k, v] : metadata_) require(k != key, "GGUF writer: the key " + key + " is set twice");
  metadata_.emplace_back(key, std::move(value));
}

void GgufWriter::add_tensor(const std::string& name, std::vector<std::int64_t> shape, kernels::GgmlType type,
                            std::string bytes) {
  require(!name.empty() && name.size() <= kMaxNameBytes,
          "GGUF writer: the tensor name \"" + name + "\" must be 1 to 63 bytes");
  for (const Tensor& t : tensors_) require(t.name != name, "GGUF writer: the tensor " + name + " is added twice");
  require(!shape.empty(), "GGUF writer: the tensor " + name + " has no dimensions");
  long rows = 1;
  for (std::size_t i = 0; i + 1 < shape.size(); ++i) rows *= static_cast<long>(shape[i]);
  const long row_bytes = kernels::ggml_row_bytes(type, static_cast<long>(shape.back()));
  require(static_cast<long>(bytes.size()) == rows * row_bytes,
          "GGUF writer: the tensor " + name + " holds " + std::to_string(bytes.size()) + " bytes, its shape and type " +
              std::to_string(rows * row_bytes));
  tensors_.push_back({name, std::move(shape), type, std::move(bytes)});
}

void GgufWriter::write(std::ostream& out) const {
  std::string head;
  head += "GGUF";
  put<std::uint32_t>(head, kVersion);
  put<std::uint64_t>(head, tensors_.size());
  put<std::uint64_t>(head, metadata_.size());
  for (const auto& [key, value] : metadata_) {
    put_string(head, key);
    put<std::uint32_t>(head, static_cast<std::uint32_t>(value.type));
    if (!value.is_array()) {
      put_scalar(head, value.type, value.scalar);
      continue;
    }
    put<std::uint32_t>(head, static_cast<std::uint32_t>(value.item_type));
    put<std::uint64_t>(head, value.items.size());
    for (const GgufScalar& item : value.items) put_scalar(head, value.item_type, item);
  }
  std::uint64_t offset = 0;
  for (const Tensor& t : tensors_) {
    put_string(head, t.name);
    put<std::uint32_t>(head, static_cast<std::uint32_t>(t.shape.size()));
    for (auto d = t.shape.rbegin(); d != t.shape.rend(); ++d) put<std::uint64_t>(head, static_cast<std::uint64_t>(*d));
    put<std::uint32_t>(head, static_cast<std::uint32_t>(t.type));
    put<std::uint64_t>(head, offset);
    offset = align_up(offset + t.bytes.size());
  }
  head.resize(align_up(head.size()), '\0');
  out.write(head.data(), static_cast<std::streamsize>(head.size()));
  const std::string padding(kAlignment, '\0');
  for (const Tensor& t : tensors_) {
    out.write(t.bytes.data(), static_cast<std::streamsize>(t.bytes.size()));
    out.write(padding.data(), static_cast<std::streamsize>(align_up(t.bytes.size()) - t.bytes.size()));
  }
}

}  // namespace heptapod
