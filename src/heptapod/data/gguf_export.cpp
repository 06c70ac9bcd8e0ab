// A decoder-only model as a GGUF file: the architecture's keys, llama.cpp's tensor names and types.
#include "heptapod/data/gguf_export.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>

#include "heptapod/core/error.h"
#include "heptapod/data/gguf_tokenizer.h"
#include "heptapod/data/model_vocab.h"
#include "heptapod/data/stored_chat_template.h"
#include "heptapod/io/atomic_file.h"
#include "heptapod/io/gguf_writer.h"
#include "heptapod/io/model_file.h"

namespace heptapod {

namespace {

using kernels::GgmlType;

enum class Arch { Gpt2, Llama, Qwen2, Qwen3 };

const char* arch_name(Arch a) {
  switch (a) {
    case Arch::Gpt2: return "gpt2";
    case Arch::Llama: return "llama";
    case Arch::Qwen2: return "qwen2";
    case Arch::Qwen3: return "qwen3";
  }
  return "?";
}

// The GGUF architecture that computes what `c` computes; an Error naming the first thing none can express.
Arch gguf_architecture(const ModelConfig& c, const std::string& where) {
  auto refuse_unless = [&](bool ok, const std::string& what) {
    require(ok, where + ": " + what + ": GGUF's gpt2, llama, qwen2 and qwen3 architectures cannot express it, so "
                                      "the model is not written as GGUF");
  };
  refuse_unless(c.architecture == Architecture::DecoderOnly,
                std::string("an ") + architecture_name(c.architecture) + " model (GGUF export is for decoder-only ones)");
  refuse_unless(!c.relative_positions, "Transformer-XL's relative positions");
  refuse_unless(c.norm == NormPosition::Pre, "post-norm layers");
  refuse_unless(!c.scale_embeddings, "embeddings scaled by sqrt(d_model)");
  refuse_unless(!c.output_bias, "an output bias");
  refuse_unless(!c.qk_norm || c.rotary, "query and key norms without rotary positions");
  if (c.learned_positions > 0) {
    refuse_unless(c.position_offset == 0, "a learned position table read from row " + std::to_string(c.position_offset));
    refuse_unless(c.norm_type == NormType::Layer, "RMSNorm with learned positions (gpt2's norms are layer norms)");
    refuse_unless(!c.gated_ffn && c.activation == Activation::GeluTanh,
                  "a feed-forward network other than GPT-2's (tanh GELU, not gated) with learned positions");
    refuse_unless(c.key_value_heads() == c.n_heads && c.head_size() * c.n_heads == c.d_model,
                  "grouped-query attention or a head width other than d_model / heads in GPT-2's layout");
    return Arch::Gpt2;
  }
  refuse_unless(c.rotary, "sinusoidal positions added to the embeddings (llama.cpp's architectures have none)");
  refuse_unless(c.norm_type == NormType::Rms, "layer norms with rotary positions (llama, qwen2 and qwen3 use RMSNorm)");
  refuse_unless(c.gated_ffn && c.activation == Activation::Silu,
                "a feed-forward network other than SwiGLU with rotary positions");
  refuse_unless(c.rope.scaling != RopeScaling::Dynamic, "dynamic (NTK) rope scaling, which llama.cpp does not compute");
  const bool biases = c.attention_qkv_bias || c.attention_out_bias || c.ffn_bias;
  if (c.qk_norm) {
    refuse_unless(!biases, "biases beside query and key norms (qwen3 has none)");
    refuse_unless(c.rope.scaling != RopeScaling::Llama3, "LLaMA 3's rope scaling in qwen3's layout");
    return Arch::Qwen3;
  }
  if (c.attention_qkv_bias && !c.attention_out_bias && !c.ffn_bias && c.rope.scaling != RopeScaling::Llama3)
    return Arch::Qwen2;
  refuse_unless(rotary_dims(c.rope, c.head_size()) == c.head_size(),
                "rotary positions on part of each head in the llama layout (llama.cpp rotates whole heads there)");
  return Arch::Llama;
}

// A tensor's values and shape (outermost first).
struct Values {
  std::vector<std::int64_t> shape;
  std::vector<float> data;  // (numel)
};

// llama.cpp's rotary layout for "llama": a head's rows (HF's halves: i pairs with i + d/2) become adjacent
// pairs (2i, 2i + 1), as convert_hf_to_gguf.py's permute does; rows: (heads * head_dim, cols).
Values interleave_rotary_rows(const Values& v, int heads, int head_dim) {
  const long cols = v.shape.size() > 1 ? static_cast<long>(v.shape[1]) : 1;
  Values out{v.shape, std::vector<float>(v.data.size())};
  const int half = head_dim / 2;
  for (int h = 0; h < heads; ++h)
    for (int i = 0; i < half; ++i)
      for (int j = 0; j < 2; ++j) {
        const long from = static_cast<long>(h) * head_dim + j * half + i, to = static_cast<long>(h) * head_dim + 2 * i + j;
        std::copy_n(v.data.begin() + from * cols, cols, out.data.begin() + to * cols);
      }
  return out;
}

// Rows stacked: the (out_a + out_b + ..., cols) matrix or vector of the parts in order.
Values stacked(const std::vector<Values>& parts) {
  Values out{parts.front().shape, {}};
  out.shape[0] = 0;
  for (const Values& p : parts) {
    out.shape[0] += p.shape[0];
    out.data.insert(out.data.end(), p.data.begin(), p.data.end());
  }
  return out;
}

// The file's tensors as they are added: their type chosen, their bytes encoded.
class TensorSink {
 public:
  TensorSink(GgufWriter& writer, GgufWeightType weights, std::vector<std::string>& notes)
      : writer_(writer), weights_(weights), notes_(notes) {}

  // A 1-D tensor, position_embd (kept_f32) or a matrix of the file's weight type (`output`: the output layer,
  // Q8_0 in a Q4_0 file).
  void add(const std::string& name, const Values& v, bool kept_f32 = false, bool output = false) {
    GgmlType type = GgmlType::F32;
    if (v.shape.size() >= 2 && !kept_f32) type = matrix_type(name, v, output);
    const long cols = static_cast<long>(v.shape.back()), rows = static_cast<long>(v.data.size()) / cols;
    const std::vector<unsigned char> rows_bytes = kernels::quantize_rows(type, v.data.data(), rows, cols);
    writer_.add_tensor(name, v.shape, type, std::string(rows_bytes.begin(), rows_bytes.end()));
  }

 private:
  GgmlType matrix_type(const std::string& name, const Values& v, bool output) {
    GgmlType want = weights_ == GgufWeightType::F32    ? GgmlType::F32
                    : weights_ == GgufWeightType::F16  ? GgmlType::F16
                    : weights_ == GgufWeightType::Q8_0 || output ? GgmlType::Q8_0
                                                                 : GgmlType::Q4_0;
    if (want == GgmlType::F32) return want;
    float largest = 0.0f;
    for (float x : v.data) largest = std::max(largest, std::fabs(x));
    if (largest > 65504.0f) {
      notes_.push_back(name + ": F32, not " + kernels::ggml_type_name(want) + " (a value of magnitude " +
                       std::to_string(largest) + " is past float16's range)");
      return GgmlType::F32;
    }
    if ((want == GgmlType::Q8_0 || want == GgmlType::Q4_0) && v.shape.back() % 32 != 0) {
      notes_.push_back(name + ": F16, not " + kernels::ggml_type_name(want) + " (its rows of " +
                       std::to_string(v.shape.back()) + " values are not a multiple of the 32-value block)");
      return GgmlType::F16;
    }
    return want;
  }

  GgufWriter& writer_;
  GgufWeightType weights_;
  std::vector<std::string>& notes_;
};

// The model's tensors under llama.cpp's names.
class TensorMapping {
 public:
  TensorMapping(Transformer<float>& model, Arch arch, TensorSink& sink)
      : params_(model.parameters()), c_(model.config()), arch_(arch), sink_(sink) {}

  void write() {
    const bool tied = c_.tie_embeddings != EmbeddingTying::None;
    sink_.add("token_embd.weight", param(target_embedding_name(c_)), false, tied);
    if (arch_ == Arch::Gpt2)
      sink_.add("position_embd.weight", param(tensor_name(Module::Positions, Leaf::Weight, Stack::Decoder)), true);
    if (c_.rope.scaling == RopeScaling::Llama3) sink_.add("rope_freqs.weight", rope_factors());
    for (int i = 0; i < c_.decoder_layers; ++i) layer(i);
    norm("output_norm", module_name(Module::FinalNorm, Stack::Decoder));
    if (!tied) sink_.add("output.weight", param(output_projection_name(c_)), false, true);
  }

 private:
  Values param(const std::string& name) {
    const ParamSpec& spec = params_.spec(name);
    const float* p = params_.value(name);
    return {spec.shape, std::vector<float>(p, p + spec.numel())};
  }
  Values weight(Module m, int layer) { return param(tensor_name(m, Leaf::Weight, Stack::Decoder, layer)); }
  // The bias of a linear layer, zeros where the model has none (gpt2 requires every bias).
  Values bias(Module m, int layer, std::int64_t rows) {
    const std::string name = tensor_name(m, Leaf::Bias, Stack::Decoder, layer);
    return params_.contains(name) ? param(name) : Values{{rows}, std::vector<float>(static_cast<std::size_t>(rows))};
  }
  void norm(const std::string& name, const std::string& module) {
    sink_.add(name + ".weight", param(tensor_name(module, Leaf::Weight)));
    if (c_.norm_type == NormType::Layer) sink_.add(name + ".bias", param(tensor_name(module, Leaf::Bias)));
  }
  // A linear layer: its weight, and its bias where the model has one or the architecture requires one.
  void linear(const std::string& name, Module m, int layer) {
    const Values w = weight(m, layer);
    sink_.add(name + ".weight", w);
    if (arch_ == Arch::Gpt2 || params_.contains(tensor_name(m, Leaf::Bias, Stack::Decoder, layer)))
      sink_.add(name + ".bias", bias(m, layer, w.shape[0]));
  }
  // The query or key projection, permuted to llama.cpp's rotary layout for llama.
  void rotated(const std::string& name, Module m, int layer, int heads) {
    const int d = c_.head_size();
    auto layout = [&](const Values& v) { return arch_ == Arch::Llama ? interleave_rotary_rows(v, heads, d) : v; };
    const Values w = weight(m, layer);
    sink_.add(name + ".weight", layout(w));
    if (params_.contains(tensor_name(m, Leaf::Bias, Stack::Decoder, layer)))
      sink_.add(name + ".bias", layout(bias(m, layer, w.shape[0])));
  }

  void layer(int i) {
    const std::string blk = "blk." + std::to_string(i) + ".";
    norm(blk + "attn_norm", module_name(Module::SelfAttnNorm, Stack::Decoder, i));
    if (arch_ == Arch::Gpt2) {
      const Module qkv[] = {Module::SelfAttnQuery, Module::SelfAttnKey, Module::SelfAttnValue};
      std::vector<Values> weights, biases;
      for (Module m : qkv) {
        weights.push_back(weight(m, i));
        biases.push_back(bias(m, i, weights.back().shape[0]));
      }
      sink_.add(blk + "attn_qkv.weight", stacked(weights));
      sink_.add(blk + "attn_qkv.bias", stacked(biases));
    } else {
      rotated(blk + "attn_q", Module::SelfAttnQuery, i, c_.n_heads);
      rotated(blk + "attn_k", Module::SelfAttnKey, i, c_.key_value_heads());
      linear(blk + "attn_v", Module::SelfAttnValue, i);
    }
    linear(blk + "attn_output", Module::SelfAttnOutput, i);
    if (c_.qk_norm) {
      sink_.add(blk + "attn_q_norm.weight", weight(Module::SelfAttnQueryNorm, i));
      sink_.add(blk + "attn_k_norm.weight", weight(Module::SelfAttnKeyNorm, i));
    }
    norm(blk + "ffn_norm", module_name(Module::FfnNorm, Stack::Decoder, i));
    if (c_.gated_ffn) linear(blk + "ffn_gate", Module::FfnGate, i);
    linear(blk + "ffn_up", Module::FfnIn, i);
    linear(blk + "ffn_down", Module::FfnOut, i);
  }

  // LLaMA 3's rope scaling as llama.cpp reads it: each pair's frequency divisor (R/2).
  Values rope_factors() const {
    RotaryConfig plain = c_.rope;
    plain.scaling = RopeScaling::None;
    const std::vector<double> base = rotary_frequencies(plain, c_.head_size(), 1);
    const std::vector<double> scaled = rotary_frequencies(c_.rope, c_.head_size(), 1);
    Values v{{static_cast<std::int64_t>(base.size())}, {}};
    for (std::size_t i = 0; i < base.size(); ++i) v.data.push_back(static_cast<float>(base[i] / scaled[i]));
    return v;
  }

  ParameterStore<float>& params_;
  const ModelConfig& c_;
  Arch arch_;
  TensorSink& sink_;
};

std::uint32_t file_type(GgufWeightType t) {  // llama_ftype
  switch (t) {
    case GgufWeightType::F32: return 0;
    case GgufWeightType::F16: return 1;
    case GgufWeightType::Q4_0: return 2;
    case GgufWeightType::Q8_0: return 7;
  }
  return 0;
}

// {arch}.* : the shape, the norms' epsilon and the rotation.
void set_architecture_keys(GgufWriter& w, const ModelConfig& c, Arch arch, std::vector<std::string>& notes) {
  const std::string a = arch_name(arch);
  auto u32 = [&](const std::string& key, long v) { w.set(a + "." + key, GgufWriter::u32(static_cast<std::uint32_t>(v))); };
  // A rotary model trained here has no bound; llama.cpp needs one, which is only its default context.
  constexpr int kUnboundedContext = 4096;
  const bool bounded = c.position_limit() < (1 << 30);
  if (!bounded)
    notes.push_back(a + ".context_length: " + std::to_string(kUnboundedContext) +
                    " (the model has no context limit; llama.cpp reads this as its training context)");
  u32("context_length", bounded ? c.position_limit() : kUnboundedContext);
  u32("embedding_length", c.d_model);
  u32("block_count", c.decoder_layers);
  u32("feed_forward_length", c.d_ff);
  u32("attention.head_count", c.n_heads);
  u32("attention.head_count_kv", c.key_value_heads());
  if (c.head_size() * c.n_heads != c.d_model) {
    u32("attention.key_length", c.head_size());
    u32("attention.value_length", c.head_size());
  }
  if (arch == Arch::Gpt2) {
    w.set(a + ".attention.layer_norm_epsilon", GgufWriter::f32(c.layer_norm_eps));
    return;
  }
  w.set(a + ".attention.layer_norm_rms_epsilon", GgufWriter::f32(c.layer_norm_eps));
  w.set(a + ".rope.freq_base", GgufWriter::f32(static_cast<float>(c.rope.theta)));
  u32("rope.dimension_count", rotary_dims(c.rope, c.head_size()));
  if (c.rope.scaling == RopeScaling::Linear) {
    w.set(a + ".rope.scaling.type", GgufWriter::string("linear"));
    w.set(a + ".rope.scaling.factor", GgufWriter::f32(static_cast<float>(c.rope.factor)));
  }
  u32("vocab_size", c.tgt_vocab_size);
}

}  // namespace

const char* gguf_weight_type_name(GgufWeightType type) {
  switch (type) {
    case GgufWeightType::F32: return "f32";
    case GgufWeightType::F16: return "f16";
    case GgufWeightType::Q8_0: return "q8_0";
    case GgufWeightType::Q4_0: return "q4_0";
  }
  return "?";
}

GgufWeightType parse_gguf_weight_type(const std::string& name, const std::string& what) {
  for (GgufWeightType t : {GgufWeightType::F32, GgufWeightType::F16, GgufWeightType::Q8_0, GgufWeightType::Q4_0})
    if (name == gguf_weight_type_name(t)) return t;
  throw Error(what + ": \"" + name + "\" is not a GGUF weight type (f32, f16, q8_0 or q4_0)");
}

GgufExport write_gguf(const SafetensorsFile& file, GgufWeightType weights, const std::string& path) {
  const ModelConfig config = read_model_config(file);
  require(!config.lora.enabled(), file.where() + ": LoRA adapters beside the weights (a LoRA run's checkpoint); "
                                                 "export the merged model (heptapod merge BASE --adapter ADAPTER)");
  const Arch arch = gguf_architecture(config, file.where());
  require(stored_compute_type(file) == ComputeType::Float32,
          file.where() + ": a quantized model file; GGUF export reads float32 weights (export the float model, with "
                         "--gguf-type for the quantization)");
  const std::optional<ModelVocabularies> vocabs = read_vocabularies(file, config);
  require(vocabs.has_value(), file.where() + " holds no vocabulary, and a GGUF file carries its tokenizer");
  auto model = load_model(file);
  GgufExport result{arch_name(arch), {}};
  GgufWriter w;
  w.set("general.architecture", GgufWriter::string(result.architecture));
  w.set("general.name", GgufWriter::string(std::filesystem::path(file.where()).stem().string()));
  set_architecture_keys(w, config, arch, result.notes);
  w.set("general.file_type", GgufWriter::u32(file_type(weights)));
  w.set("general.quantization_version", GgufWriter::u32(2));  // GGML_QNT_VERSION, which the converter always writes
  set_gguf_tokenizer(w, vocabs->target, config, file.where());
  if (const auto chat = read_chat_template(file))
    w.set("tokenizer.chat_template", GgufWriter::string(chat->source));
  TensorSink sink(w, weights, result.notes);
  TensorMapping(*model, arch, sink).write();
  write_file_atomic(path, [&](std::ostream& out) { w.write(out); });
  return result;
}

}  // namespace heptapod
