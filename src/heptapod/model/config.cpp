// Model configuration: validation, JSON and presets.
#include "heptapod/model/config.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <iterator>
#include <limits>
#include <set>
#include <utility>

#include "heptapod/core/error.h"
#include "heptapod/model/parameter_layout.h"

namespace heptapod {

using nlohmann::json;

namespace {

const char* activation_name(Activation a) {
  switch (a) {
    case Activation::Relu: return "relu";
    case Activation::Silu: return "silu";
    case Activation::Gelu: return "gelu";
    case Activation::GeluTanh: return "gelu_tanh";
  }
  return "?";
}

const char* layout_name(kernels::SinusoidLayout l) {
  switch (l) {
    case kernels::SinusoidLayout::Interleaved: return "interleaved";
    case kernels::SinusoidLayout::Halves: return "halves";
    case kernels::SinusoidLayout::Tensor2Tensor: return "tensor2tensor";
  }
  return "?";
}

// The "rotary" object: theta, dims and scaling always, the scaling's own numbers where it has them.
RotaryConfig rotary_from_json(const json& j, const std::string& where) {
  require(j.is_object(), where + " must be an object");
  RotaryConfig r;
  std::set<std::string> known;
  auto number = [&](const char* name, double& out, bool needed) {
    known.insert(name);
    if (!j.contains(name)) {
      require(!needed, where + " is missing \"" + name + "\"");
      return;
    }
    require(j.at(name).is_number(), where + ": \"" + name + "\" must be a number");
    out = j.at(name).get<double>();
  };
  auto integer = [&](const char* name, int& out, bool needed) {
    double v = out;
    number(name, v, needed);
    require(v == std::floor(v) && std::abs(v) <= 1 << 30, where + ": \"" + name + "\" must be an integer");
    out = static_cast<int>(v);
  };
  number("theta", r.theta, true);
  integer("dims", r.dims, true);
  known.insert("scaling");
  require(j.contains("scaling") && j.at("scaling").is_string(), where + ": \"scaling\" must be a string");
  r.scaling = rope_scaling_from_name(j.at("scaling").get<std::string>(), where);
  const bool scaled = r.scaling != RopeScaling::None;
  const bool original = r.scaling == RopeScaling::Dynamic || r.scaling == RopeScaling::Llama3;
  const bool llama3 = r.scaling == RopeScaling::Llama3;
  if (scaled) number("factor", r.factor, true);
  if (original) integer("original_positions", r.original_positions, true);
  if (llama3) {
    number("low_freq_factor", r.low_freq_factor, true);
    number("high_freq_factor", r.high_freq_factor, true);
  }
  for (const auto& item : j.items())
    require(known.count(item.key()) > 0, where + " has unknown field \"" + item.key() + "\"");
  return r;
}

constexpr std::pair<Architecture, const char*> kArchitectures[] = {
    {Architecture::EncoderDecoder, "encoder-decoder"},
    {Architecture::DecoderOnly, "decoder-only"},
    {Architecture::EncoderOnly, "encoder-only"}};

}  // namespace

const char* norm_name(NormPosition n) { return n == NormPosition::Pre ? "pre" : "post"; }

const char* norm_type_name(NormType t) { return t == NormType::Rms ? "rms" : "layer"; }

NormType norm_type_from_name(const std::string& name, const std::string& where) {
  if (name == "layer") return NormType::Layer;
  if (name == "rms") return NormType::Rms;
  throw Error(where + " must be \"layer\" or \"rms\"");
}

const char* tying_name(EmbeddingTying t) {
  switch (t) {
    case EmbeddingTying::All: return "all";
    case EmbeddingTying::TargetOutput: return "target_output";
    case EmbeddingTying::None: return "none";
    case EmbeddingTying::Embeddings: return "embeddings";
  }
  return "?";
}

const char* architecture_name(Architecture architecture) {
  for (const auto& [a, name] : kArchitectures)
    if (a == architecture) return name;
  return "?";
}

Architecture architecture_from_name(const std::string& name, const std::string& where) {
  for (const auto& [a, n] : kArchitectures)
    if (name == n) return a;
  throw Error(where + ": architecture \"" + name + "\" is not one of encoder-decoder, decoder-only, encoder-only");
}

ModelConfig one_stack_config(ModelConfig c, Architecture architecture, int vocab_size) {
  require(architecture != Architecture::EncoderDecoder, "one_stack_config: an encoder-decoder has two stacks");
  c.architecture = architecture;
  const bool decoder = architecture == Architecture::DecoderOnly;
  if (decoder) c.encoder_layers = 0;
  else c.decoder_layers = 0;
  c.src_vocab_size = decoder ? 0 : vocab_size;
  c.tgt_vocab_size = decoder ? vocab_size : 0;
  if (c.tie_embeddings == EmbeddingTying::All) c.tie_embeddings = EmbeddingTying::TargetOutput;
  if (!decoder) {  // no output layer
    c.tie_embeddings = EmbeddingTying::None;
    c.output_bias = false;
  }
  return c;
}

NormPosition norm_from_name(const std::string& name, const std::string& where) {
  if (name == "post") return NormPosition::Post;
  if (name == "pre") return NormPosition::Pre;
  throw Error(where + " must be \"post\" or \"pre\"");
}

EmbeddingTying tying_from_name(const std::string& name, const std::string& where) {
  for (EmbeddingTying t :
       {EmbeddingTying::All, EmbeddingTying::TargetOutput, EmbeddingTying::None, EmbeddingTying::Embeddings})
    if (name == tying_name(t)) return t;
  throw Error(where + " must be \"all\", \"target_output\", \"none\" or \"embeddings\"");
}

Activation activation_from_name(const std::string& name, const std::string& where) {
  if (name == "relu") return Activation::Relu;
  if (name == "silu" || name == "swish") return Activation::Silu;
  if (name == "gelu") return Activation::Gelu;
  if (name == "gelu_tanh" || name == "gelu_new" || name == "gelu_pytorch_tanh") return Activation::GeluTanh;
  throw Error(where + ": activation \"" + name + "\" is not supported (Heptapod has relu, silu/swish, the exact gelu "
                      "and gelu_tanh, also called gelu_new and gelu_pytorch_tanh)");
}

namespace {

// The pooling modes in sentence-transformers' order of concatenation, with their names.
constexpr std::pair<Pooling, const char*> kPoolings[] = {
    {Pooling::Cls, "cls"},           {Pooling::Max, "max"},
    {Pooling::Mean, "mean"},         {Pooling::MeanSqrtLen, "mean_sqrt_len"},
    {Pooling::WeightedMean, "weightedmean"}, {Pooling::LastToken, "lasttoken"}};

std::size_t pooling_rank(Pooling pooling) {
  for (std::size_t i = 0; i < std::size(kPoolings); ++i)
    if (kPoolings[i].first == pooling) return i;
  return std::size(kPoolings);
}

}  // namespace

const char* pooling_name(Pooling pooling) {
  return kPoolings[pooling_rank(pooling)].second;
}

Pooling pooling_from_name(const std::string& name, const std::string& where) {
  for (const auto& [pooling, n] : kPoolings)
    if (name == n) return pooling;
  throw Error(where + ": pooling \"" + name + "\" is not one of mean, cls, max, mean_sqrt_len, weightedmean, lasttoken");
}

std::string pooling_names(const std::vector<Pooling>& poolings) {
  std::string out;
  for (const Pooling p : poolings) out += (out.empty() ? "" : "+") + std::string(pooling_name(p));
  return out;
}

std::vector<Pooling> poolings_from_names(const std::string& names, const std::string& where) {
  std::vector<Pooling> out;
  for (std::size_t start = 0;;) {
    const std::size_t end = names.find('+', start);
    out.push_back(pooling_from_name(names.substr(start, end == std::string::npos ? end : end - start), where));
    require(out.size() == 1 || pooling_rank(out[out.size() - 2]) < pooling_rank(out.back()),
            where + ": pooling modes \"" + names + "\" must each be named once, in the order cls, max, mean, "
                    "mean_sqrt_len, weightedmean, lasttoken");
    if (end == std::string::npos) return out;
    start = end + 1;
  }
}

std::vector<int> banned_output_ids(const ModelConfig& c) {
  std::vector<int> banned;
  for (int id : {c.pad_id, c.bos_id})
    if (id != c.eos_id && std::find(banned.begin(), banned.end(), id) == banned.end()) banned.push_back(id);
  return banned;
}

void validate(const ModelConfig& c) {
  auto positive = [](int v, const char* field) {
    require(v > 0, std::string("model config: ") + field + " must be positive, got " + std::to_string(v));
  };
  // A one-stack model's one vocabulary and depth are "vocab_size" and "layers" in its file.
  const bool one_stack = c.architecture != Architecture::EncoderDecoder;
  auto stack_fields = [&](bool has, int vocab, int layers, const char* vocab_field, const char* layers_field) {
    if (has) {
      positive(vocab, one_stack ? "vocab_size" : vocab_field);
      positive(layers, one_stack ? "layers" : layers_field);
    } else {
      require(vocab == 0 && layers == 0, std::string("model config: a ") + architecture_name(c.architecture) +
                                             " model has no " + vocab_field + " or " + layers_field);
    }
  };
  stack_fields(c.has_encoder(), c.src_vocab_size, c.encoder_layers, "src_vocab_size", "encoder_layers");
  stack_fields(c.has_decoder(), c.tgt_vocab_size, c.decoder_layers, "tgt_vocab_size", "decoder_layers");
  positive(c.d_model, "d_model");
  positive(c.n_heads, "n_heads");
  positive(c.d_ff, "d_ff");
  require(c.head_dim > 0 || c.d_model % c.n_heads == 0,
          "model config: d_model (" + std::to_string(c.d_model) + ") must be divisible by n_heads (" +
              std::to_string(c.n_heads) + ") unless head_dim is given");
  require(c.head_dim >= 0 && c.head_dim <= 1 << 16, "model config: head_dim must be 0 (d_model / n_heads) or in "
                                                    "[1, 65536], got " + std::to_string(c.head_dim));
  require(c.kv_heads >= 0 && c.kv_heads <= c.n_heads && (c.kv_heads == 0 || c.n_heads % c.kv_heads == 0),
          "model config: kv_heads must be 0 (n_heads) or divide n_heads (" + std::to_string(c.n_heads) + "), got " +
              std::to_string(c.kv_heads));
  require(c.max_positions >= 0 && c.max_positions <= 1 << 24,
          "model config: max_positions must be 0 (unbounded) or in [1, 16777216], got " +
              std::to_string(c.max_positions));
  require(c.max_positions == 0 || c.learned_positions == 0,
          "model config: max_positions bounds a model without learned positions (learned_positions bounds the others)");
  if (c.rotary) {
    validate(c.rope, c.head_size(), "model config: rotary");
    require(c.learned_positions == 0 && !c.relative_positions,
            "model config: rotary positions replace learned and relative positions (a model has one kind)");
  }
  require(!c.qk_norm || c.norm_type == NormType::Rms, "model config: qk_norm (an RMSNorm per head) belongs to a "
                                                       "model whose norm_type is \"rms\"");
  require(!c.relative_positions || (c.kv_heads == 0 && c.head_dim == 0 && c.attention_qkv_bias &&
                                    c.attention_out_bias && !c.qk_norm),
          "model config: relative_positions (Transformer-XL's) need full heads of d_model / n_heads with biases "
          "and no qk_norm (kv_heads and head_dim 0, attention biases true)");
  require(c.prompt_bos || c.architecture == Architecture::DecoderOnly,
          "model config: prompt_bos false belongs to a decoder-only model");
  require(c.sliding_window >= 0 && (c.sliding_window == 0 || (c.max_positions > 0 && c.max_positions <= c.sliding_window)),
          "model config: a sliding_window caps max_positions at the window (0 < max_positions <= sliding_window)");
  for (int id : c.extra_eos_ids)
    require(id >= 0 && id < std::max(c.src_vocab_size, c.tgt_vocab_size) && id != c.eos_id,
            "model config: extra_eos_ids must be token ids of the vocabulary other than eos_id, got " +
                std::to_string(id));
  for (auto [rate, field] : {std::pair{c.dropout, "dropout"}, {c.attention_dropout, "attention_dropout"},
                             {c.activation_dropout, "activation_dropout"}, {c.embedding_dropout, "embedding_dropout"}})
    require(rate >= 0.0f && rate < 1.0f, std::string("model config: ") + field + " must be in [0, 1)");
  require(c.layer_norm_eps > 0.0f, "model config: layer_norm_eps must be positive");
  require(!one_stack || c.tie_embeddings != EmbeddingTying::All,
          "model config: tie_embeddings \"all\" ties two stacks' embeddings; a one-stack model has one (use "
          "\"target_output\" to tie it to the output layer)");
  require(c.tie_embeddings != EmbeddingTying::All || c.src_vocab_size == c.tgt_vocab_size,
          "model config: tie_embeddings \"all\" needs src_vocab_size == tgt_vocab_size");
  require(c.has_decoder() || (c.tie_embeddings == EmbeddingTying::None && !c.output_bias),
          "model config: an encoder-only model has no output layer (tie_embeddings \"none\", output_bias false)");
  require(c.positions == kernels::SinusoidLayout::Interleaved || c.d_model % 2 == 0,
          "model config: positions \"" + std::string(layout_name(c.positions)) + "\" needs an even d_model");
  require(c.positions != kernels::SinusoidLayout::Tensor2Tensor || c.d_model >= 4,
          "model config: positions \"tensor2tensor\" needs d_model >= 4");
  require(c.position_offset >= 0 && c.position_offset <= 1 << 20,
          "model config: position_offset must be in [0, 1048576], got " + std::to_string(c.position_offset));
  require(c.learned_positions == 0 || (c.learned_positions > c.position_offset && c.learned_positions <= 1 << 20),
          "model config: learned_positions must be 0 (sinusoids) or in (position_offset, 1048576], got " +
              std::to_string(c.learned_positions));
  const bool encoder_only = c.architecture == Architecture::EncoderOnly;
  require(c.token_types >= 0 && c.token_types <= 1 << 16,
          "model config: token_types must be in [0, 65536], got " + std::to_string(c.token_types));
  require(encoder_only || (c.token_types == 0 && !c.mlm_head && c.mask_id == -1 && c.labels == 0),
          "model config: token_types, mlm_head, mask_id and labels are an encoder-only model's");
  require(c.labels >= 0 && c.labels <= 1 << 20, "model config: labels must be in [0, 1048576]");
  require(!(c.mlm_head && c.labels > 0), "model config: a model has one head: mlm_head or labels, not both");
  require(c.labels > 0 || (!c.multi_label && c.pooling == Pooling::Mean && !c.sentence_pairs),
          "model config: pooling, multi_label and sentence_pairs belong to a classifier (labels > 0)");
  require(!c.relative_positions || (c.architecture == Architecture::DecoderOnly && c.learned_positions == 0),
          "model config: relative_positions (Transformer-XL's) belong to a decoder-only model without learned "
          "positions");
  require(!c.relative_positions || c.d_model % 2 == 0,
          "model config: relative_positions need an even d_model (the distances' [sin | cos] halves)");
  require(c.clamp_length >= 0, "model config: clamp_length must be 0 (none) or positive");
  require(c.relative_positions || (c.clamp_length == 0 && !c.untie_relative),
          "model config: clamp_length and untie_relative belong to relative_positions");
  require(c.memory_length >= 0, "model config: memory_length must be 0 (none) or positive");
  require(c.relative_buckets >= 0 && c.relative_buckets % 2 == 0 && c.relative_buckets <= 1 << 16,
          "model config: relative_buckets must be 0 (none) or an even number up to 65536, got " +
              std::to_string(c.relative_buckets));
  require(c.relative_buckets == 0 ||
              (c.learned_positions == 0 && !c.relative_positions && !c.rotary && c.relative_buckets >= 4 &&
               c.relative_max_distance > c.relative_buckets / 2 && c.relative_max_distance <= 1 << 24),
          "model config: relative_buckets (T5's relative position bias) replace learned, relative and rotary "
          "positions, and need at least 4 buckets and a relative_max_distance above half of them");
  require(c.relative_buckets > 0 || c.relative_max_distance == ModelConfig{}.relative_max_distance,
          "model config: relative_max_distance belongs to relative_buckets");
  require(!c.scale_output || c.has_decoder(), "model config: scale_output scales a decoder's output");
  require(!c.final_norm_dropout || c.has_final_norm(), "model config: final_norm_dropout needs a final norm");
  require(c.tie_embeddings != EmbeddingTying::Embeddings || (c.architecture == Architecture::EncoderDecoder &&
                                                             c.src_vocab_size == c.tgt_vocab_size),
          "model config: tie_embeddings \"embeddings\" shares an encoder-decoder's two embeddings (src_vocab_size "
          "== tgt_vocab_size)");
  require(c.relative_positions || c.memory_length == 0,
          "model config: memory_length (Transformer-XL's segment memory) needs relative_positions");
  require(!c.pooler || (encoder_only && c.labels == 0),
          "model config: pooler (a pre-trained encoder's [CLS] pooler) belongs to an encoder-only model without a "
          "classifier (a classifier's pooling says whether it has one)");
  require(c.pooling == Pooling::Mean || c.pooling == Pooling::Cls,
          "model config: a classifier's pooling is mean or cls (the other modes pool embeddings)");
  require(encoder_only || (!c.double_separator && !c.relu_pooler && c.embed_pooling == ModelConfig{}.embed_pooling &&
                           !c.embed_normalize && c.max_input_tokens == 0 && c.embed_dense_features == 0),
          "model config: double_separator, relu_pooler, embed_pooling, embed_normalize, max_input_tokens and "
          "embed_dense_features are an encoder-only model's");
  require(!c.embed_pooling.empty() &&
              std::adjacent_find(c.embed_pooling.begin(), c.embed_pooling.end(), [](Pooling a, Pooling b) {
                return pooling_rank(a) >= pooling_rank(b);
              }) == c.embed_pooling.end(),
          "model config: embed_pooling names each mode once, in the order cls, max, mean, mean_sqrt_len, "
          "weightedmean, lasttoken");
  require(c.embed_dense_features >= 0 && c.embed_dense_features <= 1 << 20,
          "model config: embed_dense_features must be in [0, 1048576]");
  require(c.embed_dense_features > 0 || (c.embed_dense_bias && !c.embed_dense_tanh),
          "model config: embed_dense_bias and embed_dense_tanh belong to embed_dense_features");
  require(c.max_input_tokens == 0 || c.max_input_tokens >= 3,
          "model config: max_input_tokens must be 0 (the learned positions) or at least 3");
  require(c.mlm_head == (c.mask_id >= 0), "model config: the masked-language-model head (mlm_head) and its mask_id "
                                          "go together");
  require(c.mask_id < 0 || (c.mask_id < c.src_vocab_size && c.mask_id != c.pad_id),
          "model config: mask_id must be a token id of the vocabulary other than pad_id");
  // A language model reads no padding (GPT-2 has no padding token and pads with its end token).
  require(c.pad_id != c.eos_id || c.architecture == Architecture::DecoderOnly,
          "model config: pad_id and eos_id must differ");
  for (auto [id, field] : {std::pair{c.pad_id, "pad_id"}, {c.bos_id, "bos_id"}, {c.eos_id, "eos_id"}})
    require(id >= 0 && (!c.has_decoder() || id < c.tgt_vocab_size) && (!c.has_encoder() || id < c.src_vocab_size),
            std::string("model config: ") + field + " must be a valid token id in " +
                (one_stack ? "the vocabulary" : "both vocabularies"));
  validate_lora(c);
}

std::string to_json(const ModelConfig& c) {
  json j;
  if (c.architecture == Architecture::EncoderDecoder) {
    j = {{"src_vocab_size", c.src_vocab_size}, {"tgt_vocab_size", c.tgt_vocab_size}};
  } else {
    const bool decoder = c.has_decoder();
    j = {{"architecture", architecture_name(c.architecture)},
         {"vocab_size", decoder ? c.tgt_vocab_size : c.src_vocab_size}};
  }
  j.update(json{{"d_model", c.d_model}, {"n_heads", c.n_heads}, {"d_ff", c.d_ff}});
  if (c.architecture == Architecture::EncoderDecoder)
    j.update(json{{"encoder_layers", c.encoder_layers}, {"decoder_layers", c.decoder_layers}});
  else
    j["layers"] = c.has_decoder() ? c.decoder_layers : c.encoder_layers;
  j.update(json{
            {"dropout", c.dropout},
            {"attention_dropout", c.attention_dropout},
            {"activation_dropout", c.activation_dropout},
            {"embedding_dropout", c.embedding_dropout},
            {"norm", norm_name(c.norm)},
            {"final_norm", c.final_norm},
            {"layer_norm_eps", c.layer_norm_eps},
            {"tie_embeddings", tying_name(c.tie_embeddings)},
            {"output_bias", c.output_bias},
            {"pad_id", c.pad_id},
            {"bos_id", c.bos_id},
            {"eos_id", c.eos_id}});
  // The newer fields only where they differ from the paper, so that earlier builds still read paper models
  // (and refuse the others, naming the field).
  const ModelConfig paper;
  if (c.activation != paper.activation) j["activation"] = activation_name(c.activation);
  if (c.scale_embeddings != paper.scale_embeddings) j["scale_embeddings"] = c.scale_embeddings;
  if (c.positions != paper.positions) j["positions"] = layout_name(c.positions);
  if (c.position_offset != paper.position_offset) j["position_offset"] = c.position_offset;
  if (c.source_eos != paper.source_eos) j["source_eos"] = c.source_eos;
  if (c.learned_positions != paper.learned_positions) j["learned_positions"] = c.learned_positions;
  if (c.token_types != paper.token_types) j["token_types"] = c.token_types;
  if (c.embedding_norm != paper.embedding_norm) j["embedding_norm"] = c.embedding_norm;
  if (c.mlm_head != paper.mlm_head) j["mlm_head"] = c.mlm_head;
  if (c.mask_id != paper.mask_id) j["mask_id"] = c.mask_id;
  if (c.labels != paper.labels) j["labels"] = c.labels;
  if (c.pooling != paper.pooling) j["pooling"] = pooling_name(c.pooling);
  if (c.multi_label != paper.multi_label) j["multi_label"] = c.multi_label;
  if (c.sentence_pairs != paper.sentence_pairs) j["sentence_pairs"] = c.sentence_pairs;
  if (c.pooler != paper.pooler) j["pooler"] = c.pooler;
  if (c.double_separator != paper.double_separator) j["double_separator"] = c.double_separator;
  if (c.relu_pooler != paper.relu_pooler) j["relu_pooler"] = c.relu_pooler;
  if (c.embed_pooling != paper.embed_pooling) j["embed_pooling"] = pooling_names(c.embed_pooling);
  if (c.embed_normalize != paper.embed_normalize) j["embed_normalize"] = c.embed_normalize;
  if (c.max_input_tokens != paper.max_input_tokens) j["max_input_tokens"] = c.max_input_tokens;
  if (c.embed_dense_features != paper.embed_dense_features) j["embed_dense_features"] = c.embed_dense_features;
  if (c.embed_dense_bias != paper.embed_dense_bias) j["embed_dense_bias"] = c.embed_dense_bias;
  if (c.embed_dense_tanh != paper.embed_dense_tanh) j["embed_dense_tanh"] = c.embed_dense_tanh;
  if (c.relative_positions != paper.relative_positions) j["relative_positions"] = c.relative_positions;
  if (c.clamp_length != paper.clamp_length) j["clamp_length"] = c.clamp_length;
  if (c.untie_relative != paper.untie_relative) j["untie_relative"] = c.untie_relative;
  if (c.memory_length != paper.memory_length) j["memory_length"] = c.memory_length;
  if (c.norm_type != paper.norm_type) j["norm_type"] = norm_type_name(c.norm_type);
  if (c.kv_heads != paper.kv_heads) j["kv_heads"] = c.kv_heads;
  if (c.head_dim != paper.head_dim) j["head_dim"] = c.head_dim;
  if (c.gated_ffn != paper.gated_ffn) j["gated_ffn"] = c.gated_ffn;
  if (c.attention_qkv_bias != paper.attention_qkv_bias) j["attention_qkv_bias"] = c.attention_qkv_bias;
  if (c.attention_out_bias != paper.attention_out_bias) j["attention_out_bias"] = c.attention_out_bias;
  if (c.ffn_bias != paper.ffn_bias) j["ffn_bias"] = c.ffn_bias;
  if (c.qk_norm != paper.qk_norm) j["qk_norm"] = c.qk_norm;
  if (c.rotary) {
    json r = {{"theta", c.rope.theta}, {"dims", c.rope.dims}, {"scaling", rope_scaling_name(c.rope.scaling)}};
    if (c.rope.scaling != RopeScaling::None) r["factor"] = c.rope.factor;
    if (c.rope.scaling == RopeScaling::Dynamic || c.rope.scaling == RopeScaling::Llama3)
      r["original_positions"] = c.rope.original_positions;
    if (c.rope.scaling == RopeScaling::Llama3) {
      r["low_freq_factor"] = c.rope.low_freq_factor;
      r["high_freq_factor"] = c.rope.high_freq_factor;
    }
    j["rotary"] = r;
  }
  if (c.max_positions != paper.max_positions) j["max_positions"] = c.max_positions;
  if (c.sliding_window != paper.sliding_window) j["sliding_window"] = c.sliding_window;
  if (c.prompt_bos != paper.prompt_bos) j["prompt_bos"] = c.prompt_bos;
  if (c.relative_buckets != paper.relative_buckets) j["relative_buckets"] = c.relative_buckets;
  if (c.relative_max_distance != paper.relative_max_distance) j["relative_max_distance"] = c.relative_max_distance;
  if (c.scale_attention != paper.scale_attention) j["scale_attention"] = c.scale_attention;
  if (c.scale_output != paper.scale_output) j["scale_output"] = c.scale_output;
  if (c.final_norm_dropout != paper.final_norm_dropout) j["final_norm_dropout"] = c.final_norm_dropout;
  if (!c.extra_eos_ids.empty()) j["extra_eos_ids"] = c.extra_eos_ids;
  if (c.lora.enabled()) {
    j["lora"] = json{{"rank", c.lora.rank}, {"alpha", c.lora.alpha}, {"targets", c.lora.targets}};
    if (c.lora.dropout > 0) j["lora"]["dropout"] = c.lora.dropout;
  }
  return j.dump();
}

ModelConfig model_config_from_json(const std::string& text, const std::string& where) {
  json j = json::parse(text, nullptr, false);
  require(!j.is_discarded() && j.is_object(), where + ": model config is not a JSON object");
  ModelConfig c;
  std::set<std::string> seen;
  auto field = [&](const char* name) -> const json& {
    require(j.contains(name), where + ": model config is missing field \"" + name + "\"");
    seen.insert(name);
    return j.at(name);
  };
  auto get_int = [&](const char* name, int& out) {
    const json& v = field(name);
    require(v.is_number_integer(), where + ": model config field \"" + name + "\" must be an integer");
    constexpr std::int64_t lo = std::numeric_limits<int>::min(), hi = std::numeric_limits<int>::max();
    require(v.is_number_unsigned() ? v.get<std::uint64_t>() <= static_cast<std::uint64_t>(hi)
                                   : v.get<std::int64_t>() >= lo && v.get<std::int64_t>() <= hi,
            where + ": model config field \"" + name + "\" is out of range");
    out = v.get<int>();
  };
  auto get_float = [&](const char* name, float& out) {
    const json& v = field(name);
    require(v.is_number(), where + ": model config field \"" + name + "\" must be a number");
    require(std::abs(v.get<double>()) <= std::numeric_limits<float>::max(),
            where + ": model config field \"" + name + "\" is out of range");
    out = v.get<float>();
  };
  auto get_bool = [&](const char* name, bool& out) {
    const json& v = field(name);
    require(v.is_boolean(), where + ": model config field \"" + name + "\" must be true or false");
    out = v.get<bool>();
  };
  auto get_string = [&](const char* name) {
    const json& v = field(name);
    require(v.is_string(), where + ": model config field \"" + name + "\" must be a string");
    return v.get<std::string>();
  };
  if (j.contains("architecture"))
    c.architecture = architecture_from_name(get_string("architecture"), where + ": model config field \"architecture\"");
  if (c.architecture == Architecture::EncoderDecoder) {
    get_int("src_vocab_size", c.src_vocab_size);
    get_int("tgt_vocab_size", c.tgt_vocab_size);
    get_int("encoder_layers", c.encoder_layers);
    get_int("decoder_layers", c.decoder_layers);
  } else {
    const bool decoder = c.has_decoder();
    int vocab = 0, layers = 0;
    get_int("vocab_size", vocab);
    get_int("layers", layers);
    c = one_stack_config(c, c.architecture, vocab);
    (decoder ? c.decoder_layers : c.encoder_layers) = layers;
  }
  get_int("d_model", c.d_model);
  get_int("n_heads", c.n_heads);
  get_int("d_ff", c.d_ff);
  get_float("dropout", c.dropout);
  get_float("attention_dropout", c.attention_dropout);
  get_float("activation_dropout", c.activation_dropout);
  get_float("embedding_dropout", c.embedding_dropout);
  c.norm = norm_from_name(get_string("norm"), where + ": model config field \"norm\"");
  get_bool("final_norm", c.final_norm);
  get_float("layer_norm_eps", c.layer_norm_eps);
  c.tie_embeddings = tying_from_name(get_string("tie_embeddings"), where + ": model config field \"tie_embeddings\"");
  get_bool("output_bias", c.output_bias);
  // Fields newer than the first model files: absent means the paper's choice.
  if (j.contains("activation")) {
    c.activation = activation_from_name(get_string("activation"), where + ": model config field \"activation\"");
  }
  if (j.contains("scale_embeddings")) get_bool("scale_embeddings", c.scale_embeddings);
  if (j.contains("positions")) {
    const std::string l = get_string("positions");
    if (l == "interleaved") c.positions = kernels::SinusoidLayout::Interleaved;
    else if (l == "halves") c.positions = kernels::SinusoidLayout::Halves;
    else if (l == "tensor2tensor") c.positions = kernels::SinusoidLayout::Tensor2Tensor;
    else throw Error(where + ": model config field \"positions\" must be \"interleaved\", \"halves\" or \"tensor2tensor\"");
  }
  if (j.contains("position_offset")) get_int("position_offset", c.position_offset);
  if (j.contains("source_eos")) get_bool("source_eos", c.source_eos);
  if (j.contains("learned_positions")) get_int("learned_positions", c.learned_positions);
  if (j.contains("token_types")) get_int("token_types", c.token_types);
  if (j.contains("embedding_norm")) get_bool("embedding_norm", c.embedding_norm);
  if (j.contains("mlm_head")) get_bool("mlm_head", c.mlm_head);
  if (j.contains("mask_id")) get_int("mask_id", c.mask_id);
  if (j.contains("labels")) get_int("labels", c.labels);
  if (j.contains("pooling")) c.pooling = pooling_from_name(get_string("pooling"), where + ": model config field \"pooling\"");
  if (j.contains("multi_label")) get_bool("multi_label", c.multi_label);
  if (j.contains("sentence_pairs")) get_bool("sentence_pairs", c.sentence_pairs);
  if (j.contains("pooler")) get_bool("pooler", c.pooler);
  if (j.contains("double_separator")) get_bool("double_separator", c.double_separator);
  if (j.contains("relu_pooler")) get_bool("relu_pooler", c.relu_pooler);
  if (j.contains("embed_pooling"))
    c.embed_pooling = poolings_from_names(get_string("embed_pooling"), where + ": model config field \"embed_pooling\"");
  if (j.contains("embed_normalize")) get_bool("embed_normalize", c.embed_normalize);
  if (j.contains("max_input_tokens")) get_int("max_input_tokens", c.max_input_tokens);
  if (j.contains("embed_dense_features")) get_int("embed_dense_features", c.embed_dense_features);
  if (j.contains("embed_dense_bias")) get_bool("embed_dense_bias", c.embed_dense_bias);
  if (j.contains("embed_dense_tanh")) get_bool("embed_dense_tanh", c.embed_dense_tanh);
  if (j.contains("relative_positions")) get_bool("relative_positions", c.relative_positions);
  if (j.contains("clamp_length")) get_int("clamp_length", c.clamp_length);
  if (j.contains("untie_relative")) get_bool("untie_relative", c.untie_relative);
  if (j.contains("memory_length")) get_int("memory_length", c.memory_length);
  if (j.contains("norm_type"))
    c.norm_type = norm_type_from_name(get_string("norm_type"), where + ": model config field \"norm_type\"");
  if (j.contains("kv_heads")) get_int("kv_heads", c.kv_heads);
  if (j.contains("head_dim")) get_int("head_dim", c.head_dim);
  if (j.contains("gated_ffn")) get_bool("gated_ffn", c.gated_ffn);
  if (j.contains("attention_qkv_bias")) get_bool("attention_qkv_bias", c.attention_qkv_bias);
  if (j.contains("attention_out_bias")) get_bool("attention_out_bias", c.attention_out_bias);
  if (j.contains("ffn_bias")) get_bool("ffn_bias", c.ffn_bias);
  if (j.contains("qk_norm")) get_bool("qk_norm", c.qk_norm);
  if (j.contains("rotary")) {
    c.rotary = true;
    c.rope = rotary_from_json(field("rotary"), where + ": model config field \"rotary\"");
  }
  if (j.contains("max_positions")) get_int("max_positions", c.max_positions);
  if (j.contains("sliding_window")) get_int("sliding_window", c.sliding_window);
  if (j.contains("prompt_bos")) get_bool("prompt_bos", c.prompt_bos);
  if (j.contains("relative_buckets")) get_int("relative_buckets", c.relative_buckets);
  if (j.contains("relative_max_distance")) get_int("relative_max_distance", c.relative_max_distance);
  if (j.contains("scale_attention")) get_bool("scale_attention", c.scale_attention);
  if (j.contains("scale_output")) get_bool("scale_output", c.scale_output);
  if (j.contains("final_norm_dropout")) get_bool("final_norm_dropout", c.final_norm_dropout);
  if (j.contains("extra_eos_ids")) {
    const json& ids = field("extra_eos_ids");
    require(ids.is_array(), where + ": model config field \"extra_eos_ids\" must be an array of token ids");
    for (const json& id : ids) {
      require(id.is_number_integer() && id.get<std::int64_t>() >= 0 && id.get<std::int64_t>() < (1LL << 31),
              where + ": model config field \"extra_eos_ids\" must be an array of token ids");
      c.extra_eos_ids.push_back(id.get<int>());
    }
  }
  if (j.contains("lora")) {
    const json& l = field("lora");
    const std::string at = where + ": model config field \"lora\"";
    require(l.is_object() && l.size() == (l.contains("dropout") ? 4u : 3u) && l.contains("rank") &&
                l.contains("alpha") && l.contains("targets"),
            at + " must be an object of rank, alpha, targets (and dropout)");
    if (l.contains("dropout")) {
      require(l.at("dropout").is_number(), at + ": dropout must be a number");
      c.lora.dropout = l.at("dropout").get<float>();
    }
    require(l.at("rank").is_number_integer() && l.at("rank").get<std::int64_t>() > 0 &&
                l.at("rank").get<std::int64_t>() < (1LL << 30),
            at + ": rank must be a positive integer");
    require(l.at("alpha").is_number(), at + ": alpha must be a number");
    require(l.at("targets").is_array(), at + ": targets must be an array of names");
    c.lora.rank = l.at("rank").get<int>();
    c.lora.alpha = l.at("alpha").get<float>();
    c.lora.targets.clear();
    for (const json& t : l.at("targets")) {
      require(t.is_string(), at + ": targets must be an array of names");
      c.lora.targets.push_back(t.get<std::string>());
    }
  }
  get_int("pad_id", c.pad_id);
  get_int("bos_id", c.bos_id);
  get_int("eos_id", c.eos_id);
  for (const auto& item : j.items())
    require(seen.count(item.key()) > 0, where + ": model config has unknown field \"" + item.key() + "\"");
  try {
    validate(c);
  } catch (const Error& e) {
    throw Error(where + ": " + e.what());
  }
  return c;
}

ModelConfig model_preset(const std::string& name) {
  ModelConfig c;  // defaults are the paper's base model
  if (name == "base") return c;
  if (name == "big") {
    c.d_model = 1024;
    c.n_heads = 16;
    c.d_ff = 4096;
    c.dropout = c.attention_dropout = c.activation_dropout = c.embedding_dropout = 0.3f;
    return c;
  }
  if (name == "small") {
    c.d_model = 256;
    c.n_heads = 4;
    c.d_ff = 1024;
    c.encoder_layers = c.decoder_layers = 3;
    return c;
  }
  if (name == "tiny") {
    c.src_vocab_size = c.tgt_vocab_size = 64;
    c.d_model = 64;
    c.n_heads = 4;
    c.d_ff = 128;
    c.encoder_layers = c.decoder_layers = 2;
    c.dropout = c.attention_dropout = c.activation_dropout = c.embedding_dropout = 0.0f;
    return c;
  }
  throw Error("unknown model preset \"" + name + "\" (known: base, big, small, tiny)");
}

long long parameter_count(const ModelConfig& config) {
  long long n = 0;
  for (const auto& p : parameter_layout(config)) n += p.numel();
  return n;
}

}  // namespace heptapod
