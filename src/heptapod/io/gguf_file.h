// Reading the GGUF container (llama.cpp's model files; docs/models.md section 4): the header, the typed
// key/value metadata, the tensor table and the aligned tensor data, mapped in place. Versions 2 and 3,
// little-endian. The reader checks every length, count, type and offset against the file and names the
// problem (file, key, tensor, byte offset); it never trusts the file. What the metadata and the tensors mean
// (a model's configuration, its weights) is for the model loaders.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "heptapod/io/mapped_file.h"
#include "heptapod/kernels/gguf_blocks.h"

namespace heptapod {

// A metadata value's type id as stored in the file.
enum class GgufType : std::uint32_t {
  U8 = 0, I8 = 1, U16 = 2, I16 = 3, U32 = 4, I32 = 5, F32 = 6, Bool = 7, String = 8, Array = 9,
  U64 = 10, I64 = 11, F64 = 12,
};
const char* gguf_type_name(GgufType type);  // "u32", "string", ...

// One scalar: unsigned types as u64, signed as i64, f32 and f64 as double (f32 exactly), bool, string.
using GgufScalar = std::variant<std::uint64_t, std::int64_t, double, bool, std::string>;

// A metadata value with the type it was stored as, so a reader can insist on it. An array holds items of
// one scalar type (arrays of arrays are refused).
struct GgufValue {
  GgufType type = GgufType::U8;
  GgufType item_type = GgufType::U8;  // an array's items' type; unused otherwise
  GgufScalar scalar;                  // unused for an array
  std::vector<GgufScalar> items;      // (count,) an array's items
  bool is_array() const { return type == GgufType::Array; }
  // "u32", or "array of string", for messages.
  std::string type_text() const;
};

struct GgufTensor {
  std::string name;
  std::vector<std::uint64_t> dims;  // (n_dims,) as stored: innermost (contiguous) first
  std::vector<std::int64_t> shape;  // (n_dims,) PyTorch order: dims reversed
  kernels::GgmlType type = kernels::GgmlType::F32;  // kernels/gguf_blocks.h: its block layout
  const char* type_name = "F32";
  std::uint64_t offset = 0;  // from the start of the data section
  std::uint64_t bytes = 0;   // numel / block_size * block_bytes
  std::uint64_t numel() const;
};

class GgufFile {
 public:
  // Maps (reads in place) and checks a file; messages name the path.
  static GgufFile read(const std::string& path);
  // Checks an in-memory image; `where` names it in messages.
  static GgufFile parse(std::string bytes, const std::string& where);

  const std::string& where() const { return where_; }
  std::uint32_t version() const { return version_; }
  std::uint64_t alignment() const { return alignment_; }
  std::uint64_t data_start() const { return data_start_; }  // byte offset of the data section in the file

  // Keys in file order, and their values.
  const std::vector<std::string>& keys() const { return keys_; }
  const std::map<std::string, GgufValue>& metadata() const { return metadata_; }
  const GgufValue* find(const std::string& key) const;  // nullptr when absent
  const GgufValue& at(const std::string& key) const;    // throws Error naming the key when absent

  // Typed getters: throw Error naming the file, the key and the expected and found types when the key is
  // absent or stored as another type. The optional_ variants give nullopt when the key is absent (and still
  // throw on a wrong type).
  std::uint8_t u8(const std::string& key) const;
  std::int8_t i8(const std::string& key) const;
  std::uint16_t u16(const std::string& key) const;
  std::int16_t i16(const std::string& key) const;
  std::uint32_t u32(const std::string& key) const;
  std::int32_t i32(const std::string& key) const;
  std::uint64_t u64(const std::string& key) const;
  std::int64_t i64(const std::string& key) const;
  float f32(const std::string& key) const;
  double f64(const std::string& key) const;
  bool boolean(const std::string& key) const;
  const std::string& string(const std::string& key) const;
  std::optional<std::uint32_t> optional_u32(const std::string& key) const;
  std::optional<std::int32_t> optional_i32(const std::string& key) const;
  std::optional<std::uint64_t> optional_u64(const std::string& key) const;
  std::optional<float> optional_f32(const std::string& key) const;
  std::optional<bool> optional_boolean(const std::string& key) const;
  std::optional<std::string> optional_string(const std::string& key) const;
  // Arrays, insisting on the items' type.
  std::vector<std::string> strings(const std::string& key) const;
  std::vector<float> f32s(const std::string& key) const;
  std::vector<std::int32_t> i32s(const std::string& key) const;
  std::vector<std::uint32_t> u32s(const std::string& key) const;
  std::vector<std::int64_t> i64s(const std::string& key) const;
  std::vector<std::uint64_t> u64s(const std::string& key) const;

  // Tensors in file order.
  const std::vector<GgufTensor>& tensors() const { return tensors_; }
  const GgufTensor* find_tensor(const std::string& name) const;  // nullptr when absent
  const GgufTensor& tensor(const std::string& name) const;       // throws Error naming the tensor when absent
  // The tensor's bytes (tensor.bytes of them) in the mapping or image.
  const unsigned char* data(const GgufTensor& tensor) const;
  // Throws Error naming the file if it shrank while mapped (bytes read from data() since may be zeros).
  void check_intact() const;
  // The whole file's bytes, the object that keeps them alive (the mapping or the image) and the mapping (null
  // for an image): for views that point into the file.
  std::string_view bytes() const { return bytes_; }
  std::shared_ptr<const void> owner() const;
  const MappedFile* mapping() const { return mapped_.get(); }

 private:
  static GgufFile parse_view(std::string_view bytes, const std::string& where);
  const GgufValue& typed(const std::string& key, GgufType expected) const;
  const std::vector<GgufScalar>& typed_array(const std::string& key, GgufType item) const;

  std::string where_;
  std::shared_ptr<const std::string> owned_;  // the image, when parsed from memory
  std::shared_ptr<const MappedFile> mapped_;  // or the mapping, when read from a file
  std::string_view bytes_;                    // the whole file
  std::uint32_t version_ = 0;
  std::uint64_t alignment_ = 32;
  std::uint64_t data_start_ = 0;
  std::vector<std::string> keys_;
  std::map<std::string, GgufValue> metadata_;
  std::vector<GgufTensor> tensors_;
  std::map<std::string, std::size_t> tensor_index_;
};

}  // namespace heptapod
