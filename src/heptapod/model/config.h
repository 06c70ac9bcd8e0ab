// The model configuration: every architectural number, typed, validated, and (de)serialised as the JSON that
// the model file carries (docs/model-format.md).
#pragma once

#include <string>
#include <vector>

#include "heptapod/layers/feed_forward.h"
#include "heptapod/layers/rotary.h"
#include "heptapod/layers/sublayer.h"
#include "heptapod/kernels/embedding.h"
#include "heptapod/model/lora_config.h"

namespace heptapod {

// All: one table for the source and target embeddings and the output layer; TargetOutput: the target embedding
// is the output layer; None: three tables; Embeddings: one table for the source and target embeddings and an
// output layer of its own (T5 v1.1, flan-T5, mT5). File names "all", "target_output", "none", "embeddings".
enum class EmbeddingTying { All, TargetOutput, None, Embeddings };

// Which stacks a model has: an encoder and a decoder (the paper's translation model), a causal stack alone (a
// language model, GPT), or a bidirectional stack alone (BERT). The file name of each: "encoder-decoder",
// "decoder-only", "encoder-only".
enum class Architecture { EncoderDecoder, DecoderOnly, EncoderOnly };

// A layer's norms: the paper's layer norm (centred, a gain and a shift) or RMSNorm (LLaMA's: scaled by the
// root mean square alone, a gain only). File names "layer" and "rms".
enum class NormType { Layer, Rms };

// How an encoder's output rows become one vector per sentence: their mean, or the start token's row ([CLS]);
// or (embeddings alone, sentence-transformers' modes) each dimension's largest value over the rows (max), their
// sum over the square root of their count (mean_sqrt_len), their mean weighted by position 1..n
// (weightedmean), the last row (lasttoken).
enum class Pooling { Mean, Cls, Max, MeanSqrtLen, WeightedMean, LastToken };

struct ModelConfig {
  Architecture architecture = Architecture::EncoderDecoder;
  // The encoder's and the decoder's vocabularies and depths. A one-stack model has one vocabulary and one
  // depth, in its stack's fields (a decoder-only model's in tgt_vocab_size and decoder_layers); the other
  // stack's are 0.
  int src_vocab_size = 8000;
  int tgt_vocab_size = 8000;
  int d_model = 512;
  int n_heads = 8;
  int d_ff = 2048;
  int encoder_layers = 6;
  int decoder_layers = 6;
  float dropout = 0.1f;             // residual: every sub-layer output
  float attention_dropout = 0.1f;   // attention probabilities
  float activation_dropout = 0.1f;  // FFN inner activation
  float embedding_dropout = 0.1f;   // embedding + position sum
  NormPosition norm = NormPosition::Post;
  bool final_norm = false;  // post-norm only: a layer norm at the end of each stack (nn.Transformer has one)
  float layer_norm_eps = 1e-5f;
  EmbeddingTying tie_embeddings = EmbeddingTying::All;
  bool output_bias = false;
  Activation activation = Activation::Relu;  // the FFN's inner activation
  bool scale_embeddings = true;              // embeddings times sqrt(d_model) before the positions are added
  kernels::SinusoidLayout positions = kernels::SinusoidLayout::Interleaved;
  int position_offset = 0;                   // the first token's position (fairseq: pad_id + 1)
  // > 0: every stack adds positions from a learned table of this many rows (GPT-2: 1024, BERT: 512), row
  // position_offset + p for position p, instead of the sinusoids; sequences are then at most
  // position_limit() long.
  int learned_positions = 0;
  // Transformer-XL's relative positions (decoder-only): each attention's scores gain
  // u . k_j + (q_i + v) . W_r R(p_i - j) (layers/relative_positions.h) instead of positions added to the
  // embeddings; distances past clamp_length (> 0) use its encoding; u and v per layer (untie_relative) or one
  // pair for the stack's layers. memory_length: Transformer-XL's segment memory, the last M layer inputs of
  // each stream that every segment attends over (model/segment_memory.h); the length training used, and the
  // default of scoring and generation (0: segments see only themselves).
  bool relative_positions = false;
  int clamp_length = 0;
  bool untie_relative = false;
  int memory_length = 0;
  bool source_eos = false;                   // every source sequence ends with eos_id (Marian, fairseq)
  // Encoder-only models (BERT): segment (token type) embeddings of this many types added to the embedding
  // sum (0: none; BERT: 2), a layer norm over that sum before its dropout (BERT's), and the masked-language-
  // model head (a transform, the activation, a layer norm, the embedding table as the output layer, a bias)
  // with the id of the mask token it is trained to see through.
  int token_types = 0;
  bool embedding_norm = false;
  bool mlm_head = false;
  int mask_id = -1;
  // An encoder-only classifier: `labels` classes (0: none) scored from one pooled vector per sentence, the
  // mean of its output rows or (Cls) the start token's row through BERT's tanh pooler; multi_label: each class
  // a yes or no of its own (sigmoid) instead of one class of all (softmax). A model has one head at most.
  int labels = 0;
  Pooling pooling = Pooling::Mean;
  bool multi_label = false;
  // A classifier of sentence pairs ("first<TAB>second" lines, the second of token type 1): what it was
  // trained on, so every command reads its inputs as pairs (data/encoder_input.h).
  bool sentence_pairs = false;
  // A pre-trained encoder's [CLS] pooler kept without a classifier (a converted BERT pre-training checkpoint's):
  // a classifier fine-tuned from it with [CLS] pooling starts from it. A classifier has a pooler when its
  // pooling is Cls (has_pooler()).
  bool pooler = false;
  // RoBERTa's (and XLM-R's) sentence pairs: <s> first </s></s> second </s>, every token of type 0, in place of
  // BERT's [CLS] first [SEP] second [SEP] with the second segment of type 1 (data/encoder_input.h).
  bool double_separator = false;
  // DistilBERT's classifier: the pooler (its pre_classifier) through ReLU instead of BERT's tanh.
  bool relu_pooler = false;
  // How an encoder embeds by default (a converted sentence-transformers model's 1_Pooling, Dense and Normalize:
  // what `embed`, the Python Encoder and /v1/embeddings do unless told otherwise): one pooling mode, or several
  // concatenated in sentence-transformers' order (cls, max, mean, mean_sqrt_len, weightedmean, lasttoken;
  // written "cls+mean"), L2-normalised or not; max_input_tokens > 0 cuts every input of the encoder to that
  // many tokens (its max_seq_length), below position_limit().
  std::vector<Pooling> embed_pooling{Pooling::Mean};
  bool embed_normalize = false;
  int max_input_tokens = 0;
  // sentence-transformers' Dense module between the pooling and the normalisation: the pooled vector v
  // (pooled_width()) becomes act(W v + b), W (embed_dense_features, pooled_width()) the parameter
  // "embed_dense", with a bias or not, act tanh or the identity (0 features: no Dense).
  int embed_dense_features = 0;
  bool embed_dense_bias = true;
  bool embed_dense_tanh = false;
  // The LLaMA family's pieces (each absent from the paper's model, which the defaults keep):
  // - norm_type: every norm of the model a layer norm or an RMSNorm;
  // - kv_heads: grouped-query attention, the keys and values in kv_heads heads that n_heads / kv_heads query
  //   heads share (1: multi-query; 0: n_heads, one each), so a decoder's cache holds kv_heads heads alone;
  // - head_dim: each head's width when it is not d_model / n_heads (0: that), so the query projection is
  //   (n_heads * head_dim, C) and the output projection (C, n_heads * head_dim);
  // - gated_ffn: the feed-forward network's gate, down(act(gate(x)) * up(x)) (SwiGLU with silu, GeGLU with
  //   gelu), fc1 being `up`;
  // - the biases of the attention's q, k, v projections, of its output projection and of the feed-forward
  //   network's layers (Qwen 2: q, k and v only; LLaMA: none);
  // - qk_norm: an RMSNorm of each self-attention head's queries and keys (a gain of head_dim) before the
  //   rotation (Qwen 3);
  // - rotary: rotary position embeddings in self-attention (`rope`) in place of positions added to the
  //   embeddings;
  // - max_positions: the longest sequence the model takes when no learned table bounds it (0: unbounded);
  // - sliding_window: a converted checkpoint's attention window (Mistral v0.1's 4096), which caps
  //   max_positions so that no key ever falls out of it (0: none);
  // - prompt_bos: whether a decoder-only model's sequences begin with bos_id (Qwen's begin with their text);
  // - extra_eos_ids: end tokens besides eos_id that also end a sequence (LLaMA 3.1's <|eom_id|>, <|eot_id|>).
  NormType norm_type = NormType::Layer;
  int kv_heads = 0;
  int head_dim = 0;
  bool gated_ffn = false;
  bool attention_qkv_bias = true;
  bool attention_out_bias = true;
  bool ffn_bias = true;
  bool qk_norm = false;
  bool rotary = false;
  RotaryConfig rope;
  int max_positions = 0;
  int sliding_window = 0;
  bool prompt_bos = true;
  std::vector<int> extra_eos_ids;
  // T5's pieces (each absent from the paper's model, which the defaults keep):
  // - relative_buckets: a learned bias per head added to every self-attention score, read from a table of
  //   relative_buckets rows (buckets, heads) per stack by the bucket of the key's distance from the query
  //   (layers/relative_buckets.h: bidirectional in an encoder, causal in a decoder; exact up to half the
  //   buckets, log-spaced up to relative_max_distance), shared by the stack's layers, in place of positions
  //   added to the embeddings (0: none);
  // - scale_attention: attention scores divided by sqrt(head size) before the softmax (T5's are not);
  // - scale_output: the decoder's output times d_model^-0.5 before the output layer (T5 with its embedding
  //   tied to the output layer).
  int relative_buckets = 0;
  int relative_max_distance = 128;
  bool scale_attention = true;
  bool scale_output = false;
  // - final_norm_dropout: residual dropout (rate `dropout`) on each stack's final norm output, as T5's stacks
  //   apply it (needs a final norm).
  bool final_norm_dropout = false;
  // LoRA adapters beside the targeted matrices (model/lora_config.h): a model fine-tuned with them, whose base
  // is frozen (rank 0: none).
  LoraConfig lora;
  int pad_id = 0;
  int bos_id = 1;  // the decoder's start token (Marian: pad_id, fairseq: eos_id)
  int eos_id = 2;

  bool has_final_norm() const { return norm == NormPosition::Pre || final_norm; }
  // Whether the source and target embeddings are one table, and whether the output layer is a table of its own.
  bool shared_embeddings() const {
    return tie_embeddings == EmbeddingTying::All || tie_embeddings == EmbeddingTying::Embeddings;
  }
  bool own_output_layer() const {
    return tie_embeddings == EmbeddingTying::None || tie_embeddings == EmbeddingTying::Embeddings;
  }
  bool has_pooler() const { return pooler || (labels > 0 && pooling == Pooling::Cls); }
  // The positions a sequence may use: learned_positions - position_offset, else max_positions, else unbounded.
  int position_limit() const {
    return learned_positions > 0 ? learned_positions - position_offset : max_positions > 0 ? max_positions : 1 << 30;
  }
  // Attention's shape: query heads, key/value heads, each head's width; the queries' and the keys' (or
  // values') widths.
  int key_value_heads() const { return kv_heads > 0 ? kv_heads : n_heads; }
  int head_size() const { return head_dim > 0 ? head_dim : d_model / n_heads; }
  int query_width() const { return n_heads * head_size(); }
  int key_value_width() const { return key_value_heads() * head_size(); }
  // An embedding's widths: the pooled vector's (d_model per pooling mode), the vector embed returns (after the
  // Dense module, where there is one).
  int pooled_width() const { return d_model * static_cast<int>(embed_pooling.size()); }
  int embedding_width() const { return embed_dense_features > 0 ? embed_dense_features : pooled_width(); }
  // The most tokens an encoder's input holds: max_input_tokens where set, else position_limit().
  int encoder_input_limit() const {
    return max_input_tokens > 0 && max_input_tokens < position_limit() ? max_input_tokens : position_limit();
  }
  // The longest source (with its end token under source_eos) and target (after the start token) that fit.
  int max_source_tokens() const { return position_limit() - (source_eos ? 1 : 0); }
  int max_target_tokens() const { return position_limit() - 1; }
  bool has_encoder() const { return architecture != Architecture::DecoderOnly; }
  // Whether `id` ends a sequence: eos_id or one of extra_eos_ids.
  bool is_end(int id) const {
    if (id == eos_id) return true;
    for (int e : extra_eos_ids)
      if (e == id) return true;
    return false;
  }
  bool has_decoder() const { return architecture != Architecture::EncoderOnly; }
};

// "encoder-decoder", "decoder-only", "encoder-only"; anything else is an Error naming `where`.
const char* architecture_name(Architecture architecture);
Architecture architecture_from_name(const std::string& name, const std::string& where);
// A one-stack config of `architecture` (decoder-only or encoder-only) from an encoder-decoder one (a preset):
// the stack's depth from decoder_layers (decoder-only) or encoder_layers (encoder-only), one vocabulary of
// vocab_size; a decoder-only model ties its embedding to its output layer unless tie is None, an encoder-only
// one has no output layer.
ModelConfig one_stack_config(ModelConfig config, Architecture architecture, int vocab_size);

// "post" and "pre"; "all", "target_output" and "none"; "layer" and "rms"; anything else is an Error naming
// `where`.
const char* norm_name(NormPosition norm);
const char* norm_type_name(NormType type);
NormType norm_type_from_name(const std::string& name, const std::string& where);
const char* tying_name(EmbeddingTying tying);
NormPosition norm_from_name(const std::string& name, const std::string& where);
EmbeddingTying tying_from_name(const std::string& name, const std::string& where);

// "mean", "cls", "max", "mean_sqrt_len", "weightedmean" and "lasttoken"; anything else is an Error naming `where`.
const char* pooling_name(Pooling pooling);
Pooling pooling_from_name(const std::string& name, const std::string& where);
// Several modes joined by "+" ("cls+mean"), and back: the modes in sentence-transformers' order, each once.
std::string pooling_names(const std::vector<Pooling>& poolings);
std::vector<Pooling> poolings_from_names(const std::string& names, const std::string& where);

// "relu", "silu" (or "swish"), "gelu" (the exact one) and "gelu_tanh" (or Hugging Face's "gelu_new" and
// "gelu_pytorch_tanh"); anything else is an Error naming `where`.
Activation activation_from_name(const std::string& name, const std::string& where);

// Ids the search never emits: pad and the start token, unless either is also the end token.
std::vector<int> banned_output_ids(const ModelConfig& config);

// Throws Error naming the first invalid field.
void validate(const ModelConfig& config);

// JSON text with every field; parse accepts exactly those fields and names any problem ("where" prefixes the
// message, e.g. the file name). The fields added after the first model files (architecture, activation,
// scale_embeddings, positions, position_offset, source_eos) are written only where they differ from the
// paper's choice, and absent ones take it: every earlier file is an encoder-decoder. A one-stack model writes
// "vocab_size" and "layers" in place of the two stacks' fields.
std::string to_json(const ModelConfig& config);
ModelConfig model_config_from_json(const std::string& json_text, const std::string& where);

// Presets: "base" and "big" are the paper's; "small" suits a 2-core CPU; "tiny" is for tests and demos.
ModelConfig model_preset(const std::string& name);

// Parameter count the config implies.
long long parameter_count(const ModelConfig& config);

}  // namespace heptapod
