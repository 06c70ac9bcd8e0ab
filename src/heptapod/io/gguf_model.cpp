// GGUF metadata to ModelConfig, GGUF tensors to Heptapod's parameters.
#include "heptapod/io/gguf_model.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstring>
#include <numbers>
#include <set>

#include "heptapod/core/error.h"
#include "heptapod/kernels/gguf_blocks.h"
#include "heptapod/model/inference_weights.h"
#include "heptapod/model/parameter_layout.h"

namespace heptapod {

namespace {

using kernels::GgmlType;

enum class Family { Gpt2, Llama, Qwen2, Qwen3 };

Family family_of(const GgufFile& g) {
  const std::string& arch = g.string("general.architecture");
  if (arch == "gpt2") return Family::Gpt2;
  if (arch == "llama") return Family::Llama;
  if (arch == "qwen2") return Family::Qwen2;
  if (arch == "qwen3") return Family::Qwen3;
  throw Error(g.where() + ": general.architecture \"" + arch +
              "\" is not one Heptapod reads (gpt2, llama (also Mistral), qwen2, qwen3)");
}

// A count the config holds as int.
int count(const GgufFile& g, const std::string& key, std::uint32_t value) {
  require(value <= static_cast<std::uint32_t>(INT_MAX), g.where() + ": " + key + " is implausibly large");
  return static_cast<int>(value);
}

// The architecture's keys ("llama.block_count"): required, or with a default.
struct ArchKeys {
  const GgufFile& g;
  std::string arch;
  std::string name(const char* key) const { return arch + "." + key; }
  int integer(const char* key) const { return count(g, name(key), g.u32(name(key))); }
  int integer(const char* key, int fallback) const {
    const auto v = g.optional_u32(name(key));
    return v ? count(g, name(key), *v) : fallback;
  }
  float number(const char* key) const { return g.f32(name(key)); }
  float number(const char* key, float fallback) const { return g.optional_f32(name(key)).value_or(fallback); }
};

// The token id under `key` (tokenizer.ggml.bos_token_id, ...), -1 when absent; one past the vocabulary is an Error.
int token_id(const GgufFile& g, const std::string& key, int vocab_size) {
  const auto id = g.optional_u32(key);
  if (!id) return -1;
  require(*id < static_cast<std::uint32_t>(vocab_size), g.where() + ": " + key + " " + std::to_string(*id) +
                                                            " is not a token id (the vocabulary has " +
                                                            std::to_string(vocab_size) + " tokens)");
  return static_cast<int>(*id);
}

// The tokens llama.cpp ends a generation at by their text (llama-vocab.cpp's end-of-generation list) besides
// the eos, eot and eom ids: how LLaMA 3's <|eot_id|> and Qwen's <|endoftext|> end a turn.
constexpr const char* kEndOfGenerationTexts[] = {"<|eot_id|>", "<|im_end|>", "<|end|>", "<end_of_turn>",
                                                 "<|endoftext|>", "<|eom_id|>", "<EOT>", "_<EOT>"};

// eos_id, the other end tokens (eot, eom, and control tokens of the list above, by id), the start token and
// padding: as the safetensors import settles them from config.json, generation_config.json and the tokenizer.
void token_ids(const GgufFile& g, ModelConfig& c) {
  const std::vector<std::string> tokens = g.strings("tokenizer.ggml.tokens");
  const int n = static_cast<int>(tokens.size());
  const int eos = token_id(g, "tokenizer.ggml.eos_token_id", n);
  require(eos >= 0, g.where() + ": no tokenizer.ggml.eos_token_id (a decoder needs its end token)");
  c.eos_id = eos;
  std::set<int> ends;
  for (const char* key : {"tokenizer.ggml.eot_token_id", "tokenizer.ggml.eom_token_id"})
    if (const int id = token_id(g, key, n); id >= 0) ends.insert(id);
  std::vector<std::int32_t> types;
  if (g.find("tokenizer.ggml.token_type")) types = g.i32s("tokenizer.ggml.token_type");
  for (int id = 0; id < n; ++id) {
    const bool control = id < static_cast<int>(types.size()) && types[static_cast<std::size_t>(id)] == 3;
    for (const char* text : kEndOfGenerationTexts)
      if (control && tokens[static_cast<std::size_t>(id)] == text) ends.insert(id);
  }
  ends.erase(eos);
  c.extra_eos_ids.assign(ends.begin(), ends.end());
  const int bos = token_id(g, "tokenizer.ggml.bos_token_id", n);
  c.bos_id = bos >= 0 ? bos : eos;
  // llama.cpp's default where the file does not say: SentencePiece ("llama") adds its start token.
  const bool spm = g.optional_string("tokenizer.ggml.model") == "llama";
  c.prompt_bos = bos >= 0 && g.optional_boolean("tokenizer.ggml.add_bos_token").value_or(spm);
  const int pad = token_id(g, "tokenizer.ggml.padding_token_id", n);
  c.pad_id = pad >= 0 ? pad : eos;
}

// Pairs of frequencies i of a head of `dims` rotated columns: 2 pi / theta^(-2i / dims).
double wavelength(double theta, int dims, int i) { return 2.0 * std::numbers::pi * std::pow(theta, 2.0 * i / dims); }

// The llama3 rope scaling whose per-pair divisors (1 for the high frequencies, factor for the low ones, a blend
// between) are `divisors`: LLaMA 3.1's rope_freqs tensor, which llama.cpp's converter computes from
// rope_scaling and stores instead of it. Only the ratios original / low and original / high shape the
// divisors, so low_freq_factor is taken as 1 (LLaMA 3.1's) and original and high fitted to the blended pairs;
// the result must give every stored divisor back, or the tensor is refused.
void llama3_from_rope_freqs(const std::vector<float>& divisors, RotaryConfig& rope, int dims,
                            const std::string& where) {
  const double factor = *std::max_element(divisors.begin(), divisors.end());
  auto same = [](double a, double b) { return std::abs(a - b) <= 1e-5 * std::abs(b); };
  if (same(factor, 1.0)) return;  // no scaling
  // Blended pairs: s = (1/d - 1/factor) / (1 - 1/factor) = (original / wavelength - 1) / (high - 1).
  std::vector<std::pair<double, double>> blended;  // (1 / wavelength, s)
  for (std::size_t i = 0; i < divisors.size(); ++i) {
    const double d = divisors[i];
    if (same(d, 1.0) || same(d, factor)) continue;
    blended.emplace_back(1.0 / wavelength(rope.theta, dims, static_cast<int>(i)),
                         (1.0 / d - 1.0 / factor) / (1.0 - 1.0 / factor));
  }
  RotaryConfig fitted = rope;
  fitted.scaling = RopeScaling::Llama3;
  fitted.factor = factor;
  fitted.low_freq_factor = 1.0;
  if (blended.size() >= 2) {
    // original * x - (high - 1) * s = 1, least squares in (original, high - 1).
    double xx = 0, xs = 0, ss = 0, x1 = 0, s1 = 0;
    for (const auto& [x, s] : blended) {
      xx += x * x, xs += x * s, ss += s * s, x1 += x, s1 += s;
    }
    const double det = xx * (-ss) + xs * xs;
    require(det != 0, where + ": rope_freqs: its blended divisors fit no llama3 rope scaling");
    const double original = (x1 * -ss + s1 * xs) / det;
    fitted.original_positions = static_cast<int>(std::lround(original));
    double num = 0, den = 0;  // high - 1 for the rounded original
    for (const auto& [x, s] : blended) num += s * (fitted.original_positions * x - 1), den += s * s;
    fitted.high_freq_factor = 1.0 + num / den;
  } else if (blended.size() == 1) {
    fitted.high_freq_factor = 4.0;  // LLaMA 3.1's; one blended pair fixes the original context then
    fitted.original_positions = static_cast<int>(std::lround((1.0 + blended[0].second * 3.0) / blended[0].first));
  } else {
    throw Error(where + ": rope_freqs holds only the divisors 1 and " + std::to_string(factor) +
                ", which fix no llama3 rope scaling (Heptapod's rotary config cannot hold an arbitrary table)");
  }
  // A short decimal where it gives the divisors as well (LLaMA 3.1's 4.0).
  const double rounded = std::round(fitted.high_freq_factor * 1e5) / 1e5;
  const std::vector<double> plain = [&] {
    RotaryConfig none = rope;
    none.scaling = RopeScaling::None;
    return rotary_frequencies(none, dims, 0);
  }();
  auto gives_back = [&](const RotaryConfig& r) {
    if (!(r.high_freq_factor > r.low_freq_factor) || r.original_positions <= 0) return false;
    const std::vector<double> scaled = rotary_frequencies(r, dims, 0);
    for (std::size_t i = 0; i < divisors.size(); ++i)
      if (!same(plain[i] / scaled[i], divisors[i])) return false;
    return true;
  };
  RotaryConfig tidy = fitted;
  tidy.high_freq_factor = rounded;
  if (gives_back(tidy)) fitted = tidy;
  require(gives_back(fitted), where + ": rope_freqs holds per-pair divisors that no llama3 rope scaling gives "
                                      "(Heptapod's rotary config cannot hold an arbitrary table)");
  rope = fitted;
}

RotaryConfig rotary_config(const GgufFile& g, const ArchKeys& k, Family family, int head_size) {
  RotaryConfig rope;
  rope.theta = k.number("rope.freq_base", 10000.0f);
  const int dims = k.integer("rope.dimension_count", head_size);
  require(dims > 0 && dims <= head_size, g.where() + ": " + k.name("rope.dimension_count") + " " +
                                             std::to_string(dims) + " does not fit the head size " +
                                             std::to_string(head_size));
  require(family != Family::Llama || dims == head_size,
          g.where() + ": " + k.name("rope.dimension_count") + " below the head size: llama.cpp's q/k row order "
                      "of a partly rotated llama head is not supported");
  rope.dims = dims < head_size ? dims : 0;
  const std::string type = g.optional_string(k.name("rope.scaling.type")).value_or("none");
  if (type == "linear" || type == "dynamic") {
    rope.scaling = type == "linear" ? RopeScaling::Linear : RopeScaling::Dynamic;
    rope.factor = k.number("rope.scaling.factor");
    if (rope.scaling == RopeScaling::Dynamic)
      rope.original_positions = k.integer("rope.scaling.original_context_length", k.integer("context_length"));
  } else {
    require(type == "none", g.where() + ": " + k.name("rope.scaling.type") + " \"" + type +
                                "\" is not supported (Heptapod has none, linear, dynamic and LLaMA 3's rope_freqs)");
  }
  if (const GgufTensor* freqs = g.find_tensor("rope_freqs.weight")) {
    require(rope.scaling == RopeScaling::None,
            g.where() + ": rope_freqs with " + k.name("rope.scaling.type") + " \"" + type + "\"");
    require(freqs->type == GgmlType::F32 && freqs->shape == std::vector<std::int64_t>{dims / 2},
            g.where() + ": tensor rope_freqs.weight must be F32 of shape (" + std::to_string(dims / 2) + ")");
    std::vector<float> divisors(static_cast<std::size_t>(dims / 2));
    std::memcpy(divisors.data(), g.data(*freqs), divisors.size() * 4);
    g.check_intact();
    for (float d : divisors)
      require(std::isfinite(d) && d >= 1, g.where() + ": rope_freqs.weight holds a divisor below 1 or not finite");
    llama3_from_rope_freqs(divisors, rope, dims, g.where());
  }
  validate(rope, head_size, g.where() + ": rope");
  return rope;
}

}  // namespace

ModelConfig gguf_model_config(const GgufFile& g) {
  const Family family = family_of(g);
  const ArchKeys k{g, g.string("general.architecture")};
  const int vocab = static_cast<int>(g.strings("tokenizer.ggml.tokens").size());
  ModelConfig c = one_stack_config(ModelConfig{}, Architecture::DecoderOnly, vocab);
  c.d_model = k.integer("embedding_length");
  c.decoder_layers = k.integer("block_count");
  c.n_heads = k.integer("attention.head_count");
  require(c.n_heads > 0, g.where() + ": " + k.name("attention.head_count") + " must be positive");
  c.d_ff = k.integer("feed_forward_length");
  c.norm = NormPosition::Pre;
  c.scale_embeddings = false;
  c.output_bias = false;
  if (family == Family::Gpt2) {
    // GPT-2's class defaults where config.json has nothing else (gpt2_model_config).
    c.learned_positions = k.integer("context_length");
    c.position_offset = 0;
    c.layer_norm_eps = k.number("attention.layer_norm_epsilon");
    c.tie_embeddings = EmbeddingTying::TargetOutput;
    c.dropout = c.embedding_dropout = c.attention_dropout = 0.1f;
    c.activation_dropout = 0.0f;
    c.activation = Activation::GeluTanh;
  } else {
    const int kv = k.integer("attention.head_count_kv", c.n_heads);
    c.kv_heads = kv == c.n_heads ? 0 : kv;
    const int head_dim = k.integer("attention.key_length", c.d_model % c.n_heads == 0 ? c.d_model / c.n_heads : 0);
    require(k.integer("attention.value_length", head_dim) == head_dim,
            g.where() + ": " + k.name("attention.value_length") + " differs from the key length");
    c.head_dim = head_dim > 0 && (c.d_model % c.n_heads != 0 || head_dim != c.d_model / c.n_heads) ? head_dim : 0;
    c.norm_type = NormType::Rms;
    c.layer_norm_eps = k.number("attention.layer_norm_rms_epsilon");
    c.gated_ffn = true;
    c.activation = Activation::Silu;
    c.attention_qkv_bias = g.find_tensor("blk.0.attn_q.bias") != nullptr;
    c.attention_out_bias = g.find_tensor("blk.0.attn_output.bias") != nullptr;
    c.ffn_bias = g.find_tensor("blk.0.ffn_up.bias") != nullptr;
    c.qk_norm = family == Family::Qwen3;
    c.rotary = true;
    c.rope = rotary_config(g, k, family, c.head_size());
    const int context = k.integer("context_length");
    c.max_positions = c.rope.scaling == RopeScaling::Dynamic ? 0 : context;
    // A window in force caps the context, as the safetensors import does (io/llama_import.h).
    const int window = k.integer("attention.sliding_window", 0);
    if (window > 0 && (c.max_positions == 0 || window < c.max_positions)) {
      c.sliding_window = window;
      c.max_positions = window;
    }
    c.tie_embeddings = g.find_tensor("output.weight") ? EmbeddingTying::None : EmbeddingTying::TargetOutput;
    c.dropout = c.embedding_dropout = c.activation_dropout = c.attention_dropout = 0.0f;
  }
  token_ids(g, c);
  // GPT-2's sequences begin with its <|endoftext|>, as the safetensors import has them (gpt2_model_config).
  if (family == Family::Gpt2) c.prompt_bos = true;
  try {
    validate(c);
  } catch (const Error& e) {
    throw Error(g.where() + ": " + e.what());
  }
  return c;
}

namespace {

// A part of a GGUF tensor that is one parameter of ours: rows [first, first + rows) of it.
struct Source {
  const GgufTensor* tensor = nullptr;
  std::int64_t first = 0, rows = 0;
  int permute_heads = 0;  // > 0: llama.cpp's rotary row order over this many heads, undone
};

// GGUF's module names in a block ("blk.<i>.") -> ours.
constexpr std::pair<const char*, Module> kBlockModules[] = {
    {"attn_norm", Module::SelfAttnNorm},   {"attn_q", Module::SelfAttnQuery},
    {"attn_k", Module::SelfAttnKey},       {"attn_v", Module::SelfAttnValue},
    {"attn_output", Module::SelfAttnOutput}, {"attn_q_norm", Module::SelfAttnQueryNorm},
    {"attn_k_norm", Module::SelfAttnKeyNorm}, {"ffn_norm", Module::FfnNorm},
    {"ffn_gate", Module::FfnGate},         {"ffn_up", Module::FfnIn},
    {"ffn_down", Module::FfnOut},
};

// Where each parameter of `specs` comes from; every GGUF tensor must be used (rope_freqs by the config).
std::map<std::string, Source> sources(const GgufFile& g, const ModelConfig& c, Family family,
                                      const std::vector<ParamSpec>& specs) {
  std::set<std::string> wanted;
  for (const ParamSpec& s : specs) wanted.insert(s.name);
  std::map<std::string, Source> out;
  std::set<std::string> used = {"rope_freqs.weight"};
  auto whole = [&](const std::string& theirs, const std::string& ours, int permute = 0) {
    if (!wanted.count(ours)) return;  // left unused: refused below if the file has it
    const GgufTensor* t = g.find_tensor(theirs);
    require(t != nullptr, g.where() + ": missing tensor \"" + theirs + "\" (the parameter " + ours + ")");
    const std::int64_t rows = t->shape.empty() ? 0 : t->shape[0];
    out[ours] = {t, 0, rows, permute};
    used.insert(theirs);
  };
  const Stack D = Stack::Decoder;
  whole("token_embd.weight", target_embedding_name(c));
  if (family == Family::Gpt2) {
    whole("position_embd.weight", tensor_name(Module::Positions, Leaf::Weight, D));
    if (const GgufTensor* output = g.find_tensor("output.weight")) {
      const GgufTensor& table = g.tensor("token_embd.weight");
      require(output->type == table.type && output->shape == table.shape &&
                  std::memcmp(g.data(*output), g.data(table), output->bytes) == 0,
              g.where() + ": output.weight differs from token_embd.weight; an output layer of its own is not "
                          "supported for GPT-2 models");
      used.insert("output.weight");
    }
  } else if (c.tie_embeddings == EmbeddingTying::None) {
    whole("output.weight", output_projection_name(c));
  }
  for (Leaf leaf : {Leaf::Weight, Leaf::Bias}) {
    const std::string suffix = leaf == Leaf::Weight ? ".weight" : ".bias";
    whole("output_norm" + suffix, tensor_name(Module::FinalNorm, leaf, D));
    for (int i = 0; i < c.decoder_layers; ++i) {
      const std::string block = "blk." + std::to_string(i) + ".";
      for (const auto& [theirs, ours] : kBlockModules) {
        const bool fused = ours == Module::SelfAttnQuery || ours == Module::SelfAttnKey || ours == Module::SelfAttnValue;
        if (family == Family::Gpt2 && fused) continue;  // attn_qkv, below
        // llama.cpp stores llama's q and k rows in its rotary order (docs/models.md section 4).
        const bool permuted = family == Family::Llama && (ours == Module::SelfAttnQuery || ours == Module::SelfAttnKey);
        const int heads = ours == Module::SelfAttnQuery ? c.n_heads : c.key_value_heads();
        whole(block + theirs + suffix, tensor_name(ours, leaf, D, i), permuted ? heads : 0);
      }
      if (family != Family::Gpt2) continue;
      // GPT-2's q|k|v in one tensor (out rows 3 * d_model): a split by rows.
      const std::string fused = block + "attn_qkv" + suffix;
      const GgufTensor* t = g.find_tensor(fused);
      require(t != nullptr, g.where() + ": missing tensor \"" + fused + "\"");
      require(!t->shape.empty() && t->shape[0] == 3 * c.d_model,
              g.where() + ": tensor \"" + fused + "\" has shape " + shape_text(t->shape) + ", the config needs " +
                  std::to_string(3 * c.d_model) + " rows");
      const Module parts[] = {Module::SelfAttnQuery, Module::SelfAttnKey, Module::SelfAttnValue};
      for (int p = 0; p < 3; ++p) out[tensor_name(parts[p], leaf, D, i)] = {t, p * c.d_model, c.d_model, 0};
      used.insert(fused);
    }
  }
  for (const GgufTensor& t : g.tensors())
    require(used.count(t.name) > 0, g.where() + ": unexpected tensor \"" + t.name + "\" (not part of a " +
                                        g.string("general.architecture") + " model of this config)");
  for (const ParamSpec& s : specs)
    require(out.count(s.name) > 0, g.where() + ": no tensor holds the parameter " + s.name);
  return out;
}

// Rows [first, first + rows) of the source's tensor (row_bytes each: a matrix's rows, a bias's values) in
// Hugging Face's order: llama.cpp's rotary order undone, within each head of hd rows our row j * hd/2 + k
// being its row 2k + j.
std::string reordered_rows(const GgufFile& g, const Source& s, std::size_t row_bytes) {
  const std::int64_t hd = s.rows / s.permute_heads;
  std::string out(static_cast<std::size_t>(s.rows) * row_bytes, '\0');
  const unsigned char* src = g.data(*s.tensor) + static_cast<std::size_t>(s.first) * row_bytes;
  for (std::int64_t h = 0; h < s.permute_heads; ++h)
    for (std::int64_t j = 0; j < 2; ++j)
      for (std::int64_t k = 0; k < hd / 2; ++k) {
        const std::int64_t ours = h * hd + j * (hd / 2) + k, theirs = h * hd + 2 * k + j;
        std::memcpy(out.data() + ours * row_bytes, src + theirs * row_bytes, row_bytes);
      }
  return out;
}

}  // namespace

GgufModel read_gguf_model(const GgufFile& g) {
  const Family family = family_of(g);
  GgufModel m;
  m.config = gguf_model_config(g);
  const ModelConfig& c = m.config;
  const std::vector<ParamSpec> specs = parameter_layout(c);
  const std::map<std::string, Source> from = sources(g, c, family, specs);
  const auto* base = reinterpret_cast<const unsigned char*>(g.bytes().data());
  bool ggml = false, bfloat16 = false;
  for (const ParamSpec& spec : specs) {
    const Source& s = from.at(spec.name);
    const GgufTensor& t = *s.tensor;
    const std::string what = g.where() + ": tensor \"" + t.name + "\"";
    // The part's shape: its rows of the tensor's (rows, in...) shape.
    std::vector<std::int64_t> shape = t.shape;
    if (!shape.empty()) shape[0] = s.rows;
    require(shape == spec.shape, what + " has shape " + shape_text(shape) + ", the config needs " +
                                     shape_text(spec.shape) + " (the parameter " + spec.name + ")");
    require(s.permute_heads == 0 || (s.rows % s.permute_heads == 0 && (s.rows / s.permute_heads) % 2 == 0),
            what + ": rows that are not whole heads of an even size");
    // Bytes per unit of the first dimension: a matrix's row, or a vector's value (vectors in blocks are refused).
    const bool two_d = spec.shape.size() == 2;
    require(two_d || kernels::ggml_type_info(t.type).block_elements == 1,
            what + " is a vector stored in " + t.type_name + " blocks");
    const std::int64_t in = two_d ? spec.shape[1] : 1, units = spec.shape[0];
    const std::size_t unit_bytes = static_cast<std::size_t>(kernels::ggml_row_bytes(t.type, static_cast<long>(in)));
    const bool matrix = two_d && is_low_precision_parameter(c, spec);
    // Kept as stored: F32 anywhere, and a weight matrix of another type. A norm, a bias, a position table or an
    // untied, looked-up token table of another type becomes F32 (dequantized: the model reads them as float).
    const bool keep = t.type == GgmlType::F32 || matrix;
    const DType dtype = t.type == GgmlType::F32 ? DType::F32 : t.type == GgmlType::BF16 ? DType::BF16 : DType::U8;
    const std::vector<std::int64_t> stored_shape =
        keep && dtype == DType::U8 ? std::vector<std::int64_t>{units, static_cast<std::int64_t>(unit_bytes)} : spec.shape;
    const std::size_t begin = static_cast<std::size_t>(g.data(t) - base) + static_cast<std::size_t>(s.first) * unit_bytes;
    const std::size_t bytes = static_cast<std::size_t>(units) * unit_bytes;
    if (keep && s.permute_heads == 0) {
      TensorEntry e;
      e.name = spec.name;
      e.dtype = dtype;
      e.shape = stored_shape;
      e.begin = begin;
      e.end = begin + bytes;
      m.in_place.push_back(std::move(e));
    } else {
      std::string raw = s.permute_heads ? reordered_rows(g, s, unit_bytes)
                                        : std::string(reinterpret_cast<const char*>(base) + begin, bytes);
      if (keep) {
        m.owned.push_back({spec.name, dtype, stored_shape, std::move(raw)});
      } else {
        std::string floats(static_cast<std::size_t>(units * in) * 4, '\0');  // (units, in) float32
        kernels::dequantize_row(t.type, raw.data(), reinterpret_cast<float*>(floats.data()), static_cast<long>(units * in));
        m.owned.push_back({spec.name, DType::F32, spec.shape, std::move(floats)});
      }
    }
    if (keep && dtype == DType::U8) {
      m.ggml_types[spec.name] = t.type_name;
      ggml = true;
    }
    bfloat16 = bfloat16 || (keep && dtype == DType::BF16);
  }
  g.check_intact();
  // One convention per file: BF16 matrices beside ggml blocks are ggml's BF16 rows too.
  if (ggml && bfloat16) {
    auto as_ggml = [&](const std::string& name, DType& dtype, std::vector<std::int64_t>& shape) {
      if (dtype != DType::BF16) return;
      dtype = DType::U8;
      shape = {shape[0], shape[1] * 2};
      m.ggml_types[name] = "BF16";
    };
    for (TensorEntry& e : m.in_place) as_ggml(e.name, e.dtype, e.shape);
    for (GgufModel::Owned& o : m.owned) as_ggml(o.name, o.dtype, o.shape);
  }
  m.weights = ggml ? "ggml" : bfloat16 ? "bfloat16" : "";
  return m;
}

}  // namespace heptapod
