// libFuzzer target for the GGUF reader: arbitrary bytes go through GgufFile::parse, and every metadata value
// and tensor it accepts is touched. A damaged file must end as a heptapod::Error; any other exception, crash,
// sanitizer report, leak or runaway allocation is a bug. Build and run: fuzz/README.md.
#include <cstddef>
#include <cstdint>
#include <string>

#include "heptapod/core/error.h"
#include "heptapod/io/gguf_file.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    const heptapod::GgufFile file =
        heptapod::GgufFile::parse(std::string(reinterpret_cast<const char*>(data), size), "fuzz-input");
    std::uint64_t sum = 0;
    for (const auto& key : file.keys()) sum += file.at(key).items.size();
    for (const auto& tensor : file.tensors()) {
      const unsigned char* bytes = file.data(tensor);  // every byte of every accepted tensor must be in bounds
      for (std::uint64_t i = 0; i < tensor.bytes; ++i) sum += bytes[i];
    }
    if (sum == 1) return 0;  // keeps the reads
  } catch (const heptapod::Error&) {
    // Expected for damaged input; anything else escapes and libFuzzer reports it.
  }
  return 0;
}
