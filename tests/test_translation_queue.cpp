// Cross-request batching (serve/translation_queue.h): concurrent requests get exactly what translating each
// alone gives (int8 products are batch-invariant, so the bytes and scores must match), requests waiting
// behind a batch share the next one, requests with other options stay apart, a full queue refuses, an
// expired deadline fails its request alone, and stopping finishes what was queued.
#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "heptapod/data/text_file.h"
#include "heptapod/serve/translation_queue.h"
#include "test_process.h"
#include "vocab_model.h"

namespace heptapod {
namespace {

using test::TempDir;

std::vector<std::string> numbers() { return read_lines(test::data_file("numbers.dev.en")); }

TranslateOptions short_search(int beam) {
  TranslateOptions o;
  o.search.beam = beam;
  o.search.max_extra_length = 8;
  return o;
}

// Text and score of each sentence's best hypothesis, for exact comparison.
std::vector<std::pair<std::string, float>> best(const std::vector<Translation>& out) {
  std::vector<std::pair<std::string, float>> b;
  for (const Translation& t : out)
    b.emplace_back(t.hypotheses.empty() ? "" : t.hypotheses[0].text, t.hypotheses.empty() ? 0 : t.hypotheses[0].score);
  return b;
}

// Two translators (a server's two models, two Python threads) computing at the same time get what each
// gets alone, in every compute type: no product shares scratch memory across threads.
TEST(TranslationQueue, TranslatorsOnTwoThreadsAtOnceGetWhatEachGetsAlone) {
  TempDir dir;
  const std::string model = test::make_model(dir);
  const std::vector<std::string> lines = numbers();
  for (const ComputeType type : {ComputeType::Float32, ComputeType::Int8, ComputeType::BFloat16}) {
    Translator a(model, {type}), b(model, {type});
    const auto expect = best(a.translate(lines, short_search(4)));
    std::vector<std::pair<std::string, float>> got[2];
    std::thread other([&] { got[1] = best(b.translate(lines, short_search(4))); });
    got[0] = best(a.translate(lines, short_search(4)));
    other.join();
    EXPECT_EQ(got[0], expect) << compute_type_name(type);
    EXPECT_EQ(got[1], expect) << compute_type_name(type);
  }
}

TEST(TranslationQueue, ConcurrentRequestsGetWhatTranslatingEachAloneGives) {
  TempDir dir;
  const std::string model = test::make_model(dir);
  const std::vector<std::string> lines = numbers();
  constexpr int kThreads = 6, kRequests = 5;
  // Request (thread t, k): lines from (t * kRequests + k) * 3, 1-3 of them, beam 1 or 4 by thread.
  auto request = [&](int t, int k) {
    const std::size_t at = static_cast<std::size_t>(t * kRequests + k) * 3;
    return std::vector<std::string>(lines.begin() + at, lines.begin() + at + 1 + (t + k) % 3);
  };
  Translator alone(model, {ComputeType::Int8});
  std::vector<std::vector<std::vector<std::pair<std::string, float>>>> expect(kThreads);
  for (int t = 0; t < kThreads; ++t)
    for (int k = 0; k < kRequests; ++k) expect[t].push_back(best(alone.translate(request(t, k), short_search(t % 2 ? 4 : 1))));

  Translator shared(model, {ComputeType::Int8});
  TranslationQueue queue(shared, {});
  std::vector<std::vector<std::vector<std::pair<std::string, float>>>> got(kThreads);
  std::vector<std::thread> clients;
  for (int t = 0; t < kThreads; ++t)
    clients.emplace_back([&, t] {
      for (int k = 0; k < kRequests; ++k) got[t].push_back(best(queue.submit(request(t, k), short_search(t % 2 ? 4 : 1)).get()));
    });
  for (auto& c : clients) c.join();
  for (int t = 0; t < kThreads; ++t)
    for (int k = 0; k < kRequests; ++k) EXPECT_EQ(got[t][k], expect[t][k]) << "thread " << t << " request " << k;
  const QueueStats s = queue.stats();
  EXPECT_EQ(s.requests, static_cast<std::uint64_t>(kThreads * kRequests));
  EXPECT_EQ(s.batched_requests, s.requests);
  EXPECT_EQ(s.queued_sentences, 0);
}

TEST(TranslationQueue, RequestsWaitingBehindABatchShareTheNext) {
  TempDir dir;
  Translator translator(test::make_model(dir), {ComputeType::Int8});
  const std::vector<std::string> lines = numbers();
  TranslationQueue queue(translator, {});
  // A long first request keeps the worker busy while ten small ones arrive.
  auto first = queue.submit(std::vector<std::string>(lines.begin(), lines.begin() + 150), short_search(4));
  std::vector<std::future<std::vector<Translation>>> small;
  for (int i = 0; i < 10; ++i) small.push_back(queue.submit({lines[160 + i]}, short_search(4)));
  EXPECT_EQ(first.get().size(), 150u);
  for (auto& f : small) EXPECT_EQ(f.get().size(), 1u);
  const QueueStats s = queue.stats();
  EXPECT_EQ(s.requests, 11u);
  EXPECT_LT(s.batches, 11u) << "the small requests ran one batch each";
}

TEST(TranslationQueue, AFullQueueRefusesAndEveryAcceptedRequestCompletes) {
  TempDir dir;
  Translator translator(test::make_model(dir), {ComputeType::Int8});
  const std::vector<std::string> lines = numbers();
  QueueOptions o;
  o.max_queued_sentences = 4;
  TranslationQueue queue(translator, o);
  std::vector<std::future<std::vector<Translation>>> accepted;
  int refused = 0;
  for (int i = 0; i < 60; ++i) {
    try {
      accepted.push_back(queue.submit({lines[i], lines[i + 1], lines[i + 2]}, short_search(4)));
    } catch (const QueueFull& e) {
      ++refused;
      EXPECT_HAS_SUBSTR(e.what(), "full");
    }
  }
  EXPECT_GT(refused, 0);
  EXPECT_EQ(queue.stats().refused, static_cast<std::uint64_t>(refused));
  for (auto& f : accepted) EXPECT_EQ(f.get().size(), 3u);
}

TEST(TranslationQueue, AnExpiredDeadlineFailsThatRequestAlone) {
  TempDir dir;
  Translator translator(test::make_model(dir), {ComputeType::Int8});
  const std::vector<std::string> lines = numbers();
  TranslationQueue queue(translator, {});
  auto ok = queue.submit({lines[0]}, short_search(1));
  auto late = queue.submit({lines[1]}, short_search(1), std::chrono::steady_clock::now() - std::chrono::seconds(1));
  auto also_ok = queue.submit({lines[2]}, short_search(1));
  EXPECT_EQ(ok.get().size(), 1u);
  EXPECT_THROW(late.get(), DeadlineExceeded);
  EXPECT_EQ(also_ok.get().size(), 1u);
  EXPECT_EQ(queue.stats().expired, 1u);
}

TEST(TranslationQueue, StoppingFinishesEveryQueuedRequest) {
  TempDir dir;
  Translator translator(test::make_model(dir), {ComputeType::Int8});
  const std::vector<std::string> lines = numbers();
  std::vector<std::future<std::vector<Translation>>> futures;
  {
    TranslationQueue queue(translator, {});
    for (int i = 0; i < 8; ++i) futures.push_back(queue.submit({lines[i], lines[i + 8]}, short_search(i % 2 ? 4 : 1)));
  }  // destroyed at once: the worker drains the queue first
  for (auto& f : futures) {
    ASSERT_EQ(f.wait_for(std::chrono::seconds(0)), std::future_status::ready);
    EXPECT_EQ(f.get().size(), 2u);
  }
}

TEST(TranslationQueue, BadOptionsAreErrors) {
  TempDir dir;
  Translator translator(test::make_model(dir));
  QueueOptions o;
  o.max_batch_sentences = 0;
  EXPECT_THROW(TranslationQueue(translator, o), Error);
  o = {};
  o.max_queued_sentences = -1;
  EXPECT_THROW(TranslationQueue(translator, o), Error);
}

}  // namespace
}  // namespace heptapod

namespace heptapod {
namespace {

// Requests whose repetition guards or sampling differ never share a batch (each would get the other's).
TEST(TranslationQueue, GuardsAndSamplingAreNotSharedAcrossRequests) {
  const TranslateOptions plain;
  EXPECT_TRUE(same_search(plain, plain));
  std::vector<TranslateOptions> others(6, plain);
  others[0].search.guards.repetition_penalty = 1.2f;
  others[1].search.guards.no_repeat_ngram = 3;
  others[2].sample = true;
  others[3].sampling.temperature = 0.5f;
  others[4].sampling.top_p = 0.9f;
  others[5].sampling.seed = 7;
  for (const TranslateOptions& o : others) EXPECT_FALSE(same_search(plain, o));
}

}  // namespace
}  // namespace heptapod
