// CPU feature detection through cpuid and xgetbv (x86-64); other architectures report only the core count.
#include "heptapod/core/cpu_info.h"

#include <thread>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

namespace heptapod {

namespace {

bool bit(unsigned word, int n) { return (word >> n) & 1u; }

#if defined(__x86_64__) || defined(__i386__)
// XCR0, the vector state the OS saves on a context switch (read only when cpuid reports OSXSAVE).
unsigned long long read_xcr0() {
  unsigned lo = 0, hi = 0;
  __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
  return (static_cast<unsigned long long>(hi) << 32) | lo;
}
#endif

}  // namespace

bool CpuInfo::has_x86_64_v3() const {
  return os_avx && avx && avx2 && fma && f16c && bmi1 && bmi2 && lzcnt && movbe;
}

bool CpuInfo::has_x86_64_v4() const {
  return has_x86_64_v3() && os_avx512 && avx512f && avx512bw && avx512vl && avx512dq && avx512cd;
}

CpuInfo cpu_info() {
  CpuInfo info;
  info.logical_cores = static_cast<int>(std::thread::hardware_concurrency());
#if defined(__x86_64__) || defined(__i386__)
  unsigned a = 0, b = 0, c = 0, d = 0;
  if (__get_cpuid(1, &a, &b, &c, &d)) {
    info.sse42 = bit(c, 20);
    info.popcnt = bit(c, 23);
    info.movbe = bit(c, 22);
    info.avx = bit(c, 28);
    info.fma = bit(c, 12);
    info.f16c = bit(c, 29);
    if (bit(c, 27)) {  // OSXSAVE: xgetbv is available
      const unsigned long long xcr0 = read_xcr0();
      info.os_avx = (xcr0 & 0x6) == 0x6;         // XMM and YMM state
      info.os_avx512 = (xcr0 & 0xe6) == 0xe6;    // and the opmask, ZMM_Hi256 and Hi16_ZMM state
    }
  }
  if (__get_cpuid_count(7, 0, &a, &b, &c, &d)) {
    info.bmi1 = bit(b, 3);
    info.avx2 = bit(b, 5);
    info.bmi2 = bit(b, 8);
    info.avx512f = bit(b, 16);
    info.avx512dq = bit(b, 17);
    info.avx512cd = bit(b, 28);
    info.avx512bw = bit(b, 30);
    info.avx512vl = bit(b, 31);
    info.avx512vnni = bit(c, 11);
    const unsigned max_subleaf = a;
    if (max_subleaf >= 1 && __get_cpuid_count(7, 1, &a, &b, &c, &d)) info.avx512bf16 = bit(a, 5);
  }
  if (__get_cpuid(0x80000001, &a, &b, &c, &d)) info.lzcnt = bit(c, 5);
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
  add(info.popcnt, "popcnt");
  add(info.avx && info.os_avx, "avx");
  add(info.avx2 && info.os_avx, "avx2");
  add(info.fma && info.os_avx, "fma");
  add(info.f16c && info.os_avx, "f16c");
  add(info.bmi1, "bmi1");
  add(info.bmi2, "bmi2");
  add(info.lzcnt, "lzcnt");
  add(info.movbe, "movbe");
  const bool z = info.os_avx512;
  add(info.avx512f && z, "avx512f");
  add(info.avx512bw && z, "avx512bw");
  add(info.avx512vl && z, "avx512vl");
  add(info.avx512dq && z, "avx512dq");
  add(info.avx512cd && z, "avx512cd");
  add(info.avx512vnni && z, "avx512vnni");
  add(info.avx512bf16 && z, "avx512bf16");
  if ((info.avx || info.avx512f) && !info.os_avx) s += s.empty() ? "(AVX state not enabled by the OS)" : " (AVX state not enabled by the OS)";
  return s;
}

}  // namespace heptapod
