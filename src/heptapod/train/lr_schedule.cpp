// Learning-rate schedules.
#include "heptapod/train/lr_schedule.h"

#include <algorithm>
#include <cmath>

namespace heptapod {

double LrSchedule::at(long step) const {
  const double s = static_cast<double>(std::max(step, 1L));
  const double w = static_cast<double>(std::max(warmup_steps, 1));
  if (kind == Kind::Noam) return scale * std::pow(d_model, -0.5) * std::min(std::pow(s, -0.5), s * std::pow(w, -1.5));
  return s < w ? peak_lr * s / w : peak_lr * std::sqrt(w / s);
}

}  // namespace heptapod
