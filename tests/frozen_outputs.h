// The frozen outputs (tests/fixtures/frozen, written by tools/make_frozen_fixtures.sh with an earlier binary):
// reruns one of frozen/commands.txt's commands with this build's binary and checks that it makes exactly the
// recorded bytes: a command's output, or a training run's metrics (without timings) and model file.
#pragma once

#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "heptapod/kernels/isa.h"
#include "test_process.h"

namespace heptapod::test {

struct FrozenCommand {
  std::string name, kind;           // see commands.txt
  std::vector<std::string> words;   // the arguments, placeholders unreplaced
};

// gtest prints a parameter by its name.
inline void PrintTo(const FrozenCommand& c, std::ostream* os) { *os << c.name; }

inline std::string frozen_dir() { return std::string(HEPTAPOD_FIXTURES) + "/frozen"; }

inline std::vector<FrozenCommand> frozen_commands() {
  std::vector<FrozenCommand> out;
  std::ifstream in(frozen_dir() + "/commands.txt");
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream words(line);
    FrozenCommand c;
    words >> c.name >> c.kind;
    for (std::string w; words >> w;) c.words.push_back(w);
    out.push_back(c);
  }
  return out;
}

// The command's arguments for the shell, placeholders replaced; `run` is a training run's directory.
inline std::string frozen_arguments(const FrozenCommand& c, const std::string& run) {
  const std::string dir = frozen_dir();
  const std::pair<std::string, std::string> places[] = {
      {"{model}", dir + "/model.htp"},          {"{input}", dir + "/input.en"},
      {"{reference.en}", dir + "/reference.en"}, {"{reference.es}", dir + "/reference.es"},
      {"{data}", dir + "/../../data"},          {"{run}", run},
      {"{lm}", dir + "/lm.htp"},                {"{xl}", dir + "/xl.htp"},
      {"{encoder}", dir + "/encoder.htp"},      {"{classifier}", dir + "/classifier.htp"},
      {"{prompts.txt}", dir + "/prompts.txt"},  {"{labels.txt}", dir + "/labels.txt"},
      {"{reference.labels}", dir + "/reference.labels"}};
  std::string args;
  for (std::string w : c.words) {
    for (const auto& [from, to] : places)
      for (std::size_t at; (at = w.find(from)) != std::string::npos;) w.replace(at, from.size(), to);
    args += " " + test::quoted(w);
  }
  return args;
}

// A run's metrics records without their timings.
inline std::vector<nlohmann::json> metrics_without_timings(const std::string& path) {
  std::vector<nlohmann::json> out;
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);) {
    nlohmann::json j = nlohmann::json::parse(line);
    j.erase("elapsed_seconds");
    j.erase("tokens_per_second");
    out.push_back(j);
  }
  return out;
}

inline std::string sha256_of(const std::string& path, const TempDir& dir) {
  const std::string out = dir.file("sha256");
  EXPECT_EQ(std::system(("sha256sum < " + test::quoted(path) + " | cut -d' ' -f1 > " + test::quoted(out)).c_str()), 0);
  return slurp(out);
}

// Runs frozen command `c` under `launcher` (empty, or mpirun with its options) and compares what it makes with
// the fixtures of the ISA the kernels run now; skipped where none were recorded for it.
inline void check_frozen_command(const FrozenCommand& c, const std::string& launcher = "") {
  const std::string isa = kernels::isa_name(kernels::selected_isa().isa);
  const std::string expected = frozen_dir() + "/" + isa + "/" + c.name;
  if (!fs::exists(expected) && !fs::exists(expected + ".model.sha256"))
    GTEST_SKIP() << "no frozen outputs for ISA " << isa;
  TempDir dir;
  const std::string run = dir.file("run");
  const std::string command = "HEPTAPOD_ISA=" + isa + " " + launcher + " " + test::quoted(HEPTAPOD_BINARY) +
                              frozen_arguments(c, run) + " > " + test::quoted(dir.file("stdout")) + " 2> " +
                              test::quoted(dir.file("stderr")) + " < /dev/null";
  ASSERT_EQ(std::system(command.c_str()), 0) << command << "\n" << slurp(dir.file("stderr"));
  // A command may match the recorded outcome or one of its alternates, <isa>/NAME@LABEL(.*): the same command
  // on another machine, whose float32 GEMM blocks its sums differently (commands.txt).
  const std::string suffix = c.kind == "stdout" ? "" : ".model.sha256";
  std::vector<std::string> outcomes = {expected};
  for (const auto& entry : fs::directory_iterator(frozen_dir() + "/" + isa)) {
    const std::string file = entry.path().filename().string();
    if (!file.starts_with(c.name + "@") || !file.ends_with(suffix)) continue;
    const std::string outcome = file.substr(0, file.size() - suffix.size());
    if (outcome.find('.', c.name.size()) == std::string::npos)  // NAME@LABEL: a label has no dot
      outcomes.push_back(frozen_dir() + "/" + isa + "/" + outcome);
  }
  if (c.kind == "stdout") {
    const std::string out = slurp(dir.file("stdout"));
    for (const std::string& o : outcomes)
      if (out == slurp(o)) return;
    ADD_FAILURE() << c.name << " differs from " << expected << " and its " << outcomes.size() - 1 << " alternates";
    return;
  }
  const auto metrics = metrics_without_timings(run + "/metrics.jsonl");
  const std::string sha = sha256_of(run + "/model.htp", dir);
  for (const std::string& o : outcomes)
    if (metrics == metrics_without_timings(o + ".metrics.jsonl") && sha == slurp(o + ".model.sha256")) return;
  EXPECT_EQ(metrics, metrics_without_timings(expected + ".metrics.jsonl"));
  EXPECT_EQ(sha, slurp(expected + ".model.sha256"))
      << c.name << ": the model differs (from the recorded outcome and its " << outcomes.size() - 1 << " alternates)";
}

}  // namespace heptapod::test
