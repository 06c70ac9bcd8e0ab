// Everything `heptapod train` needs, typed. Filled from the command line at the boundary, its model settled
// by resolve_model (train/model_choice.h); what a resume must agree on is stored in every checkpoint
// (resume_key), so a resume can check it is continuing the same run.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "heptapod/data/model_vocab.h"
#include "heptapod/data/parallel_corpus.h"
#include "heptapod/data/text_file.h"
#include "heptapod/data/vocabulary.h"
#include "heptapod/decode/beam_search.h"
#include "heptapod/kernels/matmul_precision.h"
#include "heptapod/model/config.h"
#include "heptapod/train/adam.h"
#include "heptapod/train/lr_schedule.h"

namespace heptapod {

// What trains the model (train/training_task.h), settled with it: translation (an encoder-decoder), causal
// language modelling (decoder-only), masked language modelling or classification (encoder-only).
enum class TaskKind { Translation, LanguageModel, MaskedLm, Classification };

// The model file a run fine-tunes (--init), read once: its config, weights and vocabularies.
struct InitModel {
  std::string path;
  SafetensorsFile file;            // its weights, which the Trainer loads
  ModelConfig config;              // as the file stores it
  ModelVocabularies vocabularies;  // with their own ids, if it was converted
};

struct TrainConfig {
  // Data.
  std::string train_source, train_target;
  std::string valid_source, valid_target;  // optional
  std::string vocab;                        // joint vocabulary file; or source_vocab + target_vocab
  std::string source_vocab, target_vocab;
  // A language model's data instead (decoder-only or encoder-only): the documents of one text file (and of
  // a dev file), each as bos, its tokens and eos, end to end, cut into blocks of `context` tokens.
  std::string train_text, valid_text;
  DocumentSplit documents = DocumentSplit::Lines;
  int context = 256;
  // An encoder's masked language modelling (data/masking.h): the share of tokens chosen, whole words or not.
  float mask_rate = 0.15f;
  bool whole_word_mask = false;
  // What an encoder-only model trains for: masked language modelling, or classification of the lines of
  // train_text by the line-aligned classes of train_labels (train/classification_task.h), its pooled vector
  // as `pooling` says, best.htp and early stopping following `valid_metric`.
  enum class EncoderTask { MaskedLm, Classify } encoder_task = EncoderTask::MaskedLm;
  std::string train_labels, valid_labels;
  bool sentence_pairs = false;  // each text line a sentence pair "first<TAB>second" (data/encoder_input.h)
  Pooling pooling = Pooling::Mean;
  enum class ValidMetric { Accuracy, MacroF1 } valid_metric = ValidMetric::Accuracy;
  VocabConfig vocab_config;                 // used to train vocabularies when none is given
  bool joint_vocab = true;
  LengthFilter filter;
  // A multilingual --init model's translation direction (its codes or ISO 639-1 codes; empty: untagged): every
  // pair tagged as translate tags it (data/language_codes.h).
  std::string source_language, target_language;
  std::string output_dir = "runs/train";

  // Model, settled by resolve_model (train/model_choice.h): its config (before the task fixes the vocabulary
  // sizes and special ids), the task that trains it, and for fine-tuning the model file to start from (its
  // weights and vocabularies; model is its config), with a fresh optimizer and schedule.
  ModelConfig model;
  TaskKind task = TaskKind::Translation;
  std::shared_ptr<const InitModel> init;  // null: a fresh model
  // Parameter groups left as they are: "embeddings" (every embedding table and the output projection),
  // "encoder", "decoder" (their layers and final norms).
  std::vector<std::string> freeze;

  // Batching and optimisation.
  int batch_tokens = 4096;   // padded source + target tokens per micro-batch (a language model: blocks x context)
  int accumulate = 1;        // micro-batches per update
  int window = 100000;       // sentences sorted together when batching
  LrSchedule schedule;
  AdamConfig adam;
  float label_smoothing = 0.1f;
  double clip_norm = 0.0;    // global gradient-norm clipping; 0 disables
  long max_steps = 100000;   // updates
  int max_epochs = 0;        // 0: no limit
  double max_minutes = 0;    // > 0: stop once the updates' time (summed over resumes) reaches this; 0: no limit
  bool overlap_allreduce = true;  // several processes: sum each layer's gradients while backward goes on

  // Validation and checkpoints.
  int valid_every = 1000;        // updates between validations (and checkpoints)
  int keep_checkpoints = 5;
  int average_last = 1;          // > 1: also write averaged.htp, the mean of the last so many checkpoints
  int patience = 0;              // stop after this many validations without improvement; 0 disables
  int valid_bleu_sentences = 500;  // dev sentences decoded for BLEU (0: no BLEU)
  SearchOptions valid_search;      // beam 4, alpha 0.6, up to source length + 50, as for translation

  std::uint64_t seed = 1;
  int threads = 0;
  // The large products' inputs: float32, or bfloat16 with float32 accumulation where the CPU has AVX512_BF16
  // (kernels/matmul_precision.h); a run setting, not part of what a resume must agree on.
  kernels::MatmulPrecision matmul_precision = kernels::MatmulPrecision::float32;
  int log_every = 100;  // updates between metrics lines
};

// Throws Error naming the first invalid setting.
void validate(const TrainConfig& config);

// The settings a resume must agree on (model, data, batching, optimisation) as JSON text; run-length
// settings (max_steps, patience, ...) may change between runs.
std::string resume_key(const TrainConfig& config);

}  // namespace heptapod
