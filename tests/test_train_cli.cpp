// End-to-end tests of `heptapod train` on the committed numbers corpus: exact resume after kill -9 (of
// translation training, an encoder's masked-LM pre-training and a classifier's fine-tuning), a regression
// check of the loss log, and clear errors for bad input.
#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <cmath>
#include <cstring>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <random>
#include <thread>

#include "heptapod/io/model_file.h"
#include "heptapod/train/run_lock.h"
#include "test_process.h"
#include "vocab_model.h"

namespace heptapod {
namespace {

using test::quoted;
using test::run_heptapod;
using test::TempDir;

std::string data(const std::string& name) { return test::data_file(name); }

// A small, fast, fully deterministic training command.
std::string train_args(const std::string& out, int steps, const std::string& extra = "", int valid_every = 20) {
  return "train --source " + quoted(data("numbers.train.en")) + " --target " + quoted(data("numbers.train.es")) +
         " -o " + quoted(out) +
         " --preset tiny --vocab-size 200 --batch-tokens 1024 --warmup 50 --threads 2 --log-every 5"
         " --valid-every " + std::to_string(valid_every) + " --steps " + std::to_string(steps) + " " + extra;
}

// step -> loss of the "train" records of a metrics file.
std::map<long, double> train_losses(const std::string& metrics_path) {
  std::map<long, double> losses;
  std::istringstream in(test::slurp(metrics_path));
  std::string line;
  while (std::getline(in, line)) {
    const auto j = nlohmann::json::parse(line);
    if (j["type"] == "train") losses[j["step"].get<long>()] = j["loss"].get<double>();
  }
  return losses;
}

// Runs args(a) to its end; runs args(b), killed with SIGKILL at a random moment after its checkpoint at step
// 20, then again after the one at 40, then to its end: the loss curves and the runs' results (`result`: the
// model file, or a LoRA run's adapter file) must be the same bits. args(out): a 60-update run logging every 5
// updates and checkpointing every 20.
void expect_kill_and_resume_exact(const TempDir& dir, const std::function<std::string(const std::string&)>& args,
                                  const std::string& result = "model.htp") {
  std::string log;
  const std::string a = dir.file("a"), b = dir.file("b");
  ASSERT_EQ(run_heptapod(args(a), dir, log), 0) << log;
  std::mt19937 rng(12345);
  for (int attempt = 0; attempt < 2; ++attempt) {
    const pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      const std::string cmd = quoted(HEPTAPOD_BINARY) + " " + args(b) + " > /dev/null 2>&1";
      execl("/bin/sh", "sh", "-c", ("exec " + cmd).c_str(), static_cast<char*>(nullptr));
      _exit(127);
    }
    const std::string first = b + "/checkpoints/step-" + std::string(attempt == 0 ? "00000020" : "00000040") + ".htp";
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
    while (!test::fs::exists(first) && std::chrono::steady_clock::now() < deadline)
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    std::this_thread::sleep_for(std::chrono::milliseconds(std::uniform_int_distribution<int>(0, 400)(rng)));
    kill(pid, SIGKILL);
    int status = 0;
    waitpid(pid, &status, 0);
  }
  ASSERT_EQ(run_heptapod(args(b), dir, log), 0) << log;
  EXPECT_HAS_SUBSTR(log, "resuming from");

  const auto expected = train_losses(a + "/metrics.jsonl");
  const auto resumed = train_losses(b + "/metrics.jsonl");
  ASSERT_EQ(expected.size(), 12u);
  EXPECT_EQ(resumed, expected);  // bit-identical loss curve
  EXPECT_EQ(test::slurp(a + "/" + result), test::slurp(b + "/" + result));
}

TEST(TrainCli, ResumeAfterKillReproducesTheUninterruptedRun) {
  TempDir dir;
  expect_kill_and_resume_exact(dir, [](const std::string& out) { return train_args(out, 60); });
}

// LoRA adapters over the frozen base `base` resume as any run does: the adapters and their optimiser state are
// in the checkpoints, and the adapter files of both runs are the same bits.
void expect_lora_resume_exact(const TempDir& dir, const std::string& base) {
  expect_kill_and_resume_exact(
      dir,
      [&](const std::string& out) {
        return "train --init " + quoted(base) + " --text " + quoted(data("numbers.train.en")) + " -o " + quoted(out) +
               " --lora 4 --lora-targets q,k,v,o,ffn --context 16 --batch-tokens 64 --accumulate 2 --lr 1e-2"
               " --threads 2 --log-every 5 --valid-every 20 --steps 60";
      },
      "adapter.htp");
}

TEST(TrainCli, LoraResumesAfterKillExactly) {
  TempDir dir;
  expect_lora_resume_exact(dir, test::make_language_model(dir.file("lm.htp"), 32));
}

// The same over an int4 base (its Q4_0 matrices and the int8 rows int4 keeps held as the file stores them): the
// checkpoints hold the adapters alone, and a resume reads the base from --init again.
TEST(TrainCli, LoraOverInt4BaseResumesAfterKillExactly) {
  TempDir dir;
  const std::string lm = test::make_language_model(dir.file("lm.htp"), 32), base = dir.file("int4.htp");
  std::string log;
  ASSERT_EQ(run_heptapod("quantize --model " + quoted(lm) + " --to int4 -o " + quoted(base), dir, log), 0) << log;
  expect_lora_resume_exact(dir, base);
}

// Transformer-XL over parallel streams: the segment memories are in the checkpoints, so a resume continues each
// stream where it was, with the memory it had.
TEST(TrainCli, TransformerXlResumesAfterKillExactly) {
  TempDir dir;
  expect_kill_and_resume_exact(dir, [](const std::string& out) {
    return "train --arch decoder-only --text " + quoted(data("numbers.train.en")) + " --valid-text " +
           quoted(data("numbers.dev.en")) + " -o " + quoted(out) +
           " --preset tiny --layers 2 --vocab-size 120 --positions relative --memory 12 --clamp-length 20 --context 8"
           " --batch-tokens 64 --dropout 0.1 --attention-dropout 0.1 --warmup 20 --threads 2 --log-every 5"
           " --valid-every 20 --steps 60";
  });
}

// An encoder's options: tiny, 60 updates, logged every 5, checkpointed every 20.
const char* kEncoderRun =
    " --preset tiny --layers 2 --vocab-size 120 --context 24 --batch-tokens 512 --warmup 20 --threads 2"
    " --log-every 5 --valid-every 20 --steps 60";

TEST(TrainCli, MaskedLmPretrainingResumesAfterKillExactly) {
  TempDir dir;
  expect_kill_and_resume_exact(dir, [](const std::string& out) {
    return "train --arch encoder-only --text " + quoted(data("numbers.train.en")) + " --valid-text " +
           quoted(data("numbers.dev.en")) + " -o " + quoted(out) + kEncoderRun;
  });
}

TEST(TrainCli, ClassifierFineTuningResumesAfterKillExactly) {
  TempDir dir;
  std::string log;
  ASSERT_EQ(run_heptapod("train --arch encoder-only --text " + quoted(data("numbers.train.en")) + " -o " +
                             quoted(dir.file("pre")) + " --preset tiny --layers 2 --vocab-size 120 --context 24"
                             " --batch-tokens 512 --steps 5 --threads 2",
                         dir, log),
            0)
      << log;
  {
    std::ifstream in(data("numbers.train.en"));
    std::ofstream out(dir.file("train.labels"));
    for (std::string line; std::getline(in, line);) out << (line.find("seven") != std::string::npos ? "seven" : "plain") << "\n";
  }
  const std::string init = dir.file("pre") + "/model.htp", labels = dir.file("train.labels");
  expect_kill_and_resume_exact(dir, [&](const std::string& out) {
    return "train --init " + quoted(init) + " --task classify --text " + quoted(data("numbers.train.en")) +
           " --labels " + quoted(labels) + " -o " + quoted(out) + " --context 24 --batch-tokens 512 --warmup 20 --threads 2"
           " --log-every 5 --valid-every 20 --steps 60";
  });
}

TEST(TrainCli, LossLogMatchesTheRecordedRegressionValues) {
  TempDir dir;
  std::string log;
  ASSERT_EQ(run_heptapod(train_args(dir.file("run"), 30) + " --seed 7", dir, log), 0) << log;
  const auto losses = train_losses(dir.file("run") + "/metrics.jsonl");
  // Recorded with this command on the project machine (oneDNN float GEMM, 2 threads).
  const std::map<long, double> expected = {{5, 5.11172056}, {10, 4.36202978}, {15, 3.95137068},
                                          {20, 3.89057823}, {25, 3.62333328}, {30, 3.46217941}};
  ASSERT_EQ(losses.size(), expected.size());
  for (const auto& [step, loss] : expected) EXPECT_NEAR(losses.at(step), loss, 1e-3 * loss) << "step " << step;
}

// --matmul-precision bfloat16 trains in bfloat16 products where the CPU has AVX512_BF16 and the avx512 ISA runs,
// with losses close to float32's but not equal to them; elsewhere (isa_avx2.*) it says why and runs float32.
TEST(TrainCli, Bfloat16ProductsTrainCloseToFloat32) {
  TempDir dir;
  std::string log32, log16;
  ASSERT_EQ(run_heptapod(train_args(dir.file("f32"), 30), dir, log32), 0) << log32;
  ASSERT_EQ(run_heptapod(train_args(dir.file("bf16"), 30, "--matmul-precision bfloat16"), dir, log16), 0) << log16;
  EXPECT_NE(log32.find(", float32 products"), std::string::npos) << log32;
  const bool bf16 = log16.find(", bfloat16 products") != std::string::npos;
  if (!bf16) {
    EXPECT_NE(log16.find("float32 products (bfloat16 asked for, but "), std::string::npos) << log16;
  }
  const auto a = train_losses(dir.file("f32") + "/metrics.jsonl"), b = train_losses(dir.file("bf16") + "/metrics.jsonl");
  ASSERT_EQ(a.size(), b.size());
  double largest = 0;
  for (const auto& [step, loss] : a) {
    EXPECT_NEAR(b.at(step), loss, 0.02 * loss) << "step " << step;
    largest = std::max(largest, std::fabs(b.at(step) - loss));
  }
  if (bf16) {
    EXPECT_GT(largest, 0.0) << "bfloat16 products gave float32's losses exactly";
  } else {
    EXPECT_EQ(largest, 0.0);
  }
}

TEST(TrainCli, MismatchedLineCountsNameBothFilesAndCounts) {
  TempDir dir;
  std::ofstream(dir.file("a.txt")) << "one\ntwo\nthree\n";
  std::ofstream(dir.file("b.txt")) << "uno\ndos\n";
  std::string log;
  EXPECT_EQ(run_heptapod("train --source " + quoted(dir.file("a.txt")) + " --target " + quoted(dir.file("b.txt")) +
                             " --vocab-model char -o " + quoted(dir.file("out")),
                         dir, log),
            1);
  EXPECT_HAS_SUBSTR(log, dir.file("a.txt") + " has 3 lines");
  EXPECT_HAS_SUBSTR(log, dir.file("b.txt") + " has 2");
}

TEST(TrainCli, InvalidUtf8NamesFileAndLine) {
  TempDir dir;
  std::ofstream(dir.file("a.txt")) << "one\ntw\xff" "o\nthree\n";
  std::ofstream(dir.file("b.txt")) << "uno\ndos\ntres\n";
  std::string log;
  EXPECT_EQ(run_heptapod("train --source " + quoted(dir.file("a.txt")) + " --target " + quoted(dir.file("b.txt")) +
                             " -o " + quoted(dir.file("out")),
                         dir, log),
            1);
  EXPECT_HAS_SUBSTR(log, dir.file("a.txt") + ":2: invalid UTF-8");
}

TEST(TrainCli, MissingInputAndUnwritableOutputAreClearErrors) {
  TempDir dir;
  std::string log;
  EXPECT_EQ(run_heptapod("train --source " + quoted(dir.file("nope.en")) + " --target " + quoted(dir.file("nope.es")) +
                             " -o " + quoted(dir.file("out")),
                         dir, log),
            1);
  EXPECT_HAS_SUBSTR(log, "cannot open " + dir.file("nope.en"));
  std::ofstream(dir.file("plain-file")) << "x";
  EXPECT_EQ(run_heptapod(train_args(dir.file("plain-file") + "/out", 1), dir, log), 1);
  EXPECT_HAS_SUBSTR(log, "cannot create output directory");
}

TEST(TrainCli, EmptyAndOverlongPairsAreSkippedAndCounted) {
  TempDir dir;
  std::ofstream(dir.file("a.txt")) << "one two\n\nthree\nfour five six seven eight nine ten eleven twelve\nsix\n";
  std::ofstream(dir.file("b.txt")) << "uno dos\ncero\n\ncuatro\nseis\n";
  std::string log;
  EXPECT_EQ(run_heptapod("train --source " + quoted(dir.file("a.txt")) + " --target " + quoted(dir.file("b.txt")) +
                             " --vocab-model char --max-length 20 --batch-tokens 64 --preset tiny --steps 2 -o " +
                             quoted(dir.file("out")),
                         dir, log),
            0)
      << log;
  EXPECT_HAS_SUBSTR(log, "kept 2 of 5 pairs (empty 2, too long 1, length ratio 0)");
}

TEST(TrainCli, ResumeWithADifferentModelIsRefused) {
  TempDir dir;
  std::string log;
  ASSERT_EQ(run_heptapod(train_args(dir.file("run"), 20), dir, log), 0) << log;
  EXPECT_EQ(run_heptapod(train_args(dir.file("run"), 40, "--d-model 32"), dir, log), 1);
  EXPECT_HAS_SUBSTR(log, "its model config differs");
}

// Resume reads back what an earlier run wrote; damage to any of it is found and named: a checkpoint whose
// values changed (checksum) stops the run naming it and the checkpoint before it; a damaged metrics line is
// dropped with a warning naming file:line; a damaged corpus cache is rebuilt with a warning naming it.
TEST(TrainCli, DamagedResumeFilesAreFoundAndNamed) {
  TempDir dir;
  std::string log;
  const std::string run = dir.file("run");
  ASSERT_EQ(run_heptapod(train_args(run, 40), dir, log), 0) << log;
  const std::string last = run + "/checkpoints/step-00000040.htp", before = run + "/checkpoints/step-00000020.htp";
  std::string bytes = test::slurp(last);
  std::size_t v_at = 0;  // where the second moments start in the file: after the header, at their offset
  {
    const SafetensorsFile f = SafetensorsFile::read(last);
    std::size_t data_bytes = 0;
    for (const TensorEntry& e : f.tensors()) data_bytes = std::max(data_bytes, e.end);
    v_at = bytes.size() - data_bytes + f.at("extra/adam/v").begin;
  }
  bytes[v_at + 40] ^= 0x01;  // the lowest mantissa bit of one second moment
  std::ofstream(last, std::ios::binary) << bytes;
  EXPECT_EQ(run_heptapod(train_args(run, 60), dir, log), 1) << log;
  EXPECT_HAS_SUBSTR(log, last);
  EXPECT_HAS_SUBSTR(log, "damaged checkpoint");
  EXPECT_HAS_SUBSTR(log, before);

  test::fs::rename(last, dir.file("damaged.htp"));
  std::string metrics = test::slurp(run + "/metrics.jsonl");
  metrics.insert(metrics.find('\n') + 1, "{\"type\": \"tra\n");  // line 2
  std::ofstream(run + "/metrics.jsonl", std::ios::binary) << metrics;
  std::string cache = test::slurp(run + "/cache/train.cache");
  cache[256 + 20] ^= 0x01;  // a token id
  std::ofstream(run + "/cache/train.cache", std::ios::binary) << cache;
  ASSERT_EQ(run_heptapod(train_args(run, 60), dir, log), 0) << log;
  EXPECT_HAS_SUBSTR(log, "resuming from " + before);
  EXPECT_HAS_SUBSTR(log, run + "/metrics.jsonl:2: not a JSON record");
  EXPECT_HAS_SUBSTR(log, run + "/cache/train.cache: damaged corpus cache");
  EXPECT_EQ(test::slurp(run + "/metrics.jsonl").find("{\"type\": \"tra\n"), std::string::npos);
}

// --init fine-tunes a model file: its architecture and vocabularies, its weights as the start (the first loss
// is the trained model's, far below a fresh one's), frozen groups unchanged to the bit, the rest trained;
// architecture options that contradict the file, and vocabulary options, are refused; the run resumes.
TEST(TrainCli, InitFineTunesAModelFileAndFreezesWhatIsAsked) {
  TempDir dir;
  std::string log;
  const std::string base = dir.file("base"), tuned = dir.file("tuned");
  ASSERT_EQ(run_heptapod(train_args(base, 60), dir, log), 0) << log;
  auto fine_tune = [&](int steps, const std::string& extra) {
    return "train --source " + quoted(data("numbers.dev.en")) + " --target " + quoted(data("numbers.dev.es")) +
           " -o " + quoted(tuned) + " --init " + quoted(base + "/model.htp") +
           " --batch-tokens 1024 --threads 2 --log-every 1 --valid-every 100 --steps " + std::to_string(steps) + " " +
           extra;
  };
  ASSERT_EQ(run_heptapod(fine_tune(10, "--freeze encoder"), dir, log), 0) << log;
  EXPECT_HAS_SUBSTR(log, "fine-tuning " + base + "/model.htp, frozen: encoder");
  const auto tuned_losses = train_losses(tuned + "/metrics.jsonl");
  const auto base_losses = train_losses(base + "/metrics.jsonl");
  ASSERT_FALSE(tuned_losses.empty());
  EXPECT_LT(tuned_losses.begin()->second, 0.7 * base_losses.begin()->second)
      << "the first fine-tuning update starts from the trained weights";

  const auto before = load_model(base + "/model.htp"), after = load_model(tuned + "/model.htp");
  ASSERT_EQ(to_json(before->config()), to_json(after->config()));
  const ParameterStore<float>& a = before->parameters();
  const ParameterStore<float>& b = after->parameters();
  int encoder = 0, changed = 0;
  for (std::size_t t = 0; t < a.specs().size(); ++t) {
    const std::string& name = a.specs()[t].name;
    const std::size_t n = static_cast<std::size_t>(a.specs()[t].numel());
    const bool same = std::memcmp(a.values() + a.offset(t), b.values() + b.offset(t), n * sizeof(float)) == 0;
    if (name.rfind("encoder/", 0) == 0) {
      ++encoder;
      EXPECT_TRUE(same) << name << " is frozen";
    } else {
      changed += !same;
    }
  }
  EXPECT_GT(encoder, 0);
  EXPECT_GT(changed, 10) << "the decoder and embeddings train";

  ASSERT_EQ(run_heptapod(fine_tune(12, "--freeze encoder"), dir, log), 0) << log;  // resumes at step 10
  EXPECT_HAS_SUBSTR(log, "resuming from");
  EXPECT_EQ(run_heptapod(fine_tune(14, ""), dir, log), 1) << "another freeze is another run";

  const std::string other = "train --source " + quoted(data("numbers.dev.en")) + " --target " +
                            quoted(data("numbers.dev.es")) + " -o " + quoted(dir.file("x")) + " --init " +
                            quoted(base + "/model.htp") + " --steps 1 ";
  EXPECT_EQ(run_heptapod(other + "--d-model 48", dir, log), 1);
  EXPECT_HAS_SUBSTR(log, "--d-model 48 contradicts the model to fine-tune (--init " + base + "/model.htp), which has 64");
  EXPECT_EQ(run_heptapod(other + "--vocab " + quoted(base + "/vocab.src.spm"), dir, log), 1);
  EXPECT_HAS_SUBSTR(log, "--init brings the model's own vocabularies");
  EXPECT_EQ(run_heptapod(other + "--freeze everything", dir, log), 1);
  EXPECT_HAS_SUBSTR(log, "--freeze takes embeddings, encoder or decoder");
}

// A directory in use by a live run is refused, naming the holder; a holder killed with -9 leaves no lock.
TEST(TrainCli, ASecondRunOnTheSameDirectoryIsRefused) {
  TempDir dir;
  std::string log;
  const std::string out = dir.file("run");
  test::fs::create_directories(out);
  {
    RunLock held(out);
    EXPECT_EQ(run_heptapod(train_args(out, 20), dir, log), 1) << log;
    EXPECT_HAS_SUBSTR(log, "is in use by another training run (pid " + std::to_string(::getpid()));
    EXPECT_FALSE(test::fs::exists(test::fs::path(out) / "checkpoints")) << "the refused run wrote into the directory";
  }
  const pid_t child = ::fork();
  if (child == 0) {
    RunLock mine(out);
    ::pause();
    ::_exit(0);
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  ::kill(child, SIGKILL);
  ::waitpid(child, nullptr, 0);
  EXPECT_EQ(run_heptapod(train_args(out, 20), dir, log), 0) << log;
}

TEST(TrainCli, DivergenceStopsWithAMessageAndKeepsTheLastCheckpoint) {
  TempDir dir;
  std::string log;
  const std::string out = dir.file("run");
  // A learning rate of ~1e26 makes the weights explode after the first update (checkpointed: valid-every 1).
  EXPECT_EQ(run_heptapod(train_args(out, 50, "--lr-scale 1e30", 1), dir, log), 1) << log;
  EXPECT_HAS_SUBSTR(log, "not finite");
  EXPECT_HAS_SUBSTR(log, "last good checkpoint is intact");
  EXPECT_NO_THROW(load_model(out + "/checkpoints/step-00000001.htp"));
}

TEST(TrainCli, AverageIsTheParameterMeanAndPlotDrawsTheCurves) {
  TempDir dir;
  std::string log;
  const std::string out = dir.file("run");
  // train --average 2 keeps the 2 checkpoints it averages even where --keep-checkpoints asks for fewer.
  ASSERT_EQ(run_heptapod(train_args(out, 40, "--average 2 --keep-checkpoints 1"), dir, log), 0) << log;
  EXPECT_HAS_SUBSTR(log, "averaged the last 2 checkpoints (step-00000020.htp to step-00000040.htp)");
  EXPECT_HAS_SUBSTR(log, "; averaged: " + out + "/averaged.htp");
  const std::string avg = dir.file("avg.htp");
  ASSERT_EQ(run_heptapod("average --dir " + quoted(out + "/checkpoints") + " --last 2 -o " + quoted(avg), dir, log), 0)
      << log;
  EXPECT_EQ(test::slurp(out + "/averaged.htp"), test::slurp(avg));  // the same file as the average command's
  auto a = load_model(out + "/checkpoints/step-00000020.htp");
  auto b = load_model(out + "/checkpoints/step-00000040.htp");
  auto m = load_model(avg);
  const auto& pa = a->parameters();
  const auto& pb = b->parameters();
  const auto& pm = m->parameters();
  ASSERT_EQ(pm.size(), pa.size());
  double max_err = 0;
  for (std::size_t i = 0; i < pm.size(); ++i)
    max_err = std::max(max_err, std::abs(pm.values()[i] - 0.5 * (pa.values()[i] + pb.values()[i])));
  EXPECT_LT(max_err, 1e-6);
  EXPECT_NE(SafetensorsFile::read(avg).find("extra/vocab/target"), nullptr);  // still translatable on its own

  ASSERT_EQ(run_heptapod("plot " + quoted(out + "/metrics.jsonl") + " -o " + quoted(dir.file("c.svg")), dir, log), 0)
      << log;
  const std::string svg = test::slurp(dir.file("c.svg"));
  EXPECT_HAS_SUBSTR(svg, "<svg");
  EXPECT_HAS_SUBSTR(svg, "<polyline");
  std::ofstream(dir.file("bad.jsonl")) << "{\"type\":\"train\",\"step\":1,\"loss\":2}\nnot json\n";
  EXPECT_EQ(run_heptapod("plot " + quoted(dir.file("bad.jsonl")) + " -o " + quoted(dir.file("d.svg")), dir, log), 1);
  EXPECT_HAS_SUBSTR(log, dir.file("bad.jsonl") + ":2: not a metrics record");
}

}  // namespace
}  // namespace heptapod
