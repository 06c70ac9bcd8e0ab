// Byte-level BPE training: pair counts over distinct pre-tokenized parts, a max-heap of pairs with stale
// entries skipped, and only the parts holding the merged pair recounted.
#include "heptapod/data/byte_bpe_training.h"

#include <algorithm>
#include <queue>
#include <unordered_map>
#include <unordered_set>

#include "heptapod/core/error.h"

namespace heptapod {

namespace {

using Pair = std::uint64_t;  // bpe_pair(left id, right id)

struct Part {
  std::vector<int> symbols;
  long long count = 0;
};

}  // namespace

ByteBpe train_byte_bpe(const std::vector<std::string>& texts, int size, const std::vector<std::string>& specials) {
  const int first_byte = static_cast<int>(specials.size());
  require(size >= first_byte + 256, "vocab: a byte-level BPE vocabulary needs at least " +
                                        std::to_string(first_byte + 256) + " pieces (" +
                                        std::to_string(first_byte) + " special tokens and the 256 bytes)");
  std::vector<std::string> pieces = specials;
  for (int b = 0; b < 256; ++b) pieces.push_back(byte_symbol(static_cast<unsigned char>(b)));
  // The distinct parts of the text and their counts.
  std::unordered_map<std::string, long long> counted;
  for (const std::string& text : texts)
    for (const auto& [begin, end] : gpt2_pretokenize(text)) ++counted[text.substr(begin, end - begin)];
  std::vector<Part> parts;
  parts.reserve(counted.size());
  for (const auto& [bytes, count] : counted) {
    Part p;
    p.count = count;
    for (unsigned char b : bytes) p.symbols.push_back(first_byte + b);
    parts.push_back(std::move(p));
  }
  // Deterministic whatever the hash order: parts sorted by their symbols.
  std::sort(parts.begin(), parts.end(), [](const Part& a, const Part& b) { return a.symbols < b.symbols; });

  std::unordered_map<Pair, long long> pair_counts;
  std::unordered_map<Pair, std::vector<int>> holders;  // parts that held the pair when it was counted
  auto add_pairs = [&](int part, long long sign) {
    const Part& p = parts[static_cast<std::size_t>(part)];
    for (std::size_t i = 0; i + 1 < p.symbols.size(); ++i) {
      const Pair key = bpe_pair(p.symbols[i], p.symbols[i + 1]);
      pair_counts[key] += sign * p.count;
      if (sign > 0) holders[key].push_back(part);
    }
  };
  for (int i = 0; i < static_cast<int>(parts.size()); ++i) add_pairs(i, 1);
  // Max-heap on (count, lower pair first); an entry whose count is no longer the pair's is stale.
  using Entry = std::pair<long long, Pair>;
  auto worse = [](const Entry& a, const Entry& b) { return a.first != b.first ? a.first < b.first : a.second > b.second; };
  std::priority_queue<Entry, std::vector<Entry>, decltype(worse)> heap(worse);
  for (const auto& [key, count] : pair_counts) heap.emplace(count, key);

  std::unordered_map<std::string, int> ids;
  for (int id = 0; id < static_cast<int>(pieces.size()); ++id) ids.emplace(pieces[static_cast<std::size_t>(id)], id);
  std::vector<std::string> merges;
  while (static_cast<int>(pieces.size()) < size && !heap.empty()) {
    const auto [count, key] = heap.top();
    heap.pop();
    const auto it = pair_counts.find(key);
    if (it == pair_counts.end() || it->second != count) continue;  // stale
    if (count < 2) break;
    const int left = static_cast<int>(key >> 32), right = static_cast<int>(key & 0xffffffffu);
    // Two pairs may spell one piece ("a bc", "ab c"): the second merge reuses it. None spells a special token.
    const std::string joined = pieces[static_cast<std::size_t>(left)] + pieces[static_cast<std::size_t>(right)];
    const auto known = ids.find(joined);
    if (known != ids.end() && known->second < first_byte) {
      pair_counts.erase(key);
      holders.erase(key);
      continue;
    }
    const int merged = known != ids.end() ? known->second : static_cast<int>(pieces.size());
    if (known == ids.end()) {
      pieces.push_back(joined);
      ids.emplace(joined, merged);
    }
    merges.push_back(pieces[static_cast<std::size_t>(left)] + " " + pieces[static_cast<std::size_t>(right)]);
    std::vector<int> touched = std::move(holders[key]);
    holders.erase(key);
    std::sort(touched.begin(), touched.end());
    touched.erase(std::unique(touched.begin(), touched.end()), touched.end());
    std::unordered_set<Pair> changed;
    for (const int part : touched) {
      Part& p = parts[static_cast<std::size_t>(part)];
      bool has = false;
      for (std::size_t i = 0; i + 1 < p.symbols.size() && !has; ++i) has = p.symbols[i] == left && p.symbols[i + 1] == right;
      if (!has) continue;
      for (std::size_t i = 0; i + 1 < p.symbols.size(); ++i) changed.insert(bpe_pair(p.symbols[i], p.symbols[i + 1]));
      add_pairs(part, -1);
      std::size_t w = 0;
      for (std::size_t i = 0; i < p.symbols.size(); ++i) {
        if (i + 1 < p.symbols.size() && p.symbols[i] == left && p.symbols[i + 1] == right) {
          p.symbols[w++] = merged;
          ++i;
        } else {
          p.symbols[w++] = p.symbols[i];
        }
      }
      p.symbols.resize(w);
      add_pairs(part, 1);
      for (std::size_t i = 0; i + 1 < p.symbols.size(); ++i) changed.insert(bpe_pair(p.symbols[i], p.symbols[i + 1]));
    }
    pair_counts.erase(key);
    for (const Pair c : changed) {
      const auto found = pair_counts.find(c);
      if (found == pair_counts.end()) continue;
      if (found->second <= 0) {
        pair_counts.erase(found);
        holders.erase(c);
      } else {
        heap.emplace(found->second, c);
      }
    }
  }
  return ByteBpe(std::move(pieces), merges, "trained byte-level BPE");
}

}  // namespace heptapod
