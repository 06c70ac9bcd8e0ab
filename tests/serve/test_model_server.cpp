// `heptapod serve` holding every kind of model at once (serve/model_server.h), on 127.0.0.1: generation
// replies under concurrent load (OpenAI's /v1/completions, streamed and not, and the native /v1/generate)
// equal what the Generator alone gives each request (int8: batch-invariant), and /v1/generate equals
// `heptapod generate`'s bytes (a beam search too, as rows of the running batch); embeddings and classes equal
// the Encoder alone and `heptapod classify --json`; a streaming client that leaves stops its generation and
// frees its rows; limits and bad input get the status and the field they name; translation is served beside
// them as before.
#include <gtest/gtest.h>

#include <sstream>

#include <nlohmann/json.hpp>
#include <thread>

#include "heptapod/decode/encoder.h"
#include "heptapod/decode/generator.h"
#include "heptapod/serve/encoder_api.h"
#include "raw_http.h"
#include "running_server.h"
#include "test_util.h"
#include "vocab_model.h"

namespace heptapod {
namespace {

using nlohmann::json;

class ModelServerTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new test::TempDir();
    translation_ = new std::string(test::make_model(dir_->file("mt.htp")));
    lm_ = new std::string(test::make_language_model(dir_->file("lm.htp")));  // sinusoidal: no context bound
    classifier_ = new std::string(test::make_encoder(dir_->file("clf.htp"), true));
    encoder_ = new std::string(test::make_encoder(dir_->file("enc.htp")));
    ServerOptions o = test::int8_server();
    o.limits.max_new_tokens = 100000;
    o.limits.max_nbest = 4;
    o.max_batch_rows = 8;  // fewer than the load's samples: requests wait for rows and join a running batch
    server_ = new test::RunningServer({parse_model_spec("es-en=" + *translation_), parse_model_spec("writer=" + *lm_),
                                       parse_model_spec("topics=" + *classifier_), parse_model_spec("vec=" + *encoder_)},
                                      o);
  }
  static void TearDownTestSuite() {
    delete server_;
    delete translation_;
    delete lm_;
    delete classifier_;
    delete encoder_;
    delete dir_;
  }
  static httplib::Client client() { return server_->client(); }
  static std::string metric(const std::string& series) {
    httplib::Client c = client();
    const std::string page = test::get(c, "/metrics").text;
    const std::size_t at = page.find(series + " ");
    return at == std::string::npos ? "" : page.substr(at + series.size() + 1, page.find('\n', at) - at - series.size() - 1);
  }

  static test::TempDir* dir_;
  static std::string *translation_, *lm_, *classifier_, *encoder_;
  static test::RunningServer* server_;
};
test::TempDir* ModelServerTest::dir_ = nullptr;
std::string *ModelServerTest::translation_ = nullptr, *ModelServerTest::lm_ = nullptr,
            *ModelServerTest::classifier_ = nullptr, *ModelServerTest::encoder_ = nullptr;
test::RunningServer* ModelServerTest::server_ = nullptr;

// Reads a streamed reply's server-sent events (the data of each, [DONE] included).
std::vector<json> events_of(const std::string& body, bool* done) {
  std::vector<json> out;
  *done = false;
  for (std::size_t at = 0; (at = body.find("data: ", at)) != std::string::npos;) {
    const std::size_t end = body.find("\n\n", at);
    const std::string data = body.substr(at + 6, end - at - 6);
    at = end;
    if (data == "[DONE]") *done = true;
    else out.push_back(json::parse(data));
  }
  return out;
}

TEST_F(ModelServerTest, GenerationUnderConcurrentLoadEqualsTheGeneratorAlone) {
  Generator generator(*lm_, {ComputeType::Int8});
  const std::vector<std::string> prompts = test::numbers();
  constexpr int kRequests = 24;
  // Request i: its prompt, seed, settings and API (OpenAI non-streamed, OpenAI streamed, native).
  auto options_of = [](int i) {
    GenerateOptions o;
    o.max_tokens = 5 + (i * 7) % 23;
    o.sampling = {i % 5 == 0 ? 0.0f : 0.9f, i % 2 ? 0 : 30, i % 3 ? 1.0f : 0.95f, static_cast<std::uint64_t>(i + 1)};
    o.nbest = 1 + i % 3;
    if (i % 4 == 3) o.stop = {"o"};
    return o;
  };
  // Expected: the Generator's outputs alone, best first (the native API's order); OpenAI's choices come in
  // draw order, so they are compared as a set.
  std::vector<std::vector<std::string>> expected(kRequests), got(kRequests);
  for (int i = 0; i < kRequests; ++i) {
    const std::vector<Generation> alone = generator.generate({prompts[static_cast<std::size_t>(i)]}, options_of(i));
    for (const GeneratedText& t : alone[0].outputs) expected[i].push_back(t.new_text);
  }
  std::vector<std::thread> threads;
  for (int k = 0; k < 8; ++k)
    threads.emplace_back([&, k] {
      httplib::Client c = client();
      for (int i = k; i < kRequests; i += 8) {
        const GenerateOptions o = options_of(i);
        json body = {{"model", "writer"}, {"prompt", prompts[static_cast<std::size_t>(i)]}, {"max_tokens", o.max_tokens},
                     {"temperature", o.sampling.temperature}, {"top_k", o.sampling.top_k}, {"top_p", o.sampling.top_p},
                     {"seed", o.sampling.seed}};
        if (!o.stop.empty()) body["stop"] = o.stop;
        const int api = i % 3;  // OpenAI non-streamed, OpenAI streamed, native
        body[api == 2 ? "nbest" : "n"] = o.nbest;
        if (api == 1) body["stream"] = true;
        const test::Reply r = test::post_json(c, api == 2 ? "/v1/generate" : "/v1/completions", body);
        if (r.status != 200) {
          got[i] = {"HTTP " + std::to_string(r.status) + r.text};
          continue;
        }
        if (api == 2) {
          for (const json& out : r.body["generations"][0]["outputs"]) got[i].push_back(out["new_text"]);
          continue;
        }
        got[i].resize(static_cast<std::size_t>(o.nbest));
        if (api == 1) {
          bool done = false;
          for (const json& e : events_of(r.text, &done))
            if (!e["choices"].empty()) got[i][e["choices"][0]["index"].get<std::size_t>()] += e["choices"][0]["text"];
          EXPECT_TRUE(done) << i;
        } else {
          for (const json& choice : r.body["choices"]) got[i][choice["index"].get<std::size_t>()] = choice["text"];
        }
      }
    });
  for (auto& t : threads) t.join();
  for (int i = 0; i < kRequests; ++i) {
    if (i % 3 != 2) {
      std::sort(got[i].begin(), got[i].end());
      std::sort(expected[i].begin(), expected[i].end());
    }
    EXPECT_EQ(got[i], expected[i]) << "request " << i;
  }
  EXPECT_NE(metric("heptapod_output_tokens_total{model=\"writer\",kind=\"generation\"}"), "0");
  EXPECT_NE(metric("heptapod_time_to_first_token_seconds_count{model=\"writer\",kind=\"generation\"}"), "");
}

TEST_F(ModelServerTest, NativeGenerateEqualsTheCommandsBytes) {
  const std::string prompt = test::numbers()[3];
  std::string log;
  const int rc = test::run_heptapod("generate -m " + test::quoted(*lm_) + " --compute-type int8 --prompt " +
                                        test::quoted(prompt) + " --seed 9 --max-tokens 12",
                                    *dir_, log);
  ASSERT_EQ(rc, 0) << log;
  httplib::Client c = client();
  const test::Reply r = test::post_json(c, "/v1/generate", {{"prompt", prompt}, {"seed", 9}, {"max_tokens", 12}});
  ASSERT_EQ(r.status, 200) << r.text;
  EXPECT_EQ(r.body["generations"][0]["outputs"][0]["text"].get<std::string>() + "\n", log);
  EXPECT_EQ(r.body["model"], "writer");
  // A beam search runs as rows of the running batch, beside sampled requests, and gives the command's bytes.
  ASSERT_EQ(test::run_heptapod("generate -m " + test::quoted(*lm_) + " --compute-type int8 --prompt " +
                                   test::quoted(prompt) + " --beam 3 --nbest 2 --max-tokens 10",
                               *dir_, log),
            0)
      << log;
  std::vector<std::thread> sampling;
  for (int i = 0; i < 3; ++i)
    sampling.emplace_back([this, &prompt, i] {
      httplib::Client other = client();
      test::post_json(other, "/v1/generate", {{"prompt", prompt}, {"seed", i}, {"max_tokens", 40}});
    });
  const test::Reply beam = test::post_json(c, "/v1/generate", {{"prompt", prompt}, {"beam", 3}, {"nbest", 2}, {"max_tokens", 10}});
  for (auto& t : sampling) t.join();
  ASSERT_EQ(beam.status, 200) << beam.text;
  std::vector<std::string> texts;  // the command's lines: 0 ||| text ||| score
  std::istringstream lines(log);
  for (std::string line; std::getline(lines, line);) {
    const std::size_t from = line.find(" ||| ") + 5, to = line.rfind(" ||| ");
    texts.push_back(line.substr(from, to - from));
  }
  const auto& outputs = beam.body["generations"][0]["outputs"];
  ASSERT_EQ(outputs.size(), texts.size()) << log;
  for (std::size_t k = 0; k < texts.size(); ++k) EXPECT_EQ(outputs[k]["text"].get<std::string>(), texts[k]) << k;
}

TEST_F(ModelServerTest, AStreamingClientThatLeavesStopsItsGenerationAndFreesItsRows) {
  // A greedy continuation that does not end for a long while (checked with the Generator).
  Generator generator(*lm_, {ComputeType::Int8});
  GenerateOptions o;
  o.max_tokens = 300;
  o.sampling.temperature = 0;
  std::string prompt;
  for (const std::string& p : test::numbers())
    if (generator.generate({p}, o)[0].outputs[0].end == "length") {
      prompt = p;
      break;
    }
  ASSERT_FALSE(prompt.empty()) << "no prompt runs 300 greedy tokens";
  const std::string before = metric("heptapod_generation_cancelled_total{model=\"writer\",kind=\"generation\"}");
  {
    test::RawConnection raw(server_->port());
    const std::string body = json{{"prompt", prompt}, {"max_tokens", 90000}, {"temperature", 0}, {"stream", true}}.dump();
    ASSERT_TRUE(raw.send("POST /v1/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: " +
                         std::to_string(body.size()) + "\r\n\r\n" + body));
    const std::string first = raw.read(10, [](const std::string& t) { return t.find("data: ") != std::string::npos; });
    ASSERT_NE(first.find("data: "), std::string::npos) << first;
    EXPECT_EQ(metric("heptapod_generation_rows{model=\"writer\",kind=\"generation\"}"), "1");
  }  // the client leaves
  std::string rows, cancelled;
  for (int i = 0; i < 200; ++i) {  // bounded: 10 s; uncancelled, 90,000 tokens would take minutes
    rows = metric("heptapod_generation_rows{model=\"writer\",kind=\"generation\"}");
    cancelled = metric("heptapod_generation_cancelled_total{model=\"writer\",kind=\"generation\"}");
    if (rows == "0" && cancelled != before) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  EXPECT_EQ(rows, "0");
  EXPECT_EQ(std::stoi(cancelled), std::stoi(before) + 1);
}

TEST_F(ModelServerTest, EmbeddingsAndClassesEqualTheEncoderAloneAndTheCommand) {
  const std::vector<std::string> numbers = test::numbers();
  const std::vector<std::string> texts(numbers.begin(), numbers.begin() + 12);
  Encoder encoder(*encoder_, {ComputeType::Int8});
  Encoder classifier(*classifier_, {ComputeType::Int8});
  const std::vector<std::vector<float>> vectors = encoder.embed(texts, {});
  const std::vector<Classification> classes = classifier.classify(texts, {2});
  std::vector<std::thread> threads;
  std::vector<std::string> failures(texts.size());
  for (std::size_t i = 0; i < texts.size(); ++i)
    threads.emplace_back([&, i] {
      httplib::Client c = client();
      const test::Reply e = test::post_json(c, "/v1/embeddings", {{"model", "vec"}, {"input", texts[i]}});
      if (e.status != 200 || e.body["data"][0]["embedding"].get<std::vector<float>>() != vectors[i])
        failures[i] += "embedding " + e.text;
      const test::Reply k = test::post_json(c, "/v1/classify", {{"text", json::array({texts[i]})}, {"top_k", 2}});
      if (k.status != 200 || k.body["classifications"][0] != classification_json(classes[i])) failures[i] += " classes " + k.text;
    });
  for (auto& t : threads) t.join();
  for (std::size_t i = 0; i < texts.size(); ++i) EXPECT_EQ(failures[i], "") << i;
  // base64: the same float32 bytes.
  httplib::Client c = client();
  const test::Reply b = test::post_json(c, "/v1/embeddings", {{"model", "vec"}, {"input", texts[0]}, {"encoding_format", "base64"}});
  ASSERT_EQ(b.status, 200);
  EXPECT_EQ(b.body["data"][0]["embedding"], base64_encode(vectors[0].data(), vectors[0].size() * 4));
  // `heptapod classify --json` prints the same objects.
  std::string log;
  const std::string input = dir_->write("texts.txt", texts[0] + "\n");
  ASSERT_EQ(test::run_heptapod("classify -m " + test::quoted(*classifier_) + " --compute-type int8 --top-k 2 --json -i " +
                                   test::quoted(input),
                               *dir_, log),
            0)
      << log;
  EXPECT_EQ(json::parse(log), classification_json(classes[0]));
}

TEST_F(ModelServerTest, ModelsListEveryModelWithItsKindAndTranslationIsServedBeside) {
  httplib::Client c = client();
  const test::Reply r = test::get(c, "/v1/models");
  ASSERT_EQ(r.status, 200);
  std::vector<std::string> kinds;
  for (const json& m : r.body["data"]) kinds.push_back(m["id"].get<std::string>() + ":" + m["kind"].get<std::string>());
  EXPECT_EQ(kinds, (std::vector<std::string>{"es-en:translation", "writer:generation", "topics:classification",
                                             "vec:embedding"}));
  EXPECT_EQ(test::get(c, "/v1/models/topics").body["labels"], json::array({"number", "word"}));
  EXPECT_EQ(test::get(c, "/v1/models/none").status, 404);
  const test::Reply t = test::post_json(c, "/translate", {{"q", "uno"}, {"source", "es"}, {"target", "en"}});
  EXPECT_EQ(t.status, 200) << t.text;
  const std::string languages = test::get(c, "/languages").text;
  EXPECT_HAS_SUBSTR(languages, "\"code\":\"es\"");
  EXPECT_EQ(languages.find("writer"), std::string::npos) << languages;
}

TEST_F(ModelServerTest, LimitsAndBadInputGetTheirStatusAndNameTheField) {
  httplib::Client c = client();
  auto check = [&](const std::string& path, const json& body, int status, const std::string& part) {
    const test::Reply r = test::post_json(c, path, body);
    EXPECT_EQ(r.status, status) << path << " " << body.dump() << " -> " << r.text;
    EXPECT_HAS_SUBSTR(r.text, part);
  };
  check("/v1/completions", {{"prompt", "uno"}, {"n", 5}}, 400, "\"param\":\"n\"");
  check("/v1/completions", {{"prompt", "uno"}, {"max_tokens", 100001}}, 400, "\"param\":\"max_tokens\"");
  check("/v1/completions", {{"prompt", "uno"}, {"temperature", "hot"}}, 400, "temperature");
  check("/v1/completions", {{"prompt", "uno"}, {"echo", true}, {"logprobs", 1}}, 400, "\"param\":\"logprobs\"");
  check("/v1/completions", {{"prompt", "uno"}, {"fancy", 1}}, 400, "Unrecognized request argument supplied: fancy");
  check("/v1/completions", {{"prompt", json::array({json::array({1, 2}), json::array({99999})})}}, 400,
        "not an ordinary token");
  check("/v1/completions", {{"prompt", std::string(6000, 'x')}}, 400, "\"param\":\"prompt\"");
  check("/v1/completions", {{"model", "nobody"}, {"prompt", "uno"}}, 404, "model_not_found");
  check("/v1/completions", {{"model", "vec"}, {"prompt", "uno"}}, 400, "embedding model");
  check("/v1/embeddings", {{"input", "uno"}}, 400, "required (this server holds topics, vec)");
  check("/v1/embeddings", {{"model", "vec"}, {"input", "uno"}, {"dimensions", 3}}, 400, "\"param\":\"dimensions\"");
  check("/v1/embeddings", {{"model", "vec"}, {"input", "uno"}, {"encoding_format", "int8"}}, 400, "encoding_format");
  check("/v1/classify", {{"model", "vec"}, {"text", "uno"}}, 400, "embedding model");
  check("/v1/generate", {{"prompt", "uno"}, {"beam", 2}, {"nbest", 3}}, 400, "nbest");
  check("/v1/generate", {{"prompt", 7}}, 400, "prompt");
  // A long native prompt keeps its last tokens with a warning, as `heptapod generate` does.
  const test::Reply cut = test::post_json(c, "/v1/generate", {{"prompt", std::string(6000, 'x')}, {"max_tokens", 2}});
  EXPECT_EQ(cut.status, 200) << cut.text;
  EXPECT_HAS_SUBSTR(cut.body["generations"][0].value("warning", ""), "kept its last 1024");
  // Beam search runs whole beside the continuous batch.
  const test::Reply beam = test::post_json(c, "/v1/generate", {{"prompt", "uno"}, {"beam", 3}, {"nbest", 2}, {"max_tokens", 4}});
  EXPECT_EQ(beam.status, 200) << beam.text;
  EXPECT_EQ(beam.body["generations"][0]["outputs"].size(), 2u);
  // A deadline that passes while generating: 504.
  check("/v1/generate", {{"prompt", "uno"}, {"max_tokens", 90000}, {"temperature", 0}, {"timeout_ms", 200}}, 504,
        "timed out");
}

TEST(ModelServerOptions, ApiKeysGuardEveryModelRouteAndKindsCheckTheirNames) {
  test::TempDir dir;
  const std::string lm = test::make_language_model(dir.file("lm.htp")), mt = test::make_model(dir.file("mt.htp"));
  ServerOptions o = test::int8_server();
  o.api_keys_file = dir.write("keys.txt", "secret-key-1\n");
  test::RunningServer server({parse_model_spec("writer=" + lm)}, o);
  httplib::Client c = server.client();
  const test::Reply none = test::post_json(c, "/v1/completions", {{"prompt", "uno"}});
  EXPECT_EQ(none.status, 403);
  EXPECT_EQ(none.body["error"]["type"], "invalid_request_error");
  EXPECT_EQ(test::post_json(c, "/v1/completions", {{"prompt", "uno"}}, {{"Authorization", "Bearer secret-key-1"}}).status, 200);
  EXPECT_EQ(test::post_json(c, "/v1/generate", {{"prompt", "uno"}}, {{"Authorization", "Bearer nope-nope"}}).status, 403);
  // A translation model is named by its pair; other kinds by any name.
  EXPECT_THROW(ModelServer({parse_model_spec("writer=" + mt)}, {}), Error);
  EXPECT_NO_THROW(ModelServer({parse_model_spec("es-en=" + mt), parse_model_spec("gpt.small:v2=" + lm)}, {}));
  EXPECT_THROW(parse_model_spec("bad name=" + lm), Error);
}

}  // namespace
}  // namespace heptapod

namespace heptapod {
namespace {

// Converted LLaMA-family models (llama: rotary llama3 scaling and an untied head; qwen2: q/k/v biases, no start
// token) served beside each other: OpenAI's completions, streamed and not, several requests at once joining one
// running batch, equal the Generator alone, sample for sample.
TEST(ModelServerLlamaFamily, CompletionsOfConvertedModelsEqualTheGeneratorAlone) {
  test::TempDir dir;
  std::string log;
  std::vector<ModelSpec> specs;
  for (const std::string family : {"llama", "qwen2"}) {
    const std::string model = dir.file(family + ".htp");
    ASSERT_EQ(test::run_heptapod("convert " + test::quoted(test::fixture(family)) + " --from llama -o " +
                                     test::quoted(model),
                                 dir, log),
              0)
        << log;
    specs.push_back(parse_model_spec(family + "=" + model));
  }
  ServerOptions o = test::int8_server();  // int8 products: the same numbers in any batch
  o.limits.max_nbest = 2;
  o.max_batch_rows = 2;  // fewer than the requests' rows: requests wait for rows and join a running batch
  test::RunningServer server(specs, o);
  const std::vector<std::string> prompts = {"The dog and the fox", "Hello, world! It's", "We've got 42", "Caf\u00e9"};
  for (const ModelSpec& spec : specs) {
    Generator generator(spec.path, {ComputeType::Int8});
    std::vector<std::string> expected, got(prompts.size());
    for (std::size_t i = 0; i < prompts.size(); ++i) {
      GenerateOptions g;
      g.max_tokens = 6;
      g.sampling = {i % 2 ? 0.0f : 0.9f, 0, 1.0f, static_cast<std::uint64_t>(i + 1)};
      expected.push_back(generator.generate({prompts[i]}, g)[0].outputs[0].new_text);
    }
    std::vector<std::thread> threads;
    for (std::size_t i = 0; i < prompts.size(); ++i)
      threads.emplace_back([&, i] {
        httplib::Client c = server.client();
        json body = {{"model", spec.name}, {"prompt", prompts[i]}, {"max_tokens", 6},
                     {"temperature", i % 2 ? 0.0 : 0.9}, {"top_k", 0}, {"top_p", 1.0}, {"seed", i + 1}};
        if (i % 2) body["stream"] = true;
        const test::Reply r = test::post_json(c, "/v1/completions", body);
        if (r.status != 200) {
          got[i] = "HTTP " + std::to_string(r.status) + r.text;
          return;
        }
        if (i % 2 == 0) {
          got[i] = r.body["choices"][0]["text"];
          return;
        }
        bool done = false;
        for (const json& e : events_of(r.text, &done))
          if (!e["choices"].empty()) got[i] += e["choices"][0]["text"].get<std::string>();
      });
    for (auto& t : threads) t.join();
    EXPECT_EQ(got, expected) << spec.name;
  }
}

}  // namespace
}  // namespace heptapod
