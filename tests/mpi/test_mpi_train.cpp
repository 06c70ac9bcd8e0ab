// Distributed training through mpirun (OpenMPI), kept on loopback with the TCP transport forced (what
// separate machines would use): 2 ranks x accumulate 1 train exactly the model 1 rank x accumulate 2 trains
// (losses and model file bit for bit); a run resumes on another number of ranks with the same update size
// and is refused with another; a rank killed with -9 ends the whole run promptly, and rerunning the command
// finishes with the model of an uninterrupted run; a 2-rank run makes the model an earlier binary recorded;
// a language model, an encoder and LoRA fine-tuning train the same on 2 ranks as on one accumulating two.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <thread>

#include "frozen_outputs.h"
#include "test_process.h"
#include "vocab_model.h"

namespace heptapod {
namespace {

using test::quoted;
using test::TempDir;
namespace fs = std::filesystem;

const char* kMpirun = "OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 mpirun --bind-to none "
                      "--mca btl self,tcp --mca btl_tcp_if_include lo --mca oob_tcp_if_include lo";

std::string train_args(const std::string& out, int steps, int accumulate) {
  return "train --source " + quoted(test::data_file("numbers.train.en")) + " --target " +
         quoted(test::data_file("numbers.train.es")) + " -o " + quoted(out) +
         " --preset tiny --vocab-size 200 --batch-tokens 1024 --warmup 50 --threads 1 --log-every 5 --valid-every 20"
         " --steps " + std::to_string(steps) + " --accumulate " + std::to_string(accumulate);
}

// Runs `command` through the shell with its output in `log`; the exit status.
int shell(const std::string& command, std::string& log, const TempDir& dir) {
  const std::string path = dir.file("command.log");
  const int status = std::system((command + " > " + quoted(path) + " 2>&1").c_str());
  log = test::slurp(path);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

int train_ranks(int ranks, const std::string& args, std::string& log, const TempDir& dir) {
  return shell(std::string(kMpirun) + " -np " + std::to_string(ranks) + " " + quoted(HEPTAPOD_BINARY) + " " + args, log, dir);
}

// The "train" records of a metrics file without their timings.
std::vector<nlohmann::json> losses(const std::string& run) {
  std::vector<nlohmann::json> out;
  std::ifstream in(run + "/metrics.jsonl");
  for (std::string line; std::getline(in, line);) {
    nlohmann::json j = nlohmann::json::parse(line);
    if (j["type"] != "train") continue;
    j.erase("elapsed_seconds");
    j.erase("tokens_per_second");
    out.push_back(j);
  }
  return out;
}

// Runs args(output, accumulate) on 1 rank accumulating 2 and on 2 ranks accumulating 1: the same `records`
// loss records and the same `product` (the model file, or a LoRA run's adapter file), bit for bit.
void expect_two_ranks_equal_one_accumulating_two(const std::function<std::string(const std::string&, int)>& args,
                                                 std::size_t records, const std::string& product = "model.htp") {
  TempDir dir;
  std::string log;
  ASSERT_EQ(test::run_heptapod(args(dir.file("one"), 2), dir, log), 0) << log;
  ASSERT_EQ(train_ranks(2, args(dir.file("two"), 1), log, dir), 0) << log;
  EXPECT_HAS_SUBSTR(log, "2 ranks x 1 micro-batches");
  const auto one = losses(dir.file("one")), two = losses(dir.file("two"));
  ASSERT_EQ(one.size(), records);
  EXPECT_EQ(one, two);
  ASSERT_TRUE(fs::exists(dir.file("one") + "/" + product)) << product;
  EXPECT_TRUE(test::slurp(dir.file("one") + "/" + product) == test::slurp(dir.file("two") + "/" + product))
      << "the " << product << " files differ";
}

// Runs args(out, accumulate, steps) on 1 rank accumulating 2 to `total` updates, and into "mixed" on 2 ranks
// accumulating 1 to `first`, then on 1 rank accumulating 2 from its checkpoint to `total`: the same loss records
// and the same model file.
void expect_resume_on_another_rank_count(const TempDir& dir,
                                         const std::function<std::string(const std::string&, int, int)>& args,
                                         int first, int total) {
  std::string log;
  ASSERT_EQ(test::run_heptapod(args(dir.file("one"), 2, total), dir, log), 0) << log;
  ASSERT_EQ(train_ranks(2, args(dir.file("mixed"), 1, first), log, dir), 0) << log;
  ASSERT_EQ(test::run_heptapod(args(dir.file("mixed"), 2, total), dir, log), 0) << log;
  EXPECT_HAS_SUBSTR(log, "resuming from");
  EXPECT_EQ(losses(dir.file("one")), losses(dir.file("mixed")));
  EXPECT_EQ(test::slurp(dir.file("one") + "/model.htp"), test::slurp(dir.file("mixed") + "/model.htp"))
      << "the model files differ";
}

TEST(MpiTrain, TwoRanksEqualOneRankAccumulatingTwo) {
  expect_two_ranks_equal_one_accumulating_two(
      [](const std::string& out, int accumulate) { return train_args(out, 40, accumulate); }, 8);
}

// A language model (decoder-only, learned positions, every dropout): the same trainer, the same guarantee.
TEST(MpiTrain, ALanguageModelOnTwoRanksEqualsOneRankAccumulatingTwo) {
  expect_two_ranks_equal_one_accumulating_two(
      [](const std::string& out, int accumulate) {
        return "train --arch decoder-only --text " + quoted(test::data_file("numbers.train.en")) + " -o " +
               quoted(out) +
               " --preset tiny --layers 2 --vocab-size 120 --context 32 --positions learned --batch-tokens 256"
               " --warmup 20 --threads 1 --log-every 5 --valid-every 10 --steps 20 --dropout 0.1"
               " --attention-dropout 0.1 --accumulate " + std::to_string(accumulate);
      },
      4);
}

// Transformer-XL: one stream group per micro-batch, each with its memory on the rank that computes it; a run
// checkpointed on 2 ranks (the memories gathered) resumes on 2 ranks and then on 1 rank accumulating 2 as if
// never moved.
std::string xl_args(const std::string& out, int accumulate, int steps) {
  return "train --arch decoder-only --text " + quoted(test::data_file("numbers.train.en")) + " -o " + quoted(out) +
         " --preset tiny --layers 2 --vocab-size 120 --context 8 --positions relative --memory 12 --batch-tokens 64"
         " --warmup 20 --threads 1 --log-every 5 --valid-every 10 --dropout 0.1 --steps " + std::to_string(steps) +
         " --accumulate " + std::to_string(accumulate);
}

TEST(MpiTrain, TransformerXlOnTwoRanksEqualsOneRankAccumulatingTwo) {
  expect_two_ranks_equal_one_accumulating_two(
      [](const std::string& out, int accumulate) { return xl_args(out, accumulate, 20); }, 4);
}

// ... and resumed on 2 ranks again first: each rank takes back its own groups' memories, so the next
// checkpoint, gathered from both, holds each memory once.
TEST(MpiTrain, TransformerXlResumesItsMemoriesOnAnotherRankCount) {
  TempDir dir;
  std::string log;
  ASSERT_EQ(test::run_heptapod(xl_args(dir.file("one"), 2, 40), dir, log), 0) << log;
  ASSERT_EQ(train_ranks(2, xl_args(dir.file("moved"), 1, 20), log, dir), 0) << log;
  ASSERT_EQ(train_ranks(2, xl_args(dir.file("moved"), 1, 30), log, dir), 0) << log;
  EXPECT_HAS_SUBSTR(log, "resuming from");
  ASSERT_EQ(test::run_heptapod(xl_args(dir.file("moved"), 2, 40), dir, log), 0) << log;
  EXPECT_HAS_SUBSTR(log, "resuming from");
  EXPECT_EQ(losses(dir.file("one")), losses(dir.file("moved")));
  EXPECT_EQ(test::slurp(dir.file("one") + "/model.htp"), test::slurp(dir.file("moved") + "/model.htp"))
      << "the model files differ";
}

// An encoder (masked language modelling): the masks follow the data order, so they too are the same.
TEST(MpiTrain, AnEncoderOnTwoRanksEqualsOneRankAccumulatingTwo) {
  expect_two_ranks_equal_one_accumulating_two(
      [](const std::string& out, int accumulate) {
        return "train --arch encoder-only --text " + quoted(test::data_file("numbers.train.en")) + " -o " +
               quoted(out) +
               " --preset tiny --layers 2 --vocab-size 120 --context 32 --batch-tokens 256 --whole-word-mask"
               " --warmup 20 --threads 1 --log-every 5 --valid-every 10 --steps 20 --dropout 0.1"
               " --attention-dropout 0.1 --accumulate " + std::to_string(accumulate);
      },
      4);
}

// LoRA fine-tuning of a language model (adapters on q, v and the ffn, with LoRA dropout) over a frozen base:
// the adapter files are the same, bit for bit.
TEST(MpiTrain, LoraFineTuningOnTwoRanksEqualsOneRankAccumulatingTwo) {
  TempDir base;
  const std::string lm = test::make_language_model(base.file("lm.htp"), 32);
  expect_two_ranks_equal_one_accumulating_two(
      [&](const std::string& out, int accumulate) {
        return "train --init " + quoted(lm) + " --text " + quoted(test::data_file("numbers.train.en")) + " -o " +
               quoted(out) +
               " --context 16 --batch-tokens 128 --threads 1 --steps 10 --log-every 5 --valid-every 5 --lr 1e-2"
               " --lora 4 --lora-targets q,v,ffn --lora-dropout 0.1 --accumulate " + std::to_string(accumulate);
      },
      2, "adapter.htp");
}

TEST(MpiTrain, ResumesOnAnotherRankCountWithTheSameUpdateSizeOnly) {
  TempDir dir;
  std::string log;
  expect_resume_on_another_rank_count(dir, [](const std::string& out, int accumulate, int steps) {
    return train_args(out, steps, accumulate);
  }, 20, 40);
  EXPECT_EQ(test::run_heptapod(train_args(dir.file("mixed"), 60, 1), dir, log), 1);
  EXPECT_HAS_SUBSTR(log, "the data, batching or optimiser settings differ");
}

// The pids of the heptapod processes whose parent is `parent`.
std::vector<pid_t> children_named_heptapod(pid_t parent) {
  std::vector<pid_t> pids;
  for (const auto& e : fs::directory_iterator("/proc")) {
    const std::string name = e.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    const std::string stat = test::slurp(e.path().string() + "/stat");
    const std::size_t close = stat.rfind(')');
    if (close == std::string::npos || stat.find("(heptapod)") == std::string::npos) continue;
    const pid_t ppid = std::stoi(stat.substr(close + 4, stat.find(' ', close + 4) - close - 4));
    if (ppid == parent) pids.push_back(std::stoi(name));
  }
  return pids;
}

TEST(MpiTrain, AKilledRankEndsTheRunAndRerunningFinishesIt) {
  TempDir dir;
  std::string log;
  const std::string run = dir.file("run"), args = train_args(run, 300, 1);
  const pid_t mpirun = ::fork();
  if (mpirun == 0) {
    const std::string command = std::string("exec env ") + kMpirun + " -np 2 " + quoted(HEPTAPOD_BINARY) + " " + args +
                                " > " + quoted(dir.file("killed.log")) + " 2>&1";
    ::execl("/bin/sh", "sh", "-c", command.c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  // Wait (at most 120 s) for the checkpoint of step 40, then kill one rank.
  for (int i = 0; i < 1200 && !fs::exists(run + "/checkpoints/step-00000040.htp"); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  ASSERT_TRUE(fs::exists(run + "/checkpoints/step-00000040.htp")) << test::slurp(dir.file("killed.log"));
  const std::vector<pid_t> ranks = children_named_heptapod(mpirun);
  ASSERT_EQ(ranks.size(), 2u) << "expected mpirun's two heptapod ranks";
  ::kill(ranks[1], SIGKILL);
  const auto killed = std::chrono::steady_clock::now();
  int status = 0;
  bool ended = false;
  for (int i = 0; i < 600 && !ended; ++i) {
    ended = ::waitpid(mpirun, &status, WNOHANG) == mpirun;
    if (!ended) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  if (!ended) {
    ::kill(mpirun, SIGKILL);
    ::waitpid(mpirun, &status, 0);
  }
  ASSERT_TRUE(ended) << "the run did not end within 60 s of a rank's death";
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - killed).count(), 60);
  EXPECT_FALSE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "a run that lost a rank exited 0";
  EXPECT_FALSE(fs::exists(run + "/model.htp"));

  ASSERT_EQ(train_ranks(2, args, log, dir), 0) << log;
  EXPECT_HAS_SUBSTR(log, "resuming from");
  ASSERT_EQ(test::run_heptapod(train_args(dir.file("whole"), 300, 2), dir, log), 0) << log;
  EXPECT_EQ(test::slurp(run + "/model.htp"), test::slurp(dir.file("whole") + "/model.htp"))
      << "the resumed run's model differs from an uninterrupted run's";
}

// 2 ranks x accumulate 2 with every dropout make the metrics and model file an earlier binary recorded
// (tests/fixtures/frozen).
TEST(MpiTrain, FrozenTwoRankRunIsUnchanged) {
  for (const test::FrozenCommand& c : test::frozen_commands())
    if (c.kind == "mpi2") test::check_frozen_command(c, std::string(kMpirun) + " -np 2");
}

}  // namespace
}  // namespace heptapod
