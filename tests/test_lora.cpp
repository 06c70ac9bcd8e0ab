// LoRA adapters: the adapted linear layer's gradients against finite differences (alone and stacked as
// attention stacks q|k|v), step 0 equal to the base model to the bit, scoring with adapters equal to scoring the
// merged model, the adapter file (its base checksum, info), training with --lora (the base's bytes unchanged,
// only the adapters' optimiser state, the run's adapter.htp loading over the base), and bad input.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "heptapod/core/error.h"
#include "heptapod/core/random.h"
#include "heptapod/decode/inference_model.h"
#include "heptapod/io/adapter_file.h"
#include "heptapod/io/model_file.h"
#include "heptapod/layers/linear.h"
#include "heptapod/model/initialize.h"
#include "heptapod/train/checkpoint.h"
#include "test_process.h"
#include "test_util.h"
#include "vocab_model.h"

namespace heptapod {
namespace {

namespace fs = std::filesystem;
using test::quoted;
using test::run_heptapod;
using test::TempDir;
using Vec = std::vector<double>;

Vec random_values(std::size_t n, std::uint64_t seed) {
  Rng rng(seed);
  Vec v(n);
  for (double& x : v) x = 2 * rng.uniform() - 1;
  return v;
}

// A linear layer (out, in) with a bias and an adapter of rank r, its values random (B too), in double.
struct AdaptedLayer {
  Vec w, b, a, bb, da, dbb, db;
  Linear<double> layer;
  AdaptedLayer(int out, int in, int r, std::uint64_t seed, bool adapter = true)
      : w(random_values(static_cast<std::size_t>(out) * in, seed)), b(random_values(out, seed + 1)),
        a(random_values(static_cast<std::size_t>(r) * in, seed + 2)),
        bb(random_values(static_cast<std::size_t>(out) * r, seed + 3)), da(a.size()), dbb(bb.size()), db(out) {
    layer.w = w.data();
    layer.b = b.data();
    layer.dw = nullptr;  // W frozen: no gradient
    layer.db = db.data();
    layer.in = in;
    layer.out = out;
    if (adapter) layer.adapter = {a.data(), bb.data(), da.data(), dbb.data(), r, 0.75};
  }
};

// Central differences of loss() in values[i].
Vec numeric_gradient(Vec& values, const std::function<double()>& loss) {
  Vec g(values.size());
  for (std::size_t i = 0; i < values.size(); ++i) {
    const double old = values[i], h = 1e-6;
    values[i] = old + h;
    const double plus = loss();
    values[i] = old - h;
    const double minus = loss();
    values[i] = old;
    g[i] = (plus - minus) / (2 * h);
  }
  return g;
}

void expect_near_all(const Vec& got, const Vec& want, double tolerance, const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  double scale = 1e-12, worst = 0;
  for (std::size_t i = 0; i < got.size(); ++i) {
    scale = std::max(scale, std::abs(want[i]));
    worst = std::max(worst, std::abs(got[i] - want[i]));
  }
  EXPECT_LE(worst / scale, tolerance) << what;
}

// y = x W^T + b + 0.75 (drop(x) A^T) B^T, loss = <y, r>: dA, dB and dx against finite differences, without
// dropout and with (the same mask in every pass of one seed); W's gradient is not computed (dw null) and the
// bias's is.
void check_adapter_gradients(float dropout) {
  const int N = 5, in = 7, out = 6, r = 3;
  AdaptedLayer l(out, in, r, 1);
  const DropoutSite site{dropout, 99, 0};
  l.layer.adapter.dropout = &site;
  l.layer.adapter.stream = 5;
  Vec x = random_values(static_cast<std::size_t>(N) * in, 10), dy = random_values(static_cast<std::size_t>(N) * out, 11);
  auto loss = [&] {
    Vec y(static_cast<std::size_t>(N) * out);
    linear_forward(l.layer, x.data(), N, y.data());
    double s = 0;
    for (std::size_t i = 0; i < y.size(); ++i) s += y[i] * dy[i];
    return s;
  };
  Vec dx(x.size());
  linear_backward(l.layer, dy.data(), x.data(), N, dx.data(), false);
  expect_near_all(l.da, numeric_gradient(l.a, loss), 1e-7, "dA");
  expect_near_all(l.dbb, numeric_gradient(l.bb, loss), 1e-7, "dB");
  expect_near_all(dx, numeric_gradient(x, loss), 1e-7, "dx");
  expect_near_all(l.db, numeric_gradient(l.b, loss), 1e-7, "db");
}

TEST(LoraLinear, GradientsMatchFiniteDifferences) { check_adapter_gradients(0.0f); }
TEST(LoraLinear, GradientsWithDropoutMatchFiniteDifferences) { check_adapter_gradients(0.4f); }

// LoRA dropout drops the adapter's input alone: the output moves from the one without dropout, by the adapter's
// part only (W x + b is as it was).
TEST(LoraLinear, DropoutDropsTheAdaptersInputAlone) {
  const int N = 4, in = 8, out = 5;
  AdaptedLayer l(out, in, 2, 70);
  const Vec x = random_values(static_cast<std::size_t>(N) * in, 71);
  Vec plain(static_cast<std::size_t>(N) * out), dropped(plain.size()), base(plain.size());
  DropoutSite site{0.5f, 3, 0};
  l.layer.adapter.dropout = &site;
  linear_forward(l.layer, x.data(), N, dropped.data());
  site.rate = 0;
  linear_forward(l.layer, x.data(), N, plain.data());
  Linear<double> without = l.layer;
  without.adapter = {};
  linear_forward(without, x.data(), N, base.data());
  double moved = 0, adapter = 0;
  for (std::size_t i = 0; i < plain.size(); ++i) {
    moved = std::max(moved, std::abs(plain[i] - dropped[i]));
    adapter = std::max(adapter, std::abs(plain[i] - base[i]));
  }
  EXPECT_GT(moved, 1e-3);
  EXPECT_GT(adapter, moved / 10);
}

// Attention runs q|k|v as one stacked product: parts with adapters of different ranks (and one without) give the
// stacked layer one block-diagonal adapter whose outputs and gradients are the parts' own.
TEST(LoraLinear, StackedAdaptersEqualThePartsAlone) {
  const int N = 4, in = 6;
  AdaptedLayer q(6, in, 2, 20), k(3, in, 1, 30, false), v(3, in, 3, 40);
  const DropoutSite site{0.3f, 17, 0};  // each part its own mask
  q.layer.adapter.dropout = v.layer.adapter.dropout = &site;
  q.layer.adapter.stream = 1;
  v.layer.adapter.stream = 2;
  const std::vector<const Linear<double>*> parts = {&q.layer, &k.layer, &v.layer};
  Vec x = random_values(static_cast<std::size_t>(N) * in, 50);
  Arena arena;
  Linear<double> s = stack_linear(std::span<const Linear<double>* const>(parts), arena);
  Vec stacked(static_cast<std::size_t>(N) * s.out), dy = random_values(stacked.size(), 51);
  linear_forward(s, x.data(), N, stacked.data());
  Vec dx(x.size());
  stacked_backward(s, std::span<const Linear<double>* const>(parts), dy.data(), x.data(), N, dx.data(), false, arena);

  Vec dx_alone(x.size());
  int o = 0;
  for (AdaptedLayer* p : {&q, &k, &v}) {
    const int out = p->layer.out;
    Vec y(static_cast<std::size_t>(N) * out), dyp(y.size());
    linear_forward(p->layer, x.data(), N, y.data());
    for (int n = 0; n < N; ++n)
      for (int j = 0; j < out; ++j) {
        EXPECT_NEAR(y[n * out + j], stacked[n * s.out + o + j], 1e-12) << "output " << o + j;
        dyp[n * out + j] = dy[n * s.out + o + j];
      }
    // The same backward alone, into fresh gradients: equal to what stacked_backward added.
    AdaptedLayer alone = *p;
    alone.layer.w = alone.w.data();
    alone.layer.b = alone.b.data();
    std::fill(alone.db.begin(), alone.db.end(), 0.0);
    alone.layer.db = alone.db.data();
    if (p->layer.adapter.a) {
      std::fill(alone.da.begin(), alone.da.end(), 0.0);
      std::fill(alone.dbb.begin(), alone.dbb.end(), 0.0);
      alone.layer.adapter = {alone.a.data(), alone.bb.data(), alone.da.data(), alone.dbb.data(), p->layer.adapter.rank,
                             0.75, &site, p->layer.adapter.stream};
    }
    linear_backward(alone.layer, dyp.data(), x.data(), N, dx_alone.data(), true);
    if (p->layer.adapter.a) {
      expect_near_all(p->da, alone.da, 1e-12, "stacked dA");
      expect_near_all(p->dbb, alone.dbb, 1e-12, "stacked dB");
    }
    expect_near_all(p->db, alone.db, 1e-12, "stacked bias gradient");
    o += out;
  }
  expect_near_all(dx, dx_alone, 1e-12, "stacked dx");
}

// Folding W += scale B A leaves the layer's outputs as they were with the adapter beside it.
TEST(LoraLinear, FoldingKeepsTheOutputs) {
  const int N = 3, in = 5, out = 4;
  AdaptedLayer l(out, in, 2, 60);
  const Vec x = random_values(static_cast<std::size_t>(N) * in, 61);
  Vec before(static_cast<std::size_t>(N) * out), after(before.size());
  linear_forward(l.layer, x.data(), N, before.data());
  fold_adapter(l.layer);
  EXPECT_EQ(l.layer.adapter.a, nullptr);
  linear_forward(l.layer, x.data(), N, after.data());
  expect_near_all(after, before, 1e-14, "folded");
}

ModelConfig with_lora(ModelConfig c, std::vector<std::string> targets, int rank = 4) {
  c.lora.rank = rank;
  c.lora.alpha = 8;
  c.lora.targets = std::move(targets);
  return c;
}

// A base model's file and the same model with fresh adapters (A random, B zero) over it.
std::unique_ptr<Transformer<float>> fresh_adapters(const std::string& base, const std::vector<std::string>& targets) {
  const SafetensorsFile file = SafetensorsFile::read(base);
  auto model = std::make_unique<Transformer<float>>(with_lora(read_model_config(file), targets));
  initialize_parameters(model->parameters(), model->config(), 3);
  load_selected_parameters<float>(file, model->parameters(), [](const ParamSpec& s) { return s.frozen; });
  return model;
}

// B starts at zero, so a model with fresh adapters computes what its base computes, to the bit: a language
// model's logits, and a translation model's loss (self- and cross-attention, feed-forward adapted).
TEST(LoraModel, FreshAdaptersEqualTheBaseToTheBit) {
  TempDir dir;
  const std::string lm = test::make_language_model(dir.file("lm.htp"));
  const auto base = load_model(lm);
  const auto adapted = fresh_adapters(lm, {"q", "k", "v", "o", "ffn"});
  const std::vector<int> ids = {1, 5, 9, 4, 7, 7, 3};
  const std::vector<float> want = test::sequence_logits(*base, ids), got = test::sequence_logits(*adapted, ids);
  ASSERT_EQ(got.size(), want.size());
  EXPECT_EQ(std::memcmp(got.data(), want.data(), got.size() * sizeof(float)), 0);

  const std::string mt = test::make_model(dir.file("mt.htp"));
  const auto mt_base = load_model(mt);
  const auto mt_adapted = fresh_adapters(mt, {"q", "v", "xq", "xk", "xv", "xo", "ffn"});
  const Batch batch = make_batch({{3, 4, 5, 6}, {8, 9}}, {{4, 5, 6}, {7}}, mt_base->config());
  Arena arena;
  const double want_loss = mt_base->evaluate(batch, 0.1f, arena).loss;
  arena.reset();
  EXPECT_EQ(mt_adapted->evaluate(batch, 0.1f, arena).loss, want_loss);
}

// LoRA dropout applies in training alone: a training pass's loss differs from evaluation's, and evaluation
// (and a language model's logits) after a training pass are what they were before it.
TEST(LoraModel, DropoutTrainsButDoesNotEvaluate) {
  TempDir dir;
  const std::string lm = test::make_language_model(dir.file("lm.htp"));
  const std::string adapter = test::make_adapter(lm, dir.file("adapter.htp"), {"q", "v", "ffn"}, 4);
  auto model = load_adapted_model(SafetensorsFile::read(lm), SafetensorsFile::read(adapter));
  ModelConfig c = model->config();  // the same, with LoRA dropout alone
  c.dropout = c.attention_dropout = c.activation_dropout = c.embedding_dropout = 0;
  c.lora.dropout = 0.5f;
  Transformer<float> dropped(c);
  std::copy_n(model->parameters().values(), model->parameters().size(), dropped.parameters().values());
  const std::vector<int> ids = {1, 4, 6, 8, 5, 2};
  const Batch batch = make_batch({{}}, {{4, 6, 8, 5, 9}}, c);
  Arena arena;
  const double evaluated = dropped.evaluate(batch, 0.0f, arena).loss;
  const std::vector<float> logits = test::sequence_logits(dropped, ids);
  StepOptions training;
  training.training = true;
  training.seed = 5;
  training.label_smoothing = 0;
  arena.reset();
  const double trained = dropped.forward_backward(batch, training, arena).loss;
  EXPECT_GT(std::abs(trained - evaluated), 1e-4) << "dropout in training";
  arena.reset();
  EXPECT_EQ(dropped.evaluate(batch, 0.0f, arena).loss, evaluated);
  EXPECT_EQ(test::sequence_logits(dropped, ids), logits);
  EXPECT_EQ(test::sequence_logits(*model, ids), logits) << "no dropout: the model without it";
}

// Scoring with adapters (unpacked, and packed for inference through --adapter's loader) equals scoring the
// model `heptapod merge` writes.
TEST(LoraModel, MergedModelScoresAsTheAdapters) {
  TempDir dir;
  const std::string lm = test::make_language_model(dir.file("lm.htp"));
  const std::string adapter = test::make_adapter(lm, dir.file("adapter.htp"), {"q", "v", "o", "ffn"}, 3);
  const auto adapted = load_adapted_model(SafetensorsFile::read(lm), SafetensorsFile::read(adapter));
  const std::vector<int> ids = {1, 6, 2, 8, 8, 5};
  const std::vector<float> with_adapters = test::sequence_logits(*adapted, ids);
  const std::vector<float> base = test::sequence_logits(*load_model(lm), ids);
  double moved = 0;
  for (std::size_t i = 0; i < base.size(); ++i) moved = std::max(moved, double(std::abs(base[i] - with_adapters[i])));
  EXPECT_GT(moved, 1e-2) << "the adapters change the model";

  const std::string merged = dir.file("merged.htp");
  merge_adapter(SafetensorsFile::read(lm), SafetensorsFile::read(adapter), merged);
  const auto merged_model = load_model(merged);
  EXPECT_FALSE(merged_model->config().lora.enabled());
  test::expect_close(test::sequence_logits(*merged_model, ids), with_adapters, 1e-5, "merged vs adapters");

  ModelLoadOptions options;
  options.adapter = adapter;
  InferenceModel packed = load_for_inference(lm, options, Architecture::DecoderOnly, "generation");
  InferenceModel packed_merged = load_for_inference(merged, {}, Architecture::DecoderOnly, "generation");
  test::expect_close(test::sequence_logits(*packed.model, ids), test::sequence_logits(*packed_merged.model, ids), 1e-5,
                     "packed with --adapter vs packed merged");
  EXPECT_EQ(packed.vocabs.target.size(), packed_merged.vocabs.target.size());
}

// Adapters over a packed base (what --adapter and heptapod serve load): every frozen tensor is the base's own
// memory, not a copy, and the adapters stay unmerged beside the base's packed matrices, giving what they give
// beside row-major float weights: a language model's logits, and a translation model's with adapters in its
// stacked q|k|v and cross-attention k|v. The base computes as before; over an int8 base the adapters apply too.
TEST(LoraModel, AdaptersOverAPackedBaseShareItsWeights) {
  TempDir dir;
  auto check = [&](const std::string& model, const std::vector<std::string>& targets, const Batch& batch) {
    const std::string adapter = test::make_adapter(model, model + ".adapter", targets, 3);
    const SafetensorsFile base_file = SafetensorsFile::read(model), adapter_file = SafetensorsFile::read(adapter);
    const std::shared_ptr<Transformer<float>> base = load_packed_model(model, {});
    Arena arena;
    auto logits = [&](Transformer<float>& m) {
      arena.reset();
      const float* l = m.logits(batch, arena);
      return std::vector<float>(l, l + batch.tgt_in.size() * static_cast<std::size_t>(m.config().tgt_vocab_size));
    };
    const std::vector<float> base_before = logits(*base);
    const auto over = load_adapter_over(base, base_file, adapter_file);
    for (const ParamSpec& spec : over->parameters().specs())
      if (spec.frozen) EXPECT_EQ(over->parameters().value(spec.name), base->parameters().value(spec.name)) << spec.name;
    const auto beside_float = load_adapted_model(base_file, adapter_file);  // unpacked: beside row-major weights
    const std::vector<float> adapted = logits(*over);
    test::expect_close(adapted, logits(*beside_float), 1e-5, model + ": over the packed base vs beside float weights");
    EXPECT_EQ(logits(*base), base_before) << model << ": the base is unchanged";
    double moved = 0;
    for (std::size_t i = 0; i < adapted.size(); ++i) moved = std::max(moved, double(std::abs(adapted[i] - base_before[i])));
    EXPECT_GT(moved, 1e-2) << model << ": the adapters change the model";

    const std::shared_ptr<Transformer<float>> int8 = load_packed_model(model, {ComputeType::Int8});
    const std::vector<float> int8_base = logits(*int8);
    const std::vector<float> int8_adapted = logits(*load_adapter_over(int8, base_file, adapter_file));
    moved = 0;
    for (std::size_t i = 0; i < adapted.size(); ++i) moved = std::max(moved, double(std::abs(int8_adapted[i] - int8_base[i])));
    EXPECT_GT(moved, 1e-2) << model << ": the adapters change an int8 base";
  };
  const std::string lm = test::make_language_model(dir.file("lm.htp"));
  check(lm, {"q", "k", "v", "o", "ffn"}, make_batch({{}}, {{1, 6, 2, 8, 8, 5}}, read_model_config(SafetensorsFile::read(lm))));
  const std::string mt = test::make_model(dir.file("mt.htp"));
  check(mt, {"q", "v", "xq", "xk", "xv", "xo", "ffn"},
        make_batch({{3, 4, 5, 6}, {8, 9}}, {{4, 5, 6}, {7}}, read_model_config(SafetensorsFile::read(mt))));
}

// An adapter file names its base by checksum: over another model, loading and merging are refused by name.
TEST(LoraModel, AdaptersOfAnotherBaseAreRefused) {
  TempDir dir;
  const std::string lm = test::make_language_model(dir.file("lm.htp"));
  const std::string other = test::make_language_model(dir.file("other.htp"), 16);
  const std::string adapter = test::make_adapter(lm, dir.file("adapter.htp"));
  EXPECT_NE(weights_checksum(SafetensorsFile::read(lm)), weights_checksum(SafetensorsFile::read(other)));
  try {
    load_adapted_model(SafetensorsFile::read(other), SafetensorsFile::read(adapter));
    FAIL() << "adapters over another base were loaded";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("another base"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("adapter.htp"), std::string::npos) << e.what();
  }
  EXPECT_THROW(merge_adapter(SafetensorsFile::read(other), SafetensorsFile::read(adapter), dir.file("m.htp")), Error);
  EXPECT_FALSE(fs::exists(dir.file("m.htp")));
  // A model file is not an adapter file.
  EXPECT_THROW(read_adapter_info(SafetensorsFile::read(lm)), Error);
}

// The config refuses what makes no adapter: rank 0 is no LoRA at all, but a rank above a targeted matrix's
// smaller side, an unknown or repeated target, a cross-attention target without one, are Errors naming it.
TEST(LoraModel, BadConfigsAreErrors) {
  ModelConfig lm = model_preset("tiny");
  lm = one_stack_config(lm, Architecture::DecoderOnly, 50);
  lm.d_model = 16;
  lm.n_heads = 2;
  lm.d_ff = 24;
  auto message = [](const ModelConfig& c) {
    try {
      validate(c);
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_EQ(message(with_lora(lm, {"q", "v"}, 16)), "");
  EXPECT_NE(message(with_lora(lm, {"q", "v"}, 17)).find("rank 17 is above"), std::string::npos);
  EXPECT_NE(message(with_lora(lm, {"q", "w"})).find("unknown LoRA target \"w\""), std::string::npos);
  EXPECT_NE(message(with_lora(lm, {"q", "q"})).find("given twice"), std::string::npos);
  EXPECT_NE(message(with_lora(lm, {"xq"})).find("cross-attention"), std::string::npos);
  EXPECT_NE(message(with_lora(lm, {})).find("no targets"), std::string::npos);
  ModelConfig negative = with_lora(lm, {"q"});
  negative.lora.alpha = 0;
  EXPECT_NE(message(negative).find("alpha"), std::string::npos);
  // A config's "lora" round-trips through the model file's JSON, and a file without one has none.
  const ModelConfig adapted = with_lora(lm, {"q", "ffn"}, 3);
  EXPECT_EQ(to_json(model_config_from_json(to_json(adapted), "test")), to_json(adapted));
  EXPECT_EQ(to_json(lm).find("lora"), std::string::npos);
  EXPECT_THROW(model_config_from_json(R"({"lora": 3})", "test"), Error);
}

// heptapod train --init --lora: the run trains the adapters alone (Adam's state is theirs), leaves the base
// file's bytes as they were, checkpoints the adapters alone (adapter files naming the base), and writes
// adapter.htp, which generate loads over the base
// and heptapod info and merge read; --freeze with --lora, rank 0, a rank above the matrices, an unknown target
// and --lora without --init are refused by name.
TEST(LoraTraining, TrainsTheAdaptersAloneOverAFrozenBase) {
  TempDir dir;
  const std::string lm = test::make_language_model(dir.file("lm.htp"), 32);
  const std::string run = dir.file("run");
  auto train = [&](const std::string& extra) {
    return "train --init " + quoted(lm) + " --text " + quoted(test::data_file("numbers.train.en")) + " -o " +
           quoted(run) + " --context 16 --batch-tokens 128 --threads 2 --steps 6 --valid-every 3 --log-every 1 " +
           extra;
  };
  const std::string base_before = weights_checksum(SafetensorsFile::read(lm));
  std::string log;
  ASSERT_EQ(run_heptapod(train("--lora 4 --lora-alpha 16 --lora-targets q,v,ffn --lr 1e-2"), dir, log), 0) << log;
  EXPECT_NE(log.find("LoRA rank 4 on q, v, ffn"), std::string::npos) << log;
  ASSERT_TRUE(fs::exists(run + "/adapter.htp")) << log;
  EXPECT_FALSE(fs::exists(run + "/model.htp"));

  const SafetensorsFile base = SafetensorsFile::read(lm);
  EXPECT_EQ(weights_checksum(base), base_before) << "the base file changed";
  // A checkpoint is an adapter file of the trained tensors, naming the base.
  const SafetensorsFile checkpoint = SafetensorsFile::read(checkpoint_path(run + "/checkpoints", 6));
  ASSERT_TRUE(is_adapter_file(checkpoint));
  EXPECT_EQ(read_adapter_info(checkpoint).base_checksum, base_before);
  const ModelConfig config = checkpoint_config(checkpoint);
  ASSERT_EQ(config.lora.rank, 4);
  Transformer<float> layout(config);
  const ParameterStore<float>& p = layout.parameters();
  int frozen = 0, trained = 0;
  for (const ParamSpec& spec : p.specs()) {
    if (spec.frozen) {
      EXPECT_EQ(checkpoint.find(spec.name), nullptr) << spec.name;
      ++frozen;
    } else {
      EXPECT_NE(checkpoint.find(spec.name), nullptr) << spec.name;
      EXPECT_TRUE(is_lora_tensor(spec.name)) << spec.name;
      ++trained;
    }
  }
  EXPECT_GT(frozen, 0);
  EXPECT_EQ(trained, config.decoder_layers * 4 * 2);  // each layer's q, v, fc1, fc2: A and B
  EXPECT_EQ(static_cast<std::size_t>(checkpoint.at("extra/adam/m").numel()), p.trained_size());
  const std::vector<float> b0 = checkpoint.floats<float>("decoder/layers/0/self_attn/v_proj/lora_b");
  double norm = 0;
  for (float v : b0) norm += std::abs(v);
  EXPECT_GT(norm, 0) << "B trained away from zero";

  // The adapter file: small, naming the base; info describes it; generate takes it; merge folds it.
  const SafetensorsFile adapter = SafetensorsFile::read(run + "/adapter.htp");
  const AdapterInfo info = read_adapter_info(adapter);
  EXPECT_EQ(info.base_checksum, weights_checksum(base));
  EXPECT_EQ(static_cast<std::size_t>(info.parameters), p.trained_size());
  ASSERT_EQ(run_heptapod("info -m " + quoted(run + "/adapter.htp"), dir, log), 0) << log;
  EXPECT_NE(log.find("rank 4, alpha 16 (scale 4), targets q,v,ffn"), std::string::npos) << log;
  ASSERT_EQ(run_heptapod("generate --model " + quoted(lm) + " --adapter " + quoted(run + "/adapter.htp") +
                             " --prompt one --max-tokens 4 --seed 1",
                         dir, log),
            0)
      << log;
  ASSERT_EQ(run_heptapod("merge " + quoted(lm) + " --adapter " + quoted(run + "/adapter.htp") + " -o " +
                             quoted(dir.file("merged.htp")),
                         dir, log),
            0)
      << log;
  EXPECT_FALSE(load_model(dir.file("merged.htp"))->config().lora.enabled());
  const std::string other = test::make_language_model(dir.file("other.htp"), 16);  // other weights
  EXPECT_NE(run_heptapod("generate --model " + quoted(other) + " --adapter " + quoted(run + "/adapter.htp") +
                             " --prompt one --max-tokens 4",
                         dir, log),
            0);
  EXPECT_NE(log.find("another base"), std::string::npos) << log;

  // A checkpoint generates over its base as the adapter file does; quantize and GGUF export, given it alone,
  // say what it is.
  const std::string step6 = quoted(checkpoint_path(run + "/checkpoints", 6));
  ASSERT_EQ(run_heptapod("generate --model " + quoted(lm) + " --adapter " + step6 + " --prompt one --max-tokens 4", dir,
                         log),
            0)
      << log;
  EXPECT_NE(run_heptapod("quantize --model " + step6 + " --to int8 -o " + quoted(dir.file("q.htp")), dir, log), 0);
  EXPECT_NE(log.find("heptapod merge"), std::string::npos) << log;
  EXPECT_NE(run_heptapod("convert " + step6 + " --to gguf -o " + quoted(dir.file("g.gguf")), dir, log), 0);
  EXPECT_NE(log.find("heptapod merge"), std::string::npos) << log;

  const std::string bad = dir.file("bad");
  auto refused = [&](const std::string& args, const std::string& words) {
    const std::string command = "train --init " + quoted(lm) + " --text " + quoted(test::data_file("numbers.dev.en")) +
                                " -o " + quoted(bad) + " --context 16 --steps 1 " + args;
    EXPECT_NE(run_heptapod(command, dir, log), 0) << args;
    EXPECT_NE(log.find(words), std::string::npos) << args << ": " << log;
    EXPECT_FALSE(fs::exists(bad)) << args;
  };
  refused("--lora 4 --freeze embeddings", "--freeze and --lora");
  refused("--lora 0", "--lora: the rank must be at least 1");
  refused("--lora 33", "rank 33 is above");
  refused("--lora 2 --lora-targets q,z", "unknown LoRA target \"z\"");
  refused("--lora 2 --lora-targets xq", "cross-attention");
  refused("--lora-alpha 4", "--lora-alpha, --lora-dropout and --lora-targets need --lora");
  EXPECT_NE(run_heptapod("train --text " + quoted(test::data_file("numbers.dev.en")) + " --arch decoder-only -o " +
                             quoted(bad) + " --lora 2 --steps 1",
                         dir, log),
            0);
  EXPECT_NE(log.find("--lora needs --init"), std::string::npos) << log;
}

// A classifier fine-tuned from a masked-LM encoder with --lora: its new head trains in full beside the
// adapters and travels in the adapter file with its class names, so classify --adapter over the encoder
// classifies as the merged model does.
TEST(LoraTraining, ClassifierHeadTravelsWithTheAdapters) {
  TempDir dir;
  const std::string encoder = test::make_encoder(dir.file("encoder.htp"));
  const std::string text = test::data_file("numbers.dev.en");
  std::string labels;
  for (const std::string& line : read_lines(text)) labels += (line.size() % 2 ? "odd\n" : "even\n");
  dir.write("labels.txt", labels);
  const std::string run = dir.file("run");
  std::string log;
  ASSERT_EQ(run_heptapod("train --init " + quoted(encoder) + " --task classify --text " + quoted(text) +
                             " --labels " + quoted(dir.file("labels.txt")) + " -o " + quoted(run) +
                             " --lora 2 --lora-targets q,v,ffn --context 16 --batch-tokens 256 --threads 2 --steps 3",
                         dir, log),
            0)
      << log;
  EXPECT_NE(log.find("with a new head"), std::string::npos) << log;
  const SafetensorsFile adapter = SafetensorsFile::read(run + "/adapter.htp");
  EXPECT_NE(adapter.find("encoder/classifier/weight"), nullptr);
  EXPECT_NE(adapter.find("extra/labels"), nullptr);
  const std::string in = dir.write("in.txt", "twenty-one\nseven thousand\n");
  ASSERT_EQ(run_heptapod("classify -m " + quoted(encoder) + " --adapter " + quoted(run + "/adapter.htp") + " -i " +
                             quoted(in) + " --top-k 2",
                         dir, log),
            0)
      << log;
  const std::string with_adapter = log;
  EXPECT_NE(with_adapter.find("odd"), std::string::npos) << with_adapter;
  ASSERT_EQ(run_heptapod("merge " + quoted(encoder) + " --adapter " + quoted(run + "/adapter.htp") + " -o " +
                             quoted(dir.file("merged.htp")),
                         dir, log),
            0)
      << log;
  ASSERT_EQ(run_heptapod("classify -m " + quoted(dir.file("merged.htp")) + " -i " + quoted(in) + " --top-k 2", dir, log),
            0)
      << log;
  EXPECT_EQ(log, with_adapter);
}

}  // namespace
}  // namespace heptapod
