// JSON Lines metrics file with resume truncation.
#include "heptapod/train/metrics_log.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "heptapod/core/error.h"
#include "heptapod/io/atomic_file.h"

namespace heptapod {

MetricsLog::MetricsLog(const std::string& path, long resume_step) : path_(path) {
  if (std::filesystem::exists(path)) {
    std::ifstream in(path);
    if (!in || std::filesystem::is_directory(path)) throw Error("cannot read metrics from " + path);
    std::ostringstream kept;
    std::string line;
    long number = 0;
    while (std::getline(in, line)) {
      ++number;
      const auto j = nlohmann::json::parse(line, nullptr, false);
      if (j.is_discarded() || !j.is_object()) {  // a torn last line from a killed run, or damage
        std::cerr << "warning: " << path << ":" << number << ": not a JSON record; dropped\n";
        continue;
      }
      if (j.contains("step") && j["step"].is_number() && j["step"].get<long>() > resume_step) continue;
      kept << line << '\n';
    }
    const std::string text = kept.str();
    write_file_atomic(path, [&](std::ostream& out) { out << text; });
  }
  file_ = std::fopen(path.c_str(), "a");
  if (!file_) throw Error("cannot write metrics to " + path + ": " + std::strerror(errno));
}

MetricsLog::~MetricsLog() {
  if (file_) std::fclose(file_);
}

void MetricsLog::write(const nlohmann::json& record) {
  const std::string line = record.dump() + "\n";
  if (std::fwrite(line.data(), 1, line.size(), file_) != line.size() || std::fflush(file_) != 0)
    throw Error("cannot write metrics to " + path_ + ": " + std::strerror(errno));
}

}  // namespace heptapod
