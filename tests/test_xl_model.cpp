// Transformer-XL at model level: segment memory (model/segment_memory.h) through the decoder-only stack.
// - Parity with tests/fixtures/xl_model.safetensors, written by tools/make_xl_model_fixtures.py: an independent
//   float64 PyTorch implementation of a whole Transformer-XL language model from the paper's equations (post-norm
//   with shared u, v; pre-norm with per-layer u, v and clamp_length 3), 2 streams, 3 segments of 5 tokens,
//   memory 4. Per segment the logits and the memory each layer read; over the three segments the summed loss's
//   gradient of every parameter. Double within 1e-9; float32 within 1e-5 (logits) and 1e-4 (gradients), as
//   max |a - b| / (1 + max |b|).
// - The memory path with an empty memory is the plain pass; with a memory longer than the history the segments
//   equal one pass over the whole text; no gradient reaches what only the memory holds.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "heptapod/core/arena.h"
#include "heptapod/core/error.h"
#include "heptapod/decode/incremental_decoder.h"
#include "heptapod/decode/stream_scoring.h"
#include "heptapod/io/model_file.h"
#include "heptapod/io/safetensors.h"
#include "heptapod/model/segment_memory.h"
#include "heptapod/model/transformer.h"
#include "test_process.h"
#include "test_util.h"

namespace heptapod {
namespace {

constexpr int kStreams = 2, kSegment = 5, kMemory = 4, kSegments = 3;

template <typename T>
double deviation(const T* got, const std::vector<double>& want) {
  double diff = 0, scale = 0;
  for (std::size_t i = 0; i < want.size(); ++i) {
    if (std::isnan(static_cast<double>(got[i]))) return INFINITY;
    diff = std::max(diff, std::abs(static_cast<double>(got[i]) - want[i]));
    scale = std::max(scale, std::abs(want[i]));
  }
  return diff / (1 + scale);
}

// The fixture's model `prefix` ("post/" or "pre/") with its parameters.
template <typename T>
struct FixtureModel {
  const SafetensorsFile& file;
  std::string prefix;
  Transformer<T> model;
  FixtureModel(const SafetensorsFile& f, const std::string& p)
      : file(f), prefix(p), model(model_config_from_json(f.metadata(p + "config"), f.where())) {
    ParameterStore<T>& params = model.parameters();
    for (std::size_t i = 0; i < params.specs().size(); ++i) {
      const std::vector<T> values = f.floats<T>(prefix + "param/" + params.specs()[i].name);
      EXPECT_EQ(values.size(), static_cast<std::size_t>(params.specs()[i].numel())) << params.specs()[i].name;
      std::copy(values.begin(), values.end(), params.values() + params.offset(i));
    }
  }
  // Segment s of both streams as a batch.
  Batch segment(int s) const {
    const std::vector<int> in = file.ints(prefix + "seg" + std::to_string(s) + "/tokens");
    const std::vector<int> out = file.ints(prefix + "seg" + std::to_string(s) + "/targets");
    Batch b;
    b.B = kStreams;
    b.T = kSegment;
    b.tgt_in = in;
    b.tgt_out = out;
    b.tgt_len.assign(kStreams, kSegment);
    b.src_len.assign(kStreams, 0);
    return b;
  }
  SegmentMemory<T> memory() const {
    return SegmentMemory<T>(model.config().decoder_layers, model.config().d_model, kMemory);
  }
};

template <typename T>
void check_parity(const std::string& prefix, double value_tolerance, double grad_tolerance) {
  const SafetensorsFile f = SafetensorsFile::read(test::fixture("xl_model.safetensors"));
  FixtureModel<T> m(f, prefix);
  ParameterStore<T>& params = m.model.parameters();
  const int V = m.model.config().tgt_vocab_size;
  Arena arena;
  SegmentMemory<T> logits_memory = m.memory(), train_memory = m.memory();
  params.zero_grads();
  double loss = 0;
  for (int s = 0; s < kSegments; ++s) {
    const Batch batch = m.segment(s);
    const std::string seg = prefix + "expect/seg" + std::to_string(s) + "/";
    for (int l = 0; l < logits_memory.layers() && s > 0; ++l) {
      EXPECT_LE(deviation(logits_memory.layer(l), f.floats<double>(seg + "memory/layer" + std::to_string(l))),
                value_tolerance)
          << prefix << " segment " << s << " layer " << l << "'s memory";
    }
    arena.reset();
    const T* logits = m.model.logits(batch, arena, &logits_memory);  // (B*T, V)
    const std::vector<double> want = f.floats<double>(seg + "logits");
    ASSERT_EQ(want.size(), static_cast<std::size_t>(kStreams) * kSegment * V);
    EXPECT_LE(deviation(logits, want), value_tolerance) << prefix << " segment " << s << " logits";
    // The gradient of the summed loss: no label smoothing, normalised by 1.
    StepOptions options;
    options.grad_normalizer = 1.0;
    arena.reset();
    loss += m.model.forward_backward(batch, options, arena, &train_memory).nll;
  }
  EXPECT_NEAR(loss, f.floats<double>(prefix + "expect/loss")[0], value_tolerance * 100) << prefix << " loss";
  for (std::size_t i = 0; i < params.specs().size(); ++i) {
    const std::string& name = params.specs()[i].name;
    EXPECT_LE(deviation(params.grads() + params.offset(i), f.floats<double>(prefix + "expect/grad/" + name)),
              grad_tolerance)
        << prefix << " gradient of " << name;
  }
}

TEST(XlModel, PostNormSharedBiasesMatchesThePyTorchReferenceInDouble) { check_parity<double>("post/", 1e-9, 1e-9); }
TEST(XlModel, PreNormUntiedClampedMatchesThePyTorchReferenceInDouble) { check_parity<double>("pre/", 1e-9, 1e-9); }
TEST(XlModel, PostNormMatchesThePyTorchReferenceInFloat) { check_parity<float>("post/", 1e-5, 1e-4); }
TEST(XlModel, PreNormMatchesThePyTorchReferenceInFloat) { check_parity<float>("pre/", 1e-5, 1e-4); }

// Stream tokens 0 .. n - 1 of the fixture's segments, joined: (B, n) row-major.
template <typename T>
std::vector<int> joined(const FixtureModel<T>& m, bool targets) {
  std::vector<int> out(static_cast<std::size_t>(kStreams) * kSegment * kSegments);
  for (int s = 0; s < kSegments; ++s) {
    const Batch b = m.segment(s);
    const std::vector<int>& part = targets ? b.tgt_out : b.tgt_in;
    for (int r = 0; r < kStreams; ++r)
      std::copy_n(part.begin() + r * kSegment, kSegment, out.begin() + r * kSegment * kSegments + s * kSegment);
  }
  return out;
}

TEST(XlModel, AnEmptyMemoryIsThePlainPassAndALongOneIsTheWholeText) {
  const SafetensorsFile f = SafetensorsFile::read(test::fixture("xl_model.safetensors"));
  for (const char* prefix : {"post/", "pre/"}) {
    FixtureModel<double> m(f, prefix);
    const int V = m.model.config().tgt_vocab_size;
    Arena arena;
    // Segment 0 with an empty memory and without one.
    SegmentMemory<double> empty = m.memory();
    const double* with = m.model.logits(m.segment(0), arena, &empty);
    const std::vector<double> with_copy(with, with + kStreams * kSegment * V);
    arena.reset();
    const double* without = m.model.logits(m.segment(0), arena);
    EXPECT_EQ(deviation(without, with_copy), 0.0) << prefix;

    // A memory of the whole history (10 rows): the three segments are one causal pass over 15 tokens.
    SegmentMemory<double> whole(m.model.config().decoder_layers, m.model.config().d_model, 2 * kSegment);
    std::vector<double> segmented(static_cast<std::size_t>(kStreams) * kSegment * kSegments * V);  // (B, 15, V)
    for (int s = 0; s < kSegments; ++s) {
      arena.reset();
      const double* logits = m.model.logits(m.segment(s), arena, &whole);  // (B*5, V)
      for (int r = 0; r < kStreams; ++r)
        std::copy_n(logits + static_cast<std::size_t>(r) * kSegment * V, kSegment * V,
                    segmented.begin() + (static_cast<long>(r) * kSegment * kSegments + s * kSegment) * V);
    }
    Batch text;
    text.B = kStreams;
    text.T = kSegment * kSegments;
    text.tgt_in = joined(m, false);
    text.tgt_out = joined(m, true);
    text.tgt_len.assign(kStreams, text.T);
    text.src_len.assign(kStreams, 0);
    arena.reset();
    EXPECT_LE(deviation(m.model.logits(text, arena), segmented), 1e-12) << prefix;
    // And the fixture's memory of 4 makes a difference (so the comparison above can fail).
    SegmentMemory<double> short_memory = m.memory();
    for (int s = 0; s < kSegments; ++s) {
      arena.reset();
      const double* logits = m.model.logits(m.segment(s), arena, &short_memory);
      if (s == 2) {
        const std::vector<double> last(segmented.begin() + 2 * kSegment * V, segmented.begin() + 3 * kSegment * V);
        EXPECT_GT(deviation(logits, last), 1e-6) << prefix;
      }
    }
  }
}

// Segment 1's gradient over segment 0's memory is the derivative with that memory held constant (central
// differences), not the derivative through the memory's own computation (segment 0 run again at every
// perturbed point), which differs: the memory passes no gradient on.
TEST(XlModel, NoGradientReachesTheMemory) {
  const SafetensorsFile f = SafetensorsFile::read(test::fixture("xl_model.safetensors"));
  for (const char* prefix : {"post/", "pre/"}) {
    FixtureModel<double> m(f, prefix);
    ParameterStore<double>& params = m.model.parameters();
    Arena arena;
    StepOptions options;
    options.grad_normalizer = 1.0;
    SegmentMemory<double> after_first = m.memory();
    arena.reset();
    m.model.evaluate(m.segment(0), 0.0f, arena, nullptr, &after_first);
    SegmentMemory<double> memory = after_first;
    params.zero_grads();
    arena.reset();
    m.model.forward_backward(m.segment(1), options, arena, &memory);
    const std::vector<double> grads(params.grads(), params.grads() + params.size());
    auto held = [&] {  // segment 1's loss over the memory as it was
      SegmentMemory<double> copy = after_first;
      arena.reset();
      return m.model.evaluate(m.segment(1), 0.0f, arena, nullptr, &copy).nll;
    };
    auto recomputed = [&] {  // the same through a memory recomputed with the perturbed parameters
      SegmentMemory<double> fresh = m.memory();
      arena.reset();
      m.model.evaluate(m.segment(0), 0.0f, arena, nullptr, &fresh);
      arena.reset();
      return m.model.evaluate(m.segment(1), 0.0f, arena, nullptr, &fresh).nll;
    };
    double worst_held = 0, largest_through = 0;
    for (const char* name : {"decoder/layers/0/self_attn/q_proj/weight", "decoder/layers/0/self_attn/v_proj/weight",
                             "decoder/layers/0/ffn/fc1/weight", "decoder/embedding/weight"}) {
      double* value = params.value(name);
      const std::size_t offset = static_cast<std::size_t>(value - params.values());
      for (int k = 0; k < 6; ++k) {
        double& x = value[k * 7];
        const double saved = x, h = 1e-6;
        x = saved + h;
        const double held_plus = held(), through_plus = recomputed();
        x = saved - h;
        const double held_minus = held(), through_minus = recomputed();
        x = saved;
        const double analytic = grads[offset + k * 7];
        worst_held = std::max(worst_held, std::abs((held_plus - held_minus) / (2 * h) - analytic));
        largest_through = std::max(largest_through, std::abs((through_plus - through_minus) / (2 * h) - analytic));
      }
    }
    EXPECT_LT(worst_held, 1e-6) << prefix << ": the gradient is not the one with the memory held constant";
    EXPECT_GT(largest_through, 1e-4) << prefix << ": the memory's own computation makes no difference to check";
  }
}

// Cached decoding of a relative model (the incremental decoder adds the position terms through
// kernels::attend_cached): a prefill of the first tokens and then one token per step give the logits of one
// full pass over the joined text, for both models, float32 cache.
TEST(XlModel, CachedDecodingGivesTheFullPassLogits) {
  const SafetensorsFile f = SafetensorsFile::read(test::fixture("xl_model.safetensors"));
  for (const char* prefix : {"post/", "pre/"}) {
    FixtureModel<float> m(f, prefix);
    const int V = m.model.config().tgt_vocab_size, T = kSegment * kSegments;
    const std::vector<int> text = joined(m, false);  // (B, 15)
    Batch whole;
    whole.B = kStreams;
    whole.T = T;
    whole.tgt_in = text;
    whole.tgt_out = joined(m, true);
    whole.tgt_len.assign(kStreams, T);
    whole.src_len.assign(kStreams, 0);
    Arena arena;
    const float* full = m.model.logits(whole, arena);  // (B*T, V)
    const std::vector<float> want(full, full + static_cast<std::size_t>(kStreams) * T * V);

    IncrementalDecoder decoder(m.model);
    decoder.start(nullptr, kStreams, 0, std::vector<int>(kStreams, 0).data(), 1, T, CachePrecision::Float32);
    const int prefill = 4;
    std::vector<std::vector<int>> runs(kStreams);
    for (int r = 0; r < kStreams; ++r) runs[r].assign(text.begin() + r * T, text.begin() + r * T + prefill);
    const float* logits = decoder.feed_logits(runs);  // (rows, V) after each row's last token
    double worst = 0;
    auto compare = [&](const float* got, int position) {
      for (int r = 0; r < kStreams; ++r)
        for (int v = 0; v < V; ++v)
          worst = std::max(worst, static_cast<double>(std::abs(got[r * V + v] - want[(static_cast<std::size_t>(r) * T + position) * V + v])));
    };
    compare(logits, prefill - 1);
    for (int t = prefill; t < T; ++t) {
      std::vector<int> tokens(kStreams);
      for (int r = 0; r < kStreams; ++r) tokens[r] = text[r * T + t];
      compare(decoder.step_logits(tokens), t);
    }
    EXPECT_LT(worst, 1e-4) << prefix;
  }
}

// -log p of stream[begin + 1 .. begin + length] from one plain pass over stream[begin .. begin + length).
std::vector<double> window_nll(Transformer<float>& model, const std::vector<int>& stream, long begin, int length) {
  Batch b;
  b.B = 1;
  b.T = length;
  b.tgt_in.assign(stream.begin() + begin, stream.begin() + begin + length);
  b.tgt_out.assign(stream.begin() + begin + 1, stream.begin() + begin + length + 1);
  b.tgt_len = {length};
  b.src_len = {0};
  std::vector<float> nll(static_cast<std::size_t>(length));
  Arena arena;
  model.evaluate(b, 0.0f, arena, nll.data());
  return std::vector<double>(nll.begin(), nll.end());
}

// Stream scoring (decode/stream_scoring.h) against plain passes: segments over a memory longer than the text
// are one pass over the whole text; fixed blocks are separate passes; the sliding window's every target is the
// last of its own pass over the window before it.
TEST(XlModel, StreamScoringModesEqualTheirPlainPasses) {
  const SafetensorsFile f = SafetensorsFile::read(test::fixture("xl_model.safetensors"));
  FixtureModel<float> m(f, "pre/");
  const std::vector<int> joined_text = joined(m, false);
  std::vector<int> stream(joined_text.begin(), joined_text.begin() + kSegment * kSegments);  // stream 0's 15 inputs
  stream.push_back(joined(m, true)[kSegment * kSegments - 1]);                              // and its last target
  const long n = static_cast<long>(stream.size());
  auto expect_near = [](const std::vector<double>& got, const std::vector<double>& want, const std::string& what) {
    ASSERT_EQ(got.size(), want.size()) << what;
    for (std::size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], 2e-5) << what << " target " << i;
  };
  std::vector<double> whole = window_nll(m.model, stream, 0, static_cast<int>(n - 1));
  for (double& x : whole) x = -x;  // log p

  StreamScoring memory;
  memory.segment = 4;
  memory.memory = 16;
  expect_near(stream_log_probs(m.model, stream, memory), whole, "segments of 4 over a memory of 16");
  StreamScoring wide;
  wide.window = 32;
  expect_near(stream_log_probs(m.model, stream, wide), whole, "a window wider than the text");

  StreamScoring blocks;
  blocks.segment = 4;
  std::vector<double> separate;
  for (long begin = 0; begin < n - 1; begin += 4)
    for (const double x : window_nll(m.model, stream, begin, static_cast<int>(std::min<long>(4, n - 1 - begin))))
      separate.push_back(-x);
  expect_near(stream_log_probs(m.model, stream, blocks), separate, "blocks of 4");

  StreamScoring sliding;
  sliding.window = 3;
  sliding.batch_tokens = 7;  // two windows per batch: batches of several windows and a last one alone
  std::vector<double> each;  // target t from the (up to) 3 inputs before it
  for (long t = 1; t < n; ++t) {
    const long begin = std::max(0L, t - 3);
    each.push_back(-window_nll(m.model, stream, begin, static_cast<int>(t - begin)).back());
  }
  expect_near(stream_log_probs(m.model, stream, sliding), each, "a sliding window of 3");
  // The memory matters: a short one scores the last segment differently from the whole pass.
  StreamScoring short_memory = memory;
  short_memory.memory = 2;
  const std::vector<double> short_scores = stream_log_probs(m.model, stream, short_memory);
  EXPECT_GT(std::abs(short_scores.back() - whole.back()), 1e-4);
  // Packed for inference (q|k|v as one matrix, read by column blocks over the memory), int8 included.
  for (const ComputeType type : {ComputeType::Float32, ComputeType::Int8}) {
    FixtureModel<float> packed(f, "pre/");
    packed.model.pack_for_inference(InferencePrecision{type});
    for (const StreamScoring& o : {short_memory, sliding}) {
      const std::vector<double> got = stream_log_probs(packed.model, stream, o);
      const std::vector<double> want = stream_log_probs(m.model, stream, o);
      for (std::size_t i = 0; i < got.size(); ++i)
        EXPECT_NEAR(got[i], want[i], type == ComputeType::Int8 ? 0.05 : 2e-5) << "packed, target " << i;
    }
  }
}

// A low-precision model file (heptapod quantize) keeps the distance projections W_r in float32 and loads them:
// its stream scores follow the float model's, and differ from the same model with W_r zeroed.
TEST(XlModel, AQuantizedModelFileKeepsItsPositionTerms) {
  const SafetensorsFile f = SafetensorsFile::read(test::fixture("xl_model.safetensors"));
  FixtureModel<float> m(f, "pre/");
  test::TempDir dir;
  save_model(dir.file("float.htp"), m.model);
  save_low_precision_model(SafetensorsFile::read(dir.file("float.htp")), InferencePrecision{ComputeType::Int8},
                           dir.file("int8.htp"));
  const SafetensorsFile quantized = SafetensorsFile::read(dir.file("int8.htp"));
  EXPECT_EQ(quantized.at("decoder/layers/0/self_attn/r_proj/weight").dtype, DType::F32);
  const auto loaded = load_inference_model(quantized, stored_precision(quantized));
  const std::vector<int> text = joined(m, false);
  StreamScoring o;
  o.segment = 5;
  o.memory = 4;
  const std::vector<double> want = stream_log_probs(m.model, text, o), got = stream_log_probs(*loaded, text, o);
  double worst = 0;
  for (std::size_t i = 0; i < want.size(); ++i) worst = std::max(worst, std::abs(got[i] - want[i]));
  EXPECT_LT(worst, 0.05);
  for (int l = 0; l < m.model.config().decoder_layers; ++l) {
    float* w_r = m.model.parameters().value("decoder/layers/" + std::to_string(l) + "/self_attn/r_proj/weight");
    std::fill_n(w_r, 16 * 16, 0.0f);
  }
  const std::vector<double> without = stream_log_probs(m.model, text, o);
  double moved = 0;
  for (std::size_t i = 0; i < want.size(); ++i) moved = std::max(moved, std::abs(without[i] - want[i]));
  EXPECT_GT(moved, 10 * worst) << "W_r makes no difference to check";
}

// Inference's memory of keys and values gives what the memory of hidden states gives (which projects them
// again in every segment).
TEST(XlModel, AMemoryOfKeysAndValuesEqualsOneOfHiddenStates) {
  const SafetensorsFile f = SafetensorsFile::read(test::fixture("xl_model.safetensors"));
  for (const char* prefix : {"post/", "pre/"}) {
    FixtureModel<double> m(f, prefix);
    const int V = m.model.config().tgt_vocab_size;
    SegmentMemory<double> hidden = m.memory();
    SegmentMemory<double> keys_values(m.model.config().decoder_layers, m.model.config().d_model, kMemory,
                                      MemoryContent::KeysValues);
    Arena arena;
    for (int s = 0; s < kSegments; ++s) {
      arena.reset();
      const double* a = m.model.logits(m.segment(s), arena, &hidden);
      const std::vector<double> want(a, a + static_cast<std::size_t>(kStreams) * kSegment * V);
      arena.reset();
      EXPECT_LE(deviation(m.model.logits(m.segment(s), arena, &keys_values), want), 1e-12)
          << prefix << " segment " << s;
    }
    StepOptions options;
    arena.reset();
    EXPECT_THROW(m.model.forward_backward(m.segment(0), options, arena, &keys_values), Error);
  }
}

}  // namespace
}  // namespace heptapod
