// serve_load: the load generator of bench/serve.sh, and its reference in one warm process.
//   serve_load wait  --url URL [--max-seconds S]
//   serve_load http  --url URL --sentences FILE --clients N --requests R [--max-seconds S] [--beam B]
//                    [--warmup W] [--source es --target en] [--slow-loris L] [--idle I]
//                    [--hostile-from A,B,...] [--hostile-ramp-seconds H] --json OUT
//                    [--api translate|completions|embeddings] [--name MODEL] [--max-tokens T]
//                    [--temperature X] [--seed S]
//   serve_load alone --model MODEL --sentences FILE --requests R [--max-seconds S] [--beam B]
//                    [--compute-type T] [--threads T] [--warmup W] --json OUT
//                    [--api translate|completions|embeddings] [--max-tokens T] [--temperature X] [--seed S]
// wait: polls GET /health until it says 200 (exit 1 after S seconds).
// http: N client threads, each with its own keep-alive connection, send one line of FILE per request, each
//   waiting for its reply before sending the next; the lines are the non-empty lines of FILE, taken
//   round-robin across all clients, R requests in all or S seconds, whichever ends first. Each client first
//   sends W warm-up requests (not timed). What a request is, by --api:
//   translate (the default): a LibreTranslate request (POST /translate); a reply other than 200 with a
//     translatedText is an error. --beam only labels the result (LibreTranslate requests carry no beam: the
//     server's --beam decides).
//   completions: POST /v1/completions with the line as the prompt, streamed (stream: true, with
//     stream_options.include_usage), max_tokens T (default 64), temperature X (default 1), top_p 1 and seed
//     S + the request's index (default S 1), the model --name (left out when empty: the server's one
//     generation model). The server-sent events are read as they come: the time to the first token (TTFT)
//     is the time from sending to the first event with non-empty text, the tokens made are the final usage
//     event's completion_tokens. A reply other than 200, an event that is not JSON, or a stream without
//     usage or "data: [DONE]" is an error.
//   embeddings: POST /v1/embeddings with the line as the input (one text per request), the model --name
//     (left out when empty); a reply other than 200 with one non-empty embedding is an error.
//   With --slow-loris or --idle, that many hostile connections (bench/hostile_clients.h: header lines that never
//   end, keep-alive connections left silent after one GET /health) from the --hostile-from addresses (default
//   127.0.0.2 ... 127.0.0.9; the clients stay on 127.0.0.1) start H seconds (default 5) before the clients and
//   stay through the timed load, a new one replacing each the server closes or refuses. The JSON then has
//   "hostile" (per kind: connections asked, opened, open_at_start, open_now, open_max, refused and closed by
//   what the server answered, refused_total, closed_total, close_seconds_max/median; the idle ones'
//   health_status) and "server_metrics" (the server's connection-refusal and request-timeout counters from
//   GET /metrics after the hostile connections are closed; {} where it has none, null with no reply).
// alone: the same requests, one at a time, in this process through the library, with what the server gives
//   such a request: translate, heptapod::Translator with TranslateOptions{} and search.beam = B; completions,
//   heptapod::Generator sampling with the same prompt, max_tokens, temperature, top_p 1, no top-k and seed
//   as the HTTP request of that index, GenerateOptions::stream set, TTFT being the time from generate() to
//   the first call of stream with a non-empty piece; embeddings, heptapod::Encoder::embed of the one text
//   with EmbedOptions{} (mean pooling, not normalised). What one request costs without the server.
// Both print one summary line and write JSON to OUT: requests (the successful timed ones), errors, seconds,
// sentences_per_second (requests per second: sentences, prompts or texts), p50_ms, p99_ms, mean_ms, max_ms
// (each request's whole time); with completions also tokens, tokens_per_second, tokens_per_request and
// ttft_p50_ms, ttft_p99_ms, ttft_mean_ms, ttft_max_ms; with embeddings also texts_per_second.
#include <sys/resource.h>

#include <CLI/CLI.hpp>
#include <httplib.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <iostream>
#include <latch>
#include <map>
#include <numeric>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <thread>
#include <tuple>
#include <utility>
#include <vector>

#include "heptapod/core/error.h"
#include "heptapod/data/text_file.h"
#include "heptapod/decode/encoder.h"
#include "heptapod/decode/generator.h"
#include "heptapod/decode/translator.h"
#include "heptapod/io/atomic_file.h"
#include "heptapod/kernels/threads.h"
#include "heptapod/model/inference_weights.h"
#include "hostile_clients.h"

namespace heptapod::bench {
namespace {

using Clock = std::chrono::steady_clock;
using nlohmann::json;

constexpr int kRequestTimeoutSeconds = 120;  // past the server's own 30 s limit (504), so a hung reply ends too

// What a request is: a LibreTranslate translation, a streamed completion, or one text's embedding.
enum class Api { Translate, Completions, Embeddings };

const std::map<std::string, Api> kApiNames = {
    {"translate", Api::Translate}, {"completions", Api::Completions}, {"embeddings", Api::Embeddings}};

std::string api_name(Api api) {
  for (const auto& [name, value] : kApiNames)
    if (value == api) return name;
  return "?";
}

// What every timed mode shares.
struct RunOptions {
  std::string sentences_path, json_path;
  int requests = 100, beam = 4, warmup = 2;
  double max_seconds = 60;
  Api api = Api::Translate;
  // completions: each request's sampling (request i is seeded seed + i)
  int max_tokens = 64;
  float temperature = 1.0f;
  std::uint64_t seed = 1;
};

struct HttpOptions {
  std::string url, source = "es", target = "en";
  std::string model;  // completions and embeddings: the served model's name; empty: left out of the request
  int clients = 1;
};

// http's hostile connections; none unless slow_loris or idle is set.
struct HostileFlags {
  int slow_loris = 0, idle = 0;
  std::vector<std::string> from = HostileOptions{}.source_addresses;
  double ramp_seconds = 5;
};

struct AloneOptions {
  std::string model, compute_type;  // compute_type empty: the type the file stores
  // completions and embeddings: requests per library call. 1: one at a time (the lone request's reference);
  // more: the library's own batching, the offline ceiling a server's batching can reach
  int batch = 1;
  int threads = 0;
};

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }
double ms_since(Clock::time_point t0) { return seconds_since(t0) * 1000; }

double peak_rss_mb() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_maxrss / 1024.0;
}

// The non-empty lines of a file (an empty line costs the server nothing to translate).
std::vector<std::string> read_sentences(const std::string& path) {
  std::vector<std::string> lines = read_lines(path);
  std::erase_if(lines, [](const std::string& s) { return s.empty(); });
  require(!lines.empty(), path + ": no non-empty lines to send");
  return lines;
}

// The nearest-rank percentile p (0..1) of sorted values.
double percentile(const std::vector<double>& sorted, double p) {
  if (sorted.empty()) return 0;
  const auto rank = static_cast<std::size_t>(std::ceil(p * static_cast<double>(sorted.size())));
  return sorted[std::clamp<std::size_t>(rank, 1, sorted.size()) - 1];
}

// One timed request that succeeded: its whole time; for a completion also the time to its first token and
// the tokens it made.
struct Sample {
  double latency_ms = 0;
  double ttft_ms = 0;
  long long tokens = 0;
};

// p50, p99, mean and max of `values_ms`, their names prefixed.
json latency_fields(std::vector<double> values_ms, const std::string& prefix) {
  std::sort(values_ms.begin(), values_ms.end());
  const double n = static_cast<double>(values_ms.size());
  const double total = std::accumulate(values_ms.begin(), values_ms.end(), 0.0);
  return {{prefix + "p50_ms", percentile(values_ms, 0.50)},
          {prefix + "p99_ms", percentile(values_ms, 0.99)},
          {prefix + "mean_ms", n > 0 ? total / n : 0.0},
          {prefix + "max_ms", values_ms.empty() ? 0.0 : values_ms.back()}};
}

// Throughput and latency of `samples` (one request each) completed in `seconds`.
json summarize(const std::vector<Sample>& samples, double seconds, Api api) {
  const double n = static_cast<double>(samples.size());
  std::vector<double> latencies_ms, ttfts_ms;
  long long tokens = 0;
  for (const Sample& s : samples) {
    latencies_ms.push_back(s.latency_ms);
    ttfts_ms.push_back(s.ttft_ms);
    tokens += s.tokens;
  }
  json result = {{"requests", samples.size()},
                 {"seconds", seconds},
                 {"sentences_per_second", seconds > 0 ? n / seconds : 0.0}};
  result.update(latency_fields(std::move(latencies_ms), ""));
  if (api == Api::Completions) {
    result.update({{"tokens", tokens},
                   {"tokens_per_second", seconds > 0 ? static_cast<double>(tokens) / seconds : 0.0},
                   {"tokens_per_request", n > 0 ? static_cast<double>(tokens) / n : 0.0}});
    result.update(latency_fields(std::move(ttfts_ms), "ttft_"));
  }
  if (api == Api::Embeddings) result["texts_per_second"] = result["sentences_per_second"];
  return result;
}

// Prints the summary line and writes the JSON.
void report(const std::string& what, const json& result, Api api, const std::string& path) {
  const int requests = result["requests"].get<int>(), errors = result.value("errors", 0);
  const double seconds = result["seconds"].get<double>(), p50 = result["p50_ms"].get<double>(),
               p99 = result["p99_ms"].get<double>(), per_second = result["sentences_per_second"].get<double>();
  if (api == Api::Completions)
    std::printf("serve_load %s: %d completions in %.1f s: %.1f tokens/s (%.1f per request), TTFT p50 %.1f ms, "
                "p99 %.1f ms, latency p50 %.1f ms, %d errors\n", what.c_str(), requests, seconds,
                result["tokens_per_second"].get<double>(), result["tokens_per_request"].get<double>(),
                result["ttft_p50_ms"].get<double>(), result["ttft_p99_ms"].get<double>(), p50, errors);
  else
    std::printf("serve_load %s: %d requests in %.1f s: %.2f %s/s, p50 %.1f ms, p99 %.1f ms, %d errors\n",
                what.c_str(), requests, seconds, per_second, api == Api::Embeddings ? "texts" : "sentences", p50,
                p99, errors);
  std::fflush(stdout);
  const std::string text = result.dump(2) + "\n";
  write_file_atomic(path, [&](std::ostream& out) { out << text; });
}

// ---- http ----

// A keep-alive connection. TCP_NODELAY as curl and the server set it: httplib writes a request's header and
// body apart, and Nagle's algorithm would hold the body until the server's delayed ACK (about 40 ms).
httplib::Client connect(const std::string& url, int read_timeout_seconds) {
  httplib::Client client(url);
  client.set_keep_alive(true);
  client.set_tcp_nodelay(true);
  client.set_connection_timeout(10);
  client.set_read_timeout(read_timeout_seconds);
  client.set_write_timeout(10);
  return client;
}

// One client's record: the timed requests that succeeded, and the failures.
struct ClientTally {
  std::vector<Sample> samples;
  int errors = 0;
  std::string first_error;

  void fail(std::string why) {
    if (errors++ == 0) first_error = std::move(why);
  }
};

std::string libretranslate_body(const std::string& sentence, const HttpOptions& o) {
  return json{{"q", sentence}, {"source", o.source}, {"target", o.target}}.dump();
}

// Sends one LibreTranslate request; nullopt on a 200 reply with a translatedText, else what went wrong.
std::optional<std::string> translate_once(httplib::Client& client, const std::string& body) {
  const httplib::Result res = client.Post("/translate", body, "application/json");
  if (!res) return "no reply: " + httplib::to_string(res.error());
  if (res->status != 200) return "HTTP " + std::to_string(res->status) + ": " + res->body;
  const json reply = json::parse(res->body, nullptr, false);
  if (reply.is_discarded() || !reply.contains("translatedText") || !reply["translatedText"].is_string())
    return "HTTP 200 without a translatedText: " + res->body;
  return std::nullopt;
}

// The streamed completion of one prompt, seeded `seed`.
std::string completion_body(const std::string& prompt, std::uint64_t seed, const HttpOptions& http,
                            const RunOptions& run) {
  json body = {{"prompt", prompt}, {"max_tokens", run.max_tokens}, {"temperature", run.temperature},
               {"top_p", 1}, {"seed", seed}, {"stream", true}, {"stream_options", {{"include_usage", true}}}};
  if (!http.model.empty()) body["model"] = http.model;
  return body.dump();
}

// Reads a completion's server-sent events as their bytes arrive: "data: <json>" lines, an empty line ending
// each event. Notes when the first non-empty text comes, the usage, and the final "data: [DONE]".
class CompletionStream {
 public:
  explicit CompletionStream(Clock::time_point sent) : sent_(sent) {}

  // Takes the next bytes; false (to stop reading) on a malformed event.
  bool take(const char* data, std::size_t size) {
    if (status_ != 200) {  // an error reply: kept to be shown
      raw_.append(data, size);
      return raw_.size() < 65536;
    }
    pending_.append(data, size);
    for (std::size_t end; (end = pending_.find('\n')) != std::string::npos;) {
      std::string line = pending_.substr(0, end);
      pending_.erase(0, end + 1);
      if (!line.empty() && line.back() == '\r') line.pop_back();
      if (!line_(line)) return false;
    }
    return true;
  }

  void set_status(int status) { status_ = status; }
  // nullopt when the stream was whole (200, usage, [DONE]), else what went wrong.
  std::optional<std::string> problem() const {
    if (status_ != 200) return "HTTP " + std::to_string(status_) + ": " + raw_.substr(0, 2000);
    if (!problem_.empty()) return problem_;
    if (!done_) return "the event stream ended without data: [DONE]";
    if (tokens_ < 0) return "the event stream had no usage";
    if (tokens_ > 0 && ttft_ms_ < 0) return "tokens made, but no event with text";
    return std::nullopt;
  }
  double ttft_ms() const { return ttft_ms_; }
  long long tokens() const { return tokens_; }

 private:
  bool line_(const std::string& line) {
    if (!line.starts_with("data:")) return true;  // the blank line between events, or a comment
    std::string_view payload(line);
    payload.remove_prefix(5);
    if (payload.starts_with(' ')) payload.remove_prefix(1);
    if (payload == "[DONE]") {
      done_ = true;
      return true;
    }
    const json event = json::parse(payload, nullptr, false);
    if (event.is_discarded() || !event.is_object()) return fail_("an event that is not a JSON object: " + line);
    if (event.contains("error")) return fail_("an error event: " + line);
    if (const auto choices = event.find("choices"); choices != event.end() && choices->is_array())
      for (const json& choice : *choices)
        if (ttft_ms_ < 0 && choice.is_object() && choice.contains("text") && choice["text"].is_string() &&
            !choice["text"].get_ref<const std::string&>().empty())
          ttft_ms_ = ms_since(sent_);
    if (const auto usage = event.find("usage"); usage != event.end() && usage->is_object()) {
      if (!usage->contains("completion_tokens") || !(*usage)["completion_tokens"].is_number_integer())
        return fail_("a usage without completion_tokens: " + line);
      tokens_ = (*usage)["completion_tokens"].get<long long>();
    }
    return true;
  }
  bool fail_(std::string why) {
    problem_ = std::move(why);
    return false;
  }

  Clock::time_point sent_;
  int status_ = 0;
  std::string raw_, pending_, problem_;
  double ttft_ms_ = -1;
  long long tokens_ = -1;
  bool done_ = false;
};

// Sends one streamed completion and reads its events as they arrive (httplib's content receiver), filling
// `sample`; nullopt on success, else what went wrong.
std::optional<std::string> complete_once(httplib::Client& client, const std::string& body, Sample& sample) {
  httplib::Request req;
  req.method = "POST";
  req.path = "/v1/completions";
  req.body = body;
  req.set_header("Content-Type", "application/json");
  req.set_header("Accept", "text/event-stream");
  const Clock::time_point sent = Clock::now();
  CompletionStream stream(sent);
  req.response_handler = [&](const httplib::Response& res) {
    stream.set_status(res.status);
    return true;
  };
  req.content_receiver = [&](const char* data, std::size_t size, std::uint64_t, std::uint64_t) {
    return stream.take(data, size);
  };
  httplib::Response res;
  httplib::Error error = httplib::Error::Success;
  const bool sent_ok = client.send(req, res, error);
  sample.latency_ms = ms_since(sent);
  if (auto problem = stream.problem(); problem && (sent_ok || error == httplib::Error::Canceled)) return problem;
  if (!sent_ok) return "no reply: " + httplib::to_string(error);
  sample.ttft_ms = stream.ttft_ms();
  sample.tokens = stream.tokens();
  if (sample.ttft_ms < 0) sample.ttft_ms = sample.latency_ms;  // no token at all: the whole reply
  return std::nullopt;
}

std::string embedding_body(const std::string& text, const HttpOptions& http) {
  json body = {{"input", text}};
  if (!http.model.empty()) body["model"] = http.model;
  return body.dump();
}

// Sends one embeddings request; nullopt on a 200 reply with one non-empty embedding, else what went wrong.
std::optional<std::string> embed_once(httplib::Client& client, const std::string& body) {
  const httplib::Result res = client.Post("/v1/embeddings", body, "application/json");
  if (!res) return "no reply: " + httplib::to_string(res.error());
  if (res->status != 200) return "HTTP " + std::to_string(res->status) + ": " + res->body;
  const json reply = json::parse(res->body, nullptr, false);
  const bool whole = !reply.is_discarded() && reply.contains("data") && reply["data"].is_array() &&
                     reply["data"].size() == 1 && reply["data"][0].contains("embedding") &&
                     reply["data"][0]["embedding"].is_array() && !reply["data"][0]["embedding"].empty();
  if (!whole) return "HTTP 200 without one embedding: " + res->body.substr(0, 2000);
  return std::nullopt;
}

// What the clients share: the sentences, the next one to send, and the start of the timed phase.
struct Load {
  const std::vector<std::string>& sentences;
  const HttpOptions& http;
  const RunOptions& run;
  std::atomic<int> next{0};
  std::latch start;
};

// Sends request `index` (line index mod the lines; a completion seeded seed + index) and times it: nullopt and
// the sample on success, else what went wrong.
std::optional<std::string> send_request(httplib::Client& client, const Load& load, int index, Sample& sample) {
  const std::string& line = load.sentences[static_cast<std::size_t>(index) % load.sentences.size()];
  switch (load.run.api) {
    case Api::Completions:
      return complete_once(client, completion_body(line, load.run.seed + static_cast<std::uint64_t>(index), load.http,
                                                   load.run), sample);
    case Api::Embeddings: {
      const std::string body = embedding_body(line, load.http);
      const Clock::time_point t0 = Clock::now();
      auto error = embed_once(client, body);
      sample.latency_ms = ms_since(t0);
      return error;
    }
    case Api::Translate:
      break;
  }
  const std::string body = libretranslate_body(line, load.http);
  const Clock::time_point t0 = Clock::now();
  auto error = translate_once(client, body);
  sample.latency_ms = ms_since(t0);
  return error;
}

// One client thread: warm-up requests (untimed), then sentences round-robin until R are taken or S seconds pass.
// A warm-up request's index is past the timed ones' (R + its line's index), so its seed is none of theirs.
void run_client(Load& load, int index, ClientTally& tally) {
  httplib::Client client = connect(load.http.url, kRequestTimeoutSeconds);
  const std::size_t n = load.sentences.size();
  for (int k = 0; k < load.run.warmup; ++k) {
    const std::size_t line = (static_cast<std::size_t>(index) + static_cast<std::size_t>(k) * load.http.clients) % n;
    Sample ignored;
    if (auto error = send_request(client, load, load.run.requests + static_cast<int>(line), ignored))
      tally.fail("warm-up: " + *error);
  }
  load.start.arrive_and_wait();
  const auto deadline = Clock::now() + std::chrono::duration<double>(load.run.max_seconds);
  for (int i = load.next++; i < load.run.requests && Clock::now() < deadline; i = load.next++) {
    Sample sample;
    if (auto error = send_request(client, load, i, sample)) tally.fail(*error);
    else tally.samples.push_back(sample);
  }
}

json run_http(const HttpOptions& http, const RunOptions& run) {
  const std::vector<std::string> sentences = read_sentences(run.sentences_path);
  Load load{sentences, http, run, {}, std::latch(http.clients + 1)};
  std::vector<ClientTally> tallies(http.clients);
  std::vector<std::thread> threads;
  for (int c = 0; c < http.clients; ++c) threads.emplace_back(run_client, std::ref(load), c, std::ref(tallies[c]));
  load.start.arrive_and_wait();
  const Clock::time_point t0 = Clock::now();
  for (std::thread& t : threads) t.join();
  const double seconds = seconds_since(t0);

  ClientTally all;
  for (ClientTally& t : tallies) {
    all.samples.insert(all.samples.end(), t.samples.begin(), t.samples.end());
    if (t.errors > 0 && all.errors == 0) all.first_error = t.first_error;
    all.errors += t.errors;
  }
  if (all.errors > 0) std::fprintf(stderr, "serve_load http: first error: %s\n", all.first_error.c_str());
  json result = summarize(all.samples, seconds, run.api);
  result.update({{"mode", "http"}, {"url", http.url}, {"clients", http.clients}, {"beam", run.beam},
                 {"requests_asked", run.requests}, {"warmup_per_client", run.warmup}, {"errors", all.errors},
                 {"first_error", all.first_error}});
  if (run.api != Api::Translate) {
    result.erase("beam");
    result.update({{"api", api_name(run.api)}, {"model", http.model}});
    if (run.api == Api::Completions)
      result.update({{"max_tokens", run.max_tokens}, {"temperature", run.temperature}, {"seed", run.seed}});
  }
  return result;
}

// Polls GET /health every 100 ms until it says 200; false after max_seconds.
bool wait_healthy(const std::string& url, double max_seconds) {
  const Clock::time_point t0 = Clock::now();
  const int attempts = static_cast<int>(max_seconds * 10) + 1;
  for (int i = 0; i < attempts && seconds_since(t0) < max_seconds; ++i) {
    httplib::Client client = connect(url, 5);
    client.set_connection_timeout(1);
    if (const httplib::Result res = client.Get("/health"); res && res->status == 200) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return false;
}

// ---- http beside hostile connections ----

// The host and port of an http://HOST[:PORT][/...] URL.
std::pair<std::string, int> host_and_port(std::string url) {
  if (url.starts_with("http://")) url.erase(0, 7);
  url = url.substr(0, url.find('/'));
  const std::size_t colon = url.rfind(':');
  if (colon == std::string::npos) return {url, 80};
  return {url.substr(0, colon), std::stoi(url.substr(colon + 1))};
}

json kind_json(int asked, long long open_at_start, const HostileKindStats& s) {
  json j = {{"connections", asked}, {"opened", s.opened}, {"open_at_start", open_at_start},
            {"open_now", s.open_now}, {"open_max", s.open_max}, {"refused", s.refused},
            {"refused_total", s.refused_total()}, {"closed", s.closed}, {"closed_total", s.closed_total()},
            {"close_seconds_max", s.close_seconds_max}, {"close_seconds_median", s.close_seconds_median}};
  if (!s.health_status.empty()) {
    json health = json::object();
    for (const auto& [status, count] : s.health_status) health[std::to_string(status)] = count;
    j["health_status"] = health;
  }
  return j;
}

void log_hostile(const char* when, const HostileStats& s) {
  std::fprintf(stderr, "serve_load http: hostile %s: slow-loris %lld open, %lld refused, %lld closed; "
               "idle %lld open, %lld refused, %lld closed\n", when, s.slow_loris.open_now, s.slow_loris.refused_total(),
               s.slow_loris.closed_total(), s.idle.open_now, s.idle.refused_total(), s.idle.closed_total());
}

// The server's counters of refused connections and request timeouts, "name{labels}" -> value; null when
// GET /metrics gets no 200.
json scrape_metrics(const std::string& url) {
  httplib::Client client = connect(url, 10);
  client.set_connection_timeout(5);
  const httplib::Result res = client.Get("/metrics");
  if (!res || res->status != 200) return nullptr;
  json counters = json::object();
  std::istringstream lines(res->body);
  for (std::string line; std::getline(lines, line);) {
    const std::size_t space = line.rfind(' ');
    if (space != std::string::npos && (line.starts_with("heptapod_connections_refused_total") ||
                                       line.starts_with("heptapod_request_timeouts_total")))
      counters[line.substr(0, space)] = std::strtod(line.c_str() + space + 1, nullptr);
  }
  return counters;
}

// run_http with the hostile connections open throughout: started ramp_seconds before it, closed after.
json run_http_beside_hostile(const HttpOptions& http, const RunOptions& run, const HostileFlags& flags) {
  HostileOptions o;
  std::tie(o.host, o.port) = host_and_port(http.url);
  o.slow_loris = flags.slow_loris;
  o.idle = flags.idle;
  o.source_addresses = flags.from;
  o.reconnect = true;
  HostileClients hostile(o);
  std::this_thread::sleep_for(std::chrono::duration<double>(flags.ramp_seconds));
  const HostileStats at_start = hostile.stats();
  log_hostile("at the start", at_start);
  json result = run_http(http, run);
  const HostileStats at_end = hostile.stats();
  hostile.stop();
  log_hostile("at the end", at_end);
  result["hostile"] = {
      {"slow_loris", kind_json(o.slow_loris, at_start.slow_loris.open_now, at_end.slow_loris)},
      {"idle", kind_json(o.idle, at_start.idle.open_now, at_end.idle)},
      {"source_addresses", o.source_addresses},
      {"ramp_seconds", flags.ramp_seconds},
      {"interval_seconds", std::chrono::duration<double>(o.interval).count()},
      {"reconnect_pause_seconds", std::chrono::duration<double>(o.reconnect_pause).count()},
      {"first_connect_error", at_end.first_connect_error}};
  result["server_metrics"] = scrape_metrics(http.url);
  return result;
}

// ---- alone ----

ModelLoadOptions load_options(const AloneOptions& alone) {
  ModelLoadOptions options;
  if (!alone.compute_type.empty()) options.compute_type = parse_compute_type(alone.compute_type, "--compute-type");
  return options;
}

// The warm-up, then the timed requests `batch` at a time: request(i, n, samples) does requests i .. i+n-1 in
// one call and fills their samples (their latency: the call's). A warm-up request's index is past the timed
// ones' (R + k), as http's.
template <typename Request>
json time_alone(const RunOptions& run, int batch, Request&& request) {
  for (int k = 0; k < run.warmup; ++k) {
    std::vector<Sample> ignored(1);
    request(run.requests + k, 1, ignored.data());
  }
  std::vector<Sample> samples;
  const Clock::time_point t0 = Clock::now();
  for (int i = 0; i < run.requests && seconds_since(t0) < run.max_seconds; i += batch) {
    const int n = std::min(batch, run.requests - i);
    std::vector<Sample> made(static_cast<std::size_t>(n));
    const Clock::time_point start = Clock::now();
    request(i, n, made.data());
    for (Sample& sample : made) sample.latency_ms = ms_since(start);
    samples.insert(samples.end(), made.begin(), made.end());
  }
  return summarize(samples, seconds_since(t0), run.api);
}

json run_alone(const AloneOptions& alone, const RunOptions& run) {
  const std::vector<std::string> sentences = read_sentences(run.sentences_path);
  const auto line = [&](int i) -> const std::string& {
    return sentences[static_cast<std::size_t>(i) % sentences.size()];
  };
  set_num_threads(alone.threads);
  const Clock::time_point load_start = Clock::now();
  json result;
  ComputeType type{};
  double load_seconds = 0;
  if (run.api == Api::Completions) {
    Generator generator(alone.model, load_options(alone));
    load_seconds = seconds_since(load_start);
    type = generator.precision().type;
    result = time_alone(run, alone.batch, [&](int i, int n, Sample* samples) {
      GenerateOptions options;  // what the server gives a /v1/completions request of these settings
      options.max_tokens = run.max_tokens;
      options.sampling = {run.temperature, 0, 1.0f, run.seed + static_cast<std::uint64_t>(i)};
      options.batch_prompts = n;
      const Clock::time_point start = Clock::now();
      std::vector<double> ttft_ms(static_cast<std::size_t>(n), -1.0);
      options.stream = [&](std::size_t p, std::string_view piece, std::span<const TokenLogProb>) {
        if (ttft_ms[p] < 0 && !piece.empty()) ttft_ms[p] = ms_since(start);
      };
      // Requests of one call share the first one's seed (GenerateOptions has one): the same work, other draws.
      std::vector<std::string> prompts;
      for (int k = 0; k < n; ++k) prompts.push_back(line(i + k));
      const std::vector<Generation> out = generator.generate(prompts, options);
      for (int k = 0; k < n; ++k) {
        samples[k].tokens = out.at(static_cast<std::size_t>(k)).outputs.at(0).new_tokens;
        samples[k].ttft_ms = ttft_ms[static_cast<std::size_t>(k)] >= 0 ? ttft_ms[static_cast<std::size_t>(k)] : ms_since(start);
      }
    });
    result.update({{"max_tokens", run.max_tokens}, {"temperature", run.temperature}, {"seed", run.seed}});
  } else if (run.api == Api::Embeddings) {
    Encoder encoder(alone.model, load_options(alone));
    load_seconds = seconds_since(load_start);
    type = encoder.precision().type;
    const EmbedOptions options;  // what the server gives /v1/embeddings: mean pooling, not normalised
    result = time_alone(run, alone.batch, [&](int i, int n, Sample*) {
      std::vector<std::string> texts;
      for (int k = 0; k < n; ++k) texts.push_back(line(i + k));
      encoder.embed(texts, options);
    });
  } else {
    Translator translator(alone.model, load_options(alone));
    load_seconds = seconds_since(load_start);
    type = translator.precision().type;
    TranslateOptions options;  // what `heptapod serve --beam B` gives a LibreTranslate request
    options.search.beam = run.beam;
    result = time_alone(run, 1, [&](int i, int, Sample*) { translator.translate({line(i)}, options); });
  }
  result.update({{"mode", "alone"}, {"model", alone.model}, {"beam", run.beam}, {"requests_asked", run.requests},
                 {"batch", alone.batch},
                 {"warmup", run.warmup}, {"errors", 0}, {"load_seconds", load_seconds},
                 {"compute_type", compute_type_name(type)}, {"peak_rss_mb", peak_rss_mb()}});
  if (run.api != Api::Translate) {
    result.erase("beam");
    result["api"] = api_name(run.api);
  }
  return result;
}

// ---- command line ----

void add_run_options(CLI::App* sub, RunOptions& o) {
  sub->add_option("--sentences", o.sentences_path, "Sentences, one per line (empty lines are skipped)")
      ->required()->check(CLI::ExistingFile);
  sub->add_option("--requests", o.requests, "Timed requests in all")->check(CLI::PositiveNumber)->capture_default_str();
  sub->add_option("--max-seconds", o.max_seconds, "No request starts after this many seconds of the timed phase")
      ->check(CLI::PositiveNumber)->capture_default_str();
  sub->add_option("--beam", o.beam, "Beam size")->check(CLI::Range(1, 256))->capture_default_str();
  sub->add_option("--json", o.json_path, "Where the result goes (JSON)")->required();
  sub->add_option("--api", o.api, "What a request is: translate, completions or embeddings")
      ->transform(CLI::CheckedTransformer(kApiNames, CLI::ignore_case))->default_str("translate");
  sub->add_option("--max-tokens", o.max_tokens, "completions: new tokens per request at most")
      ->check(CLI::PositiveNumber)->capture_default_str();
  sub->add_option("--temperature", o.temperature, "completions: the sampling temperature")
      ->check(CLI::Range(0.0, 2.0))->capture_default_str();
  sub->add_option("--seed", o.seed, "completions: request i samples with seed S + i")->capture_default_str();
}

}  // namespace
}  // namespace heptapod::bench

int main(int argc, char** argv) {
  using namespace heptapod::bench;
  CLI::App app{"Load generator for heptapod serve (bench/serve.sh)"};
  app.require_subcommand(1);
  RunOptions run;
  HttpOptions http;
  AloneOptions alone;
  HostileFlags hostile;
  double wait_seconds = 60;

  auto* wait = app.add_subcommand("wait", "Wait until GET /health says 200");
  wait->add_option("--url", http.url, "Server, e.g. http://127.0.0.1:8080")->required();
  wait->add_option("--max-seconds", wait_seconds, "Give up after this long")->check(CLI::PositiveNumber)->capture_default_str();

  auto* load =
      app.add_subcommand("http", "Time LibreTranslate, completion or embedding requests from concurrent clients");
  load->add_option("--url", http.url, "Server, e.g. http://127.0.0.1:8080")->required();
  load->add_option("--clients", http.clients, "Client threads, one keep-alive connection each")
      ->check(CLI::Range(1, 4096))->capture_default_str();
  load->add_option("--warmup", run.warmup, "Untimed requests per client first")->check(CLI::NonNegativeNumber)->capture_default_str();
  load->add_option("--source", http.source, "LibreTranslate source")->capture_default_str();
  load->add_option("--target", http.target, "LibreTranslate target")->capture_default_str();
  load->add_option("--name", http.model, "completions, embeddings: the served model's name (default: left out)");
  load->add_option("--slow-loris", hostile.slow_loris, "Hostile connections that never end their request header")
      ->check(CLI::NonNegativeNumber)->capture_default_str();
  load->add_option("--idle", hostile.idle, "Hostile keep-alive connections left silent after one GET /health")
      ->check(CLI::NonNegativeNumber)->capture_default_str();
  load->add_option("--hostile-from", hostile.from, "Source addresses of the hostile connections, round-robin")
      ->delimiter(',')->capture_default_str();
  load->add_option("--hostile-ramp-seconds", hostile.ramp_seconds, "Seconds the hostile connections run before the clients start")
      ->check(CLI::NonNegativeNumber)->capture_default_str();
  add_run_options(load, run);

  auto* solo = app.add_subcommand(
      "alone", "Time the same requests one at a time through the Translator, Generator or Encoder API");
  solo->add_option("--model", alone.model, "Model file")->required()->check(CLI::ExistingFile);
  solo->add_option("--compute-type", alone.compute_type, "float32, int8 or bfloat16 (default: the file's)")
      ->check(CLI::IsMember({"float32", "int8", "bfloat16"}));
  solo->add_option("--threads", alone.threads, "Compute threads (0: all cores, as the server)")->capture_default_str();
  solo->add_option("--batch", alone.batch,
                   "completions, embeddings: requests per library call (more than 1: the library's own batching)")
      ->check(CLI::Range(1, 4096))->capture_default_str();
  solo->add_option("--warmup", run.warmup, "Untimed sentences first")->check(CLI::NonNegativeNumber)->capture_default_str();
  add_run_options(solo, run);
  CLI11_PARSE(app, argc, argv);

  try {
    if (wait->parsed()) {
      if (wait_healthy(http.url, wait_seconds)) return 0;
      std::fprintf(stderr, "serve_load wait: %s/health did not say 200 within %g s\n", http.url.c_str(), wait_seconds);
      return 1;
    }
    if (load->parsed()) {
      const bool beside_hostile = hostile.slow_loris > 0 || hostile.idle > 0;
      const nlohmann::json result = beside_hostile ? run_http_beside_hostile(http, run, hostile) : run_http(http, run);
      report("http, " + std::to_string(http.clients) + (http.clients == 1 ? " client" : " clients"), result, run.api,
             run.json_path);
      return result["errors"].get<int>() == 0 ? 0 : 2;
    }
    report("alone", run_alone(alone, run), run.api, run.json_path);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "serve_load: %s\n", e.what());
    return 1;
  }
  return 0;
}
