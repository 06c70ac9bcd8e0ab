// Dev-set evaluation.
#include "heptapod/train/validation.h"

#include <algorithm>
#include <cmath>

#include "heptapod/data/batcher.h"
#include "heptapod/decode/beam_search.h"
#include "heptapod/eval/bleu.h"

namespace heptapod {

ValidationResult validate_model(Transformer<float>& model, const DevSet& dev, const ModelVocabularies& vocabs,
                                int batch_tokens, int bleu_sentences, const SearchOptions& search, Arena& arena,
                                const LanguageTags& tags) {
  ValidationResult r;
  double nll = 0;
  for (const auto& indices : plan_in_order(dev.corpus, batch_tokens)) {
    arena.reset();
    const LossTotals t = model.evaluate(make_corpus_batch(dev.corpus, indices, model.config(), tags), 0.0f, arena);
    nll += t.nll;
    r.tokens += t.tokens;
  }
  r.cross_entropy = r.tokens > 0 ? nll / static_cast<double>(r.tokens) : 0.0;
  r.perplexity = std::exp(r.cross_entropy);

  const std::size_t n = std::min<std::size_t>(dev.corpus.size(), static_cast<std::size_t>(std::max(bleu_sentences, 0)));
  if (n == 0) return r;
  std::vector<std::string> hypotheses, references;
  IncrementalDecoder decoder(model);
  const std::size_t chunk = 32;
  for (std::size_t start = 0; start < n; start += chunk) {
    std::vector<std::vector<int>> sources, prefixes;
    for (std::size_t i = start; i < std::min(n, start + chunk); ++i) {
      sources.push_back(tags.tag_source({dev.corpus.source(i).begin(), dev.corpus.source(i).end()}));
      if (tags.target_extra() > 0) prefixes.push_back(tags.target_prefix);
      references.push_back(dev.references[i]);
    }
    for (const auto& out : beam_search(decoder, sources, search, prefixes))
      hypotheses.push_back(out.empty() ? std::string() : vocabs.target.decode(tags.untag_target(out[0].tokens)));
  }
  r.bleu = eval::corpus_bleu(hypotheses, {references}).score;
  r.bleu_sentences = static_cast<int>(n);
  return r;
}

}  // namespace heptapod
