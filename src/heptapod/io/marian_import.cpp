// MarianMT: config keys to ModelConfig, state-dict names to Heptapod's.
#include "heptapod/io/marian_import.h"

#include <nlohmann/json.hpp>

#include <cmath>

#include "heptapod/core/error.h"
#include "heptapod/io/atomic_file.h"
#include "heptapod/io/hf_config.h"
#include "heptapod/io/safetensors.h"
#include "heptapod/io/state_dict_copy.h"
#include "heptapod/kernels/embedding.h"

namespace heptapod {

using nlohmann::json;

ModelConfig marian_model_config(const std::string& text, const std::string& where) {
  const json j = parse_config_object(text, where);
  const ConfigReader r{j, where};
  const std::string type = r.text("model_type", "");
  require(type == "marian", where + ": model_type is \"" + type + "\", not \"marian\"");
  ModelConfig c;
  read_bart_shape(r, c);
  c.tgt_vocab_size = r.integer("decoder_vocab_size", c.src_vocab_size);
  const bool shared = r.boolean("share_encoder_decoder_embeddings", true);
  const bool tied_output = r.boolean("tie_word_embeddings", true);
  require(!shared || c.src_vocab_size == c.tgt_vocab_size,
          where + ": shared embeddings with vocab_size != decoder_vocab_size");
  require(tied_output || !shared, where + ": shared input embeddings with an untied output projection cannot be "
                                          "expressed (Heptapod ties all three or the target two)");
  c.tie_embeddings = shared ? EmbeddingTying::All : tied_output ? EmbeddingTying::TargetOutput : EmbeddingTying::None;
  c.activation = activation_from_name(r.text("activation_function", "gelu"), where);
  c.scale_embeddings = r.boolean("scale_embedding", false);
  c.norm = NormPosition::Post;
  c.final_norm = false;
  c.layer_norm_eps = 1e-5f;  // torch.nn.LayerNorm's default, which Marian's layers use
  c.output_bias = true;      // final_logits_bias
  c.positions = kernels::SinusoidLayout::Halves;
  c.position_offset = 0;
  c.source_eos = true;
  c.pad_id = r.integer("pad_token_id");
  c.eos_id = r.integer("eos_token_id");
  c.bos_id = r.integer("decoder_start_token_id", c.pad_id);
  r.refuse_unless("normalize_before", false, false, "Marian layers are post-norm here");
  r.refuse_unless("normalize_embedding", false, false, "a layer norm on the embeddings");
  r.refuse_unless("add_final_layer_norm", false, false, "final layer norms in a post-norm Marian model");
  r.refuse_unless("static_position_embeddings", true, true, "learned positions");
  r.refuse_unless("layernorm_embedding", false, false, "a layer norm on the embeddings");
  try {
    validate(c);
  } catch (const Error& e) {
    throw Error(where + ": " + e.what());
  }
  return c;
}

std::unique_ptr<Transformer<float>> import_marian(const std::string& dir) {
  const std::string config_path = dir + "/config.json";
  const ModelConfig c = marian_model_config(read_file(config_path), config_path);
  const SafetensorsFile f = SafetensorsFile::read(dir + "/model.safetensors");
  auto model = std::make_unique<Transformer<float>>(c);
  StateDictCopier copy(f, *model);

  copy_bart_embeddings(copy, c);
  // A buffer Hugging Face never trains, and loads as zeros when a file lacks it (the bias starts at zero here).
  if (copy.has("final_logits_bias"))
    copy.copy("final_logits_bias", tensor_name(Module::OutputProjection, Leaf::Bias));

  // The positions: sinusoids Heptapod computes itself; stored ones must be those.
  for (const char* n : {"model.encoder.embed_positions.weight", "model.decoder.embed_positions.weight"}) {
    if (!copy.has(n)) continue;
    const TensorEntry& e = f.at(n);
    require(e.shape.size() == 2 && e.shape[1] == c.d_model, f.where() + ": \"" + n + "\" is not (positions, d_model)");
    std::vector<double> expected(static_cast<std::size_t>(e.numel()));
    kernels::sinusoid_table(static_cast<int>(e.shape[0]), c.d_model, c.positions, 0, expected.data());
    require_close(copy.values(n), expected, 1e-4, f.where() + ": \"" + n + "\" (learned positions are not supported)");
  }

  copy.copy_layers("model.encoder.layers.", bart_layer_modules(Stack::Encoder), Stack::Encoder, c.encoder_layers);
  copy.copy_layers("model.decoder.layers.", bart_layer_modules(Stack::Decoder), Stack::Decoder, c.decoder_layers);
  copy.require_all_used({}, "MarianMT model");
  return model;
}

}  // namespace heptapod
