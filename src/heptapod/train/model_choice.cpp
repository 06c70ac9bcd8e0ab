// Resolving a training run's model choice against presets and --init model files.
#include "heptapod/train/model_choice.h"

#include "heptapod/core/error.h"
#include "heptapod/io/model_file.h"

namespace heptapod {

ModelConfig resolve_model_choice(const ModelChoice& m) {
  ModelConfig c;
  if (m.init_model.empty()) {
    c = model_preset(m.preset);
    if (m.d_model) c.d_model = *m.d_model;
    if (m.heads) c.n_heads = *m.heads;
    if (m.d_ff) c.d_ff = *m.d_ff;
    if (m.encoder_layers) c.encoder_layers = *m.encoder_layers;
    if (m.decoder_layers) c.decoder_layers = *m.decoder_layers;
    if (m.norm) c.norm = *m.norm;
    if (m.tie) c.tie_embeddings = *m.tie;
    if (m.learned_positions) c.learned_positions = *m.learned_positions;
    const Architecture kind = m.architecture.value_or(Architecture::EncoderDecoder);
    if (kind != Architecture::EncoderDecoder) {
      const bool decoder = kind == Architecture::DecoderOnly;
      require(!(decoder ? m.encoder_layers : m.decoder_layers),
              std::string(decoder ? "--encoder-layers" : "--decoder-layers") + ": a " + architecture_name(kind) +
                  " model has no " + (decoder ? "encoder" : "decoder") + " (--layers sets its one stack)");
      const int layers = decoder ? c.decoder_layers : c.encoder_layers;
      c = one_stack_config(c, kind, decoder ? c.tgt_vocab_size : c.src_vocab_size);  // the task sets the size
      (decoder ? c.decoder_layers : c.encoder_layers) = layers;
      if (!decoder) {  // BERT's choices: two segment types, a norm over a post-norm stack's embeddings, GELU
        c.token_types = 2;
        c.embedding_norm = c.norm == NormPosition::Post;
        c.activation = Activation::Gelu;
      }
    }
    require(!m.relative_positions || kind == Architecture::DecoderOnly,
            "--positions relative: Transformer-XL's relative positions belong to a decoder-only model (--arch "
            "decoder-only)");
    c.relative_positions = m.relative_positions;
    c.untie_relative = m.untie_relative;
    c.clamp_length = m.clamp_length.value_or(0);
    c.memory_length = m.memory_length.value_or(0);
  } else {
    c = read_model_config(SafetensorsFile::read(m.init_model));
    if (m.architecture)
      require(*m.architecture == c.architecture,
              std::string("--arch ") + architecture_name(*m.architecture) + " contradicts the model to fine-tune (--init " +
                  m.init_model + "), which is " + architecture_name(c.architecture));
    auto agree = [&](const char* option, const std::string& given, const std::string& model) {
      require(given == model, std::string(option) + " " + given + " contradicts the model to fine-tune (--init " +
                                  m.init_model + "), which has " + model);
    };
    if (m.preset_given) {
      const ModelConfig p = c.architecture == Architecture::EncoderDecoder ? model_preset(m.preset)
                                                                            : one_stack_config(model_preset(m.preset), c.architecture, 1);
      agree("--preset", m.preset,
            p.d_model == c.d_model && p.n_heads == c.n_heads && p.d_ff == c.d_ff && p.encoder_layers == c.encoder_layers &&
                    p.decoder_layers == c.decoder_layers
                ? m.preset
                : "d_model " + std::to_string(c.d_model) + ", " + std::to_string(c.encoder_layers) + "+" +
                      std::to_string(c.decoder_layers) + " layers");
    }
    if (m.d_model) agree("--d-model", std::to_string(*m.d_model), std::to_string(c.d_model));
    if (m.heads) agree("--heads", std::to_string(*m.heads), std::to_string(c.n_heads));
    if (m.d_ff) agree("--d-ff", std::to_string(*m.d_ff), std::to_string(c.d_ff));
    if (m.encoder_layers) agree("--encoder-layers", std::to_string(*m.encoder_layers), std::to_string(c.encoder_layers));
    if (m.decoder_layers) agree("--decoder-layers", std::to_string(*m.decoder_layers), std::to_string(c.decoder_layers));
    if (m.norm) agree("--norm", norm_name(*m.norm), norm_name(c.norm));
    if (m.tie) agree("--tie", tying_name(*m.tie), tying_name(c.tie_embeddings));
    auto positions = [](int learned) { return learned > 0 ? "learned, " + std::to_string(learned) : std::string("sinusoidal"); };
    if (m.learned_positions) agree("--positions", positions(*m.learned_positions), positions(c.learned_positions));
    if (m.relative_positions) agree("--positions", "relative", c.relative_positions ? "relative" : positions(c.learned_positions));
    if (m.clamp_length) agree("--clamp-length", std::to_string(*m.clamp_length), std::to_string(c.clamp_length));
    if (m.untie_relative) agree("--untie-relative", "on", c.untie_relative ? "on" : "off");
    if (m.memory_length) {  // a training choice, not the weights': fine-tuning may change it
      require(c.relative_positions, "--memory: the model to fine-tune (--init " + m.init_model +
                                        ") has no relative positions, which Transformer-XL's memory needs");
      c.memory_length = *m.memory_length;
    }
  }
  if (m.dropout) c.dropout = *m.dropout;
  if (m.attention_dropout) c.attention_dropout = *m.attention_dropout;
  if (m.activation_dropout) c.activation_dropout = *m.activation_dropout;
  if (m.embedding_dropout) c.embedding_dropout = *m.embedding_dropout;
  return c;
}

void apply_fine_tuning_defaults(LrSchedule& schedule, bool schedule_given, bool warmup_given, bool lr_given) {
  if (!schedule_given) schedule.kind = LrSchedule::Kind::InverseSqrt;
  if (!warmup_given) schedule.warmup_steps = kFineTuneWarmup;
  if (!lr_given) schedule.peak_lr = kFineTunePeakLr;
}

}  // namespace heptapod
