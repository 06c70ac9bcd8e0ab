// POST /v1/chat/completions on converted LLaMA-family models with chat templates (tests/chat_models.h): a reply,
// whole or streamed as deltas, equals the Generator continuing the template's prompt with the same settings
// (int8 products: the same numbers in any batch), concurrent conversations share one running batch, n samples
// and stop strings act as on completions, usage counts the template's tokens, logprobs are the Generator's
// records in the chat shape (whole and streamed); and every bad request is a 400 in OpenAI's error shape naming
// its field.
#include <gtest/gtest.h>
#include <httplib.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "chat_models.h"
#include "heptapod/decode/generator.h"
#include "heptapod/serve/log_probs_json.h"
#include "serve/running_server.h"

namespace heptapod {
namespace {

using nlohmann::json;
using nlohmann::ordered_json;

// The server's choice texts of one streamed reply, joined per choice index, and the events' other facts.
struct StreamedChat {
  std::vector<std::string> texts;
  std::vector<json> logprobs;  // per choice: every chunk's logprobs.content joined
  std::vector<std::string> finish_reasons;
  json usage;
  bool role_first = true, done = false;
  std::string id;
};

StreamedChat read_stream(const std::string& body) {
  StreamedChat s;
  std::size_t at = 0;
  while ((at = body.find("data: ", at)) != std::string::npos) {
    const std::size_t end = body.find("\n\n", at);
    const std::string data = body.substr(at + 6, end - at - 6);
    at = end;
    if (data == "[DONE]") {
      s.done = true;
      continue;
    }
    const json chunk = json::parse(data);
    EXPECT_EQ(chunk["object"], "chat.completion.chunk");
    if (s.id.empty()) s.id = chunk["id"];
    EXPECT_EQ(chunk["id"], s.id);  // one id for every chunk
    if (chunk.contains("usage")) s.usage = chunk["usage"];
    for (const json& choice : chunk["choices"]) {
      const std::size_t i = choice["index"];
      if (s.texts.size() <= i) {
        s.texts.resize(i + 1);
        s.finish_reasons.resize(i + 1);
        s.logprobs.resize(i + 1, json::array());
        s.role_first = s.role_first && choice["delta"].value("role", "") == "assistant";
      }
      if (choice["delta"].contains("content")) s.texts[i] += choice["delta"]["content"].get<std::string>();
      if (!choice["logprobs"].is_null())
        for (const json& token : choice["logprobs"]["content"]) s.logprobs[i].push_back(token);
      if (!choice["finish_reason"].is_null()) s.finish_reasons[i] = choice["finish_reason"];
    }
  }
  return s;
}

class ChatCompletions : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new test::TempDir;
    qwen_ = test::chat_model(*dir_, "qwen3", test::kChatMl);  // no bound on its context
    const std::string short_context = test::chat_model(*dir_, "qwen2", test::kChatMl);  // 64 positions
    const std::string gpt = dir_->file("plain.htp");  // a model without a template
    std::string log;
    ASSERT_EQ(test::run_heptapod("convert " + test::quoted(qwen_) + " --no-chat-template -o " + test::quoted(gpt),
                                 *dir_, log),
              0)
        << log;
    ServerOptions o = test::int8_server();
    o.limits.max_nbest = 2;
    o.max_batch_rows = 3;  // fewer than the concurrent requests' rows: they wait and join a running batch
    server_ = new test::RunningServer(
        {parse_model_spec("chat=" + qwen_), parse_model_spec("plain=" + gpt), parse_model_spec("short=" + short_context)},
        o);
    generator_ = new Generator(qwen_, {ComputeType::Int8});
  }
  static void TearDownTestSuite() {
    delete generator_;
    delete server_;
    delete dir_;
  }

  // What the Generator alone replies to `messages` with the request's settings.
  static std::vector<std::string> expected(const json& messages, GenerateOptions o) {
    const KeptPrompt prompt = generator_->chat()->prompt(chat_messages(messages, "messages"), o.max_tokens);
    const std::vector<Generation> out = generator_->generate_kept({prompt}, o);
    std::vector<std::string> texts;
    for (const GeneratedText& g : out[0].outputs) texts.push_back(g.new_text);
    return texts;
  }

  static test::Reply post(const json& body) {
    httplib::Client c = server_->client();
    return test::post_json(c, "/v1/chat/completions", body);
  }

  static void expect_error(const json& body, const std::string& param, const std::string& words) {
    const test::Reply r = post(body);
    EXPECT_EQ(r.status, 400) << body.dump() << " -> " << r.text;
    ASSERT_TRUE(r.body.contains("error")) << r.text;
    EXPECT_EQ(r.body["error"]["type"], "invalid_request_error") << r.text;
    EXPECT_EQ(r.body["error"]["param"], param) << r.text;
    EXPECT_NE(r.body["error"]["message"].get<std::string>().find(words), std::string::npos) << r.text;
  }

  static inline test::TempDir* dir_ = nullptr;
  static inline test::RunningServer* server_ = nullptr;
  static inline Generator* generator_ = nullptr;
  static inline std::string qwen_;
};

const json kConversation = json::parse(R"([{"role": "system", "content": "Be brief."},
                                           {"role": "user", "content": "The dog and the fox"},
                                           {"role": "assistant", "content": "We've got 42"},
                                           {"role": "user", "content": "Caf\u00e9?"}])");

TEST_F(ChatCompletions, RepliesWholeAndStreamedEqualTheGeneratorAlone) {
  const std::vector<json> conversations = {kConversation, json::parse(R"([{"role": "user", "content": "Hello"}])"),
                                           json::parse(R"([{"role": "user", "content": ""}])")};
  std::vector<std::vector<std::string>> want;
  std::vector<GenerateOptions> options;
  for (std::size_t i = 0; i < 6; ++i) {
    GenerateOptions o;
    o.max_tokens = 6;
    o.nbest = i % 3 == 2 ? 2 : 1;
    o.sampling = {i % 3 == 1 ? 0.0f : 0.9f, 0, 1.0f, static_cast<std::uint64_t>(i + 3)};
    options.push_back(o);
    want.push_back(expected(conversations[i % 3], o));
  }
  std::vector<std::vector<std::string>> got(6);
  std::vector<std::thread> threads;
  for (std::size_t i = 0; i < 6; ++i)
    threads.emplace_back([&, i] {
      json body = {{"model", "chat"}, {"messages", conversations[i % 3]}, {"max_tokens", 6},
                   {"temperature", options[i].sampling.temperature}, {"top_p", 1.0}, {"top_k", 0},
                   {"seed", i + 3}, {"n", options[i].nbest}};
      if (i % 2) body["stream"] = true, body["stream_options"] = {{"include_usage", true}};
      const test::Reply r = post(body);
      if (r.status != 200) {
        got[i] = {"HTTP " + std::to_string(r.status) + " " + r.text};
        return;
      }
      if (i % 2) {
        const StreamedChat s = read_stream(r.text);
        EXPECT_TRUE(s.done && s.role_first);
        EXPECT_EQ(s.id.rfind("chatcmpl-", 0), 0u);
        EXPECT_TRUE(s.usage.contains("prompt_tokens")) << r.text;
        for (const std::string& reason : s.finish_reasons) EXPECT_TRUE(reason == "stop" || reason == "length");
        got[i] = s.texts;
        return;
      }
      EXPECT_EQ(r.body["object"], "chat.completion");
      for (const json& choice : r.body["choices"]) {
        EXPECT_EQ(choice["message"]["role"], "assistant");
        got[i].push_back(choice["message"]["content"]);
      }
    });
  for (std::thread& t : threads) t.join();
  for (std::size_t i = 0; i < 6; ++i) {  // samples: the server's in draw order, the Generator's ranked
    std::sort(got[i].begin(), got[i].end());
    std::sort(want[i].begin(), want[i].end());
    EXPECT_EQ(got[i], want[i]) << "request " << i;
  }
}

TEST_F(ChatCompletions, UsageCountsTheTemplatesTokensAndStopStringsCut) {
  GenerateOptions o;
  o.max_tokens = 8;
  o.sampling = {0.0f, 0, 1.0f, 1};
  const KeptPrompt prompt = generator_->chat()->prompt(chat_messages(kConversation, "messages"), 8);
  const std::string greedy = expected(kConversation, o)[0];
  const test::Reply r = post({{"model", "chat"}, {"messages", kConversation}, {"max_completion_tokens", 8}, {"temperature", 0}});
  ASSERT_EQ(r.status, 200) << r.text;
  EXPECT_EQ(r.body["choices"][0]["message"]["content"], greedy);
  EXPECT_EQ(r.body["usage"]["prompt_tokens"], prompt.tokens.size());
  EXPECT_EQ(r.body["model"], "chat");
  ASSERT_GE(greedy.size(), 2u);
  const std::string stop = greedy.substr(greedy.size() / 2, 1);
  const test::Reply cut = post({{"model", "chat"}, {"messages", kConversation}, {"max_tokens", 8}, {"temperature", 0}, {"stop", stop}});
  ASSERT_EQ(cut.status, 200) << cut.text;
  EXPECT_EQ(cut.body["choices"][0]["message"]["content"], greedy.substr(0, greedy.find(stop)));
  EXPECT_EQ(cut.body["choices"][0]["finish_reason"], "stop");
  // Without max_tokens a reply may fill what the context leaves (up to the server's limit).
  const test::Reply free = post({{"model", "chat"}, {"messages", kConversation}, {"temperature", 0}, {"response_format", {{"type", "text"}}}});
  ASSERT_EQ(free.status, 200) << free.text;
}

TEST_F(ChatCompletions, LogprobsWholeAndStreamedAreTheGeneratorsRecords) {
  GenerateOptions o;
  o.max_tokens = 6;
  o.sampling = {0.9f, 0, 1.0f, 11};
  o.logprobs = 3;
  const KeptPrompt prompt = generator_->chat()->prompt(chat_messages(kConversation, "messages"), 6);
  const GeneratedText g = generator_->generate_kept({prompt}, o)[0].outputs[0];
  const json want = chat_logprobs(g.token_log_probs, generator_->vocabulary());
  ASSERT_FALSE(want["content"].empty());
  const json body = {{"model", "chat"}, {"messages", kConversation}, {"max_tokens", 6},   {"temperature", 0.9}, {"top_k", 0},
                     {"top_p", 1.0},              {"seed", 11},        {"logprobs", true},   {"top_logprobs", 3}};
  const test::Reply whole = post(body);
  ASSERT_EQ(whole.status, 200) << whole.text;
  EXPECT_EQ(whole.body["choices"][0]["message"]["content"], g.new_text);
  EXPECT_EQ(whole.body["choices"][0]["logprobs"], want);
  json streamed_body = body;
  streamed_body["stream"] = true;
  const test::Reply streamed = post(streamed_body);
  ASSERT_EQ(streamed.status, 200) << streamed.text;
  const StreamedChat s = read_stream(streamed.text);
  ASSERT_EQ(s.texts.size(), 1u);
  EXPECT_EQ(s.texts[0], g.new_text);
  EXPECT_EQ(s.logprobs[0], want["content"]);  // the chunks' tokens add up to the reply's
  for (const json& token : want["content"]) {
    EXPECT_LE(token["logprob"].get<double>(), 0.0);
    EXPECT_EQ(token["top_logprobs"].size(), 3u);
  }
  // Without logprobs the field is null.
  const test::Reply plain = post({{"model", "chat"}, {"messages", kConversation}, {"max_tokens", 2}});
  ASSERT_EQ(plain.status, 200) << plain.text;
  EXPECT_TRUE(plain.body["choices"][0]["logprobs"].is_null());
}

TEST_F(ChatCompletions, BadRequestsNameTheirField) {
  const json user = json::array({{{"role", "user"}, {"content", "hi"}}});
  expect_error({{"model", "chat"}}, "messages", "required");
  expect_error({{"model", "chat"}, {"messages", json::array({{{"content", "x"}}})}}, "messages", "messages[0].role");
  expect_error({{"model", "chat"}, {"messages", json::array({{{"role", "user"}}})}}, "messages", "messages[0].content");
  expect_error({{"model", "chat"}, {"messages", json::array({{{"role", "wizard"}, {"content", "x"}}})}}, "messages",
               "\"wizard\" is not a role");
  expect_error({{"model", "short"}, {"messages", json::array({{{"role", "user"}, {"content", std::string(200, 'a')}}})},
                {"max_tokens", 4}},
               "messages", "context of 64");
  expect_error({{"model", "chat"}, {"messages", json::array({{{"role", "user"}, {"content", std::string(20000, 'a')}}})},
                {"max_tokens", 4}},
               "messages", "this server takes at most");
  expect_error({{"model", "plain"}, {"messages", user}}, "messages", "no chat template");
  expect_error({{"model", "chat"}, {"messages", user}, {"tools", json::array()}}, "tools", "tools");
  expect_error({{"model", "chat"}, {"messages", user}, {"response_format", {{"type", "json_object"}}}},
               "response_format", "text");
  expect_error({{"model", "chat"}, {"messages", user}, {"max_tokens", 4}, {"max_completion_tokens", 4}},
               "max_completion_tokens", "not both");
  expect_error({{"model", "chat"}, {"messages", user}, {"chat_template_kwargs", {{"messages", 1}}}},
               "chat_template_kwargs", "messages");
  expect_error({{"model", "chat"}, {"messages", user}, {"n", 3}}, "n", "");
  expect_error({{"model", "chat"}, {"messages", user}, {"logprobs", true}, {"top_logprobs", 21}}, "top_logprobs", "");
  expect_error({{"model", "chat"}, {"messages", user}, {"top_logprobs", 2}}, "top_logprobs", "logprobs: true");
  expect_error({{"model", "chat"}, {"messages", user}, {"logprobs", 3}}, "logprobs", "");
}

}  // namespace
}  // namespace heptapod
