// Shared helpers for the tests: error measures and fixture access.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <functional>
#include <limits>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "heptapod/core/arena.h"
#include "heptapod/io/safetensors.h"
#include "heptapod/model/batch.h"
#include "heptapod/model/transformer.h"
#include "heptapod/train/adam.h"
#include "heptapod/train/lr_schedule.h"

namespace heptapod::test {

inline std::string fixture(const std::string& name) { return std::string(HEPTAPOD_FIXTURES) + "/" + name; }

// Row i of a (B, L) tensor `name` padded with -1, cut to its length (the tensor `name` + "_len", (B)).
inline std::vector<std::vector<int>> length_rows(const SafetensorsFile& f, const std::string& name) {
  const std::vector<int> all = f.ints(name), len = f.ints(name + "_len");
  const std::size_t L = all.size() / len.size();
  std::vector<std::vector<int>> out;
  for (std::size_t i = 0; i < len.size(); ++i) out.emplace_back(all.begin() + i * L, all.begin() + i * L + len[i]);
  return out;
}

// A reference's gradients in a model's layout: its grad/<name> tensors (under a checkpoint's names) written as
// a checkpoint in directory `grads` beside the fixture directory's config.json, read by `import` (the
// converter's own name table).
inline std::vector<float> reference_gradients(
    const std::string& fixture_dir, const SafetensorsFile& ref, const std::string& grads,
    const std::function<std::unique_ptr<Transformer<float>>(const std::string& dir)>& import) {
  std::filesystem::create_directories(grads);
  std::filesystem::copy_file(fixture_dir + "/config.json", grads + "/config.json");
  SafetensorsWriter w;
  for (const TensorEntry& e : ref.tensors()) {
    if (e.name.rfind("grad/", 0) != 0) continue;
    const std::vector<double> g = ref.floats<double>(e.name);
    w.add(e.name.substr(5), DType::F64, e.shape, g.data());
  }
  w.write(grads + "/model.safetensors");
  const auto model = import(grads);
  const ParameterStore<float>& p = model->parameters();
  return {p.values(), p.values() + p.size()};
}

// max |a - b| / max(max |b|, floor): one relative error for a whole tensor.
template <typename A, typename B>
double max_rel_error(const A* a, const B* b, std::size_t n, double floor = 1e-30) {
  double diff = 0, scale = floor;
  for (std::size_t i = 0; i < n; ++i) {
    diff = std::max(diff, std::abs(static_cast<double>(a[i]) - static_cast<double>(b[i])));
    scale = std::max(scale, std::abs(static_cast<double>(b[i])));
  }
  return diff / scale;
}

inline Batch fixture_batch(const SafetensorsFile& f) {
  Batch b;
  if (!f.find("batch/tgt_in")) {  // an encoder-only model's: sources, token types, masked targets or labels
    const TensorEntry& src = f.at("batch/src");
    b.B = static_cast<int>(src.shape[0]);
    b.S = static_cast<int>(src.shape[1]);
    b.src = f.ints("batch/src");
    b.src_len = f.ints("batch/src_len");
    b.src_types = f.ints("batch/src_types");
    if (f.find("batch/mlm_targets")) b.mlm_targets = f.ints("batch/mlm_targets");
    if (f.find("batch/labels")) b.labels = f.ints("batch/labels");
    b.tgt_len.assign(static_cast<std::size_t>(b.B), 0);
    return b;
  }
  const TensorEntry& src = f.at("batch/src");
  const TensorEntry& tgt = f.at("batch/tgt_in");
  b.B = static_cast<int>(src.shape[0]);
  b.S = static_cast<int>(src.shape[1]);
  b.T = static_cast<int>(tgt.shape[1]);
  b.src = f.ints("batch/src");
  b.src_len = f.ints("batch/src_len");
  b.tgt_in = f.ints("batch/tgt_in");
  b.tgt_out = f.ints("batch/tgt_out");
  b.tgt_len = f.ints("batch/tgt_len");
  return b;
}

// A fixture's expected logits (B*T, V) with the padding positions zeroed: the model computes only real
// target positions and returns zeros for the rest.
inline std::vector<float> expected_logits(const SafetensorsFile& f, const Batch& b) {
  // An encoder's: a classifier's (B, labels), or the masked-LM head's (Nm, V), masked positions in order.
  if (b.T == 0) return f.floats<float>(b.labels.empty() ? "expect/mlm_logits" : "expect/class_logits");
  std::vector<float> expect = f.floats<float>("expect/logits");
  const std::size_t V = expect.size() / (static_cast<std::size_t>(b.B) * b.T);
  for (int i = 0; i < b.B; ++i)
    std::fill(expect.begin() + (static_cast<std::size_t>(i) * b.T + b.tgt_len[i]) * V,
              expect.begin() + static_cast<std::size_t>(i + 1) * b.T * V, 0.0f);
  return expect;
}

// Fills v with reproducible values in [lo, hi).
template <typename T>
void fill_uniform(std::vector<T>& v, unsigned seed, double lo = -1.0, double hi = 1.0) {
  unsigned long long s = seed * 6364136223846793005ull + 1442695040888963407ull;
  for (auto& x : v) {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    x = static_cast<T>(lo + (hi - lo) * static_cast<double>(s >> 11) / 9007199254740992.0);
  }
}

// Kernel tests' tolerance for a whole tensor against its naive twin.
template <typename T>
double tol() {
  return std::is_same_v<T, float> ? 1e-5 : 1e-12;
}

// (n) reproducible values in [lo, hi).
template <typename T>
std::vector<T> uniform(std::size_t n, unsigned seed, double lo = -1.0, double hi = 1.0) {
  std::vector<T> v(n);
  fill_uniform(v, seed, lo, hi);
  return v;
}

template <typename T>
constexpr T kNaN = std::numeric_limits<T>::quiet_NaN();

// Whole-tensor relative error of got against want (naive), with a message naming the check; a NaN in got
// where want has none fails. floor is the smallest scale the error is measured against: the tensor's natural
// magnitude where the exact answer can be all zeros (a layer norm over one column, a one-class softmax), so
// that rounding noise is not divided by 0.
template <typename T>
void expect_close(const std::vector<T>& got, const std::vector<T>& want, double tolerance, const std::string& what,
                  double floor = 1e-30) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (std::size_t i = 0; i < got.size(); ++i)
    ASSERT_FALSE(std::isnan(got[i]) && !std::isnan(want[i])) << what << ": NaN at " << i;
  EXPECT_LE(max_rel_error(got.data(), want.data(), got.size(), floor), tolerance) << what;
}

// A batch of rows of ids, each its own sequence, as teacher forcing reads them: inputs, targets (-1: none).
inline Batch rows_batch(const std::vector<int>& in, const std::vector<int>& out, const std::vector<int>& lengths) {
  Batch b;
  b.B = static_cast<int>(lengths.size());
  b.T = static_cast<int>(in.size()) / b.B;
  b.tgt_in = in;
  b.tgt_out = out;
  b.tgt_len = lengths;
  b.src_len.assign(static_cast<std::size_t>(b.B), 0);
  return b;
}

// The rows t < length of (B, T, D) tensors, the rest zeroed in both: their max_rel_error.
inline double padded_error(std::vector<float> got, std::vector<float> want, const std::vector<int>& len, int T) {
  const std::size_t B = len.size(), D = want.size() / (B * static_cast<std::size_t>(T));
  EXPECT_EQ(got.size(), want.size());
  for (std::size_t b = 0; b < B; ++b)
    for (std::size_t k = (b * T + static_cast<std::size_t>(len[b])) * D; k < (b + 1) * T * D; ++k) got[k] = want[k] = 0;
  return max_rel_error(got.data(), want.data(), want.size());
}

// A Hugging Face fixture's GPT-2 batch (tools/make_hf_fixtures.py): the prompts as they are (no start token),
// teacher-forced.
inline Batch gpt2_batch(const SafetensorsFile& ref) {
  Batch b;
  b.B = static_cast<int>(ref.at("batch/input_ids").shape[0]);
  b.T = static_cast<int>(ref.at("batch/input_ids").shape[1]);
  b.tgt_in = b.tgt_out = ref.ints("batch/input_ids");
  b.tgt_len = ref.ints("batch/lengths");
  b.src_len.assign(static_cast<std::size_t>(b.B), 0);
  return b;
}

// A Hugging Face fixture's BERT batch (tools/make_hf_fixtures.py): [CLS] a [SEP] (b [SEP]) with token types,
// padded.
inline Batch bert_batch(const SafetensorsFile& ref) {
  Batch b;
  b.B = static_cast<int>(ref.at("batch/input_ids").shape[0]);
  b.S = static_cast<int>(ref.at("batch/input_ids").shape[1]);
  b.src = ref.ints("batch/input_ids");
  b.src_types = ref.ints("batch/token_type_ids");
  b.src_len = ref.ints("batch/lengths");
  b.tgt_len.assign(static_cast<std::size_t>(b.B), 0);
  return b;
}

// A BERT masked-LM model on a Hugging Face fixture's batch `b` (bert_batch): its last hidden states and its
// masked-LM logits at every real position (as if each were masked) match `ref`'s expect/hidden and
// expect/mlm_logits to 1e-5.
inline void expect_bert_masked_lm(Transformer<float>& model, Batch b, const SafetensorsFile& ref) {
  const ModelConfig& c = model.config();
  Arena arena;
  const float* hidden = model.encode(b.src.data(), b.B, b.S, b.src_len.data(), arena, b.src_types.data());
  const std::size_t rows = static_cast<std::size_t>(b.B) * b.S;
  EXPECT_LT(padded_error({hidden, hidden + rows * c.d_model}, ref.floats<float>("expect/hidden"), b.src_len, b.S), 1e-5)
      << "hidden states";
  b.mlm_targets.assign(rows, -1);
  std::vector<float> want;  // (real positions, V)
  const std::vector<float> all = ref.floats<float>("expect/mlm_logits");
  for (std::size_t r = 0; r < rows; ++r)
    if (static_cast<int>(r % b.S) < b.src_len[r / b.S]) {
      b.mlm_targets[r] = b.src[r];
      want.insert(want.end(), all.begin() + static_cast<long>(r * c.src_vocab_size),
                  all.begin() + static_cast<long>((r + 1) * c.src_vocab_size));
    }
  arena.reset();
  const float* logits = model.logits(b, arena);
  EXPECT_LT(max_rel_error(logits, want.data(), want.size()), 1e-5) << "masked-LM logits";
}

// Ten Adam updates of the model's trained parameters (all of them, or a LoRA model's adapters) on one batch,
// with the betas, eps and Noam schedule (lr_scale, warmup_steps, d_model) a reference fixture's metadata
// names: the loss before each update and after the last follows its expect/adam_losses within 1e-4.
inline void expect_adam_losses(Transformer<float>& model, const Batch& batch, const StepOptions& opt,
                               const SafetensorsFile& ref, const std::string& what) {
  const std::vector<double> expect_losses = ref.floats<double>("expect/adam_losses");
  ASSERT_EQ(expect_losses.size(), 11u);
  ParameterStore<float>& p = model.parameters();
  Adam<float> adam(p.trained_size(), AdamConfig{std::stod(ref.metadata("adam_beta1")),
                                                std::stod(ref.metadata("adam_beta2")), std::stod(ref.metadata("adam_eps"))});
  LrSchedule schedule;
  schedule.scale = std::stod(ref.metadata("lr_scale"));
  schedule.warmup_steps = std::stoi(ref.metadata("warmup_steps"));
  schedule.d_model = std::stoi(ref.metadata("d_model"));
  Arena arena;
  for (int step = 1; step <= 11; ++step) {
    arena.reset();
    p.zero_grads();
    const LossTotals t = model.forward_backward(batch, opt, arena);
    EXPECT_NEAR(t.loss / t.tokens, expect_losses[step - 1], 1e-4 * expect_losses[step - 1])
        << what << " loss before Adam update " << step;
    if (step <= 10) adam.step(p.values() + p.trained_offset(), p.grads() + p.trained_offset(), schedule.at(step));
  }
}

// A decoder-only model's next-token logits of one sequence (1, T, V).
inline std::vector<float> sequence_logits(Transformer<float>& model, const std::vector<int>& ids) {
  Batch b;
  b.B = 1;
  b.T = static_cast<int>(ids.size());
  b.tgt_in = b.tgt_out = ids;
  b.tgt_len = {b.T};
  b.src_len = {0};
  Arena arena;
  const float* logits = model.logits(b, arena);
  return {logits, logits + ids.size() * static_cast<std::size_t>(model.config().tgt_vocab_size)};
}

}  // namespace heptapod::test
