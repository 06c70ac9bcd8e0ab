// Checks shared by the tests of converted Hugging Face fixtures (tools/make_hf_fixtures.py,
// tools/make_encoder_fixtures.py): the conversion itself, and a sequence classifier against its reference.
#pragma once

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "heptapod/decode/encoder.h"
#include "heptapod/io/safetensors.h"
#include "test_process.h"
#include "test_util.h"

namespace heptapod::test {

// A fixture converted into `dir` (--from `from`, or found by itself when empty): the model file's path.
inline std::string convert_fixture(const std::string& fixture, const std::string& from, TempDir& dir, std::string& log) {
  const std::string output = dir.file(fixture + ".htp");
  EXPECT_EQ(run_heptapod("convert " + quoted(test::fixture(fixture)) + (from.empty() ? "" : " --from " + from) +
                             " -o " + quoted(output),
                         dir, log),
            0)
      << log;
  EXPECT_HAS_SUBSTR(log, "with vocabularies");
  return output;
}

// The model's class logits and pooled vectors on the reference's batch `b` (B sentences, 3 classes) within
// 1e-5 of expect/class_logits and expect/pooled; the Encoder's label names (metadata labels) and its
// probabilities of the reference's texts (metadata texts: a text or a pair each) within 1e-5 of expect/probs.
// The reference's texts (metadata "texts": one text or a pair each) as the model's Encoder lays them out: the
// batch's ids, and its token types (all 0 where the batch holds none: a model with one token type).
inline void expect_tokenized_as_reference(const Encoder& encoder, const SafetensorsFile& ref, const Batch& b) {
  const auto texts = nlohmann::json::parse(ref.metadata("texts"));
  ASSERT_EQ(static_cast<int>(texts.size()), b.B);
  for (int i = 0; i < b.B; ++i) {
    const auto& t = texts[static_cast<std::size_t>(i)];
    const EncoderInput in = t.size() == 1 ? encoder.encode_text(t[0].get<std::string>())
                                          : encoder.encode_pair(t[0].get<std::string>(), t[1].get<std::string>());
    const auto first = b.src.begin() + static_cast<long>(i) * b.S;
    const int length = b.src_len[static_cast<std::size_t>(i)];
    EXPECT_EQ(in.tokens, std::vector<int>(first, first + length)) << "text " << i;
    if (b.src_types.empty()) {
      EXPECT_EQ(in.types, std::vector<int>(in.tokens.size(), 0)) << "text " << i;
    } else {
      const auto types = b.src_types.begin() + static_cast<long>(i) * b.S;
      EXPECT_EQ(in.types, std::vector<int>(types, types + length)) << "text " << i;
    }
  }
}

inline void expect_classifier_as_reference(Transformer<float>& model, const Batch& b, Encoder& encoder,
                                           const SafetensorsFile& ref) {
  const int L = 3;
  Arena arena;
  const float* logits = model.logits(b, arena);
  EXPECT_LT(max_rel_error(logits, ref.floats<float>("expect/class_logits").data(), static_cast<std::size_t>(b.B) * L),
            1e-5);
  EXPECT_LT(max_rel_error(model.pooled(), ref.floats<float>("expect/pooled").data(),
                          static_cast<std::size_t>(b.B) * model.config().d_model),
            1e-5);
  const auto labels = nlohmann::json::parse(ref.metadata("labels")).get<std::vector<std::string>>();
  EXPECT_EQ(encoder.labels().names(), labels);
  std::vector<EncoderInput> inputs;
  for (const auto& t : nlohmann::json::parse(ref.metadata("texts")))
    inputs.push_back(t.size() == 1 ? encoder.encode_text(t[0].get<std::string>())
                                   : encoder.encode_pair(t[0].get<std::string>(), t[1].get<std::string>()));
  ClassifyOptions o;
  o.top_k = L;
  const auto classes = encoder.classify_inputs(inputs, o);
  const std::vector<float> probs = ref.floats<float>("expect/probs");
  for (int i = 0; i < b.B; ++i)
    for (const ClassScore& s : classes[static_cast<std::size_t>(i)].top) {
      EXPECT_NEAR(s.probability, probs[static_cast<std::size_t>(i) * L + s.id], 1e-5) << "text " << i;
      EXPECT_EQ(s.label, labels[static_cast<std::size_t>(s.id)]);
    }
}

}  // namespace heptapod::test
