// What the CPU offers, for `heptapod info` and for choosing kernels at run time.
#pragma once

#include <string>

namespace heptapod {

struct CpuInfo {
  std::string brand;
  int logical_cores = 0;
  bool sse42 = false, avx = false, avx2 = false, fma = false, avx512f = false, f16c = false;
};

CpuInfo cpu_info();
// A space-separated list of the supported features above, e.g. "sse4.2 avx avx2 fma f16c".
std::string cpu_features_string(const CpuInfo& info);

}  // namespace heptapod
