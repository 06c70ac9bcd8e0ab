// T5's spiece.model with its sentinel tokens.
#include "heptapod/data/t5_vocab.h"

#include <nlohmann/json.hpp>

#include <filesystem>

#include "heptapod/core/error.h"
#include "heptapod/data/pretrained_vocab.h"
#include "heptapod/io/atomic_file.h"
#include "heptapod/io/hf_config.h"

namespace heptapod {

ModelVocabularies t5_vocabularies(const std::string& dir, const ModelConfig& c) {
  const std::string spm_path = dir + "/spiece.model";
  require(std::filesystem::is_regular_file(spm_path),
          dir + ": no spiece.model (T5's SentencePiece model; a snapshot with tokenizer.json alone is not supported)");
  int extra_ids = 100;
  const std::string config_path = dir + "/tokenizer_config.json";
  if (std::filesystem::exists(config_path)) {
    const nlohmann::json j = parse_config_object(read_file(config_path), config_path);
    const ConfigReader r{j, config_path};
    extra_ids = r.integer("extra_ids", extra_ids);
    r.refuse_unless("legacy", true, true, "T5Tokenizer's newer reading of the text after a special token");
    require(extra_ids >= 0 && extra_ids <= 1 << 16, config_path + ": \"extra_ids\" must be in [0, 65536]");
  }
  const std::string blob = read_file(spm_path);
  VocabIds ids = sentencepiece_ids(blob, spm_path);
  for (int i = extra_ids - 1; i >= 0; --i) ids.pieces.push_back("<extra_id_" + std::to_string(i) + ">");
  ids.written_specials = true;  // "<extra_id_0>" in text is the sentinel, as T5Tokenizer reads it
  const Vocabulary vocab = Vocabulary::from_serialized(blob, std::move(ids), spm_path);
  ModelVocabularies v{vocab, vocab, {}};
  check_vocabularies(v, c, dir);
  return v;
}

}  // namespace heptapod
