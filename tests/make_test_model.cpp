// make_test_model PATH [KIND]: writes one of the tests' small random-weights models (tests/vocab_model.h) to
// PATH, for tests that run outside GoogleTest (tests/browser, tests/serve/openai, tests/python): KIND
// "translation" (the default), "generation" (a language model with 64 learned positions), "classification"
// (classes "number" and "word") or "embedding" (a pre-trained encoder). `make_test_model PATH adapter BASE`
// writes random LoRA adapters (rank 2 on q and v) over the model file BASE. A test tool, not part of the product.
#include <cstdio>
#include <exception>
#include <string>

#include "vocab_model.h"

int main(int argc, char** argv) {
  const std::string kind = argc >= 3 ? argv[2] : "translation";
  const bool adapter = kind == "adapter" && argc == 4;
  if (argc < 2 || (argc > 3 && !adapter) ||
      (kind != "translation" && kind != "generation" && kind != "classification" && kind != "embedding" && !adapter)) {
    std::fprintf(stderr,
                 "usage: make_test_model PATH [translation|generation|classification|embedding]\n"
                 "       make_test_model PATH adapter BASE\n");
    return 2;
  }
  try {
    const std::string path = argv[1];
    if (adapter) heptapod::test::make_adapter(argv[3], path);
    if (kind == "translation") heptapod::test::make_model(path);
    if (kind == "generation") heptapod::test::make_language_model(path, 64);
    if (kind == "classification" || kind == "embedding") heptapod::test::make_encoder(path, kind == "classification");
  } catch (const std::exception& e) {
    std::fprintf(stderr, "make_test_model: %s\n", e.what());
    return 1;
  }
  return 0;
}
