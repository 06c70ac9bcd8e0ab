// Hugging Face config.json as a JSON object.
#include "heptapod/io/hf_config.h"

#include "heptapod/core/error.h"

namespace heptapod {

nlohmann::json parse_config_object(const std::string& text, const std::string& where) {
  nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
  require(!j.is_discarded() && j.is_object(), where + ": not a JSON object");
  return j;
}

void read_bart_shape(const ConfigReader& r, ModelConfig& c) {
  c.d_model = r.integer("d_model");
  c.encoder_layers = r.integer("encoder_layers");
  c.decoder_layers = r.integer("decoder_layers");
  c.n_heads = r.integer("encoder_attention_heads");
  c.d_ff = r.integer("encoder_ffn_dim");
  require(r.integer("decoder_attention_heads") == c.n_heads,
          r.where + ": encoder_attention_heads and decoder_attention_heads differ; Heptapod has one n_heads");
  require(r.integer("decoder_ffn_dim") == c.d_ff,
          r.where + ": encoder_ffn_dim and decoder_ffn_dim differ; Heptapod has one d_ff");
  c.src_vocab_size = c.tgt_vocab_size = r.integer("vocab_size");
  c.dropout = c.embedding_dropout = r.number("dropout", 0.1f);
  c.attention_dropout = r.number("attention_dropout", 0.0f);
  c.activation_dropout = r.number("activation_dropout", 0.0f);
}

}  // namespace heptapod
