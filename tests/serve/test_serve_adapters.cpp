// `heptapod serve` with LoRA adapters (--adapter NAME=FILE): one language model and two adapters over it, each
// served under its own name and sharing the base's weights. Each name's greedy output and its score equal
// `heptapod generate --scores` with that adapter (the base's name: without one), also with clients of every
// name at once (a batch never mixes adapters); /v1/models lists them with their parent; an unknown name is a
// 404; bad adapters are refused before the server listens. The base's file served again under another name is
// a model of its own. A translation model's adapter is named by its base's pair and a variant (es-en:software):
// the native API's model field picks it, the pair alone the base, and each translates as `heptapod translate`
// does with that adapter (or none).
#include <gtest/gtest.h>

#include <map>
#include <sstream>
#include <thread>

#include "running_server.h"
#include "test_process.h"
#include "vocab_model.h"

namespace heptapod {
namespace {

using nlohmann::json;

class ServeAdapters : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new test::TempDir();
    lm_ = new std::string(test::make_language_model(dir_->file("lm.htp")));
    legal_ = new std::string(test::make_adapter(*lm_, dir_->file("legal.htp"), {"v", "ffn"}, 2));
    poet_ = new std::string(test::make_adapter(*lm_, dir_->file("poet.htp"), {"q", "k", "v", "o", "ffn"}, 3));
    // `copy` serves the base's file again: a model of its own beside the base the adapters share.
    server_ = new test::RunningServer({parse_model_spec("writer=" + *lm_), parse_model_spec("copy=" + *lm_),
                                       parse_adapter_spec("legal=" + *legal_), parse_adapter_spec("poet=" + *poet_)},
                                      test::int8_server());
  }
  static void TearDownTestSuite() {
    delete server_;
    delete poet_;
    delete legal_;
    delete lm_;
    delete dir_;
  }
  // What `heptapod generate --scores` prints for `prompt`, greedy, with `adapter` over the base (none: empty).
  static std::string command_output(const std::string& prompt, const std::string& adapter) {
    std::string log;
    const int rc = test::run_heptapod("generate -m " + test::quoted(*lm_) +
                                          (adapter.empty() ? "" : " --adapter " + test::quoted(adapter)) +
                                          " --compute-type int8 --beam 1 --max-tokens 12 --scores --prompt " + test::quoted(prompt),
                                      *dir_, log);
    EXPECT_EQ(rc, 0) << log;
    return log;
  }
  // The server's greedy /v1/generate output for `prompt` from model `name` as the command prints it: text |||
  // score.
  static std::string served_output(httplib::Client& c, const std::string& prompt, const std::string& name) {
    const test::Reply r =
        test::post_json(c, "/v1/generate", {{"model", name}, {"prompt", prompt}, {"beam", 1}, {"max_tokens", 12}});
    if (r.status != 200) return "HTTP " + std::to_string(r.status) + " " + r.text;
    EXPECT_EQ(r.body["model"], name);
    const json& output = r.body["generations"][0]["outputs"][0];
    std::ostringstream line;
    line << output["text"].get<std::string>() << " ||| " << output["score"].get<float>() << "\n";
    return line.str();
  }
  static inline test::TempDir* dir_ = nullptr;
  static inline std::string *lm_ = nullptr, *legal_ = nullptr, *poet_ = nullptr;
  static inline test::RunningServer* server_ = nullptr;
};

TEST_F(ServeAdapters, EachNameGeneratesWhatTheCommandGivesWithItsAdapter) {
  const std::vector<std::string> prompts = {test::numbers()[3], test::numbers()[8]};
  httplib::Client c = server_->client();
  for (const std::string& prompt : prompts) {
    const std::map<std::string, std::string> expected = {
        {"writer", command_output(prompt, "")}, {"copy", command_output(prompt, "")},
        {"legal", command_output(prompt, *legal_)}, {"poet", command_output(prompt, *poet_)}};
    // The three differ (their scores at least), so that a request answered by another model's weights fails.
    EXPECT_NE(expected.at("writer"), expected.at("legal"));
    EXPECT_NE(expected.at("writer"), expected.at("poet"));
    EXPECT_NE(expected.at("legal"), expected.at("poet"));
    for (const auto& [name, text] : expected) {
      EXPECT_EQ(served_output(c, prompt, name), text) << name;
      // OpenAI's completions: the new text alone, greedy at temperature 0.
      const test::Reply r = test::post_json(
          c, "/v1/completions", {{"model", name}, {"prompt", prompt}, {"temperature", 0}, {"max_tokens", 12}});
      ASSERT_EQ(r.status, 200) << r.text;
      EXPECT_EQ(r.body["model"], name);
      const std::string completion = r.body["choices"][0]["text"].get<std::string>();
      const std::string command_text = text.substr(0, text.rfind(" ||| "));
      EXPECT_EQ(command_text.substr(command_text.size() - std::min(command_text.size(), completion.size())), completion)
          << name;
    }
  }
}

TEST_F(ServeAdapters, ClientsOfEveryNameAtOnceGetTheirOwnModelsOutput) {
  const std::vector<std::string> names = {"writer", "copy", "legal", "poet"};
  const std::vector<std::string> prompts = {test::numbers()[1], test::numbers()[5], test::numbers()[9]};
  std::map<std::pair<std::string, std::string>, std::string> expected;  // by (name, prompt)
  httplib::Client c = server_->client();
  for (const std::string& name : names)
    for (const std::string& prompt : prompts) expected[{name, prompt}] = served_output(c, prompt, name);
  constexpr int kRounds = 4;
  std::vector<std::thread> clients;
  std::vector<std::string> failures(names.size() * prompts.size());
  for (std::size_t n = 0; n < names.size(); ++n)
    for (std::size_t p = 0; p < prompts.size(); ++p)
      clients.emplace_back([&, n, p] {
        httplib::Client own = server_->client();
        for (int k = 0; k < kRounds; ++k) {
          const std::string got = served_output(own, prompts[p], names[n]);
          if (got != expected.at({names[n], prompts[p]}))
            failures[n * prompts.size() + p] = names[n] + ": " + got + " vs " + expected.at({names[n], prompts[p]});
        }
      });
  for (auto& t : clients) t.join();
  for (const std::string& f : failures) EXPECT_EQ(f, "");
  EXPECT_NE(test::get(c, "/metrics").text.find("heptapod_output_tokens_total{model=\"legal\",kind=\"generation\"}"),
            std::string::npos);
}

TEST_F(ServeAdapters, ModelsListsTheAdaptersAndUnknownNamesAre404) {
  httplib::Client c = server_->client();
  const test::Reply models = test::get(c, "/v1/models");
  ASSERT_EQ(models.status, 200) << models.text;
  std::map<std::string, json> by_id;
  for (const json& m : models.body["data"]) by_id[m["id"].get<std::string>()] = m;
  ASSERT_EQ(by_id.size(), 4u) << models.text;
  EXPECT_EQ(by_id["legal"]["parent"], "writer");
  EXPECT_EQ(by_id["poet"]["parent"], "writer");
  EXPECT_EQ(by_id["poet"]["kind"], "generation");
  EXPECT_FALSE(by_id["writer"].contains("parent"));
  const test::Reply unknown =
      test::post_json(c, "/v1/completions", {{"model", "lawyer"}, {"prompt", "uno"}, {"max_tokens", 2}});
  EXPECT_EQ(unknown.status, 404) << unknown.text;
  EXPECT_EQ(unknown.body["error"]["code"], "model_not_found") << unknown.text;
  // With several models, a request names one.
  EXPECT_EQ(test::post_json(c, "/v1/completions", {{"prompt", "uno"}, {"max_tokens", 2}}).status, 400);
}

TEST(ServeTranslationAdapters, EachVariantTranslatesAsTheCommandWithItsAdapter) {
  test::TempDir dir;
  const std::string mt = test::make_model(dir.file("mt.htp"));
  const std::string software = test::make_adapter(mt, dir.file("software.htp"), {"q", "v", "xq", "xv", "ffn"}, 2);
  const test::CliReference base = test::cli_reference(dir, mt), adapted = test::cli_reference(dir, mt, software);
  ASSERT_NE(base.translations, adapted.translations);  // so that an answer by the other model's weights fails
  test::RunningServer server({parse_model_spec("es-en=" + mt), parse_adapter_spec("es-en:software=" + software)},
                             test::int8_server());
  httplib::Client c = server.client();
  for (std::size_t i = 0; i < base.sources.size(); i += 7) {
    for (const auto& [name, expected] : {std::pair{"es-en", &base}, std::pair{"es-en:software", &adapted}}) {
      const test::Reply r = test::post_json(c, "/v1/translate", {{"model", name}, {"text", base.sources[i]}});
      ASSERT_EQ(r.status, 200) << r.text;
      EXPECT_EQ(r.body["model"], name);
      EXPECT_EQ(r.body["translations"][0]["hypotheses"][0]["text"], expected->translations[i]) << name;
    }
    // LibreTranslate's pair alone: the model without a variant.
    const test::Reply r = test::post_json(c, "/translate", {{"q", base.sources[i]}, {"source", "es"}, {"target", "en"}});
    ASSERT_EQ(r.status, 200) << r.text;
    EXPECT_EQ(r.body["translatedText"], base.translations[i]);
  }
  const test::Reply unknown = test::post_json(c, "/v1/translate", {{"model", "es-en:legal"}, {"text", "uno"}});
  EXPECT_EQ(unknown.status, 404) << unknown.text;
  const test::Reply models = test::get(c, "/v1/models");
  EXPECT_HAS_SUBSTR(models.text, "\"parent\":\"es-en\"");
}

TEST(ServeTranslationAdapters, NamesThatAreNotTheBasesPairAreRefused) {
  test::TempDir dir;
  const std::string mt = test::make_model(dir.file("mt.htp"));
  const std::string adapter = test::make_adapter(mt, dir.file("a.htp"));
  auto refused = [&](const std::string& base_name, const std::string& adapter_name, const std::string& words) {
    try {
      ModelServer server({parse_model_spec(base_name + "=" + mt), parse_adapter_spec(adapter_name + "=" + adapter)},
                         test::int8_server());
      ADD_FAILURE() << "accepted " << adapter_name << "; expected: " << words;
    } catch (const Error& e) {
      EXPECT_HAS_SUBSTR(std::string(e.what()), words);
    }
  };
  refused("es-en", "software", "named by its language pair");
  refused("es-en", "es-en:", "named by its language pair");
  refused("es-en", "fr-en:software", "name the adapter es-en:VARIANT");
  refused("es-en", "es-en", "given twice");
  // Two models of one pair without a plain one: a request by the pair alone must name one.
  test::RunningServer server({parse_model_spec("es-en:bible=" + mt), parse_adapter_spec("es-en:software=" + adapter)},
                             test::int8_server());
  httplib::Client c = server.client();
  const test::Reply r = test::post_json(c, "/translate", {{"q", "uno"}, {"source", "es"}, {"target", "en"}});
  EXPECT_EQ(r.status, 400) << r.text;
  EXPECT_HAS_SUBSTR(r.text, "es-en:bible, es-en:software");
}

TEST(ServeAdapterSpecs, BadAdaptersAreRefusedBeforeListening) {
  test::TempDir dir;
  const std::string lm = test::make_language_model(dir.file("lm.htp"));
  const std::string other = test::make_language_model(dir.file("other.htp"), 16);  // other weights
  const std::string adapter = test::make_adapter(other, dir.file("a.htp"));
  auto refused = [&](std::vector<ModelSpec> specs, const std::string& words) {
    try {
      ModelServer server(std::move(specs), test::int8_server());
      ADD_FAILURE() << "accepted; expected: " << words;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
    }
  };
  refused({parse_model_spec("writer=" + lm), parse_adapter_spec("a=" + adapter)}, "none of the models served");
  refused({parse_model_spec("writer=" + other), parse_adapter_spec("writer=" + adapter)}, "given twice");
  refused({parse_adapter_spec("a=" + adapter)}, "needs its base model");
  refused({parse_model_spec("writer=" + other), parse_adapter_spec("a=" + dir.file("missing.htp"))}, "not a file");
  refused({parse_model_spec("writer=" + other), parse_adapter_spec("a=" + lm)}, "not a Heptapod adapter file");
  EXPECT_THROW(parse_adapter_spec(adapter), Error);  // no name
  EXPECT_THROW(parse_adapter_spec("a="), Error);     // no file
}

}  // namespace
}  // namespace heptapod
