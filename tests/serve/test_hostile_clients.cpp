// `heptapod serve` under hostile clients: slow-loris connections (a header line every 300 ms, never the end of
// the header) and idle keep-alive connections, from 127.0.0.2-9 so that the per-address limit falls on them,
// while normal clients on 127.0.0.1 translate. Every normal reply is the bytes `heptapod translate` prints;
// the hostile connections beyond the per-address limit are refused with 429; the rest are closed by their
// deadlines (408 at the header deadline, a silent close at the keep-alive timeout); /metrics counts each.
#include <gtest/gtest.h>

#include <thread>

#include "heptapod/data/text_file.h"
#include "hostile_clients.h"
#include "running_server.h"
#include "test_process.h"
#include "vocab_model.h"

namespace heptapod {
namespace {

using namespace std::chrono_literals;

// The value of an unlabelled or labelled sample line `name` in a Prometheus text page (-1 when absent).
double metric(const std::string& page, const std::string& name) {
  const std::size_t at = page.find("\n" + name + " ");
  return at == std::string::npos ? -1 : std::stod(page.substr(at + name.size() + 2));
}

TEST(ServerUnderHostileClients, NormalRepliesExactAndHostileConnectionsClosedByDeadlines) {
  test::TempDir dir;
  const std::string model = test::make_model(dir);
  const test::CliReference reference = test::cli_reference(dir, model);
  ASSERT_EQ(reference.translations.size(), reference.sources.size());

  ServerOptions o = test::int8_server();
  o.http.header_timeout = 1000ms;
  o.http.body_timeout = 1000ms;
  o.http.keep_alive = 1000ms;
  o.http.max_connections_per_address = 20;
  test::RunningServer server({parse_model_spec("es-en=" + model)}, o);

  // 240 hostile connections over 8 addresses: 30 each, of which the limit admits 20.
  bench::HostileOptions h;
  h.port = server.port();
  h.slow_loris = 120;
  h.idle = 120;
  h.interval = 300ms;
  bench::HostileClients hostile(h);
  ASSERT_TRUE(hostile.wait_for([](const bench::HostileStats& s) { return s.slow_loris.opened + s.idle.opened == 240; }, 10s))
      << hostile.stats().first_connect_error;

  const std::vector<std::string> got =
      test::translate_concurrently([&] { return server.client(); }, reference.sources, 8);
  EXPECT_EQ(got, reference.translations);

  // Every hostile connection ends: refused, or closed by its deadline.
  ASSERT_TRUE(hostile.wait_for(
      [](const bench::HostileStats& s) { return s.slow_loris.open_now + s.idle.open_now == 0; }, 10s))
      << "hostile connections still open 10 s on";
  const bench::HostileStats s = hostile.stats();
  const auto count = [](const std::map<std::string, long long>& m, const std::string& key) {
    const auto it = m.find(key);
    return it == m.end() ? 0LL : it->second;
  };
  EXPECT_EQ(count(s.slow_loris.refused, "429") + count(s.idle.refused, "429"), 80) << "8 addresses x (30 - 20)";
  EXPECT_EQ(s.slow_loris.closed_total(), count(s.slow_loris.closed, "408")) << "every slow-loris gets 408";
  EXPECT_EQ(s.idle.closed_total(), count(s.idle.closed, "silent close")) << "idle connections are closed quietly";
  EXPECT_EQ(s.slow_loris.closed_total() + s.idle.closed_total(), 160);
  EXPECT_GE(s.slow_loris.close_seconds_median, 0.6);  // the deadline runs from the accept, just before the first byte
  EXPECT_LT(s.slow_loris.close_seconds_max, 3.0);
  EXPECT_GE(s.idle.close_seconds_median, 0.7);  // the keep-alive timeout runs from the reply's write
  EXPECT_LT(s.idle.close_seconds_max, 3.0);

  httplib::Client c = server.client();
  const std::string page = test::get(c, "/metrics").text;
  EXPECT_EQ(metric(page, "heptapod_connections_refused_total{reason=\"per_address\"}"), 80);
  EXPECT_EQ(metric(page, "heptapod_connections_refused_total{reason=\"total\"}"), 0);
  EXPECT_EQ(metric(page, "heptapod_request_timeouts_total{phase=\"header\"}"), count(s.slow_loris.closed, "408"));
  EXPECT_EQ(metric(page, "heptapod_connections_idle_closed_total"), s.idle.closed_total());
}

}  // namespace
}  // namespace heptapod
