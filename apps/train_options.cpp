// The option table of `heptapod train` and heptapod.train, and how its flags become a TrainConfig.
#include "train_options.h"

#include <algorithm>
#include <map>

#include "commands.h"

namespace heptapod::app {

void add_train_options(CLI::App* cmd, const std::shared_ptr<TrainFlags>& f) {
  TrainConfig& c = f->config;
  cmd->add_option("--arch", f->architecture,
                  "encoder-decoder (translation: --source/--target; the default), decoder-only (a language "
                  "model, GPT: --text) or encoder-only (masked language modelling, BERT: --text)")
      ->check(CLI::IsMember({"encoder-decoder", "decoder-only", "encoder-only"}));
  cmd->add_option("--source", c.train_source, "Training source text, one sentence per line (translation)");
  cmd->add_option("--target", c.train_target, "Training target text, line-aligned with --source (translation)");
  cmd->add_option("--valid-source", c.valid_source, "Dev source text");
  cmd->add_option("--valid-target", c.valid_target, "Dev target text");
  cmd->add_option("--text", c.train_text, "Training text of a language model (--arch decoder-only or encoder-only)");
  cmd->add_option("--valid-text", c.valid_text, "Dev text of a language model");
  cmd->add_option("--documents", f->documents,
                  "A language model's documents: lines (each line) or paragraphs (split by blank lines)")
      ->check(CLI::IsMember({"lines", "paragraphs"}));
  cmd->add_option("--context", c.context,
                  "A language model's context: tokens per training block (default 256, or the learned positions "
                  "of the --init model if fewer)")
      ->check(CLI::PositiveNumber)
      ->each([f](const std::string&) { f->context_given = true; });
  cmd->add_option_function<std::string>(
         "--task",
         [&c](const std::string& task) {
           c.encoder_task = task == "classify" ? TrainConfig::EncoderTask::Classify : TrainConfig::EncoderTask::MaskedLm;
         },
         "An encoder-only model's task: mlm (masked language modelling; the default) or classify (--labels)")
      ->check(CLI::IsMember({"mlm", "classify"}));
  cmd->add_option("--labels", c.train_labels,
                  "--task classify: the classes of each --text line, on the line of the same number (several, "
                  "space-separated: multi-label)");
  cmd->add_option("--valid-labels", c.valid_labels, "--task classify: the classes of each --valid-text line");
  cmd->add_flag("--pairs", c.sentence_pairs,
                "--task classify: each text line is a sentence pair, its two texts separated by a tab (read as "
                "[CLS] first [SEP] second [SEP], the second of token type 1)");
  cmd->add_option_function<std::string>(
         "--pooling", [&c](const std::string& name) { c.pooling = pooling_from_name(name, "--pooling"); },
         "--task classify: the sentence vector the classifier reads: mean (of the encoder's output rows; the "
         "default) or cls (the start token's, through BERT's tanh pooler)")
      ->check(CLI::IsMember({"mean", "cls"}));
  cmd->add_option_function<std::string>(
         "--valid-metric",
         [&c](const std::string& name) {
           c.valid_metric = name == "macro-f1" ? TrainConfig::ValidMetric::MacroF1 : TrainConfig::ValidMetric::Accuracy;
         },
         "--task classify: what best.htp and --patience follow: accuracy (the default) or macro-f1")
      ->check(CLI::IsMember({"accuracy", "macro-f1"}));
  cmd->add_option("--mask-rate", c.mask_rate, "An encoder's masked language modelling: the share of tokens masked")
      ->check(CLI::Range(0.0, 1.0) & kFinite);
  cmd->add_flag("--whole-word-mask", c.whole_word_mask, "An encoder's masked language modelling: mask whole words");
  cmd->add_option("--positions", f->positions,
                  "sinusoidal (the paper's; the default but for encoder-only models), learned (a table per "
                  "stack, as GPT-2 and BERT; an encoder-only model's default), relative (Transformer-XL's, "
                  "decoder-only: in the attention scores, any length) or rotary (LLaMA's: queries and keys rotated "
                  "by position, any length)")
      ->check(CLI::IsMember({"sinusoidal", "learned", "relative", "rotary"}));
  cmd->add_option("--rope-theta", f->model.rope_theta, "With --positions rotary: the rotation's base (default 10000)")
      ->check(CLI::Range(1.0 + 1e-9, 1e12));
  cmd->add_option("--norm-type", f->norm_type, "layer (the paper's layer norm) or rms (LLaMA's RMSNorm)")
      ->check(CLI::IsMember({"layer", "rms"}));
  cmd->add_option("--ffn", f->ffn,
                  "plain (two layers around --activation's choice), swiglu (LLaMA's gated SiLU) or geglu (gated GELU)")
      ->check(CLI::IsMember({"plain", "swiglu", "geglu"}));
  cmd->add_option("--kv-heads", f->model.kv_heads,
                  "Grouped-query attention: key/value heads, a divisor of --heads (1: multi-query; default: --heads)")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--head-dim", f->model.head_dim, "Each attention head's width (default: d_model / heads)")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--biases", f->biases,
                  "Linear layers with biases: all (the paper's), qkv (the attention's q, k, v alone: Qwen 2) or "
                  "none (LLaMA)")
      ->check(CLI::IsMember({"all", "qkv", "none"}));
  cmd->add_flag("--qk-norm", f->model.qk_norm,
                "An RMSNorm of each head's queries and keys before the rotation (Qwen 3; needs --norm-type rms)");
  cmd->add_option("--memory", f->model.memory_length,
                  "With --positions relative: Transformer-XL's segment memory, the last M hidden states of every "
                  "layer that each --context segment attends over; the text is read as parallel streams "
                  "(--batch-tokens / --context of them per micro-batch), segment after segment (0: none)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--clamp-length", f->model.clamp_length,
                  "With --positions relative: distances past this use its encoding (0: none)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_flag("--untie-relative", f->model.untie_relative,
                "With --positions relative: each layer its own content and position biases (u, v) instead of "
                "one pair for all");
  cmd->add_option("--max-positions", f->model.max_positions,
                  "With --positions learned: the table's rows, the longest sequence (default: --context for a "
                  "language model or an encoder, 1024 otherwise)")
      ->check(CLI::PositiveNumber);
  cmd->add_option("-o,--output", c.output_dir, "Output directory (checkpoints, metrics, model)");
  cmd->add_option("--vocab", c.vocab, "Joint SentencePiece vocabulary (from heptapod vocab)");
  cmd->add_option("--source-vocab", c.source_vocab, "Source vocabulary (with --target-vocab)");
  cmd->add_option("--target-vocab", c.target_vocab, "Target vocabulary (with --source-vocab)");
  cmd->add_option("--vocab-size", c.vocab_config.size, "Pieces per vocabulary when one is trained here")
      ->check(CLI::PositiveNumber);
  cmd->add_flag("--byte-fallback", c.vocab_config.byte_fallback,
                "A vocabulary trained here spells unseen characters as UTF-8 bytes instead of unk");
  cmd->add_option("--vocab-model", f->vocab_model, "bpe, unigram, char, word (space-separated symbols), or byte-bpe (GPT-2's byte-level BPE)")
      ->check(CLI::IsMember({"bpe", "unigram", "char", "word", "byte-bpe"}));
  cmd->add_flag("--separate-vocab", f->separate_vocab, "Train separate source and target vocabularies");
  cmd->add_option("--init", f->model.init_model,
                  "Fine-tune this model file: its architecture, weights and vocabularies, a fresh optimizer")
      ->check(CLI::ExistingFile);
  cmd->add_option("--source-lang", c.source_language,
                  "With --init of a multilingual model: the source language, one of its codes (heptapod info lists "
                  "them) or an ISO 639-1 code; every source is tagged with it, as translate tags it");
  cmd->add_option("--target-lang", c.target_language,
                  "With --init of a multilingual model: the target language, as --source-lang; every target "
                  "begins with its code, as translate forces it");
  cmd->add_option("--freeze", c.freeze, "With --init: leave parameter groups as they are (embeddings, encoder, "
                                        "decoder; comma-separated)")
      ->delimiter(',');
  cmd->add_option_function<int>(
         "--lora",
         [f](int rank) {
           if (!f->model.lora) f->model.lora = LoraConfig{};
           f->model.lora->rank = rank;
         },
         "With --init: train LoRA adapters of this rank (PEFT's default: 8) beside the targeted matrices, the base "
         "frozen; the run writes adapter.htp, a small file for --adapter and heptapod merge")
      ->check(integer_check<int>());
  cmd->add_option("--lora-alpha", f->lora_alpha, "With --lora: the adapters' alpha, scaling them by alpha / rank "
                                                 "(default 8, as PEFT)")
      ->check(CLI::PositiveNumber & kFinite);
  cmd->add_option("--lora-dropout", f->lora_dropout,
                  "With --lora: dropout of each adapter's input in training (PEFT's lora_dropout; default 0)")
      ->check(kRate);
  cmd->add_option("--lora-targets", f->lora_targets,
                  std::string("With --lora: the matrices adapted, comma-separated, of ") + lora_target_names() +
                      " (self-attention's q, k, v, o; cross-attention's xq, xk, xv, xo; ffn: the feed-forward "
                      "network's; default q,v as PEFT)")
      ->delimiter(',');
  cmd->add_option("--preset", f->model.preset, "Model preset: tiny, small, base, big")
      ->check(CLI::IsMember({"tiny", "small", "base", "big"}))
      ->each([f](const std::string&) { f->model.preset_given = true; });
  cmd->add_option("--d-model", f->model.d_model, "Override d_model")->check(CLI::PositiveNumber);
  cmd->add_option("--heads", f->model.heads, "Override attention heads")->check(CLI::PositiveNumber);
  cmd->add_option("--d-ff", f->model.d_ff, "Override the feed-forward size")->check(CLI::PositiveNumber);
  cmd->add_option("--layers", f->model.layers, "Override encoder and decoder layers")->check(CLI::PositiveNumber);
  cmd->add_option("--encoder-layers", f->model.encoder_layers, "Override encoder layers")->check(CLI::PositiveNumber);
  cmd->add_option("--decoder-layers", f->model.decoder_layers, "Override decoder layers")->check(CLI::PositiveNumber);
  cmd->add_option("--dropout", f->model.dropout, "Residual dropout")->check(kRate);
  cmd->add_option("--attention-dropout", f->model.attention_dropout, "Attention-probability dropout")->check(kRate);
  cmd->add_option("--activation-dropout", f->model.activation_dropout, "FFN activation dropout")->check(kRate);
  cmd->add_option("--embedding-dropout", f->model.embedding_dropout, "Embedding dropout")->check(kRate);
  cmd->add_option("--norm", f->norm, "post (the paper) or pre")->check(CLI::IsMember({"post", "pre"}));
  cmd->add_option("--tie", f->tie,
                  "Embedding tying: all, target_output, none, or embeddings (one table for both embeddings, the "
                  "output layer its own: a converted T5's; an encoder-decoder with one vocabulary)")
      ->check(CLI::IsMember({"all", "target_output", "none", "embeddings"}));
  cmd->add_option("--max-length", c.filter.max_tokens, "Drop pairs with a side longer than this (tokens)")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--max-ratio", c.filter.max_ratio, "Drop pairs whose length ratio exceeds this (0: off)")
      ->check(CLI::NonNegativeNumber & kFinite);
  cmd->add_option("--batch-tokens", c.batch_tokens, "Padded source+target tokens per micro-batch")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--accumulate", c.accumulate, "Micro-batches per update (gradient accumulation)")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--window", c.window, "Sentences sorted by length together when batching")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--lr-schedule", f->schedule, "noam (the paper; the default) or inverse-sqrt (fine-tuning's default)")
      ->check(CLI::IsMember({"noam", "inverse-sqrt"}));
  cmd->add_option("--warmup", c.schedule.warmup_steps, "Warm-up updates (fine-tuning: 100)")
      ->check(CLI::PositiveNumber)
      ->each([f](const std::string&) { f->warmup_given = true; });
  cmd->add_option("--lr-scale", c.schedule.scale, "Factor on the noam learning rate")
      ->check(CLI::PositiveNumber & kFinite);
  cmd->add_option("--lr", c.schedule.peak_lr, "Peak learning rate (inverse-sqrt; fine-tuning: 5e-4)")
      ->check(CLI::PositiveNumber & kFinite)
      ->each([f](const std::string&) { f->lr_given = true; });
  cmd->add_option("--cooldown", c.schedule.cooldown_steps,
                  "The last this many updates before --steps lower the learning rate linearly towards 0 (0: off)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--label-smoothing", c.label_smoothing, "Label smoothing epsilon")->check(kRate);
  cmd->add_option("--clip-norm", c.clip_norm, "Clip the global gradient norm (0: off)")
      ->check(CLI::NonNegativeNumber & kFinite);
  cmd->add_flag("!--no-overlap-allreduce", c.overlap_allreduce,
                "Under mpirun: sum the gradients after the backward pass instead of layer by layer during it");
  cmd->add_option("--steps", c.max_steps, "Stop after this many updates")
      ->check(integer_check<long>() & CLI::PositiveNumber);
  cmd->add_option("--epochs", c.max_epochs, "Stop after this many epochs (0: no limit)")->check(CLI::NonNegativeNumber);
  cmd->add_option("--minutes", c.max_minutes,
                  "Stop after this many minutes of training: the updates' time, summed over resumes, validation "
                  "excluded (0: no limit)")
      ->check(CLI::NonNegativeNumber & kFinite);
  cmd->add_option("--valid-every", c.valid_every, "Updates between validations and checkpoints")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--keep-checkpoints", c.keep_checkpoints, "Checkpoints kept")->check(CLI::PositiveNumber);
  cmd->add_option("--average", c.average_last,
                  "At the end, also write averaged.htp: the parameter mean of the last N checkpoints (kept)")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--patience", c.patience, "Stop after this many validations without improvement (0: off)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--valid-bleu-sentences", c.valid_bleu_sentences, "Dev sentences translated for BLEU (0: none)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--valid-beam", c.valid_search.beam, "Beam size for the dev BLEU translations")->check(CLI::Range(1, 64));
  cmd->add_option("--log-every", c.log_every, "Updates between metrics records")->check(CLI::PositiveNumber);
  cmd->add_option("--seed", c.seed, "Random seed (initialisation, data order, dropout)")
      ->check(integer_check<std::uint64_t>());
  cmd->add_option("--threads", c.threads, "Threads (0: all cores)")->check(CLI::NonNegativeNumber);
  cmd->add_option("--matmul-precision", c.matmul_precision,
                  "float32, or bfloat16: the large products' inputs rounded to bfloat16, float32 accumulation "
                  "(CPUs with AVX512_BF16; float32 elsewhere)")
      ->transform(CLI::CheckedTransformer(std::map<std::string, kernels::MatmulPrecision>{
          {"float32", kernels::MatmulPrecision::float32}, {"bfloat16", kernels::MatmulPrecision::bfloat16}}));
}

TrainConfig resolve_train_flags(TrainFlags f) {
  TrainConfig& c = f.config;
  ModelChoice& m = f.model;
  if (f.architecture) m.architecture = architecture_from_name(*f.architecture, "--arch");
  if (!f.positions.empty())
    m.positions = f.positions == "learned"    ? PositionChoice::Learned
                  : f.positions == "relative" ? PositionChoice::Relative
                  : f.positions == "rotary"   ? PositionChoice::Rotary
                                              : PositionChoice::Sinusoidal;
  if (!f.norm_type.empty()) m.norm_type = norm_type_from_name(f.norm_type, "--norm-type");
  if (!f.ffn.empty())
    m.ffn = f.ffn == "swiglu" ? FfnChoice::SwiGlu : f.ffn == "geglu" ? FfnChoice::GeGlu : FfnChoice::Plain;
  if (!f.biases.empty())
    m.biases = f.biases == "qkv" ? BiasChoice::Qkv : f.biases == "none" ? BiasChoice::None : BiasChoice::All;
  if (!f.norm.empty()) m.norm = norm_from_name(f.norm, "--norm");
  if (!f.tie.empty()) m.tie = tying_from_name(f.tie, "--tie");
  c.documents = document_split_from_name(f.documents, "--documents");
  require(m.lora || (!f.lora_alpha && !f.lora_dropout && f.lora_targets.empty()),
          "--lora-alpha, --lora-dropout and --lora-targets need --lora");
  if (m.lora && f.lora_alpha) m.lora->alpha = *f.lora_alpha;
  if (m.lora && f.lora_dropout) m.lora->dropout = *f.lora_dropout;
  if (m.lora && !f.lora_targets.empty()) m.lora->targets = f.lora_targets;
  resolve_model(m, c);
  if (!f.context_given && c.init) c.context = std::min(c.context, c.model.position_limit());
  c.vocab_config.model = vocab_model_from_name(f.vocab_model);
  c.joint_vocab = !f.separate_vocab;
  c.schedule.kind = f.schedule.value_or("noam") == "noam" ? LrSchedule::Kind::Noam : LrSchedule::Kind::InverseSqrt;
  if (c.init) apply_fine_tuning_defaults(c.schedule, f.schedule.has_value(), f.warmup_given, f.lr_given);
  return c;
}

}  // namespace heptapod::app
