// Packing a model for inference: every linear layer's weights and the output projection move into the
// products' own layout for the inference precision (kernels/packed_weights.h, kernels/low_precision_weights.h;
// pack_weights in inference_weights.h packs one matrix), the projections that share an input stacked into one.
#include "heptapod/model/transformer.h"

#include <type_traits>

#include "heptapod/core/error.h"

namespace heptapod {

template <typename T>
void Transformer<T>::fold_adapters() {
  for (const LayerLinear& l : layer_linears()) fold_adapter(*l.linear);
}

template <typename T>
void Transformer<T>::pack_for_inference(const InferencePrecision& requested, const StoredMatrices& stored) {
  if constexpr (!std::is_same_v<T, float>) {
    throw Error("pack_for_inference: float models only");
  } else {
    if (packed_for_inference()) return;
    // A model over a base takes the base's packed matrices, one by one in the same order, and keeps its adapters.
    const InferencePrecision& precision = base_ ? base_->precision_ : requested;
    if (config_.lora.enabled() && !base_) {
      for (const auto& [name, matrix] : stored)
        require(!params_.contains(tensor_name(name.substr(0, name.rfind('/')), Leaf::LoraA)),
                name + ": a LoRA adapter over a matrix stored in " + compute_type_name(matrix.type) +
                    " (adapters fold into float32 weights only)");
      fold_adapters();
    }
    // All packed matrices share one mapping on huge pages. Packing pads each matrix's dimensions to its blocks
    // (at most 63 columns and 15 rows): twice the parameters and 16 MB hold the padding of any but the most
    // oddly shaped models, whose extra matrices then get memory of their own. Untouched room costs nothing.
    if (!base_)
      packed_storage_ = std::make_unique<kernels::PackedWeightsStorage>(params_.size() * sizeof(float) * 2 + (16u << 20));
    // What packing reads for a layer: the low-precision form a quantized file holds, else its float weights.
    auto source = [&](const Linear<T>& l) -> StoredMatrix {
      const std::string* name = params_.name_at(l.w);
      const auto it = name ? stored.find(*name) : stored.end();
      if (it != stored.end()) return it->second;
      return {ComputeType::Float32, l.w, nullptr, l.out, l.in};
    };
    // Packs `parts` into `into`; bias_in_product: whether forward() adds the bias inside the product
    // (prepare_for_batches readies the kernels for that). The parts' row-major pages go back (a base's
    // matrices, which a model over it shares, went back when the base was packed).
    auto make_packed = [&](Linear<T>& into, std::span<Linear<T>* const> parts, ComputeType type, bool relu,
                           bool bias_in_product, bool eight_bit = false) {
      std::shared_ptr<const kernels::WeightMatrix> weights;
      if (base_) {
        require(packed_.size() < base_->packed_.size(), "a model over a base: the base has fewer packed matrices");
        weights = base_->packed_[packed_.size()].weights;
        require(weights->out() == into.out && weights->in() == into.in,
                "a model over a base: the base's packed matrices differ in shape");
      } else {
        std::vector<StoredMatrix> sources;
        for (const Linear<T>* l : parts) sources.push_back(source(*l));
        weights = pack_weights(type, sources, packed_storage_.get(), eight_bit);
      }
      packed_.push_back({weights, bias_in_product && into.b != nullptr, relu});
      into.packed = weights.get();
      for (Linear<T>* l : parts) {
        if (!base_) params_.release(l->w, static_cast<std::size_t>(l->out) * l->in);
        l->w = nullptr;
      }
    };
    auto pack = [&](Linear<T>& l, bool relu, bool bias_in_product = true) {
      Linear<T>* const part[] = {&l};
      make_packed(l, part, precision.type, relu, bias_in_product);
    };
    // Packs the projections of `attn` that share an input (self: q|k|v into qkv; else k|v into kv) as one
    // matrix, with its own copy of their biases; the parts are left empty.
    auto pack_stacked = [&](MultiHeadAttention<T>& attn, bool self) {
      Linear<T>& into = self ? attn.qkv : attn.kv;
      std::vector<Linear<T>*> parts;
      if (self) {
        const auto all = attn.self_parts();
        parts.assign(all.begin(), all.end());
      } else {
        const auto all = attn.cross_parts();
        parts.assign(all.begin(), all.end());
      }
      int out = 0;
      for (const Linear<T>* l : parts) out += l->out;
      std::vector<T>& bias = stacked_biases_.emplace_back();  // (out), or empty for projections without biases
      for (const Linear<T>* l : parts)
        if (l->b) bias.insert(bias.end(), l->b, l->b + l->out);
      into = Linear<T>{nullptr, bias.empty() ? nullptr : bias.data(), nullptr, nullptr, parts.front()->in, out};
      const std::vector<const Linear<T>*> read(parts.begin(), parts.end());
      // The parts' adapters as one (none unless over a base: folded otherwise).
      into.adapter = stack_adapters(std::span<const Linear<T>* const>(read), into.in, out, adapter_stacks_);
      make_packed(into, parts, precision.type, false, true);
      for (Linear<T>* l : parts) *l = Linear<T>{nullptr, nullptr, nullptr, nullptr, l->in, l->out};
    };
    // A post-norm layer's sub-layers leave their last bias to the residual pass (sublayer_forward).
    const bool post = config_.norm == NormPosition::Post;
    const bool relu = config_.activation == Activation::Relu;  // other activations run after the product
    for (TransformerStack<T>* stack : {encoder_.get(), decoder_.get()}) {
      if (!stack) continue;
      for (int i = 0; i < stack->layer_count(); ++i) {
        auto& p = stack->layer(i).params();
        const bool cross = stack->layer(i).has_cross_attention();
        pack_stacked(p.self_attn, true);
        if (cross) {
          pack_stacked(p.cross_attn, false);
          pack(p.cross_attn.q_proj, false);
          pack(p.cross_attn.out_proj, false, !post);
        }
        pack(p.self_attn.out_proj, false, !post);
        pack(p.ffn.fc1, relu && !p.ffn.gated());  // a gated network's `up` is multiplied, not activated
        if (p.ffn.gated()) pack(p.ffn.gate, false);
        pack(p.ffn.fc2, false, !post);
      }
    }
    // The output projection; an embedding table that is the same matrix reads it through the packed copy.
    // With int4 it is kept in 8 bits (Q8_0): docs/benchmarks.md measures what 4 bits there would cost.
    if (language_model_) {
      Linear<T>& projection = language_model_->projection();
      const T* table = projection.w;
      Linear<T>* const output[] = {&projection};
      make_packed(projection, output, precision.float_output ? ComputeType::Float32 : precision.type, false, true, true);
      for (TransformerStack<T>* stack : {encoder_.get(), decoder_.get()}) {
        Embedding<T>* e = stack ? &stack->embedding() : nullptr;
        if (!e || e->table != table) continue;
        e->packed = projection.packed;
        e->table = nullptr;
      }
      language_model_->cut_column_blocks();
    }
    precision_ = precision;
  }
}

template <typename T>
void Transformer<T>::prepare_for_batches() {
  for (const Packed& p : packed_) p.weights->prepare(p.bias, p.relu, p.weights->out());
  if (!language_model_) return;
  const Linear<T>& projection = language_model_->projection();
  for (const auto& [v0, n] : language_model_->column_blocks())
    projection.packed->prepare(projection.b != nullptr, false, n);
}

template void Transformer<float>::fold_adapters();
template void Transformer<double>::fold_adapters();
template void Transformer<float>::pack_for_inference(const InferencePrecision&, const StoredMatrices&);
template void Transformer<double>::pack_for_inference(const InferencePrecision&, const StoredMatrices&);
template void Transformer<float>::prepare_for_batches();
template void Transformer<double>::prepare_for_batches();

}  // namespace heptapod
