// Encoder-only classifiers, `train --task classify`: macro-F1 against hand-computed values; training from
// scratch learns a labelling of the numbers text well above the majority class, with accuracy and macro-F1
// in its validation records and the class names in the model file; an encoder pre-trained by masked
// language modelling is fine-tuned with a new head; a resumed run equals the uninterrupted one; several
// classes on a line make it multi-label; bad label files are refused naming file and line.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <nlohmann/json.hpp>

#include "heptapod/data/model_vocab.h"
#include "heptapod/io/model_file.h"
#include "heptapod/train/classification_task.h"
#include "heptapod/eval/classification_metrics.h"
#include "test_process.h"

namespace heptapod {
namespace {

using test::quoted;
using test::run_heptapod;
using test::TempDir;

TEST(Classification, MacroF1IsTheMeanOfThePerClassF1) {
  // Class 0: tp 2 fp 1 fn 0 -> 0.8; class 1: tp 1 fp 0 fn 1 -> 2/3; class 2 never seen nor said: left out.
  EXPECT_NEAR(macro_f1({2, 1, 0}, {1, 0, 0}, {0, 1, 0}), (0.8 + 2.0 / 3.0) / 2, 1e-12);
  EXPECT_EQ(macro_f1({0}, {0}, {0}), 0.0);
  EXPECT_NEAR(macro_f1({0, 3}, {2, 0}, {0, 2}), (0.0 + 0.75) / 2, 1e-12);  // a class only predicted counts, as 0
}

// The numbers text with a class per line: "seven" when the number says seven (seventy, seventeen: 45% of
// the lines), else "plain" (and, for the multi-label file, "nine" too where it says nine).
std::string write_labels(const TempDir& dir, const std::string& text, const std::string& name, bool multi) {
  std::ifstream in(text);
  std::ofstream out(dir.file(name));
  for (std::string line; std::getline(in, line);) {
    std::string labels = line.find("seven") != std::string::npos ? "seven" : "plain";
    if (multi && line.find("nine") != std::string::npos) labels += " nine";
    out << labels << "\n";
  }
  return dir.file(name);
}

struct LabelledData {
  TempDir dir;
  std::string train = test::data_file("numbers.train.en"), dev = test::data_file("numbers.dev.en");
  std::string train_labels = write_labels(dir, train, "train.labels", false);
  std::string dev_labels = write_labels(dir, dev, "dev.labels", false);
};

std::string classify_args(const LabelledData& d, const std::string& out, int steps, const std::string& extra = "") {
  return "train --arch encoder-only --task classify --text " + quoted(d.train) + " --labels " + quoted(d.train_labels) +
         " --valid-text " + quoted(d.dev) + " --valid-labels " + quoted(d.dev_labels) + " -o " + quoted(out) +
         " --preset tiny --layers 2 --vocab-size 120 --context 24 --batch-tokens 512 --warmup 20 --threads 2"
         " --log-every 10 --valid-every 20 --steps " + std::to_string(steps) + " " + extra;
}

TEST(ClassificationTrain, LearnsALabellingValidatesAndResumesExactly) {
  const LabelledData d;
  std::string log;
  const std::string a = d.dir.file("a"), b = d.dir.file("b");
  ASSERT_EQ(run_heptapod(classify_args(d, a, 60, "--valid-metric macro-f1"), d.dir, log), 0) << log;
  EXPECT_HAS_SUBSTR(log, "2 classes");
  const auto valid = test::metrics_records(a, "valid");
  ASSERT_EQ(valid.size(), 3u);
  // The majority class of the dev text, the floor a classifier must beat.
  long long seven = 0, lines = 0;
  std::ifstream labels(d.dev_labels);
  for (std::string line; std::getline(labels, line); ++lines) seven += line == "seven";
  const double majority = static_cast<double>(std::max(seven, lines - seven)) / static_cast<double>(lines);
  EXPECT_GT(valid.back()["accuracy"].get<double>(), majority + 0.02) << log;
  EXPECT_GT(valid.back()["macro_f1"].get<double>(), 0.5);
  const SafetensorsFile file = SafetensorsFile::read(a + "/model.htp");
  const ModelConfig config = read_model_config(file);
  EXPECT_EQ(config.labels, 2);
  EXPECT_FALSE(config.multi_label);
  EXPECT_FALSE(config.mlm_head);
  const auto vocabs = read_vocabularies(file, config);
  ASSERT_TRUE(vocabs.has_value());
  EXPECT_EQ(vocabs->labels.names(), (std::vector<std::string>{"plain", "seven"}));
  // `classify` on the dev text: the classes the last validation counted (the same model), two per line with
  // --top-k 2, probabilities adding up to 1; --json the same as objects.
  std::string out;
  ASSERT_EQ(run_heptapod("classify -m " + quoted(a + "/model.htp") + " -i " + quoted(d.dev) + " --top-k 2", d.dir, out),
            0)
      << out;
  std::istringstream results(out), truth_in(test::slurp(d.dev_labels));
  long long right = 0, n = 0;
  for (std::string line, truth; std::getline(results, line) && std::getline(truth_in, truth); ++n) {
    std::istringstream fields(line);
    std::string first, second;
    double p1 = 0, p2 = 0;
    fields >> first >> p1 >> second >> p2;
    EXPECT_NEAR(p1 + p2, 1.0, 2e-6) << line;
    EXPECT_GE(p1, p2) << line;
    right += first == truth;
  }
  EXPECT_EQ(n, lines);
  EXPECT_NEAR(static_cast<double>(right) / n, valid.back()["accuracy"].get<double>(), 1.5 / n);
  ASSERT_EQ(run_heptapod("classify -m " + quoted(a + "/model.htp") + " -i " + quoted(d.dev) + " --json", d.dir, out), 0);
  const nlohmann::json first = nlohmann::json::parse(out.substr(0, out.find('\n')));
  ASSERT_EQ(first["labels"].size(), 1u);
  EXPECT_EQ(first["top"][0]["label"], first["labels"][0]);
  // Stopped at 20 and resumed to 60: the uninterrupted run, bit for bit.
  ASSERT_EQ(run_heptapod(classify_args(d, b, 20, "--valid-metric macro-f1"), d.dir, log), 0) << log;
  ASSERT_EQ(run_heptapod(classify_args(d, b, 60, "--valid-metric macro-f1"), d.dir, log), 0) << log;
  EXPECT_EQ(test::slurp(a + "/model.htp"), test::slurp(b + "/model.htp"));
}

TEST(ClassificationTrain, APretrainedEncoderIsFineTunedWithANewHead) {
  const LabelledData d;
  std::string log;
  const std::string enc = d.dir.file("enc");
  ASSERT_EQ(run_heptapod("train --arch encoder-only --text " + quoted(d.train) + " -o " + quoted(enc) +
                             " --preset tiny --layers 2 --vocab-size 120 --context 24 --batch-tokens 512 --steps 10"
                             " --warmup 5 --threads 2",
                         d.dir, log),
            0)
      << log;
  const std::string ft = d.dir.file("ft");
  ASSERT_EQ(run_heptapod("train --init " + quoted(enc + "/model.htp") + " --task classify --pooling cls --text " +
                             quoted(d.train) + " --labels " + quoted(d.train_labels) + " -o " + quoted(ft) +
                             " --context 24 --batch-tokens 512 --steps 10 --threads 2 --freeze embeddings,encoder",
                         d.dir, log),
            0)
      << log;
  EXPECT_HAS_SUBSTR(log, "with a new head");
  const SafetensorsFile pre = SafetensorsFile::read(enc + "/model.htp"), tuned = SafetensorsFile::read(ft + "/model.htp");
  const ModelConfig config = read_model_config(tuned);
  EXPECT_EQ(config.labels, 2);
  EXPECT_EQ(config.pooling, Pooling::Cls);
  EXPECT_EQ(tuned.find("encoder/mlm/transform/weight"), nullptr);
  ASSERT_NE(tuned.find("encoder/pooler/weight"), nullptr);
  // The encoder frozen, the head trained: the body's bytes are the pre-trained model's.
  const TensorEntry& before = pre.at("encoder/layers/1/ffn/fc2/weight");
  const TensorEntry& after = tuned.at("encoder/layers/1/ffn/fc2/weight");
  EXPECT_EQ(std::string(reinterpret_cast<const char*>(pre.data(before)), before.end - before.begin),
            std::string(reinterpret_cast<const char*>(tuned.data(after)), after.end - after.begin));
}

TEST(ClassificationTrain, SeveralClassesOnALineMakeItMultiLabel) {
  const LabelledData d;
  const std::string train_labels = write_labels(d.dir, d.train, "multi.labels", true);
  std::string log;
  const std::string out = d.dir.file("m");
  ASSERT_EQ(run_heptapod("train --arch encoder-only --task classify --text " + quoted(d.train) + " --labels " +
                             quoted(train_labels) + " --valid-text " + quoted(d.dev) + " --valid-labels " +
                             quoted(write_labels(d.dir, d.dev, "dev.multi.labels", true)) + " -o " + quoted(out) +
                             " --preset tiny --layers 1 --vocab-size 120 --context 24 --batch-tokens 512 --steps 10"
                             " --warmup 5 --valid-every 10 --threads 2",
                         d.dir, log),
            0)
      << log;
  EXPECT_HAS_SUBSTR(log, "(multi-label)");
  const ModelConfig config = read_model_config(SafetensorsFile::read(out + "/model.htp"));
  EXPECT_TRUE(config.multi_label);
  EXPECT_EQ(config.labels, 3);
}

TEST(ClassificationTrain, BadLabelFilesAreRefusedNamingFileAndLine) {
  const LabelledData d;
  std::string log;
  std::ofstream(d.dir.file("short.labels")) << "plain\nhundred\n";
  std::string args = classify_args(d, d.dir.file("x"), 1);
  const auto replace = [&](const std::string& from, const std::string& to) {
    std::string a = args;
    a.replace(a.find(from), from.size(), to);
    return a;
  };
  EXPECT_EQ(run_heptapod(replace(quoted(d.train_labels), quoted(d.dir.file("short.labels"))), d.dir, log), 1);
  EXPECT_HAS_SUBSTR(log, "short.labels has 2 lines");
  {
    std::ifstream in(d.dev_labels);
    std::ofstream out(d.dir.file("unknown.labels"));
    std::string line;
    for (int i = 0; std::getline(in, line); ++i) out << (i == 6 ? "ninety" : line) << "\n";
  }
  EXPECT_EQ(run_heptapod(replace(quoted(d.dev_labels), quoted(d.dir.file("unknown.labels"))), d.dir, log), 1);
  EXPECT_HAS_SUBSTR(log, "unknown.labels:7: unknown class \"ninety\"");
  EXPECT_EQ(run_heptapod(replace(" --valid-labels " + quoted(d.dev_labels), ""), d.dir, log), 1);
  EXPECT_HAS_SUBSTR(log, "--valid-labels");
  EXPECT_EQ(run_heptapod(replace("--task classify", "--task mlm"), d.dir, log), 1);
  EXPECT_HAS_SUBSTR(log, "--labels");
}

}  // namespace
}  // namespace heptapod
