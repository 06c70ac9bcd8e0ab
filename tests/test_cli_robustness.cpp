// The command line against bad input, table-driven, for every subcommand `heptapod --help` lists (one
// without a row fails the test). Every option and positional argument in a subcommand's --help has a row
// saying what kind of value it takes (an entry without a row fails, as does a row --help no longer lists),
// and each kind brings its bad values: zero, negative, fractional, huge, NaN, infinity, wrong type, unknown
// choice; for input files a missing one (in a missing directory), a directory, an empty file, NUL
// bytes, random bytes or text where a model, vocabulary or JSON is expected, invalid UTF-8 in text, a JSON
// record of the wrong types, and (run as an unprivileged user through setpriv, since root ignores
// permissions) an unreadable file; for outputs a directory, a path under a file, a path in a missing
// directory and (unprivileged) a path in a read-only directory. Conflicting options, and options without
// their partner, are rows of their own. Every bad run must end with a non-zero exit (not a signal), a
// message naming the option or the file, nothing left in the test directory (no output, no temporary
// file, no output directory), within the time bound (20 s a run); `serve` must end before it listens. One bad value
// is accepted, as documented: an invalid UTF-8 line in the line-aligned inputs of translate, score and
// error-rate is a warning naming file:line and reads as an empty line (a corpus is not lost over one
// line, and its output stays aligned with the input).
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <map>
#include <optional>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "test_process.h"
#include "test_util.h"
#include "vocab_model.h"

namespace heptapod {
namespace {

namespace fs = test::fs;
using test::quoted;
using test::run_heptapod;
using test::TempDir;

enum class Kind {
  Positive,           // an integer >= 1
  NonNegative,        // an integer >= 0
  Bounded,            // an integer in a range --help shows (every such range lies within [-1, 99999999])
  Seed,               // an unsigned 64-bit integer
  Threads,            // an integer >= 0 (0: all cores)
  Number,             // any finite real
  PositiveNumber,     // a finite real > 0
  NonNegativeNumber,  // a finite real >= 0
  BoundedNumber,      // a finite real in a range --help shows
  UnitInterval,       // a real in [0, 1) or (0, 1]: a rate or a share
  Choice,             // one of a list
  Flag,               // no value
  Text,               // free text, checked by the command (its bad values are rows of their own)
  TextFile,           // UTF-8 text with content: invalid UTF-8 and an empty file are errors
  TemplateFile,       // a Jinja chat template (or a tokenizer_config.json): empty, invalid UTF-8 or unparsable
                      // is an error
  LenientText,        // line-aligned text: an invalid UTF-8 line is a warning and an empty line
  ModelFile,          // a model file (or state dict) in safetensors format
  NamedAdapterFile,   // NAME=FILE, FILE an adapter file: FILE's bad values behind a name, and a FILE without one
  VocabFile,          // a SentencePiece model
  JsonFile,           // JSON (a model config) or JSON lines (metrics)
  ModelDir,           // a directory of model files
  CheckpointDir,      // a directory of step-*.htp checkpoints
  Output,             // a file written atomically
  OutputDir,          // a directory created and written
};

// A bad value and what the run's message must name ("" = the option itself).
struct BadValue {
  std::string value, names;
  bool unprivileged = false;  // needs an unprivileged user: file permissions (root ignores them)
  bool accepted = false;      // documented as accepted: exit 0 with a warning naming `names`
};

// Arguments: an option ("--x") with its value (nullopt: a flag), or a positional argument (a name without
// dashes, as --help shows it) with its value.
using Arguments = std::vector<std::pair<std::string, std::optional<std::string>>>;

// One valid invocation of a subcommand and the rows tested against it: a row's bad value replaces the base's
// value of that option, or is added.
struct Subcommand {
  std::string label;  // the subcommand, and a variant where it has several (e.g. "convert --from heptapod")
  Arguments base;
  std::map<std::string, Kind> rows;
  std::string output;   // what the base run writes ("" for none); removed before every run
  bool serves = false;  // does not exit: its valid run is only started, and a bad value must end it first
  std::string name() const { return label.substr(0, label.find(' ')); }
};

// Changes to arguments: each replaces an argument's value, adds the argument, or (nullopt) removes it, or adds it as
// a flag where it is absent.
using Changes = std::vector<std::pair<std::string, std::optional<std::string>>>;

// Changes to a base invocation that make options conflict or leave one without its partner, and what the
// message must name.
struct Conflict {
  std::string label;
  Changes changes;
  std::string names;
};

// The llama fixture converted: the base of the PEFT adapters' fixture (tests/fixtures/lora/peft).
std::string converted_llama(const TempDir& dir) {
  std::string log;
  const std::string path = dir.file("llama.htp");
  EXPECT_EQ(run_heptapod("convert " + quoted(test::fixture("llama")) + " --from llama -o " + quoted(path), dir, log), 0)
      << log;
  return path;
}

// The test's files: valid inputs for every base invocation, and the bad files.
struct Files {
  TempDir dir;
  std::string model = test::make_model(dir), lm = test::make_language_model(dir.file("lm.htp")),
              chat = test::make_chat_model(dir.file("chat.htp")),
              llama_layout = test::make_llama_layout_model(dir.file("llama_layout.htp")),
              llama = converted_llama(dir),
              messages = dir.write("messages.json", "[{\"role\": \"user\", \"content\": \"veinte\"}]"),
              unclosed_template = dir.write("unclosed.jinja", "{% for m in messages %}{{ m.content }}\n"),
              encoder = test::make_encoder(dir.file("encoder.htp")),
              classifier = test::make_encoder(dir.file("classifier.htp"), true),
              in = dir.write("in.txt", "veinte\nmil\n"), labels = dir.write("labels.txt", "number\nword\n"),
              ref = dir.write("ref.txt", "twenty\nthousand\n"), vocab = dir.file("vocab.spm"),
              ids = dir.file("ids.txt"), config = dir.file("config.json"),
              metrics = dir.write("metrics.jsonl",
                                  "{\"type\":\"train\",\"step\":1,\"loss\":2.5,\"nll\":2.4}\n"
                                  "{\"type\":\"valid\",\"step\":1,\"ce\":2.6,\"bleu\":1.5}\n"),
              checkpoints = dir.file("checkpoints"), keys = dir.write("keys.txt", "0123456789abcdef\n"),
              out = dir.file("out"), adapter = test::make_adapter(model, dir.file("adapter.htp"));
  std::string missing = dir.file("no/such/file"), empty = dir.write("empty.txt", ""),
              nul = dir.write("nul.bin", std::string(4096, '\0')), random = dir.write("random.bin", random_bytes()),
              invalid_utf8 = dir.write("invalid_utf8.txt", "veinte\nmil \xff\xfe\n"),
              wrong_types = dir.write("wrong_types.json", "{\"type\":\"train\",\"step\":1,\"loss\":\"low\"}\n"),
              unreadable = dir.write("unreadable.txt", "veinte\nmil\n"), readonly = dir.file("readonly"),
              empty_dir = dir.file("empty_dir");

  Files() {
    const Vocabulary v = test::numbers_vocabulary();
    v.save(vocab);
    std::string pieces;
    for (int id = 0; id < v.size(); ++id) pieces += v.piece(id) + "\n";
    dir.write("ids.txt", pieces);
    dir.write("config.json", to_json(read_model_config(SafetensorsFile::read(model))));
    fs::create_directories(checkpoints);
    for (const char* name : {"step-00000001.htp", "step-00000002.htp"}) fs::copy_file(model, checkpoints + "/" + name);
    fs::create_directories(empty_dir);
    fs::create_directories(readonly);
    // The unprivileged user writes its outputs here, reads the inputs, and can neither read `unreadable`
    // nor write in `readonly`.
    fs::permissions(dir.path(), fs::perms::all);
    fs::permissions(unreadable, fs::perms::none);
    fs::permissions(readonly, fs::perms::owner_read | fs::perms::owner_exec | fs::perms::group_read |
                                  fs::perms::group_exec | fs::perms::others_read | fs::perms::others_exec);
  }
  static std::string random_bytes() {
    const auto bytes = test::uniform<double>(4096, 25, 0, 256);
    std::string s;
    for (double b : bytes) s += static_cast<char>(static_cast<int>(b));
    return s;
  }
};

// The bad values of a kind.
std::vector<BadValue> bad_values(Kind kind, const Files& f) {
  const std::string huge = "99999999999999999999";  // beyond 64 bits
  auto values = [](std::initializer_list<std::string> texts) {
    std::vector<BadValue> out;
    for (const std::string& t : texts) out.push_back({t, ""});
    return out;
  };
  // Paths that must be named: those of every input file (missing, a directory, unreadable), then `more`.
  auto inputs = [&f](std::initializer_list<std::string> more) {
    std::vector<BadValue> out = {
        {f.missing, f.missing}, {f.dir.file(""), f.dir.file("")}, {f.unreadable, f.unreadable, true}};
    for (const std::string& p : more) out.push_back({p, p});
    return out;
  };
  auto with = [](std::vector<BadValue> v, const BadValue& more) {
    v.push_back(more);
    return v;
  };
  const BadValue invalid_line{f.invalid_utf8, f.invalid_utf8 + ":2"};
  switch (kind) {
    case Kind::Positive:
      return values({"0", "-5", "abc", "1.5", "nan", huge});
    case Kind::NonNegative:
    case Kind::Threads:
      return values({"-1", "abc", "1.5", "nan", huge});
    case Kind::Bounded:
      return values({"-1", "abc", "1.5", "nan", "99999999"});
    case Kind::Seed:
      return values({"-1", "abc", "1.5", huge});
    case Kind::Number:
      return values({"abc", "nan", "inf", "1e999"});
    case Kind::PositiveNumber:
      return values({"0", "-1", "abc", "nan", "inf"});
    case Kind::NonNegativeNumber:
      return values({"-1", "abc", "nan", "inf"});
    case Kind::BoundedNumber:
      return values({"-1", "abc", "nan", "inf", "99999999"});
    case Kind::UnitInterval:
      return values({"-0.1", "1.5", "abc", "nan", "inf"});
    case Kind::Choice:
      return values({"bogus"});
    case Kind::Flag:
    case Kind::Text:
      return {};
    case Kind::TextFile:
      return with(inputs({f.empty}), invalid_line);
    case Kind::TemplateFile:
      return with(inputs({f.empty, f.unclosed_template, f.nul}), {f.invalid_utf8, "line 2"});
    case Kind::LenientText: {
      BadValue warned = invalid_line;
      warned.accepted = true;
      return with(inputs({}), warned);
    }
    case Kind::ModelFile:
      return inputs({f.empty, f.nul, f.random, f.in});
    case Kind::NamedAdapterFile: {
      std::vector<BadValue> named = inputs({f.empty, f.nul, f.random, f.in, f.model});
      for (BadValue& b : named) b.value = "es-en:fr=" + b.value;
      return with(named, {f.adapter, ""});
    }
    case Kind::VocabFile:
      return inputs({f.empty, f.nul, f.random});
    case Kind::JsonFile:
      return inputs({f.empty, f.nul, f.random, f.wrong_types, f.invalid_utf8});
    case Kind::ModelDir:
    case Kind::CheckpointDir:
      return {{f.missing, f.missing}, {f.in, f.in}, {f.empty_dir, f.empty_dir}};
    case Kind::Output:
      return {{f.missing, f.missing},
              {f.dir.file(""), f.dir.file("")},
              {f.in + "/out", f.in},
              {f.readonly + "/out", f.readonly + "/out", true}};
    case Kind::OutputDir:
      return {{f.in, f.in}, {f.in + "/run", f.in}, {f.readonly + "/run", f.readonly + "/run", true}};
  }
  return {};
}

// A union of row maps.
std::map<std::string, Kind> rows(std::initializer_list<std::map<std::string, Kind>> parts) {
  std::map<std::string, Kind> out;
  for (const auto& p : parts) out.insert(p.begin(), p.end());
  return out;
}

// `base`, then `more`.
Arguments plus(Arguments base, const Arguments& more) {
  base.insert(base.end(), more.begin(), more.end());
  return base;
}

// Every subcommand, one or more valid invocations each, with a row for each of its options.
std::vector<Subcommand> table(const Files& f) {
  using K = Kind;
  const std::string fixtures = std::string(HEPTAPOD_FIXTURES);
  const std::map<std::string, Kind> search = {{"--beam", K::Bounded},
                                              {"--alpha", K::Number},
                                              {"--max-extra-length", K::NonNegative},
                                              {"--min-length", K::NonNegative},
                                              {"--cache", K::Choice},
                                              {"--batch-tokens", K::Positive},
                                              {"--max-input-tokens", K::Positive},
                                              {"--reject-long", K::Flag},
                                              {"--repetition-penalty", K::PositiveNumber},
                                              {"--no-repeat-ngram", K::NonNegative}};
  const std::map<std::string, Kind> served_precision = {{"--compute-type", K::Choice}, {"--float-output", K::Flag}};
  std::map<std::string, Kind> precision = served_precision;
  precision["--adapter"] = K::ModelFile;
  const Arguments train = {{"--source", f.in},       {"--target", f.ref},    {"--output", f.out}, {"--steps", "1"},
                           {"--batch-tokens", "64"}, {"--max-length", "20"}, {"--threads", "1"}};
  // A language model's or an encoder's training on the text file.
  auto text_train = [&](const char* arch) -> Arguments {
    return {{"--arch", arch},         {"--text", f.in},     {"--valid-text", f.in}, {"--output", f.out},
            {"--steps", "1"},         {"--context", "8"},   {"--batch-tokens", "64"}, {"--preset", "tiny"},
            {"--vocab-size", "30"},   {"--valid-every", "1"}, {"--log-every", "1"}, {"--warmup", "1"},
            {"--threads", "1"}};
  };
  const Arguments fresh_train = plus(train, {{"--valid-source", f.in},
                                             {"--valid-target", f.ref},
                                             {"--preset", "tiny"},
                                             {"--vocab-size", "30"},
                                             {"--valid-every", "1"},
                                             {"--valid-bleu-sentences", "2"},
                                             {"--log-every", "1"},
                                             {"--warmup", "1"}});
  return {
      {"info", {}, {{"--threads", K::Threads}, {"--model", K::ModelFile}}, ""},
      {"demo",
       {{"--steps", "1"},
        {"--batch-size", "2"},
        {"--max-len", "3"},
        {"--vocab", "8"},
        {"--threads", "1"},
        {"--output", f.out}},
       {{"--task", K::Choice},
        {"--steps", K::Bounded},
        {"--batch-size", K::Bounded},
        {"--max-len", K::Bounded},
        {"--vocab", K::Bounded},
        {"--threads", K::Threads},
        {"--seed", K::Seed},
        {"--output", K::Output}},
       f.out},
      {"vocab",
       {{"inputs", f.in}, {"--output", f.out}, {"--size", "20"}},
       {{"inputs", K::TextFile},
        {"--output", K::Output},
        {"--size", K::Positive},
        {"--model", K::Choice},
        {"--character-coverage", K::UnitInterval},
        {"--byte-fallback", K::Flag},
        {"--seed", K::Seed}},
       f.out},
      {"train",
       fresh_train,
       {{"--source", K::TextFile},
        {"--target", K::TextFile},
        {"--valid-source", K::TextFile},
        {"--valid-target", K::TextFile},
        {"--output", K::OutputDir},
        {"--vocab", K::VocabFile},
        {"--vocab-size", K::Positive},
        {"--byte-fallback", K::Flag},
        {"--vocab-model", K::Choice},
        {"--separate-vocab", K::Flag},
        {"--preset", K::Choice},
        {"--d-model", K::Positive},
        {"--heads", K::Positive},
        {"--d-ff", K::Positive},
        {"--layers", K::Positive},
        {"--encoder-layers", K::Positive},
        {"--decoder-layers", K::Positive},
        {"--dropout", K::UnitInterval},
        {"--attention-dropout", K::UnitInterval},
        {"--activation-dropout", K::UnitInterval},
        {"--embedding-dropout", K::UnitInterval},
        {"--norm", K::Choice},
        {"--tie", K::Choice},
        {"--norm-type", K::Choice},
        {"--ffn", K::Choice},
        {"--kv-heads", K::Positive},
        {"--head-dim", K::Positive},
        {"--biases", K::Choice},
        {"--qk-norm", K::Flag},
        {"--rope-theta", K::PositiveNumber},
        {"--max-length", K::Positive},
        {"--max-ratio", K::NonNegativeNumber},
        {"--batch-tokens", K::Positive},
        {"--accumulate", K::Positive},
        {"--window", K::Positive},
        {"--lr-schedule", K::Choice},
        {"--warmup", K::Positive},
        {"--lr-scale", K::PositiveNumber},
        {"--lr", K::PositiveNumber},
        {"--cooldown", K::NonNegative},
        {"--label-smoothing", K::UnitInterval},
        {"--clip-norm", K::NonNegativeNumber},
        {"--no-overlap-allreduce", K::Flag},
        {"--steps", K::Positive},
        {"--epochs", K::NonNegative},
        {"--minutes", K::NonNegativeNumber},
        {"--valid-every", K::Positive},
        {"--keep-checkpoints", K::Positive},
        {"--average", K::Positive},
        {"--patience", K::NonNegative},
        {"--valid-bleu-sentences", K::NonNegative},
        {"--valid-beam", K::Bounded},
        {"--log-every", K::Positive},
        {"--seed", K::Seed},
        {"--threads", K::Threads},
        {"--matmul-precision", K::Choice}},
       f.out},
      {"train --tie embeddings", plus(fresh_train, {{"--tie", "embeddings"}}), {{"--tie", K::Choice}}, f.out},
      {"train --source-vocab",
       plus(train, {{"--source-vocab", f.vocab}, {"--target-vocab", f.vocab}}),
       {{"--source-vocab", K::VocabFile}, {"--target-vocab", K::VocabFile}},
       f.out},
      {"train --init",
       plus(train, {{"--init", f.model}, {"--freeze", "embeddings"}}),
       {{"--init", K::ModelFile}, {"--freeze", K::Text}, {"--source-lang", K::Text}, {"--target-lang", K::Text}},
       f.out},
      {"train --init --lora",
       plus(train, {{"--init", f.model},
                    {"--lora", "2"},
                    {"--lora-alpha", "4"},
                    {"--lora-dropout", "0.1"},
                    {"--lora-targets", "q,v,xq,ffn"}}),
       {{"--lora", K::Positive},
        {"--lora-alpha", K::PositiveNumber},
        {"--lora-dropout", K::UnitInterval},
        {"--lora-targets", K::Text}},
       f.out},
      {"train --arch decoder-only",
       text_train("decoder-only"),
       {{"--arch", K::Choice},
        {"--text", K::TextFile},
        {"--valid-text", K::TextFile},
        {"--documents", K::Choice},
        {"--context", K::Positive},
        {"--positions", K::Choice},
        {"--max-positions", K::Positive}},
       f.out},
      {"train --positions relative",
       [&] {  // the short text as 4 streams: segments of 4, 16 tokens per micro-batch
         Arguments a = plus(text_train("decoder-only"), {{"--positions", "relative"}, {"--memory", "8"}, {"--clamp-length", "16"}});
         for (auto& [option, value] : a) {
           if (option == "--batch-tokens") value = "16";
           if (option == "--context") value = "4";
         }
         return a;
       }(),
       {{"--memory", K::NonNegative}, {"--clamp-length", K::NonNegative}, {"--untie-relative", K::Flag}},
       f.out},
      {"train --arch encoder-only",
       text_train("encoder-only"),
       {{"--mask-rate", K::UnitInterval}, {"--whole-word-mask", K::Flag}},
       f.out},
      {"train --task classify",
       plus(text_train("encoder-only"), {{"--task", "classify"}, {"--labels", f.labels}, {"--valid-labels", f.labels}}),
       {{"--task", K::Choice},
        {"--labels", K::TextFile},
        {"--valid-labels", K::TextFile},
        {"--pooling", K::Choice},
        {"--pairs", K::Flag},
        {"--valid-metric", K::Choice}},
       f.out},
      {"translate",
       {{"--model", f.model}, {"--input", f.in}, {"--output", f.out}},
       rows({{{"--model", K::ModelFile},
              {"--input", K::LenientText},
              {"--output", K::Output},
              {"--window", K::Positive},
              {"--nbest", K::Bounded},
              {"--scores", K::Flag},
              {"--alignments", K::Flag},
              {"--threads", K::Threads},
              {"--target-prefix", K::LenientText},
              {"--source-lang", K::Text},
              {"--target-lang", K::Text},
              {"--sample", K::Flag},
              {"--temperature", K::NonNegativeNumber},
              {"--top-k", K::NonNegative},
              {"--top-p", K::UnitInterval},
              {"--seed", K::Seed}},
             search,
             precision}),
       f.out},
      {"embed",
       {{"--model", f.encoder}, {"--input", f.in}, {"--output", f.out}},
       rows({{{"--model", K::ModelFile},
              {"--input", K::LenientText},
              {"--output", K::Output},
              {"--format", K::Choice},
              {"--pooling", K::Choice},
              {"--normalize", K::Flag},
              {"--no-normalize", K::Flag},
              {"--pairs", K::Flag},
              {"--batch-tokens", K::Positive},
              {"--window", K::Positive},
              {"--max-length", K::Positive},
              {"--threads", K::Threads}},
             precision}),
       f.out},
      {"classify",
       {{"--model", f.classifier}, {"--input", f.in}, {"--output", f.out}},
       rows({{{"--model", K::ModelFile},
              {"--input", K::LenientText},
              {"--output", K::Output},
              {"--top-k", K::Positive},
              {"--pairs", K::Flag},
              {"--json", K::Flag},
              {"--batch-tokens", K::Positive},
              {"--window", K::Positive},
              {"--threads", K::Threads}},
             precision}),
       f.out},
      {"generate",
       {{"--model", f.lm}, {"--input", f.in}, {"--output", f.out}, {"--max-tokens", "3"}},
       rows({{{"--model", K::ModelFile},
              {"--prompt", K::Text},
              {"--input", K::LenientText},
              {"--output", K::Output},
              {"--max-tokens", K::Positive},
              {"--temperature", K::NonNegativeNumber},
              {"--top-k", K::NonNegative},
              {"--top-p", K::UnitInterval},
              {"--seed", K::Seed},
              {"--beam", K::Bounded},
              {"--alpha", K::Number},
              {"--nbest", K::Bounded},
              {"--stop", K::Text},
              {"--repetition-penalty", K::PositiveNumber},
              {"--no-repeat-ngram", K::NonNegative},
              {"--cache", K::Choice},
              {"--batch-size", K::Positive},
              {"--max-prompt-tokens", K::Positive},
              {"--window", K::Positive},
              {"--scores", K::Flag},
              {"--logprobs", K::Bounded},
              {"--threads", K::Threads}},
             precision}),
       f.out},
      {"score",
       {{"--model", f.model}, {"--source", f.in}, {"--target", f.ref}, {"--output", f.out}},
       rows({{{"--model", K::ModelFile},
              {"--source", K::LenientText},
              {"--target", K::LenientText},
              {"--output", K::Output},
              {"--window", K::Positive},
              {"--per-token", K::Flag},
              {"--normalize", K::Flag},
              {"--threads", K::Threads},
              {"--source-lang", K::Text},
              {"--target-lang", K::Text}},
             precision}),
       f.out},
      {"score --input",
       {{"--model", f.lm}, {"--input", f.in}, {"--output", f.out}},
       rows({{{"--input", K::LenientText}, {"--summary", K::Output}}}),
       f.out},
      {"score --segment",
       {{"--model", f.lm}, {"--input", f.in}, {"--output", f.out}, {"--segment", "4"}},
       {{"--segment", K::Positive}, {"--memory", K::NonNegative}, {"--sliding-window", K::Positive}},
       f.out},
      {"score --input (encoder)",
       {{"--model", f.encoder}, {"--input", f.in}, {"--output", f.out}},
       rows({{{"--input", K::LenientText},
              {"--mask-rate", K::UnitInterval},
              {"--whole-word-mask", K::Flag},
              {"--seed", K::Seed},
              {"--pairs", K::Flag},
              {"--summary", K::Output}}}),
       f.out},
      {"score --labels",
       {{"--model", f.classifier}, {"--input", f.in}, {"--labels", f.labels}, {"--output", f.out}},
       rows({{{"--input", K::LenientText}, {"--labels", K::TextFile}, {"--summary", K::Output}}}),
       f.out},
      {"serve",
       {{"--model", f.model}, {"--port", "0"}, {"--threads", "1"}, {"--http-threads", "2"}, {"--api-keys", f.keys}},
       rows({{{"--model", K::ModelFile},
              {"--host", K::Text},
              {"--port", K::Bounded},
              {"--threads", K::Threads},
              {"--max-batch-sentences", K::Positive},
              {"--max-queued-sentences", K::Positive},
              {"--batch-wait-ms", K::BoundedNumber},
              {"--no-batching", K::Flag},
              {"--max-body-bytes", K::Positive},
              {"--max-characters", K::Positive},
              {"--max-sentences", K::Positive},
              {"--max-beam", K::Bounded},
              {"--max-nbest", K::Bounded},
              {"--max-prompt-tokens", K::Positive},
              {"--max-new-tokens", K::Positive},
              {"--max-batch-rows", K::Bounded},
              {"--max-prefill-tokens", K::Positive},
              {"--timeout", K::BoundedNumber},
              {"--api-keys", K::TextFile},
              {"--http-threads", K::Bounded},
              {"--backlog", K::Bounded},
              {"--keep-alive", K::Bounded},
              {"--header-timeout", K::BoundedNumber},
              {"--body-timeout", K::BoundedNumber},
              {"--max-connections", K::Bounded},
              {"--max-connections-per-address", K::Bounded}},
             search,
             served_precision}),
       "",
       true},
      {"serve --adapter",
       {{"--model", "es-en=" + f.model}, {"--adapter", "es-en:fr=" + f.adapter}, {"--port", "0"}, {"--threads", "1"}},
       {{"--adapter", K::NamedAdapterFile}},
       "",
       true},
      {"quantize",
       {{"--model", f.model}, {"--to", "int8"}, {"--output", f.out}},
       {{"--model", K::ModelFile}, {"--to", K::Choice}, {"--output", K::Output}, {"--float-output", K::Flag}},
       f.out},
      {"merge",
       {{"model", f.model}, {"--adapter", f.adapter}, {"--output", f.out}},
       {{"model", K::ModelFile}, {"--adapter", K::ModelFile}, {"--output", K::Output}},
       f.out},
      {"average",
       {{"inputs", f.model}, {"--output", f.out}},
       {{"inputs", K::ModelFile}, {"--output", K::Output}},
       f.out},
      {"average --dir",
       {{"--dir", f.checkpoints}, {"--last", "2"}, {"--output", f.out}},
       {{"--dir", K::CheckpointDir}, {"--last", K::Bounded}},
       f.out},
      {"plot",
       {{"metrics", f.metrics}, {"--output", f.out}},
       {{"metrics", K::JsonFile}, {"--output", K::Output}},
       f.out},
      {"convert",
       {{"input", fixtures + "/torch_nn_transformer.safetensors"},
        {"--from", "nn-transformer"},
        {"--norm", "post"},
        {"--heads", "4"},
        {"--output", f.out}},
       {{"input", K::ModelFile},
        {"--output", K::Output},
        {"--from", K::Choice},
        {"--heads", K::Positive},
        {"--norm", K::Choice},
        {"--layer-norm-eps", K::PositiveNumber},
        {"--pad-id", K::NonNegative},
        {"--bos-id", K::NonNegative},
        {"--eos-id", K::NonNegative}},
       f.out},
      {"convert --from heptapod",
       {{"input", f.model},
        {"--from", "heptapod"},
        {"--config", f.config},
        {"--source-spm", f.vocab},
        {"--target-spm", f.vocab},
        {"--source-ids", f.ids},
        {"--target-ids", f.ids},
        {"--unk-piece", "<unk>"},
        {"--output", f.out}},
       {{"--config", K::JsonFile},
        {"--source-spm", K::VocabFile},
        {"--target-spm", K::VocabFile},
        {"--source-ids", K::TextFile},
        {"--target-ids", K::TextFile},
        {"--unk-piece", K::Text}},
       f.out},
      {"convert --from marian",
       {{"input", fixtures + "/marian"}, {"--from", "marian"}, {"--output", f.out}},
       {{"input", K::ModelDir}},
       f.out},
      {"convert --from t5",
       {{"input", fixtures + "/t5"}, {"--from", "t5"}, {"--output", f.out}},
       {{"input", K::ModelDir}},
       f.out},
      {"convert --from fairseq",
       {{"input", fixtures + "/fairseq"},
        {"--from", "fairseq"},
        {"--spm", fixtures + "/fairseq/sentencepiece.bpe.model"},
        {"--output", f.out}},
       {{"--spm", K::VocabFile}},
       f.out},
      {"convert --from m2m100",
       {{"input", fixtures + "/m2m100"}, {"--from", "m2m100"}, {"--output", f.out}},
       {{"input", K::ModelDir}},
       f.out},
      {"convert --from mbart",
       {{"input", fixtures + "/mbart"}, {"--from", "mbart"}, {"--output", f.out}},
       {{"input", K::ModelDir}},
       f.out},
      {"convert --from peft",
       {{"input", fixtures + "/lora/peft"}, {"--from", "peft"}, {"--base", f.llama}, {"--output", f.out}},
       {{"input", K::ModelDir}, {"--base", K::ModelFile}},
       f.out},
      {"convert --to gguf",
       {{"input", f.llama_layout}, {"--to", "gguf"}, {"--gguf-type", "q8_0"}, {"--output", f.out}},
       {{"input", K::ModelFile}, {"--to", K::Choice}, {"--gguf-type", K::Choice}},
       f.out},
      {"convert (a model file's chat template)",
       {{"input", f.lm}, {"--chat-template", test::chat_template_file()}, {"--output", f.out}},
       {{"--chat-template", K::TemplateFile}, {"--no-chat-template", K::Flag}},
       f.out},
      {"chat",
       {{"--model", f.chat}, {"--messages", f.messages}, {"--max-tokens", "3"}},
       rows({{{"--model", K::ModelFile},
              {"--system", K::Text},
              {"--messages", K::JsonFile},
              {"--render", K::Flag},
              {"--max-tokens", K::Positive},
              {"--temperature", K::NonNegativeNumber},
              {"--top-k", K::NonNegative},
              {"--top-p", K::UnitInterval},
              {"--seed", K::Seed},
              {"--stop", K::Text},
              {"--repetition-penalty", K::PositiveNumber},
              {"--no-repeat-ngram", K::NonNegative},
              {"--cache", K::Choice},
              {"--logprobs", K::Bounded},
              {"--threads", K::Threads}},
             precision}),
       ""},
      {"bleu",
       {{"references", f.ref}, {"--input", f.in}},
       {{"references", K::TextFile},
        {"--input", K::TextFile},
        {"--metrics", K::Text},
        {"--json", K::Flag},
        {"--width", K::Bounded},
        {"--lowercase", K::Flag},
        {"--tokenize", K::Choice},
        {"--smooth-method", K::Choice},
        {"--smooth-value", K::NonNegativeNumber},
        {"--max-ngram-order", K::Bounded},
        {"--chrf-char-order", K::Bounded},
        {"--chrf-word-order", K::Bounded},
        {"--chrf-beta", K::Bounded},
        {"--chrf-whitespace", K::Flag},
        {"--chrf-lowercase", K::Flag},
        {"--chrf-eps-smoothing", K::Flag}},
       ""},
      {"error-rate",
       {{"references", f.ref}, {"--input", f.in}},
       {{"references", K::LenientText}, {"--input", K::LenientText}, {"--separator", K::Text}, {"--json", K::Flag}},
       ""},
  };
}

// Options that conflict, or lack their partner, against the table's invocations.
std::vector<Conflict> conflicts(const Files& f) {
  return {
      {"train", {{"--vocab", f.vocab}, {"--source-vocab", f.vocab}, {"--target-vocab", f.vocab}}, "--vocab"},
      {"train", {{"--source-vocab", f.vocab}}, "--target-vocab"},
      {"train", {{"--valid-target", std::nullopt}}, "--valid-target"},
      {"train", {{"--freeze", "embeddings"}}, "--freeze"},
      {"train", {{"--batch-tokens", "16"}}, "--batch-tokens"},
      {"train", {{"--heads", "5"}}, "--heads"},
      {"score", {{"--input", f.in}}, "--input"},
      {"score", {{"--target", std::nullopt}}, "--target"},
      {"score --input", {{"--source", f.in}}, "--source"},
      {"score --input", {{"--labels", f.labels}}, "--labels"},
      {"score --input (encoder)", {{"--labels", f.labels}}, "--labels"},
      {"score --input (encoder)", {{"--source", f.in}}, "--source"},
      {"score --labels", {{"--labels", std::nullopt}}, "--labels"},
      {"score --labels", {{"--per-token", std::nullopt}}, "--per-token"},
      {"score --labels", {{"--model", f.encoder}}, "--labels"},
      {"score", {{"--pairs", std::nullopt}}, "--pairs"},
      {"score --labels", {{"--pairs", std::nullopt}}, "tab between its two texts"},
      {"embed", {{"--pairs", std::nullopt}}, "tab between its two texts"},
      {"embed", {{"--normalize", std::nullopt}, {"--no-normalize", std::nullopt}}, "exclude each other"},
      {"embed", {{"--max-length", "100000"}}, "--max-length"},
      {"classify", {{"--pairs", std::nullopt}}, "tab between its two texts"},
      {"train --task classify", {{"--pairs", std::nullopt}}, "tab between its two texts"},
      {"train --arch encoder-only", {{"--pairs", std::nullopt}}, "--pairs"},
      {"generate", {{"--model", f.model}}, "decoder-only"},
      {"generate", {{"--prompt", "uno"}}, "--prompt"},
      {"generate", {{"--stop", ""}}, "--stop"},
      {"translate", {{"--model", f.lm}}, "encoder-decoder"},
      {"translate", {{"--model", f.encoder}}, "encoder-only"},
      {"translate", {{"--target-lang", "fr"}}, "--target-lang"},
      {"translate", {{"--source-lang", "fr"}}, "--source-lang"},
      {"score", {{"--target-lang", "fr"}}, "--target-lang"},
      {"score --input", {{"--source-lang", "fr"}}, "--source-lang"},
      {"train", {{"--source-lang", "fr"}}, "--source-lang"},
      {"train --init", {{"--target-lang", "fr"}}, "--target-lang"},
      {"embed", {{"--model", f.model}}, "encoder-only"},
      {"classify", {{"--model", f.model}}, "encoder-only"},
      {"classify", {{"--model", f.encoder}}, "without a classifier"},
      {"embed", {{"--output", std::nullopt}, {"--format", "npy"}}, ".npy"},
      {"generate", {{"--model", f.encoder}}, "encoder-only"},
      {"train --arch decoder-only", {{"--source", f.in}}, "--source"},
      {"train --arch decoder-only", {{"--encoder-layers", "2"}}, "--encoder-layers"},
      {"train --arch decoder-only", {{"--batch-tokens", "4"}}, "--batch-tokens"},
      {"train --arch decoder-only", {{"--freeze", "encoder"}}, "--freeze"},
      {"train", {{"--text", f.in}}, "--text"},
      {"train --tie embeddings", {{"--separate-vocab", std::nullopt}}, "--tie embeddings"},
      {"train --arch decoder-only", {{"--tie", "embeddings"}}, "--tie embeddings"},
      {"train", {{"--max-positions", "64"}}, "--max-positions"},
      {"train", {{"--memory", "8"}}, "--memory"},
      {"train", {{"--positions", "relative"}}, "--positions relative"},
      {"train", {{"--rope-theta", "5000"}}, "--rope-theta"},
      {"train", {{"--qk-norm", std::nullopt}}, "--qk-norm"},
      {"train", {{"--kv-heads", "3"}}, "--kv-heads"},
      {"train --init", {{"--ffn", "swiglu"}}, "--ffn"},
      {"train --init", {{"--positions", "rotary"}}, "--positions"},
      {"train --init", {{"--norm-type", "rms"}}, "--norm-type"},
      {"train --arch encoder-only", {{"--positions", "relative"}}, "--positions relative"},
      {"train --arch decoder-only", {{"--clamp-length", "4"}}, "--clamp-length"},
      {"train --arch decoder-only", {{"--untie-relative", std::nullopt}}, "--untie-relative"},
      {"train --positions relative", {{"--positions", "learned"}}, "--memory"},
      {"train --positions relative", {{"--batch-tokens", "100000"}}, "parallel streams"},
      {"score --segment", {{"--memory", "8"}}, "--memory"},
      {"score --segment", {{"--segment", std::nullopt}, {"--memory", "0"}}, "--memory"},
      {"score --segment", {{"--sliding-window", "4"}}, "--sliding-window"},
      {"score --input (encoder)", {{"--segment", "4"}}, "--segment"},
      {"score", {{"--sliding-window", "4"}}, "--sliding-window"},
      {"train", {{"--positions", "learned"}, {"--max-positions", "10"}}, "--max-length"},
      {"train --arch decoder-only", {{"--positions", "learned"}, {"--max-positions", "4"}}, "--context"},
      {"train --init", {{"--vocab", f.vocab}}, "--init"},
      {"train --init", {{"--d-model", "64"}}, "--d-model"},
      {"train --init", {{"--freeze", "embeddings,encoder,decoder"}}, "--freeze"},
      {"train --init", {{"--freeze", "bogus"}}, "--freeze"},
      {"train --init --lora", {{"--freeze", "embeddings"}}, "--freeze"},
      {"train --init --lora", {{"--lora-targets", "q,bogus"}}, "bogus"},
      {"train --init --lora", {{"--lora-targets", "q,q"}}, "--lora"},
      {"train --init --lora", {{"--lora", "33"}}, "--lora"},
      {"train", {{"--lora", "2"}}, "--lora"},
      {"train", {{"--lora-targets", "q"}}, "--lora-targets"},
      {"merge", {{"model", f.lm}}, "another base"},
      {"generate", {{"--adapter", f.adapter}}, "another base"},
      {"serve", {{"--host", "192.0.2.1"}}, "--host"},
      {"serve", {{"--model", "english=" + f.model}}, "--model"},
      {"serve", {{"--beam", "32"}}, "--beam"},
      {"serve --adapter", {{"--model", "es-en=" + f.lm}}, "none of the models served"},
      {"serve --adapter", {{"--adapter", "es-en=" + f.adapter}}, "given twice"},
      {"quantize", {{"--output", f.model}}, f.model},
      {"average", {{"inputs", std::nullopt}}, "--dir"},
      {"average", {{"--last", "2"}}, "--last"},
      {"convert", {{"--norm", std::nullopt}}, "--norm"},
      {"convert", {{"--config", f.config}}, "--config"},
      {"convert", {{"--spm", f.vocab}}, "--spm"},
      {"convert --from heptapod", {{"--config", std::nullopt}}, "--config"},
      {"convert --from heptapod", {{"--heads", "4"}}, "--heads"},
      {"convert --from heptapod", {{"--target-spm", std::nullopt}, {"--target-ids", std::nullopt}}, "--target-spm"},
      {"convert --from heptapod", {{"--source-spm", std::nullopt}, {"--target-spm", std::nullopt}}, "--source-ids"},
      {"convert --from heptapod", {{"--unk-piece", "<nothing>"}}, f.ids},
      {"convert --from heptapod", {{"--source-ids", std::nullopt}, {"--target-ids", std::nullopt}}, "--unk-piece"},
      {"convert --from marian", {{"--source-spm", f.vocab}, {"--target-spm", f.vocab}}, "--source-spm"},
      {"convert --from peft", {{"--base", std::nullopt}}, "--base"},
      {"convert --from peft", {{"--base", f.lm}}, "LLaMA-family"},
      {"convert", {{"--base", f.model}}, "--base"},
      {"convert (a model file's chat template)", {{"--no-chat-template", std::nullopt}}, "--no-chat-template"},
      {"convert (a model file's chat template)", {{"--chat-template", std::nullopt}}, "--chat-template"},
      {"convert (a model file's chat template)", {{"input", f.encoder}}, "decoder-only"},
      {"convert --to gguf", {{"input", f.model}}, "an encoder-decoder model"},
      {"convert --to gguf", {{"input", f.lm}}, "post-norm layers"},
      {"convert --to gguf", {{"--to", std::nullopt}}, "--gguf-type is for --to gguf"},
      {"convert --to gguf", {{"--from", "llama"}}, "--from llama"},
      {"convert --to gguf", {{"--chat-template", test::chat_template_file()}}, "chat template"},
      {"convert --to gguf", {{"--output", std::nullopt}}, "--output"},
      {"chat", {{"--messages", std::nullopt}, {"--render", std::nullopt}}, "--messages"},
      {"chat", {{"--model", f.lm}}, "--chat-template"},
      {"chat", {{"--model", f.model}}, "decoder-only"},
      {"chat", {{"--stop", ""}}, "--stop"},
      {"chat", {{"--messages", std::nullopt}, {"--logprobs", "2"}}, "--messages"},
      {"chat", {{"--messages", f.wrong_types}}, "\"messages\""},
      {"bleu", {{"--metrics", "bleu,bogus"}}, "--metrics"},
      {"bleu", {{"--metrics", ","}}, "--metrics"},
      {"error-rate", {{"--separator", ""}}, "--separator"},
  };
}

// The command line of `args` after `changes`.
std::string command_line(const std::string& name, Arguments args, const Changes& changes) {
  for (const auto& [key, value] : changes) {
    auto at = std::find_if(args.begin(), args.end(), [&](const auto& a) { return a.first == key; });
    if (at != args.end() && value)
      at->second = value;
    else if (at != args.end())
      args.erase(at);
    else
      args.emplace_back(key, value);  // a value, or none: a flag
  }
  std::string line = name;
  for (const auto& [key, value] : args) {
    if (key.rfind("--", 0) == 0) line.append(" ").append(key);
    if (value) line.append(" ").append(quoted(*value));
  }
  return line;
}

// The command that runs the binary as an unprivileged user (empty: as this one, who is not root), or nullopt
// when root has no setpriv.
std::optional<std::string> unprivileged_wrapper() {
  if (::geteuid() != 0) return std::string();
  if (std::system("command -v setpriv > /dev/null 2>&1") != 0) return std::nullopt;
  return std::string("setpriv --reuid=65534 --regid=65534 --clear-groups");
}

// Every path under `dir`, to see what a run left behind.
std::set<std::string> tree(const TempDir& dir) {
  std::set<std::string> paths;
  for (const auto& e : fs::recursive_directory_iterator(dir.path())) paths.insert(e.path().string());
  return paths;
}

// What is wrong with a bad run that ended with `rc` and `log`: it must fail (or, `accepted`, succeed) with a
// message naming `names`, by itself (not a signal, not the time limit), before serving, leaving nothing.
std::vector<std::string> problems(int rc, const std::string& log, const std::string& names, bool accepted,
                                  const std::set<std::string>& before, const std::set<std::string>& after) {
  std::vector<std::string> out;
  if (log.find(names) == std::string::npos) out.push_back("the message does not name " + names);
  if (accepted) {
    if (rc != 0) out.push_back("exit " + std::to_string(rc) + " (expected 0 with a warning)");
    return out;
  }
  if (rc == 0) out.push_back("exit 0");
  if (rc == 124) out.push_back("still running at the time limit");
  if (rc < 0 || rc >= 128) out.push_back("died by a signal (status " + std::to_string(rc) + ")");
  if (log.find("listening on") != std::string::npos) out.push_back("started serving");
  for (const std::string& p : after)
    if (!before.count(p)) out.push_back("left " + p);
  return out;
}

// Runs `cmd` with `changes` (under `user`: a wrapper command, "" for this user) and checks it as a bad run.
void expect_refused(const Subcommand& cmd, const Changes& changes, const std::string& names, bool accepted,
                    const Files& f, const std::string& user) {
  if (!cmd.output.empty()) fs::remove_all(cmd.output);
  const std::set<std::string> before = tree(f.dir);
  const std::string line = command_line(cmd.name(), cmd.base, changes);
  std::string log;
  const int rc = run_heptapod(line + " < " + quoted(f.in), f.dir, log, "", "timeout 20 " + user);
  std::string report;
  for (const std::string& p : problems(rc, log, names, accepted, before, tree(f.dir))) report += "; " + p;
  if (!report.empty()) ADD_FAILURE() << "heptapod " << line << report.substr(1) << "\n" << log.substr(0, 400);
}

// Every row's bad values, those that need an unprivileged user or the others, against the whole table. Each
// run has its own time limit (expect_refused), which catches a hang; the table's total is not timed.
void expect_bad_values_refused(const Files& f, bool unprivileged, const std::string& user) {
  for (const Subcommand& cmd : table(f))
    for (const auto& [option, kind] : cmd.rows)
      for (const BadValue& bad : bad_values(kind, f)) {
        if (bad.unprivileged != unprivileged) continue;
        expect_refused(cmd, {{option, bad.value}}, bad.names.empty() ? option : bad.names, bad.accepted, f, user);
      }
}

// Runs every base invocation (as `user`) and checks that it succeeds and writes its output; `serve` is
// started and must listen and load its model.
void expect_base_invocations_succeed(const Files& f, const std::string& user) {
  for (const Subcommand& cmd : table(f)) {
    if (!cmd.output.empty()) fs::remove_all(cmd.output);
    const std::string line = command_line(cmd.name(), cmd.base, {});
    std::string log;
    const int rc = run_heptapod(line + " < " + quoted(f.in), f.dir, log, "", (cmd.serves ? "timeout 3 " : "") + user);
    if (cmd.serves) {
      EXPECT_EQ(rc, 124) << line << ": " << log;  // stopped by the timeout
      EXPECT_HAS_SUBSTR(log, "listening on");
      EXPECT_HAS_SUBSTR(log, "loaded");
      continue;
    }
    EXPECT_EQ(rc, 0) << line << ": " << log;
    if (!cmd.output.empty()) {
      EXPECT_TRUE(fs::exists(cmd.output)) << line << " wrote no " << cmd.output;
    }
  }
}

// The entries of a --help section ("Subcommands:", "Positionals:", "Options:"): long option names, or the
// names of positional arguments and subcommands.
std::set<std::string> help_entries(const std::string& args, const std::string& section, const TempDir& dir) {
  std::string log;
  EXPECT_EQ(run_heptapod(args + " --help", dir, log), 0) << log;
  std::set<std::string> out;
  const std::regex entry(section == "Options:" ? R"(^\s+(?:-\w,)?(--[\w-]+))" : R"(^\s+([a-z][\w-]*)\s)");
  std::istringstream in(log);
  bool inside = false;
  for (std::string line; std::getline(in, line);) {
    if (!line.empty() && line.back() == ':' && line[0] != ' ') inside = line == section;
    std::smatch m;
    if (inside && std::regex_search(line, m, entry) && m[1] != "--help") out.insert(m[1]);
  }
  return out;
}

TEST(CliRobustness, TheTableHasEverySubcommandAndEveryOption) {
  Files f;
  const std::vector<Subcommand> all = table(f);
  std::map<std::string, std::set<std::string>> rows;  // per subcommand, over its invocations
  for (const Subcommand& cmd : all)
    for (const auto& [option, kind] : cmd.rows) rows[cmd.name()].insert(option);
  const std::set<std::string> names = help_entries("", "Subcommands:", f.dir);
  EXPECT_GE(names.size(), 13u);
  for (const std::string& name : names) {
    ASSERT_TRUE(rows.count(name)) << "heptapod " << name << " has no row in the robustness table";
    std::set<std::string> help = help_entries(name, "Options:", f.dir);
    help.merge(help_entries(name, "Positionals:", f.dir));
    for (const std::string& o : help)
      EXPECT_TRUE(rows[name].count(o)) << name << " " << o << " has no row in the robustness table";
    for (const std::string& o : rows[name]) EXPECT_TRUE(help.count(o)) << name << " " << o << " is not in --help";
  }
  for (const auto& [name, options] : rows) EXPECT_TRUE(names.count(name)) << name << " is not in heptapod --help";
}

TEST(CliRobustness, EveryBaseInvocationSucceeds) {
  Files f;
  expect_base_invocations_succeed(f, "");
}

TEST(CliRobustness, EveryOptionRefusesBadValues) {
  Files f;
  expect_bad_values_refused(f, false, "");
}

TEST(CliRobustness, UnreadableInputsAndReadOnlyOutputsAreRefused) {
  const std::optional<std::string> user = unprivileged_wrapper();
  if (!user) GTEST_SKIP() << "running as root without setpriv: no unprivileged user to test permissions with";
  Files f;
  expect_base_invocations_succeed(f, *user);
  expect_bad_values_refused(f, true, *user);
}

TEST(CliRobustness, ConflictingOptionsAreRefused) {
  Files f;
  const std::vector<Subcommand> all = table(f);
  for (const Conflict& c : conflicts(f)) {
    const auto cmd = std::find_if(all.begin(), all.end(), [&](const Subcommand& s) { return s.label == c.label; });
    ASSERT_NE(cmd, all.end()) << c.label;
    expect_refused(*cmd, c.changes, c.names, false, f, "");
  }
}

// A write that hits a full disk (here the file-size limit: RLIMIT_FSIZE makes writes past 2 KB fail with
// EFBIG, as ENOSPC would, once SIGXFSZ is ignored) is an error naming the output, and the file that was
// there before stays whole, with no temporary file beside it.
TEST(CliRobustness, AnOutputThatHitsAFullDiskLeavesThePreviousFile) {
  TempDir dir;
  const std::string model = test::make_model(dir);
  std::string sources, targets;
  for (int i = 0; i < 400; ++i) {
    sources += "veinte mil\n";
    targets += "twenty thousand\n";
  }
  const std::string in = dir.write("in.txt", sources), ref = dir.write("ref.txt", targets);
  const std::string out = dir.file("out.txt");
  const std::string full_disk = "sh -c 'trap \"\" XFSZ; ulimit -f 4; exec \"$0\" \"$@\"'";
  const std::vector<std::string> commands = {
      "translate -m " + quoted(model) + " -i " + quoted(in) + " -o " + quoted(out),
      "score -m " + quoted(model) + " --source " + quoted(in) + " --target " + quoted(ref) + " -o " + quoted(out),
      "quantize -m " + quoted(model) + " --to int8 -o " + quoted(out),
      "average " + quoted(model) + " " + quoted(model) + " -o " + quoted(out),
  };
  for (const std::string& command : commands) {
    SCOPED_TRACE(command);
    std::string log;
    dir.write("out.txt", "the previous output\n");
    ASSERT_EQ(run_heptapod(command, dir, log), 0) << "without the limit: " << log;  // it does write > 2 KB
    ASSERT_GT(test::fs::file_size(out), 2048u);
    dir.write("out.txt", "the previous output\n");
    const std::vector<std::string> before = dir.entries();
    const int rc = run_heptapod(command, dir, log, "", full_disk);
    EXPECT_GT(rc, 0) << log;
    EXPECT_LT(rc, 128) << log;
    EXPECT_HAS_SUBSTR(log, out);
    EXPECT_EQ(test::slurp(out), "the previous output\n");
    EXPECT_EQ(dir.entries(), before);
  }
}

}  // namespace
}  // namespace heptapod
