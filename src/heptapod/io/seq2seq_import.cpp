// M2M100 / NLLB and mBART: config keys to ModelConfig, state-dict names to Heptapod's.
#include "heptapod/io/seq2seq_import.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>

#include "heptapod/core/error.h"
#include "heptapod/io/atomic_file.h"
#include "heptapod/io/hf_checkpoint.h"
#include "heptapod/io/hf_config.h"
#include "heptapod/io/state_dict_copy.h"
#include "heptapod/kernels/embedding.h"

namespace heptapod {

ModelConfig seq2seq_model_config(const std::string& text, Seq2SeqFamily family, const std::string& where) {
  const nlohmann::json j = parse_config_object(text, where);
  const ConfigReader r{j, where};
  const bool mbart = family == Seq2SeqFamily::Mbart;
  const std::string expected = mbart ? "mbart" : "m2m_100";
  const std::string type = r.text("model_type", "");
  require(type == expected, where + ": model_type is \"" + type + "\", not \"" + expected + "\" (convert --from " +
                                (mbart ? "mbart" : "m2m100") + " takes " + expected + " checkpoints)");
  ModelConfig c;
  read_bart_shape(r, c);
  require(r.boolean("tie_word_embeddings", true),
          where + ": \"tie_word_embeddings\": false is not supported (an output layer apart from the shared embedding)");
  c.tie_embeddings = EmbeddingTying::All;
  c.activation = activation_from_name(r.text("activation_function", mbart ? "gelu" : "relu"), where);
  c.scale_embeddings = r.boolean("scale_embedding", !mbart);
  c.norm = NormPosition::Pre;  // with a final layer norm per stack
  c.layer_norm_eps = 1e-5f;    // torch.nn.LayerNorm's default
  c.source_eos = true;
  c.pad_id = r.integer("pad_token_id", 1);
  c.eos_id = r.integer("eos_token_id", 2);
  c.bos_id = r.integer("decoder_start_token_id", c.eos_id);
  const int max_positions = r.integer("max_position_embeddings", 1024);
  if (mbart) {
    c.positions = kernels::SinusoidLayout::Interleaved;  // unused: learned positions
    c.position_offset = 2;                                // MBartLearnedPositionalEmbedding's offset
    c.learned_positions = max_positions + c.position_offset;
    c.embedding_norm = true;
    c.output_bias = true;  // final_logits_bias
    r.refuse_unless("normalize_before", true, true, "mBART's layers are pre-norm");
    r.refuse_unless("add_final_layer_norm", true, true, "mBART's stacks end with a layer norm");
  } else {
    c.positions = kernels::SinusoidLayout::Tensor2Tensor;
    c.position_offset = c.pad_id + 1;  // fairseq's make_positions: padding_idx + 1 onwards
    c.output_bias = false;
  }
  try {
    validate(c);
  } catch (const Error& e) {
    throw Error(where + ": " + e.what());
  }
  return c;
}

bool nllb_legacy_layout(const std::string& dir) {
  const std::string path = dir + "/tokenizer_config.json";
  if (!std::filesystem::exists(path) || std::filesystem::exists(dir + "/vocab.json")) return false;
  const nlohmann::json j = parse_config_object(read_file(path), path);
  return ConfigReader{j, path}.boolean("legacy_behaviour", false);
}

std::unique_ptr<Transformer<float>> import_seq2seq(const std::string& dir, Seq2SeqFamily family) {
  const std::string config_path = dir + "/config.json";
  ModelConfig c = seq2seq_model_config(read_file(config_path), family, config_path);
  c.source_eos = family == Seq2SeqFamily::Mbart || !nllb_legacy_layout(dir);
  const std::vector<SafetensorsFile> files = read_checkpoint_files(dir);
  std::vector<const SafetensorsFile*> parts;
  for (const SafetensorsFile& f : files) parts.push_back(&f);
  auto model = std::make_unique<Transformer<float>>(c);
  StateDictCopier copy(parts, *model);
  copy_bart_embeddings(copy, c);
  const bool mbart = family == Seq2SeqFamily::Mbart;
  for (const Stack stack : {Stack::Encoder, Stack::Decoder}) {
    const std::string prefix = stack == Stack::Encoder ? "model.encoder." : "model.decoder.";
    const std::string positions = prefix + "embed_positions.weight";
    if (mbart) {
      copy.copy(positions, tensor_name(Module::Positions, Leaf::Weight, stack));
      copy.copy_module(prefix + "layernorm_embedding", module_name(Module::EmbeddingNorm, stack));
    } else if (copy.has(prefix + "embed_positions.weights")) {
      // Older checkpoints keep the sinusoids (row padding_idx zeroed); they must be fairseq's.
      const std::string name = prefix + "embed_positions.weights";
      const TensorEntry& e = copy.file_of(name).at(name);
      require(e.shape.size() == 2 && e.shape[1] == c.d_model,
              copy.file_of(name).where() + ": \"" + name + "\" is not (positions, d_model)");
      std::vector<double> expected(static_cast<std::size_t>(e.numel()));
      kernels::sinusoid_table(static_cast<int>(e.shape[0]), c.d_model, c.positions, 0, expected.data());
      std::fill_n(expected.begin() + static_cast<long>(c.pad_id) * c.d_model, c.d_model, 0.0);
      require_close(copy.values(name), expected, 1e-4, copy.file_of(name).where() + ": \"" + name + "\"");
    }
    copy.copy_layers(prefix + "layers.", bart_layer_modules(stack), stack,
                     stack == Stack::Encoder ? c.encoder_layers : c.decoder_layers);
    copy.copy_module(prefix + "layer_norm", module_name(Module::FinalNorm, stack));
  }
  // A buffer Hugging Face never trains (zeros when a file lacks it; the bias starts at zero here).
  if (mbart && copy.has("final_logits_bias"))
    copy.copy("final_logits_bias", tensor_name(Module::OutputProjection, Leaf::Bias));
  copy.require_all_used({}, mbart ? "mBART model" : "M2M100 model");
  return model;
}

}  // namespace heptapod
