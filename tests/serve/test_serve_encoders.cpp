// /v1/embeddings with a converted sentence-transformers model: the server embeds as the library does by
// default (the model file's pooling, normalisation and length), the reference's vectors within 1e-6
// (tools/make_encoder_fixtures.py).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "heptapod/decode/encoder.h"
#include "heptapod/io/safetensors.h"
#include "running_server.h"
#include "test_util.h"

namespace heptapod {
namespace {

TEST(ServeEncoders, SentenceTransformersEmbeddingsAreTheLibrarys) {
  test::TempDir dir;
  std::string log;
  const std::string fixture = test::fixture("sentence_transformers"), model = dir.file("st.htp");
  ASSERT_EQ(test::run_heptapod("convert " + test::quoted(fixture) + " -o " + test::quoted(model), dir, log), 0) << log;
  const SafetensorsFile ref = SafetensorsFile::read(fixture + "/reference.safetensors");
  const auto texts = nlohmann::json::parse(ref.metadata("texts"));
  const std::vector<float> want = ref.floats<float>("expect/embedding/mean_normalized");
  const std::size_t C = want.size() / texts.size();
  test::RunningServer server({parse_model_spec("st=" + model)}, ServerOptions{});
  httplib::Client c = server.client();
  for (std::size_t i = 0; i < texts.size(); ++i) {
    const test::Reply r = test::post_json(c, "/v1/embeddings", {{"model", "st"}, {"input", texts[i][0]}});
    ASSERT_EQ(r.status, 200) << r.text;
    const auto got = r.body["data"][0]["embedding"].get<std::vector<float>>();
    ASSERT_EQ(got.size(), C);
    EXPECT_LT(test::max_rel_error(got.data(), want.data() + i * C, C), 1e-6) << "text " << i;
  }
}

// A text past the model's max_seq_length is embedded cut to it, as the library cuts it: the reply's usage counts
// the tokens embedded, and the server's log warns about the input.
TEST(ServeEncoders, LongInputsAreCutVisibly) {
  test::TempDir dir;
  std::string log;
  const std::string model = dir.file("st.htp");
  ASSERT_EQ(test::run_heptapod("convert " + test::quoted(test::fixture("sentence_transformers")) + " -o " +
                                   test::quoted(model),
                               dir, log),
            0)
      << log;
  const std::string text = "The cat sat on the mat. Where is the dog? Hello, world! 42 cats like the sun.";
  testing::internal::CaptureStderr();
  std::string warnings;
  {
    test::RunningServer server({parse_model_spec("st=" + model)}, ServerOptions{});
    httplib::Client c = server.client();
    const test::Reply r = test::post_json(c, "/v1/embeddings", {{"model", "st"}, {"input", {"short", text}}});
    warnings = testing::internal::GetCapturedStderr();
    ASSERT_EQ(r.status, 200) << r.text;
    const std::size_t tokens = Encoder(model).encode_text("short").tokens.size() + 12;  // the long text cut to 12
    EXPECT_EQ(r.body["usage"]["prompt_tokens"], tokens);
    EXPECT_EQ(r.body["usage"]["total_tokens"], tokens);
  }
  EXPECT_NE(warnings.find("/v1/embeddings input 1 is longer than model st's 12 tokens; embedded the 12 that fit"),
            std::string::npos)
      << warnings;
  EXPECT_EQ(warnings.find("input 0 is longer"), std::string::npos) << warnings;
}

}  // namespace
}  // namespace heptapod
