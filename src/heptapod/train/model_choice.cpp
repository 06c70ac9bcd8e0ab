// Settling a training run's model choice against presets and --init model files.
#include "heptapod/train/model_choice.h"

#include <memory>
#include <utility>

#include "heptapod/core/error.h"
#include "heptapod/io/model_file.h"

namespace heptapod {

namespace {

// The layer and position overrides as the config's fields: --layers as every stack the model has, the
// positions as a learned table's rows (0: sinusoidal) or relative positions.
struct Layout {
  std::optional<int> encoder_layers, decoder_layers, learned_positions;
  bool relative_positions = false, rotary = false;
};

// The pieces of the LLaMA family a choice names, applied to c.
void apply_pieces(const ModelChoice& m, bool rotary, ModelConfig& c) {
  if (m.norm_type) c.norm_type = *m.norm_type;
  if (m.ffn) {
    c.gated_ffn = *m.ffn != FfnChoice::Plain;
    if (c.gated_ffn) c.activation = *m.ffn == FfnChoice::SwiGlu ? Activation::Silu : Activation::Gelu;
  }
  if (m.kv_heads) c.kv_heads = *m.kv_heads;
  if (m.head_dim) c.head_dim = *m.head_dim;
  if (m.biases) {
    c.attention_qkv_bias = *m.biases != BiasChoice::None;
    c.attention_out_bias = c.ffn_bias = *m.biases == BiasChoice::All;
  }
  c.qk_norm = m.qk_norm;
  c.rotary = rotary;
  if (rotary) {
    c.rope = RotaryConfig{};
    if (m.rope_theta) c.rope.theta = *m.rope_theta;
    c.scale_embeddings = false;  // no sinusoids to balance: the embeddings enter as they are (LLaMA)
  }
}

const char* ffn_name(const ModelConfig& c) {
  if (!c.gated_ffn) return "plain";
  return c.activation == Activation::Silu ? "swiglu" : "geglu";
}

const char* biases_name(const ModelConfig& c) {
  if (c.attention_qkv_bias && c.attention_out_bias && c.ffn_bias) return "all";
  if (c.attention_qkv_bias && !c.attention_out_bias && !c.ffn_bias) return "qkv";
  if (!c.attention_qkv_bias && !c.attention_out_bias && !c.ffn_bias) return "none";
  return "mixed";
}

// A fresh model's config: the preset with the overrides, as a `kind` model.
ModelConfig fresh_config(const ModelChoice& m, const Layout& o, Architecture kind) {
  ModelConfig c = model_preset(m.preset);
  if (m.d_model) c.d_model = *m.d_model;
  if (m.heads) c.n_heads = *m.heads;
  if (m.d_ff) c.d_ff = *m.d_ff;
  if (o.encoder_layers) c.encoder_layers = *o.encoder_layers;
  if (o.decoder_layers) c.decoder_layers = *o.decoder_layers;
  if (m.norm) c.norm = *m.norm;
  if (m.tie) c.tie_embeddings = *m.tie;
  require(c.tie_embeddings != EmbeddingTying::Embeddings || kind == Architecture::EncoderDecoder,
          "--tie embeddings shares an encoder-decoder's two embeddings; a " + std::string(architecture_name(kind)) +
              " model has one");
  if (o.learned_positions) c.learned_positions = *o.learned_positions;
  if (kind != Architecture::EncoderDecoder) {
    const bool decoder = kind == Architecture::DecoderOnly;
    require(!(decoder ? o.encoder_layers : o.decoder_layers),
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
  require(!o.relative_positions || kind == Architecture::DecoderOnly,
          "--positions relative: Transformer-XL's relative positions belong to a decoder-only model (--arch "
          "decoder-only)");
  apply_pieces(m, o.rotary, c);
  c.relative_positions = o.relative_positions;
  c.untie_relative = m.untie_relative;
  c.clamp_length = m.clamp_length.value_or(0);
  c.memory_length = m.memory_length.value_or(0);
  return c;
}

// The model to fine-tune's config, which every override must restate; --memory may change it.
ModelConfig fine_tuned_config(const ModelChoice& m, const Layout& o, const InitModel& init) {
  ModelConfig c = init.config;
  if (m.architecture)
    require(*m.architecture == c.architecture,
            std::string("--arch ") + architecture_name(*m.architecture) + " contradicts the model to fine-tune (--init " +
                init.path + "), which is " + architecture_name(c.architecture));
  auto agree = [&](const char* option, const std::string& given, const std::string& model) {
    require(given == model, std::string(option) + " " + given + " contradicts the model to fine-tune (--init " +
                                init.path + "), which has " + model);
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
  if (o.encoder_layers) agree("--encoder-layers", std::to_string(*o.encoder_layers), std::to_string(c.encoder_layers));
  if (o.decoder_layers) agree("--decoder-layers", std::to_string(*o.decoder_layers), std::to_string(c.decoder_layers));
  if (m.norm) agree("--norm", norm_name(*m.norm), norm_name(c.norm));
  if (m.tie) agree("--tie", tying_name(*m.tie), tying_name(c.tie_embeddings));
  auto positions = [](int learned) { return learned > 0 ? "learned, " + std::to_string(learned) : std::string("sinusoidal"); };
  if (o.learned_positions) agree("--positions", positions(*o.learned_positions), positions(c.learned_positions));
  if (o.relative_positions) agree("--positions", "relative", c.relative_positions ? "relative" : positions(c.learned_positions));
  if (o.rotary) agree("--positions", "rotary", c.rotary ? "rotary" : positions(c.learned_positions));
  if (m.rope_theta && c.rotary) agree("--rope-theta", std::to_string(*m.rope_theta), std::to_string(c.rope.theta));
  if (m.norm_type) agree("--norm-type", norm_type_name(*m.norm_type), norm_type_name(c.norm_type));
  if (m.kv_heads) agree("--kv-heads", std::to_string(*m.kv_heads), std::to_string(c.key_value_heads()));
  if (m.head_dim) agree("--head-dim", std::to_string(*m.head_dim), std::to_string(c.head_size()));
  if (m.qk_norm) agree("--qk-norm", "on", c.qk_norm ? "on" : "off");
  ModelConfig pieces = c;  // what --ffn and --biases would make of the model's own
  apply_pieces(m, c.rotary, pieces);
  if (m.ffn) agree("--ffn", ffn_name(pieces), ffn_name(c));
  if (m.biases) agree("--biases", biases_name(pieces), biases_name(c));
  require(!m.ffn || pieces.activation == c.activation || !c.gated_ffn,
          std::string("--ffn ") + ffn_name(pieces) + " contradicts the model to fine-tune (--init " + init.path + ")");
  if (m.clamp_length) agree("--clamp-length", std::to_string(*m.clamp_length), std::to_string(c.clamp_length));
  if (m.untie_relative) agree("--untie-relative", "on", c.untie_relative ? "on" : "off");
  if (m.memory_length) {  // a training choice, not the weights': fine-tuning may change it
    require(c.relative_positions, "--memory: the model to fine-tune (--init " + init.path +
                                      ") has no relative positions, which Transformer-XL's memory needs");
    c.memory_length = *m.memory_length;
  }
  return c;
}

// The config without what a fine-tuning run may choose anew (dropout rates, the segment memory): what it
// must keep.
ModelConfig without_training_choices(ModelConfig c) {
  c.dropout = c.attention_dropout = c.activation_dropout = c.embedding_dropout = 0;
  c.lora.dropout = 0;
  c.memory_length = 0;
  return c;
}

// The config without its training choices and an encoder's head: what a model fine-tuned with another head
// keeps.
ModelConfig body_of(ModelConfig c) {
  c = without_training_choices(c);
  c.mlm_head = false;
  c.mask_id = -1;
  c.labels = 0;
  c.pooling = Pooling::Mean;
  c.multi_label = false;
  c.pooler = false;
  c.sentence_pairs = false;  // how the head reads its inputs: pairs or single texts
  return c;
}

}  // namespace

void resolve_model(const ModelChoice& m, TrainConfig& config) {
  std::shared_ptr<InitModel> init;
  if (!m.init_model.empty()) {
    init = std::make_shared<InitModel>();
    init->path = m.init_model;
    init->file = SafetensorsFile::read(m.init_model);
    init->config = read_model_config(init->file);
    const ComputeType stored = stored_compute_type(init->file);
    require(m.lora || stored == ComputeType::Float32,
            "--init " + init->path + ": the model holds " + compute_type_name(stored) +
                " weights, which full fine-tuning cannot update; train LoRA adapters over it (--lora R), or fine-tune "
                "the float32 model it was made from");
  }
  // The model's kind and positions: --arch, else the model to fine-tune's, else an encoder-decoder's.
  const Architecture kind = m.architecture.value_or(init ? init->config.architecture : Architecture::EncoderDecoder);
  Layout o;
  o.encoder_layers = m.layers && kind != Architecture::DecoderOnly ? m.layers : m.encoder_layers;
  o.decoder_layers = m.layers && kind != Architecture::EncoderOnly ? m.layers : m.decoder_layers;
  // An encoder learns its positions unless told otherwise, as BERT does.
  std::optional<PositionChoice> positions = m.positions;
  if (!positions && kind == Architecture::EncoderOnly && !init) positions = PositionChoice::Learned;
  require(!m.max_positions || positions == PositionChoice::Learned, "--max-positions needs --positions learned");
  require(!m.rope_theta || positions == PositionChoice::Rotary || (!positions && init && init->config.rotary),
          "--rope-theta needs --positions rotary");
  const bool relative =
      positions == PositionChoice::Relative || (!positions && init && init->config.relative_positions);
  for (const auto& [given, option] : {std::pair{m.memory_length.has_value(), "--memory"},
                                      std::pair{m.clamp_length.has_value(), "--clamp-length"},
                                      std::pair{m.untie_relative, "--untie-relative"}})
    require(!given || relative, std::string(option) + " needs --positions relative (Transformer-XL's, decoder-only)");
  o.relative_positions = positions == PositionChoice::Relative;
  o.rotary = positions == PositionChoice::Rotary;
  if (positions == PositionChoice::Sinusoidal) o.learned_positions = 0;
  if (positions == PositionChoice::Learned)
    o.learned_positions = m.max_positions.value_or(init && init->config.learned_positions > 0 ? init->config.learned_positions
                                                   : kind != Architecture::EncoderDecoder   ? config.context
                                                                                            : 1024);
  ModelConfig& c = config.model;
  c = init ? fine_tuned_config(m, o, *init) : fresh_config(m, o, kind);
  if (m.dropout) c.dropout = *m.dropout;
  if (m.attention_dropout) c.attention_dropout = *m.attention_dropout;
  if (m.activation_dropout) c.activation_dropout = *m.activation_dropout;
  if (m.embedding_dropout) c.embedding_dropout = *m.embedding_dropout;
  if (m.lora) {
    require(init != nullptr, "--lora needs --init (the base model the adapters adapt)");
    require(!init->config.lora.enabled(), "--lora: " + init->path +
                                              " already holds LoRA adapters; fold them in first (heptapod merge)");
    require(m.lora->rank >= 1, "--lora: the rank must be at least 1, got " + std::to_string(m.lora->rank));
    c.lora = *m.lora;
    try {
      validate_lora(c);
    } catch (const Error& e) {
      throw Error(std::string("--lora on ") + init->path + ": " + e.what());
    }
  }
  config.task = kind == Architecture::EncoderDecoder                          ? TaskKind::Translation
                : kind == Architecture::DecoderOnly                           ? TaskKind::LanguageModel
                : config.encoder_task == TrainConfig::EncoderTask::Classify ? TaskKind::Classification
                                                                              : TaskKind::MaskedLm;
  if (init) init->vocabularies = fine_tuning_vocabularies(init->file, init->config);
  config.init = std::move(init);
}

ConfigChange config_change(const ModelConfig& file, const ModelConfig& train) {
  if (to_json(file) == to_json(train)) return ConfigChange::None;
  if (to_json(without_training_choices(file)) == to_json(without_training_choices(train)))
    return ConfigChange::TrainingChoices;
  if (to_json(body_of(file)) == to_json(body_of(train))) return ConfigChange::Head;
  return ConfigChange::Body;
}

void apply_fine_tuning_defaults(LrSchedule& schedule, bool schedule_given, bool warmup_given, bool lr_given) {
  if (!schedule_given) schedule.kind = LrSchedule::Kind::InverseSqrt;
  if (!warmup_given) schedule.warmup_steps = kFineTuneWarmup;
  if (!lr_given) schedule.peak_lr = kFineTunePeakLr;
}

}  // namespace heptapod
