// `heptapod info`: version, BLAS, threads, CPU features and the kernels' ISA (with why it was chosen); with
// -m MODEL, also what the model file holds: its kind and the commands that use it, shape, positions,
// vocabularies, stored precision and config.
#include <algorithm>
#include <cstdio>
#include <map>
#include <string>

#include "commands.h"
#include "heptapod/data/tokenizer.h"
#include "heptapod/core/cpu_info.h"
#include "heptapod/kernels/blas.h"
#include "heptapod/train/communicator.h"
#include "heptapod/kernels/isa.h"
#include "heptapod/kernels/low_precision_weights.h"
#include "heptapod/kernels/threads.h"
#include "heptapod/data/language_codes.h"
#include "heptapod/data/model_vocab.h"
#include "heptapod/data/stored_chat_template.h"
#include "heptapod/data/gguf_import.h"
#include "heptapod/io/adapter_file.h"
#include "heptapod/io/model_file.h"

namespace heptapod::app {

namespace {

// What the commands do with a model of each kind.
const char* commands_for(Architecture kind) {
  switch (kind) {
    case Architecture::EncoderDecoder: return "translate, score --source/--target, serve, train --init";
    case Architecture::DecoderOnly: return "generate, score --input, train --init";
    case Architecture::EncoderOnly: break;
  }
  return "embed, classify (a classifier), train --init (pre-training goes on, or a classifier is fine-tuned)";
}

// A rotary model's positions: theta, the scaling and its numbers, the context and what capped it.
void print_rotary(const ModelConfig& c) {
  char scaling[96] = "";
  if (c.rope.scaling == RopeScaling::Linear) std::snprintf(scaling, sizeof scaling, " x%g", c.rope.factor);
  else if (c.rope.scaling != RopeScaling::None)
    std::snprintf(scaling, sizeof scaling, " x%g past %d positions", c.rope.factor, c.rope.original_positions);
  const std::string context = c.max_positions > 0 ? std::to_string(c.max_positions) : "unbounded";
  std::printf("positions: rotary, theta %g, %s scaling%s; context %s%s\n", c.rope.theta,
              rope_scaling_name(c.rope.scaling), scaling, context.c_str(),
              c.sliding_window > 0 ? " (capped at the checkpoint's sliding window)" : "");
}

// An adapter file: its adapters' rank, alpha, targets and size, and the base it needs.
void print_adapter(const SafetensorsFile& file) {
  const AdapterInfo info = read_adapter_info(file);
  const LoraConfig& l = info.config.lora;
  std::string targets;
  for (const std::string& t : l.targets) targets += (targets.empty() ? "" : ",") + t;
  std::printf("\nadapter:  %s (LoRA; heptapod generate/translate/score/... --adapter, heptapod merge)\n",
              file.where().c_str());
  std::printf("lora:     rank %d, alpha %g (scale %g), targets %s\n", l.rank, l.alpha, l.scale(), targets.c_str());
  std::printf("size:     %lld parameters in %zu tensors (%.1f KiB)\n", info.parameters, file.tensors().size(),
              static_cast<double>(info.parameters) * 4 / 1024);
  std::printf("base:     a %s model, %lld parameters, weights checksum %s\n",
              architecture_name(info.config.architecture), parameter_count(info.config) - info.parameters,
              info.base_checksum.c_str());
}

void print_model(const std::string& path) {
  const SafetensorsFile file = open_model_file(path);
  if (is_adapter_file(file)) {
    print_adapter(file);
    return;
  }
  const ModelConfig c = read_model_config(file);
  const auto vocabs = read_vocabularies(file, c);
  std::printf("\nmodel:    %s\n", path.c_str());
  std::printf("kind:     %s (commands: %s)\n", architecture_name(c.architecture), commands_for(c.architecture));
  const std::string layers = c.architecture == Architecture::EncoderDecoder
                                 ? std::to_string(c.encoder_layers) + "+" + std::to_string(c.decoder_layers)
                                 : std::to_string(c.has_decoder() ? c.decoder_layers : c.encoder_layers);
  std::printf("shape:    %lld parameters, %s layers, d_model %d, %d heads, d_ff %d, %s-norm\n", parameter_count(c),
              layers.c_str(), c.d_model, c.n_heads, c.d_ff, norm_name(c.norm));
  std::printf("layers:   %s, %s feed-forward network%s, attention of %d query and %d key/value heads of %d%s%s\n",
              c.norm_type == NormType::Rms ? "RMSNorm" : "layer norm",
              c.gated_ffn ? (c.activation == Activation::Silu ? "SwiGLU" : "gated GELU") : "plain",
              c.ffn_bias ? "" : " without biases", c.n_heads, c.key_value_heads(), c.head_size(),
              c.qk_norm ? ", q/k norms" : "",
              c.attention_qkv_bias && c.attention_out_bias ? ""
              : c.attention_qkv_bias                        ? ", q/k/v biases alone"
                                                            : ", no biases");
  if (c.learned_positions > 0) std::printf("positions: learned, %d\n", c.position_limit());
  else if (c.rotary)
    print_rotary(c);
  else if (c.relative_positions)
    std::printf("positions: relative (Transformer-XL), u and v %s, clamp %s; segment memory %d\n",
                c.untie_relative ? "per layer" : "shared", c.clamp_length > 0 ? std::to_string(c.clamp_length).c_str() : "none",
                c.memory_length);
  else if (c.relative_buckets > 0)
    std::printf("positions: relative bias (T5), %d buckets up to distance %d, a table per stack%s%s\n",
                c.relative_buckets, c.relative_max_distance, c.scale_attention ? "" : "; scores not scaled",
                c.scale_output ? "; decoder output times d_model^-0.5" : "");
  else std::printf("positions: sinusoidal\n");
  if (c.architecture == Architecture::EncoderOnly)
    std::printf("encoder:  %d token types%s; head: %s%s\n", c.token_types, c.embedding_norm ? ", embedding norm" : "",
                c.mlm_head     ? "masked language model"
                : c.labels > 0 ? (std::to_string(c.labels) + (c.multi_label ? " classes (multi-label), " : " classes, ") +
                                  pooling_name(c.pooling) + " pooling").c_str()
                               : "none",
                c.pooler ? " (and a [CLS] pooler for classifiers fine-tuned from it)" : "");
  if (c.architecture == Architecture::EncoderOnly)
    std::printf("embed:    %s pooling%s%s, inputs of at most %d tokens%s\n", pooling_names(c.embed_pooling).c_str(),
                c.embed_dense_features > 0 ? (", a Dense module to " + std::to_string(c.embed_dense_features) +
                                              (c.embed_dense_tanh ? " (tanh)" : ""))
                                                 .c_str()
                                           : "",
                c.embed_normalize ? ", normalised" : "", c.encoder_input_limit(),
                c.double_separator ? "; pairs as <s> A </s></s> B </s>" : "");
  if (!vocabs) {
    std::printf("vocab:    none in the file\n");
  } else {
    std::string sizes;
    if (!vocabs->source.empty()) sizes += (c.has_decoder() ? "source " : "") + std::to_string(vocabs->source.size());
    if (!vocabs->target.empty()) sizes += std::string(sizes.empty() ? "" : ", ") + (c.has_encoder() ? "target " : "") +
                                          std::to_string(vocabs->target.size());
    const Vocabulary& one = vocabs->source.empty() ? vocabs->target : vocabs->source;
    std::printf("vocab:    %s pieces (%s)\n", sizes.c_str(),
                one.tokenizer() ? one.tokenizer()->kind() : one.heptapod_ids() ? "SentencePiece" : "SentencePiece, own ids");
  }
  const LanguageCodes languages = read_language_codes(file);
  if (!languages.empty()) {
    std::printf("languages: %zu (translate --source-lang/--target-lang; code=token id):", languages.codes().size());
    for (const auto& [code, id] : languages.codes()) std::printf(" %s=%d", code.c_str(), id);
    std::printf("\n");
  }
  if (const std::optional<StoredChatTemplate> chat = read_chat_template(file)) {
    const auto lines = std::count(chat->source.begin(), chat->source.end(), '\n') + 1;
    std::printf("chat:     a template of %zu characters, %ld lines (heptapod chat; heptapod chat --messages FILE "
                "--render shows a conversation's prompt)\n", chat->source.size(), static_cast<long>(lines));
  }
  std::string stored = compute_type_name(stored_precision(file).type);
  std::map<std::string, int> block_counts;  // ggml type name -> matrices stored in it
  for (const auto& [name, type] : ggml_types(file)) ++block_counts[kernels::ggml_type_name(type)];
  for (const auto& [type, count] : block_counts)
    stored += (&type == &block_counts.begin()->first ? " (" : ", ") + std::to_string(count) + " " + type;
  if (!block_counts.empty()) stored += " matrices)";
  std::printf("stored:   %s\n", stored.c_str());
  std::printf("config:   %s\n", to_json(c).c_str());
}

}  // namespace

Runner add_info_command(CLI::App& root) {
  auto* cmd = root.add_subcommand("info", "Print version, BLAS, threads, CPU features and the kernels' ISA (and with "
                                          "-m, what a model file holds and which commands use it)");
  auto threads = std::make_shared<int>(0);
  auto model = std::make_shared<std::string>();
  cmd->add_option("--threads", *threads, "Threads to use (0: all cores)")->check(CLI::NonNegativeNumber);
  cmd->add_option("-m,--model", *model, "Also describe this model file: its kind, the commands that use it, shape, "
                                        "vocabularies, precision and config (an adapter file: its rank, targets, "
                                        "size and base)");
  return [threads, model] {
    set_num_threads(*threads);
    const CpuInfo cpu = cpu_info();
    std::printf("heptapod %s\n", HEPTAPOD_VERSION);
    std::printf("blas:     %s\n", kernels::blas_description().c_str());
    std::printf("threads:  %d (of %d logical cores)\n", num_threads(), cpu.logical_cores);
    std::printf("cpu:      %s\n", cpu.brand.empty() ? "unknown" : cpu.brand.c_str());
    std::printf("features: %s\n", cpu_features_string(cpu).c_str());
    const kernels::IsaSelection& isa = kernels::selected_isa();
    std::printf("kernels:  %s (%s)\n", kernels::isa_name(isa.isa), isa.reason.c_str());
    std::printf("gemm isa: %s\n", kernels::blas_isa_description().c_str());
    std::printf("low-prec: %s\n", kernels::low_precision_paths().c_str());
    std::printf("mpi:      %s\n", mpi_description().c_str());
    if (!model->empty()) print_model(*model);
    return 0;
  };
}

}  // namespace heptapod::app
