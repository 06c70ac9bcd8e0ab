// Conversations as a model reads them: messages checked (chat_messages), chat templates read from checkpoints
// and template files and kept in model files (stored_chat_template.h, `heptapod convert`), and ChatPrompt's
// prompt (the template's text tokenized, the start token not doubled, the context checked), on the Qwen 2 and 3
// and LLaMA fixtures converted with ChatML-style and LLaMA 3-style templates written here by hand. The templates'
// full Jinja is test_jinja.cpp's and tests/chat_templates/'s; the CLI's and server's chat are tested in
// test_chat_cli.cpp and tests/serve.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "heptapod/core/error.h"
#include "heptapod/data/stored_chat_template.h"
#include "heptapod/decode/chat_prompt.h"
#include "heptapod/decode/generator.h"
#include "heptapod/io/model_file.h"
#include "chat_models.h"
#include "test_process.h"
#include "test_util.h"

namespace heptapod {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using nlohmann::ordered_json;

ordered_json conversation() {
  return chat_messages(json::parse(R"([{"role": "system", "content": "Be brief."},
                                       {"role": "user", "content": "Hi!"},
                                       {"role": "assistant", "content": "Hi."},
                                       {"role": "user", "content": [{"type": "text", "text": "Caf\u00e9 "},
                                                                    {"type": "text", "text": "time?"}]}])"),
                       "messages");
}

void expect_refused(const std::string& messages_json, const std::string& named) {
  try {
    chat_messages(json::parse(messages_json), "messages");
    ADD_FAILURE() << messages_json << " was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(named), std::string::npos) << e.what();
  }
}

TEST(ChatMessages, CheckedAndPutAsTemplatesReadThem) {
  const ordered_json m = conversation();
  ASSERT_EQ(m.size(), 4u);
  EXPECT_EQ(m[3]["content"], "Caf\u00e9 time?");  // text parts joined
  EXPECT_EQ(m[0].dump(), R"({"role":"system","content":"Be brief."})");  // role first, as templates print them
  EXPECT_EQ(chat_messages(json::parse(R"([{"role": "developer", "content": "x"}])"), "m")[0]["role"], "system");
  EXPECT_EQ(chat_messages(json::parse(R"([{"role": "user", "content": ""}])"), "m")[0]["content"], "");
}

TEST(ChatMessages, BadMessagesAreRefusedByField) {
  expect_refused(R"([])", "messages: must be a non-empty array");
  expect_refused(R"({"role": "user"})", "messages: must be a non-empty array");
  expect_refused(R"([{"content": "x"}])", "messages[0].role: required");
  expect_refused(R"([{"role": "user", "content": "a"}, {"role": "robot", "content": "x"}])",
                 "messages[1].role: \"robot\" is not a role");
  expect_refused(R"([{"role": "user"}])", "messages[0].content: required");
  expect_refused(R"([{"role": "user", "content": null}])", "messages[0].content: required");
  expect_refused(R"([{"role": "user", "content": 3}])", "messages[0].content: must be a string");
  expect_refused(R"([{"role": "user", "content": [{"type": "image_url"}]}])", "messages[0].content[0].type");
  expect_refused(R"([{"role": 1, "content": "x"}])", "messages[0].role: must be a string");
  expect_refused(R"([{"role": "assistant", "content": "x", "tool_calls": []}])", "messages[0].tool_calls");
  expect_refused(R"(["hi"])", "messages[0]: must be an object");
}

TEST(StoredChatTemplate, ReadFromCheckpointsAndKeptInModelFiles) {
  test::TempDir dir;
  // tokenizer_config.json: the template, and special tokens as strings or AddedToken objects.
  dir.write("tokenizer_config.json",
            R"({"chat_template": "{{ bos_token }}x", "bos_token": {"content": "<s>", "lstrip": false},
                "eos_token": "</s>", "pad_token": null})");
  std::optional<StoredChatTemplate> chat = read_checkpoint_chat_template(dir.path().string());
  ASSERT_TRUE(chat);
  EXPECT_EQ(chat->source, "{{ bos_token }}x");
  EXPECT_EQ(chat->tokens, (std::map<std::string, std::string>{{"bos_token", "<s>"}, {"eos_token", "</s>"}}));
  const StoredChatTemplate back = chat_template_from_json(to_json(*chat), "metadata");
  EXPECT_EQ(back.source, chat->source);
  EXPECT_EQ(back.tokens, chat->tokens);
  // chat_template.jinja, where a checkpoint ships one, is the template.
  dir.write("chat_template.jinja", "{{ eos_token }}y");
  EXPECT_EQ(read_checkpoint_chat_template(dir.path().string())->source, "{{ eos_token }}y");
  // Named templates: "default" is taken; without one, an error naming the names.
  test::TempDir named;
  named.write("tokenizer_config.json", R"({"chat_template": [{"name": "tool_use", "template": "t"},
                                                              {"name": "default", "template": "d"}]})");
  EXPECT_EQ(read_checkpoint_chat_template(named.path().string())->source, "d");
  named.write("tokenizer_config.json", R"({"chat_template": [{"name": "tool_use", "template": "t"}]})");
  EXPECT_THROW(
      {
        try {
          read_checkpoint_chat_template(named.path().string());
        } catch (const Error& e) {
          EXPECT_NE(std::string(e.what()).find("no template named \"default\" (it has: tool_use)"), std::string::npos)
              << e.what();
          throw;
        }
      },
      Error);
  test::TempDir none;
  none.write("tokenizer_config.json", R"({"eos_token": "</s>"})");
  EXPECT_FALSE(read_checkpoint_chat_template(none.path().string()));
  EXPECT_THROW(chat_template_from_json(R"({"template": "x", "extra": 1})", "metadata"), Error);
  EXPECT_THROW(chat_template_from_json(R"({"template": 3})", "metadata"), Error);
  EXPECT_THROW(chat_template_from_json(R"({"template": "x", "tokens": {"bos_token": 1}})", "metadata"), Error);
}

TEST(ChatPrompt, ChatMlConversationIsTheTemplatesTextTokenized) {
  test::TempDir dir;
  Generator generator(test::chat_model(dir, "qwen3", test::kChatMl));  // Qwen 3's fixture: no bound on its context
  ASSERT_NE(generator.chat(), nullptr);
  const ChatPrompt& chat = *generator.chat();
  const ordered_json messages = conversation();
  const std::string expected =
      "<|im_start|>system\nBe brief.<|im_end|>\n<|im_start|>user\nHi!<|im_end|>\n"
      "<|im_start|>assistant\nHi.<|im_end|>\n<|im_start|>user\nCaf\u00e9 time?<|im_end|>\n<|im_start|>assistant\n";
  EXPECT_EQ(chat.render(messages, true), expected);
  EXPECT_EQ(chat.render(messages, false), expected.substr(0, expected.size() - std::string("<|im_start|>assistant\n").size()));
  const KeptPrompt prompt = chat.prompt(messages, 4);
  const Vocabulary& vocab = generator.vocabulary();
  EXPECT_EQ(prompt.tokens, vocab.encode(expected));  // Qwen's sequences begin with their text: nothing dropped
  const int im_start = vocab.id_of("<|im_start|>"), im_end = vocab.id_of("<|im_end|>");
  ASSERT_GE(im_start, 0);
  EXPECT_EQ(prompt.tokens.front(), im_start);  // the special tokens the template writes are read as tokens
  EXPECT_EQ(std::count(prompt.tokens.begin(), prompt.tokens.end(), im_start), 5);
  EXPECT_EQ(std::count(prompt.tokens.begin(), prompt.tokens.end(), im_end), 4);  // an end token inside a prompt
  // A reply continues the prompt as any prompt's tokens are continued.
  GenerateOptions o;
  o.max_tokens = 5;
  o.sampling = {0.0f, 0, 1.0f, 1};
  const Generation reply = generator.generate_kept({prompt}, o)[0];
  KeptPrompt same{prompt.tokens, vocab.decode(prompt.tokens), ""};
  EXPECT_EQ(reply.outputs[0].tokens, generator.generate_kept({same}, o)[0].outputs[0].tokens);
}

TEST(ChatPrompt, TheStartTokenTheTemplateWritesIsNotDoubled) {
  test::TempDir dir;
  Generator generator(test::chat_model(dir, "llama", test::kLlama3));
  ASSERT_TRUE(generator.config().prompt_bos);  // LLaMA 3.1's sequences begin with <|begin_of_text|>
  const ChatPrompt& chat = *generator.chat();
  const ordered_json messages = chat_messages(json::parse(R"([{"role": "user", "content": " Hi "}])"), "m");
  const std::string text = chat.render(messages, true);
  EXPECT_EQ(text, "<|begin_of_text|><|start_header_id|>user<|end_header_id|>\n\nHi<|eot_id|>"
                  "<|start_header_id|>assistant<|end_header_id|>\n\n");
  const std::vector<int> all = generator.vocabulary().encode(text);
  ASSERT_EQ(all.front(), generator.config().bos_id);
  const KeptPrompt prompt = chat.prompt(messages, 4);
  EXPECT_EQ(prompt.tokens, std::vector<int>(all.begin() + 1, all.end()));  // generation feeds the start token
}

TEST(ChatPrompt, AConversationPastTheContextIsRefusedWithBothLengths) {
  test::TempDir dir;
  Generator generator(test::chat_model(dir, "qwen2", test::kChatMl));
  const int context = generator.config().position_limit();
  const ordered_json messages = chat_messages(json{{{"role", "user"}, {"content", std::string(4 * context, 'a')}}}, "m");
  try {
    generator.chat()->prompt(messages, 4);
    ADD_FAILURE() << "a conversation past the context was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("more than this model's context of " + std::to_string(context)),
              std::string::npos)
        << e.what();
  }
}

TEST(ChatTemplateConvert, SetReplacedDroppedAndRefused) {
  test::TempDir dir;
  const std::string model = test::chat_model(dir, "qwen2", test::kChatMl);
  std::optional<StoredChatTemplate> stored = read_chat_template(SafetensorsFile::read(model));
  ASSERT_TRUE(stored);
  EXPECT_EQ(stored->source, test::kChatMl);
  EXPECT_EQ(stored->tokens.at("eos_token"), "<|im_end|>");
  std::string log;
  // A Jinja file replaces the template and keeps the special tokens; the tensors stay as they were.
  const std::string jinja = dir.write("other.jinja", "{% for m in messages %}{{ m.content }}{{ eos_token }}{% endfor %}");
  ASSERT_EQ(test::run_heptapod("convert " + test::quoted(model) + " --chat-template " + test::quoted(jinja) + " -o " +
                                   test::quoted(dir.file("other.htp")),
                               dir, log),
            0)
      << log;
  const SafetensorsFile a = SafetensorsFile::read(model), b = SafetensorsFile::read(dir.file("other.htp"));
  stored = read_chat_template(b);
  ASSERT_TRUE(stored);
  EXPECT_EQ(stored->source, test::slurp(jinja));
  EXPECT_EQ(stored->tokens.at("eos_token"), "<|im_end|>");
  ASSERT_EQ(a.tensors().size(), b.tensors().size());
  for (std::size_t i = 0; i < a.tensors().size(); ++i) {
    const TensorEntry& t = a.tensors()[i];
    ASSERT_EQ(t.name, b.tensors()[i].name);
    EXPECT_EQ(std::memcmp(a.data(t), b.data(b.tensors()[i]), t.end - t.begin), 0) << t.name;
  }
  Generator other(dir.file("other.htp"));
  EXPECT_EQ(other.chat()->render(chat_messages(json::parse(R"([{"role":"user","content":"x"}])"), "m"), true),
            "x<|im_end|>");
  // --no-chat-template drops it.
  ASSERT_EQ(test::run_heptapod("convert " + test::quoted(model) + " --no-chat-template -o " +
                                   test::quoted(dir.file("plain.htp")),
                               dir, log),
            0)
      << log;
  EXPECT_FALSE(read_chat_template(SafetensorsFile::read(dir.file("plain.htp"))));
  EXPECT_EQ(Generator(dir.file("plain.htp")).chat(), nullptr);
  // A template the engine cannot render is refused at conversion, by line and construct, and nothing is written.
  const std::string bad = dir.write("bad.jinja", "line one\n{{ messages | wordwrap }}");
  EXPECT_NE(test::run_heptapod("convert " + test::quoted(model) + " --chat-template " + test::quoted(bad) + " -o " +
                                   test::quoted(dir.file("bad.htp")),
                               dir, log),
            0);
  EXPECT_NE(log.find("line 2"), std::string::npos) << log;
  EXPECT_NE(log.find("wordwrap"), std::string::npos) << log;
  EXPECT_FALSE(fs::exists(dir.file("bad.htp")));
  // A file whose template the engine cannot render (written by other means) is refused when it loads.
  const SafetensorsFile file = SafetensorsFile::read(model);
  std::map<std::string, std::string> metadata = file.metadata();
  metadata[kChatTemplateMetadata] = to_json(StoredChatTemplate{"ok\n{% for m in messages %}{{ m | wordwrap }}", {}});
  rewrite_model_metadata(file, metadata, dir.file("unrenderable.htp"));
  try {
    Generator unrenderable(dir.file("unrenderable.htp"));
    ADD_FAILURE() << "a template the engine cannot render was loaded";
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("unrenderable.htp: chat template"), std::string::npos) << what;
    EXPECT_NE(what.find("line 2"), std::string::npos) << what;
    EXPECT_NE(what.find("wordwrap"), std::string::npos) << what;
  }
  // A model file without a template option is not rewritten for nothing.
  EXPECT_NE(test::run_heptapod("convert " + test::quoted(model) + " -o " + test::quoted(dir.file("same.htp")), dir, log),
            0);
  EXPECT_NE(log.find("--chat-template"), std::string::npos) << log;
}

}  // namespace
}  // namespace heptapod
