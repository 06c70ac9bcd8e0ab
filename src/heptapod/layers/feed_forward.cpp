// Feed-forward network: two linear layers around ReLU and activation dropout.
#include "heptapod/layers/feed_forward.h"

#include <cstring>

#include "heptapod/kernels/dropout.h"
#include "heptapod/kernels/elementwise.h"

namespace heptapod {

template <typename T>
void feed_forward_forward(const FeedForward<T>& ffn, const T* x, int N, const DropoutSite& drop, Arena& arena,
                          FeedForwardSaved<T>& saved, T* y) {
  const long hidden_count = static_cast<long>(N) * ffn.fc1.out;
  saved.hidden = arena.alloc<T>(hidden_count);
  linear_relu_forward(ffn.fc1, x, N, saved.hidden);
  saved.dropped = saved.hidden;
  if (drop.rate > 0) {
    saved.dropped = arena.alloc<T>(hidden_count);
    std::memcpy(saved.dropped, saved.hidden, sizeof(T) * hidden_count);
    kernels::dropout(saved.dropped, hidden_count, drop.rate, drop.seed, drop.stream);
  }
  linear_forward(ffn.fc2, saved.dropped, N, y);
}

template <typename T>
void feed_forward_backward(const FeedForward<T>& ffn, const T* dy, const T* x, int N, const DropoutSite& drop,
                           const FeedForwardSaved<T>& saved, Arena& arena, T* dx, bool accumulate_dx) {
  const long hidden_count = static_cast<long>(N) * ffn.fc1.out;
  T* dhidden = arena.alloc<T>(hidden_count);  // (N, F)
  linear_backward(ffn.fc2, dy, saved.dropped, N, dhidden, false);
  kernels::dropout(dhidden, hidden_count, drop.rate, drop.seed, drop.stream);
  kernels::relu_backward(saved.hidden, dhidden, hidden_count);
  linear_backward(ffn.fc1, dhidden, x, N, dx, accumulate_dx);
}

template void feed_forward_forward<float>(const FeedForward<float>&, const float*, int, const DropoutSite&, Arena&,
                                          FeedForwardSaved<float>&, float*);
template void feed_forward_forward<double>(const FeedForward<double>&, const double*, int, const DropoutSite&,
                                           Arena&, FeedForwardSaved<double>&, double*);
template void feed_forward_backward<float>(const FeedForward<float>&, const float*, const float*, int,
                                           const DropoutSite&, const FeedForwardSaved<float>&, Arena&, float*, bool);
template void feed_forward_backward<double>(const FeedForward<double>&, const double*, const double*, int,
                                            const DropoutSite&, const FeedForwardSaved<double>&, Arena&, double*,
                                            bool);

}  // namespace heptapod
