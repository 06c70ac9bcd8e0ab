// The command line against bad input, table-driven: for each subcommand covered so far (translate, score,
// bleu, error-rate) every option in its --help has a row saying what kind of value it takes, and each kind
// brings its bad values (zero, negative, huge, NaN, wrong type, a missing file, a directory, a path in a
// missing directory, ...). Every bad run must end with a non-zero exit (not a signal), a message naming the
// option or the file, no output file left behind, within the time bound. A --help option without a row fails
// the test, so new options join the table.
#include <gtest/gtest.h>

#include <chrono>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "test_process.h"
#include "vocab_model.h"

namespace heptapod {
namespace {

using test::quoted;
using test::run_heptapod;
using test::TempDir;

enum class Kind {
  Positive,     // an integer >= 1
  NonNegative,  // an integer >= 0
  Bounded,      // an integer in a range shown by --help
  Number,       // any finite real
  NonNegativeNumber,
  Input,        // a file that must exist and be a file
  Output,       // a file written atomically
  Choice,       // one of a list
  Flag,         // no value
  Threads,      // an integer >= 0 (0: all cores)
  Text,         // free text (e.g. a comma-separated list), checked by the command
};

struct Subcommand {
  std::string name;
  std::string positionals;                                // valid positional arguments
  std::vector<std::pair<std::string, std::string>> base;  // valid options; the one under test is left out
  std::map<std::string, Kind> options;
};

// The command line of `cmd` with its base options, but `except`.
std::string command_line(const Subcommand& cmd, const std::string& except) {
  std::string line = cmd.name + " " + cmd.positionals;
  for (const auto& [option, value] : cmd.base)
    if (option != except) line += " " + option + " " + quoted(value);
  return line;
}

// The bad values of a kind, each with what the message must name ({} = the option itself).
std::vector<std::pair<std::string, std::string>> bad_values(Kind kind, const TempDir& dir) {
  const std::string missing = dir.file("no/such/file.txt");
  switch (kind) {
    case Kind::Positive:
      return {{"0", ""}, {"-5", ""}, {"abc", ""}, {"1.5", ""}, {"nan", ""}, {"99999999999999999999", ""}};
    case Kind::NonNegative:
    case Kind::Threads:
      return {{"-1", ""}, {"abc", ""}, {"nan", ""}, {"99999999999999999999", ""}};
    case Kind::Bounded:
      return {{"-1", ""}, {"abc", ""}, {"nan", ""}, {"100000", ""}};
    case Kind::Number:
      return {{"abc", ""}, {"nan", ""}, {"inf", ""}, {"1e999", ""}};
    case Kind::NonNegativeNumber:
      return {{"-1", ""}, {"abc", ""}, {"nan", ""}, {"inf", ""}};
    case Kind::Input:
    case Kind::Output:
      return {{missing, missing}, {dir.file(""), dir.file("")}};
    case Kind::Choice:
      return {{"bogus", ""}};
    case Kind::Flag:
    case Kind::Text:
      return {};
  }
  return {};
}

// The long option names that `heptapod NAME --help` lists.
std::set<std::string> help_options(const std::string& name, const TempDir& dir) {
  std::string log;
  EXPECT_EQ(run_heptapod(name + " --help", dir, log), 0) << log;
  std::set<std::string> out;
  const std::regex option(R"(^\s+(?:-\w,)?(--[\w-]+))");
  std::istringstream in(log);
  std::string line;
  while (std::getline(in, line)) {
    std::smatch m;
    if (std::regex_search(line, m, option) && m[1] != "--help") out.insert(m[1]);
  }
  return out;
}

TEST(CliRobustness, EveryOptionOfTheCoveredCommandsRefusesBadValues) {
  TempDir dir;
  const std::string model = test::make_model(dir);
  const std::string in = dir.write("in.txt", "veinte\nmil\n");
  const std::string ref = dir.write("ref.txt", "twenty\nthousand\n");
  const std::string out = dir.file("out.txt");
  const std::vector<Subcommand> table = {
      {"translate", "", {{"--model", model}, {"--input", in}, {"--output", out}},
       {{"--model", Kind::Input}, {"--input", Kind::Input}, {"--output", Kind::Output}, {"--window", Kind::Positive},
        {"--beam", Kind::Bounded}, {"--alpha", Kind::Number}, {"--max-extra-length", Kind::NonNegative},
        {"--min-length", Kind::NonNegative}, {"--cache", Kind::Choice}, {"--batch-tokens", Kind::Positive},
        {"--max-input-tokens", Kind::Positive}, {"--reject-long", Kind::Flag}, {"--nbest", Kind::Bounded},
        {"--scores", Kind::Flag}, {"--alignments", Kind::Flag}, {"--compute-type", Kind::Choice},
        {"--float-output", Kind::Flag}, {"--threads", Kind::Threads}}},
      {"score", "", {{"--model", model}, {"--source", in}, {"--target", ref}, {"--output", out}},
       {{"--model", Kind::Input}, {"--source", Kind::Input}, {"--target", Kind::Input}, {"--output", Kind::Output},
        {"--window", Kind::Positive}, {"--per-token", Kind::Flag}, {"--normalize", Kind::Flag}, {"--batch-tokens", Kind::Positive},
        {"--compute-type", Kind::Choice}, {"--float-output", Kind::Flag}, {"--threads", Kind::Threads}}},
      {"bleu", quoted(ref), {{"--input", in}},
       {{"--input", Kind::Input}, {"--metrics", Kind::Text}, {"--json", Kind::Flag}, {"--width", Kind::Bounded},
        {"--lowercase", Kind::Flag}, {"--tokenize", Kind::Choice}, {"--smooth-method", Kind::Choice},
        {"--smooth-value", Kind::NonNegativeNumber}, {"--max-ngram-order", Kind::Bounded},
        {"--chrf-char-order", Kind::Bounded}, {"--chrf-word-order", Kind::Bounded}, {"--chrf-beta", Kind::Bounded},
        {"--chrf-whitespace", Kind::Flag}, {"--chrf-lowercase", Kind::Flag}, {"--chrf-eps-smoothing", Kind::Flag}}},
  };
  const auto start = std::chrono::steady_clock::now();
  int runs = 0;
  for (const Subcommand& cmd : table) {
    // Every option of the command has a row.
    for (const std::string& o : help_options(cmd.name, dir))
      EXPECT_TRUE(cmd.options.count(o)) << cmd.name << " " << o << " has no row in the robustness table";
    std::string log;
    ASSERT_EQ(run_heptapod(command_line(cmd, "") + " < " + quoted(in), dir, log), 0) << cmd.name << ": " << log;
    for (const auto& [option, kind] : cmd.options) {
      for (const auto& [value, names] : bad_values(kind, dir)) {
        test::fs::remove(out);
        const std::string args = command_line(cmd, option) + " " + option + " " + quoted(value) + " < " + quoted(in);
        const int rc = run_heptapod(args, dir, log);
        ++runs;
        const std::string what = "heptapod " + cmd.name + " " + option + " " + value;
        EXPECT_GT(rc, 0) << what << " succeeded (or crashed): " << log;
        EXPECT_LT(rc, 128) << what << " died by a signal: " << log;
        EXPECT_HAS_SUBSTR(log, names.empty() ? option : names);
        if (option != "--output") {
          EXPECT_FALSE(test::fs::exists(out)) << what << " left an output file";
        }
      }
    }
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_LT(seconds, 120) << runs << " runs";
}

}  // namespace
}  // namespace heptapod
