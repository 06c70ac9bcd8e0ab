// safetensors reader and writer. Checks: sizes, header JSON, dtypes, shapes, offsets in bounds and packed
// without gaps or overlaps, numel * dtype size == byte span, metadata strings only.
#include "heptapod/io/safetensors.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstring>
#include <limits>

#include "heptapod/core/error.h"
#include "heptapod/kernels/half.h"
#include "heptapod/io/atomic_file.h"

namespace heptapod {

using nlohmann::json;
using nlohmann::ordered_json;

namespace {

constexpr std::uint64_t kMaxHeaderBytes = 100u << 20;

bool parse_dtype(const std::string& s, DType& out) {
  static const std::pair<const char*, DType> table[] = {
      {"F32", DType::F32}, {"F64", DType::F64}, {"I32", DType::I32}, {"I64", DType::I64}, {"U8", DType::U8},
      {"I8", DType::I8},   {"BF16", DType::BF16}, {"F16", DType::F16}, {"BOOL", DType::Bool}};
  for (const auto& [name, d] : table)
    if (s == name) {
      out = d;
      return true;
    }
  return false;
}

}  // namespace

std::string shape_text(const std::vector<std::int64_t>& shape) {
  std::string s = "(";
  for (std::size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + ")";
}

const char* dtype_name(DType d) {
  switch (d) {
    case DType::F32: return "F32";
    case DType::F64: return "F64";
    case DType::I32: return "I32";
    case DType::I64: return "I64";
    case DType::U8: return "U8";
    case DType::I8: return "I8";
    case DType::BF16: return "BF16";
    case DType::F16: return "F16";
    case DType::Bool: return "BOOL";
  }
  return "?";
}

std::size_t dtype_size(DType d) {
  switch (d) {
    case DType::F32: case DType::I32: return 4;
    case DType::F64: case DType::I64: return 8;
    case DType::U8: case DType::I8: case DType::Bool: return 1;
    case DType::BF16: case DType::F16: return 2;
  }
  return 0;
}

std::int64_t TensorEntry::numel() const {
  std::int64_t n = 1;
  for (auto d : shape) n *= d;
  return n;
}

SafetensorsFile SafetensorsFile::read(const std::string& path) {
  auto mapped = MappedFile::open(path);
  SafetensorsFile f = parse_mapped(*mapped, [&](std::string_view bytes) { return parse_view(bytes, path); });
  f.mapped_ = std::move(mapped);
  return f;
}

SafetensorsFile SafetensorsFile::parse(std::string bytes, const std::string& where) {
  auto owned = std::make_shared<const std::string>(std::move(bytes));
  SafetensorsFile f = parse_view(*owned, where);
  f.owned_ = std::move(owned);
  return f;
}

SafetensorsFile SafetensorsFile::compose(std::string image, const std::string& where, OutsideBytes bytes,
                                         std::vector<TensorEntry> outside) {
  SafetensorsFile f = parse(std::move(image), where);
  for (TensorEntry& e : outside) {
    const std::string ctx = where + ": tensor \"" + e.name + "\"";
    require(f.index_.count(e.name) == 0, ctx + " twice");
    require(e.begin <= e.end && e.end <= bytes.bytes.size(), ctx + " lies outside the file");
    require(static_cast<std::size_t>(e.numel()) * dtype_size(e.dtype) == e.end - e.begin,
            ctx + " holds " + std::to_string(e.end - e.begin) + " bytes but its shape and dtype need " +
                std::to_string(static_cast<std::size_t>(e.numel()) * dtype_size(e.dtype)));
    e.outside = true;
    f.index_[e.name] = f.tensors_.size();
    f.tensors_.push_back(std::move(e));
  }
  f.outside_ = std::move(bytes);
  return f;
}

SafetensorsFile SafetensorsFile::parse_view(std::string_view bytes, const std::string& where) {
  SafetensorsFile f;
  f.where_ = where;
  f.bytes_ = bytes;
  const std::size_t size = f.bytes_.size();
  require(size >= 8, where + ": file too short (" + std::to_string(size) + " bytes) to be a model file");
  std::uint64_t header_len = 0;
  for (int i = 7; i >= 0; --i) header_len = (header_len << 8) | static_cast<unsigned char>(f.bytes_[i]);
  require(header_len <= kMaxHeaderBytes, where + ": header length " + std::to_string(header_len) +
                                             " is implausible (corrupt or not a safetensors file)");
  require(8 + header_len <= size, where + ": truncated: header claims " + std::to_string(header_len) +
                                      " bytes but the file has " + std::to_string(size));
  f.data_start_ = 8 + header_len;
  const std::size_t data_size = size - f.data_start_;

  const json header = json::parse(f.bytes_.begin() + 8, f.bytes_.begin() + f.data_start_, nullptr, false);
  require(!header.is_discarded(), where + ": header is not valid JSON");
  require(header.is_object(), where + ": header is not a JSON object");
  for (const auto& [key, value] : header.items()) {
    if (key == "__metadata__") {
      require(value.is_object(), where + ": __metadata__ is not an object");
      for (const auto& [mk, mv] : value.items()) {
        require(mv.is_string(), where + ": metadata \"" + mk + "\" is not a string");
        f.metadata_[mk] = mv.get<std::string>();
      }
      continue;
    }
    const std::string ctx = where + ": tensor \"" + key + "\"";
    require(value.is_object(), ctx + " is not an object");
    require(value.contains("dtype") && value["dtype"].is_string(), ctx + " has no dtype");
    require(value.contains("shape") && value["shape"].is_array(), ctx + " has no shape");
    require(value.contains("data_offsets") && value["data_offsets"].is_array() && value["data_offsets"].size() == 2,
            ctx + " has no data_offsets [begin, end]");
    TensorEntry e;
    e.name = key;
    require(parse_dtype(value["dtype"].get<std::string>(), e.dtype),
            ctx + " has unsupported dtype \"" + value["dtype"].get<std::string>() + "\"");
    std::uint64_t numel = 1;
    for (const auto& d : value["shape"]) {
      require(d.is_number_unsigned(), ctx + " has a negative or non-integer dimension");
      const std::uint64_t dim = d.get<std::uint64_t>();
      require(dim == 0 || numel <= (std::uint64_t{1} << 48) / dim, ctx + " shape is implausibly large");
      numel *= dim;
      e.shape.push_back(static_cast<std::int64_t>(dim));
    }
    for (const auto& o : value["data_offsets"]) require(o.is_number_unsigned(), ctx + " has invalid data_offsets");
    const std::uint64_t begin = value["data_offsets"][0].get<std::uint64_t>();
    const std::uint64_t end = value["data_offsets"][1].get<std::uint64_t>();
    require(begin <= end && end <= data_size, ctx + " data_offsets [" + std::to_string(begin) + ", " +
                                                  std::to_string(end) + "] fall outside the data section of " +
                                                  std::to_string(data_size) + " bytes (file truncated?)");
    require(end - begin == numel * dtype_size(e.dtype),
            ctx + " holds " + std::to_string(end - begin) + " bytes but its shape and dtype need " +
                std::to_string(numel * dtype_size(e.dtype)));
    e.begin = begin;
    e.end = end;
    f.tensors_.push_back(std::move(e));
  }
  std::sort(f.tensors_.begin(), f.tensors_.end(),
            [](const TensorEntry& a, const TensorEntry& b) { return a.begin != b.begin ? a.begin < b.begin : a.end < b.end; });
  std::size_t expected = 0;
  for (const auto& e : f.tensors_) {
    require(e.begin == expected, where + ": tensor \"" + e.name + "\" starts at byte " + std::to_string(e.begin) +
                                     " but the previous tensor ends at " + std::to_string(expected) +
                                     " (overlap or gap: corrupt file)");
    expected = e.end;
  }
  require(expected == data_size, where + ": " + std::to_string(data_size - expected) +
                                     " unexpected bytes after the last tensor (corrupt file)");
  for (std::size_t i = 0; i < f.tensors_.size(); ++i) f.index_[f.tensors_[i].name] = i;
  return f;
}

const std::string& SafetensorsFile::metadata(const std::string& key) const {
  auto it = metadata_.find(key);
  require(it != metadata_.end(), where_ + ": metadata has no \"" + key + "\"");
  return it->second;
}

const TensorEntry* SafetensorsFile::find(const std::string& name) const {
  auto it = index_.find(name);
  return it == index_.end() ? nullptr : &tensors_[it->second];
}

const TensorEntry& SafetensorsFile::at(const std::string& name) const {
  const TensorEntry* e = find(name);
  require(e != nullptr, where_ + ": missing tensor \"" + name + "\"");
  return *e;
}

const unsigned char* SafetensorsFile::data(const TensorEntry& e) const {
  if (e.outside) return reinterpret_cast<const unsigned char*>(outside_.bytes.data()) + e.begin;
  return reinterpret_cast<const unsigned char*>(bytes_.data()) + data_start_ + e.begin;
}

void SafetensorsFile::release(const TensorEntry& e) const {
  check_intact();
  if (e.outside && outside_.mapped) outside_.mapped->release(e.begin, e.end);
  if (!e.outside && mapped_) mapped_->release(data_start_ + e.begin, data_start_ + e.end);
}

void SafetensorsFile::check_intact() const {
  if (mapped_) mapped_->check_intact();
  if (outside_.mapped) outside_.mapped->check_intact();
}

template <typename T>
std::vector<T> SafetensorsFile::floats(const std::string& name) const {
  const TensorEntry& e = at(name);
  std::vector<T> out(static_cast<std::size_t>(e.numel()));
  const unsigned char* p = data(e);
  if (e.dtype == DType::F32) {
    for (std::size_t i = 0; i < out.size(); ++i) {
      float v;
      std::memcpy(&v, p + 4 * i, 4);
      out[i] = static_cast<T>(v);
    }
  } else if (e.dtype == DType::F64) {
    for (std::size_t i = 0; i < out.size(); ++i) {
      double v;
      std::memcpy(&v, p + 8 * i, 8);
      out[i] = static_cast<T>(v);
    }
  } else if (e.dtype == DType::F16 || e.dtype == DType::BF16) {  // checkpoints saved in half precision
    for (std::size_t i = 0; i < out.size(); ++i) {
      std::uint16_t v;
      std::memcpy(&v, p + 2 * i, 2);
      float f;
      if (e.dtype == DType::F16) {
        f = kernels::from_half_scalar(v);
      } else {
        const std::uint32_t bits = static_cast<std::uint32_t>(v) << 16;
        std::memcpy(&f, &bits, 4);
      }
      out[i] = static_cast<T>(f);
    }
  } else {
    throw Error(where_ + ": tensor \"" + name + "\" has dtype " + dtype_name(e.dtype) +
                ", expected F32, F64, F16 or BF16");
  }
  check_intact();
  return out;
}

std::vector<int> SafetensorsFile::ints(const std::string& name) const {
  const TensorEntry& e = at(name);
  std::vector<int> out(static_cast<std::size_t>(e.numel()));
  const unsigned char* p = data(e);
  for (std::size_t i = 0; i < out.size(); ++i) {
    if (e.dtype == DType::I32) {
      std::int32_t v;
      std::memcpy(&v, p + 4 * i, 4);
      out[i] = v;
    } else if (e.dtype == DType::I64) {
      std::int64_t v;
      std::memcpy(&v, p + 8 * i, 8);
      require(v >= std::numeric_limits<int>::min() && v <= std::numeric_limits<int>::max(),
              where_ + ": tensor \"" + name + "\" holds a value outside the int range");
      out[i] = static_cast<int>(v);
    } else {
      throw Error(where_ + ": tensor \"" + name + "\" has dtype " + dtype_name(e.dtype) + ", expected I32 or I64");
    }
  }
  check_intact();
  return out;
}

template std::vector<float> SafetensorsFile::floats<float>(const std::string&) const;
template std::vector<double> SafetensorsFile::floats<double>(const std::string&) const;

void SafetensorsWriter::add(const std::string& name, DType dtype, std::vector<std::int64_t> shape, const void* bytes) {
  TensorEntry e;
  e.name = name;
  e.dtype = dtype;
  e.shape = std::move(shape);
  e.begin = data_.size();
  e.end = e.begin + static_cast<std::size_t>(e.numel()) * dtype_size(dtype);
  data_.append(static_cast<const char*>(bytes), e.end - e.begin);
  tensors_.push_back(std::move(e));
}

std::string SafetensorsWriter::serialize() const {
  ordered_json header = ordered_json::object();
  if (!metadata_.empty()) {
    ordered_json meta = ordered_json::object();
    for (const auto& [k, v] : metadata_) meta[k] = v;
    header["__metadata__"] = meta;
  }
  for (const auto& e : tensors_)
    header[e.name] = {{"dtype", dtype_name(e.dtype)}, {"shape", e.shape}, {"data_offsets", {e.begin, e.end}}};
  std::string text = header.dump();
  while (text.size() % 8 != 0) text.push_back(' ');
  std::string out(8, '\0');
  std::uint64_t n = text.size();
  for (int i = 0; i < 8; ++i) out[i] = static_cast<char>((n >> (8 * i)) & 0xff);
  out += text;
  out += data_;
  return out;
}

void SafetensorsWriter::write(const std::string& path) const {
  const std::string bytes = serialize();
  write_file_atomic(path, [&](std::ostream& out) { out.write(bytes.data(), static_cast<std::streamsize>(bytes.size())); });
}

}  // namespace heptapod
