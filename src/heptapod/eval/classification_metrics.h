// A classifier's figures against the true classes, as training's validation and `heptapod score` report them:
// accuracy (a text counts as right when its predicted class set is its true set: the one class, or exactly
// the true classes of a multi-label text) and macro-F1 (the mean over classes of each class's F1).
#pragma once

#include <string>
#include <vector>

#include "heptapod/data/model_vocab.h"

namespace heptapod {

// The class ids of a labels line (class names separated by spaces) among `names`; an unknown name or an
// empty line is an Error naming `where` (the file and line).
std::vector<int> parse_classes(const std::string& line, const LabelNames& names, const std::string& where);

// Macro-F1: the mean over classes of 2 tp / (2 tp + fp + fn), over the classes with tp + fp + fn > 0 (0 when
// none). tp, fp, fn: (classes).
double macro_f1(const std::vector<long long>& tp, const std::vector<long long>& fp, const std::vector<long long>& fn);

class ClassificationTally {
 public:
  explicit ClassificationTally(int classes);
  // One text: its true classes and the predicted ones (class ids in [0, classes), each at most once).
  void add(const std::vector<int>& truth, const std::vector<int>& predicted);
  long long examples() const { return examples_; }
  double accuracy() const { return examples_ > 0 ? static_cast<double>(right_) / static_cast<double>(examples_) : 0.0; }
  double macro_f1() const { return heptapod::macro_f1(tp_, fp_, fn_); }

 private:
  std::vector<long long> tp_, fp_, fn_;  // (classes) each
  long long right_ = 0, examples_ = 0;
};

}  // namespace heptapod
