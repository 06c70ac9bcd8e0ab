// See onednn_engine.h.
#if HEPTAPOD_BLAS_KIND == 3
#include "heptapod/kernels/onednn_engine.h"

#include "heptapod/kernels/isa.h"

namespace heptapod::kernels {

const dnnl::engine& onednn_engine() {
  static const dnnl::engine engine = [] {
    prepare_onednn();  // caps oneDNN's ISA before its first primitive
    return dnnl::engine(dnnl::engine::kind::cpu, 0);
  }();
  return engine;
}

dnnl::stream& onednn_stream() {
  thread_local dnnl::stream stream(onednn_engine());
  return stream;
}

}  // namespace heptapod::kernels
#endif
