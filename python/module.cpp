// The `heptapod` Python module (pybind11): the library's Translator, Trainer and sacreBLEU-exact metrics for
// Python programs. Every call that computes releases the GIL, so Python threads translate concurrently (one
// Translator's calls run one at a time, each as its own batches, so results never depend on what runs beside
// them); the library's Error becomes heptapod.Error with the CLI's message.
#include <pybind11/functional.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "heptapod/core/error.h"
#include "heptapod/decode/translator.h"
#include "heptapod/eval/bleu.h"
#include "heptapod/eval/chrf.h"
#include "heptapod/kernels/threads.h"
#include "heptapod/model/config.h"
#include "heptapod/train/model_choice.h"
#include "heptapod/train/trainer.h"

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

// A Translator with its own lock and thread count (OpenMP's setting belongs to the calling thread, so each
// call sets it for the thread it runs on).
class PyTranslator {
 public:
  PyTranslator(const std::string& path, int threads, const std::optional<std::string>& compute_type,
               bool float_output)
      : threads_(threads), translator_(path, options(compute_type, float_output)) {
    require(threads >= 0, "threads must be >= 0");
  }

  py::list translate(const std::vector<std::string>& sentences, int beam, int nbest, float length_penalty,
                     int max_extra_length, int min_length, int batch_tokens, bool alignments) {
    require(beam >= 1 && beam <= 64, "beam must be in [1, 64]");
    require(nbest >= 1 && nbest <= 256, "nbest must be in [1, 256]");
    require(max_extra_length >= 0 && min_length >= 0, "max_extra_length and min_length must be >= 0");
    require(batch_tokens >= 1, "batch_tokens must be >= 1");
    TranslateOptions o;
    o.search.beam = std::max(beam, nbest);
    o.search.nbest = nbest;
    o.search.length_penalty = length_penalty;
    o.search.max_extra_length = max_extra_length;
    o.search.min_length = min_length;
    o.batch_tokens = batch_tokens;
    std::vector<Translation> out;
    {
      py::gil_scoped_release release;
      std::lock_guard lock(mutex_);
      set_num_threads(threads_);
      out = translator_.translate(sentences, o);
    }
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

  py::list score(const std::vector<std::string>& sources, const std::vector<std::string>& targets, int batch_tokens) {
    require(sources.size() == targets.size(), "score: " + std::to_string(sources.size()) + " sources but " +
                                                  std::to_string(targets.size()) + " targets");
    require(batch_tokens >= 1, "batch_tokens must be >= 1");
    std::vector<SentenceScore> out;
    {
      py::gil_scoped_release release;
      std::lock_guard lock(mutex_);
      set_num_threads(threads_);
      out = translator_.score(sources, targets, batch_tokens);
    }
    py::list results;
    for (const SentenceScore& s : out) {
      py::dict d;
      d["log_prob"] = s.log_prob;
      d["tokens"] = s.tokens;
      d["token_log_probs"] = s.token_log_probs;
      results.append(d);
    }
    return results;
  }

  py::object config() const { return json_to_python(nlohmann::json::parse(to_json(translator_.config()))); }
  std::string compute_type() const { return compute_type_name(translator_.precision().type); }
  py::dict vocabularies() const {
    py::dict d;
    d["source_size"] = translator_.vocabularies().source.size();
    d["target_size"] = translator_.vocabularies().target.size();
    return d;
  }
  std::vector<int> encode(const std::string& text, bool target) const {
    return (target ? translator_.vocabularies().target : translator_.vocabularies().source).encode(text);
  }
  std::string decode(const std::vector<int>& ids, bool target) const {
    return (target ? translator_.vocabularies().target : translator_.vocabularies().source).decode(ids);
  }

 private:
  static TranslatorOptions options(const std::optional<std::string>& compute_type, bool float_output) {
    TranslatorOptions o;
    if (compute_type) o.compute_type = parse_compute_type(*compute_type, "compute_type");
    o.float_output = float_output;
    return o;
  }
  int threads_;
  std::mutex mutex_;
  Translator translator_;
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

// heptapod.train: TrainConfig from keyword arguments as `heptapod train` takes its flags; on_update(dict) is
// called after every update with the run's state (from Python, the GIL held only for the call).
py::dict train(const std::string& source, const std::string& target, const std::string& output_dir,
               const py::kwargs& options) {
  TrainConfig c;
  c.train_source = source;
  c.train_target = target;
  c.output_dir = output_dir;
  ModelChoice m;
  bool warmup_given = false, lr_given = false, schedule_given = false;
  std::optional<py::function> on_update;
  for (const auto& [key, value] : options) {
    const std::string k = key.cast<std::string>();
    auto as_int = [&] { return value.cast<int>(); };
    if (k == "preset") {
      m.preset = value.cast<std::string>();
      m.preset_given = true;
    }
    else if (k == "on_update") { if (!value.is_none()) on_update = value.cast<py::function>(); }
    else if (k == "init") c.init_model = value.cast<std::string>();
    else if (k == "freeze") c.freeze = value.cast<std::vector<std::string>>();
    else if (k == "valid_source") c.valid_source = value.cast<std::string>();
    else if (k == "valid_target") c.valid_target = value.cast<std::string>();
    else if (k == "vocab") c.vocab = value.cast<std::string>();
    else if (k == "source_vocab") c.source_vocab = value.cast<std::string>();
    else if (k == "target_vocab") c.target_vocab = value.cast<std::string>();
    else if (k == "vocab_size") c.vocab_config.size = as_int();
    else if (k == "byte_fallback") c.vocab_config.byte_fallback = value.cast<bool>();
    else if (k == "vocab_model") c.vocab_config.model = vocab_model_from_name(value.cast<std::string>());
    else if (k == "separate_vocab") c.joint_vocab = !value.cast<bool>();
    else if (k == "d_model") m.d_model = as_int();
    else if (k == "heads") m.heads = as_int();
    else if (k == "d_ff") m.d_ff = as_int();
    else if (k == "layers") m.encoder_layers = m.decoder_layers = as_int();
    else if (k == "encoder_layers") m.encoder_layers = as_int();
    else if (k == "decoder_layers") m.decoder_layers = as_int();
    else if (k == "dropout") m.dropout = value.cast<float>();
    else if (k == "lr_schedule") {
      const std::string kind = value.cast<std::string>();
      require(kind == "noam" || kind == "inverse-sqrt", "train: lr_schedule must be 'noam' or 'inverse-sqrt'");
      c.schedule.kind = kind == "noam" ? LrSchedule::Kind::Noam : LrSchedule::Kind::InverseSqrt;
      schedule_given = true;
    }
    else if (k == "lr") { c.schedule.peak_lr = value.cast<double>(); lr_given = true; }
    else if (k == "max_length") c.filter.max_tokens = as_int();
    else if (k == "max_ratio") c.filter.max_ratio = value.cast<double>();
    else if (k == "batch_tokens") c.batch_tokens = as_int();
    else if (k == "accumulate") c.accumulate = as_int();
    else if (k == "window") c.window = as_int();
    else if (k == "warmup") { c.schedule.warmup_steps = as_int(); warmup_given = true; }
    else if (k == "lr_scale") c.schedule.scale = value.cast<double>();
    else if (k == "label_smoothing") c.label_smoothing = value.cast<float>();
    else if (k == "clip_norm") c.clip_norm = value.cast<double>();
    else if (k == "steps") c.max_steps = value.cast<long>();
    else if (k == "epochs") c.max_epochs = as_int();
    else if (k == "valid_every") c.valid_every = as_int();
    else if (k == "keep_checkpoints") c.keep_checkpoints = as_int();
    else if (k == "patience") c.patience = as_int();
    else if (k == "valid_bleu_sentences") c.valid_bleu_sentences = as_int();
    else if (k == "log_every") c.log_every = as_int();
    else if (k == "seed") c.seed = value.cast<std::uint64_t>();
    else if (k == "threads") c.threads = as_int();
    else throw Error("train: unknown option '" + k + "'");
  }
  m.init_model = c.init_model;
  c.model = resolve_model_choice(m);
  if (!c.init_model.empty()) apply_fine_tuning_defaults(c.schedule, schedule_given, warmup_given, lr_given);
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
      .def(py::init<const std::string&, int, const std::optional<std::string>&, bool>(), py::arg("path"),
           py::arg("threads") = 0, py::arg("compute_type") = py::none(), py::arg("float_output") = false,
           "threads: 0 = every core; compute_type: 'float32', 'int8' or 'bfloat16' (default: the file's)")
      .def("translate", &PyTranslator::translate, py::arg("sentences"), py::arg("beam") = 4, py::arg("nbest") = 1,
           py::arg("length_penalty") = 0.6f, py::arg("max_extra_length") = 50, py::arg("min_length") = 0,
           py::arg("batch_tokens") = 4096, py::arg("alignments") = false,
           "One dict per sentence: {'hypotheses': [{'text', 'tokens', 'score', 'log_prob'[, 'alignment']}], "
           "'warning'}, best hypothesis first")
      .def("score", &PyTranslator::score, py::arg("sources"), py::arg("targets"), py::arg("batch_tokens") = 4096,
           "One dict per pair: {'log_prob', 'tokens', 'token_log_probs'} (natural log, end token included)")
      .def("encode", &PyTranslator::encode, py::arg("text"), py::arg("target") = false)
      .def("decode", &PyTranslator::decode, py::arg("ids"), py::arg("target") = true)
      .def_property_readonly("config", &PyTranslator::config)
      .def_property_readonly("compute_type", &PyTranslator::compute_type)
      .def_property_readonly("vocabularies", &PyTranslator::vocabularies);

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
        "batch_tokens, valid_source, ...); on_update(state) after every update. Returns the run's result.");
}
