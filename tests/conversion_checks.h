// Shared checks of `heptapod convert` on a checkpoint fixture: a copy of it changed, and the refusal that
// must follow.
#pragma once

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <filesystem>
#include <functional>
#include <string>

#include "heptapod/io/atomic_file.h"
#include "test_process.h"
#include "test_util.h"

namespace heptapod::test {

// A copy of fixture `family` changed by `change` (given the copy's directory), converted with `--from from`:
// the log of its refusal, which must write no output.
inline std::string refused_conversion(const std::string& family, const std::string& from,
                                      const std::function<void(const std::string& dir)>& change) {
  TempDir dir;
  const std::string copy = dir.file(family);
  std::filesystem::copy(fixture(family), copy);
  change(copy);
  std::string log;
  EXPECT_NE(run_heptapod("convert " + quoted(copy) + " --from " + from + " -o " + quoted(dir.file("out.htp")), dir, log),
            0)
      << log;
  EXPECT_FALSE(std::filesystem::exists(dir.file("out.htp"))) << "a refused conversion wrote its output";
  return log;
}

// A change of a checkpoint directory: its config.json's object changed by `edit`.
inline std::function<void(const std::string&)> config_edit(const std::function<void(nlohmann::json&)>& edit) {
  return [edit](const std::string& dir) {
    nlohmann::json j = nlohmann::json::parse(read_file(dir + "/config.json"));
    edit(j);
    write_file_atomic(dir + "/config.json", [&](std::ostream& out) { out << j.dump(); });
  };
}

}  // namespace heptapod::test
