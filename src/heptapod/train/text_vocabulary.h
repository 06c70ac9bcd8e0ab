// The one vocabulary of a task that trains on a text file (a language model, an encoder, a classifier): the
// model to fine-tune's, the --vocab file, an earlier run's in the output directory, or trained now on a
// sample of the text's documents; saved in the output directory as vocab.spm.
#pragma once

#include "heptapod/data/text_file.h"
#include "heptapod/data/vocabulary.h"
#include "heptapod/train/train_config.h"

namespace heptapod {

// fine_tuned: the vocabulary of the model to fine-tune (null for a fresh model). A vocabulary trained here
// learns from the documents of config.train_text as `split` cuts them (`unit` names them in the log), with
// the mask piece (data/masking.h) when `mask_piece`. Rank 0 saves it (rank as TrainingTask::prepare; only
// rank 0 may train one). Throws Error when the text holds nothing to train on.
Vocabulary text_vocabulary(const TrainConfig& config, int rank, const Vocabulary* fine_tuned, DocumentSplit split,
                           const char* unit, bool mask_piece);

}  // namespace heptapod
