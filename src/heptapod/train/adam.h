// Adam exactly as PyTorch implements it (bias-corrected; eps added to the corrected root of the second
// moment), over a flat parameter buffer.
#pragma once

#include <cstddef>
#include <vector>

namespace heptapod {

struct AdamConfig {
  double beta1 = 0.9;
  double beta2 = 0.98;
  double eps = 1e-9;
};

template <typename T>
class Adam {
 public:
  Adam(std::size_t size, AdamConfig config) : config_(config), m_(size, T(0)), v_(size, T(0)) {}

  // One update of params (n) with grads (n) at learning rate lr; increments the step count.
  void step(T* params, const T* grads, double lr);

  long steps() const { return step_; }
  const AdamConfig& config() const { return config_; }
  std::vector<T>& first_moment() { return m_; }
  std::vector<T>& second_moment() { return v_; }
  const std::vector<T>& first_moment() const { return m_; }
  const std::vector<T>& second_moment() const { return v_; }
  void set_steps(long s) { step_ = s; }

 private:
  AdamConfig config_;
  std::vector<T> m_, v_;
  long step_ = 0;
};

}  // namespace heptapod
