// The kernels' ISA: the choice (forced by HEPTAPOD_ISA or the best the CPU runs), the errors for an ISA that
// does not exist or that the CPU cannot run, and what `heptapod info` reports. The whole suite also runs once
// per ISA this machine supports (tests/CMakeLists.txt): under an ISA the CPU lacks, every test is skipped.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "heptapod/core/cpu_info.h"
#include "heptapod/kernels/isa.h"
#include "test_process.h"

namespace heptapod {
namespace {

namespace k = kernels;

// Skips every test of a run forced to an ISA this CPU (or this binary) cannot run.
class IsaEnvironment : public ::testing::Environment {
 public:
  void SetUp() override {
    const char* forced = std::getenv("HEPTAPOD_ISA");
    if (!forced || !*forced) return;
    const auto isa = k::parse_isa(forced);
    if (!isa) return;  // a typo fails the tests below instead
    bool built = false;
    for (k::Isa i : k::compiled_isas()) built = built || i == *isa;
    if (!built || !k::cpu_runs(cpu_info(), *isa)) GTEST_SKIP() << "this machine cannot run HEPTAPOD_ISA=" << forced;
  }
};
const auto* const kIsaEnvironment = ::testing::AddGlobalTestEnvironment(new IsaEnvironment);

TEST(Isa, ForcedIsaIsTheOneInUse) {
  const k::IsaSelection& s = k::selected_isa();
  const char* forced = std::getenv("HEPTAPOD_ISA");
  if (forced && *forced) {
    EXPECT_STREQ(k::isa_name(s.isa), forced);
    EXPECT_HAS_SUBSTR(s.reason, "HEPTAPOD_ISA");
  } else {
    // Unforced: the best compiled ISA the CPU runs.
    k::Isa best = k::Isa::baseline;
    for (k::Isa i : k::compiled_isas())
      if (k::cpu_runs(cpu_info(), i)) best = i;
    EXPECT_EQ(s.isa, best);
  }
}

TEST(Isa, NamesRoundTripAndUnknownNamesAreRejected) {
  for (k::Isa i : k::compiled_isas()) EXPECT_EQ(k::parse_isa(k::isa_name(i)), i);
  EXPECT_FALSE(k::parse_isa("avx512f").has_value());
  EXPECT_FALSE(k::parse_isa("").has_value());
}

TEST(Isa, LevelsAreNested) {
  const CpuInfo cpu = cpu_info();
  EXPECT_TRUE(k::cpu_runs(cpu, k::Isa::baseline));
  if (k::cpu_runs(cpu, k::Isa::avx512)) {
    EXPECT_TRUE(k::cpu_runs(cpu, k::Isa::avx2));
  }
  CpuInfo none;
  EXPECT_FALSE(k::cpu_runs(none, k::Isa::avx2));
  CpuInfo no_os = cpu;  // the OS does not save the AVX-512 state: not runnable whatever cpuid says
  no_os.os_avx512 = false;
  EXPECT_FALSE(k::cpu_runs(no_os, k::Isa::avx512));
}

TEST(Isa, InfoPrintsTheIsaAndWhy) {
  test::TempDir dir;
  std::string log;
  ASSERT_EQ(test::run_heptapod("info", dir, log), 0) << log;
  EXPECT_HAS_SUBSTR(log, std::string("kernels:  ") + k::isa_name(k::selected_isa().isa));
  EXPECT_HAS_SUBSTR(log, "gemm isa:");
}

TEST(Isa, UnknownIsaIsAClearError) {
  test::TempDir dir;
  std::string log;
  EXPECT_EQ(test::run_heptapod("info", dir, log, "HEPTAPOD_ISA=avx1024"), 1) << log;
  EXPECT_HAS_SUBSTR(log, "HEPTAPOD_ISA=avx1024 names no ISA (known: baseline");
}

TEST(Isa, AnIsaTheCpuLacksIsAClearError) {
  const CpuInfo cpu = cpu_info();
  for (k::Isa i : k::compiled_isas()) {
    if (k::cpu_runs(cpu, i)) continue;
    test::TempDir dir;
    std::string log;
    EXPECT_EQ(test::run_heptapod("info", dir, log, std::string("HEPTAPOD_ISA=") + k::isa_name(i)), 1) << log;
    EXPECT_HAS_SUBSTR(log, "this CPU cannot run it");
    return;
  }
  GTEST_SKIP() << "this CPU runs every ISA compiled in";
}

}  // namespace
}  // namespace heptapod
