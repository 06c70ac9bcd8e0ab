// Accuracy and macro-F1 of a classifier's predictions.
#include "heptapod/eval/classification_metrics.h"

#include <sstream>

#include "heptapod/core/error.h"

namespace heptapod {

std::vector<int> parse_classes(const std::string& line, const LabelNames& names, const std::string& where) {
  std::vector<int> ids;
  std::istringstream words(line);
  for (std::string name; words >> name;) {
    const int id = names.id_of(name);
    require(id >= 0, where + ": unknown class \"" + name + "\" (the classes are the training labels')");
    ids.push_back(id);
  }
  require(!ids.empty(), where + ": no class on the line");
  return ids;
}

double macro_f1(const std::vector<long long>& tp, const std::vector<long long>& fp, const std::vector<long long>& fn) {
  double sum = 0;
  int classes = 0;
  for (std::size_t k = 0; k < tp.size(); ++k) {
    const long long denominator = 2 * tp[k] + fp[k] + fn[k];
    if (denominator == 0) continue;
    sum += 2.0 * static_cast<double>(tp[k]) / static_cast<double>(denominator);
    ++classes;
  }
  return classes > 0 ? sum / classes : 0.0;
}

ClassificationTally::ClassificationTally(int classes)
    : tp_(static_cast<std::size_t>(classes)), fp_(tp_), fn_(tp_) {}

void ClassificationTally::add(const std::vector<int>& truth, const std::vector<int>& predicted) {
  const std::size_t L = tp_.size();
  std::vector<char> is_true(L, 0), is_said(L, 0);  // (classes)
  for (int c : truth) {
    require(c >= 0 && static_cast<std::size_t>(c) < L, "classification tally: class id out of range");
    is_true[static_cast<std::size_t>(c)] = 1;
  }
  for (int c : predicted) {
    require(c >= 0 && static_cast<std::size_t>(c) < L, "classification tally: class id out of range");
    is_said[static_cast<std::size_t>(c)] = 1;
  }
  right_ += is_true == is_said ? 1 : 0;
  ++examples_;
  for (std::size_t k = 0; k < L; ++k) {
    tp_[k] += is_true[k] && is_said[k];
    fp_[k] += !is_true[k] && is_said[k];
    fn_[k] += is_true[k] && !is_said[k];
  }
}

}  // namespace heptapod
