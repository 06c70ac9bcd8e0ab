// Layer-level parity of Transformer-XL's relative attention (layers/relative_positions.h through
// attention_forward / attention_backward's cross path) against tests/fixtures/xl_attention.safetensors, written by
// tools/make_xl_fixtures.py: an independent float64 PyTorch implementation of the paper's equations (Dai et al.
// 2019, section 3.3), not derived from Heptapod's code. One layer (C 16, 2 heads, clamp_length 6) runs over three
// consecutive segments of one stream (5 rows each; memory: none, then the previous segment's last 4 input rows);
// for each segment the output must match within 1e-10 and the gradients of sum(y * r) with respect to the
// segment's rows (queries plus their key / value rows; the memory's are discarded) and to every parameter (the
// projections, W_r, u and v) within 1e-9, both as max |a - b| / (1 + max |b|).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "heptapod/core/arena.h"
#include "heptapod/io/safetensors.h"
#include "heptapod/layers/attention.h"
#include "heptapod/layers/dropout_site.h"
#include "heptapod/layers/linear.h"
#include "heptapod/layers/relative_positions.h"
#include "heptapod/layers/sequences.h"
#include "test_util.h"

namespace heptapod {
namespace {

using Vec = std::vector<double>;

// max |got - want| / (1 + max |want|): relative for large values, absolute near zero (the key bias's gradient is
// zero in exact arithmetic, rounding noise in both).
double deviation(const Vec& got, const Vec& want) {
  double diff = 0, scale = 0;
  for (std::size_t i = 0; i < want.size(); ++i) {
    diff = std::max(diff, std::abs(got[i] - want[i]));
    scale = std::max(scale, std::abs(want[i]));
  }
  return diff / (1 + scale);
}

void expect_matches(const Vec& got, const Vec& want, double tolerance, const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (std::size_t i = 0; i < got.size(); ++i) ASSERT_FALSE(std::isnan(got[i])) << what << ": NaN at " << i;
  EXPECT_LE(deviation(got, want), tolerance) << what;
}

// A projection's weight and bias from the fixture, with zeroed gradient buffers.
struct LinearParts {
  Vec w, b, dw, db;
  LinearParts(const SafetensorsFile& f, const std::string& name)
      : w(f.floats<double>("param/w" + name)), b(f.floats<double>("param/b" + name)), dw(w.size()), db(b.size()) {}
  Linear<double> layer(int C) { return Linear<double>{w.data(), b.data(), dw.data(), db.data(), C, C}; }
  void zero_grads() {
    std::fill(dw.begin(), dw.end(), 0.0);
    std::fill(db.begin(), db.end(), 0.0);
  }
};

TEST(RelativeAttention, MatchesThePyTorchReferenceOverThreeSegmentsWithMemory) {
  const SafetensorsFile f = SafetensorsFile::read(test::fixture("xl_attention.safetensors"));
  ASSERT_EQ(f.metadata("format"), "heptapod-xl-fixture");
  const int heads = std::stoi(f.metadata("heads"));
  const int clamp = std::stoi(f.metadata("clamp_length"));
  const int C = static_cast<int>(f.at("param/wq").shape[0]);
  ASSERT_EQ(C % heads, 0);

  LinearParts q(f, "q"), k(f, "k"), v(f, "v"), o(f, "o");
  const MultiHeadAttention<double> attn{q.layer(C), k.layer(C), v.layer(C), o.layer(C), heads, {}, {}, 0, 0, {}, {}};
  const Vec w_r = f.floats<double>("param/w_r"), u = f.floats<double>("param/u"), pos_v = f.floats<double>("param/v");
  Vec dw_r(w_r.size()), du(u.size()), dv(pos_v.size());
  Arena arena;

  for (int s = 0; s < 3; ++s) {
    const std::string seg = "seg" + std::to_string(s), expect = "expect/" + seg + "/";
    const Vec x = f.floats<double>(seg + "/x"), kv = f.floats<double>(seg + "/kv"), R = f.floats<double>(seg + "/r");
    const int L = static_cast<int>(f.at(seg + "/x").shape[0]);
    const int K = static_cast<int>(f.at(seg + "/kv").shape[0]);
    const int M = f.ints(seg + "/mem_len").at(0);
    ASSERT_EQ(K, M + L) << seg;
    ASSERT_TRUE(std::equal(x.begin(), x.end(), kv.begin() + static_cast<std::ptrdiff_t>(M) * C)) << seg;

    for (LinearParts* p : {&q, &k, &v, &o}) p->zero_grads();
    for (Vec* g : {&dw_r, &du, &dv}) std::fill(g->begin(), g->end(), 0.0);

    // The segment's L queries are the last L of its K key positions (causal, key offset M).
    const Sequences queries(&L, 1), keys(&K, 1);
    const AttentionShape shape(queries, keys, /*causal=*/true);
    RelativePositionTerm<double> term(
        RelativePositionParams<double>{w_r.data(), u.data(), pos_v.data(), dw_r.data(), du.data(), dv.data(), clamp}, C,
        heads, shape);

    // x and kv are different buffers: the cross path, as a memory needs.
    arena.reset();
    AttentionSaved<double> saved;
    Vec y(x.size());
    attention_forward<double>(attn, x.data(), kv.data(), shape, DropoutSite{}, arena, saved, y.data(),
                              OutputBias::Add, nullptr, &term);
    expect_matches(y, f.floats<double>(expect + "y"), 1e-10, seg + " y");

    Vec dxq(x.size()), dxkv(kv.size(), 0.0);
    attention_backward<double>(attn, R.data(), x.data(), kv.data(), shape, DropoutSite{}, saved, arena, dxq.data(),
                               false, dxkv.data(), BiasGrad::Compute, nullptr, &term);
    term.finish_backward();

    // x's gradient: as the queries, plus as the last L key / value rows (the first M, the memory's, are dropped).
    Vec dx = dxq;
    for (std::size_t i = 0; i < dx.size(); ++i) dx[i] += dxkv[static_cast<std::size_t>(M) * C + i];
    expect_matches(dx, f.floats<double>(expect + "grad/x"), 1e-9, seg + " grad x");
    const std::vector<std::pair<std::string, const Vec*>> grads = {
        {"wq", &q.dw}, {"bq", &q.db}, {"wk", &k.dw}, {"bk", &k.db}, {"wv", &v.dw},  {"bv", &v.db},
        {"wo", &o.dw}, {"bo", &o.db}, {"w_r", &dw_r}, {"u", &du},    {"v", &dv}};
    for (const auto& [name, grad] : grads)
      expect_matches(*grad, f.floats<double>(expect + "grad/" + name), 1e-9, seg + " grad " + name);
  }
}

}  // namespace
}  // namespace heptapod
