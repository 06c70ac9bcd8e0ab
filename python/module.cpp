// The `heptapod` Python module (pybind11): the library's Translator, Generator, Trainer and sacreBLEU-exact metrics for
// Python programs. Every call that computes releases the GIL, so Python threads translate concurrently (one
// Translator's calls run one at a time, each as its own batches, so results never depend on what runs beside
// them); the library's Error becomes heptapod.Error with the CLI's message.
#include <pybind11/functional.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <cctype>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "heptapod/core/error.h"
#include "heptapod/data/utf8.h"
#include "heptapod/decode/encoder.h"
#include "heptapod/decode/generator.h"
#include "heptapod/decode/translator.h"
#include "heptapod/eval/bleu.h"
#include "heptapod/eval/chrf.h"
#include "heptapod/serve/generation_api.h"
#include "heptapod/kernels/threads.h"
#include "heptapod/model/config.h"
#include "heptapod/train/trainer.h"
#include "train_options.h"

namespace py = pybind11;

namespace heptapod::python {

namespace {

// "0-1 2-3" -> [(0, 1), (2, 3)]
py::list alignment_pairs(const std::string& text) {
  py::list pairs;
  std::istringstream in(text);
  for (std::string pair; in >> pair;) {
    const std::size_t dash = pair.find('-');
    pairs.append(py::make_tuple(std::stoi(pair.substr(0, dash)), std::stoi(pair.substr(dash + 1))));
  }
  return pairs;
}

py::object json_to_python(const nlohmann::json& j) { return py::module_::import("json").attr("loads")(j.dump()); }
nlohmann::json python_json(const py::object& o) {
  return nlohmann::json::parse(py::module_::import("json").attr("dumps")(o).cast<std::string>());
}

// Scores as Python dicts: {'log_prob', 'tokens', 'token_log_probs'}.
py::list score_dicts(const std::vector<SentenceScore>& scores) {
  py::list results;
  for (const SentenceScore& s : scores) {
    py::dict d;
    d["log_prob"] = s.log_prob;
    d["tokens"] = s.tokens;
    d["token_log_probs"] = s.token_log_probs;
    d["truncated"] = s.truncated;
    results.append(d);
  }
  return results;
}

// What the model classes' constructors take, as the CLI's --threads, --compute-type, --float-output and --adapter.
constexpr const char* kLoadArguments =
    "threads: 0 = every core; compute_type: 'float32', 'int8', 'bfloat16', 'int4' or 'q8_0' (default: the file's); "
    "float_output: the output projection in float32; adapter: a LoRA adapter file (heptapod train --lora) over the "
    "model, its base";

ModelLoadOptions load_options(const std::optional<std::string>& compute_type, bool float_output,
                              const std::optional<std::string>& adapter) {
  ModelLoadOptions o;
  if (compute_type) o.compute_type = parse_compute_type(*compute_type, "compute_type");
  o.float_output = float_output;
  o.adapter = adapter.value_or("");
  return o;
}

// One front end's calls from Python: one at a time, each without the GIL and on the front end's own thread
// count (OpenMP's setting belongs to the calling thread, so each call sets it for the thread it runs on).
class Serialized {
 public:
  explicit Serialized(int threads) : threads_(threads) { require(threads >= 0, "threads must be >= 0"); }
  template <typename F>
  auto run(F&& compute) {
    py::gil_scoped_release release;
    std::lock_guard lock(mutex_);
    set_num_threads(threads_);
    return compute();
  }

 private:
  int threads_;
  std::mutex mutex_;
};

// A Translator for Python, its calls Serialized.
class PyTranslator {
 public:
  PyTranslator(const std::string& path, int threads, const std::optional<std::string>& compute_type,
               bool float_output, const std::optional<std::string>& adapter)
      : calls_(threads), translator_(path, load_options(compute_type, float_output, adapter)) {}

  py::list translate(const std::vector<std::string>& sentences, int beam, int nbest, float length_penalty,
                     int max_extra_length, int min_length, int batch_tokens, bool alignments,
                     float repetition_penalty, int no_repeat_ngram, bool sample, float temperature, int top_k,
                     float top_p, std::uint64_t seed, const std::vector<std::string>& target_prefixes,
                     const std::string& source_lang, const std::string& target_lang) {
    require(beam >= 1 && beam <= 64, "beam must be in [1, 64]");
    require(nbest >= 1 && nbest <= 256, "nbest must be in [1, 256]");
    require(max_extra_length >= 0 && min_length >= 0, "max_extra_length and min_length must be >= 0");
    require(batch_tokens >= 1, "batch_tokens must be >= 1");
    TranslateOptions o;
    o.search.guards = RepetitionGuards{repetition_penalty, no_repeat_ngram};
    o.sample = sample;
    o.sampling = SamplingOptions{temperature, top_k, top_p, seed};
    o.search.beam = sample ? beam : std::max(beam, nbest);
    o.search.nbest = nbest;
    o.search.length_penalty = length_penalty;
    o.search.max_extra_length = max_extra_length;
    o.search.min_length = min_length;
    o.batch_tokens = batch_tokens;
    o.source_language = source_lang;
    o.target_language = target_lang;
    const std::vector<Translation> out = calls_.run([&] { return translator_.translate(sentences, o, target_prefixes); });
    py::list results;
    for (const Translation& t : out) {
      py::list hypotheses;
      for (const TranslatedHypothesis& h : t.hypotheses) {
        py::dict d;
        d["text"] = h.text;
        d["tokens"] = h.tokens;
        d["score"] = h.score;
        d["log_prob"] = h.log_prob;
        if (alignments) d["alignment"] = alignment_pairs(h.alignment);
        hypotheses.append(d);
      }
      py::dict r;
      r["hypotheses"] = hypotheses;
      r["warning"] = t.warning;
      results.append(r);
    }
    return results;
  }

  py::list score(const std::vector<std::string>& sources, const std::vector<std::string>& targets, int batch_tokens,
                 const std::string& source_lang, const std::string& target_lang) {
    require(sources.size() == targets.size(), "score: " + std::to_string(sources.size()) + " sources but " +
                                                  std::to_string(targets.size()) + " targets");
    require(batch_tokens >= 1, "batch_tokens must be >= 1");
    return score_dicts(
        calls_.run([&] { return translator_.score(sources, targets, batch_tokens, source_lang, target_lang); }));
  }

  py::object config() const { return json_to_python(nlohmann::json::parse(to_json(translator_.config()))); }
  std::string compute_type() const { return compute_type_name(translator_.precision().type); }
  py::dict vocabularies() const {
    py::dict d;
    d["source_size"] = translator_.vocabularies().source.size();
    d["target_size"] = translator_.vocabularies().target.size();
    return d;
  }
  // A multilingual model's language codes: {code: token id}, in the tokenizer's order.
  py::dict languages() const {
    py::dict d;
    for (const auto& [code, id] : translator_.languages().codes()) d[py::str(code)] = id;
    return d;
  }
  std::vector<int> encode(const std::string& text, bool target) const {
    return (target ? translator_.vocabularies().target : translator_.vocabularies().source).encode(text);
  }
  std::string decode(const std::vector<int>& ids, bool target) const {
    return (target ? translator_.vocabularies().target : translator_.vocabularies().source).decode(ids);
  }

 private:
  Serialized calls_;
  Translator translator_;
};

// A token as a dict: {'token' (its text, data/utf8.h's token_text), 'id', 'bytes', 'logprob'}.
py::dict token_dict(const Vocabulary& vocab, int id, float log_prob) {
  const std::string bytes = vocab.token_bytes(id);
  py::dict d;
  d["token"] = token_text(bytes);
  d["id"] = id;
  d["bytes"] = py::bytes(bytes);
  d["logprob"] = log_prob;
  return d;
}

// Generated tokens' records (decode/token_log_probs.h) as dicts: token_dict's and 'text_offset', 'top_logprobs'.
py::list token_log_probs_list(const std::vector<TokenLogProb>& records, const Vocabulary& vocab) {
  py::list out;
  for (const TokenLogProb& r : records) {
    py::dict d = token_dict(vocab, r.id, r.log_prob);
    d["text_offset"] = r.text_offset;
    py::list top;
    for (const auto& [id, log_prob] : r.top) top.append(token_dict(vocab, id, log_prob));
    d["top_logprobs"] = top;
    out.append(d);
  }
  return out;
}

// A Generator for Python, its calls Serialized.
class PyGenerator {
 public:
  PyGenerator(const std::string& path, int threads, const std::optional<std::string>& compute_type, bool float_output,
              const std::optional<std::string>& adapter)
      : calls_(threads), generator_(path, load_options(compute_type, float_output, adapter)) {}

  // Settings left None take the model's generation defaults (a converted model's generation_config.json),
  // else `heptapod generate`'s, as the command does.
  py::list generate(const std::vector<std::string>& prompts, int max_tokens, std::optional<int> beam, int nbest,
                    std::optional<float> temperature, std::optional<int> top_k, std::optional<float> top_p,
                    std::uint64_t seed, std::optional<float> repetition_penalty, int no_repeat_ngram,
                    const std::vector<std::string>& stop, float length_penalty, std::optional<int> logprobs) {
    GenerateOptions o = options(max_tokens, beam, temperature, top_k, top_p, seed, repetition_penalty, stop, logprobs);
    o.nbest = nbest;
    o.guards.no_repeat_ngram = no_repeat_ngram;
    o.length_penalty = length_penalty;
    if (o.beam > 0) o.beam = std::max(o.beam, o.nbest);
    const std::vector<Generation> out = calls_.run([&] { return generator_.generate(prompts, o); });
    py::list results;
    for (const Generation& g : out) {
      py::list outputs;
      for (const GeneratedText& t : g.outputs) {
        py::dict d;
        d["text"] = t.text;
        d["new_text"] = t.new_text;
        d["tokens"] = t.tokens;
        d["new_tokens"] = t.new_tokens;
        d["log_prob"] = t.log_prob;
        d["score"] = t.score;
        d["end"] = t.end;
        if (o.logprobs >= 0) d["logprobs"] = token_log_probs_list(t.token_log_probs, generator_.vocabulary());
        outputs.append(d);
      }
      py::dict r;
      r["outputs"] = outputs;
      r["warning"] = g.warning;
      results.append(r);
    }
    return results;
  }

  // A reply to a conversation through the model's chat template, as `heptapod chat --messages` gives it.
  py::dict chat(const py::object& messages, int max_tokens, std::optional<float> temperature, std::optional<int> top_k,
                std::optional<float> top_p, std::uint64_t seed, std::optional<float> repetition_penalty,
                const std::vector<std::string>& stop, std::optional<int> logprobs) {
    const ChatPrompt& chat = chat_prompt();
    GenerateOptions o =
        options(max_tokens, std::nullopt, temperature, top_k, top_p, seed, repetition_penalty, stop, logprobs);
    make_reply_options(o);
    const KeptPrompt prompt = chat.prompt(chat_messages(python_json(messages), "messages"), o.max_tokens);
    const GeneratedText out = calls_.run([&] { return generator_.generate_kept({prompt}, o); })[0].outputs[0];
    py::dict d;
    d["content"] = out.new_text;
    d["finish_reason"] = finish_reason(out);
    d["prompt_tokens"] = prompt.tokens.size();
    d["completion_tokens"] = out.new_tokens;
    if (o.logprobs >= 0) d["logprobs"] = token_log_probs_list(out.token_log_probs, generator_.vocabulary());
    return d;
  }

  // The prompt the chat template makes of a conversation (`heptapod chat --messages FILE --render`).
  std::string render_chat(const py::object& messages, bool add_generation_prompt) const {
    return chat_prompt().render(chat_messages(python_json(messages), "messages"), add_generation_prompt);
  }

  py::list score(const std::vector<std::string>& texts, int batch_tokens) {
    require(batch_tokens >= 1, "batch_tokens must be >= 1");
    return score_dicts(calls_.run([&] { return generator_.score(texts, batch_tokens); }));
  }

  py::list score_stream(const std::vector<std::string>& texts, int segment, std::optional<int> memory, int window) {
    StreamScoring options;
    options.segment = segment;
    options.window = window;
    options.memory = memory.value_or(segment > 0 ? generator_.config().memory_length : 0);
    return score_dicts(calls_.run([&] { return generator_.score_stream(texts, options); }));
  }

  py::object config() const { return json_to_python(nlohmann::json::parse(to_json(generator_.config()))); }
  std::string compute_type() const { return compute_type_name(generator_.precision().type); }
  std::vector<int> encode(const std::string& text) const { return generator_.vocabulary().encode(text); }
  std::string decode(const std::vector<int>& ids) const { return generator_.vocabulary().decode(ids); }

 private:
  // Generation options from Python's arguments, the model's generation defaults under those left None.
  GenerateOptions options(int max_tokens, std::optional<int> beam, std::optional<float> temperature,
                          std::optional<int> top_k, std::optional<float> top_p, std::uint64_t seed,
                          std::optional<float> repetition_penalty, const std::vector<std::string>& stop,
                          std::optional<int> logprobs) const {
    require(!logprobs || *logprobs >= 0, "logprobs must be None or 0 or more (most likely tokens per position)");
    GenerateOptions o;
    o.logprobs = logprobs.value_or(-1);
    o.max_tokens = max_tokens;
    o.beam = beam.value_or(o.beam);
    o.sampling.temperature = temperature.value_or(o.sampling.temperature);
    o.sampling.top_k = top_k.value_or(o.sampling.top_k);
    o.sampling.top_p = top_p.value_or(o.sampling.top_p);
    o.sampling.seed = seed;
    o.guards.repetition_penalty = repetition_penalty.value_or(o.guards.repetition_penalty);
    o.stop = stop;
    apply_generation_defaults(o, generator_.generation_defaults(),
                              ChosenSettings{beam.has_value(), temperature.has_value(), top_k.has_value(),
                                             top_p.has_value(), repetition_penalty.has_value()});
    return o;
  }

  const ChatPrompt& chat_prompt() const {
    require(generator_.chat() != nullptr, "the model has no chat template (heptapod convert MODEL --chat-template FILE)");
    return *generator_.chat();
  }

  Serialized calls_;
  Generator generator_;
};

// An Encoder for Python, its calls Serialized.
class PyEncoder {
 public:
  PyEncoder(const std::string& path, int threads, const std::optional<std::string>& compute_type, bool float_output,
            const std::optional<std::string>& adapter)
      : calls_(threads), encoder_(path, load_options(compute_type, float_output, adapter)) {}

  // (N, width) float32 (Encoder::embedding_width): a NumPy array where NumPy is installed, else a list of lists.
  py::object embed(const py::sequence& texts, const std::optional<std::string>& pooling,
                   const std::optional<bool>& normalize, int batch_tokens) {
    EmbedOptions o;
    if (pooling) o.pooling = pooling_from_name(*pooling, "pooling");
    o.normalize = normalize;
    o.batch_tokens = batch_tokens;
    const std::vector<EncoderInput> inputs = inputs_of(texts);
    const std::vector<std::vector<float>> vectors = calls_.run([&] { return encoder_.embed_inputs(inputs, o); });
    py::object numpy;
    try {
      numpy = py::module_::import("numpy");
    } catch (const py::error_already_set&) {
      return py::cast(vectors);
    }
    const std::size_t C = static_cast<std::size_t>(encoder_.embedding_width(o));
    py::array_t<float> out({vectors.size(), C});  // (N, C)
    float* data = out.mutable_data();
    for (std::size_t i = 0; i < vectors.size(); ++i) std::copy(vectors[i].begin(), vectors[i].end(), data + i * C);
    return out;
  }

  // One dict per text: {'labels': the prediction, 'top': [(label, probability), ...]}, as `heptapod classify
  // --json` writes them.
  py::list classify(const py::sequence& texts, int top_k, int batch_tokens) {
    ClassifyOptions o;
    o.top_k = top_k;
    o.batch_tokens = batch_tokens;
    const std::vector<EncoderInput> inputs = inputs_of(texts);
    const std::vector<Classification> out = calls_.run([&] { return encoder_.classify_inputs(inputs, o); });
    py::list results;
    for (const Classification& c : out) {
      py::list top;
      for (const ClassScore& s : c.top) top.append(py::make_tuple(s.label, s.probability));
      py::dict d;
      d["labels"] = c.labels;
      d["top"] = top;
      results.append(d);
    }
    return results;
  }

  py::object config() const { return json_to_python(nlohmann::json::parse(to_json(encoder_.config()))); }
  std::vector<std::string> labels() const { return encoder_.labels().names(); }
  std::string compute_type() const { return compute_type_name(encoder_.precision().type); }
  std::vector<int> encode(const std::string& text) const { return encoder_.encode_text(text).tokens; }
  std::string decode(const std::vector<int>& ids) const { return encoder_.vocabulary().decode(ids); }

 private:
  // Texts from Python as the encoder reads them: each a str, or a (first, second) sentence pair of str.
  std::vector<EncoderInput> inputs_of(const py::sequence& texts) const {
    require(!py::isinstance<py::str>(texts), "texts: a list of texts, not one str");
    std::vector<EncoderInput> inputs;
    for (std::size_t i = 0; i < texts.size(); ++i) {
      const py::object item = texts[i];
      if (py::isinstance<py::str>(item)) {  // a classifier of pairs reads "first<TAB>second"
        const std::string text = item.cast<std::string>();
        inputs.push_back(std::move(encoder_.encode_lines({text}, false, "texts", i).front()));
        continue;
      }
      std::pair<std::string, std::string> pair;
      try {
        pair = item.cast<std::pair<std::string, std::string>>();
      } catch (const py::cast_error&) {
        throw Error("texts[" + std::to_string(i) + "]: a str, or a (first, second) sentence pair of str");
      }
      inputs.push_back(encoder_.encode_pair(pair.first, pair.second));
    }
    return inputs;
  }

  Serialized calls_;
  Encoder encoder_;
};

// sacreBLEU's reference layout: a list of reference streams, or one stream given as a list of strings.
using References = std::vector<std::vector<std::string>>;
References reference_streams(const py::object& references) {
  try {
    return references.cast<References>();
  } catch (const py::cast_error&) {
    return {references.cast<std::vector<std::string>>()};
  }
}

eval::BleuScore bleu(const std::vector<std::string>& hypotheses, const py::object& refs, bool lowercase,
                     const std::string& tokenize, const std::string& smooth, std::optional<double> smooth_value) {
  eval::BleuOptions o;
  o.lowercase = lowercase;
  require(tokenize == "13a" || tokenize == "none", "tokenize must be '13a' or 'none'");
  o.tokenize = tokenize;
  o.smooth = eval::parse_bleu_smoothing(smooth);
  o.smooth_value = smooth_value;
  const References references = reference_streams(refs);
  py::gil_scoped_release release;
  return eval::corpus_bleu(hypotheses, references, o);
}

eval::ChrfScore chrf(const std::vector<std::string>& hypotheses, const py::object& refs, int char_order,
                     int word_order, int beta, bool lowercase, bool whitespace, bool eps_smoothing) {
  require(char_order >= 1 && word_order >= 0 && beta >= 1, "char_order and beta must be >= 1, word_order >= 0");
  eval::ChrfOptions o{char_order, word_order, beta, lowercase, whitespace, eps_smoothing};
  const References references = reference_streams(refs);
  py::gil_scoped_release release;
  return eval::corpus_chrf(hypotheses, references, o);
}

// heptapod.train: the keyword arguments are `heptapod train`'s options (apps/train_options.h), spelled with
// underscores: a value becomes "--name=value", True a flag, a list comma-separated; None, False and an empty
// list leave the option out. on_update(dict) is called
// after every update with the run's state (from Python, the GIL held only for the call).
py::dict train(const std::optional<std::string>& source, const std::optional<std::string>& target,
               const std::string& output_dir, const py::kwargs& options) {
  CLI::App parser{"heptapod.train"};
  auto flags = std::make_shared<app::TrainFlags>();
  app::add_train_options(&parser, flags);
  std::vector<std::string> args = {"--output=" + output_dir};  // source and target: None for a language model
  if (source) args.push_back("--source=" + *source);
  if (target) args.push_back("--target=" + *target);
  std::optional<py::function> on_update;
  // "--warmup-steps" -> "warmup_steps": the names Python users wrote, in CLI11's messages.
  auto python_names = [](std::string text) {
    for (std::size_t at = text.find("--"); at != std::string::npos; at = text.find("--", at)) {
      text.erase(at, 2);
      for (std::size_t k = at; k < text.size() && (std::isalnum(static_cast<unsigned char>(text[k])) || text[k] == '-'); ++k)
        if (text[k] == '-') text[k] = '_';
    }
    return text;
  };
  for (const auto& [key, value] : options) {
    const std::string k = key.cast<std::string>();
    if (k == "on_update") {
      if (!value.is_none()) on_update = value.cast<py::function>();
      continue;
    }
    std::string option = "--" + k;
    std::replace(option.begin(), option.end(), '_', '-');
    require(k != "source" && k != "target" && k != "output" && k != "help" &&
                parser.get_option_no_throw(option) != nullptr,
            "train: unknown option '" + k + "'");
    const bool flag = parser.get_option(option)->get_expected_min() == 0;
    if (value.is_none()) continue;
    if (py::isinstance<py::bool_>(value)) {
      require(flag, "train: option '" + k + "' takes a value, not True or False");
      if (value.cast<bool>()) args.push_back(option);
      continue;
    }
    require(!flag, "train: option '" + k + "' is a flag: True or False");
    std::string text;
    if (py::isinstance<py::list>(value) || py::isinstance<py::tuple>(value)) {
      if (py::len(value) == 0) continue;
      for (const py::handle item : value) text += (text.empty() ? "" : ",") + py::str(item).cast<std::string>();
    } else {
      text = py::str(value).cast<std::string>();
    }
    args.push_back(option + "=" + text);  // one argument, whatever the value begins with
  }
  std::reverse(args.begin(), args.end());  // CLI11 reads a vector from its back
  try {
    parser.parse(args);
  } catch (const CLI::ParseError& e) {
    throw Error("train: " + python_names(e.what()));
  }
  const TrainConfig c = app::resolve_train_flags(*flags);
  TrainResult result;
  {
    py::gil_scoped_release release;
    Trainer trainer(c);
    while (trainer.update()) {
      if (!on_update) continue;
      const TrainState& s = trainer.state();
      py::gil_scoped_acquire acquire;
      py::dict d;
      d["step"] = s.step;
      d["epoch"] = s.epoch;
      d["target_tokens"] = s.target_tokens;
      d["elapsed_seconds"] = s.elapsed_seconds;
      d["best_valid"] = s.best_valid;
      (*on_update)(d);
    }
    result = trainer.finish();
  }
  py::dict r;
  r["steps"] = result.state.step;
  r["stop_reason"] = result.stop_reason;
  r["model"] = result.model_path;
  r["target_tokens"] = result.state.target_tokens;
  r["best_valid"] = result.state.best_valid;
  return r;
}

}  // namespace

}  // namespace heptapod::python

PYBIND11_MODULE(heptapod, m) {
  using namespace heptapod::python;
  namespace eval = heptapod::eval;
  m.doc() = "Heptapod: the original Transformer (Vaswani et al. 2017): train, translate, score, evaluate.";
  m.attr("__version__") = HEPTAPOD_VERSION;
  py::register_exception<heptapod::Error>(m, "Error", PyExc_RuntimeError);

  py::class_<PyTranslator>(m, "Translator", "A model file loaded for translation and scoring")
      .def(py::init<const std::string&, int, const std::optional<std::string>&, bool, const std::optional<std::string>&>(),
           py::arg("path"), py::arg("threads") = 0, py::arg("compute_type") = py::none(), py::arg("float_output") = false,
           py::arg("adapter") = py::none(), kLoadArguments)
      .def("translate", &PyTranslator::translate, py::arg("sentences"), py::arg("beam") = 4, py::arg("nbest") = 1,
           py::arg("length_penalty") = 0.6f, py::arg("max_extra_length") = 50, py::arg("min_length") = 0,
           py::arg("batch_tokens") = 4096, py::arg("alignments") = false, py::arg("repetition_penalty") = 1.0f,
           py::arg("no_repeat_ngram") = 0, py::arg("sample") = false, py::arg("temperature") = 1.0f,
           py::arg("top_k") = 0, py::arg("top_p") = 1.0f, py::arg("seed") = 0,
           py::arg("target_prefixes") = std::vector<std::string>{}, py::arg("source_lang") = std::string(),
           py::arg("target_lang") = std::string(),
           "One dict per sentence: {'hypotheses': [{'text', 'tokens', 'score', 'log_prob'[, 'alignment']}], "
           "'warning'}, best hypothesis first; sample=True draws nbest samples (temperature, top_k, top_p, seed) "
           "as `heptapod translate --sample` does; target_prefixes: one per sentence, forced; source_lang and "
           "target_lang: a multilingual model's language codes (its `languages`, or ISO 639-1 codes), as "
           "`heptapod translate --source-lang/--target-lang`")
      .def("score", &PyTranslator::score, py::arg("sources"), py::arg("targets"), py::arg("batch_tokens") = 4096,
           py::arg("source_lang") = std::string(), py::arg("target_lang") = std::string(),
           "One dict per pair: {'log_prob', 'tokens', 'token_log_probs'} (natural log, end token included); "
           "source_lang and target_lang: a multilingual model's languages, the pair tagged as `heptapod score "
           "--source-lang/--target-lang` tags it (the target's code scored first)")
      .def("encode", &PyTranslator::encode, py::arg("text"), py::arg("target") = false)
      .def("decode", &PyTranslator::decode, py::arg("ids"), py::arg("target") = true)
      .def_property_readonly("config", &PyTranslator::config)
      .def_property_readonly("compute_type", &PyTranslator::compute_type)
      .def_property_readonly("vocabularies", &PyTranslator::vocabularies)
      .def_property_readonly("languages", &PyTranslator::languages);

  py::class_<PyGenerator>(m, "Generator", "A language model file loaded for generation")
      .def(py::init<const std::string&, int, const std::optional<std::string>&, bool, const std::optional<std::string>&>(),
           py::arg("path"), py::arg("threads") = 0, py::arg("compute_type") = py::none(), py::arg("float_output") = false,
           py::arg("adapter") = py::none(), kLoadArguments)
      .def("generate", &PyGenerator::generate, py::arg("prompts"), py::arg("max_tokens") = 100,
           py::arg("beam") = py::none(), py::arg("nbest") = 1, py::arg("temperature") = py::none(),
           py::arg("top_k") = py::none(), py::arg("top_p") = py::none(), py::arg("seed") = 1,
           py::arg("repetition_penalty") = py::none(), py::arg("no_repeat_ngram") = 0,
           py::arg("stop") = std::vector<std::string>{}, py::arg("length_penalty") = 0.0f,
           py::arg("logprobs") = py::none(),
           "One dict per prompt: {'outputs': [{'text', 'new_text', 'tokens', 'new_tokens', 'log_prob', 'score', "
           "'end'[, 'logprobs']}], 'warning'}; beam=0 samples (temperature, top_k, top_p, seed), beam>=1 searches, "
           "as `heptapod generate` does; settings left None take the model's generation defaults, else "
           "generate's (sampling, temperature 0.8, top_k 40, top_p 0.95, no repetition penalty). logprobs=K: "
           "'logprobs' lists each token of new_text as {'token', 'id', 'bytes', 'logprob', 'text_offset', "
           "'top_logprobs': [{'token', 'id', 'bytes', 'logprob'}] (the K most likely)}, the model's raw "
           "log-probabilities (as score() gives them), text_offset the token's byte offset in new_text")
      .def("chat", &PyGenerator::chat, py::arg("messages"), py::arg("max_tokens") = 100,
           py::arg("temperature") = py::none(), py::arg("top_k") = py::none(), py::arg("top_p") = py::none(),
           py::arg("seed") = 1, py::arg("repetition_penalty") = py::none(),
           py::arg("stop") = std::vector<std::string>{}, py::arg("logprobs") = py::none(),
           "A reply to `messages` (OpenAI's: [{'role': 'system'|'user'|'assistant', 'content': str}, ...]) through "
           "the model's chat template, as `heptapod chat --messages` gives it: {'content', 'finish_reason', "
           "'prompt_tokens', 'completion_tokens'[, 'logprobs']} (logprobs as generate() gives them); settings "
           "left None take the model's generation defaults, else generate's")
      .def("render_chat", &PyGenerator::render_chat, py::arg("messages"), py::arg("add_generation_prompt") = true,
           "The prompt the model's chat template makes of `messages` (`heptapod chat --messages FILE --render`)")
      .def("score", &PyGenerator::score, py::arg("texts"), py::arg("batch_tokens") = 4096,
           "One dict per text, scored as a document (start token, tokens, end token): {'log_prob', 'tokens', "
           "'token_log_probs'} (natural log, end token included), as `heptapod score -i` prints them")
      .def("score_stream", &PyGenerator::score_stream, py::arg("texts"), py::arg("segment") = 0,
           py::arg("memory") = py::none(), py::arg("window") = 0,
           "The texts as documents end to end in one token stream, as `heptapod score --segment/--memory/"
           "--sliding-window` reads them: in segments of `segment` tokens over a memory of `memory` (a "
           "Transformer-XL model; default its training memory; 0: fixed blocks), or every token from the "
           "`window` tokens before it. One dict per text, as score() gives them")
      .def("encode", &PyGenerator::encode, py::arg("text"))
      .def("decode", &PyGenerator::decode, py::arg("ids"))
      .def_property_readonly("config", &PyGenerator::config)
      .def_property_readonly("compute_type", &PyGenerator::compute_type);

  py::class_<PyEncoder>(m, "Encoder", "An encoder-only model file loaded for embedding and classification")
      .def(py::init<const std::string&, int, const std::optional<std::string>&, bool, const std::optional<std::string>&>(),
           py::arg("path"), py::arg("threads") = 0, py::arg("compute_type") = py::none(), py::arg("float_output") = false,
           py::arg("adapter") = py::none(), kLoadArguments)
      .def("embed", &PyEncoder::embed, py::arg("texts"), py::arg("pooling") = py::none(),
           py::arg("normalize") = py::none(), py::arg("batch_tokens") = 4096,
           "One vector per text (a str, or a (first, second) sentence pair), as `heptapod embed` writes them: a "
           "float32 NumPy array (len(texts), width) where NumPy is installed, else a list of lists; pooling "
           "'mean', 'cls', 'max', 'mean_sqrt_len', 'weightedmean' or 'lasttoken' and normalize True or False, by "
           "default the model's own (a converted sentence-transformers model's modes, its Dense module and "
           "Normalize; else 'mean', not normalised); width: d_model per pooling mode, or the Dense module's "
           "outputs")
      .def("classify", &PyEncoder::classify, py::arg("texts"), py::arg("top_k") = 1, py::arg("batch_tokens") = 4096,
           "A classifier's classes of each text (a str, or a (first, second) sentence pair): one dict per text, "
           "{'labels': the prediction (the most probable "
           "class, or each above 0.5 for a multi-label model), 'top': [(label, probability), ...] best first}")
      .def_property_readonly("labels", &PyEncoder::labels)
      .def("encode", &PyEncoder::encode, py::arg("text"),
           "The ids the encoder reads for a text: the start token, its tokens (cut to the learned positions), the end token")
      .def("decode", &PyEncoder::decode, py::arg("ids"))
      .def_property_readonly("config", &PyEncoder::config)
      .def_property_readonly("compute_type", &PyEncoder::compute_type);

  py::class_<eval::BleuScore>(m, "BLEUScore")
      .def_readonly("score", &eval::BleuScore::score)
      .def_readonly("counts", &eval::BleuScore::counts)
      .def_readonly("totals", &eval::BleuScore::totals)
      .def_readonly("precisions", &eval::BleuScore::precisions)
      .def_readonly("bp", &eval::BleuScore::bp)
      .def_readonly("ratio", &eval::BleuScore::ratio)
      .def_readonly("sys_len", &eval::BleuScore::hyp_len)
      .def_readonly("ref_len", &eval::BleuScore::ref_len)
      .def_readonly("signature", &eval::BleuScore::signature)
      .def("format", &eval::BleuScore::format, py::arg("width") = 2)
      .def("__str__", [](const eval::BleuScore& s) { return s.format(); })
      .def("__repr__", [](const eval::BleuScore& s) { return s.format(); });
  py::class_<eval::ChrfScore>(m, "CHRFScore")
      .def_readonly("score", &eval::ChrfScore::score)
      .def_readonly("name", &eval::ChrfScore::name)
      .def_readonly("signature", &eval::ChrfScore::signature)
      .def("format", &eval::ChrfScore::format, py::arg("width") = 2)
      .def("__str__", [](const eval::ChrfScore& s) { return s.format(); })
      .def("__repr__", [](const eval::ChrfScore& s) { return s.format(); });

  m.def("bleu", &heptapod::python::bleu, py::arg("hypotheses"), py::arg("references"), py::arg("lowercase") = false,
        py::arg("tokenize") = "13a", py::arg("smooth") = "exp", py::arg("smooth_value") = py::none(),
        "Corpus BLEU exactly as sacreBLEU 2.0 computes it; references: a list of reference streams, or one stream");
  m.def("chrf", &heptapod::python::chrf, py::arg("hypotheses"), py::arg("references"), py::arg("char_order") = 6,
        py::arg("word_order") = 0, py::arg("beta") = 2, py::arg("lowercase") = false, py::arg("whitespace") = false,
        py::arg("eps_smoothing") = false,
        "Corpus chrF exactly as sacreBLEU 2.0 computes it; references: a list of reference streams, or one stream");
  m.def("train", &heptapod::python::train, py::arg("source"), py::arg("target"), py::arg("output_dir"),
        "Trains (or resumes) as `heptapod train` does, with its flags as keyword arguments (preset, steps, "
        "batch_tokens, valid_source, ...; a language model: source and target None, arch='decoder-only', "
        "text=...); on_update(state) after every update. Returns the run's result.");
}
