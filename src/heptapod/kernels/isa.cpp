// Choosing the kernels' ISA once per process (see isa.h).
#include "heptapod/kernels/isa.h"

#include <atomic>
#include <cstdlib>
#include <mutex>

#include "heptapod/core/error.h"
#include "heptapod/kernels/kernel_table.h"

#if HEPTAPOD_BLAS_KIND == 3
#include <dnnl.h>
#endif

// Each ISA's table, defined by that ISA's build of kernels/isa/table.cpp.
namespace heptapod::kernels::baseline {
const KernelTable& kernel_table();
}
#ifdef HEPTAPOD_WITH_AVX2
namespace heptapod::kernels::avx2 {
const KernelTable& kernel_table();
}
#endif
#ifdef HEPTAPOD_WITH_AVX512
namespace heptapod::kernels::avx512 {
const KernelTable& kernel_table();
}
#endif

namespace heptapod::kernels {

namespace {

constexpr Isa kAllIsas[] = {Isa::baseline, Isa::avx2, Isa::avx512};

std::once_flag onednn_prepared;
std::atomic<bool> bf16_cap_wanted{false}, bf16_cap{false};

IsaSelection choose() {
  const CpuInfo cpu = cpu_info();
  const std::vector<Isa> compiled = compiled_isas();
  IsaSelection s;
  if (const char* forced = std::getenv("HEPTAPOD_ISA"); forced && *forced) {
    const std::optional<Isa> isa = parse_isa(forced);
    std::string known;
    for (Isa i : compiled) known += std::string(known.empty() ? "" : ", ") + isa_name(i);
    require(isa.has_value(), std::string("HEPTAPOD_ISA=") + forced + " names no ISA (known: " + known + ")");
    bool built = false;
    for (Isa i : compiled) built = built || i == *isa;
    require(built, std::string("HEPTAPOD_ISA=") + forced + ": this binary has no kernels for it (it has: " + known +
                       ")");
    require(cpu_runs(cpu, *isa), std::string("HEPTAPOD_ISA=") + forced + ": this CPU cannot run it (it has: " +
                                     cpu_features_string(cpu) + ")");
    s.isa = *isa;
    s.reason = std::string("forced by HEPTAPOD_ISA=") + forced;
  } else {
    std::string runnable;
    for (Isa i : compiled)
      if (cpu_runs(cpu, i)) {
        s.isa = i;
        runnable += std::string(runnable.empty() ? "" : " ") + isa_name(i);
      }
    s.reason = "the best this CPU runs of those built (" + runnable + ")";
  }
  return s;
}

}  // namespace

const char* isa_name(Isa isa) {
  switch (isa) {
    case Isa::avx512: return "avx512";
    case Isa::avx2: return "avx2";
    case Isa::baseline: break;
  }
  return "baseline";
}

std::optional<Isa> parse_isa(std::string_view name) {
  for (Isa i : kAllIsas)
    if (name == isa_name(i)) return i;
  return std::nullopt;
}

std::vector<Isa> compiled_isas() {
  return {Isa::baseline,
#ifdef HEPTAPOD_WITH_AVX2
          Isa::avx2,
#endif
#ifdef HEPTAPOD_WITH_AVX512
          Isa::avx512,
#endif
  };
}

bool cpu_runs(const CpuInfo& cpu, Isa isa) {
  switch (isa) {
    case Isa::avx512: return cpu.has_x86_64_v4();
    case Isa::avx2: return cpu.has_x86_64_v3();
    case Isa::baseline: break;
  }
  return true;
}

const IsaSelection& selected_isa() {
  static const IsaSelection selection = choose();
  return selection;
}

void prepare_onednn() {
  std::call_once(onednn_prepared, [] {
    const Isa isa = selected_isa().isa;
    bf16_cap = bf16_cap_wanted && isa == Isa::avx512 && cpu_info().avx512bf16;
#if HEPTAPOD_BLAS_KIND == 3
    const dnnl_cpu_isa_t cap = bf16_cap               ? dnnl_cpu_isa_avx512_core_bf16
                               : isa == Isa::avx512 ? dnnl_cpu_isa_avx512_core
                               : isa == Isa::avx2   ? dnnl_cpu_isa_avx2
                                                    : dnnl_cpu_isa_sse41;
    // Can be set once, and before oneDNN's first primitive: every way into oneDNN comes through here first.
    dnnl_set_max_cpu_isa(cap);
#endif
  });
}

bool allow_onednn_bf16() {
  bf16_cap_wanted = true;  // read only by the first prepare_onednn(): too late once oneDNN is capped
  prepare_onednn();
  return bf16_cap;
}

const KernelTable& isa_kernels(Isa isa) {
  switch (isa) {
#ifdef HEPTAPOD_WITH_AVX512
    case Isa::avx512: return avx512::kernel_table();
#endif
#ifdef HEPTAPOD_WITH_AVX2
    case Isa::avx2: return avx2::kernel_table();
#endif
    default: return baseline::kernel_table();
  }
}

const KernelTable& active_kernels() {
  static const KernelTable& table = isa_kernels(selected_isa().isa);
  return table;
}

std::string blas_isa_description() {
#if HEPTAPOD_BLAS_KIND == 3
  prepare_onednn();
  switch (dnnl_get_effective_cpu_isa()) {
    case dnnl_cpu_isa_sse41: return "oneDNN sse41";
    case dnnl_cpu_isa_avx: return "oneDNN avx";
    case dnnl_cpu_isa_avx2: return "oneDNN avx2";
    case dnnl_cpu_isa_avx512_core: return "oneDNN avx512_core";
    case dnnl_cpu_isa_avx512_core_vnni: return "oneDNN avx512_core_vnni";
    case dnnl_cpu_isa_avx512_core_bf16: return "oneDNN avx512_core_bf16";
    default: return "oneDNN (another ISA)";
  }
#else
  return "not capped (" HEPTAPOD_BLAS_NAME " picks its own kernels)";
#endif
}

}  // namespace heptapod::kernels
