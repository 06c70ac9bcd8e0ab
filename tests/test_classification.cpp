// Encoder-only classifiers, `train --task classify`: macro-F1 against hand-computed values; training from
// scratch learns a labelling of the numbers text well above the majority class, with accuracy and macro-F1
// in its validation records and the class names in the model file; an encoder pre-trained by masked
// language modelling is fine-tuned with a new head; a resumed run equals the uninterrupted one; several
// classes on a line make it multi-label; bad label files are refused naming file and line. The tally's
// accuracy (exact class sets) and macro-F1 by hand; `heptapod score --labels` gives each line's log-probability
// of its class and the input's accuracy and macro-F1 from `heptapod classify`'s own probabilities. Sentence
// pairs (--pairs): trained and validated as pairs, recorded in the model file, and scored by the command with
// the validation's figures.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <fstream>
#include <map>
#include <sstream>
#include <nlohmann/json.hpp>

#include "heptapod/data/model_vocab.h"
#include "heptapod/eval/classification_metrics.h"
#include "heptapod/io/model_file.h"
#include "heptapod/train/classification_task.h"
#include "test_process.h"
#include "vocab_model.h"

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

TEST(Classification, TheTallyCountsExactClassSetsAndPerClassF1) {
  ClassificationTally tally(3);
  tally.add({0}, {0});        // right
  tally.add({1}, {0});        // wrong: class 0 fp, class 1 fn
  tally.add({0, 2}, {0, 2});  // right (multi-label: the same set)
  tally.add({0, 2}, {0});     // wrong: one class missed (class 2 fn)
  EXPECT_EQ(tally.examples(), 4);
  EXPECT_DOUBLE_EQ(tally.accuracy(), 0.5);
  // Class 0: tp 3 fp 1 fn 0; class 1: tp 0 fp 0 fn 1; class 2: tp 1 fp 0 fn 1.
  EXPECT_NEAR(tally.macro_f1(), macro_f1({3, 0, 1}, {1, 0, 0}, {0, 1, 1}), 1e-12);
  EXPECT_NEAR(tally.macro_f1(), (6.0 / 7.0 + 0.0 + 2.0 / 3.0) / 3, 1e-12);
  EXPECT_THROW(tally.add({3}, {0}), Error);
}

TEST(Classification, ScoreGivesEachLinesClassLogProbabilityAndTheFigures) {
  TempDir dir;
  const std::string model = test::make_encoder(dir.file("classifier.htp"), true);
  const std::vector<std::string> texts = {"veinte", "mil", "uno dos", "", "cien mil"};
  const std::vector<std::string> truth = {"number", "word", "number", "word", "number"};
  std::string text, labels;
  for (std::size_t i = 0; i < texts.size(); ++i) {
    text += texts[i] + "\n";
    labels += truth[i] + "\n";
  }
  const std::string input = dir.write("in.txt", text), label_file = dir.write("in.labels", labels);
  std::string log;
  ASSERT_EQ(run_heptapod("classify -m " + quoted(model) + " -i " + quoted(input) + " --json --top-k 2 -o " +
                             quoted(dir.file("c.jsonl")),
                         dir, log),
            0)
      << log;
  ASSERT_EQ(run_heptapod("score -m " + quoted(model) + " -i " + quoted(input) + " --labels " + quoted(label_file) +
                             " -o " + quoted(dir.file("s.txt")) + " --window 2 --summary " + quoted(dir.file("s.json")),
                         dir, log),
            0)
      << log;
  // The reference: classify's probabilities; accuracy and macro-F1 counted here.
  std::istringstream predictions(test::slurp(dir.file("c.jsonl"))), scores(test::slurp(dir.file("s.txt")));
  std::map<std::string, std::array<int, 3>> counts;  // class -> tp, fp, fn
  int right = 0;
  double log_prob = 0;
  for (std::size_t i = 0; i < texts.size(); ++i) {
    std::string p, s;
    ASSERT_TRUE(std::getline(predictions, p) && std::getline(scores, s)) << "line " << i;
    const auto j = nlohmann::json::parse(p);
    const std::string said = j["labels"][0];
    double probability = 0;
    for (const auto& top : j["top"])
      if (top["label"] == truth[i]) probability = top["probability"];
    EXPECT_NEAR(std::stod(s), std::log(probability), 1e-4) << "line " << i;
    log_prob += std::log(probability);
    right += said == truth[i] ? 1 : 0;
    if (said == truth[i]) {
      ++counts[said][0];
    } else {
      ++counts[said][1];
      ++counts[truth[i]][2];
    }
  }
  double f1 = 0;
  for (const auto& [name, c] : counts) f1 += 2.0 * c[0] / (2.0 * c[0] + c[1] + c[2]);
  f1 /= static_cast<double>(counts.size());
  const auto summary = nlohmann::json::parse(test::slurp(dir.file("s.json")));
  EXPECT_EQ(summary["examples"], texts.size());
  EXPECT_NEAR(summary["accuracy"].get<double>(), right / static_cast<double>(texts.size()), 1e-12);
  EXPECT_NEAR(summary["macro_f1"].get<double>(), f1, 1e-12);
  EXPECT_NEAR(summary["ce"].get<double>(), -log_prob / static_cast<double>(texts.size()), 1e-4);
  // A class the model does not know, and a labels file that ends early, are refused naming the file.
  const std::string unknown = dir.write("bad.labels", "number\nword\nsome-class\nword\nnumber\n");
  EXPECT_EQ(run_heptapod("score -m " + quoted(model) + " -i " + quoted(input) + " --labels " + quoted(unknown), dir, log), 1);
  EXPECT_HAS_SUBSTR(log, unknown + ":3: unknown class \"some-class\"");
  const std::string short_file = dir.write("short.labels", "number\nword\n");
  EXPECT_EQ(run_heptapod("score -m " + quoted(model) + " -i " + quoted(input) + " --labels " + quoted(short_file), dir, log), 1);
  EXPECT_HAS_SUBSTR(log, "line counts differ");
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
  // Within 4 lines: validation runs the training forward, classify the packed inference one, whose sums round
  // apart, so a line whose two classes are nearly even may flip (3 of 200 on an Intel Xeon under avx2).
  EXPECT_NEAR(static_cast<double>(right) / n, valid.back()["accuracy"].get<double>(), 4.0 / n);
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

// Pairs of the numbers text's lines: a line and itself ("same") or and the next line ("other"), alternately.
std::pair<std::string, std::string> write_pairs(const TempDir& dir, const std::string& text, const std::string& name) {
  std::ifstream in(text);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  std::ofstream pairs(dir.file(name + ".txt")), labels(dir.file(name + ".labels"));
  for (std::size_t i = 0; i + 1 < lines.size(); ++i) {
    const bool same = i % 2 == 0;
    pairs << lines[i] << "\t" << lines[same ? i : i + 1] << "\n";
    labels << (same ? "same" : "other") << "\n";
  }
  return {dir.file(name + ".txt"), dir.file(name + ".labels")};
}

TEST(ClassificationTrain, SentencePairsTrainAndScoreAsTheValidationCountsThem) {
  TempDir dir;
  const auto [train, train_labels] = write_pairs(dir, test::data_file("numbers.train.en"), "train");
  const auto [dev, dev_labels] = write_pairs(dir, test::data_file("numbers.dev.en"), "dev");
  std::string log;
  const std::string out = dir.file("run");
  ASSERT_EQ(run_heptapod("train --arch encoder-only --task classify --pairs --text " + quoted(train) + " --labels " +
                             quoted(train_labels) + " --valid-text " + quoted(dev) + " --valid-labels " +
                             quoted(dev_labels) + " -o " + quoted(out) +
                             " --preset tiny --layers 2 --vocab-size 120 --context 40 --batch-tokens 1024 --warmup 10"
                             " --threads 2 --log-every 10 --valid-every 20 --steps 20",
                         dir, log),
            0)
      << log;
  const auto valid = test::metrics_records(out, "valid");
  ASSERT_EQ(valid.size(), 1u);
  ASSERT_EQ(run_heptapod("score -m " + quoted(out + "/model.htp") + " -i " + quoted(dev) + " --labels " +
                             quoted(dev_labels) + " --pairs -o " + quoted(dir.file("s.txt")) + " --summary " +
                             quoted(dir.file("s.json")),
                         dir, log),
            0)
      << log;
  const auto summary = nlohmann::json::parse(test::slurp(dir.file("s.json")));
  EXPECT_NEAR(summary["accuracy"].get<double>(), valid[0]["accuracy"].get<double>(), 1e-12);
  EXPECT_NEAR(summary["macro_f1"].get<double>(), valid[0]["macro_f1"].get<double>(), 1e-12);
  EXPECT_NEAR(summary["ce"].get<double>(), valid[0]["ce"].get<double>(), 1e-4);
  // The model file records that it classifies pairs: without --pairs the command reads them alike.
  EXPECT_TRUE(read_model_config(SafetensorsFile::read(out + "/model.htp")).sentence_pairs);
  ASSERT_EQ(run_heptapod("score -m " + quoted(out + "/model.htp") + " -i " + quoted(dev) + " --labels " +
                             quoted(dev_labels) + " --summary " + quoted(dir.file("t.json")),
                         dir, log),
            0)
      << log;
  EXPECT_EQ(nlohmann::json::parse(test::slurp(dir.file("t.json"))), summary);
  // A training line without a tab is refused naming file and line.
  const std::string bad = dir.write("bad.txt", "one\tone\ntwo three\n"), bad_labels = dir.write("bad.labels", "same\nother\n");
  EXPECT_EQ(run_heptapod("train --arch encoder-only --task classify --pairs --text " + quoted(bad) + " --labels " +
                             quoted(bad_labels) + " -o " + quoted(dir.file("bad")) + " --preset tiny --steps 1",
                         dir, log),
            1);
  EXPECT_HAS_SUBSTR(log, bad + ":2: a sentence pair needs a tab");
}

}  // namespace
}  // namespace heptapod
