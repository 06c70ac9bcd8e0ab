// libFuzzer target for the GGUF reader and the GGUF model import: arbitrary bytes go through GgufFile::parse,
// every metadata value and tensor it accepts is touched, and an accepted file is read as a model file
// (gguf_model_file: config, tensors, tokenizer) and loaded for inference with its vocabularies. A damaged file must end as a heptapod::Error; any other exception, crash,
// sanitizer report, leak or runaway allocation is a bug. Build and run: fuzz/README.md.
#include <cstddef>
#include <cstdint>
#include <string>

#include "heptapod/core/error.h"
#include "heptapod/data/gguf_import.h"
#include "heptapod/data/model_vocab.h"
#include "heptapod/io/gguf_file.h"
#include "heptapod/io/model_file.h"

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
    const heptapod::SafetensorsFile model = heptapod::gguf_model_file(file);
    const auto loaded = heptapod::load_inference_model(model, heptapod::stored_precision(model));
    heptapod::read_vocabularies(model, loaded->config());
  } catch (const heptapod::Error&) {
    // Expected for damaged input; anything else escapes and libFuzzer reports it.
  }
  return 0;
}
