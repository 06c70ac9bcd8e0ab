// The masked language-model training task: one vocabulary with the mask piece, masked blocks, validation
// under fixed masks.
#include "heptapod/train/masked_lm_task.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "heptapod/core/error.h"
#include "heptapod/core/random.h"
#include "heptapod/train/text_vocabulary.h"

namespace heptapod {

MaskedLmTask::MaskedLmTask(const TrainConfig& config) : config_(config), documents_(config_) {}

void MaskedLmTask::prepare(int rank) {
  const TrainConfig& c = config_;
  vocabs_.source = text_vocabulary(c, rank, c.init ? &c.init->vocabularies.source : nullptr, c.documents,
                                   "documents", true);
  documents_.prepare(rank, vocabs_.source);
  // Masking chooses among ordinary tokens: text of unknown words alone teaches nothing.
  const DocumentCorpus& corpus = documents_.train();
  bool ordinary = false;
  for (std::size_t d = 0; d < corpus.size() && !ordinary; ++d)
    for (const int id : corpus.document(d)) ordinary = ordinary || !vocabs_.source.is_special(id);
  require(ordinary, c.train_text + ": every token of it is unknown to the vocabulary or special, so masked "
                    "language modelling has nothing to mask");
}

void MaskedLmTask::prepare_validation() { documents_.prepare_validation(vocabs_.source); }

ModelConfig MaskedLmTask::resolve_model(const ModelConfig& requested) const {
  const Vocabulary& vocab = vocabs_.source;
  ModelConfig m = requested;
  m.src_vocab_size = vocab.size();
  // A converted model names its own mask token ([MASK]); else the vocabulary an encoder's training makes has one.
  m.mask_id = requested.mask_id >= 0 ? requested.mask_id : vocab.id_of(kMaskPiece);
  require(m.mask_id >= 0 && vocab.is_special(m.mask_id),
          "train: an encoder's vocabulary needs a \"" + std::string(kMaskPiece) + "\" control piece (as the "
          "vocabulary an encoder's training makes has)");
  m.mlm_head = true;
  if (vocab.heptapod_ids()) {  // else the model's own
    m.pad_id = kPadId;
    m.bos_id = kBosId;
    m.eos_id = kEosId;
  }
  return m;
}

std::string MaskedLmTask::data_summary() const {
  return documents_.summary(" in blocks of " + std::to_string(config_.context));
}

const MaskingPlan& MaskedLmTask::masking(const ModelConfig& model) {
  if (!masking_)
    masking_ = std::make_unique<MaskingPlan>(vocabs_.source, model.mask_id,
                                             MaskingOptions{config_.mask_rate, config_.whole_word_mask});
  return *masking_;
}

bool MaskedLmTask::next_batch(TrainState& state, int max_epochs, const ModelConfig& model, Batch& batch) {
  const DocumentStream stream(documents_.train(), model);
  return next_batch_of_epochs(state, max_epochs, [&](const TrainState& at) {
    const std::vector<std::int64_t> chosen = documents_.shuffled(at, blocks(stream));
    if (chosen.empty()) return false;
    // A batch's draws: keyed by the run's seed and the batch's place in the data order.
    batch = masking(model).batch(stream, chosen, config_.context,
                                 mix64(config_.seed) ^ mix64(at.epoch * 0x100000001b3ull + at.batch_in_epoch));
    return true;
  });
}

// The dev text's blocks under masks that depend on the block alone, the same at every validation: the
// masked tokens' cross-entropy, perplexity and accuracy (the criterion: cross-entropy).
ValidationReport MaskedLmTask::validate(Transformer<float>& model, Arena& arena) {
  const DocumentStream stream(documents_.dev(), model.config());
  LossTotals totals;
  for (const std::vector<std::int64_t>& chosen : documents_.in_order(blocks(stream))) {
    arena.reset();
    const std::uint64_t key = mix64(0xde5c0de ^ static_cast<std::uint64_t>(chosen.front()));
    totals += model.evaluate(masking(model.config()).batch(stream, chosen, config_.context, key), 0.0f, arena);
  }
  ValidationReport report;
  const double tokens = static_cast<double>(std::max<std::int64_t>(totals.tokens, 1));
  const double ce = totals.nll / tokens, accuracy = static_cast<double>(totals.correct) / tokens;
  report.criterion = ce;
  report.metrics = {{"masked_ce", ce}, {"masked_ppl", std::exp(ce)}, {"masked_accuracy", accuracy},
                    {"masked_tokens", totals.tokens}};
  char summary[128];
  std::snprintf(summary, sizeof summary, "masked ce %.4f ppl %.2f accuracy %.4f (%lld tokens)", ce, std::exp(ce),
                accuracy, static_cast<long long>(totals.tokens));
  report.summary = summary;
  return report;
}

}  // namespace heptapod
