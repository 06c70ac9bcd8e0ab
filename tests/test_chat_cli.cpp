// `heptapod chat` as scripts use it: --messages FILE (a reply, one line), --render (the template's prompt,
// exactly) and pipe mode (a reply line per input line), on the tests' random language model given the
// ChatML-like template of tests/chat/chatml_like.jinja by `heptapod convert --chat-template`. Bad conversations
// (not JSON, a message without role or content, an unknown role, one past the context) and a model without a
// template end with a non-zero exit and a message naming the field or the option. Replies are greedy
// (--temperature 0), so a pipe's replies must equal --messages' for the same conversation so far.
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "test_process.h"
#include "vocab_model.h"

namespace heptapod {
namespace {

using test::quoted;
using test::TempDir;

const std::string kTemplate = std::string(HEPTAPOD_FIXTURES) + "/../chat/chatml_like.jinja";
const std::string kGreedy = " --temperature 0 --max-tokens 6 --compute-type int8";

struct Outcome {
  int status = -1;  // the exit status; -1 when the process did not exit (a signal)
  std::string out, err;
};

// heptapod `args`, stdin from `stdin_text`; its stdout and stderr apart (stdout must be exact).
Outcome heptapod(const std::string& args, const TempDir& dir, const std::string& stdin_text = "") {
  const std::string in = dir.write("stdin.txt", stdin_text), out = dir.file("stdout.txt"), err = dir.file("stderr.txt");
  const std::string command = "timeout 60 " + quoted(HEPTAPOD_BINARY) + " " + args + " < " + quoted(in) + " > " +
                              quoted(out) + " 2> " + quoted(err);
  const int status = std::system(command.c_str());
  Outcome run;
  if (status != -1 && WIFEXITED(status)) run.status = WEXITSTATUS(status);
  run.out = test::slurp(out);
  run.err = test::slurp(err);
  return run;
}

// The test language model (64 positions), and the same model with the ChatML-like template.
class ChatCli : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new TempDir;
    test::make_language_model(dir_->file("lm.htp"), 64);
    const Outcome convert = heptapod("convert " + quoted(dir_->file("lm.htp")) + " --chat-template " +
                                         quoted(kTemplate) + " -o " + quoted(dir_->file("chat.htp")),
                                     *dir_);
    ASSERT_EQ(convert.status, 0) << convert.out << convert.err;
  }
  static void TearDownTestSuite() {
    delete dir_;
    dir_ = nullptr;
  }
  static std::string lm() { return dir_->file("lm.htp"); }
  static std::string chat_model() { return dir_->file("chat.htp"); }

  // `heptapod chat -m chat.htp --messages FILE` over `messages_json` (written to a file) with `options`.
  Outcome chat_on(const std::string& messages_json, const std::string& options = kGreedy) {
    const std::string file = dir_->write("messages.json", messages_json);
    return heptapod("chat -m " + quoted(chat_model()) + " --messages " + quoted(file) + options, *dir_);
  }

  static TempDir* dir_;
};

TempDir* ChatCli::dir_ = nullptr;

// A JSON string literal of `text` (the replies are letters, hyphens and spaces; quotes and backslashes escaped
// all the same).
std::string json_string(const std::string& text) { return nlohmann::json(text).dump(); }

TEST_F(ChatCli, RenderPrintsExactlyTheTemplatesText) {
  const Outcome run = chat_on(R"([{"role": "system", "content": "count"},
                                    {"role": "user", "content": "one two"},
                                    {"role": "assistant", "content": "three"},
                                    {"role": "user", "content": "four"}])",
                              " --render");
  ASSERT_EQ(run.status, 0) << run.err;
  // Written out by hand from the template: every message as its role's mark, its content and a space, then the
  // generation prompt, and nothing else (no newline).
  EXPECT_EQ(run.out, "s-count u-one two a-three u-four a-");
  // --system comes first; "developer" is read as "system"; content parts are joined.
  const std::string file = dir_->write("parts.json", R"({"messages": [{"role": "developer", "content": "be brief"},
      {"role": "user", "content": [{"type": "text", "text": "five "}, {"type": "text", "text": "six"}]}]})");
  const Outcome system = heptapod(
      "chat -m " + quoted(chat_model()) + " --messages " + quoted(file) + " --render --system " + quoted("count"),
      *dir_);
  ASSERT_EQ(system.status, 0) << system.err;
  EXPECT_EQ(system.out, "s-count s-be brief u-five six a-");
}

TEST_F(ChatCli, RenderNeedsMessages) {
  const Outcome run = heptapod("chat -m " + quoted(chat_model()) + " --render", *dir_, "one\n");
  EXPECT_NE(run.status, 0);
  EXPECT_NE(run.status, -1);
  EXPECT_HAS_SUBSTR(run.err, "--messages");
  EXPECT_EQ(run.out, "");
}

TEST_F(ChatCli, BadMessagesFilesFailNamingTheField) {
  struct Case {
    std::string what, json, names;
  };
  const std::vector<Case> cases = {
      {"not JSON", R"([{"role": "user", "content": "one")", "not JSON"},
      {"not an array", R"({"role": "user", "content": "one"})", "messages"},
      {"an empty array", "[]", "non-empty array"},
      {"a message without role", R"([{"content": "one"}])", "[0].role"},
      {"a role that is not a string", R"([{"role": 1, "content": "one"}])", "[0].role"},
      {"an unknown role", R"([{"role": "user", "content": "one"}, {"role": "robot", "content": "two"}])",
       "[1].role: \"robot\""},
      {"a message without content", R"([{"role": "user"}])", "[0].content"},
      {"null content", R"([{"role": "user", "content": null}])", "[0].content"},
      {"an unknown field", R"([{"role": "user", "content": "one", "tool_calls": []}])", "[0].tool_calls"},
      {"an image part", R"([{"role": "user", "content": [{"type": "image_url", "image_url": {}}]}])",
       "[0].content[0].type"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.what);
    const Outcome run = chat_on(c.json);
    EXPECT_NE(run.status, 0);
    EXPECT_NE(run.status, -1) << "ended by a signal";
    EXPECT_HAS_SUBSTR(run.err, c.names);
    EXPECT_HAS_SUBSTR(run.err, "messages.json");
    EXPECT_EQ(run.out, "");
  }
  const Outcome missing =
      heptapod("chat -m " + quoted(chat_model()) + " --messages " + quoted(dir_->file("none.json")), *dir_);
  EXPECT_NE(missing.status, 0);
  EXPECT_HAS_SUBSTR(missing.err, "none.json");
}

TEST_F(ChatCli, AConversationPastTheContextFailsSayingSo) {
  std::string words;
  for (int i = 0; i < 40; ++i) words += "seventy-seven thousand ";
  const Outcome run = chat_on("[{\"role\": \"user\", \"content\": " + json_string(words) + "}]");
  EXPECT_NE(run.status, 0);
  EXPECT_NE(run.status, -1);
  EXPECT_HAS_SUBSTR(run.err, "context of 64 tokens");
  EXPECT_EQ(run.out, "");
}

TEST_F(ChatCli, AModelWithoutATemplateFailsNamingChatTemplate) {
  const std::string file = dir_->write("one.json", R"([{"role": "user", "content": "one"}])");
  for (const std::string& how : {" --messages " + quoted(file), std::string()}) {
    const Outcome run = heptapod("chat -m " + quoted(lm()) + how + kGreedy, *dir_, "one\n");
    EXPECT_NE(run.status, 0);
    EXPECT_NE(run.status, -1);
    EXPECT_HAS_SUBSTR(run.err, "--chat-template");
    EXPECT_HAS_SUBSTR(run.err, lm());
    EXPECT_EQ(run.out, "");
  }
}

// Pipe mode: one reply line per turn, each the reply --messages gives for the conversation so far; /reset
// starts again, so the reply after it is that of a fresh one-turn conversation.
TEST_F(ChatCli, PipeModeRepliesOneLinePerTurnAsMessagesDoes) {
  const std::vector<std::string> turns = {"twenty-six thousand", "three hundred and", "/reset", "sixty"};
  std::string input;
  for (const std::string& t : turns) input += t + "\n";
  const Outcome pipe = heptapod("chat -m " + quoted(chat_model()) + " --system count" + kGreedy, *dir_, input);
  ASSERT_EQ(pipe.status, 0) << pipe.err;
  std::vector<std::string> lines;
  std::istringstream in(pipe.out);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  ASSERT_EQ(lines.size(), 3u) << pipe.out;
  ASSERT_EQ(pipe.out.back(), '\n');

  nlohmann::json conversation = nlohmann::json::array({{{"role", "system"}, {"content", "count"}}});
  std::size_t reply = 0;
  for (const std::string& turn : turns) {
    if (turn == "/reset") {
      conversation = nlohmann::json::array({{{"role", "system"}, {"content", "count"}}});
      continue;
    }
    conversation.push_back({{"role", "user"}, {"content", turn}});
    const Outcome once = chat_on(conversation.dump());
    ASSERT_EQ(once.status, 0) << once.err;
    EXPECT_EQ(once.out, lines[reply] + "\n") << "turn " << reply << " (" << turn << ")";
    conversation.push_back({{"role", "assistant"}, {"content", lines[reply]}});
    ++reply;
  }
  EXPECT_FALSE(lines[0].empty()) << "an empty first reply: nothing compared";
}

// The same seed gives the same sampled reply; the reply ends where max tokens or a stop string say.
TEST_F(ChatCli, MessagesRepliesFollowSamplingOptions) {
  const std::string one = R"([{"role": "user", "content": "fifty-eight"}])";
  const std::string sampled = " --temperature 1 --top-k 0 --top-p 1 --seed 5 --max-tokens 10 --compute-type int8";
  const Outcome a = chat_on(one, sampled), b = chat_on(one, sampled);
  ASSERT_EQ(a.status, 0) << a.err;
  EXPECT_EQ(a.out, b.out);
  ASSERT_GT(a.out.size(), 3u) << "a reply too short to cut with a stop string: " << a.out;
  // A stop string from the middle of the reply (its first occurrence): the reply ends just before it.
  const std::string text = a.out.substr(0, a.out.size() - 1);
  const std::string stop = text.substr(text.size() / 2, 2);
  const Outcome cut = chat_on(one, sampled + " --stop " + quoted(stop));
  ASSERT_EQ(cut.status, 0) << cut.err;
  EXPECT_EQ(cut.out, text.substr(0, text.find(stop)) + "\n");
}

}  // namespace
}  // namespace heptapod
