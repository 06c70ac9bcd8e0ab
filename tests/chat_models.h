// Chat models for the tests: the LLaMA-family fixtures converted with a chat template written here by hand
// (a ChatML layout as Qwen 2.5's without its tool branches, and LLaMA 3's), as `heptapod convert` reads one from a
// checkpoint's tokenizer_config.json.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "test_process.h"
#include "test_util.h"

namespace heptapod::test {

// Qwen 2.5's layout without its tool branches (ChatML).
inline const std::string kChatMl =
    "{%- for message in messages %}{{- '<|im_start|>' + message.role + '\\n' + message.content + '<|im_end|>\\n' }}"
    "{%- endfor %}{%- if add_generation_prompt %}{{- '<|im_start|>assistant\\n' }}{%- endif %}";
// LLaMA 3's layout: the start token written by the template.
inline const std::string kLlama3 =
    "{{ bos_token }}{% for message in messages %}{{ '<|start_header_id|>' + message['role'] + '<|end_header_id|>\\n\\n' "
    "+ message['content'] | trim + '<|eot_id|>' }}{% endfor %}{% if add_generation_prompt %}"
    "{{ '<|start_header_id|>assistant<|end_header_id|>\\n\\n' }}{% endif %}";

// A copy of fixture `family` whose tokenizer_config.json carries `chat_template`.
inline std::string checkpoint_with_template(const TempDir& dir, const std::string& family, const std::string& source) {
  const std::filesystem::path copy = dir.path() / (family + "_checkpoint");
  std::filesystem::copy(fixture(family), copy, std::filesystem::copy_options::recursive);
  const std::string config_path = (copy / "tokenizer_config.json").string();
  nlohmann::ordered_json config = nlohmann::ordered_json::parse(slurp(config_path));
  config["chat_template"] = source;
  dir.write(family + "_checkpoint/tokenizer_config.json", config.dump(2));
  return copy.string();
}

// Fixture `family` (tests/fixtures) converted with `source` as its template; returns the model's path.
inline std::string chat_model(const TempDir& dir, const std::string& family, const std::string& source) {
  const std::string model = dir.file(family + ".htp");
  std::string log;
  EXPECT_EQ(run_heptapod("convert " + quoted(checkpoint_with_template(dir, family, source)) + " --from llama -o " +
                             quoted(model),
                         dir, log),
            0)
      << log;
  return model;
}

}  // namespace heptapod::test
