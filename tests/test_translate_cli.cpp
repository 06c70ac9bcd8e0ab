// Translation end to end: the Translator API and `heptapod translate` / `heptapod score` on a model with
// vocabularies (random weights: the tests check plumbing and invariants, not quality).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <sstream>

#include "heptapod/data/text_file.h"
#include "heptapod/decode/translator.h"
#include "heptapod/io/model_file.h"
#include "heptapod/model/initialize.h"
#include "test_process.h"
#include "vocab_model.h"

namespace heptapod {
namespace {

using test::quoted;
using test::run_heptapod;
using test::TempDir;

std::string data(const std::string& name) { return test::data_file(name); }

using test::make_model;

TEST(Translate, BatchedTranslationEqualsOneByOneAndScoresAgree) {
  TempDir dir;
  Translator translator(make_model(dir));
  const std::vector<std::string> input = {"three hundred", "", "twelve thousand and five", "one"};
  TranslateOptions o;
  o.search.max_extra_length = 10;
  o.batch_tokens = 16;  // several batches
  const auto all = translator.translate(input, o);
  ASSERT_EQ(all.size(), input.size());
  EXPECT_TRUE(all[1].hypotheses.empty());  // empty line in, empty line out
  for (std::size_t i = 0; i < input.size(); ++i) {
    if (input[i].empty()) continue;
    const auto one = translator.translate({input[i]}, o);
    ASSERT_EQ(one[0].hypotheses.size(), 1u);
    EXPECT_EQ(all[i].hypotheses[0].tokens, one[0].hypotheses[0].tokens) << input[i];
    // `score` of the output agrees with the search's own log-probability when the output ended with eos.
    const auto& h = all[i].hypotheses[0];
    const std::string target = translator.vocabularies().target.decode(h.tokens);
    if (translator.vocabularies().target.encode(target) != h.tokens) continue;  // not a round trip
    const auto s = translator.score({input[i]}, {target});
    const bool ended = static_cast<int>(h.tokens.size()) <
                       static_cast<int>(translator.vocabularies().source.encode(input[i]).size()) + 10;
    if (ended) {
      EXPECT_NEAR(s[0].log_prob, h.log_prob, 1e-3 * std::max(1.0, std::abs(static_cast<double>(h.log_prob))));
    }
  }
}

TEST(Translate, CliPreservesLinesReportsBadInputAndTruncates) {
  TempDir dir;
  const std::string model = make_model(dir);
  std::ofstream(dir.file("in.txt")) << "seven\n\nbad \xff line\n" << std::string(400, 'x') << "\nnine\n";
  std::string log;
  ASSERT_EQ(run_heptapod("translate -m " + quoted(model) + " -i " + quoted(dir.file("in.txt")) + " -o " +
                             quoted(dir.file("out.txt")) + " --max-extra-length 5 --max-input-tokens 50",
                         dir, log),
            0)
      << log;
  const std::string out = test::slurp(dir.file("out.txt"));
  EXPECT_EQ(std::count(out.begin(), out.end(), '\n'), 5);  // one output line per input line
  EXPECT_HAS_SUBSTR(log, "in.txt:3: invalid UTF-8");
  EXPECT_HAS_SUBSTR(log, "line 4: input truncated");

  ASSERT_EQ(run_heptapod("translate -m " + quoted(model) + " -i " + quoted(dir.file("in.txt")) +
                             " --max-extra-length 3 --nbest 3 --alignments",
                         dir, log),
            0)
      << log;
  EXPECT_HAS_SUBSTR(log, "0 ||| ");
  EXPECT_HAS_SUBSTR(log, "4 ||| ");

  ASSERT_EQ(run_heptapod("score -m " + quoted(model) + " --source " + quoted(data("numbers.dev.en")) + " --target " +
                             quoted(data("numbers.dev.es")) + " -o " + quoted(dir.file("scores.txt")) + " --per-token",
                         dir, log),
            0)
      << log;
  const auto scores = read_lines(dir.file("scores.txt"));
  ASSERT_EQ(scores.size(), 200u);
  EXPECT_LT(std::stod(scores[0]), 0.0);
}

TEST(Translate, ModelsThatDoNotLoadGiveClearErrors) {
  TempDir dir;
  std::string log;
  EXPECT_EQ(run_heptapod("translate -m " + quoted(dir.file("missing.htp")), dir, log), 1);
  EXPECT_HAS_SUBSTR(log, "missing.htp");
  std::ofstream(dir.file("junk.htp")) << "not a model";
  EXPECT_EQ(run_heptapod("translate -m " + quoted(dir.file("junk.htp")), dir, log), 1);
  EXPECT_HAS_SUBSTR(log, "junk.htp");
  ModelConfig c = model_preset("tiny");
  Transformer<float> model(c);
  save_model(dir.file("novocab.htp"), model);
  EXPECT_EQ(run_heptapod("translate -m " + quoted(dir.file("novocab.htp")) + " < /dev/null", dir, log), 1);
  EXPECT_HAS_SUBSTR(log, "holds no vocabularies");
}

// Input that is not a file fails loudly, never as an empty success; a command that does not exist, or none, is
// exit 2 with the list of commands.
TEST(Translate, ADirectoryAsInputAndUnknownCommandsAreErrors) {
  TempDir dir;
  std::string log;
  const std::string model = make_model(dir);
  const std::string out = dir.file("out.txt");
  EXPECT_EQ(run_heptapod("translate -m " + quoted(model) + " -i " + quoted(dir.file("")) + " -o " + quoted(out), dir, log), 1);
  EXPECT_HAS_SUBSTR(log, "is a directory");
  EXPECT_FALSE(test::fs::exists(out));
  EXPECT_EQ(run_heptapod("score -m " + quoted(model) + " --source " + quoted(dir.file("")) + " --target " +
                             quoted(dir.file("")),
                         dir, log),
            1);
  EXPECT_HAS_SUBSTR(log, "is a directory");
  EXPECT_EQ(run_heptapod("frobnicate", dir, log), 2);
  EXPECT_HAS_SUBSTR(log, "unknown command \"frobnicate\"");
  EXPECT_HAS_SUBSTR(log, "translate");
  EXPECT_EQ(run_heptapod("", dir, log), 2);
  EXPECT_HAS_SUBSTR(log, "a command is needed");
  EXPECT_EQ(run_heptapod("translate --batch-tokens 0 -m " + quoted(model) + " < /dev/null", dir, log), 105);
  EXPECT_HAS_SUBSTR(log, "--batch-tokens");
}

// The C++ API's ModelLoadOptions: the compute type a Translator runs in, the file's own by default.
TEST(Translate, ModelLoadOptionsChooseTheComputeType) {
  TempDir dir;
  const std::string model = make_model(dir);
  EXPECT_EQ(Translator(model).precision().type, ComputeType::Float32);
  const Translator int8(model, {ComputeType::Int8});
  EXPECT_EQ(int8.precision().type, ComputeType::Int8);
  EXPECT_FALSE(int8.precision().float_output);
  ModelLoadOptions keep;
  keep.compute_type = ComputeType::BFloat16;
  keep.float_output = true;
  EXPECT_TRUE(Translator(model, keep).precision().float_output);
  const std::string low = dir.file("low.htp");
  save_low_precision_model(SafetensorsFile::read(model), {ComputeType::Int8, true}, low);
  const Translator stored(low);
  EXPECT_EQ(stored.precision().type, ComputeType::Int8);
  EXPECT_TRUE(stored.precision().float_output);  // as the file keeps it
  EXPECT_EQ(Translator(low, {ComputeType::Float32}).precision().type, ComputeType::Float32);
}

// `heptapod quantize` writes a file that translates and scores as the float file does with --compute-type
// (the same weights, converted once instead of at every load); it refuses to overwrite its input or to
// quantize a quantized model.
TEST(Translate, QuantizedModelTranslatesAsComputeTypeDoes) {
  TempDir dir;
  const std::string model = make_model(dir);
  const std::string input = quoted(data("numbers.dev.en"));
  std::string log;
  for (const std::string type : {"int8", "bfloat16"}) {
    const std::string low = dir.file(type + ".htp");
    ASSERT_EQ(run_heptapod("quantize -m " + quoted(model) + " --to " + type + " -o " + quoted(low), dir, log), 0) << log;
    EXPECT_HAS_SUBSTR(log, "smaller");
    ASSERT_EQ(run_heptapod("translate -m " + quoted(low) + " -i " + input + " --max-extra-length 8 -o " +
                               quoted(dir.file("stored.txt")),
                           dir, log),
              0)
        << log;
    ASSERT_EQ(run_heptapod("translate -m " + quoted(model) + " --compute-type " + type + " -i " + input +
                               " --max-extra-length 8 -o " + quoted(dir.file("converted.txt")),
                           dir, log),
              0)
        << log;
    EXPECT_EQ(test::slurp(dir.file("stored.txt")), test::slurp(dir.file("converted.txt"))) << type;
    for (const std::string& m : {low, model}) {
      const std::string extra = m == model ? " --compute-type " + type : "";
      ASSERT_EQ(run_heptapod("score -m " + quoted(m) + extra + " --source " + input + " --target " + input + " -o " +
                                 quoted(dir.file(m == model ? "converted.scores" : "stored.scores")),
                             dir, log),
                0)
          << log;
    }
    EXPECT_EQ(test::slurp(dir.file("stored.scores")), test::slurp(dir.file("converted.scores"))) << type;
    EXPECT_EQ(run_heptapod("quantize -m " + quoted(low) + " --to int8 -o " + quoted(dir.file("again.htp")), dir, log), 1);
    EXPECT_HAS_SUBSTR(log, "already holds");
  }
  EXPECT_EQ(run_heptapod("quantize -m " + quoted(model) + " --to int8 -o " + quoted(model), dir, log), 1);
  EXPECT_HAS_SUBSTR(log, "is the input model");
  EXPECT_NE(run_heptapod("quantize -m " + quoted(model) + " --to int3 -o " + quoted(dir.file("x.htp")), dir, log), 0);
  EXPECT_HAS_SUBSTR(log, "--to");
  EXPECT_NE(run_heptapod("translate -m " + quoted(model) + " --compute-type half < /dev/null", dir, log), 0);
  EXPECT_HAS_SUBSTR(log, "--compute-type");
}

// Streaming (`--window`): the output of small windows equals the whole input's (int8: batch-invariant, so
// bytes and scores), n-best ids count across windows, a window boundary may cut a run of equal-length lines,
// and a last line without a newline is translated.
TEST(Translate, StreamedOutputEqualsWholeInputOutput) {
  TempDir dir;
  const std::string model = make_model(dir);
  std::vector<std::string> lines = read_lines(data("numbers.dev.es"));
  lines.resize(60);
  std::string text;
  for (int i = 0; i < 9; ++i) text += "uno dos tres\n";  // equal lengths, across a boundary of --window 4
  for (const std::string& l : lines) text += l + "\n";
  text += "siete";  // no newline
  const std::string input = dir.write("in.es", text);
  std::string log;
  for (const std::string& extra : {std::string(""), std::string("--nbest 2 ")}) {
    const std::string base = "translate -m " + quoted(model) + " --compute-type int8 --max-extra-length 6 --scores " +
                             extra + "-i " + quoted(input) + " -o ";
    ASSERT_EQ(run_heptapod(base + quoted(dir.file("whole.txt")), dir, log), 0) << log;
    ASSERT_EQ(run_heptapod(base + quoted(dir.file("windows.txt")) + " --window 4", dir, log), 0) << log;
    const std::string piped = "cat " + quoted(input) + " | " + quoted(HEPTAPOD_BINARY) + " " + base +
                              "- --window 1 > " + quoted(dir.file("piped.txt")) + " 2> " + quoted(dir.file("err.txt"));
    ASSERT_EQ(std::system(piped.c_str()), 0) << test::slurp(dir.file("err.txt"));
    const std::string whole = test::slurp(dir.file("whole.txt"));
    EXPECT_EQ(test::slurp(dir.file("windows.txt")), whole) << extra;
    EXPECT_EQ(test::slurp(dir.file("piped.txt")), whole) << extra;
    const std::size_t out_lines = static_cast<std::size_t>(std::count(whole.begin(), whole.end(), '\n'));
    EXPECT_EQ(out_lines, (lines.size() + 10) * (extra.empty() ? 1 : 2)) << "every line, the last one included";
  }
}

// A reader that closes the pipe early ends the run with a clear error, not a signal.
TEST(Translate, AClosedOutputPipeIsAClearError) {
  TempDir dir;
  const std::string model = make_model(dir);
  const std::string input = data("numbers.dev.es");
  const std::string command = "bash -c " + quoted("set -o pipefail; " + std::string(HEPTAPOD_BINARY) + " translate -m " +
                                                  quoted(model) + " --max-extra-length 6 --window 1 -i " + quoted(input) +
                                                  " 2> " + quoted(dir.file("err.txt")) + " | head -n 1 > /dev/null");
  const int status = std::system(command.c_str());
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 1) << test::slurp(dir.file("err.txt"));
  EXPECT_HAS_SUBSTR(test::slurp(dir.file("err.txt")), "cannot write to stdout: Broken pipe (its reader has closed it)");
}

// `heptapod score` streams too: windows give the whole input's scores, and unequal files name both counts.
TEST(Translate, StreamedScoresEqualWholeInputScores) {
  TempDir dir;
  const std::string model = make_model(dir);
  const std::string src = data("numbers.dev.es"), tgt = data("numbers.dev.en");
  std::string log;
  const std::string base = "score -m " + quoted(model) + " --compute-type int8 --source " + quoted(src) + " --target ";
  ASSERT_EQ(run_heptapod(base + quoted(tgt) + " -o " + quoted(dir.file("whole.txt")), dir, log), 0) << log;
  ASSERT_EQ(run_heptapod(base + quoted(tgt) + " --window 7 -o " + quoted(dir.file("windows.txt")), dir, log), 0) << log;
  EXPECT_EQ(test::slurp(dir.file("windows.txt")), test::slurp(dir.file("whole.txt")));
  std::string shorter;
  for (const std::string& l : read_lines(tgt)) shorter += shorter.size() < 40 ? l + "\n" : "";
  EXPECT_EQ(run_heptapod(base + quoted(dir.write("short.en", shorter)) + " --window 2 -o " + quoted(dir.file("x.txt")),
                         dir, log),
            1);
  EXPECT_HAS_SUBSTR(log, "line counts differ: " + src + " has 200 lines");
  EXPECT_FALSE(test::fs::exists(dir.file("x.txt"))) << "a failed run left an output file";
}

}  // namespace
}  // namespace heptapod

namespace heptapod {
namespace {

// `translate --sample`: the same seed gives the same bytes, read whole or a line at a time (a line's samples
// do not depend on its neighbours); another seed gives others. `--target-prefix`: every translation begins with
// its line's prefix; a prefix file of another length is an error naming it.
TEST(Translate, CliSamplesReproduciblyAndForcesPrefixes) {
  TempDir dir;
  const std::string model = make_model(dir);
  const std::string in = dir.write("in.txt", "three hundred\ntwelve thousand and five\none\nninety\n");
  const std::string base = "translate -m " + quoted(model) + " -i " + quoted(in) + " --max-extra-length 8 --threads 1";
  auto run = [&](const std::string& args) {
    std::string log;
    EXPECT_EQ(run_heptapod(base + " " + args + " -o " + quoted(dir.file("out.txt")), dir, log), 0) << log;
    return test::slurp(dir.file("out.txt"));
  };
  const std::string sampled = run("--sample --seed 7 --nbest 3 --temperature 1.3");
  EXPECT_EQ(std::count(sampled.begin(), sampled.end(), '\n'), 12);
  EXPECT_EQ(run("--sample --seed 7 --nbest 3 --temperature 1.3 --window 1"), sampled);
  EXPECT_NE(run("--sample --seed 8 --nbest 3 --temperature 1.3"), sampled);
  EXPECT_EQ(run("--sample --temperature 0"), run("--beam 1"));

  const std::string prefixes = dir.write("prefix.txt", "tres\n\ndoce mil\ncien\n");
  std::vector<std::string> out;
  std::istringstream text(run("--target-prefix " + quoted(prefixes)));
  for (std::string line; std::getline(text, line);) out.push_back(line);
  ASSERT_EQ(out.size(), 4u);
  EXPECT_EQ(out[0].rfind("tres", 0), 0u) << out[0];
  EXPECT_EQ(out[2].rfind("doce mil", 0), 0u) << out[2];
  EXPECT_EQ(out[3].rfind("cien", 0), 0u) << out[3];
  std::string log;
  EXPECT_EQ(run_heptapod(base + " --target-prefix " + quoted(dir.write("short.txt", "tres\n")), dir, log), 1);
  EXPECT_HAS_SUBSTR(log, "short.txt");
  EXPECT_EQ(run_heptapod(base + " --target-prefix " + quoted(dir.write("long.txt", "a\nb\nc\nd\ne\n")), dir, log), 1);
  EXPECT_HAS_SUBSTR(log, "long.txt: more lines than the input's 4");
}

}  // namespace
}  // namespace heptapod
