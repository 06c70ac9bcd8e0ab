// serve_load: the load generator of bench/serve.sh, and its reference in one warm process.
//   serve_load wait  --url URL [--max-seconds S]
//   serve_load http  --url URL --sentences FILE --clients N --requests R [--max-seconds S] [--beam B]
//                    [--warmup W] [--source es --target en] [--slow-loris L] [--idle I]
//                    [--hostile-from A,B,...] [--hostile-ramp-seconds H] --json OUT
//   serve_load alone --model MODEL --sentences FILE --requests R [--max-seconds S] [--beam B]
//                    [--compute-type T] [--threads T] [--warmup W] --json OUT
// wait: polls GET /health until it says 200 (exit 1 after S seconds).
// http: N client threads, each with its own keep-alive connection, send one sentence per LibreTranslate request
//   (POST /translate), each waiting for its reply before sending the next; the sentences are the non-empty lines
//   of FILE, taken round-robin across all clients, R requests in all or S seconds, whichever ends first. Each
//   client first sends W warm-up requests (not timed). A reply other than 200 with a translatedText is an error.
//   --beam only labels the result (LibreTranslate requests carry no beam: the server's --beam decides).
//   With --slow-loris or --idle, that many hostile connections (bench/hostile_clients.h: header lines that never
//   end, keep-alive connections left silent after one GET /health) from the --hostile-from addresses (default
//   127.0.0.2 ... 127.0.0.9; the clients stay on 127.0.0.1) start H seconds (default 5) before the clients and
//   stay through the timed load, a new one replacing each the server closes or refuses. The JSON then has
//   "hostile" (per kind: connections asked, opened, open_at_start, open_now, open_max, refused and closed by
//   what the server answered, refused_total, closed_total, close_seconds_max/median; the idle ones'
//   health_status) and "server_metrics" (the server's connection-refusal and request-timeout counters from
//   GET /metrics after the hostile connections are closed; {} where it has none, null with no reply).
// alone: the same sentences, one at a time, through heptapod::Translator with the server's defaults
//   (TranslateOptions{} with search.beam = B): what one request costs without the server.
// Both print one summary line and write JSON to OUT: requests, errors, seconds, sentences_per_second, p50_ms,
// p99_ms, mean_ms, max_ms.
#include <sys/resource.h>

#include <CLI/CLI.hpp>
#include <httplib.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <latch>
#include <numeric>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <tuple>
#include <utility>
#include <vector>

#include "heptapod/core/error.h"
#include "heptapod/data/text_file.h"
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

// What every timed mode shares.
struct RunOptions {
  std::string sentences_path, json_path;
  int requests = 100, beam = 4, warmup = 2;
  double max_seconds = 60;
};

struct HttpOptions {
  std::string url, source = "es", target = "en";
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
  int threads = 0;
};

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

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

// Throughput and latency of `latencies_ms` (one sentence each) completed in `seconds`.
json summarize(std::vector<double> latencies_ms, double seconds) {
  std::sort(latencies_ms.begin(), latencies_ms.end());
  const double n = static_cast<double>(latencies_ms.size());
  const double total = std::accumulate(latencies_ms.begin(), latencies_ms.end(), 0.0);
  return {{"requests", latencies_ms.size()},
          {"seconds", seconds},
          {"sentences_per_second", seconds > 0 ? n / seconds : 0.0},
          {"p50_ms", percentile(latencies_ms, 0.50)},
          {"p99_ms", percentile(latencies_ms, 0.99)},
          {"mean_ms", n > 0 ? total / n : 0.0},
          {"max_ms", latencies_ms.empty() ? 0.0 : latencies_ms.back()}};
}

// Prints the summary line and writes the JSON.
void report(const std::string& what, const json& result, const std::string& path) {
  std::printf("serve_load %s: %d requests in %.1f s: %.2f sentences/s, p50 %.1f ms, p99 %.1f ms, %d errors\n",
              what.c_str(), result["requests"].get<int>(), result["seconds"].get<double>(),
              result["sentences_per_second"].get<double>(), result["p50_ms"].get<double>(),
              result["p99_ms"].get<double>(), result.value("errors", 0));
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

// One client's record: latencies of the timed requests that succeeded, and the failures.
struct ClientTally {
  std::vector<double> latencies_ms;
  int errors = 0;
  std::string first_error;

  void fail(std::string why) {
    if (errors++ == 0) first_error = std::move(why);
  }
};

std::string libretranslate_body(const std::string& sentence, const HttpOptions& o) {
  return json{{"q", sentence}, {"source", o.source}, {"target", o.target}}.dump();
}

// Sends one request; nullopt on a 200 reply with a translatedText, else what went wrong.
std::optional<std::string> translate_once(httplib::Client& client, const std::string& body) {
  const httplib::Result res = client.Post("/translate", body, "application/json");
  if (!res) return "no reply: " + httplib::to_string(res.error());
  if (res->status != 200) return "HTTP " + std::to_string(res->status) + ": " + res->body;
  const json reply = json::parse(res->body, nullptr, false);
  if (reply.is_discarded() || !reply.contains("translatedText") || !reply["translatedText"].is_string())
    return "HTTP 200 without a translatedText: " + res->body;
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

// One client thread: warm-up requests (untimed), then sentences round-robin until R are taken or S seconds pass.
void run_client(Load& load, int index, ClientTally& tally) {
  httplib::Client client = connect(load.http.url, kRequestTimeoutSeconds);
  const std::size_t n = load.sentences.size();
  for (int k = 0; k < load.run.warmup; ++k) {
    const std::size_t line = (static_cast<std::size_t>(index) + static_cast<std::size_t>(k) * load.http.clients) % n;
    if (auto error = translate_once(client, libretranslate_body(load.sentences[line], load.http)))
      tally.fail("warm-up: " + *error);
  }
  load.start.arrive_and_wait();
  const auto deadline = Clock::now() + std::chrono::duration<double>(load.run.max_seconds);
  for (int i = load.next++; i < load.run.requests && Clock::now() < deadline; i = load.next++) {
    const std::string body = libretranslate_body(load.sentences[static_cast<std::size_t>(i) % n], load.http);
    const Clock::time_point t0 = Clock::now();
    if (auto error = translate_once(client, body)) tally.fail(*error);
    else tally.latencies_ms.push_back(seconds_since(t0) * 1000);
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
    all.latencies_ms.insert(all.latencies_ms.end(), t.latencies_ms.begin(), t.latencies_ms.end());
    if (t.errors > 0 && all.errors == 0) all.first_error = t.first_error;
    all.errors += t.errors;
  }
  if (all.errors > 0) std::fprintf(stderr, "serve_load http: first error: %s\n", all.first_error.c_str());
  json result = summarize(std::move(all.latencies_ms), seconds);
  result.update({{"mode", "http"}, {"url", http.url}, {"clients", http.clients}, {"beam", run.beam},
                 {"requests_asked", run.requests}, {"warmup_per_client", run.warmup}, {"errors", all.errors},
                 {"first_error", all.first_error}});
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

json run_alone(const AloneOptions& alone, const RunOptions& run) {
  const std::vector<std::string> sentences = read_sentences(run.sentences_path);
  set_num_threads(alone.threads);
  ModelLoadOptions translator_options;
  if (!alone.compute_type.empty()) translator_options.compute_type = parse_compute_type(alone.compute_type, "--compute-type");
  const Clock::time_point load_start = Clock::now();
  Translator translator(alone.model, translator_options);
  const double load_seconds = seconds_since(load_start);
  TranslateOptions options;  // what `heptapod serve --beam B` gives a LibreTranslate request
  options.search.beam = run.beam;
  const auto translate = [&](int i) { translator.translate({sentences[static_cast<std::size_t>(i) % sentences.size()]}, options); };

  for (int k = 0; k < run.warmup; ++k) translate(k);
  std::vector<double> latencies_ms;
  const Clock::time_point t0 = Clock::now();
  for (int i = 0; i < run.requests && seconds_since(t0) < run.max_seconds; ++i) {
    const Clock::time_point start = Clock::now();
    translate(i);
    latencies_ms.push_back(seconds_since(start) * 1000);
  }
  json result = summarize(std::move(latencies_ms), seconds_since(t0));
  result.update({{"mode", "alone"}, {"model", alone.model}, {"beam", run.beam}, {"requests_asked", run.requests},
                 {"warmup", run.warmup}, {"errors", 0}, {"load_seconds", load_seconds},
                 {"compute_type", compute_type_name(translator.precision().type)}, {"peak_rss_mb", peak_rss_mb()}});
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

  auto* load = app.add_subcommand("http", "Time LibreTranslate requests from concurrent clients");
  load->add_option("--url", http.url, "Server, e.g. http://127.0.0.1:8080")->required();
  load->add_option("--clients", http.clients, "Client threads, one keep-alive connection each")
      ->check(CLI::Range(1, 4096))->capture_default_str();
  load->add_option("--warmup", run.warmup, "Untimed requests per client first")->check(CLI::NonNegativeNumber)->capture_default_str();
  load->add_option("--source", http.source, "LibreTranslate source")->capture_default_str();
  load->add_option("--target", http.target, "LibreTranslate target")->capture_default_str();
  load->add_option("--slow-loris", hostile.slow_loris, "Hostile connections that never end their request header")
      ->check(CLI::NonNegativeNumber)->capture_default_str();
  load->add_option("--idle", hostile.idle, "Hostile keep-alive connections left silent after one GET /health")
      ->check(CLI::NonNegativeNumber)->capture_default_str();
  load->add_option("--hostile-from", hostile.from, "Source addresses of the hostile connections, round-robin")
      ->delimiter(',')->capture_default_str();
  load->add_option("--hostile-ramp-seconds", hostile.ramp_seconds, "Seconds the hostile connections run before the clients start")
      ->check(CLI::NonNegativeNumber)->capture_default_str();
  add_run_options(load, run);

  auto* solo = app.add_subcommand("alone", "Time the same sentences one at a time through the Translator API");
  solo->add_option("--model", alone.model, "Model file")->required()->check(CLI::ExistingFile);
  solo->add_option("--compute-type", alone.compute_type, "float32, int8 or bfloat16 (default: the file's)")
      ->check(CLI::IsMember({"float32", "int8", "bfloat16"}));
  solo->add_option("--threads", alone.threads, "Compute threads (0: all cores, as the server)")->capture_default_str();
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
      report("http, " + std::to_string(http.clients) + (http.clients == 1 ? " client" : " clients"), result, run.json_path);
      return result["errors"].get<int>() == 0 ? 0 : 2;
    }
    report("alone", run_alone(alone, run), run.json_path);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "serve_load: %s\n", e.what());
    return 1;
  }
  return 0;
}
