// The post-processor of a tokenizer.json ("post_processor"), as the ids its single-sequence template puts
// before and after a text's ids: TemplateProcessing (its "single" template: special tokens around the one
// sequence "A"), ByteLevel (which adds none: it only moves offsets) and Sequence (each step wraps what the
// ones before made). BertProcessing, RobertaProcessing and the others are refused by name. Heptapod's encode
// gives the text's ids alone; a model's code adds these where its prompts need them (LLaMA's begin-of-text
// token; none for Qwen).
#pragma once

#include <vector>

#include "heptapod/data/hf_json.h"

namespace heptapod::hf {

struct Template {
  std::vector<int> begin, end;  // the ids before and after the text's ids
};

// The "post_processor" node (absent or null: no ids added).
Template read_post_processor(const JsonNode& tokenizer_json);

}  // namespace heptapod::hf
