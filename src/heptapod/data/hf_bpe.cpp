// tokenizer.json's BPE model: reading it (every damage named by its field) and Hugging Face's merge order
// (a queue of candidate pairs by rank, then position; a candidate whose symbols have changed is skipped).
#include "heptapod/data/hf_bpe.h"

#include <cstdio>
#include <queue>

#include "heptapod/data/byte_bpe.h"
#include "heptapod/data/utf8.h"

namespace heptapod::hf {

namespace {

// A merge rule "a b" or ["a", "b"] as its two pieces.
std::pair<std::string, std::string> merge_pieces(const JsonNode& rule) {
  const nlohmann::json& j = rule.json();
  if (j.is_string()) {
    const std::string text = j.get<std::string>();
    const std::size_t space = text.find(' ');
    if (space == std::string::npos || text.find(' ', space + 1) != std::string::npos)
      rule.fail("\"" + text + "\" is not two pieces separated by one space");
    return {text.substr(0, space), text.substr(space + 1)};
  }
  if (j.is_array() && j.size() == 2 && j[0].is_string() && j[1].is_string())
    return {j[0].get<std::string>(), j[1].get<std::string>()};
  rule.fail("a merge must be \"a b\" or [\"a\", \"b\"]");
}

}  // namespace

Bpe::Bpe(const JsonNode& model) {
  if (model.has("dropout") && !(model.json()["dropout"].is_number() && model.json()["dropout"].get<double>() == 0.0))
    model.fail("dropout " + model.json()["dropout"].dump() + " is not supported (BPE dropout samples the tokenization; "
               "it must be null or 0)");
  const JsonNode vocab = model.child("vocab");
  if (!vocab.json().is_object()) vocab.fail("must be an object of piece -> id");
  std::unordered_map<int, const std::string*> by_id;
  vocab_.reserve(vocab.json().size());
  for (const auto& [piece, id] : vocab.json().items()) {
    if (!id.is_number_integer() || id.get<long long>() < 0 || id.get<long long>() >= (1ll << 31))
      vocab.fail("the id of \"" + piece + "\" is not an integer from 0 to 2^31-1");
    const auto [it, fresh] = vocab_.emplace(piece, id.get<int>());
    const auto [other, unique] = by_id.emplace(it->second, &it->first);
    if (!unique)
      vocab.fail("id " + std::to_string(it->second) + " is given to two pieces, \"" + *other->second + "\" and \"" +
                 piece + "\"");
  }
  if (vocab_.empty()) vocab.fail("the vocabulary has no pieces");
  prefix_ = model.text("continuing_subword_prefix", "");
  suffix_ = model.text("end_of_word_suffix", "");
  fuse_unk_ = model.boolean("fuse_unk", false);
  byte_fallback_ = model.boolean("byte_fallback", false);
  ignore_merges_ = model.boolean("ignore_merges", false);
  if (model.has("unk_token")) {
    const std::string unk = model.text("unk_token");
    unk_id_ = id_of(unk);
    if (unk_id_ < 0) model.fail("unk_token \"" + unk + "\" is not in the vocabulary");
  }
  for (int b = 0; b < 256; ++b) {
    char name[8];
    std::snprintf(name, sizeof name, "<0x%02X>", b);
    byte_ids_[b] = id_of(name);
  }
  if (!model.has("merges")) return;
  const std::vector<JsonNode> rules = model.items("merges");
  merges_.reserve(rules.size());
  int rank = 0;
  for (const JsonNode& rule : rules) {
    if (rule.json().is_string() && rule.json().get<std::string>().rfind("#version", 0) == 0) continue;
    const auto [left, right] = merge_pieces(rule);
    const std::string merged = left + right.substr(std::min(prefix_.size(), right.size()));
    int ids[3];
    const std::string* pieces[3] = {&left, &right, &merged};
    for (int i = 0; i < 3; ++i)
      if ((ids[i] = id_of(*pieces[i])) < 0) rule.fail("names \"" + *pieces[i] + "\", which is not in the vocabulary");
    merges_[bpe_pair(ids[0], ids[1])] = Merge{rank++, ids[2]};
  }
}

int Bpe::id_of(const std::string& piece) const {
  const auto it = vocab_.find(piece);
  return it == vocab_.end() ? -1 : it->second;
}

std::vector<int> Bpe::symbols(std::string_view word) const {
  std::vector<int> out;
  int unk = -1;  // an unknown stretch not yet written (fused ones are one)
  for (std::size_t i = 0; i < word.size();) {
    const std::size_t n = utf8_sequence_length(word, i);
    std::string s(word.substr(i, n));
    if (i > 0) s = prefix_ + s;
    i += n;
    if (i == word.size()) s += suffix_;
    if (const int id = id_of(s); id >= 0) {
      if (unk >= 0) out.push_back(unk);
      unk = -1;
      out.push_back(id);
      continue;
    }
    if (byte_fallback_) {
      bool all = true;
      for (unsigned char b : s) all = all && byte_ids_[b] >= 0;
      if (all) {  // (an unknown stretch before stays pending, as in Hugging Face's loop)
        for (unsigned char b : s) out.push_back(byte_ids_[b]);
        continue;
      }
    }
    if (unk_id_ < 0) continue;  // no unknown piece: the character is dropped
    if (unk >= 0 && !fuse_unk_) out.push_back(unk);
    unk = unk_id_;
  }
  if (unk >= 0) out.push_back(unk);
  return out;
}

void Bpe::tokenize(std::string_view word, std::vector<int>& out) const {
  if (ignore_merges_) {
    if (const int id = id_of(std::string(word)); id >= 0) {
      out.push_back(id);
      return;
    }
  }
  std::vector<int> symbol = symbols(word);
  const int n = static_cast<int>(symbol.size());
  std::vector<int> prev(static_cast<std::size_t>(n)), next(static_cast<std::size_t>(n));
  std::vector<bool> alive(static_cast<std::size_t>(n), true);
  for (int i = 0; i < n; ++i) {
    prev[i] = i - 1;
    next[i] = i + 1 < n ? i + 1 : -1;
  }
  struct Candidate {
    int rank, pos, merged;
    bool operator>(const Candidate& o) const { return rank != o.rank ? rank > o.rank : pos > o.pos; }
  };
  std::priority_queue<Candidate, std::vector<Candidate>, std::greater<>> queue;  // lowest rank, then leftmost
  const auto consider = [&](int pos) {
    if (pos < 0 || next[pos] < 0) return;
    const auto it = merges_.find(bpe_pair(symbol[pos], symbol[next[pos]]));
    if (it != merges_.end()) queue.push({it->second.rank, pos, it->second.merged});
  };
  for (int i = 0; i + 1 < n; ++i) consider(i);
  while (!queue.empty()) {
    const Candidate top = queue.top();
    queue.pop();
    if (!alive[top.pos] || next[top.pos] < 0) continue;
    const int right = next[top.pos];
    const auto it = merges_.find(bpe_pair(symbol[top.pos], symbol[right]));
    if (it == merges_.end() || it->second.merged != top.merged) continue;  // the pair has changed since
    symbol[top.pos] = top.merged;
    alive[right] = false;
    next[top.pos] = next[right];
    if (next[right] >= 0) prev[next[right]] = top.pos;
    consider(prev[top.pos]);
    consider(top.pos);
  }
  for (int i = 0; i < n; ++i)
    if (alive[i]) out.push_back(symbol[i]);
}

}  // namespace heptapod::hf
