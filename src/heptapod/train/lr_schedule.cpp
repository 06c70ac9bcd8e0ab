// Learning-rate schedules.
#include "heptapod/train/lr_schedule.h"

#include <algorithm>
#include <cmath>

namespace heptapod {

namespace {

double warmup_then_decay(const LrSchedule& l, long step) {
  const double s = static_cast<double>(std::max(step, 1L));
  const double w = static_cast<double>(std::max(l.warmup_steps, 1));
  if (l.kind == LrSchedule::Kind::Noam)
    return l.scale * std::pow(l.d_model, -0.5) * std::min(std::pow(s, -0.5), s * std::pow(w, -1.5));
  return s < w ? l.peak_lr * s / w : l.peak_lr * std::sqrt(w / s);
}

}  // namespace

double LrSchedule::at(long step) const {
  const long cooldown_start = total_steps - cooldown_steps;
  if (cooldown_steps <= 0 || step <= cooldown_start) return warmup_then_decay(*this, step);
  // From the rate the schedule reaches at cooldown_start, by equal steps, to 1/(cooldown+1) of it at the
  // last update (and 0 past the budget, should a caller ask).
  const long left = std::max(total_steps - step + 1, 0L);
  return warmup_then_decay(*this, cooldown_start) * static_cast<double>(left) / static_cast<double>(cooldown_steps + 1);
}

}  // namespace heptapod
