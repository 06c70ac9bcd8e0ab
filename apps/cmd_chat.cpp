// `heptapod chat -m MODEL`: a conversation with an instruction-tuned language model through its own chat
// template. On a terminal it is a conversation (each line a user turn, the reply streamed as it is made,
// /reset to start again, Ctrl-D to leave); from a pipe each line is a turn and each reply one line. With
// --messages FILE.json a whole conversation goes in and the reply comes out, as scripts need; --render prints
// the prompt the template makes of it instead (how a template is checked).
#include <unistd.h>

#include <cstdio>
#include <iostream>
#include <memory>

#include "commands.h"
#include "heptapod/decode/generator.h"
#include "heptapod/io/atomic_file.h"
#include "heptapod/kernels/threads.h"
#include "heptapod/serve/generation_api.h"
#include "heptapod/serve/log_probs_json.h"
#include "line_io.h"
#include "precision_options.h"
#include "search_options.h"

namespace heptapod::app {

namespace {

struct ChatFlags {
  std::string model, messages, system;
  bool render = false;
  GenerateOptions options;
  ModelLoadOptions load;
  int threads = 0;
  ChosenSettings chosen;
};

// --messages FILE ("-": stdin): an array of messages, or an object holding one under "messages".
nlohmann::ordered_json read_messages(const std::string& path) {
  const std::string text = path == "-" ? std::string(std::istreambuf_iterator<char>(std::cin), {}) : read_file(path);
  const std::string where = path == "-" ? "stdin" : path;
  const nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
  require(!j.is_discarded(), where + ": not JSON (--messages takes a JSON array of {\"role\", \"content\"} objects)");
  if (j.is_object()) {
    require(j.contains("messages"), where + ": an object without \"messages\"");
    return chat_messages(j["messages"], where + ": messages");
  }
  return chat_messages(j, where);
}

// One reply to `messages`, its pieces emitted as they are made.
GeneratedText reply(Generator& generator, const ChatFlags& f, const nlohmann::ordered_json& messages,
                    const std::function<void(std::string_view)>& emit) {
  GenerateOptions o = f.options;
  o.stream = [&emit](std::size_t, std::string_view piece, std::span<const TokenLogProb>) { emit(piece); };
  const KeptPrompt prompt = generator.chat()->prompt(messages, o.max_tokens);
  return generator.generate_kept({prompt}, o)[0].outputs[0];
}

void write(std::string_view text) {
  if (std::fwrite(text.data(), 1, text.size(), stdout) != text.size() || std::fflush(stdout) != 0)
    throw Error("cannot write to stdout");
}

// The conversation on stdin: a terminal's (prompted, streamed, /reset) or a pipe's (one reply per line).
int converse(Generator& generator, const ChatFlags& f) {
  const bool terminal = ::isatty(::fileno(stdin)) && ::isatty(::fileno(stdout));
  nlohmann::ordered_json messages = nlohmann::ordered_json::array();
  auto reset = [&] {
    messages = nlohmann::ordered_json::array();
    if (!f.system.empty()) messages.push_back({{"role", "system"}, {"content", f.system}});
  };
  reset();
  if (terminal)
    std::fprintf(stderr, "Chatting with %s: a line is a turn; /reset starts again, Ctrl-D leaves.\n", f.model.c_str());
  std::string line;
  while (true) {
    if (terminal) write("> ");
    if (!std::getline(std::cin, line)) break;
    if (line == "/reset") {
      reset();
      if (terminal) std::fprintf(stderr, "(a new conversation)\n");
      continue;
    }
    if (line.empty() && terminal) continue;
    messages.push_back({{"role", "user"}, {"content", line}});
    try {
      const GeneratedText out = reply(generator, f, messages, [](std::string_view piece) { write(piece); });
      write("\n");
      messages.push_back({{"role", "assistant"}, {"content", out.new_text}});
    } catch (const Error& e) {  // e.g. a conversation past the context: the turn is dropped, the chat goes on
      messages.erase(messages.end() - 1);
      if (!terminal) throw;
      std::fprintf(stderr, "error: %s\n", e.what());
    }
  }
  if (terminal) write("\n");
  return 0;
}

int run_chat(const ChatFlags& f) {
  set_num_threads(f.threads);
  require(!f.render || !f.messages.empty(), "chat: --render prints the prompt of a conversation; give --messages FILE");
  require(f.options.logprobs < 0 || !f.messages.empty(), "chat: --logprobs is for a reply to --messages FILE");
  Generator generator(f.model, f.load);
  require(generator.chat() != nullptr,
          f.model + ": the model has no chat template; give it one with heptapod convert " + f.model +
              " --chat-template FILE -o OUT.htp (a Jinja file, or the checkpoint's tokenizer_config.json)");
  ChatFlags flags = f;  // the model's generation defaults under the options given
  apply_generation_defaults(flags.options, generator.generation_defaults(), f.chosen);
  make_reply_options(flags.options);
  if (f.messages.empty()) return converse(generator, flags);
  nlohmann::ordered_json messages = read_messages(f.messages);
  if (!f.system.empty())  // one message (a braced list alone would insert its two pairs as two arrays)
    messages.insert(messages.begin(), nlohmann::ordered_json{{"role", "system"}, {"content", f.system}});
  if (f.render) {
    write(generator.chat()->render(messages, true));
    return 0;
  }
  const bool logprobs = flags.options.logprobs >= 0, terminal = ::isatty(::fileno(stdout)) && !logprobs;
  const GeneratedText out =
      reply(generator, flags, messages, [terminal](std::string_view piece) { if (terminal) write(piece); });
  if (logprobs) {
    const nlohmann::json j = {{"role", "assistant"},
                              {"content", out.new_text},
                              {"finish_reason", finish_reason(out)},
                              {"logprobs", chat_logprobs(out.token_log_probs, generator.vocabulary())}};
    write(j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
    return 0;
  }
  write(terminal ? "\n" : out.new_text + "\n");
  return 0;
}

}  // namespace

Runner add_chat_command(CLI::App& root) {
  auto* cmd = root.add_subcommand(
      "chat", "Converse with an instruction-tuned language model through its chat template (a terminal, a pipe, "
              "or --messages FILE.json)");
  auto f = std::make_shared<ChatFlags>();
  cmd->add_option("-m,--model", f->model, "Language model file with a chat template (heptapod convert)")->required();
  cmd->add_option("--system", f->system, "A system message that begins the conversation");
  cmd->add_option("--messages", f->messages,
                  "A whole conversation (JSON: an array of {\"role\": system|user|assistant, \"content\"}, or an "
                  "object with \"messages\"; - for stdin): its reply is written, one line");
  cmd->add_flag("--render", f->render, "With --messages: write the prompt the template makes of it, and stop");
  add_reply_options(cmd, f->options);
  cmd->add_option("--logprobs", f->options.logprobs,
                  "With --messages: write the reply as one JSON object {role, content, finish_reason, logprobs: "
                  "{content: [{token, logprob, bytes, top_logprobs}]}} as /v1/chat/completions gives it, with this "
                  "many most likely tokens beside each one")
      ->check(CLI::Range(0, 20));
  add_precision_options(cmd, f->load);
  cmd->add_option("--threads", f->threads, "Threads (0: all cores)")->check(CLI::NonNegativeNumber);
  return [f, cmd] {
    ChatFlags flags = *f;
    flags.chosen = chosen_settings(cmd);
    return run_chat(flags);
  };
}

}  // namespace heptapod::app
