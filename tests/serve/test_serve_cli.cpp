// `heptapod serve` as users run it: over HTTP, many concurrent clients get the bytes `heptapod translate`
// prints; SIGTERM under load answers every request the server accepted and exits 0; bad options and files
// are clear errors before anything listens.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <regex>
#include <thread>

#include "heptapod/data/text_file.h"
#include "running_server.h"
#include "test_process.h"
#include "vocab_model.h"

namespace heptapod {
namespace {

using test::post_json;

// `heptapod serve ARGS --port 0` as a child process, its stderr in `log`; the port parsed from its first line.
class ServeProcess {
 public:
  ServeProcess(const std::vector<std::string>& args, const std::string& log) : log_(log) {
    pid_ = ::fork();
    if (pid_ == 0) {
      std::FILE* err = std::freopen(log.c_str(), "w", stderr);
      (void)err;
      std::vector<std::string> argv = {HEPTAPOD_BINARY, "serve", "--port", "0"};
      argv.insert(argv.end(), args.begin(), args.end());
      std::vector<char*> c;
      for (std::string& a : argv) c.push_back(a.data());
      c.push_back(nullptr);
      ::execv(c[0], c.data());
      ::_exit(127);
    }
    const std::regex listening("listening on http://127\\.0\\.0\\.1:([0-9]+)");
    for (int i = 0; i < 500 && port_ == 0; ++i) {
      std::smatch m;
      const std::string text = test::slurp(log_);
      if (std::regex_search(text, m, listening)) port_ = std::stoi(m[1]);
      else std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    EXPECT_GT(port_, 0) << "no listening line in 10 s: " << test::slurp(log_);
    for (int i = 0; i < 500 && port_ > 0; ++i) {
      httplib::Client c = client();
      if (test::get(c, "/health").status == 200) return;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    ADD_FAILURE() << "not ready in 10 s: " << test::slurp(log_);
  }
  ~ServeProcess() {
    if (pid_ > 0 && !waited_) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, nullptr, 0);
    }
  }
  httplib::Client client() const {
    httplib::Client c("127.0.0.1", port_);
    c.set_read_timeout(60, 0);
    c.set_connection_timeout(5, 0);
    return c;
  }
  // Sends `signal` and waits (at most 60 s) for the exit; returns the exit status, -1 if killed or stuck.
  int stop(int signal = SIGTERM) {
    ::kill(pid_, signal);
    for (int i = 0; i < 3000; ++i) {
      int status = 0;
      if (::waitpid(pid_, &status, WNOHANG) == pid_) {
        waited_ = true;
        return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return -1;
  }
  std::string log() const { return test::slurp(log_); }

 private:
  std::string log_;
  pid_t pid_ = -1;
  int port_ = 0;
  bool waited_ = false;
};

TEST(ServeCli, ConcurrentClientsGetTheBytesOfHeptapodTranslate) {
  test::TempDir dir;
  const std::string model = test::make_model(dir);
  const test::CliReference reference = test::cli_reference(dir, model);
  ASSERT_EQ(reference.translations.size(), reference.sources.size());

  ServeProcess server({"-m", "es-en=" + model, "--compute-type", "int8", "--max-extra-length", "8"}, dir.file("serve.log"));
  const std::vector<std::string> got =
      test::translate_concurrently([&] { return server.client(); }, reference.sources, 16);
  EXPECT_EQ(got, reference.translations);
  EXPECT_EQ(server.stop(), 0) << server.log();
  // One log line per request.
  const std::string text = server.log();
  std::size_t logged = 0;
  for (std::size_t at = 0; (at = text.find("POST /translate 200 1 sentences", at)) != std::string::npos; ++at) ++logged;
  EXPECT_EQ(logged, reference.sources.size());
}

// Clients keep sending (new connection per request) while SIGTERM arrives: every request the server logged
// was answered 200 to its client, some were answered after the signal, and the server exits 0.
TEST(ServeCli, SigtermUnderLoadAnswersWhatIsInFlight) {
  test::TempDir dir;
  const std::string model = test::make_model(dir);
  ServeProcess server({"-m", model, "--compute-type", "int8"}, dir.file("serve.log"));
  const std::vector<std::string> sources = test::numbers();
  constexpr int kClients = 8, kMaxRequests = 400;
  std::atomic<int> sent{0}, answered{0}, answered_after_signal{0}, failed_status{0};
  std::atomic<bool> signalled{false};
  std::vector<std::thread> clients;
  for (int k = 0; k < kClients; ++k)
    clients.emplace_back([&, k] {
      for (int i = 0; i < kMaxRequests / kClients; ++i) {
        httplib::Client c = server.client();
        c.set_keep_alive(false);
        std::vector<std::string> text(sources.begin() + (k * 7 + i) % 100, sources.begin() + (k * 7 + i) % 100 + 3);
        ++sent;
        const test::Reply r = post_json(c, "/v1/translate", {{"text", text}, {"beam", 4}});
        if (r.status == 0) {
          if (signalled) return;  // not accepted: the server has stopped listening
          continue;
        }
        if (r.status != 200) ++failed_status;
        ++answered;
        if (signalled) ++answered_after_signal;
      }
    });
  for (int i = 0; i < 1000 && answered < 40; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  signalled = true;
  const int status = server.stop(SIGTERM);
  for (auto& t : clients) t.join();
  EXPECT_EQ(status, 0) << server.log();
  EXPECT_EQ(failed_status.load(), 0);
  const std::string log = server.log();
  EXPECT_HAS_SUBSTR(log, "SIGTERM: finishing requests in flight");
  std::size_t logged = 0;
  for (std::size_t at = 0; (at = log.find("POST /v1/translate 200", at)) != std::string::npos; ++at) ++logged;
  EXPECT_EQ(logged, static_cast<std::size_t>(answered.load())) << "a request the server answered never reached its client";
  EXPECT_GT(answered_after_signal.load(), 0) << "no request was in flight at the signal: the test proves nothing";
}

TEST(ServeCli, BadOptionsAreClearErrors) {
  test::TempDir dir;
  const std::string model = test::make_model(dir);
  std::string log;
  auto fails = [&](const std::string& args, const std::string& part) {
    EXPECT_NE(test::run_heptapod("serve " + args, dir, log), 0) << args;
    EXPECT_HAS_SUBSTR(log, part);
  };
  fails("-m " + dir.file("missing.htp"), "missing.htp: not a file");
  fails("-m " + dir.path().string(), "not a file");
  fails("-m es_en=" + model, "SOURCE-TARGET");
  fails("-m es-es=" + model, "the same");
  fails("-m es-en=" + model + " -m es-en=" + model, "es-en is given twice");
  fails("-m " + model + " -m en-es=" + model, "name each one's pair");
  fails("-m " + model + " --port 70000", "--port");
  fails("-m " + model + " --max-sentences 0", "--max-sentences");
  fails("-m " + model + " --api-keys " + dir.write("keys.txt", "short\n"), "keys.txt:1: an API key has 8-256 characters");
  fails("-m " + model + " --api-keys " + dir.write("empty.txt", "# none\n"), "no API key");
  fails("-m " + dir.write("bad.htp", "not a model") + " --port 0", "bad.htp");
}

}  // namespace
}  // namespace heptapod
