// Learning-rate schedules: the paper's (noam) and a plain inverse square root with a peak rate, either one
// optionally ending in a linear cool-down to zero over the last updates of a fixed budget.
#pragma once

#include <string>

namespace heptapod {

struct LrSchedule {
  enum class Kind { Noam, InverseSqrt } kind = Kind::Noam;
  int warmup_steps = 4000;
  double scale = 1.0;      // noam: multiplies d_model^-0.5 * min(step^-0.5, step * warmup^-1.5)
  double peak_lr = 5e-4;   // inverse_sqrt: linear warm-up to peak_lr, then peak_lr * sqrt(warmup / step)
  int d_model = 512;
  long cooldown_steps = 0;  // > 0: the last cooldown_steps updates before total_steps fall linearly towards 0
  long total_steps = 0;     // the update budget (--steps), where the cool-down ends

  // Rate for optimizer step `step`, counted from 1.
  double at(long step) const;
};

}  // namespace heptapod
