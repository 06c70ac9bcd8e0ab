// An encoder's heads: the masked-LM head on the masked rows, the classifier on pooled sentences; their losses.
#include "heptapod/model/encoder_heads.h"

#include <algorithm>
#include <cmath>

#include "heptapod/core/error.h"
#include "heptapod/kernels/activation.h"
#include "heptapod/model/bind.h"

namespace heptapod {

namespace {

// The gradient at an encoder's output (Ns, C) from the arena, zeros where a head adds to the rows it read.
template <typename T>
T* zeroed_source_rows(const PackedBatch& batch, int C, Arena& arena) {
  const std::size_t count = static_cast<std::size_t>(batch.src.rows()) * C;
  T* dsrc = arena.alloc<T>(count);  // (Ns, C)
  std::fill_n(dsrc, count, T(0));
  return dsrc;
}

}  // namespace

template <typename T>
MaskedLmHead<T>::MaskedLmHead(ParameterStore<T>& p, const ModelConfig& c)
    : config_(c),
      transform_(bind_linear(p, module_name(Module::MlmTransform), c.d_model, c.d_model)),
      norm_(bind_layer_norm(p, module_name(Module::MlmNorm), c.d_model, c.layer_norm_eps)),
      output_{p.value(source_embedding_name(c)), p.value(module_name(Module::MlmOutputBias)),
              p.grad_if_trained(source_embedding_name(c)), p.grad(module_name(Module::MlmOutputBias)), c.d_model,
              c.src_vocab_size} {}

template <typename T>
T* MaskedLmHead<T>::forward(const T* encoder_output, const PackedBatch& batch, Arena& arena) {
  const std::vector<int>& rows = batch.mlm_rows;
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
LossTotals MaskedLmHead<T>::loss(const T* logits, const PackedBatch& batch, T label_smoothing, T grad_scale,
                                 T* dlogits, T* row_nll) const {
  return kernels::cross_entropy(logits, batch.mlm_targets.data(), rows(batch), output_.out, label_smoothing,
                                grad_scale, dlogits, row_nll);
}

template <typename T>
T* MaskedLmHead<T>::backward(const T* dlogits, const PackedBatch& batch, Arena& arena) {
  const std::vector<int>& rows = batch.mlm_rows;
  const int Nm = static_cast<int>(rows.size()), C = config_.d_model;
  T* dsrc = zeroed_source_rows<T>(batch, C, arena);  // (Ns, C)
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
  return dsrc;
}

template <typename T>
void MaskedLmHead<T>::place_row_nll(const T* nll, const Batch& batch, const PackedBatch& packed, T* row_nll) const {
  std::vector<T> rows(static_cast<std::size_t>(packed.src.rows()), T(0));  // (Ns)
  for (std::size_t m = 0; m < packed.mlm_rows.size(); ++m) rows[static_cast<std::size_t>(packed.mlm_rows[m])] = nll[m];
  packed.src.unpack(rows.data(), 1, batch.S, row_nll);  // (B*S)
}

template <typename T>
bool MaskedLmHead<T>::writes_gradient(const ParamSpec& spec) const {
  return spec.module == Module::MlmTransform || spec.module == Module::MlmNorm ||
         spec.module == Module::MlmOutputBias || spec.name == source_embedding_name(config_);
}

template <typename T>
ClassifierHead<T>::ClassifierHead(ParameterStore<T>& p, const ModelConfig& c)
    : config_(c),
      pooler_(c.pooling == Pooling::Cls),
      classifier_(bind_linear(p, module_name(Module::Classifier), c.labels, c.d_model)) {
  if (pooler_) pooler_layer_ = bind_linear(p, module_name(Module::Pooler), c.d_model, c.d_model);
}

template <typename T>
T* ClassifierHead<T>::forward(const T* encoder_output, const PackedBatch& batch, Arena& arena) {
  const Sequences& src = batch.src;
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
    pooled_ = arena.alloc<T>(static_cast<std::size_t>(B) * C);  // (B, C) tanh(x W^T + b), or DistilBERT's ReLU
    linear_forward(pooler_layer_, first_, B, pooled_);
    for (std::size_t i = 0; i < static_cast<std::size_t>(B) * C; ++i)
      pooled_[i] = config_.relu_pooler ? std::max(pooled_[i], T(0)) : std::tanh(pooled_[i]);
  }
  T* logits = arena.alloc<T>(static_cast<std::size_t>(B) * config_.labels);  // (B, L)
  linear_forward(classifier_, pooled_, B, logits);
  return logits;
}

template <typename T>
LossTotals ClassifierHead<T>::loss(const T* logits, const PackedBatch& batch, T label_smoothing, T grad_scale,
                                   T* dlogits, T* row_nll) const {
  if (config_.multi_label) {
    const LossTotals t = binary_cross_entropy(logits, batch.labels.data(), rows(batch), config_.labels, grad_scale,
                                              dlogits);
    require(row_nll == nullptr, "a multi-label classifier's loss has no per-row -log p");
    return t;
  }
  return kernels::cross_entropy(logits, batch.labels.data(), rows(batch), config_.labels, label_smoothing,
                                grad_scale, dlogits, row_nll);
}

template <typename T>
T* ClassifierHead<T>::backward(const T* dlogits, const PackedBatch& batch, Arena& arena) {
  const Sequences& src = batch.src;
  const int B = src.count(), C = config_.d_model;
  T* dsrc = zeroed_source_rows<T>(batch, C, arena);  // (Ns, C)
  T* dpooled = arena.alloc<T>(static_cast<std::size_t>(B) * C);  // (B, C)
  linear_backward(classifier_, dlogits, pooled_, B, dpooled, false);
  T* dfirst = dpooled;
  if (pooler_) {
    for (std::size_t i = 0; i < static_cast<std::size_t>(B) * C; ++i)
      dpooled[i] *= config_.relu_pooler ? T(pooled_[i] > T(0)) : T(1) - pooled_[i] * pooled_[i];
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
  return dsrc;
}

template <typename T>
void ClassifierHead<T>::place_row_nll(const T* nll, const Batch&, const PackedBatch& packed, T* row_nll) const {
  std::copy_n(nll, rows(packed), row_nll);  // (B)
}

template <typename T>
bool ClassifierHead<T>::writes_gradient(const ParamSpec& spec) const {
  return spec.module == Module::Classifier || (pooler_ && spec.module == Module::Pooler);
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
