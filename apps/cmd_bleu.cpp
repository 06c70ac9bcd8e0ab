// `heptapod bleu REF [REF...] [-i HYP]`: corpus BLEU and chrF of a hypothesis file (or standard input)
// against one or more reference files, printed as sacreBLEU prints them (score line, then signature line),
// or as JSON. Lines are split on "\n" and right-stripped of whitespace, as sacreBLEU's command line does.
#include <cstdio>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "commands.h"
#include "heptapod/core/error.h"
#include "heptapod/eval/bleu.h"
#include "heptapod/eval/chrf.h"
#include "heptapod/io/atomic_file.h"

namespace heptapod::app {

namespace {

struct BleuCommandOptions {
  std::vector<std::string> references;
  std::string input;  // empty: standard input
  std::string metrics = "bleu,chrf";
  bool json = false;
  int width = 2;
  eval::BleuOptions bleu;
  std::string smooth = "exp";
  double smooth_value = -1;  // < 0: the method's default
  eval::ChrfOptions chrf;
};

// The lines of a text: split on '\n' (a final '\n' ends the last line, it does not start an empty one),
// each right-stripped of Python whitespace. Invalid UTF-8 is an error naming the file and line (FILE:LINE, as
// every text input).
std::vector<std::string> split_lines(const std::string& text, const std::string& name) {
  std::vector<std::string> lines;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    const std::string_view line(text.data() + start, end - start);
    eval::require_utf8(line, name + ":" + std::to_string(lines.size() + 1));
    lines.emplace_back(eval::python_rstrip(line));
    start = end + 1;
  }
  return lines;
}

std::vector<std::string> split_metrics(const std::string& list) {
  std::vector<std::string> out;
  std::stringstream ss(list);
  std::string item;
  while (std::getline(ss, item, ',')) {
    require(item == "bleu" || item == "chrf", "--metrics: unknown metric '" + item + "' (expected bleu or chrf)");
    out.push_back(item);
  }
  require(!out.empty(), "--metrics needs at least one of bleu, chrf");
  return out;
}

// sacreBLEU's signature string as JSON fields.
void add_signature_fields(nlohmann::ordered_json& j, const std::string& signature) {
  std::stringstream ss(signature);
  std::string pair;
  while (std::getline(ss, pair, '|')) {
    const std::size_t colon = pair.find(':');
    j[pair.substr(0, colon)] = pair.substr(colon + 1);
  }
}

int run_bleu(BleuCommandOptions o) {
  const std::vector<std::string> metrics = split_metrics(o.metrics);
  o.bleu.smooth = eval::parse_bleu_smoothing(o.smooth);
  if (o.smooth_value >= 0) o.bleu.smooth_value = o.smooth_value;

  const std::string hyp_name = o.input.empty() ? "standard input" : o.input;
  std::string hyp_text;
  if (o.input.empty()) {
    char buf[1 << 16];
    std::size_t got;
    while ((got = std::fread(buf, 1, sizeof buf, stdin)) > 0) hyp_text.append(buf, got);
    require(!std::ferror(stdin), "cannot read standard input");
  } else {
    hyp_text = read_file(o.input);
  }
  const std::vector<std::string> hypotheses = split_lines(hyp_text, hyp_name);
  std::vector<std::vector<std::string>> references;
  for (const std::string& path : o.references) {
    references.push_back(split_lines(read_file(path), path));
    const std::size_t n = references.back().size();
    require(n == hypotheses.size(), "line counts differ: " + hyp_name + " has " + std::to_string(hypotheses.size()) +
                                        " lines, " + path + " has " + std::to_string(n));
  }

  nlohmann::ordered_json results = nlohmann::ordered_json::array();
  for (const std::string& metric : metrics) {
    if (metric == "bleu") {
      const eval::BleuScore s = eval::corpus_bleu(hypotheses, references, o.bleu);
      if (!o.json) {
        std::printf("%s\n%s\n", s.format(o.width).c_str(), s.signature.c_str());
        continue;
      }
      nlohmann::ordered_json j;
      j["name"] = "BLEU";
      j["score"] = s.score;
      j["signature"] = s.signature;
      const std::string line = s.format(o.width);  // "BLEU = <score> <verbose part>"
      j["verbose_score"] = line.substr(line.find(' ', 7) + 1);
      j["precisions"] = s.precisions;
      j["bp"] = s.bp;
      j["ratio"] = s.ratio;
      j["hyp_len"] = s.hyp_len;
      j["ref_len"] = s.ref_len;
      j["counts"] = s.counts;
      j["totals"] = s.totals;
      add_signature_fields(j, s.signature);
      results.push_back(j);
    } else {
      const eval::ChrfScore s = eval::corpus_chrf(hypotheses, references, o.chrf);
      if (!o.json) {
        std::printf("%s\n%s\n", s.format(o.width).c_str(), s.signature.c_str());
        continue;
      }
      nlohmann::ordered_json j;
      j["name"] = s.name;
      j["score"] = s.score;
      j["signature"] = s.signature;
      j["stats"] = s.stats;
      add_signature_fields(j, s.signature);
      results.push_back(j);
    }
  }
  if (o.json) std::printf("%s\n", results.dump(1).c_str());
  return 0;
}

}  // namespace

Runner add_bleu_command(CLI::App& root) {
  auto* cmd = root.add_subcommand(
      "bleu", "Corpus BLEU and chrF of a hypothesis file (or standard input) against reference files, as sacreBLEU");
  auto o = std::make_shared<BleuCommandOptions>();
  cmd->add_option("references", o->references, "Reference files, one segment per line")->required();
  cmd->add_option("-i,--input", o->input, "Hypothesis file (default: standard input)");
  cmd->add_option("-m,--metrics", o->metrics, "Comma-separated metrics: bleu, chrf (default: bleu,chrf)");
  cmd->add_flag("--json", o->json, "Print the results as JSON (full-precision numbers)");
  cmd->add_option("-w,--width", o->width, "Decimals of the printed scores (default: 2)")->check(CLI::Range(0, 12));
  cmd->add_flag("--lowercase", o->bleu.lowercase, "BLEU: lowercase the data (case:lc)");
  cmd->add_option("--tokenize", o->bleu.tokenize, "BLEU: tokenizer, 13a (default) or none")
      ->check(CLI::IsMember({"13a", "none"}));
  cmd->add_option("--smooth-method", o->smooth, "BLEU: smoothing, exp (default), none, floor or add-k")
      ->check(CLI::IsMember({"exp", "none", "floor", "add-k"}));
  cmd->add_option("--smooth-value", o->smooth_value, "BLEU: value for floor (default 0.1) or add-k (default 1)")
      ->check(CLI::NonNegativeNumber & kFinite);
  cmd->add_option("--max-ngram-order", o->bleu.max_ngram_order, "BLEU: largest n-gram order (default 4)")
      ->check(CLI::Range(1, 16));
  cmd->add_option("--chrf-char-order", o->chrf.char_order, "chrF: character n-gram order (default 6)")
      ->check(CLI::Range(0, 32));
  cmd->add_option("--chrf-word-order", o->chrf.word_order, "chrF: word n-gram order (default 0; 2 is chrF++)")
      ->check(CLI::Range(0, 16));
  cmd->add_option("--chrf-beta", o->chrf.beta, "chrF: recall weight beta (default 2)")->check(CLI::Range(0, 100));
  cmd->add_flag("--chrf-whitespace", o->chrf.whitespace, "chrF: keep whitespace in character n-grams");
  cmd->add_flag("--chrf-lowercase", o->chrf.lowercase, "chrF: lowercase the data");
  cmd->add_flag("--chrf-eps-smoothing", o->chrf.eps_smoothing,
                "chrF: epsilon smoothing (chrF++.py) instead of effective-order averaging");
  return [o] { return run_bleu(*o); };
}

}  // namespace heptapod::app
