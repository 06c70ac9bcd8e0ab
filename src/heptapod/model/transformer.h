// A Transformer model composed of stacks (transformer_stack.h) as its config's architecture says: an encoder
// and a decoder with cross-attention (translation), a causal stack alone (a language model), or a
// bidirectional stack alone (an encoder), and one output head (output_head.h) on its last stack: the output
// projection onto the vocabulary, or an encoder's masked-LM head or classifier; forward and backward. Owns its
// parameters (one flat buffer, see parameter_store.h); activations live in a caller's Arena. Packing for
// inference is in inference_packing.cpp.
#pragma once

#include <deque>
#include <functional>
#include <memory>
#include <utility>
#include <vector>

#include "heptapod/core/arena.h"
#include "heptapod/kernels/packed_weights.h"
#include "heptapod/layers/embedding.h"
#include "heptapod/layers/layer_norm.h"
#include "heptapod/layers/linear.h"
#include "heptapod/model/batch.h"
#include "heptapod/model/config.h"
#include "heptapod/model/dropout_streams.h"
#include "heptapod/model/inference_weights.h"
#include "heptapod/model/language_model_head.h"
#include "heptapod/model/output_head.h"
#include "heptapod/model/parameter_store.h"
#include "heptapod/model/positional_table.h"
#include "heptapod/model/transformer_stack.h"

namespace heptapod {

struct StepOptions {
  bool training = false;         // dropout on
  std::uint64_t seed = 0;        // dropout masks for this micro-batch
  float label_smoothing = 0.0f;
  double grad_normalizer = 0.0;  // the loss gradient is divided by this (an update's target tokens); 0: this batch's
  // Called during the backward pass each time some parameters' gradients are complete (nothing later in the
  // pass writes them), with those tensors' indices in parameters().specs(); every tensor once per pass, so a
  // distributed run can start summing them while the rest of the pass runs.
  std::function<void(const std::vector<std::size_t>& tensors)> gradients_complete;
};

template <typename T>
class Transformer {
 public:
  explicit Transformer(const ModelConfig& config);
  // A model over `base`'s weights, for inference (one base shared by several LoRA adapters): `config` is base's
  // with adapters (and perhaps a classifier head trained beside them). Its frozen tensors are base's, read in
  // place, never copied; only its trained ones (the adapters, a new head) are its own, to be loaded before
  // pack_for_inference(), which then takes base's packed matrices as they are and keeps each adapter unmerged
  // beside its matrix (y = x W^T + scale (x A^T) B^T). `base` must be packed for inference already; it is kept
  // alive, and not written, while this model lives.
  Transformer(const ModelConfig& config, std::shared_ptr<const Transformer> base);
  Transformer(const Transformer&) = delete;
  Transformer& operator=(const Transformer&) = delete;

  const ModelConfig& config() const { return config_; }
  ParameterStore<T>& parameters() { return params_; }
  const ParameterStore<T>& parameters() const { return params_; }

  // One micro-batch: forward, loss, backward. Parameter gradients are accumulated (+=). A decoder-only
  // model reads the batch's target side alone; an encoder-only model's loss is its head's: the masked-LM
  // head's over the batch's mlm_targets, or the classifier's over its labels (cross-entropy, or per class
  // binary cross-entropy for a multi-label model). memory (a decoder-only model with relative positions):
  // Transformer-XL's segment memory of the batch's streams, one per sentence, read before the batch and then
  // advanced past it; it gets no gradient.
  LossTotals forward_backward(const Batch& batch, const StepOptions& options, Arena& arena,
                              SegmentMemory<T>* memory = nullptr);
  // Forward and loss only (no dropout). row_nll: optional (B*T) -log p(target) per position (an encoder-only
  // model: (B*S), zero where nothing is masked). memory: as forward_backward's.
  LossTotals evaluate(const Batch& batch, float label_smoothing, Arena& arena, T* row_nll = nullptr,
                      SegmentMemory<T>* memory = nullptr);
  // Logits (B*T, V) carved from the arena (no dropout); padding positions are zeros. An encoder-only model's:
  // (Nm, V) at its masked positions (mlm_targets >= 0), in row-major order, or a classifier's (B, labels).
  T* logits(const Batch& batch, Arena& arena, SegmentMemory<T>* memory = nullptr);
  // A classifier's pooled vectors of the last forward pass, (B, C): what its output layer reads; null for
  // other models.
  const T* pooled() const;
  // Encoder output (B*S, C) for source tokens (B, S) with lengths (B) and, for a model with token types,
  // their types (B, S) (null: all 0), no dropout; carved from the arena. Rows past a sentence's length are
  // zeros. The incremental decoder (decode/) starts from here. Needs an encoder.
  T* encode(const int* src, int B, int S, const int* src_len, Arena& arena, const int* src_types = nullptr);

  // Incremental decoding (decode/incremental_decoder.h drives it), through the decoder layers' own step():
  // Readies every decoder layer for steps; once per batch, as the weights may have changed since the last.
  void prepare_decoding();
  // Decoder layer `layer`'s cross-attention keys|values of encoder output rows (n, C) -> kv (n, 2K).
  void source_keys_values(int layer, const T* encoder_output, int n, T* kv) const;
  // One position for each of `rows` hypotheses: tokens and positions (rows) -> the decoder's output (rows, C)
  // (final norm applied), carved from the arena; attention reads cached keys and values through `cache`.
  // lengths: (rows) each row's sequence length after this call (dynamic rotary scaling's), or null: position + 1.
  // layer_scratch: where each layer's transients live, freed layer by layer (see TransformerStack::step).
  T* decode_step(const int* tokens, const int* positions, int rows, AttentionCache<T>& cache, Arena& arena,
                 const int* lengths = nullptr, Arena* layer_scratch = nullptr);
  // A model with relative positions: decoder layer `layer`'s position terms (Transformer-XL's u, v, W_r), which
  // cached decoding adds itself; null for other models.
  const RelativePositionParams<T>* relative_positions(int layer) const {
    return config_.relative_positions ? &decoder_->layer(layer).params().relative : nullptr;
  }
  // T5's relative position bias of `stack` (relative_buckets), or null.
  const BucketedBias<T>* bucketed_bias(Stack stack) const {
    if (config_.relative_buckets == 0) return nullptr;
    return &(stack == Stack::Encoder ? encoder_ : decoder_)->layer(0).params().buckets;
  }
  // Vocabulary entries [v0, v0 + n) of the logits hidden W_out^T (+ b) alone: hidden (rows, C) -> logits
  // (rows, n); v0 one of output_column_blocks() (which an encoder-only model, without an output layer, has
  // none of).
  void project_output_columns(const T* hidden, int rows, int v0, int n, T* logits) const {
    language_model_->project_columns(hidden, rows, v0, n, logits);
  }
  // The vocabulary cut into blocks [v0, v0 + n) of about 8192 entries for project_output_columns: an
  // incremental decoder scores one block at a time for all its rows.
  const std::vector<std::pair<int, int>>& output_column_blocks() const;

  // Inference only, and one way: every linear layer's weights and the output projection move into the
  // products' own layout for `precision` (float32 packed for the GEMM kernels, kernels/packed_weights.h; int8
  // or bfloat16, kernels/low_precision_weights.h) and their row-major copies are released, so the model's
  // memory does not grow; an embedding tied to the output projection reads through the packed projection.
  // `stored` holds the matrices a low-precision model file keeps in that form (their parameters were never
  // filled). Translation runs faster; training, backward, averaging or saving the model afterwards is an
  // error. Float models only. LoRA adapters are folded into their matrices first (fold_adapters), which must
  // then be float32 (not in `stored`); but a model over a base (the constructor's) shares the base's packed
  // matrices, in the base's precision (then `precision` and `stored` are ignored), with its adapters beside them.
  void pack_for_inference(const InferencePrecision& precision = {}, const StoredMatrices& stored = {});
  // Training over a base held in low precision (LoRA over a quantized file): every linear layer's matrix and
  // the output projection that `stored` holds (load_stored_parameters; their parameters never filled, and
  // frozen) stay in that form, copied once into the products' own layout, and the layers read them dequantized
  // in float32, forward and backward (kernels/dequantized_product.h); an embedding tied to the projection reads
  // its rows from there. Training, evaluation and decoding then run as over the dequantized float32 weights,
  // which never exist whole. The other frozen matrices (float32) are read through the same row blocks, in place:
  // no product then hands a whole frozen matrix to the GEMM library, whose packing buffers for the largest (the
  // output projection) outlive the call. Float models only.
  void hold_frozen_weights(const StoredMatrices& stored);
  // Folds every LoRA adapter into its matrix, W += (alpha / r) B A, and unbinds it: the layers then compute as
  // an ordinary model whose weights are the merged ones (the adapter tensors stay in the store as they are).
  void fold_adapters();
  // How the packed model computes (float32 before packing).
  const InferencePrecision& precision() const { return precision_; }
  bool packed_for_inference() const { return !packed_.empty(); }
  // For a packed model about to translate many batches: creates now the GEMM kernels for every row count a
  // product can be run at (0.1-0.4 s), instead of on first use. One sentence does not need it.
  void prepare_for_batches();

 private:
  // -> the last stack's output, one row per token of the packed batch batch_: the decoder's (Nt, C), else the
  // encoder's (Ns, C); what the head reads.
  const T* forward_stacks(const Batch& batch, const DropoutContext& ctx, Arena& arena, SegmentMemory<T>* memory);
  // The packed batch's token types for the encoder, or null (none, or a model without a type table).
  const int* source_types() const;
  // dy: the gradient at forward_stacks()'s output (the head's backward done, its parameters' gradients
  // complete); complete: StepOptions::gradients_complete (may be empty).
  void backward(const DropoutContext& ctx, Arena& arena, T* dy,
                const std::function<void(const std::vector<std::size_t>&)>& complete);
  // The parameter tensors whose gradients are complete after each stage of backward() (BackwardStage), from
  // which stages write which gradients: a tensor written by several (a tied embedding) completes with its last.
  void plan_backward_stages();
  // Every decoder layer's cross-attention keys and values of encoder_output_ as one product (cross_kv_);
  // nothing once packed for inference, where each layer projects with its own packed matrix. Then the
  // decoder layers' cross inputs (cross_).
  void project_cross_keys_values(Arena& arena);
  // Every linear layer of the stacks, with its stack, layer and module (parameter_names.h).
  struct LayerLinear {
    Linear<T>* linear;
    Stack stack;
    int layer;
    Module module;
  };
  std::vector<LayerLinear> layer_linears();

  ModelConfig config_;
  ParameterStore<T> params_;
  PositionalTable<T> positions_;
  std::unique_ptr<TransformerStack<T>> encoder_, decoder_;  // either may be absent (a one-stack model)
  std::unique_ptr<OutputHead<T>> head_;  // null: an encoder-only model without a head
  // head_ when it is a language model's (a model with a decoder): the output projection that cached decoding
  // and packing read.
  LanguageModelHead<T>* language_model_ = nullptr;
  struct Packed {
    std::shared_ptr<const kernels::WeightMatrix> weights;  // a model over a base shares the base's
    bool bias, relu;  // how forward() calls it
  };
  std::shared_ptr<const Transformer> base_;  // the model whose frozen weights this one reads; null: its own
  Arena adapter_stacks_;  // a model over a base: the stacked adapters of its stacked projections (q|k|v, k|v)
  InferencePrecision precision_;
  std::unique_ptr<kernels::PackedWeightsStorage> packed_storage_;  // holds what packed_ packs
  std::vector<Packed> packed_;  // made by pack_for_inference()
  std::deque<std::vector<T>> stacked_biases_;  // the biases of its stacked attention projections
  // hold_frozen_weights': the matrices held in low precision, and each one's row source (Linear::frozen).
  std::vector<std::unique_ptr<kernels::WeightMatrix>> frozen_matrices_;
  std::deque<kernels::RowSource> frozen_rows_;
  // The LoRA adapters' dropout for the current pass (config.lora.dropout in training, else 0), which every
  // adapter reads (LowRankAdapter::dropout); on the heap, so that it stays put.
  std::unique_ptr<DropoutSite> adapter_dropout_ = std::make_unique<DropoutSite>();

  // Forward state kept for backward (the stacks and layers keep their own).
  std::unique_ptr<PackedBatch> batch_;  // the last forward's batch, unpadded
  T* encoder_output_ = nullptr;  // (Ns, C)
  std::vector<const Linear<T>*> cross_kv_parts_;  // each decoder layer's cross-attention k_proj, v_proj in turn
  Linear<T> cross_kv_proj_;  // those stacked for the last forward, (2C * layers, C)
  std::vector<ProjectedKeysValues<T>> cross_kv_;  // per decoder layer: its k | v columns of one (Ns, 2C * layers)
  std::vector<CrossInput<T>> cross_;  // per decoder layer: what its cross-attention reads (empty: no encoder)
  std::vector<std::vector<std::size_t>> complete_after_stage_;  // by BackwardStage order, see plan_backward_stages()
  Arena group_scratch_;      // one group of sentences' encoder state during encode()
  Arena inference_scratch_;  // one encoder layer's activations during encode()
};

}  // namespace heptapod
