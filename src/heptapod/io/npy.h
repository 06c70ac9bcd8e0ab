// NumPy's .npy format (version 1.0) for a float32 matrix written row by row: a header whose shape is patched
// once the row count is known, then the rows, little-endian. numpy.load reads the result.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>

namespace heptapod {

class NpyMatrixWriter {
 public:
  // Writes a header for (0, columns) float32 rows to `out`, which must be seekable (a file).
  NpyMatrixWriter(std::ostream& out, int columns);
  // Appends one row of `columns` floats.
  void add_row(const float* row);
  // Rewrites the header with the rows written; the stream stays at its end.
  void finish();
  std::int64_t rows() const { return rows_; }

 private:
  std::string header(std::int64_t rows) const;  // the magic, version, length and padded dict, 128 bytes
  std::ostream& out_;
  int columns_;
  std::int64_t rows_ = 0;
};

}  // namespace heptapod
