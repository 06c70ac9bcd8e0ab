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
  require(v.target.size() <= c.tgt_vocab_size,
          where + ": " + std::to_string(v.target.size()) + " tokens, more than the model's " +
              std::to_string(c.tgt_vocab_size) + " embedding rows (config.json's vocab_size)");
  const std::vector<int>& begin = tokenizer.begin_ids();
  require(begin.size() <= 1, where + ": the post-processor puts " + std::to_string(begin.size()) +
                                 " tokens before a text; Heptapod's sequences begin with one start token at most");
  c.prompt_bos = !begin.empty();
  if (c.prompt_bos) c.bos_id = begin.front();
  if (tokenizer.special_ids().pad >= 0) c.pad_id = tokenizer.special_ids().pad;
  auto special = [&](int id, const std::string& what) {
    require(v.target.is_special(id), where + ": " + what + " " + std::to_string(id) + " is not a special token of the "
                                         "tokenizer (\"" + (id >= 0 && id < v.target.size() ? v.target.piece(id) : "") +
                                         "\"): the ids of config.json and tokenizer.json disagree");
  };
  if (c.prompt_bos) special(c.bos_id, "the start token");
  special(c.eos_id, "eos_token_id");
  for (int id : c.extra_eos_ids) special(id, "eos_token_id");
  validate(c);
  return v;
}

}  // namespace heptapod
