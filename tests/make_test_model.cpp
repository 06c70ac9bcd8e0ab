// make_test_model PATH: writes the tests' small random-weights model (tests/vocab_model.h) to PATH, for tests
// that run outside GoogleTest (tests/browser). A test tool, not part of the product.
#include <cstdio>
#include <exception>

#include "vocab_model.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: make_test_model PATH\n");
    return 2;
  }
  try {
    heptapod::test::make_model(std::string(argv[1]));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "make_test_model: %s\n", e.what());
    return 1;
  }
  return 0;
}
