// .npy writing: a fixed-size header (so the final shape fits where the first one was), then the data.
#include "heptapod/io/npy.h"

#include <bit>
#include <cstring>

#include "heptapod/core/error.h"

namespace heptapod {

namespace {
constexpr std::size_t kHeaderBytes = 128;  // magic (6) + version (2) + length (2) + dict padded to 118 bytes
}

NpyMatrixWriter::NpyMatrixWriter(std::ostream& out, int columns) : out_(out), columns_(columns) {
  static_assert(std::endian::native == std::endian::little, ".npy rows are written as little-endian floats");
  require(columns >= 1, "npy: a matrix needs at least one column");
  const std::string h = header(0);
  out_.write(h.data(), static_cast<std::streamsize>(h.size()));
}

std::string NpyMatrixWriter::header(std::int64_t rows) const {
  std::string dict = "{'descr': '<f4', 'fortran_order': False, 'shape': (" + std::to_string(rows) + ", " +
                     std::to_string(columns_) + "), }";
  const std::size_t dict_bytes = kHeaderBytes - 10;
  require(dict.size() < dict_bytes, "npy: the shape does not fit the header");
  dict.append(dict_bytes - 1 - dict.size(), ' ');
  dict.push_back('\n');
  std::string h = "\x93NUMPY";
  h.push_back('\x01');
  h.push_back('\x00');
  h.push_back(static_cast<char>(dict_bytes & 0xff));
  h.push_back(static_cast<char>(dict_bytes >> 8));
  return h + dict;
}

void NpyMatrixWriter::add_row(const float* row) {
  out_.write(reinterpret_cast<const char*>(row), static_cast<std::streamsize>(sizeof(float) * columns_));
  ++rows_;
}

void NpyMatrixWriter::finish() {
  const std::streampos end = out_.tellp();
  out_.seekp(0);
  const std::string h = header(rows_);
  out_.write(h.data(), static_cast<std::streamsize>(h.size()));
  out_.seekp(end);
  require(static_cast<bool>(out_), "npy: the output is not seekable (write .npy to a file)");
}

}  // namespace heptapod
