// CPU feature detection through cpuid (x86-64); other architectures report only the core count.
#include "heptapod/core/cpu_info.h"

#include <thread>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

namespace heptapod {

CpuInfo cpu_info() {
  CpuInfo info;
  info.logical_cores = static_cast<int>(std::thread::hardware_concurrency());
#if defined(__x86_64__) || defined(__i386__)
  unsigned a = 0, b = 0, c = 0, d = 0;
  if (__get_cpuid(1, &a, &b, &c, &d)) {
    info.sse42 = c & bit_SSE4_2;
    info.avx = c & bit_AVX;
    info.fma = c & bit_FMA;
    info.f16c = c & bit_F16C;
  }
  if (__get_cpuid_count(7, 0, &a, &b, &c, &d)) {
    info.avx2 = b & bit_AVX2;
    info.avx512f = b & bit_AVX512F;
  }
  unsigned words[12] = {};
  if (__get_cpuid(0x80000000, &a, &b, &c, &d) && a >= 0x80000004) {
    for (unsigned i = 0; i < 3; ++i)
      __get_cpuid(0x80000002 + i, &words[4 * i], &words[4 * i + 1], &words[4 * i + 2], &words[4 * i + 3]);
    info.brand.assign(reinterpret_cast<const char*>(words), sizeof(words));
    info.brand = info.brand.c_str();
    while (!info.brand.empty() && info.brand.back() == ' ') info.brand.pop_back();
  }
#endif
  return info;
}

std::string cpu_features_string(const CpuInfo& info) {
  std::string s;
  auto add = [&](bool on, const char* name) {
    if (!on) return;
    if (!s.empty()) s += ' ';
    s += name;
  };
  add(info.sse42, "sse4.2");
  add(info.avx, "avx");
  add(info.avx2, "avx2");
  add(info.fma, "fma");
  add(info.f16c, "f16c");
  add(info.avx512f, "avx512f");
  return s;
}

}  // namespace heptapod
