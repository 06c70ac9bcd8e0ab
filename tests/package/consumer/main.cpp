// consumer MODEL SENTENCE: translates SENTENCE with the installed library's Translator (the defaults of
// `heptapod translate`: beam 4, alpha 0.6, all cores) and prints the best translation and a newline, as
// `heptapod translate -m MODEL` prints it for that one input line.
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include "heptapod/core/error.h"
#include "heptapod/decode/translator.h"
#include "heptapod/kernels/threads.h"

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s MODEL SENTENCE\n", argv[0]);
    return 2;
  }
  try {
    heptapod::set_num_threads(0);  // all cores, as `heptapod translate` without --threads
    heptapod::Translator translator(argv[1]);
    const heptapod::TranslateOptions options;
    const std::vector<heptapod::Translation> out = translator.translate({argv[2]}, options);
    if (out.size() != 1) {
      std::fprintf(stderr, "consumer: %zu translations for one sentence\n", out.size());
      return 1;
    }
    const std::string text = out[0].hypotheses.empty() ? std::string() : out[0].hypotheses[0].text;
    std::printf("%s\n", text.c_str());
  } catch (const heptapod::Error& e) {
    std::fprintf(stderr, "consumer: error: %s\n", e.what());
    return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "consumer: internal error: %s\n", e.what());
    return 1;
  }
  return 0;
}
