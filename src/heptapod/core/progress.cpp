// Progress line implementation.
#include "heptapod/core/progress.h"

#include <unistd.h>

namespace heptapod {

void log_line(const std::string& text) {
  std::fprintf(stderr, "%s\n", text.c_str());
  std::fflush(stderr);
}

std::string format_duration(double seconds) {
  if (seconds < 0 || seconds > 1e8) return "?";
  const long s = static_cast<long>(seconds + 0.5);
  char buf[32];
  if (s >= 3600) std::snprintf(buf, sizeof buf, "%ldh%02ldm", s / 3600, (s / 60) % 60);
  else if (s >= 60) std::snprintf(buf, sizeof buf, "%ldm%02lds", s / 60, s % 60);
  else std::snprintf(buf, sizeof buf, "%lds", s);
  return buf;
}

Progress::Progress(long total, long first_step, std::FILE* stream, double log_interval_seconds)
    : total_(total),
      first_step_(first_step),
      stream_(stream),
      interactive_(::isatty(::fileno(stream)) != 0),
      log_interval_(log_interval_seconds),
      start_(std::chrono::steady_clock::now()) {}

double Progress::elapsed_seconds() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
}

std::string Progress::line(long step, const std::string& detail) const {
  const double elapsed = elapsed_seconds();
  std::string s = unit_.empty() ? "step " + std::to_string(step) : std::to_string(step);
  if (total_ > 0) s.append("/").append(std::to_string(total_));  // (appends: GCC 12 misreads "/" + string)
  if (!unit_.empty()) s.append(" ").append(unit_);
  s += " | " + detail + " | " + format_duration(elapsed);
  if (total_ > 0 && step > first_step_)
    s += " elapsed, ETA " + format_duration(elapsed / (step - first_step_) * (total_ - step));
  return s;
}

void Progress::update(long step, const std::string& detail) {
  const double now = elapsed_seconds();
  const double interval = interactive_ ? 0.2 : log_interval_;
  if (now - last_print_ < interval) return;
  last_print_ = now;
  if (interactive_) std::fprintf(stream_, "\r\033[K%s", line(step, detail).c_str());
  else std::fprintf(stream_, "%s\n", line(step, detail).c_str());
  std::fflush(stream_);
}

void Progress::finish(long step, const std::string& detail) {
  if (interactive_) std::fprintf(stream_, "\r\033[K%s\n", line(step, detail).c_str());
  else std::fprintf(stream_, "%s\n", line(step, detail).c_str());
  std::fflush(stream_);
}

}  // namespace heptapod
