// The small random models and sources the decoding tests search with.
#pragma once

#include <memory>
#include <vector>

#include "heptapod/model/config.h"
#include "heptapod/model/initialize.h"
#include "heptapod/model/transformer.h"
#include "test_util.h"

namespace heptapod::test {

inline ModelConfig decode_config(NormPosition norm, EmbeddingTying tie) {
  ModelConfig c = model_preset("tiny");
  c.src_vocab_size = c.tgt_vocab_size = 29;
  c.d_model = 32;
  c.n_heads = 4;
  c.d_ff = 48;
  c.norm = norm;
  c.tie_embeddings = tie;
  c.output_bias = tie == EmbeddingTying::None;
  return c;
}

inline std::unique_ptr<Transformer<float>> random_model(const ModelConfig& c, std::uint64_t seed) {
  auto m = std::make_unique<Transformer<float>>(c);
  initialize_parameters(m->parameters(), c, seed);
  // Sharpen the output distribution so searches are not ties between near-uniform choices.
  std::vector<float> noise(m->parameters().size());
  test::fill_uniform(noise, static_cast<unsigned>(seed), -0.3, 0.3);
  for (std::size_t i = 0; i < noise.size(); ++i) m->parameters().values()[i] += noise[i];
  return m;
}

inline std::vector<std::vector<int>> sources() {
  return {{5, 6, 7, 8, 9, 10}, {11, 4}, {20}, {3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13}, {}};
}

}  // namespace heptapod::test
