// Reading and writing the safetensors container (the layout of Heptapod model files, see
// docs/model-format.md). The reader validates everything and names the problem; it never trusts the file.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "heptapod/io/mapped_file.h"

namespace heptapod {

enum class DType { F32, F64, I32, I64, U8, I8, BF16, F16, Bool };
const char* dtype_name(DType d);
std::string shape_text(const std::vector<std::int64_t>& shape);  // "(3, 4)", for messages
std::size_t dtype_size(DType d);

struct TensorEntry {
  std::string name;
  DType dtype = DType::F32;
  std::vector<std::int64_t> shape;
  std::size_t begin = 0, end = 0;  // byte offsets within the data section (an outside tensor's: the outside bytes)
  bool outside = false;            // a composed file's tensor in its outside bytes (SafetensorsFile::compose)
  std::int64_t numel() const;
};

// Bytes a composed model file's tensors point into (a GGUF file's mapping or image), kept alive by `owner`;
// `mapped`, when they are a mapping, releases their pages and tells whether the file shrank.
struct OutsideBytes {
  std::shared_ptr<const void> owner;
  std::string_view bytes;
  const MappedFile* mapped = nullptr;
};

class SafetensorsFile {
 public:
  // Maps (reads in place) and validates a file. "where" in messages is the path.
  static SafetensorsFile read(const std::string& path);
  // Validates an in-memory image; `where` names it in messages.
  static SafetensorsFile parse(std::string bytes, const std::string& where);
  // A file made of an in-memory image (its metadata and small tensors) and `outside` tensors whose begin and
  // end are offsets into `bytes`, not copied: how a GGUF file reads as a model file without copying its
  // weights. Each outside tensor is checked (in bounds, its bytes its shape's, its name not the image's).
  static SafetensorsFile compose(std::string image, const std::string& where, OutsideBytes bytes,
                                 std::vector<TensorEntry> outside);

  const std::string& where() const { return where_; }
  const std::map<std::string, std::string>& metadata() const { return metadata_; }
  // Throws Error if the key is missing.
  const std::string& metadata(const std::string& key) const;
  const std::vector<TensorEntry>& tensors() const { return tensors_; }
  const TensorEntry* find(const std::string& name) const;
  // Throws Error if missing.
  const TensorEntry& at(const std::string& name) const;
  const unsigned char* data(const TensorEntry& entry) const;
  // Gives back the memory of a tensor already copied out (a mapped file's pages; nothing for an in-memory
  // image). Its data may still be read afterwards (the pages come back from the file). Checks first that
  // the file did not shrink while it was read (check_intact).
  void release(const TensorEntry& entry) const;
  // Throws Error naming the file if it shrank while mapped, so bytes read from data() since may be zeros:
  // call after copying data out. floats() and ints() check by themselves.
  void check_intact() const;
  // Values of a float tensor (F32 or F64) converted to T; of an integer tensor (I32 or I64) as int.
  template <typename T>
  std::vector<T> floats(const std::string& name) const;
  std::vector<int> ints(const std::string& name) const;

 private:
  static SafetensorsFile parse_view(std::string_view bytes, const std::string& where);

  std::string where_;
  std::shared_ptr<const std::string> owned_;     // the image, when parsed from memory
  std::shared_ptr<const MappedFile> mapped_;     // or the mapping, when read from a file
  std::string_view bytes_;                       // the whole file
  std::size_t data_start_ = 0;
  std::map<std::string, std::string> metadata_;
  std::vector<TensorEntry> tensors_;
  std::map<std::string, std::size_t> index_;
  OutsideBytes outside_;  // a composed file's
};

class SafetensorsWriter {
 public:
  void set_metadata(const std::string& key, const std::string& value) { metadata_[key] = value; }
  // Copies `bytes` (numel * dtype_size bytes, little-endian).
  void add(const std::string& name, DType dtype, std::vector<std::int64_t> shape, const void* bytes);
  // Writes atomically (temp file + rename).
  void write(const std::string& path) const;
  std::string serialize() const;

 private:
  std::map<std::string, std::string> metadata_;
  std::vector<TensorEntry> tensors_;
  std::string data_;
};

}  // namespace heptapod
