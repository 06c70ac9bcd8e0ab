// /v1/embeddings with a converted sentence-transformers model: the server embeds as the library does by
// default (the model file's pooling, normalisation and length), the reference's vectors within 1e-6
// (tools/make_encoder_fixtures.py).
#include <gtest/gtest.h>

#include <string>
#include <vector>

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

}  // namespace
}  // namespace heptapod
