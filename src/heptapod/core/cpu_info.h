// What the CPU offers, for `heptapod info` and for choosing kernels at run time (kernels/isa.h).
#pragma once

#include <string>

namespace heptapod {

struct CpuInfo {
  std::string brand;
  int logical_cores = 0;
  // cpuid feature bits.
  bool sse42 = false, popcnt = false, avx = false, avx2 = false, fma = false, f16c = false, bmi1 = false,
       bmi2 = false, lzcnt = false, movbe = false;
  bool avx512f = false, avx512bw = false, avx512vl = false, avx512dq = false, avx512cd = false,
       avx512vnni = false, avx512bf16 = false;
  // Whether the operating system saves the vector state (XCR0 through xgetbv): the AVX bits above are usable
  // only with os_avx, the AVX-512 ones only with os_avx512 as well.
  bool os_avx = false, os_avx512 = false;

  // x86-64-v3 (AVX2, FMA, F16C, BMI1/2, LZCNT, MOVBE) and x86-64-v4 (AVX-512 F/BW/VL/DQ/CD), OS support included.
  bool has_x86_64_v3() const;
  bool has_x86_64_v4() const;
};

CpuInfo cpu_info();
// A space-separated list of the supported features above, e.g. "sse4.2 avx avx2 fma f16c".
std::string cpu_features_string(const CpuInfo& info);

}  // namespace heptapod
