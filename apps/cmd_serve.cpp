// `heptapod serve -m MODEL`: the HTTP translation server (serve/model_server.h). SIGTERM or SIGINT
// stops accepting, answers what is in flight and exits 0.
#include <pthread.h>
#include <signal.h>

#include <cstdio>
#include <memory>
#include <thread>

#include "commands.h"
#include "heptapod/kernels/threads.h"
#include "heptapod/serve/model_server.h"
#include "precision_options.h"
#include "search_options.h"

namespace heptapod::app {

namespace {

struct ServeFlags {
  std::vector<std::string> models, adapters;
  ServerOptions server;
  double timeout_seconds = 30, batch_wait_ms = 2, header_timeout_seconds = 10, body_timeout_seconds = 30;
  int keep_alive_seconds = 5;
  bool no_batching = false;
  int threads = 0;
};

int run_serve(const ServeFlags& f) {
  // Every thread the server starts inherits this mask; the signals reach only the waiter below.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGTERM);
  sigaddset(&stop_signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);

  set_num_threads(f.threads);
  ServerOptions options = f.server;
  options.limits.timeout = std::chrono::milliseconds(static_cast<long long>(f.timeout_seconds * 1000));
  options.http.header_timeout = std::chrono::milliseconds(static_cast<long long>(f.header_timeout_seconds * 1000));
  options.http.body_timeout = std::chrono::milliseconds(static_cast<long long>(f.body_timeout_seconds * 1000));
  options.http.keep_alive = std::chrono::seconds(f.keep_alive_seconds);
  options.queue.max_wait = std::chrono::microseconds(static_cast<long long>(f.batch_wait_ms * 1000));
  if (f.no_batching) options.queue.max_batch_requests = 1;
  std::vector<ModelSpec> specs;
  for (const std::string& m : f.models) specs.push_back(parse_model_spec(m));
  for (const std::string& a : f.adapters) specs.push_back(parse_adapter_spec(a));
  ModelServer server(specs, options);
  const int port = server.bind();
  std::fprintf(stderr, "heptapod serve: listening on http://%s:%d (%s)\n", options.http.host.c_str(), port,
               f.no_batching ? "each request alone" : "batching across requests");
  std::thread waiter([&] {
    int signal = 0;
    sigwait(&stop_signals, &signal);
    std::fprintf(stderr, "heptapod serve: %s: finishing requests in flight\n", signal == SIGTERM ? "SIGTERM" : "SIGINT");
    server.stop();
  });
  waiter.detach();  // serve() may end without a signal (a model that fails to load)
  server.serve();
  std::fprintf(stderr, "heptapod serve: stopped\n");
  return 0;
}

}  // namespace

Runner add_serve_command(CLI::App& root) {
  auto* cmd = root.add_subcommand("serve", "Serve models of every kind over HTTP (OpenAI's and LibreTranslate's APIs, native APIs, a web page)");
  auto f = std::make_shared<ServeFlags>();
  ServerOptions& o = f->server;
  RequestLimits& l = o.limits;
  FrontEndOptions& h = o.http;
  cmd->add_option("-m,--model", f->models,
                  "Model file, or NAME=FILE (a translation model's name is its language pair SRC-TGT); repeatable: "
                  "each model is served by its kind (translation, generation, classification, embedding)")
      ->required();
  cmd->add_option("--adapter", f->adapters,
                  "NAME=FILE: a LoRA adapter file (heptapod train --lora) served as model NAME over its base, one of "
                  "the -m models (found by the checksum the adapter names), whose weights it shares; repeatable")
      ->type_name("NAME=FILE");
  cmd->add_option("--host", h.host, "Address to listen on")->capture_default_str();
  cmd->add_option("--port", h.port, "Port (0: any free one)")->check(CLI::Range(0, 65535))->capture_default_str();
  add_search_options(cmd, o.defaults);
  add_precision_options(cmd, o.load, false);  // one set of adapters does not fit every model served
  cmd->add_option("--threads", f->threads, "Compute threads (0: all cores)")->check(CLI::NonNegativeNumber);
  cmd->add_option("--max-batch-sentences", o.queue.max_batch_sentences,
                  "Sentences (texts) of one translation (encoder) batch")
      ->check(CLI::PositiveNumber)->capture_default_str();
  cmd->add_option("--max-queued-sentences", o.queue.max_queued_sentences,
                  "Sentences, texts or samples waiting per model beyond which requests get 503")
      ->check(CLI::PositiveNumber)->capture_default_str();
  cmd->add_option("--batch-wait-ms", f->batch_wait_ms, "Under load, how long a batch may wait for more requests")
      ->check(CLI::Range(0.0, 1000.0) & kFinite)->capture_default_str();
  cmd->add_flag("--no-batching", f->no_batching, "Run each request alone, one at a time (every kind of model)");
  cmd->add_option("--max-body-bytes", h.max_body_bytes, "Largest request body (413 beyond)")
      ->check(integer_check<std::size_t>() & CLI::PositiveNumber)->capture_default_str();
  cmd->add_option("--max-characters", l.max_characters, "Characters per request (400 beyond)")
      ->check(CLI::PositiveNumber)->capture_default_str();
  cmd->add_option("--max-sentences", l.max_sentences, "Lines per request (400 beyond)")
      ->check(CLI::PositiveNumber)->capture_default_str();
  cmd->add_option("--max-beam", l.max_beam, "Largest beam a request may ask for")
      ->check(CLI::Range(1, 256))->capture_default_str();
  cmd->add_option("--max-nbest", l.max_nbest, "Most hypotheses a request may ask for")
      ->check(CLI::Range(1, 256))->capture_default_str();
  cmd->add_option("--max-prompt-tokens", l.max_prompt_tokens,
                  "Tokens of a generation prompt (OpenAI's API: 400 beyond; /v1/generate keeps the last ones)")
      ->check(CLI::PositiveNumber)->capture_default_str();
  cmd->add_option("--max-new-tokens", l.max_new_tokens, "Largest max_tokens a generation request may ask for")
      ->check(CLI::PositiveNumber)->capture_default_str();
  cmd->add_option("--max-batch-rows", o.max_batch_rows,
                  "Samples a language model generates together (its continuous batch; at least --max-nbest)")
      ->check(CLI::Range(1, 4096))->capture_default_str();
  cmd->add_option("--max-prefill-tokens", o.max_prefill_tokens,
                  "Prompt tokens that join a language model's batch in one step")
      ->check(CLI::PositiveNumber)->capture_default_str();
  cmd->add_option("--timeout", f->timeout_seconds, "Seconds a request may take (504 beyond)")
      ->check(CLI::Range(0.001, 3600.0) & kFinite)->capture_default_str();
  cmd->add_option("--api-keys", o.api_keys_file, "File of API keys, one per line: model requests then need one (403)")
      ->check(CLI::ExistingFile);
  cmd->add_option("--http-threads", h.request_threads, "Request threads (a request holds one while its model works on it)")
      ->check(CLI::Range(1, 4096))->capture_default_str();
  cmd->add_option("--header-timeout", f->header_timeout_seconds,
                  "Seconds a request's whole header may take to arrive (408 beyond)")
      ->check(CLI::Range(0.001, 3600.0) & kFinite)->capture_default_str();
  cmd->add_option("--body-timeout", f->body_timeout_seconds,
                  "Seconds a request's whole body may take to arrive, and a reply to be read (408 beyond)")
      ->check(CLI::Range(0.001, 3600.0) & kFinite)->capture_default_str();
  cmd->add_option("--max-connections", h.max_connections, "Open connections (a new one beyond gets 503)")
      ->check(CLI::Range(1, 1000000))->capture_default_str();
  cmd->add_option("--max-connections-per-address", h.max_connections_per_address,
                  "Open connections from one client address (a new one beyond gets 429; raise it behind a proxy)")
      ->check(CLI::Range(1, 1000000))->capture_default_str();
  cmd->add_option("--backlog", h.listen_backlog, "Listen backlog")->check(CLI::Range(1, 65535))->capture_default_str();
  cmd->add_option("--keep-alive", f->keep_alive_seconds, "Seconds an idle keep-alive connection stays open")
      ->check(CLI::Range(0, 3600))->capture_default_str();
  return [f] { return run_serve(*f); };
}

}  // namespace heptapod::app
