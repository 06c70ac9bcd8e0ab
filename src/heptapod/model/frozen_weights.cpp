// Training over a frozen base (LoRA), QLoRA's scheme: each linear layer's matrix and the output projection that
// the file stores in low precision (int8, bfloat16, int4, ggml) stay in that form, and the layers' products
// read them dequantized, a block of rows at a time (Linear::frozen); their float32 parameters are never
// filled. Frozen float32 matrices are read through the same blocks, in place.
#include <set>
#include <string>
#include <type_traits>

#include "heptapod/core/error.h"
#include "heptapod/model/transformer.h"

namespace heptapod {

template <typename T>
void Transformer<T>::hold_frozen_weights(const StoredMatrices& stored) {
  if constexpr (!std::is_same_v<T, float>) {
    throw Error("hold_frozen_weights: float models only");
  } else {
    require(!packed_for_inference(), "hold_frozen_weights: the model was packed for inference");
    std::set<std::string> held;
    // Makes a frozen l read its rows by blocks: in the stored form when `stored` has its matrix (returned), else
    // its float32 rows in place (null returned).
    auto hold = [&](Linear<T>& l) -> const kernels::WeightMatrix* {
      const std::string* name = l.w ? params_.name_at(l.w) : nullptr;
      if (!name) return nullptr;
      const auto it = stored.find(*name);
      if (!params_.spec(*name).frozen) {
        if (it != stored.end())
          throw Error(*name + ": stored in " + compute_type_name(it->second.type) +
                      ", but trained (only a frozen base may stay in low precision)");
        return nullptr;
      }
      kernels::RowSource rows{nullptr, l.w, l.out};
      if (it != stored.end()) {
        frozen_matrices_.push_back(pack_weights(it->second.type, std::span(&it->second, 1), nullptr));
        rows = {frozen_matrices_.back().get(), nullptr, l.out};
        l.w = nullptr;
        held.insert(*name);
      }
      frozen_rows_.push_back(rows);
      l.frozen = &frozen_rows_.back();
      l.frozen_parts = 1;
      return rows.matrix;
    };
    for (const LayerLinear& l : layer_linears()) hold(*l.linear);
    if (language_model_) {
      Linear<T>& projection = language_model_->projection();
      const T* table = projection.w;
      // An embedding tied to the projection reads its rows through the held matrix, as a packed model's does.
      if (const kernels::WeightMatrix* held_projection = hold(projection))
        for (TransformerStack<T>* stack : {encoder_.get(), decoder_.get()}) {
          Embedding<T>* e = stack ? &stack->embedding() : nullptr;
          if (!e || e->table != table) continue;
          require(e->dtable == nullptr, "hold_frozen_weights: an embedding tied to a frozen projection is trained");
          e->packed = held_projection;
          e->table = nullptr;
        }
    }
    for (const auto& [name, matrix] : stored)
      require(held.count(name) > 0, name + ": stored in " + compute_type_name(matrix.type) +
                                        ", but not a linear layer's matrix nor the output projection");
  }
}

template void Transformer<float>::hold_frozen_weights(const StoredMatrices&);
template void Transformer<double>::hold_frozen_weights(const StoredMatrices&);

}  // namespace heptapod
