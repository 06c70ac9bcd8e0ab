// Progress reporting for long work: a live status line redrawn in place on a terminal, plain log lines
// (at most one every few seconds) when output goes to a file or pipe.
#pragma once

#include <chrono>
#include <cstdio>
#include <string>
#include <utility>

namespace heptapod {

class Progress {
 public:
  // total: the number of steps expected (0 if unknown); first_step: where this run starts (a resumed run
  // starts past 0, and the ETA counts only the steps this run has done); stream: where to draw.
  explicit Progress(long total, long first_step = 0, std::FILE* stream = stderr, double log_interval_seconds = 5.0);
  // Counts in `unit` ("12/700 MB | ...") instead of steps ("step 12/700 | ...").
  Progress& counting(std::string unit) {
    unit_ = std::move(unit);
    return *this;
  }

  // Reports step `step` with a caller-formatted detail string ("loss 2.31 ppl 10.1 ..."). Adds elapsed
  // time and ETA. Throttled: cheap to call every step.
  void update(long step, const std::string& detail);
  // Ends the live line (prints the final state and a newline).
  void finish(long step, const std::string& detail);
  double elapsed_seconds() const;
  bool interactive() const { return interactive_; }

 private:
  std::string line(long step, const std::string& detail) const;
  long total_;
  long first_step_;
  std::FILE* stream_;
  bool interactive_;
  double log_interval_;
  std::string unit_;
  std::chrono::steady_clock::time_point start_;
  double last_print_ = -1e9;
};

// Writes one line of a run's log to stderr, at once.
void log_line(const std::string& text);

// "1h02m", "3m05s", "12s".
std::string format_duration(double seconds);

}  // namespace heptapod
