// Reading tokenizer.json's post-processor into the ids around a single sequence.
#include "heptapod/data/hf_post_processor.h"

#include <string>

namespace heptapod::hf {

namespace {

constexpr const char* kSupported = "TemplateProcessing, ByteLevel, Sequence";

// The ids of one special token of the template, from its "special_tokens" map.
std::vector<int> special_ids(const JsonNode& processor, const std::string& name) {
  const JsonNode specials = processor.child("special_tokens");
  if (!specials.json().is_object() || !specials.json().contains(name) || !specials.json()[name].is_object())
    specials.fail("no entry for the template's special token \"" + name + "\"");
  std::vector<int> ids;
  for (const JsonNode& id : specials.child(name.c_str()).items("ids")) {
    if (!id.json().is_number_integer() || id.json().get<long long>() < 0 || id.json().get<long long>() >= (1ll << 31))
      id.fail("must be a token id");
    ids.push_back(id.json().get<int>());
  }
  return ids;
}

Template template_processing(const JsonNode& processor) {
  Template t;
  bool seen_sequence = false;
  for (const JsonNode& item : processor.items("single")) {
    if (item.has("SpecialToken")) {
      const std::vector<int> ids = special_ids(processor, item.child("SpecialToken").text("id"));
      std::vector<int>& side = seen_sequence ? t.end : t.begin;
      side.insert(side.end(), ids.begin(), ids.end());
    } else if (item.has("Sequence")) {
      const std::string which = item.child("Sequence").text("id");
      if (which != "A" || seen_sequence) item.fail("a single-sequence template has one sequence, \"A\"");
      seen_sequence = true;
    } else {
      item.fail("must be {\"SpecialToken\": ...} or {\"Sequence\": ...}");
    }
  }
  if (!seen_sequence) processor.fail("the single template has no sequence \"A\"");
  return t;
}

void read_into(const JsonNode& node, Template& t) {
  const std::string type = node.type();
  if (type == "Sequence") {
    for (const JsonNode& step : node.items("processors")) read_into(step, t);
  } else if (type == "TemplateProcessing") {
    const Template outer = template_processing(node);
    t.begin.insert(t.begin.begin(), outer.begin.begin(), outer.begin.end());
    t.end.insert(t.end.end(), outer.end.begin(), outer.end.end());
  } else if (type != "ByteLevel") {
    node.unsupported("post_processor", type, kSupported);
  }
}

}  // namespace

Template read_post_processor(const JsonNode& tokenizer_json) {
  Template t;
  if (tokenizer_json.has("post_processor")) read_into(tokenizer_json.child("post_processor"), t);
  return t;
}

}  // namespace heptapod::hf
