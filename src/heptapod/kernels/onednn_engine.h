// The oneDNN CPU engine shared by every primitive, and a stream per calling thread.
#pragma once

#include <dnnl.hpp>

namespace heptapod::kernels {

const dnnl::engine& onednn_engine();
dnnl::stream& onednn_stream();

}  // namespace heptapod::kernels
