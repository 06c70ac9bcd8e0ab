// `heptapod convert`: brings pre-trained weights into a complete Heptapod model file (weights, config and
// vocabularies): PyTorch nn.Transformer state dicts, Heptapod-named state dicts, Hugging Face MarianMT
// (OPUS-MT), GPT-2, BERT and LLaMA-family snapshots, fairseq transformer checkpoints (see
// tools/export_state_dict.py) and GGUF files (data/gguf_import.h); and writes a decoder-only model file as a
// GGUF file for llama.cpp (--to gguf).
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include "commands.h"
#include "heptapod/data/chat_template.h"
#include "heptapod/data/encoder_checkpoint.h"
#include "heptapod/data/gguf_export.h"
#include "heptapod/data/gguf_import.h"
#include "heptapod/data/llama_vocab.h"
#include "heptapod/data/pretrained_vocab.h"
#include "heptapod/data/seq2seq_vocab.h"
#include "heptapod/data/stored_chat_template.h"
#include "heptapod/data/t5_vocab.h"
#include "heptapod/io/adapter_file.h"
#include "heptapod/io/atomic_file.h"
#include "heptapod/io/bert_import.h"
#include "heptapod/io/fairseq_import.h"
#include "heptapod/io/gpt2_import.h"
#include "heptapod/io/llama_import.h"
#include "heptapod/io/marian_import.h"
#include "heptapod/io/adapter_file.h"
#include "heptapod/io/model_file.h"
#include "heptapod/io/peft_import.h"
#include "heptapod/io/sentence_transformers.h"
#include "heptapod/io/t5_import.h"
#include "heptapod/io/seq2seq_import.h"
#include "heptapod/io/torch_import.h"

namespace heptapod::app {

namespace {

struct ConvertOptions {
  std::string input, output, from = "nn-transformer", config_path, norm, spm, chat_template, base;
  std::string to = "model", gguf_type = "f16";
  bool no_chat_template = false;
  const CLI::Option* from_option = nullptr;
  const CLI::Option* gguf_type_option = nullptr;
  NnTransformerImportOptions nn;
  VocabularyFiles vocab;
  std::vector<std::pair<const CLI::Option*, std::vector<std::string>>> layout_options;  // and their layouts
  const CLI::Option* unk_piece = nullptr;
};

// An option of other layouts than --from's, or an id file without its SentencePiece model, is an error:
// never silently ignored.
void check_options_apply(const ConvertOptions& o) {
  for (const auto& [option, layouts] : o.layout_options) {
    if (option->count() == 0 || std::find(layouts.begin(), layouts.end(), o.from) != layouts.end()) continue;
    std::string names;
    for (const std::string& l : layouts) names += (names.empty() ? "" : " or ") + l;
    throw Error("convert --from " + o.from + ": " + option->get_name() + " is for --from " + names);
  }
  require(o.vocab.source_ids.empty() || !o.vocab.source_spm.empty(),
          "convert: --source-ids numbers the pieces of --source-spm; give --source-spm");
  require(o.vocab.target_ids.empty() || !o.vocab.target_spm.empty(),
          "convert: --target-ids numbers the pieces of --target-spm; give --target-spm");
  require(o.unk_piece->count() == 0 || !o.vocab.source_ids.empty() || !o.vocab.target_ids.empty(),
          "convert: --unk-piece names the unknown piece of --source-ids or --target-ids; give one");
}

void require_directory(const std::string& path, const std::string& what) {
  require(std::filesystem::is_directory(path), path + ": not a directory (" + what + " is read from a directory)");
}

// Whether `path` is a Heptapod model file (which convert rewrites with another chat template), or an adapter
// file (which reading it as a model refuses, saying what it is).
bool is_heptapod_file(const std::string& path) {
  if (!std::filesystem::is_regular_file(path)) return false;
  try {
    const SafetensorsFile file = SafetensorsFile::read(path);
    const auto format = file.metadata().find("format");
    return format != file.metadata().end() && (format->second == kModelFormat || format->second == kAdapterFormat);
  } catch (const Error&) {
    return false;
  }
}

// The chat template the written model carries: --chat-template's, none with --no-chat-template, else the
// checkpoint's (`found`), checked by parsing it (one the engine cannot render is refused here, by line and
// construct, as a model load would refuse it). The metadata entry is set or erased.
void settle_chat_template(const ConvertOptions& o, const std::optional<StoredChatTemplate>& found,
                          const ModelConfig& config, std::map<std::string, std::string>& metadata) {
  require(o.chat_template.empty() || !o.no_chat_template, "convert: --chat-template and --no-chat-template exclude each other");
  std::optional<StoredChatTemplate> chat = found;
  std::string where = o.input + ": chat template";
  if (!o.chat_template.empty()) {
    chat = read_chat_template_file(o.chat_template, found);
    where = o.chat_template;
  }
  if (o.no_chat_template) chat.reset();
  metadata.erase(kChatTemplateMetadata);
  if (!chat) return;
  require(config.architecture == Architecture::DecoderOnly,
          std::string("convert: a chat template is for a decoder-only model; this one is ") +
              architecture_name(config.architecture));
  ChatTemplate parsed(chat->source, where + " (give another with --chat-template FILE, or --no-chat-template)");
  metadata[kChatTemplateMetadata] = to_json(*chat);
}

// A model file written again (every tensor copied) with its chat template set, replaced, dropped or, without
// either option, kept: a Heptapod model file, or the model file a GGUF file reads as.
int rewrite_model(const ConvertOptions& o, const SafetensorsFile& file) {
  std::map<std::string, std::string> metadata = file.metadata();
  settle_chat_template(o, read_chat_template(file), read_model_config(file), metadata);
  rewrite_model_metadata(file, metadata, o.output);
  std::printf("wrote %s (%s)\n", o.output.c_str(),
              metadata.count(kChatTemplateMetadata) ? "with the chat template" : "without a chat template");
  return 0;
}

// A Heptapod model file written as GGUF (--to gguf).
int export_gguf(const ConvertOptions& o) {
  require(o.from_option->count() == 0 || o.from == "model",
          "convert --to gguf: the input is a Heptapod model file (convert the checkpoint to one first); --from " +
              o.from + " does not apply");
  for (const auto& [option, layouts] : o.layout_options)
    require(option->count() == 0, "convert --to gguf: " + option->get_name() + " does not apply to a model file");
  require(o.chat_template.empty() && !o.no_chat_template,
          "convert --to gguf: the GGUF file carries the model file's chat template; set it on the model file first "
          "(convert MODEL --chat-template FILE -o MODEL)");
  require(is_heptapod_file(o.input), "convert --to gguf: " + o.input + " is not a Heptapod model file");
  const GgufWeightType type = parse_gguf_weight_type(o.gguf_type, "convert --gguf-type");
  const GgufExport exported = write_gguf(SafetensorsFile::read(o.input), type, o.output);
  for (const std::string& note : exported.notes) std::fprintf(stderr, "note: %s\n", note.c_str());
  std::printf("wrote %s (GGUF, architecture %s, weights %s)\n", o.output.c_str(), exported.architecture.c_str(),
              gguf_weight_type_name(type));
  return 0;
}

// PEFT's LoRA adapters (--from peft) as a Heptapod adapter file over --base.
int convert_peft(const ConvertOptions& o) {
  check_options_apply(o);
  require(!o.base.empty(), "convert --from peft needs --base (the model file the adapters' base was converted to)");
  require(o.chat_template.empty() && !o.no_chat_template, "convert --from peft: an adapter file has no chat template");
  convert_peft_adapter(o.input, SafetensorsFile::read(o.base), o.output);
  std::printf("wrote %s (LoRA adapters over %s)\n", o.output.c_str(), o.base.c_str());
  return 0;
}

int run_convert(const ConvertOptions& o) {
  require(o.to == "gguf" || o.gguf_type_option->count() == 0, "convert: --gguf-type is for --to gguf");
  if (o.to == "gguf") return export_gguf(o);
  if (o.from == "peft") return convert_peft(o);
  // A model file is rewritten with --from model, or found by itself where no importer's option says otherwise.
  const bool importer_options = std::any_of(o.layout_options.begin(), o.layout_options.end(),
                                            [](const auto& option) { return option.first->count() > 0; });
  const bool found = o.from_option->count() == 0 && !importer_options;
  if (o.from == "gguf") check_options_apply(o);
  if (o.from == "gguf" || (found && is_gguf_path(o.input))) return rewrite_model(o, gguf_model_file(GgufFile::read(o.input)));
  if (o.from == "model" || (found && is_heptapod_file(o.input))) {
    require(!o.chat_template.empty() || o.no_chat_template,
            "convert: " + o.input + " is a Heptapod model file already; give --chat-template FILE to set its chat "
            "template (or --no-chat-template to drop it)");
    return rewrite_model(o, SafetensorsFile::read(o.input));
  }
  std::unique_ptr<Transformer<float>> model;
  std::optional<ModelVocabularies> vocabs;
  std::optional<StoredChatTemplate> chat;
  check_options_apply(o);
  const bool vocab_files = !o.vocab.source_spm.empty() || !o.vocab.target_spm.empty();
  std::map<std::string, std::string> metadata;
  if (o.from == "marian" || o.from == "fairseq" || o.from == "gpt2" || o.from == "bert" || o.from == "llama" ||
      o.from == "roberta" || o.from == "distilbert" || o.from == "sentence-transformers" || o.from == "t5" ||
      o.from == "m2m100" || o.from == "mbart")
    require_directory(o.input, "a " + o.from + " model");
  // A sentence-transformers directory is found by its modules.json where --from is not given.
  const bool sentence_transformers = o.from == "sentence-transformers" || (found && is_sentence_transformers_dir(o.input));
  if (o.from == "llama") {
    LlamaConfig config = read_llama_config(o.input);
    for (const std::string& note : config.notes) std::fprintf(stderr, "note: %s\n", note.c_str());
    vocabs = llama_vocabularies(o.input, config.model);  // settles the start and padding ids
    model = import_llama(o.input, config.model);
    if (!config.generation.empty()) metadata[kGenerationMetadata] = to_json(config.generation);
    chat = read_checkpoint_chat_template(o.input);
  } else if (o.from == "gpt2") {
    model = import_gpt2(o.input);
    vocabs = gpt2_vocabularies(o.input, model->config());
    chat = read_checkpoint_chat_template(o.input);
  } else if (o.from == "bert" || o.from == "roberta" || o.from == "distilbert" || sentence_transformers) {
    const BertFamily family = o.from == "roberta" ? BertFamily::Roberta
                              : o.from == "distilbert" ? BertFamily::DistilBert : BertFamily::Bert;
    ImportedEncoder imported = sentence_transformers ? import_sentence_transformers(o.input) : import_encoder(o.input, family);
    for (const std::string& notice : imported.notices) std::fprintf(stderr, "note: %s\n", notice.c_str());
    model = std::move(imported.model);
    vocabs = std::move(imported.vocabs);
  } else if (o.from == "marian") {
    model = import_marian(o.input);
    vocabs = marian_vocabularies(o.input, model->config());
  } else if (o.from == "t5") {
    model = import_t5(o.input);
    vocabs = t5_vocabularies(o.input, model->config());
  } else if (o.from == "m2m100" || o.from == "mbart") {
    const bool mbart = o.from == "mbart";
    model = import_seq2seq(o.input, mbart ? Seq2SeqFamily::Mbart : Seq2SeqFamily::M2m100);
    Seq2SeqVocabularies imported = seq2seq_vocabularies(o.input, mbart, model->config());
    vocabs = std::move(imported.vocabs);
    imported.languages.add_metadata(metadata);
    std::fprintf(stderr, "note: %zu language codes (translate --source-lang and --target-lang take them)\n",
                 imported.languages.codes().size());
  } else if (o.from == "fairseq") {
    FairseqModel imported = import_fairseq(o.input);
    model = std::move(imported.model);
    vocabs = fairseq_vocabularies(o.input, o.spm.empty() ? imported.sentencepiece_model : o.spm, model->config());
  } else {
    const SafetensorsFile file = SafetensorsFile::read(o.input);
    if (o.from == "nn-transformer") {
      require(!o.norm.empty(), "convert --from nn-transformer needs --norm pre or --norm post (nn.Transformer's "
                               "norm_first leaves the same tensors either way)");
      NnTransformerImportOptions nn = o.nn;
      nn.norm = norm_from_name(o.norm, "--norm");
      model = import_nn_transformer(file, nn);
    } else {
      require(!o.config_path.empty(), "convert --from heptapod needs --config (a model config JSON file)");
      model = import_heptapod_state_dict(file, model_config_from_json(read_file(o.config_path), o.config_path));
    }
    if (vocab_files) vocabs = vocabularies_from_files(o.vocab, model->config());
  }
  settle_chat_template(o, chat, model->config(), metadata);
  save_model(o.output, *model, metadata, vocabs ? vocabulary_tensors(*vocabs) : std::vector<ExtraTensor>{});
  std::printf("wrote %s (%lld parameters%s)\n", o.output.c_str(), parameter_count(model->config()),
              vocabs ? ", with vocabularies" : "");
  if (!vocabs)
    std::fprintf(stderr, "note: %s holds no vocabularies, so translate and score cannot read text with it; convert "
                         "again with --source-spm and --target-spm\n", o.output.c_str());
  return 0;
}

}  // namespace

Runner add_convert_command(CLI::App& root) {
  auto* cmd = root.add_subcommand("convert",
                                  "Convert pre-trained weights (PyTorch, MarianMT, fairseq, GPT-2, BERT, RoBERTa, XLM-R, "
                                  "DistilBERT, sentence-transformers, LLaMA, Mistral, Qwen, T5, NLLB, M2M100, mBART) to a model file");
  auto o = std::make_shared<ConvertOptions>();
  cmd->add_option("input", o->input,
                  "State dict in safetensors format (nn-transformer, heptapod), or the model directory (marian: "
                  "config.json, model.safetensors, vocab.json, source.spm, target.spm; fairseq: model.safetensors, "
                  "cfg.json, dict.src.txt, dict.tgt.txt and the SentencePiece model; gpt2: config.json, "
                  "model.safetensors, vocab.json, merges.txt; bert: config.json, model.safetensors, vocab.txt and "
                  "tokenizer_config.json if there is one; roberta: config.json, model.safetensors, vocab.json and "
                  "merges.txt (RoBERTa) or sentencepiece.bpe.model (XLM-R); distilbert: as bert; "
                  "sentence-transformers: modules.json, 1_Pooling/config.json, sentence_bert_config.json and the "
                  "bert, roberta or distilbert files; llama (also Mistral, Qwen 2 and 3): config.json, "
                  "generation_config.json if there is one, model.safetensors or its shards with "
                  "model.safetensors.index.json, tokenizer.json and tokenizer_config.json; t5 (also flan-T5, mT5): config.json, model.safetensors or its "
                  "shards, spiece.model and tokenizer_config.json if there is one; m2m100 (NLLB-200 and M2M100) and mbart "
                  "(mBART-50): config.json, model.safetensors or its shards, sentencepiece.bpe.model (M2M100 also "
                  "vocab.json) and tokenizer_config.json or special_tokens_map.json listing the language codes)")
      ->required();
  cmd->add_option("-o,--output", o->output, "Model file to write (with --to gguf: the GGUF file)")->required();
  cmd->add_option("--to", o->to,
                  "What to write: model (a Heptapod model file, the default) or gguf (a decoder-only model file of "
                  "the gpt2, llama, qwen2 or qwen3 layout as a GGUF file for llama.cpp, with its tokenizer and chat "
                  "template)")
      ->check(CLI::IsMember({"model", "gguf"}));
  o->gguf_type_option =
      cmd->add_option("--gguf-type", o->gguf_type,
                      "With --to gguf: the weight matrices' type, f32, f16 (the default, as llama.cpp's "
                      "convert_hf_to_gguf.py), q8_0 or q4_0 (its output layer in q8_0); norms, biases and position "
                      "tables stay f32, and a matrix whose rows are not a multiple of 32 falls back to f16")
          ->check(CLI::IsMember({"f32", "f16", "q8_0", "q4_0"}));
  o->from_option =
      cmd->add_option("--from", o->from,
                      "Layout: nn-transformer, heptapod, marian, fairseq, gpt2, bert, roberta (also XLM-R), "
                      "distilbert, sentence-transformers (found by its modules.json), llama, t5 (T5, T5 v1.1, "
                      "flan-T5, mT5), gguf (a GGUF file of a "
                      "gpt2, llama, qwen2 or qwen3 model: its weights in their GGUF types, its tokenizer and chat "
                      "template), m2m100 (NLLB-200, M2M100), mbart (mBART-50), model (a Heptapod model file, rewritten with "
                      "--chat-template), or peft (a PEFT "
                      "LoRA adapter directory of a llama-family, gpt2 or bert model: adapter_config.json, "
                      "adapter_model.safetensors; written as an adapter file over --base); gguf and model are found "
                      "by themselves when --from is not given")
          ->check(CLI::IsMember(
              {"nn-transformer", "heptapod", "marian", "fairseq", "gpt2", "bert", "llama", "gguf", "model", "peft",
               "roberta", "distilbert", "sentence-transformers", "t5", "m2m100", "mbart"}));
  cmd->add_option("--chat-template", o->chat_template,
                  "Set or replace the model's chat template: a Jinja file, or a tokenizer_config.json with "
                  "\"chat_template\" (its special tokens come along). gpt2 and llama checkpoints bring their own "
                  "(chat_template.jinja or tokenizer_config.json)")
      ->check(CLI::ExistingFile);
  cmd->add_flag("--no-chat-template", o->no_chat_template, "Write the model without a chat template");
  cmd->add_option("--config", o->config_path, "Model config JSON (heptapod)");
  cmd->add_option("--heads", o->nn.n_heads, "Attention heads (nn-transformer)")->check(CLI::PositiveNumber);
  cmd->add_option("--norm", o->norm, "Norm position, pre or post (nn-transformer: required)")
      ->check(CLI::IsMember({"pre", "post"}));
  cmd->add_option("--layer-norm-eps", o->nn.layer_norm_eps, "Layer norm epsilon (nn-transformer)")
      ->check(CLI::PositiveNumber & kFinite);
  cmd->add_option("--pad-id", o->nn.pad_id, "Padding id (nn-transformer)")->check(CLI::NonNegativeNumber);
  cmd->add_option("--bos-id", o->nn.bos_id, "Decoder start id (nn-transformer)")->check(CLI::NonNegativeNumber);
  cmd->add_option("--eos-id", o->nn.eos_id, "End-of-sentence id (nn-transformer)")->check(CLI::NonNegativeNumber);
  cmd->add_option("--source-spm", o->vocab.source_spm, "Source SentencePiece model (nn-transformer, heptapod)");
  cmd->add_option("--target-spm", o->vocab.target_spm, "Target SentencePiece model (nn-transformer, heptapod)");
  cmd->add_option("--source-ids", o->vocab.source_ids,
                  "Source id file: one piece per line (line number = id) or JSON piece -> id; default: the "
                  "SentencePiece model's own ids");
  cmd->add_option("--target-ids", o->vocab.target_ids, "Target id file, as --source-ids");
  o->unk_piece =
      cmd->add_option("--unk-piece", o->vocab.unk_piece, "The unknown-token piece of the id files (default <unk>)");
  cmd->add_option("--spm", o->spm, "fairseq: the SentencePiece model (default: the one cfg.json names, in the directory)");
  cmd->add_option("--base", o->base,
                  "peft: the model file the adapters' base model was converted to (heptapod convert --from llama, gpt2 or bert)")
      ->check(CLI::ExistingFile);
  const std::vector<std::string> nn = {"nn-transformer"}, state_dicts = {"nn-transformer", "heptapod"};
  for (const char* name : {"--heads", "--norm", "--layer-norm-eps", "--pad-id", "--bos-id", "--eos-id"})
    o->layout_options.emplace_back(cmd->get_option(name), nn);
  for (const char* name : {"--source-spm", "--target-spm", "--source-ids", "--target-ids", "--unk-piece"})
    o->layout_options.emplace_back(cmd->get_option(name), state_dicts);
  o->layout_options.emplace_back(cmd->get_option("--config"), std::vector<std::string>{"heptapod"});
  o->layout_options.emplace_back(cmd->get_option("--spm"), std::vector<std::string>{"fairseq"});
  o->layout_options.emplace_back(cmd->get_option("--base"), std::vector<std::string>{"peft"});
  return [o] { return run_convert(*o); };
}

}  // namespace heptapod::app
