// The classification task: examples and labels from line-aligned files, length-sorted shuffled batches,
// accuracy and macro-F1.
#include "heptapod/train/classification_task.h"

#include <algorithm>
#include <map>
#include <set>
#include <sstream>

#include "heptapod/core/error.h"
#include "heptapod/core/progress.h"
#include "heptapod/core/random.h"
#include "heptapod/data/encoder_input.h"
#include "heptapod/data/text_file.h"
#include "heptapod/eval/classification_metrics.h"
#include "heptapod/train/text_vocabulary.h"

namespace heptapod {

namespace {

// The space-separated class names of a labels line.
std::vector<std::string> split_labels(const std::string& line) {
  std::istringstream in(line);
  std::vector<std::string> names;
  for (std::string name; in >> name;) names.push_back(name);
  return names;
}

}  // namespace

ClassificationTask::ClassificationTask(const TrainConfig& config) : config_(config) {}

void ClassificationTask::prepare(int rank) {
  const TrainConfig& c = config_;
  if (c.init) vocabs_.labels = c.init->vocabularies.labels;  // a classifier fine-tuned further keeps its classes
  // The mask piece: the same vocabulary serves masked pre-training.
  vocabs_.source = text_vocabulary(c, rank, c.init ? &c.init->vocabularies.source : nullptr, DocumentSplit::Lines,
                                   "lines", true);
  if (vocabs_.labels.empty()) {  // the classes: the training labels' distinct names, sorted
    const std::vector<std::string> lines = read_lines(c.train_labels);
    std::set<std::string> names;
    for (const std::string& line : lines)
      for (const std::string& name : split_labels(line)) names.insert(name);
    require(!names.empty(), c.train_labels + ": no labels (one class name per line; several make it multi-label)");
    vocabs_.labels = LabelNames(std::vector<std::string>(names.begin(), names.end()));
  }
  train_ = read_examples(c.train_text, c.train_labels);
  require(!train_.tokens.empty(), c.train_text + " holds no examples");
}

ClassificationTask::Examples ClassificationTask::read_examples(const std::string& text_path,
                                                               const std::string& labels_path) const {
  const std::vector<std::string> texts = read_lines(text_path), labels = read_lines(labels_path);
  require(texts.size() == labels.size(), labels_path + " has " + std::to_string(labels.size()) + " lines, " +
                                             text_path + " " + std::to_string(texts.size()) +
                                             ": a labels file has the classes of each text line on its line");
  Examples e;
  // The start and end tokens: Heptapod's, or a converted model's own ([CLS] and [SEP], <s> and </s>).
  const ModelConfig& m = config_.model;
  const bool own_ids = !vocabs_.source.heptapod_ids();
  const int bos = own_ids ? m.bos_id : kBosId, eos = own_ids ? m.eos_id : kEosId;
  for (std::size_t i = 0; i < texts.size(); ++i) {
    EncoderInput input;
    if (config_.sentence_pairs) {
      const auto [first, second] = split_pair(texts[i], text_path + ":" + std::to_string(i + 1));
      input = layout_pair(vocabs_.source.encode(first), vocabs_.source.encode(second), config_.context, bos, eos,
                          m.double_separator, m.token_types >= 2);
    } else {
      input = layout_text(vocabs_.source.encode(texts[i]), config_.context, bos, eos);
    }
    std::vector<int> classes = parse_classes(labels[i], vocabs_.labels, labels_path + ":" + std::to_string(i + 1));
    e.tokens.push_back(std::move(input.tokens));
    e.types.push_back(std::move(input.types));
    e.classes.push_back(std::move(classes));
  }
  return e;
}

void ClassificationTask::prepare_validation() {
  if (config_.valid_text.empty()) return;
  dev_ = read_examples(config_.valid_text, config_.valid_labels);
  log_line("dev data: " + std::to_string(dev_.tokens.size()) + " examples");
}

ModelConfig ClassificationTask::resolve_model(const ModelConfig& requested) const {
  ModelConfig m = requested;
  m.src_vocab_size = vocabs_.source.size();
  if (vocabs_.source.heptapod_ids()) {
    m.pad_id = kPadId;
    m.bos_id = kBosId;
    m.eos_id = kEosId;
  }
  m.mlm_head = false;
  m.mask_id = -1;
  m.labels = vocabs_.labels.size();
  bool multi = false;
  for (const auto& classes : train_.classes) multi = multi || classes.size() > 1;
  m.multi_label = multi || requested.multi_label;
  m.pooling = config_.pooling;
  m.pooler = false;  // a pre-trained encoder's pooler becomes this classifier's when its pooling is cls
  m.sentence_pairs = config_.sentence_pairs;
  return m;
}

std::string ClassificationTask::data_summary() const {
  long long tokens = 0;
  for (const auto& t : train_.tokens) tokens += static_cast<long long>(t.size());
  bool multi = false;
  for (const auto& classes : train_.classes) multi = multi || classes.size() > 1;
  return std::to_string(train_.tokens.size()) + " examples, " + std::to_string(tokens) + " tokens, " +
         std::to_string(vocabs_.labels.size()) + " classes" + (multi ? " (multi-label)" : "");
}

std::vector<std::vector<std::size_t>> ClassificationTask::plan(std::uint64_t epoch) const {
  // A shuffled order, sorted by length window by window, cut under the padded-token budget; the batches
  // shuffled again: each from (seed, epoch), as the other tasks' plans.
  const std::size_t n = train_.tokens.size();
  std::vector<std::size_t> order(n);
  for (std::size_t i = 0; i < n; ++i) order[i] = i;
  Rng rng(mix64(config_.seed) ^ mix64(epoch + 0xc1a55));
  for (std::size_t i = n; i > 1; --i) std::swap(order[i - 1], order[rng.below(i)]);
  const std::size_t window = static_cast<std::size_t>(std::max(config_.window, 1));
  std::vector<std::vector<std::size_t>> batches;
  for (std::size_t w0 = 0; w0 < n; w0 += window) {
    const auto begin = order.begin() + static_cast<long>(w0), end = order.begin() + static_cast<long>(std::min(n, w0 + window));
    std::stable_sort(begin, end, [&](std::size_t a, std::size_t b) { return train_.tokens[a].size() < train_.tokens[b].size(); });
    std::vector<std::size_t> batch;
    std::size_t longest = 0;
    for (auto it = begin; it != end; ++it) {
      const std::size_t length = train_.tokens[*it].size();
      if (!batch.empty() && std::max(longest, length) * (batch.size() + 1) > static_cast<std::size_t>(config_.batch_tokens)) {
        batches.push_back(std::move(batch));
        batch.clear();
        longest = 0;
      }
      batch.push_back(*it);
      longest = std::max(longest, length);
    }
    if (!batch.empty()) batches.push_back(std::move(batch));
  }
  for (std::size_t i = batches.size(); i > 1; --i) std::swap(batches[i - 1], batches[rng.below(i)]);
  return batches;
}

Batch ClassificationTask::make_batch(const Examples& from, const std::vector<std::size_t>& which,
                                     const ModelConfig& model) const {
  Batch b;
  b.B = static_cast<int>(which.size());
  for (std::size_t i : which) b.S = std::max(b.S, static_cast<int>(from.tokens[i].size()));
  b.src.assign(static_cast<std::size_t>(b.B) * b.S, model.pad_id);
  b.tgt_len.assign(static_cast<std::size_t>(b.B), 0);
  b.labels.assign(static_cast<std::size_t>(b.B) * (model.multi_label ? model.labels : 1), 0);
  for (int k = 0; k < b.B; ++k) {
    const std::size_t i = which[static_cast<std::size_t>(k)];
    std::copy(from.tokens[i].begin(), from.tokens[i].end(), b.src.begin() + static_cast<long>(k) * b.S);
    if (config_.sentence_pairs) {  // (B, S)
      b.src_types.resize(b.src.size(), 0);
      std::copy(from.types[i].begin(), from.types[i].end(), b.src_types.begin() + static_cast<long>(k) * b.S);
    }
    b.src_len.push_back(static_cast<int>(from.tokens[i].size()));
    if (model.multi_label) {
      for (int c : from.classes[i]) b.labels[static_cast<std::size_t>(k) * model.labels + c] = 1;
    } else {
      require(from.classes[i].size() == 1, "train: an example with several classes for a single-label model");
      b.labels[static_cast<std::size_t>(k)] = from.classes[i][0];
    }
  }
  return b;
}

bool ClassificationTask::next_batch(TrainState& state, int max_epochs, const ModelConfig& model, Batch& batch) {
  return next_batch_of_epochs(state, max_epochs, [&](const TrainState& at) {
    if (planned_epoch_ != static_cast<std::int64_t>(at.epoch)) {
      batches_ = plan(at.epoch);
      planned_epoch_ = static_cast<std::int64_t>(at.epoch);
    }
    if (at.batch_in_epoch >= batches_.size()) return false;
    batch = make_batch(train_, batches_[at.batch_in_epoch], model);
    return true;
  });
}

ValidationReport ClassificationTask::validate(Transformer<float>& model, Arena& arena) {
  const ModelConfig& c = model.config();
  const int L = c.labels;
  ClassificationTally tally(L);
  double nll = 0;
  const std::size_t n = dev_.tokens.size();
  for (std::size_t first = 0; first < n; first += 64) {
    std::vector<std::size_t> which;
    for (std::size_t i = first; i < std::min(n, first + 64); ++i) which.push_back(i);
    const Batch batch = make_batch(dev_, which, c);
    arena.reset();
    nll += model.evaluate(batch, 0.0f, arena).nll;
    arena.reset();
    const float* logits = model.logits(batch, arena);  // (B, L)
    for (std::size_t k = 0; k < which.size(); ++k) {
      const float* row = logits + k * static_cast<std::size_t>(L);
      std::vector<int> said;
      if (c.multi_label) {
        for (int l = 0; l < L; ++l)
          if (row[l] > 0.0f) said.push_back(l);
      } else {
        said.push_back(static_cast<int>(std::max_element(row, row + L) - row));
      }
      tally.add(dev_.classes[which[k]], said);
    }
  }
  const double accuracy = tally.accuracy(), f1 = tally.macro_f1();
  ValidationReport report;
  report.criterion = 1.0 - (config_.valid_metric == TrainConfig::ValidMetric::MacroF1 ? f1 : accuracy);
  report.metrics = {{"accuracy", accuracy}, {"macro_f1", f1}, {"ce", nll / static_cast<double>(n)},
                    {"examples", static_cast<long long>(n)}};
  char summary[128];
  std::snprintf(summary, sizeof summary, "accuracy %.4f macro-F1 %.4f ce %.4f", accuracy, f1, nll / static_cast<double>(n));
  report.summary = summary;
  return report;
}

}  // namespace heptapod
