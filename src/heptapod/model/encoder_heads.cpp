// An encoder's heads: the masked-LM head on the masked rows, the classifier on pooled sentences.
#include "heptapod/model/encoder_heads.h"

#include <algorithm>
#include <cmath>

#include "heptapod/core/error.h"
#include "heptapod/kernels/activation.h"
#include "heptapod/model/bind.h"

namespace heptapod {

template <typename T>
MaskedLmHead<T>::MaskedLmHead(ParameterStore<T>& p, const ModelConfig& c)
    : config_(c),
      transform_(bind_linear(p, mlm_transform_prefix(), c.d_model, c.d_model)),
      norm_(bind_layer_norm(p, mlm_norm_prefix(), c.d_model, c.layer_norm_eps)),
      output_{p.value(source_embedding_name(c)), p.value(mlm_output_bias_name()), p.grad(source_embedding_name(c)),
              p.grad(mlm_output_bias_name()), c.d_model, c.src_vocab_size} {}

template <typename T>
T* MaskedLmHead<T>::forward(const T* encoder_output, const std::vector<int>& rows, Arena& arena) {
  const int Nm = static_cast<int>(rows.size()), C = config_.d_model;
  const std::size_t count = static_cast<std::size_t>(Nm) * C;
  input_ = arena.alloc<T>(count);  // (Nm, C) the masked rows
  for (int m = 0; m < Nm; ++m)
    std::copy_n(encoder_output + static_cast<std::size_t>(rows[static_cast<std::size_t>(m)]) * C, C,
                input_ + static_cast<std::size_t>(m) * C);
  pre_ = arena.alloc<T>(count);  // (Nm, C) x W^T + b
  linear_forward(transform_, input_, Nm, pre_);
  T* activated = arena.alloc<T>(count);  // (Nm, C)
  std::copy_n(pre_, count, activated);
  kernels::activation_forward(activated, static_cast<long>(count), config_.activation);
  hidden_ = layer_norm_forward(norm_, activated, Nm, arena, saved_);  // (Nm, C)
  T* logits = arena.alloc<T>(static_cast<std::size_t>(Nm) * output_.out);  // (Nm, V)
  linear_forward(output_, hidden_, Nm, logits);
  return logits;
}

template <typename T>
void MaskedLmHead<T>::backward(const T* dlogits, const std::vector<int>& rows, T* dsrc, Arena& arena) {
  const int Nm = static_cast<int>(rows.size()), C = config_.d_model;
  const std::size_t count = static_cast<std::size_t>(Nm) * C;
  T* dhidden = arena.alloc<T>(count);  // (Nm, C)
  linear_backward(output_, dlogits, hidden_, Nm, dhidden, false);
  T* dpre = arena.alloc<T>(count);  // (Nm, C)
  layer_norm_backward(norm_, dhidden, Nm, saved_, dpre, false);
  kernels::activation_backward(dpre, pre_, static_cast<T*>(nullptr), Nm, C, config_.activation);
  T* dinput = arena.alloc<T>(count);  // (Nm, C)
  linear_backward(transform_, dpre, input_, Nm, dinput, false);
  for (int m = 0; m < Nm; ++m) {
    T* row = dsrc + static_cast<std::size_t>(rows[static_cast<std::size_t>(m)]) * C;
    const T* d = dinput + static_cast<std::size_t>(m) * C;
    for (int c = 0; c < C; ++c) row[c] += d[c];
  }
}

template <typename T>
ClassifierHead<T>::ClassifierHead(ParameterStore<T>& p, const ModelConfig& c)
    : config_(c),
      pooler_(c.pooling == Pooling::Cls),
      classifier_(bind_linear(p, classifier_prefix(), c.labels, c.d_model)) {
  if (pooler_) pooler_layer_ = bind_linear(p, pooler_prefix(), c.d_model, c.d_model);
}

template <typename T>
T* ClassifierHead<T>::forward(const T* encoder_output, const Sequences& src, Arena& arena) {
  const int B = src.count(), C = config_.d_model;
  first_ = arena.alloc<T>(static_cast<std::size_t>(B) * C);  // (B, C)
  for (int b = 0; b < B; ++b) {
    require(src.len[static_cast<std::size_t>(b)] >= 1, "classifier: a sentence of no tokens");
    const T* rows = encoder_output + static_cast<std::size_t>(src.start[static_cast<std::size_t>(b)]) * C;
    const int n = pooler_ ? 1 : src.len[static_cast<std::size_t>(b)];
    T* out = first_ + static_cast<std::size_t>(b) * C;
    for (int c = 0; c < C; ++c) {
      T sum = 0;
      for (int s = 0; s < n; ++s) sum += rows[static_cast<std::size_t>(s) * C + c];
      out[c] = sum / static_cast<T>(n);
    }
  }
  pooled_ = first_;
  if (pooler_) {
    pooled_ = arena.alloc<T>(static_cast<std::size_t>(B) * C);  // (B, C) tanh(x W^T + b)
    linear_forward(pooler_layer_, first_, B, pooled_);
    for (std::size_t i = 0; i < static_cast<std::size_t>(B) * C; ++i) pooled_[i] = std::tanh(pooled_[i]);
  }
  T* logits = arena.alloc<T>(static_cast<std::size_t>(B) * config_.labels);  // (B, L)
  linear_forward(classifier_, pooled_, B, logits);
  return logits;
}

template <typename T>
void ClassifierHead<T>::backward(const T* dlogits, const Sequences& src, T* dsrc, Arena& arena) {
  const int B = src.count(), C = config_.d_model;
  T* dpooled = arena.alloc<T>(static_cast<std::size_t>(B) * C);  // (B, C)
  linear_backward(classifier_, dlogits, pooled_, B, dpooled, false);
  T* dfirst = dpooled;
  if (pooler_) {
    for (std::size_t i = 0; i < static_cast<std::size_t>(B) * C; ++i) dpooled[i] *= T(1) - pooled_[i] * pooled_[i];
    dfirst = arena.alloc<T>(static_cast<std::size_t>(B) * C);  // (B, C)
    linear_backward(pooler_layer_, dpooled, first_, B, dfirst, false);
  }
  for (int b = 0; b < B; ++b) {
    T* rows = dsrc + static_cast<std::size_t>(src.start[static_cast<std::size_t>(b)]) * C;
    const int n = pooler_ ? 1 : src.len[static_cast<std::size_t>(b)];
    const T* d = dfirst + static_cast<std::size_t>(b) * C;
    for (int s = 0; s < n; ++s)
      for (int c = 0; c < C; ++c) rows[static_cast<std::size_t>(s) * C + c] += d[c] / static_cast<T>(n);
  }
}

template <typename T>
kernels::CrossEntropyTotals binary_cross_entropy(const T* logits, const int* targets, int B, int L, T grad_scale,
                                                 T* dlogits) {
  kernels::CrossEntropyTotals totals;
  for (int b = 0; b < B; ++b) {
    double loss = 0;
    bool all_right = true;
    for (int l = 0; l < L; ++l) {
      const std::size_t i = static_cast<std::size_t>(b) * L + l;
      const T x = logits[i];
      const int y = targets[i];
      // -log s(x) = softplus(-x), -log(1 - s(x)) = softplus(x), computed without overflow.
      const T softplus = std::max(x, T(0)) + std::log1p(std::exp(-std::abs(x)));  // log(1 + e^x)
      loss += static_cast<double>(y ? softplus - x : softplus);
      all_right = all_right && ((x > T(0)) == (y != 0));
      if (dlogits) dlogits[i] = grad_scale * (T(1) / (T(1) + std::exp(-x)) - static_cast<T>(y));
    }
    totals.loss += loss;
    totals.nll += loss;
    totals.tokens += 1;
    totals.correct += all_right ? 1 : 0;
  }
  return totals;
}

template class MaskedLmHead<float>;
template class MaskedLmHead<double>;
template class ClassifierHead<float>;
template class ClassifierHead<double>;
template kernels::CrossEntropyTotals binary_cross_entropy<float>(const float*, const int*, int, int, float, float*);
template kernels::CrossEntropyTotals binary_cross_entropy<double>(const double*, const int*, int, int, double, double*);

}  // namespace heptapod
