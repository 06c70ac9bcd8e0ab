// A Hugging Face chat template (tokenizer_config.json's `chat_template`): Jinja source that lays a list of
// messages out as the text a model was tuned on. Rendered by our own Jinja subset (jinja_*.h) as transformers
// renders it: jinja2 with trim_blocks, lstrip_blocks, loop controls, the {% generation %} tag, raise_exception,
// strftime_now and a json.dumps tojson. What the subset cannot render is refused when the template is parsed.
#pragma once

#include <nlohmann/json.hpp>

#include <ctime>
#include <memory>
#include <string>
#include <vector>

namespace heptapod {

namespace jinja {
struct Stmt;
}

class ChatTemplate {
 public:
  // Parses `source`. Anything the subset cannot render (an unknown statement, filter, test, global function,
  // method name, syntax error) is an Error naming `where`, the line and the construct, e.g.
  // "tokenizer_config.json: chat_template: line 3: filter 'wordwrap' is not supported".
  ChatTemplate(std::string source, std::string where);
  ~ChatTemplate();
  ChatTemplate(ChatTemplate&&) noexcept;
  ChatTemplate& operator=(ChatTemplate&&) noexcept;

  // Renders with `variables` (a JSON object: messages, add_generation_prompt, bos_token, eos_token, tools, and
  // extras such as enable_thinking); objects keep their key order. raise_exception(msg) and render-time type
  // errors are Errors naming `where` and the line. `now` is what strftime_now formats (local time).
  std::string render(const nlohmann::ordered_json& variables, std::time_t now) const;
  std::string render(const nlohmann::ordered_json& variables) const;  // now = the current time
  const std::string& source() const { return source_; }

 private:
  std::string source_, where_;
  std::unique_ptr<std::vector<std::unique_ptr<jinja::Stmt>>> body_;
};

}  // namespace heptapod
