// Test helpers for end-to-end tests: temporary directories and running the heptapod binary.
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#define EXPECT_HAS_SUBSTR(text, part) \
  EXPECT_NE(std::string(text).find(part), std::string::npos) << "expected \"" << (part) << "\" in: " << (text)

namespace heptapod::test {

namespace fs = std::filesystem;

// A fresh directory, removed with everything in it at the end of the scope.
class TempDir {
 public:
  TempDir() {
    static std::atomic<int> counter{0};
    path_ = fs::temp_directory_path() / ("heptapod_test_" + std::to_string(::getpid()) + "_" + std::to_string(counter++));
    fs::remove_all(path_);
    fs::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  std::string file(const std::string& name) const { return (path_ / name).string(); }
  // Writes `text` to the file `name` in this directory and returns its path.
  std::string write(const std::string& name, const std::string& text) const {
    std::ofstream(file(name), std::ios::binary) << text;
    return file(name);
  }
  const fs::path& path() const { return path_; }
  std::vector<std::string> entries() const {
    std::vector<std::string> names;
    for (const auto& e : fs::directory_iterator(path_)) names.push_back(e.path().filename().string());
    std::sort(names.begin(), names.end());
    return names;
  }

 private:
  fs::path path_;
};

// A file of the committed test corpora (tests/data).
inline std::string data_file(const std::string& name) { return std::string(HEPTAPOD_FIXTURES) + "/../data/" + name; }

// Single-quotes s for the shell.
inline std::string quoted(const std::string& s) {
  std::string q = "'";
  for (char ch : s) q += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
  return q + "'";
}

inline std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The records of a training run's metrics.jsonl: those of `type` ("train", "valid"), or all.
inline std::vector<nlohmann::json> metrics_records(const std::string& run, const std::string& type = "") {
  std::vector<nlohmann::json> out;
  std::istringstream in(slurp(run + "/metrics.jsonl"));
  for (std::string line; std::getline(in, line);)
    if (auto j = nlohmann::json::parse(line); type.empty() || j["type"] == type) out.push_back(j);
  return out;
}

// Runs the heptapod binary with `args` (already quoted where needed), after `env` (NAME=value assignments,
// none by default) and under `wrapper` (a command that runs it, e.g. "timeout 20"; none by default); returns
// the exit status and the combined stdout and stderr in `log`.
inline int run_heptapod(const std::string& args, const TempDir& dir, std::string& log, const std::string& env = "",
                        const std::string& wrapper = "") {
  const std::string log_path = dir.file("heptapod.log");
  const std::string command = (env.empty() ? "" : "env " + env + " ") + (wrapper.empty() ? "" : wrapper + " ") +
                              quoted(HEPTAPOD_BINARY) + " " + args + " > " + quoted(log_path) + " 2>&1";
  const int status = std::system(command.c_str());
  log = fs::exists(log_path) ? slurp(log_path) : "";
  fs::remove(log_path);
  if (status == -1 || !WIFEXITED(status)) return -1;
  return WEXITSTATUS(status);
}

}  // namespace heptapod::test
