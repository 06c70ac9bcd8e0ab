// libFuzzer target for the model loader: arbitrary bytes go through SafetensorsFile::parse and
// load_model(const SafetensorsFile&). A damaged file must end as a heptapod::Error; any other exception,
// crash, sanitizer report, leak or runaway allocation is a bug. Build and run: fuzz/README.md.
#include <cstddef>
#include <cstdint>
#include <string>

#include "heptapod/core/error.h"
#include "heptapod/io/model_file.h"
#include "heptapod/io/safetensors.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    const heptapod::SafetensorsFile file =
        heptapod::SafetensorsFile::parse(std::string(reinterpret_cast<const char*>(data), size), "fuzz-input");
    const auto model = heptapod::load_model(file);
  } catch (const heptapod::Error&) {
    // Expected for damaged input; anything else escapes and libFuzzer reports it.
  }
  return 0;
}
