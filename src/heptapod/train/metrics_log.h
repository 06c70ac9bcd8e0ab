// The machine-readable training log: one JSON object per line (JSON Lines), appended and flushed as it
// goes, e.g. {"type":"train","step":100,"loss":4.1,...} and {"type":"valid","step":1000,"ce":3.2,...}.
#pragma once

#include <cstdio>
#include <string>

#include <nlohmann/json.hpp>

namespace heptapod {

class MetricsLog {
 public:
  // Opens path for appending. On a resume from step `resume_step`, lines of later steps (written by the
  // interrupted run after its last checkpoint) are dropped first, so the log reads as one uninterrupted run.
  MetricsLog(const std::string& path, long resume_step);
  ~MetricsLog();
  MetricsLog(const MetricsLog&) = delete;
  MetricsLog& operator=(const MetricsLog&) = delete;

  void write(const nlohmann::json& record);

 private:
  std::FILE* file_ = nullptr;
  std::string path_;
};

}  // namespace heptapod
