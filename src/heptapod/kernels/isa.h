// The instruction set the kernels run with, chosen once per process. Every kernel is compiled once per ISA
// (kernels/isa/, each build in its own namespace heptapod::kernels::<isa>), and the public kernel functions
// forward to the chosen ISA's table (kernels/kernel_table.h).
//   baseline  x86-64 (SSE2): runs on any x86-64 CPU
//   avx2      x86-64-v3: AVX2, FMA, F16C, BMI1/2 (Haswell, Zen 1 and later)
//   avx512    x86-64-v4: AVX-512 F/BW/VL/DQ/CD (Skylake-SP, Ice Lake, Zen 4 and later)
// The best ISA the CPU and OS support is the default; HEPTAPOD_ISA=baseline|avx2|avx512 forces one (an ISA the
// CPU lacks is an Error). With oneDNN as the float GEMM, oneDNN is capped to the same ISA before its first
// primitive (prepare_onednn): its packed weight layout decides which of our panel products run.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "heptapod/core/cpu_info.h"

namespace heptapod::kernels {

enum class Isa { baseline, avx2, avx512 };

const char* isa_name(Isa isa);
// "baseline", "avx2" or "avx512"; nothing for any other text.
std::optional<Isa> parse_isa(std::string_view name);
// The ISAs this binary holds kernels for, lowest first.
std::vector<Isa> compiled_isas();
// Whether this CPU (and OS) can run the kernels of `isa`.
bool cpu_runs(const CpuInfo& cpu, Isa isa);

struct IsaSelection {
  Isa isa = Isa::baseline;
  std::string reason;  // e.g. "best of baseline avx2 avx512 for this CPU" or "forced by HEPTAPOD_ISA=avx2"
};

// Chooses on first call (HEPTAPOD_ISA, else the best the CPU runs); the same answer after.
// Throws Error when HEPTAPOD_ISA names no ISA or one this CPU cannot run.
const IsaSelection& selected_isa();

// Caps oneDNN's ISA to the selected one, once, before its first primitive (every use of oneDNN calls it
// first): sse41, avx2 or avx512_core, or avx512_core_bf16 when bfloat16 products (kernels/matmul_precision.h)
// were asked for before it ran and the CPU has AVX512_BF16. A no-op for the other BLAS libraries.
void prepare_onednn();
// Asks for the avx512_core_bf16 cap, then caps (prepare_onednn); whether that cap is in effect: false without
// AVX512_BF16 or the avx512 ISA, or when oneDNN was capped already without it.
bool allow_onednn_bf16();

// The float GEMM library's own ISA after the cap (oneDNN's effective ISA), for `heptapod info`.
std::string blas_isa_description();

}  // namespace heptapod::kernels
