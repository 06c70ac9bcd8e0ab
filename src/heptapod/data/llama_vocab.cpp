// A LLaMA-family snapshot's tokenizer and the ids it settles.
#include "heptapod/data/llama_vocab.h"

#include "heptapod/core/error.h"
#include "heptapod/data/hf_tokenizer.h"
#include "heptapod/data/pretrained_vocab.h"

namespace heptapod {

ModelVocabularies llama_vocabularies(const std::string& dir, ModelConfig& c) {
  ModelVocabularies v;
  v.target = hf_tokenizer_vocabulary(dir);
  const HfTokenizer& tokenizer = *hf_tokenizer(v.target.tokenizer());
  const std::string where = dir + "/tokenizer.json";
  const std::vector<int>& begin = tokenizer.begin_ids();
  require(begin.size() <= 1, where + ": the post-processor puts " + std::to_string(begin.size()) +
                                 " tokens before a text; Heptapod's sequences begin with one start token at most");
  c.prompt_bos = !begin.empty();
  if (c.prompt_bos) c.bos_id = begin.front();
  if (tokenizer.special_ids().pad >= 0) c.pad_id = tokenizer.special_ids().pad;
  validate(c);
  check_vocabularies(v, c, where);
  return v;
}

}  // namespace heptapod
