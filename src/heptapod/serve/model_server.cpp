// The HTTP server: models by kind, routes, request checks, model lookup, queue submission, replies (whole or
// streamed), logs and metrics.
#include "heptapod/serve/model_server.h"

#include <sys/stat.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <ctime>
#include <exception>
#include <filesystem>
#include <future>
#include <map>
#include <mutex>
#include <set>
#include <thread>

#include "heptapod/decode/encoder.h"
#include "heptapod/decode/generator.h"
#include "heptapod/data/gguf_import.h"
#include "heptapod/io/adapter_file.h"
#include "heptapod/io/model_file.h"
#include "heptapod/io/safetensors.h"
#include "heptapod/serve/api_keys.h"
#include "heptapod/serve/chat_api.h"
#include "heptapod/serve/encoder_api.h"
#include "heptapod/serve/generation_api.h"
#include "heptapod/serve/generation_queue.h"
#include "heptapod/serve/http_front_end.h"
#include "heptapod/serve/log_probs_json.h"
#include "heptapod/serve/request_body.h"
#include "heptapod/serve/server_metrics.h"
#include "heptapod/serve/translation_api.h"
#include "heptapod/serve/translation_queue.h"
#include "heptapod/serve/web_page.h"

namespace heptapod {

namespace {

using nlohmann::json;
using Clock = std::chrono::steady_clock;

// The native routes' error reply: {"error": message}.
HttpResponse error_reply(const HttpError& e) {
  HttpResponse r = error_response(e.status, e.what());
  if (e.retry_after > 0) r.headers.emplace_back("Retry-After", std::to_string(e.retry_after));
  return r;
}

// OpenAI's error object: {"message", "type", "param", "code"}.
json openai_error_json(const HttpError& e) {
  const char* type = e.status >= 500 ? "server_error" : "invalid_request_error";
  return {{"message", e.what()},
          {"type", type},
          {"param", e.param.empty() ? json(nullptr) : json(e.param)},
          {"code", e.status == 404 ? json("model_not_found") : json(nullptr)}};
}

// OpenAI's routes' error reply: {"error": {...}}.
HttpResponse openai_error(const HttpError& e) {
  HttpResponse r = json_response(e.status, {{"error", openai_error_json(e)}});
  if (e.retry_after > 0) r.headers.emplace_back("Retry-After", std::to_string(e.retry_after));
  return r;
}

std::string utc_now() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

std::int64_t modified_time(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 ? static_cast<std::int64_t>(st.st_mtime) : 0;
}

using EncoderQueue = BatchQueue<EncoderInput, EncoderTask, EncoderResult>;

// One served model: what its file says, and once loaded its engine and queue.
struct ServedModel {
  ModelSpec spec;
  ModelKind kind = ModelKind::Translation;
  ModelConfig config;        // an adapter's: its base's with the adapters
  std::string base_id;       // an adapter's: the served model it goes over (OpenAI's "parent"); else empty
  std::int64_t created = 0;  // the file's modification time (OpenAI's "created"; an adapter's file's)
  std::unique_ptr<Translator> translator;
  std::unique_ptr<TranslationQueue> translations;
  std::unique_ptr<Generator> generator;
  std::unique_ptr<GenerationQueue> generations;
  std::unique_ptr<Encoder> encoder;
  std::unique_ptr<EncoderQueue> encodings;
  std::string id() const { return spec.id(); }
};

enum class Api { LibreTranslate, Native };
// The generation routes: /v1/generate, OpenAI's /v1/completions and /v1/chat/completions.
enum class GenerationApi { Native, Completions, Chat };

// The request's error, as the route's API replies it: OpenAI's object or {"error": ...}.
HttpResponse error_of(const HttpError& e, bool openai) { return openai ? openai_error(e) : error_reply(e); }

// Queues `items` on a batch queue and waits for their results until the deadline: 503 when the queue is full
// (`busy` says so), 504 when the deadline passes, queued or running (`what` names the work: "Translation").
template <typename Item, typename Options, typename Result>
std::vector<Result> run_queued(BatchQueue<Item, Options, Result>& queue, std::vector<Item> items, const Options& options,
                               std::chrono::milliseconds timeout, const std::string& busy, const std::string& what) {
  const Clock::time_point deadline = Clock::now() + timeout;
  std::future<std::vector<Result>> future;
  try {
    future = queue.submit(std::move(items), options, deadline);
  } catch (const QueueFull&) {
    throw HttpError(503, "The server is busy (" + busy + "); retry shortly", 1);
  }
  const std::string timed_out = what + " timed out after " + std::to_string(timeout.count()) + " ms";
  if (future.wait_until(deadline) != std::future_status::ready) throw HttpError(504, timed_out);
  try {
    return future.get();
  } catch (const DeadlineExceeded&) {
    throw HttpError(504, timed_out + " (queued)");
  }
}

}  // namespace

struct ModelServer::Impl {
  std::vector<ServedModel> models;  // engines filled before `ready`, read-only after
  ServerOptions options;
  std::set<std::string> api_keys;
  std::unique_ptr<HttpFrontEnd> http;
  int port = -1;
  ServerMetrics metrics;
  std::atomic<bool> ready{false};
  std::mutex stop_mutex;
  std::condition_variable stop_wake;
  bool stop_requested = false;

  void routes();
  void load_models();
  // base: the packed model of m's file when adapters share it (null: m loads its own).
  void load(ServedModel& m, std::shared_ptr<Transformer<float>> base);
  // The body as JSON: the native and OpenAI routes take JSON only, LibreTranslate's also forms.
  json read_body(const HttpRequest& req, Api api) const;
  void check_api_key(const HttpRequest& req, const json& body) const;
  std::vector<const ServedModel*> of_kind(ModelKind kind) const;
  const ServedModel& find_translation(const TranslationCall& call) const;
  // The model a request names (or the only one of `kinds`), of one of `kinds`: 404 for an unknown name, 400 for
  // a model of another kind or a missing name among several.
  const ServedModel& find_model(const std::string& name, const std::vector<ModelKind>& kinds,
                                const std::string& route) const;
  void translate(HttpExchange& exchange, Api api);
  void generate(HttpExchange& exchange, GenerationApi api);
  void stream_generation(HttpExchange& exchange, const ChatCall& chat, const std::vector<KeptPrompt>& prompts,
                         const ServedModel& model, GenerationTicket& ticket, Clock::time_point deadline,
                         GenerationApi api);
  void encode(HttpExchange& exchange, bool embeddings);
  json model_json(const ServedModel& m) const;
  ServerGauges gauges() const;
};

namespace {

// The served model (of `models`, the -m ones) that the adapter file `adapter` of --adapter `name` goes over: the
// one whose weights' checksum it names. `checksums` caches each model's.
const ServedModel& adapter_base(const std::string& name, const SafetensorsFile& adapter,
                                const std::vector<ServedModel>& models, std::map<std::string, std::string>& checksums) {
  const AdapterInfo info = read_adapter_info(adapter);
  for (const ServedModel& m : models) {
    if (!m.spec.adapter.empty()) continue;
    auto [it, fresh] = checksums.try_emplace(m.spec.path);
    if (fresh) it->second = weights_checksum(open_model_file(m.spec.path));
    if (it->second == info.base_checksum) return m;
  }
  throw Error("--adapter " + name + "=" + adapter.where() + ": its base (weights checksum " + info.base_checksum +
              ") is none of the models served (-m)");
}

}  // namespace

ModelServer::ModelServer(std::vector<ModelSpec> specs, const ServerOptions& options) : impl_(std::make_unique<Impl>()) {
  require(!specs.empty(), "serve: no model given (-m MODEL or -m NAME=MODEL)");
  std::set<std::string> ids;
  for (ModelSpec& spec : specs) {
    if (!spec.adapter.empty()) continue;  // below, once every base is known
    require(specs.size() == 1 || spec.named(), "serve: with several models, name each one's pair or name: -m SRC-TGT=" +
                                                   spec.path + " (a translation model) or -m NAME=" + spec.path);
    require(ids.insert(spec.id()).second, "serve: the model " + spec.id() + " is given twice");
    require(std::filesystem::is_regular_file(spec.path), "--model " + spec.path + ": not a file");
    const SafetensorsFile file = open_model_file(spec.path);
    ServedModel m;
    m.config = read_model_config(file);  // a damaged file is refused before listening
    m.kind = model_kind(m.config);
    if (m.kind == ModelKind::Translation) check_translation_name(spec);
    m.created = modified_time(spec.path);
    m.spec = std::move(spec);
    impl_->models.push_back(std::move(m));
  }
  require(!impl_->models.empty(), "serve: --adapter needs its base model served too (-m MODEL)");
  std::map<std::string, std::string> checksums;  // by base path
  for (ModelSpec& spec : specs) {
    if (spec.adapter.empty()) continue;
    require(ids.insert(spec.id()).second, "serve: the model " + spec.id() + " is given twice");
    require(std::filesystem::is_regular_file(spec.adapter), "--adapter " + spec.adapter + ": not a file");
    const SafetensorsFile adapter = SafetensorsFile::read(spec.adapter);
    const ServedModel& base = adapter_base(spec.name, adapter, impl_->models, checksums);
    ServedModel m;
    m.config = read_adapter_info(adapter).config;
    m.kind = model_kind(m.config);
    m.base_id = base.id();
    spec.path = base.spec.path;
    if (m.kind == ModelKind::Translation) {
      check_translation_name(spec);
      require(spec.source == base.spec.source && spec.target == base.spec.target,
              "--adapter " + spec.name + "=" + spec.adapter + ": its base " + base.id() + " translates " +
                  base.spec.source + " into " + base.spec.target + "; name the adapter " + base.spec.source + "-" +
                  base.spec.target + ":VARIANT");
    }
    m.created = modified_time(spec.adapter);
    m.spec = std::move(spec);
    impl_->models.push_back(std::move(m));
  }
  const RequestLimits& l = options.limits;
  require(l.max_characters > 0, "--max-characters must be positive");
  require(l.max_sentences > 0, "--max-sentences must be positive");
  require(l.max_beam > 0 && l.max_nbest > 0, "--max-beam and --max-nbest must be positive");
  require(options.defaults.search.beam <= l.max_beam, "--beam " + std::to_string(options.defaults.search.beam) +
                                                          " is above --max-beam " + std::to_string(l.max_beam) +
                                                          ": every request would be refused");
  require(l.max_prompt_tokens > 0 && l.max_new_tokens > 0, "--max-prompt-tokens and --max-new-tokens must be positive");
  require(options.max_batch_rows >= l.max_nbest, "--max-batch-rows " + std::to_string(options.max_batch_rows) +
                                                      " is below --max-nbest " + std::to_string(l.max_nbest) +
                                                      ": a request of n samples must fit the running batch");
  require(options.max_prefill_tokens > 0, "--max-prefill-tokens must be positive");
  require(l.timeout.count() > 0, "--timeout must be positive");
  impl_->http = std::make_unique<HttpFrontEnd>(options.http);  // checks the connection options
  impl_->options = options;
  if (!options.api_keys_file.empty()) impl_->api_keys = load_api_keys(options.api_keys_file);
  impl_->routes();
}

ModelServer::~ModelServer() { stop(); }

int ModelServer::bind() {
  impl_->port = impl_->http->bind();
  return impl_->port;
}

void ModelServer::serve() {
  Impl& s = *impl_;
  require(s.port >= 0, "serve: bind() first");
  std::thread listener([&] { s.http->run(); });
  std::exception_ptr error;
  try {
    s.load_models();
  } catch (...) {
    error = std::current_exception();
  }
  {
    std::unique_lock lock(s.stop_mutex);
    s.stop_wake.wait(lock, [&] { return s.stop_requested || error; });
  }
  s.http->stop();
  listener.join();
  if (error) std::rethrow_exception(error);
}

void ModelServer::stop() {
  {
    std::lock_guard lock(impl_->stop_mutex);
    impl_->stop_requested = true;
  }
  impl_->stop_wake.notify_all();
}

bool ModelServer::ready() const { return impl_->ready; }
int ModelServer::port() const { return impl_->port; }

void ModelServer::Impl::load(ServedModel& m, std::shared_ptr<Transformer<float>> base) {
  ModelLoadOptions precision = options.load;  // the file's own type unless --compute-type says otherwise
  precision.adapter = m.spec.adapter;
  precision.base = std::move(base);
  const std::string id = m.id(), kind = kind_name(m.kind);
  QueueOptions q = options.queue;
  q.on_batch = [this, id, kind, max = q.max_batch_sentences](const BatchReport& b) {
    metrics.record_batch(id, kind, b, max);
  };
  switch (m.kind) {
    case ModelKind::Translation:
      m.translator = std::make_unique<Translator>(m.spec.path, precision);
      m.translations = std::make_unique<TranslationQueue>(*m.translator, q);
      break;
    case ModelKind::Generation: {
      m.generator = std::make_unique<Generator>(m.spec.path, precision);
      GenerationQueueOptions g;
      g.batch.max_rows = options.max_batch_rows;
      g.batch.max_positions = options.limits.max_prompt_tokens + options.limits.max_new_tokens;
      g.batch.cache = GenerateOptions{}.cache;
      g.max_prefill_tokens = options.max_prefill_tokens;
      g.max_queued_rows = options.queue.max_queued_sentences;
      g.max_batch_requests = options.queue.max_batch_requests;  // 1 with --no-batching
      g.on_step = [this, id](const GenerationStepReport& r) { metrics.record_step(id, r); };
      g.on_first_token = [this, id](double seconds) { metrics.record_first_token(id, seconds); };
      m.generations = std::make_unique<GenerationQueue>(*m.generator, g);
      break;
    }
    case ModelKind::Classification:
    case ModelKind::Embedding: {
      m.encoder = std::make_unique<Encoder>(m.spec.path, precision);
      Encoder* encoder = m.encoder.get();
      m.encodings = std::make_unique<EncoderQueue>(
          [encoder](const std::vector<EncoderInput>& inputs, const EncoderTask& task) {
            return run_encoder_task(*encoder, inputs, task);
          },
          same_task, q);
      break;
    }
  }
}

void ModelServer::Impl::load_models() {
  // The models that adapters go over are loaded once, and shared by their own front end and the adapters'.
  std::map<std::string, std::shared_ptr<Transformer<float>>> shared;  // by path
  for (const ServedModel& m : models)
    if (!m.spec.adapter.empty() && !shared.count(m.spec.path))
      shared[m.spec.path] = load_packed_model(m.spec.path, options.load);
  std::set<std::string> computing;  // the shared models one plain front end computes on (one at most: a model
                                    // object holds its passes' state; a second gets a copy of its own)
  for (ServedModel& m : models) {
    const auto found = shared.find(m.spec.path);
    std::shared_ptr<Transformer<float>> base = found == shared.end() ? nullptr : found->second;
    if (base && m.spec.adapter.empty() && !computing.insert(m.spec.path).second) base = nullptr;
    load(m, std::move(base));
    const std::string adapter = m.spec.adapter.empty() ? "" : " with adapter " + m.spec.adapter;
    std::fprintf(stderr, "%s heptapod serve: loaded %s, a %s model (%s%s)\n", utc_now().c_str(), m.id().c_str(),
                 kind_name(m.kind), m.spec.path.c_str(), adapter.c_str());
  }
  ready = true;
}

json ModelServer::Impl::read_body(const HttpRequest& req, Api api) const {
  const std::string content_type = req.header("Content-Type");
  if (api == Api::Native) {
    if (media_type(content_type) == "multipart/form-data")
      throw HttpError(400, "Invalid request: " + req.path + " takes a JSON body");
    return parse_body(req.body, "application/json");
  }
  return parse_body(req.body, content_type);
}

void ModelServer::Impl::check_api_key(const HttpRequest& req, const json& body) const {
  if (api_keys.empty()) return;
  std::string key = string_field(body, "api_key").value_or("");
  if (key.empty()) key = req.header("X-API-Key");
  const std::string auth = req.header("Authorization");
  if (key.empty() && auth.rfind("Bearer ", 0) == 0) key = auth.substr(7);
  if (key.empty()) throw HttpError(403, "Please provide an API key (api_key field, X-API-Key or Authorization: Bearer)");
  if (!api_keys.count(key)) throw HttpError(403, "Invalid API key");
}

std::vector<const ServedModel*> ModelServer::Impl::of_kind(ModelKind kind) const {
  std::vector<const ServedModel*> out;
  for (const ServedModel& m : models)
    if (m.kind == kind) out.push_back(&m);
  return out;
}

const ServedModel& ModelServer::Impl::find_translation(const TranslationCall& call) const {
  if (!ready) throw HttpError(503, "The models are still loading", 5);
  const std::vector<const ServedModel*> translators = of_kind(ModelKind::Translation);
  if (translators.empty()) throw HttpError(400, "This server holds no translation model");
  const bool any_source = call.source.empty() || call.source == "auto";
  if (!call.model.empty()) {  // the native API names a model: that one if served under its name
    for (const ServedModel* m : translators)
      if (m->spec.id() == call.model) return *m;
    if (call.model.find(':') != std::string::npos)
      throw HttpError(404, "The model '" + call.model + "' does not exist", 0, "model");
  }
  if (translators.size() == 1) {
    const ServedModel& m = *translators[0];
    if (!m.spec.named()) return m;
    if (!any_source && call.source != m.spec.source) throw HttpError(400, call.source + " is not supported");
    if (!call.target.empty() && call.target != m.spec.target) throw HttpError(400, call.target + " is not supported");
    return m;
  }
  if (call.target.empty()) throw HttpError(400, "Invalid request: missing target parameter");
  std::vector<const ServedModel*> candidates;
  bool source_known = false;
  for (const ServedModel* m : translators) {
    source_known |= m->spec.source == call.source;
    if (m->spec.target == call.target && (any_source || m->spec.source == call.source)) candidates.push_back(m);
  }
  // Several models of one pair (es-en, es-en:software): the pair alone means the one without a variant.
  if (candidates.size() > 1) {
    std::vector<const ServedModel*> plain;
    for (const ServedModel* m : candidates)
      if (m->spec.variant.empty()) plain.push_back(m);
    const bool one_pair = std::all_of(candidates.begin(), candidates.end(), [&](const ServedModel* m) {
      return m->spec.source == candidates[0]->spec.source;
    });
    if (one_pair && plain.size() != 1) {
      std::string names;
      for (const ServedModel* m : candidates) names += (names.empty() ? "" : ", ") + m->spec.id();
      throw HttpError(400, "Invalid request: several models translate " + candidates[0]->spec.source + " into " +
                               call.target + " (" + names + "); name one in the field model");
    }
    if (one_pair) return *plain[0];
  }
  if (candidates.size() == 1) return *candidates[0];
  if (candidates.size() > 1)
    throw HttpError(400, "Invalid request: several models translate into " + call.target + "; give the source language");
  if (!any_source && !source_known) throw HttpError(400, call.source + " is not supported");
  throw HttpError(400, call.target + " is not supported");
}

namespace {

// A multilingual model's call: its source and target languages (the request's, else the model's name's pair),
// each one of the model's codes or an ISO 639-1 code that resolves to one ("fr" -> "fra_Latn"); "auto" or no
// source leaves the source untagged. Other models' options are the call's.
TranslateOptions with_languages(const TranslationCall& call, const ServedModel& model) {
  TranslateOptions options = call.options;
  if (!model.translator || model.translator->languages().empty()) return options;
  const LanguageCodes& codes = model.translator->languages();
  const std::string source = call.source.empty() ? model.spec.source : call.source;
  const std::string target = call.target.empty() ? model.spec.target : call.target;
  if (target.empty()) throw HttpError(400, "Invalid request: missing target parameter");
  auto model_code = [&](const std::string& code) {
    const std::string found = codes.resolve(code);
    if (found.empty()) throw HttpError(400, code + " is not supported (the model's languages: " + codes.listing() + ")");
    return found;
  };
  if (!source.empty() && source != "auto") options.source_language = model_code(source);
  options.target_language = model_code(target);
  return options;
}

}  // namespace

const ServedModel& ModelServer::Impl::find_model(const std::string& name, const std::vector<ModelKind>& kinds,
                                                 const std::string& route) const {
  if (!ready) throw HttpError(503, "The models are still loading", 5);
  auto fits = [&](const ServedModel& m) { return std::find(kinds.begin(), kinds.end(), m.kind) != kinds.end(); };
  std::vector<const ServedModel*> candidates;
  for (const ServedModel& m : models) {
    if (!name.empty() && m.id() == name) {
      if (!fits(m))
        throw HttpError(400, "The model '" + name + "' is a " + kind_name(m.kind) + " model, which " + route +
                                 " does not serve",
                        0, "model");
      return m;
    }
    if (fits(m)) candidates.push_back(&m);
  }
  if (!name.empty()) throw HttpError(404, "The model '" + name + "' does not exist", 0, "model");
  if (candidates.empty()) throw HttpError(400, "This server holds no model that " + route + " serves", 0, "model");
  if (candidates.size() > 1) {
    std::string names;
    for (const ServedModel* m : candidates) names += (names.empty() ? "" : ", ") + m->id();
    throw HttpError(400, "Invalid request: field model: required (this server holds " + names + ")", 0, "model");
  }
  return *candidates.front();
}

void ModelServer::Impl::translate(HttpExchange& exchange, Api api) {
  const HttpRequest& req = exchange.request();
  try {
    const json body = read_body(req, api);
    check_api_key(req, body);
    const TranslationCall call =
        api == Api::LibreTranslate ? parse_libretranslate(body, options) : parse_native(body, options);
    const ServedModel& model = find_translation(call);
    exchange.set_log_note(std::to_string(call.lines.size()) + " sentences, model " + model.id());
    const std::vector<Translation> out =
        run_queued(*model.translations, call.lines, with_languages(call, model), call.timeout, "translation queue full",
                   "Translation");
    exchange.reply(json_response(200, api == Api::LibreTranslate ? libretranslate_reply(call, out, model.spec)
                                                              : native_reply(call, out, model.spec)));
  } catch (const HttpError& e) {
    exchange.reply(error_reply(e));
  } catch (const Error& e) {
    exchange.reply(error_reply(HttpError(500, std::string("Translation failed: ") + e.what())));
  }
}

void ModelServer::Impl::generate(HttpExchange& exchange, GenerationApi api) {
  const HttpRequest& req = exchange.request();
  const bool openai = api != GenerationApi::Native;
  try {
    const json body = read_body(req, Api::Native);
    check_api_key(req, body);
    ChatCall chat;  // a chat's conversation; for the other routes only its generation call
    if (api == GenerationApi::Chat)
      chat = parse_chat_completion(body, options);
    else
      chat.generation = openai ? parse_completion(body, options) : parse_generate(body, options);
    const GenerationCall& call = chat.generation;
    if (call.prompts.size() > static_cast<std::size_t>(options.limits.max_sentences))
      throw field_error("prompt", std::to_string(call.prompts.size()) + " prompts exceed the limit of " +
                                      std::to_string(options.limits.max_sentences));
    const ServedModel& model = find_model(call.model, {ModelKind::Generation}, req.path);
    const std::vector<KeptPrompt> prompts = api == GenerationApi::Chat
                                                ? std::vector<KeptPrompt>{chat_prompt(chat, *model.generator, model.id())}
                                                : keep_prompts(call, *model.generator, openai);
    exchange.set_log_note(api == GenerationApi::Chat ? std::to_string(chat.messages.size()) + " messages, " +
                                                           std::to_string(prompts[0].tokens.size()) + " tokens, model " + model.id()
                                                     : std::to_string(prompts.size()) + " prompts" +
                                                           ", model " + model.id());
    const Clock::time_point deadline = Clock::now() + call.timeout;
    std::shared_ptr<GenerationTicket> ticket;
    try {
      ticket = model.generations->submit(prompts, call.options, call.stream, deadline);
    } catch (const QueueFull&) {
      throw HttpError(503, "The server is busy (generation queue full); retry shortly", 1);
    } catch (const Error& e) {
      throw HttpError(400, std::string("Invalid request: ") + e.what());
    }
    if (call.stream) {
      stream_generation(exchange, chat, prompts, model, *ticket, deadline, api);
      return;
    }
    const std::string timed_out = "Generation timed out after " + std::to_string(call.timeout.count()) + " ms";
    GenerationEvent e;
    do {
      if (!ticket->next(e, deadline + std::chrono::seconds(2))) {
        ticket->cancel();
        throw HttpError(504, timed_out);
      }
    } while (e.kind == GenerationEvent::Kind::Piece);
    if (e.kind == GenerationEvent::Kind::Failed) {
      try {
        std::rethrow_exception(e.error);
      } catch (const DeadlineExceeded&) {
        throw HttpError(504, timed_out);
      }
    }
    const Vocabulary& vocab = model.generator->vocabulary();
    json reply;
    if (api == GenerationApi::Chat)
      reply = chat_completion_reply(chat, prompts, e.generations, model.id(), new_completion_id("chatcmpl-"), vocab);
    else if (openai)
      reply = completion_reply(call, prompts, e.generations, model.id(), new_completion_id(), vocab);
    else
      reply = generate_reply(prompts, std::move(e.generations), model.id());
    exchange.reply(json_response(200, reply));
  } catch (const HttpError& e) {
    exchange.reply(error_of(e, openai));
  } catch (const Error& e) {
    exchange.reply(error_of(HttpError(500, std::string("Generation failed: ") + e.what()), openai));
  }
}

void ModelServer::Impl::stream_generation(HttpExchange& exchange, const ChatCall& chat,
                                          const std::vector<KeptPrompt>& prompts, const ServedModel& model,
                                          GenerationTicket& ticket, Clock::time_point deadline, GenerationApi api) {
  const GenerationCall& call = chat.generation;
  const bool openai = api != GenerationApi::Native, chatting = api == GenerationApi::Chat;
  const CompletionId id = new_completion_id(chatting ? "chatcmpl-" : "cmpl-");
  const std::size_t n = static_cast<std::size_t>(call.options.nbest);
  // Events are written as they come; those that queued up while the last write went out are written
  // together, in one chunk. The header goes out at once, while the prompt is prefilled, so that the first
  // token needs one write (measured: TTFT 1.12x the Generator's against 1.45x with the header sent with the
  // first event). A client gone (or not reading) cancels the generation, which frees its rows in the batch at
  // the next step.
  bool open = exchange.start_stream(200, "text/event-stream", {{"Cache-Control", "no-cache"}});
  std::string pending;  // events not yet written
  auto send = [&](const json& data) { pending += sse_event(data); };
  auto flush = [&] {
    open = open && exchange.write_chunk(pending);
    if (!open) ticket.cancel();
    pending.clear();
  };
  if (openai && call.echo)
    for (std::size_t p = 0; p < prompts.size(); ++p)
      for (std::size_t s = 0; s < n; ++s) send(completion_chunk(id, model.id(), p * n + s, prompts[p].text, ""));
  if (chatting)  // each choice's first delta says whose message it is
    for (std::size_t s = 0; s < n; ++s) send(chat_chunk(id, model.id(), s, {{"role", "assistant"}, {"content", ""}}, ""));
  GenerationEvent e;
  bool finished = false;
  // With logprobs, each choice's new text streamed so far: where its tokens' text_offset counts from.
  std::vector<std::string> streamed(call.options.logprobs >= 0 ? prompts.size() * n : 0);
  auto handle = [&] {
    if (e.kind == GenerationEvent::Kind::Piece) {
      const std::size_t index = e.prompt * n + static_cast<std::size_t>(e.sample);
      const Vocabulary& vocab = model.generator->vocabulary();
      if (chatting) {
        const json logprobs = streamed.empty() ? json(nullptr) : chat_logprobs(e.token_log_probs, vocab);
        send(chat_chunk(id, model.id(), index, {{"content", e.text}}, "", logprobs));
        return;
      }
      json logprobs = nullptr;
      if (openai && !streamed.empty()) {
        streamed[index] += e.text;
        logprobs = completion_logprobs(e.token_log_probs, vocab, streamed[index], 0);
      }
      send(openai ? completion_chunk(id, model.id(), index, e.text, "", logprobs)
                  : json{{"prompt", e.prompt}, {"output", e.sample}, {"text", e.text}});
      return;
    }
    finished = true;
    if (e.kind == GenerationEvent::Kind::Failed) {
      HttpError error(500, "Generation failed");
      try {
        std::rethrow_exception(e.error);
      } catch (const DeadlineExceeded&) {
        error = HttpError(504, "Generation timed out after " + std::to_string(call.timeout.count()) + " ms");
      } catch (const std::exception& failure) {
        error = HttpError(500, std::string("Generation failed: ") + failure.what());
      }
      send(openai ? json{{"error", openai_error_json(error)}} : json{{"error", error.what()}});
      pending += "data: [DONE]\n\n";
      return;
    }
    if (openai) {
      for (std::size_t p = 0; p < e.generations.size(); ++p)
        for (std::size_t s = 0; s < e.generations[p].outputs.size(); ++s) {
          const std::string reason = finish_reason(e.generations[p].outputs[s]);
          send(chatting ? chat_chunk(id, model.id(), p * n + s, json::object(), reason)
                        : completion_chunk(id, model.id(), p * n + s, "", reason));
        }
      if (call.include_usage)
        send({{"id", id.id}, {"object", chatting ? "chat.completion.chunk" : "text_completion"},
              {"created", id.created}, {"model", model.id()}, {"choices", json::array()},
              {"usage", completion_usage(prompts, e.generations)}});
    } else {
      send(generate_reply(prompts, std::move(e.generations), model.id()));
    }
    pending += "data: [DONE]\n\n";
  };
  while (open && !finished) {
    if (!ticket.next(e, deadline + std::chrono::seconds(2))) {
      ticket.cancel();
      e.kind = GenerationEvent::Kind::Failed;
      e.error = std::make_exception_ptr(DeadlineExceeded("generation: the request's deadline passed"));
    }
    handle();
    while (!finished && ticket.next(e, Clock::now())) handle();  // what queued up meanwhile
    flush();
  }
  exchange.end_stream();
}

void ModelServer::Impl::encode(HttpExchange& exchange, bool embeddings) {
  const HttpRequest& req = exchange.request();
  try {
    const json body = read_body(req, Api::Native);
    check_api_key(req, body);
    EncoderCall call = embeddings ? parse_embeddings(body, options) : parse_classify(body, options);
    const std::vector<ModelKind> kinds = embeddings ? std::vector{ModelKind::Embedding, ModelKind::Classification}
                                                    : std::vector{ModelKind::Classification};
    const ServedModel& model = find_model(call.model, kinds, req.path);
    const std::vector<EncoderInput> inputs = encoder_inputs(call, *model.encoder, embeddings, body);
    exchange.set_log_note(std::to_string(inputs.size()) + " texts, model " + model.id());
    for (std::size_t i = 0; i < inputs.size(); ++i)  // cut as the model cuts them (max_seq_length), visibly
      if (inputs[i].truncated)
        std::fprintf(stderr, "%s heptapod serve: warning: %s input %zu is longer than model %s's %d tokens; %s the %zu "
                             "that fit\n",
                     utc_now().c_str(), req.path.c_str(), i, model.id().c_str(), model.config.encoder_input_limit(),
                     embeddings ? "embedded" : "classified", inputs[i].tokens.size());
    const std::vector<EncoderResult> out =
        run_queued(*model.encodings, inputs, call.task, call.timeout, "queue full", "Encoding");
    exchange.reply(json_response(200, embeddings ? embeddings_reply(call, inputs, out, model.id())
                                                 : classify_reply(out, model.id())));
  } catch (const HttpError& e) {
    exchange.reply(error_of(e, embeddings));
  } catch (const Error& e) {
    exchange.reply(error_of(HttpError(500, std::string("Encoding failed: ") + e.what()), embeddings));
  }
}

json ModelServer::Impl::model_json(const ServedModel& m) const {
  json j = {{"id", m.id()}, {"object", "model"}, {"created", m.created}, {"owned_by", "heptapod"}, {"kind", kind_name(m.kind)}};
  const int positions = m.config.position_limit();
  j["context_length"] = m.config.learned_positions > 0 ? json(positions) : json(nullptr);
  if (!m.base_id.empty()) j["parent"] = m.base_id;  // an adapter: the model it goes over (as vLLM says it)
  if (m.kind == ModelKind::Translation && m.spec.named()) {
    j["source"] = m.spec.source;
    j["target"] = m.spec.target;
  }
  if (m.kind == ModelKind::Classification && ready) j["labels"] = m.encoder->labels().names();
  if (m.kind == ModelKind::Generation && ready) j["chat"] = m.generator->chat() != nullptr;  // /v1/chat/completions
  if (m.kind != ModelKind::Translation && m.kind != ModelKind::Generation) j["dimensions"] = m.config.embedding_width();
  return j;
}

ServerGauges ModelServer::Impl::gauges() const {
  ServerGauges g;
  g.ready = ready;
  g.connections = &http->counts();
  if (!ready) return g;
  for (const ServedModel& m : models) {
    QueueGauges q{m.id(), kind_name(m.kind)};
    if (m.generations) {
      const GenerationStats s = m.generations->stats();
      q.queued = s.queued_rows;
      q.refused = s.refused;
      q.expired = s.expired;
      q.generation = true;
      q.running = s.running_rows;
      q.cancelled = s.cancelled;
    } else {
      const QueueStats s = m.translations ? m.translations->stats() : m.encodings->stats();
      q.queued = s.queued_sentences;
      q.refused = s.refused;
      q.expired = s.expired;
    }
    g.queues.push_back(std::move(q));
  }
  return g;
}

void ModelServer::Impl::routes() {
  http->observe([this](const HttpRequestRecord& r) { metrics.record_request(r.path, r.status, r.seconds); },
                [](const HttpRequestRecord& r) {
                  std::fprintf(stderr, "%s %s %s %s %d %s %.1f ms\n", utc_now().c_str(), r.remote_address.c_str(),
                               r.method.c_str(), r.path.c_str(), r.status, r.note.empty() ? "0 sentences" : r.note.c_str(),
                               r.seconds * 1000);
                });
  http->route("POST", "/translate", [this](HttpExchange& x) { translate(x, Api::LibreTranslate); });
  http->route("POST", "/v1/translate", [this](HttpExchange& x) { translate(x, Api::Native); });
  http->route("POST", "/v1/completions", [this](HttpExchange& x) { generate(x, GenerationApi::Completions); });
  http->route("POST", "/v1/chat/completions", [this](HttpExchange& x) { generate(x, GenerationApi::Chat); });
  http->route("POST", "/v1/generate", [this](HttpExchange& x) { generate(x, GenerationApi::Native); });
  http->route("POST", "/v1/embeddings", [this](HttpExchange& x) { encode(x, true); });
  http->route("POST", "/v1/classify", [this](HttpExchange& x) { encode(x, false); });
  http->route("GET", "/v1/models", [this](HttpExchange& x) {
    json data = json::array();
    for (const ServedModel& m : models) data.push_back(model_json(m));
    x.reply(json_response(200, {{"object", "list"}, {"data", data}}));
  });
  http->route("GET", "/v1/models/*", [this](HttpExchange& x) {
    const std::string id = x.request().path.substr(std::string("/v1/models/").size());
    for (const ServedModel& m : models)
      if (m.id() == id) return x.reply(json_response(200, model_json(m)));
    x.reply(openai_error(HttpError(404, "The model '" + id + "' does not exist", 0, "model")));
  });
  http->route("GET", "/languages", [this](HttpExchange& x) {
    std::vector<ModelSpec> specs;
    std::vector<std::vector<std::string>> multilingual;
    for (const ServedModel* m : of_kind(ModelKind::Translation)) {
      const LanguageCodes& codes = m->translator->languages();
      if (codes.empty()) {
        specs.push_back(m->spec);
        continue;
      }
      multilingual.emplace_back();
      for (const auto& entry : codes.codes()) multilingual.back().push_back(codes.client_code(entry.first));
    }
    x.reply(json_response(200, languages_reply(specs, multilingual)));
  });
  http->route("GET", "/frontend/settings", [this](HttpExchange& x) {
    json settings = {{"charLimit", options.limits.max_characters}, {"frontendTimeout", 500},
                     {"apiKeys", !api_keys.empty()},             {"keyRequired", !api_keys.empty()},
                     {"suggestions", false},                      {"filesTranslation", false},
                     {"supportedFilesFormat", json::array()}};
    const std::vector<const ServedModel*> translators = of_kind(ModelKind::Translation);
    if (!translators.empty()) {
      const ModelSpec& first = translators.front()->spec;
      const std::string src = first.named() ? first.source : "src", tgt = first.named() ? first.target : "tgt";
      settings["language"] = {{"source", {{"code", src}, {"name", language_name(src)}}},
                              {"target", {{"code", tgt}, {"name", language_name(tgt)}}}};
    }
    x.reply(json_response(200, settings));
  });
  http->route("GET", "/health", [this](HttpExchange& x) {
    json models_json = json::array();
    for (const ServedModel& m : models) models_json.push_back(m.id());
    x.reply(json_response(ready ? 200 : 503, {{"status", ready ? "ok" : "loading"}, {"models", models_json}}));
  });
  http->route("GET", "/metrics", [this](HttpExchange& x) {
    x.reply({200, "text/plain; version=0.0.4; charset=utf-8", metrics.render(gauges()), {}});
  });
  http->route("GET", "/", [](HttpExchange& x) { x.reply({200, "text/html; charset=utf-8", std::string(web_page()), {}}); });
}

}  // namespace heptapod
