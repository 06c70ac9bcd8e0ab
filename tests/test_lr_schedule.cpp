// Learning-rate schedules against their formulas written out: the paper's noam rate, the inverse square root
// with a peak, and the linear cool-down at the end of a budget.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "heptapod/train/lr_schedule.h"

namespace heptapod {
namespace {

LrSchedule noam(int d_model, int warmup) {
  LrSchedule l;
  l.d_model = d_model;
  l.warmup_steps = warmup;
  return l;
}

TEST(LrSchedule, NoamIsThePapersFormula) {
  const LrSchedule l = noam(512, 4000);
  for (long step : {1L, 100L, 3999L, 4000L, 4001L, 100000L}) {
    const double expected = std::pow(512.0, -0.5) * std::min(std::pow(step, -0.5), step * std::pow(4000.0, -1.5));
    EXPECT_NEAR(l.at(step), expected, 1e-12) << step;
  }
  EXPECT_NEAR(l.at(4000), 6.987712429686843e-4, 1e-15);  // the peak: 512^-0.5 * 4000^-0.5
}

TEST(LrSchedule, InverseSqrtRisesToItsPeakThenFalls) {
  LrSchedule l;
  l.kind = LrSchedule::Kind::InverseSqrt;
  l.warmup_steps = 100;
  l.peak_lr = 1e-3;
  EXPECT_NEAR(l.at(50), 5e-4, 1e-15);
  EXPECT_NEAR(l.at(100), 1e-3, 1e-15);
  EXPECT_NEAR(l.at(400), 5e-4, 1e-15);
}

TEST(LrSchedule, CooldownFallsLinearlyFromTheRateWhereItStarts) {
  LrSchedule plain = noam(256, 1000);
  LrSchedule l = plain;
  l.total_steps = 16000;
  l.cooldown_steps = 3999;  // from update 12002 on
  for (long step : {1L, 1000L, 12000L, 12001L}) EXPECT_DOUBLE_EQ(l.at(step), plain.at(step)) << step;
  const double start = plain.at(12001);
  EXPECT_NEAR(l.at(12002), start * 3999 / 4000, 1e-15);
  EXPECT_NEAR(l.at(14001), start * 2000 / 4000, 1e-15);
  EXPECT_NEAR(l.at(16000), start / 4000, 1e-15);
  EXPECT_EQ(l.at(16001), 0.0);
  for (long step = 12002; step <= 16000; ++step) EXPECT_LT(l.at(step), l.at(step - 1)) << step;
}

TEST(LrSchedule, CooldownOffLeavesTheScheduleAsItWas) {
  LrSchedule l = noam(256, 1000);
  l.total_steps = 500;
  EXPECT_DOUBLE_EQ(l.at(2000), noam(256, 1000).at(2000));
}

}  // namespace
}  // namespace heptapod
