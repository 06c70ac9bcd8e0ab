// `heptapod info`: version, BLAS, threads, CPU features and the kernels' ISA (with why it was chosen).
#include <cstdio>

#include "commands.h"
#include "heptapod/core/cpu_info.h"
#include "heptapod/kernels/blas.h"
#include "heptapod/train/communicator.h"
#include "heptapod/kernels/isa.h"
#include "heptapod/kernels/low_precision_weights.h"
#include "heptapod/kernels/threads.h"

namespace heptapod::app {

Runner add_info_command(CLI::App& root) {
  auto* cmd = root.add_subcommand("info", "Print version, BLAS, threads, CPU features and the kernels' ISA");
  auto threads = std::make_shared<int>(0);
  cmd->add_option("--threads", *threads, "Threads to use (0: all cores)")->check(CLI::NonNegativeNumber);
  return [threads] {
    set_num_threads(*threads);
    const CpuInfo cpu = cpu_info();
    std::printf("heptapod %s\n", HEPTAPOD_VERSION);
    std::printf("blas:     %s\n", kernels::blas_description().c_str());
    std::printf("threads:  %d (of %d logical cores)\n", num_threads(), cpu.logical_cores);
    std::printf("cpu:      %s\n", cpu.brand.empty() ? "unknown" : cpu.brand.c_str());
    std::printf("features: %s\n", cpu_features_string(cpu).c_str());
    const kernels::IsaSelection& isa = kernels::selected_isa();
    std::printf("kernels:  %s (%s)\n", kernels::isa_name(isa.isa), isa.reason.c_str());
    std::printf("gemm isa: %s\n", kernels::blas_isa_description().c_str());
    std::printf("low-prec: %s\n", kernels::low_precision_paths().c_str());
    std::printf("mpi:      %s\n", mpi_description().c_str());
    return 0;
  };
}

}  // namespace heptapod::app
