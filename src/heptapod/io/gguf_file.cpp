// GGUF reader. Checks: magic, version (2 or 3), counts (at most 2^20 and room for them in the file), every
// string and array length against the bytes left, value and tensor type ids, duplicate keys and tensor
// names, general.alignment (u32 power of two), dims (at most 4, innermost a multiple of the block size, no
// overflow), tensor data aligned, inside the file and not overlapping.
#include "heptapod/io/gguf_file.h"

#include <algorithm>
#include <cstring>

#include "heptapod/core/error.h"

namespace heptapod {

namespace {

constexpr std::uint64_t kMaxCount = std::uint64_t{1} << 20;  // keys, tensors
constexpr std::uint32_t kMaxDims = 4;                        // GGML_MAX_DIMS
constexpr std::size_t kMaxNameBytes = 63;                    // GGML_MAX_NAME 64 with its terminator
constexpr std::uint64_t kDefaultAlignment = 32;
constexpr std::uint64_t kMaxElements = std::uint64_t{1} << 60;  // so that elements * 4 bytes cannot overflow
// The fewest bytes a key/value pair (key length, type, a 1-byte value) and a tensor info (name length,
// n_dims, type, offset) take: a count with no room for that many is refused before anything is allocated.
constexpr std::uint64_t kMinKvBytes = 8 + 4 + 1;
constexpr std::uint64_t kMinTensorInfoBytes = 8 + 4 + 4 + 8;


// Bytes of one scalar of `type` (0 for string and array, whose size is read from the file).
std::uint64_t scalar_bytes(GgufType type) {
  switch (type) {
    case GgufType::U8: case GgufType::I8: case GgufType::Bool: return 1;
    case GgufType::U16: case GgufType::I16: return 2;
    case GgufType::U32: case GgufType::I32: case GgufType::F32: return 4;
    case GgufType::U64: case GgufType::I64: case GgufType::F64: return 8;
    case GgufType::String: case GgufType::Array: return 0;
  }
  return 0;
}

bool known_value_type(std::uint32_t id) { return id <= static_cast<std::uint32_t>(GgufType::F64); }

// A bounds-checked little-endian reader over the file; every failure names the file, what was being read
// and the byte offset.
class Cursor {
 public:
  Cursor(std::string_view bytes, const std::string& where) : bytes_(bytes), where_(where) {}
  std::uint64_t pos() const { return pos_; }
  std::uint64_t left() const { return bytes_.size() - pos_; }

  template <typename T>
  T number(const std::string& what) {
    require(left() >= sizeof(T), where_ + ": truncated at byte " + std::to_string(pos_) + " reading " + what +
                                     " (" + std::to_string(sizeof(T)) + " bytes, " + std::to_string(left()) + " left)");
    T v;
    std::memcpy(&v, bytes_.data() + pos_, sizeof(T));  // the file is little-endian, as is every host we build for
    pos_ += sizeof(T);
    return v;
  }

  std::string string(const std::string& what) {
    const std::uint64_t at = pos_;
    const auto length = number<std::uint64_t>("the length of " + what);
    require(length <= left(), where_ + ": " + what + " at byte " + std::to_string(at) + " claims " +
                                  std::to_string(length) + " bytes but only " + std::to_string(left()) + " follow");
    std::string s(bytes_.substr(pos_, length));
    pos_ += length;
    return s;
  }

 private:
  std::string_view bytes_;
  const std::string& where_;
  std::uint64_t pos_ = 0;
};

GgufScalar read_scalar(Cursor& in, GgufType type, const std::string& what, const std::string& where) {
  switch (type) {
    case GgufType::U8: return std::uint64_t{in.number<std::uint8_t>(what)};
    case GgufType::I8: return std::int64_t{in.number<std::int8_t>(what)};
    case GgufType::U16: return std::uint64_t{in.number<std::uint16_t>(what)};
    case GgufType::I16: return std::int64_t{in.number<std::int16_t>(what)};
    case GgufType::U32: return std::uint64_t{in.number<std::uint32_t>(what)};
    case GgufType::I32: return std::int64_t{in.number<std::int32_t>(what)};
    case GgufType::U64: return in.number<std::uint64_t>(what);
    case GgufType::I64: return in.number<std::int64_t>(what);
    case GgufType::F32: return double{in.number<float>(what)};
    case GgufType::F64: return in.number<double>(what);
    case GgufType::String: return in.string(what);
    case GgufType::Bool: {
      const std::uint64_t at = in.pos();
      const auto b = in.number<std::uint8_t>(what);
      require(b <= 1, where + ": " + what + " at byte " + std::to_string(at) + " is a bool holding " +
                          std::to_string(b) + " (expected 0 or 1)");
      return b == 1;
    }
    case GgufType::Array: break;
  }
  throw Error(where + ": " + what + " is a nested array (arrays of arrays are not supported)");
}

GgufValue read_value(Cursor& in, const std::string& key, const std::string& where) {
  const std::string what = "metadata \"" + key + "\"";
  const std::uint64_t type_at = in.pos();
  const auto type_id = in.number<std::uint32_t>("the type of " + what);
  require(known_value_type(type_id), where + ": " + what + " has unknown value type " + std::to_string(type_id) +
                                         " at byte " + std::to_string(type_at));
  GgufValue value;
  value.type = static_cast<GgufType>(type_id);
  if (!value.is_array()) {
    value.scalar = read_scalar(in, value.type, what, where);
    return value;
  }
  const std::uint64_t item_at = in.pos();
  const auto item_id = in.number<std::uint32_t>("the item type of " + what);
  require(known_value_type(item_id), where + ": " + what + " is an array of unknown value type " +
                                         std::to_string(item_id) + " at byte " + std::to_string(item_at));
  value.item_type = static_cast<GgufType>(item_id);
  require(value.item_type != GgufType::Array, where + ": " + what + " at byte " + std::to_string(item_at) +
                                                  " is an array of arrays (not supported)");
  const std::uint64_t count_at = in.pos();
  const auto count = in.number<std::uint64_t>("the length of " + what);
  // A string item takes at least its 8-byte length.
  const std::uint64_t min_item = value.item_type == GgufType::String ? 8 : scalar_bytes(value.item_type);
  require(count <= in.left() / min_item,
          where + ": " + what + " at byte " + std::to_string(count_at) + " claims " + std::to_string(count) +
              " items of " + gguf_type_name(value.item_type) + " but only " + std::to_string(in.left()) +
              " bytes follow");
  value.items.reserve(count);
  for (std::uint64_t i = 0; i < count; ++i)
    value.items.push_back(read_scalar(in, value.item_type, what + " item " + std::to_string(i), where));
  return value;
}

std::uint64_t align_up(std::uint64_t n, std::uint64_t alignment) { return (n + alignment - 1) / alignment * alignment; }

GgufTensor read_tensor_info(Cursor& in, const std::string& where) {
  GgufTensor t;
  const std::uint64_t at = in.pos();
  t.name = in.string("a tensor name");
  const std::string what = "tensor \"" + t.name + "\"";
  require(t.name.size() <= kMaxNameBytes, where + ": " + what + " at byte " + std::to_string(at) + " has a name of " +
                                              std::to_string(t.name.size()) + " bytes (at most " +
                                              std::to_string(kMaxNameBytes) + ")");
  const auto n_dims = in.number<std::uint32_t>("the n_dims of " + what);
  require(n_dims <= kMaxDims, where + ": " + what + " has " + std::to_string(n_dims) + " dims (at most " +
                                  std::to_string(kMaxDims) + ")");
  std::uint64_t numel = 1;
  for (std::uint32_t i = 0; i < n_dims; ++i) {
    const auto dim = in.number<std::uint64_t>("dim " + std::to_string(i) + " of " + what);
    require(dim == 0 || numel <= kMaxElements / dim,
            where + ": " + what + " has implausibly large dims (more than 2^60 elements)");
    numel *= dim;
    t.dims.push_back(dim);
  }
  t.shape.assign(t.dims.rbegin(), t.dims.rend());
  const std::uint64_t type_at = in.pos();
  const auto type_id = in.number<std::uint32_t>("the type of " + what);
  const kernels::GgmlTypeInfo* info = kernels::find_ggml_type(type_id);
  require(info != nullptr, where + ": " + what + " has unknown ggml type " + std::to_string(type_id) +
                               " at byte " + std::to_string(type_at));
  t.type = info->type;
  t.type_name = info->name;
  const std::uint64_t innermost = t.dims.empty() ? 1 : t.dims[0];
  const auto block_elements = static_cast<std::uint64_t>(info->block_elements);
  require(innermost % block_elements == 0,
          where + ": " + what + " of type " + info->name + " has an innermost dim of " + std::to_string(innermost) +
              ", not a multiple of its block size " + std::to_string(block_elements));
  t.bytes = numel / block_elements * static_cast<std::uint64_t>(info->block_bytes);  // no overflow: numel <= 2^60, block_bytes <= block_size * 4
  t.offset = in.number<std::uint64_t>("the data offset of " + what);
  return t;
}

// Checks the tensors' data lies within the file, aligned and without overlaps.
void check_tensor_data(const std::vector<GgufTensor>& tensors, std::uint64_t data_start, std::uint64_t file_size,
                       std::uint64_t alignment, const std::string& where) {
  const std::uint64_t data_size = data_start <= file_size ? file_size - data_start : 0;
  for (const auto& t : tensors) {
    const std::string what = where + ": tensor \"" + t.name + "\"";
    require(t.offset % alignment == 0, what + " data offset " + std::to_string(t.offset) +
                                           " is not a multiple of the alignment " + std::to_string(alignment));
    require(t.offset <= data_size && t.bytes <= data_size - t.offset,
            what + " data [" + std::to_string(t.offset) + ", +" + std::to_string(t.bytes) +
                ") lies past the end of the data section (" + std::to_string(data_size) + " bytes from byte " +
                std::to_string(data_start) + "; file truncated?)");
  }
  std::vector<const GgufTensor*> by_offset;
  for (const auto& t : tensors) by_offset.push_back(&t);
  std::sort(by_offset.begin(), by_offset.end(),
            [](const GgufTensor* a, const GgufTensor* b) { return a->offset < b->offset; });
  for (std::size_t i = 1; i < by_offset.size(); ++i) {
    const GgufTensor& prev = *by_offset[i - 1];
    const GgufTensor& next = *by_offset[i];
    require(next.offset >= prev.offset + prev.bytes,
            where + ": tensor \"" + next.name + "\" data at offset " + std::to_string(next.offset) +
                " overlaps tensor \"" + prev.name + "\" [" + std::to_string(prev.offset) + ", " +
                std::to_string(prev.offset + prev.bytes) + ")");
  }
}

}  // namespace

const char* gguf_type_name(GgufType type) {
  switch (type) {
    case GgufType::U8: return "u8";
    case GgufType::I8: return "i8";
    case GgufType::U16: return "u16";
    case GgufType::I16: return "i16";
    case GgufType::U32: return "u32";
    case GgufType::I32: return "i32";
    case GgufType::F32: return "f32";
    case GgufType::Bool: return "bool";
    case GgufType::String: return "string";
    case GgufType::Array: return "array";
    case GgufType::U64: return "u64";
    case GgufType::I64: return "i64";
    case GgufType::F64: return "f64";
  }
  return "?";
}

std::string GgufValue::type_text() const {
  return is_array() ? std::string("array of ") + gguf_type_name(item_type) : gguf_type_name(type);
}

std::uint64_t GgufTensor::numel() const {
  std::uint64_t n = 1;
  for (auto d : dims) n *= d;
  return n;
}

GgufFile GgufFile::read(const std::string& path) {
  auto mapped = MappedFile::open(path);
  GgufFile f = parse_mapped(*mapped, [&](std::string_view bytes) { return parse_view(bytes, path); });
  f.mapped_ = std::move(mapped);
  return f;
}

GgufFile GgufFile::parse(std::string bytes, const std::string& where) {
  auto owned = std::make_shared<const std::string>(std::move(bytes));
  GgufFile f = parse_view(*owned, where);
  f.owned_ = std::move(owned);
  return f;
}

GgufFile GgufFile::parse_view(std::string_view bytes, const std::string& where) {
  GgufFile f;
  f.where_ = where;
  f.bytes_ = bytes;
  Cursor in(bytes, where);
  require(bytes.size() >= 4 && bytes.substr(0, 4) == "GGUF",
          where + ": not a GGUF file (it does not start with the bytes \"GGUF\")");
  in.number<std::uint32_t>("the magic");
  f.version_ = in.number<std::uint32_t>("the version");
  require(f.version_ != 1, where + ": GGUF version 1 (32-bit counts) is not supported; convert it to version 3");
  require(f.version_ == 2 || f.version_ == 3,
          where + ": unsupported GGUF version " + std::to_string(f.version_) +
              ((f.version_ & 0xffff) == 0 ? " (a big-endian file? only little-endian is read)" : " (2 or 3 are read)"));
  const auto tensor_count = in.number<std::uint64_t>("the tensor count");
  const auto kv_count = in.number<std::uint64_t>("the key/value count");
  require(tensor_count <= kMaxCount, where + ": tensor count " + std::to_string(tensor_count) +
                                         " at byte 8 is implausible (at most 2^20)");
  require(kv_count <= kMaxCount, where + ": key/value count " + std::to_string(kv_count) +
                                     " at byte 16 is implausible (at most 2^20)");
  require(kv_count * kMinKvBytes + tensor_count * kMinTensorInfoBytes <= in.left(),
          where + ": header claims " + std::to_string(kv_count) + " key/value pairs and " +
              std::to_string(tensor_count) + " tensors but only " + std::to_string(in.left()) +
              " bytes follow (truncated or corrupt)");

  for (std::uint64_t i = 0; i < kv_count; ++i) {
    const std::uint64_t at = in.pos();
    std::string key = in.string("metadata key " + std::to_string(i));
    GgufValue value = read_value(in, key, where);
    require(!f.metadata_.count(key), where + ": duplicate metadata key \"" + key + "\" at byte " + std::to_string(at));
    f.keys_.push_back(key);
    f.metadata_.emplace(std::move(key), std::move(value));
  }
  if (const GgufValue* a = f.find("general.alignment")) {
    require(a->type == GgufType::U32, where + ": metadata \"general.alignment\" is " + a->type_text() +
                                          ", expected u32");
    f.alignment_ = std::get<std::uint64_t>(a->scalar);
    require(f.alignment_ != 0 && (f.alignment_ & (f.alignment_ - 1)) == 0,
            where + ": metadata \"general.alignment\" is " + std::to_string(f.alignment_) +
                ", not a power of two");
  } else {
    f.alignment_ = kDefaultAlignment;
  }

  for (std::uint64_t i = 0; i < tensor_count; ++i) {
    const std::uint64_t at = in.pos();
    GgufTensor t = read_tensor_info(in, where);
    require(!f.tensor_index_.count(t.name),
            where + ": duplicate tensor name \"" + t.name + "\" at byte " + std::to_string(at));
    f.tensor_index_.emplace(t.name, f.tensors_.size());
    f.tensors_.push_back(std::move(t));
  }
  f.data_start_ = align_up(in.pos(), f.alignment_);
  check_tensor_data(f.tensors_, f.data_start_, bytes.size(), f.alignment_, where);
  return f;
}

const GgufValue* GgufFile::find(const std::string& key) const {
  auto it = metadata_.find(key);
  return it == metadata_.end() ? nullptr : &it->second;
}

const GgufValue& GgufFile::at(const std::string& key) const {
  const GgufValue* v = find(key);
  require(v != nullptr, where_ + ": metadata has no \"" + key + "\"");
  return *v;
}

const GgufValue& GgufFile::typed(const std::string& key, GgufType expected) const {
  const GgufValue& v = at(key);
  require(v.type == expected, where_ + ": metadata \"" + key + "\" is " + v.type_text() + ", expected " +
                                  gguf_type_name(expected));
  return v;
}

const std::vector<GgufScalar>& GgufFile::typed_array(const std::string& key, GgufType item) const {
  const GgufValue& v = at(key);
  require(v.is_array() && v.item_type == item, where_ + ": metadata \"" + key + "\" is " + v.type_text() +
                                                   ", expected array of " + gguf_type_name(item));
  return v.items;
}

namespace {

// The scalar's value as T (its variant alternative is fixed by the checked type).
template <typename T>
T scalar_as(const GgufScalar& s) {
  if constexpr (std::is_same_v<T, bool> || std::is_same_v<T, std::string>) {
    return std::get<T>(s);
  } else if constexpr (std::is_floating_point_v<T>) {
    return static_cast<T>(std::get<double>(s));
  } else if constexpr (std::is_signed_v<T>) {
    return static_cast<T>(std::get<std::int64_t>(s));
  } else {
    return static_cast<T>(std::get<std::uint64_t>(s));
  }
}

template <typename T>
std::vector<T> items_as(const std::vector<GgufScalar>& items) {
  std::vector<T> out;  // (count,)
  out.reserve(items.size());
  for (const auto& s : items) out.push_back(scalar_as<T>(s));
  return out;
}

}  // namespace

std::uint8_t GgufFile::u8(const std::string& key) const { return scalar_as<std::uint8_t>(typed(key, GgufType::U8).scalar); }
std::int8_t GgufFile::i8(const std::string& key) const { return scalar_as<std::int8_t>(typed(key, GgufType::I8).scalar); }
std::uint16_t GgufFile::u16(const std::string& key) const { return scalar_as<std::uint16_t>(typed(key, GgufType::U16).scalar); }
std::int16_t GgufFile::i16(const std::string& key) const { return scalar_as<std::int16_t>(typed(key, GgufType::I16).scalar); }
std::uint32_t GgufFile::u32(const std::string& key) const { return scalar_as<std::uint32_t>(typed(key, GgufType::U32).scalar); }
std::int32_t GgufFile::i32(const std::string& key) const { return scalar_as<std::int32_t>(typed(key, GgufType::I32).scalar); }
std::uint64_t GgufFile::u64(const std::string& key) const { return scalar_as<std::uint64_t>(typed(key, GgufType::U64).scalar); }
std::int64_t GgufFile::i64(const std::string& key) const { return scalar_as<std::int64_t>(typed(key, GgufType::I64).scalar); }
float GgufFile::f32(const std::string& key) const { return scalar_as<float>(typed(key, GgufType::F32).scalar); }
double GgufFile::f64(const std::string& key) const { return scalar_as<double>(typed(key, GgufType::F64).scalar); }
bool GgufFile::boolean(const std::string& key) const { return scalar_as<bool>(typed(key, GgufType::Bool).scalar); }
const std::string& GgufFile::string(const std::string& key) const {
  return std::get<std::string>(typed(key, GgufType::String).scalar);
}

std::optional<std::uint32_t> GgufFile::optional_u32(const std::string& key) const {
  return find(key) ? std::optional(u32(key)) : std::nullopt;
}
std::optional<std::int32_t> GgufFile::optional_i32(const std::string& key) const {
  return find(key) ? std::optional(i32(key)) : std::nullopt;
}
std::optional<std::uint64_t> GgufFile::optional_u64(const std::string& key) const {
  return find(key) ? std::optional(u64(key)) : std::nullopt;
}
std::optional<float> GgufFile::optional_f32(const std::string& key) const {
  return find(key) ? std::optional(f32(key)) : std::nullopt;
}
std::optional<bool> GgufFile::optional_boolean(const std::string& key) const {
  return find(key) ? std::optional(boolean(key)) : std::nullopt;
}
std::optional<std::string> GgufFile::optional_string(const std::string& key) const {
  return find(key) ? std::optional(string(key)) : std::nullopt;
}

std::vector<std::string> GgufFile::strings(const std::string& key) const {
  return items_as<std::string>(typed_array(key, GgufType::String));
}
std::vector<float> GgufFile::f32s(const std::string& key) const { return items_as<float>(typed_array(key, GgufType::F32)); }
std::vector<std::int32_t> GgufFile::i32s(const std::string& key) const {
  return items_as<std::int32_t>(typed_array(key, GgufType::I32));
}
std::vector<std::uint32_t> GgufFile::u32s(const std::string& key) const {
  return items_as<std::uint32_t>(typed_array(key, GgufType::U32));
}
std::vector<std::int64_t> GgufFile::i64s(const std::string& key) const {
  return items_as<std::int64_t>(typed_array(key, GgufType::I64));
}
std::vector<std::uint64_t> GgufFile::u64s(const std::string& key) const {
  return items_as<std::uint64_t>(typed_array(key, GgufType::U64));
}

const GgufTensor* GgufFile::find_tensor(const std::string& name) const {
  auto it = tensor_index_.find(name);
  return it == tensor_index_.end() ? nullptr : &tensors_[it->second];
}

const GgufTensor& GgufFile::tensor(const std::string& name) const {
  const GgufTensor* t = find_tensor(name);
  require(t != nullptr, where_ + ": missing tensor \"" + name + "\"");
  return *t;
}

const unsigned char* GgufFile::data(const GgufTensor& tensor) const {
  return reinterpret_cast<const unsigned char*>(bytes_.data()) + data_start_ + tensor.offset;
}

std::shared_ptr<const void> GgufFile::owner() const {
  if (mapped_) return mapped_;
  return owned_;
}

void GgufFile::check_intact() const {
  if (mapped_) mapped_->check_intact();
}

}  // namespace heptapod
