// Reading and applying tokenizer.json's pre-tokenizers. Every cut goes through one function: the text as
// segments that are delimiters or not, grouped by the delimiter behaviour, as Hugging Face's
// NormalizedString::split groups them.
#include "heptapod/data/hf_pre_tokenizers.h"

#include <algorithm>
#include <functional>

#include "heptapod/data/byte_bpe.h"
#include "heptapod/data/unicode_text.h"
#include "heptapod/data/utf8.h"

namespace heptapod::hf {

namespace {

constexpr const char* kSupported = "Split, ByteLevel, Metaspace, Digits, Whitespace, WhitespaceSplit, Sequence";

// A stretch of the text [begin, end) that is a delimiter (is_match) or not.
struct Segment {
  std::size_t begin, end;
  bool is_match;
};

// The ranges the pieces take, by the behaviour.
std::vector<Match> group(const std::vector<Segment>& segments, SplitBehavior behavior) {
  std::vector<Match> out;
  bool previous_match = false;
  switch (behavior) {
    case SplitBehavior::Isolated:
      for (const Segment& s : segments) out.emplace_back(s.begin, s.end);
      break;
    case SplitBehavior::Removed:
      for (const Segment& s : segments)
        if (!s.is_match) out.emplace_back(s.begin, s.end);
      break;
    case SplitBehavior::Contiguous:  // runs of delimiters, and runs of the rest, each one piece
      for (const Segment& s : segments) {
        if (s.is_match == previous_match && !out.empty()) out.back().second = s.end;
        else out.emplace_back(s.begin, s.end);
        previous_match = s.is_match;
      }
      break;
    case SplitBehavior::MergedWithPrevious:  // a delimiter ends the piece before it
      for (const Segment& s : segments) {
        if (s.is_match && !previous_match && !out.empty()) out.back().second = s.end;
        else out.emplace_back(s.begin, s.end);
        previous_match = s.is_match;
      }
      break;
    case SplitBehavior::MergedWithNext:  // a delimiter begins the piece after it
      for (auto s = segments.rbegin(); s != segments.rend(); ++s) {
        if (s->is_match && !previous_match && !out.empty()) out.back().first = s->begin;
        else out.emplace_back(s->begin, s->end);
        previous_match = s->is_match;
      }
      std::reverse(out.begin(), out.end());
      break;
  }
  return out;
}

// The segments around the matches.
std::vector<Segment> segments_of(const std::vector<Match>& matches, std::size_t length, bool invert) {
  std::vector<Segment> out;
  std::size_t done = 0;
  for (const auto& [begin, end] : matches) {
    if (begin > done) out.push_back({done, begin, invert});
    out.push_back({begin, end, !invert});
    done = end;
  }
  if (done < length) out.push_back({done, length, invert});
  return out;
}

// Every character for which `delimiter` holds is a match of its own.
std::vector<Match> character_matches(std::string_view text, const std::function<bool(char32_t)>& delimiter) {
  std::vector<Match> out;
  for (std::size_t i = 0; i < text.size();) {
    const std::size_t n = utf8_sequence_length(text, i);
    if (delimiter(utf8_code_point(text, i, n))) out.emplace_back(i, i + n);
    i += n;
  }
  return out;
}

// The pieces a piece is cut into; only the first can begin the input.
void cut(const Piece& piece, const std::vector<Match>& ranges, std::vector<Piece>& out) {
  for (const auto& [begin, end] : ranges)
    if (end > begin) out.push_back({piece.text.substr(begin, end - begin), -1, piece.at_start && begin == 0});
}

void split_by(const Piece& piece, const std::vector<Match>& matches, SplitBehavior behavior, bool invert,
              std::vector<Piece>& out) {
  cut(piece, group(segments_of(matches, piece.text.size(), invert), behavior), out);
}

// Rust's regex \w+|[^\w\s]+: runs of word characters, and runs of the other non-space characters.
std::vector<Match> word_runs(std::string_view text) {
  std::vector<Match> out;
  int previous = 0;  // the class of the last character: 0 space, 1 word, 2 other
  for (std::size_t i = 0; i < text.size();) {
    const std::size_t n = utf8_sequence_length(text, i);
    const char32_t c = utf8_code_point(text, i, n);
    const int cls = unicode::is_word_character(c) ? 1 : unicode::is_white_space(c) ? 0 : 2;
    if (cls != 0 && cls == previous) out.back().second = i + n;
    else if (cls != 0) out.emplace_back(i, i + n);
    previous = cls;
    i += n;
  }
  return out;
}

std::string byte_symbols_of(std::string_view bytes) {
  std::string out;
  out.reserve(bytes.size() * 2);
  for (unsigned char b : bytes) out += byte_symbol(b);
  return out;
}

void apply(const ByteLevel& b, Piece piece, std::vector<Piece>& out) {
  if (b.add_prefix_space && piece.text.rfind(' ', 0) != 0) piece.text = " " + piece.text;
  std::vector<Piece> parts;
  if (b.use_regex) cut(piece, gpt2_pretokenize(piece.text), parts);
  else parts.push_back(std::move(piece));
  for (Piece& part : parts) {
    part.text = byte_symbols_of(part.text);
    out.push_back(std::move(part));
  }
}

void apply(const Metaspace& m, Piece piece, std::vector<Piece>& out) {
  std::string text;
  for (const char c : piece.text) {
    if (c == ' ') text += m.replacement;
    else text += c;
  }
  const bool prepend = m.prepend == PrependScheme::Always || (m.prepend == PrependScheme::First && piece.at_start);
  if (prepend && text.rfind(m.replacement, 0) != 0) text.insert(0, m.replacement);
  piece.text = std::move(text);
  if (!m.split) {
    out.push_back(std::move(piece));
    return;
  }
  const char32_t mark = decode_utf8(m.replacement)[0];
  split_by(piece, character_matches(piece.text, [&](char32_t c) { return c == mark; }), SplitBehavior::MergedWithNext,
           false, out);
}

void apply(const PreTokenizer& step, Piece piece, std::vector<Piece>& out) {
  if (const auto* s = std::get_if<Split>(&step)) {
    split_by(piece, s->pattern.find_all(piece.text), s->behavior, s->invert, out);
  } else if (const auto* b = std::get_if<ByteLevel>(&step)) {
    apply(*b, std::move(piece), out);
  } else if (const auto* m = std::get_if<Metaspace>(&step)) {
    apply(*m, std::move(piece), out);
  } else if (const auto* d = std::get_if<Digits>(&step)) {
    split_by(piece, character_matches(piece.text, unicode::is_number),
             d->individual_digits ? SplitBehavior::Isolated : SplitBehavior::Contiguous, false, out);
  } else if (std::holds_alternative<Whitespace>(step)) {
    split_by(piece, word_runs(piece.text), SplitBehavior::Removed, true, out);
  } else {
    split_by(piece, character_matches(piece.text, unicode::is_white_space), SplitBehavior::Removed, false, out);
  }
}

SplitBehavior read_behavior(const JsonNode& node) {
  const std::string b = node.text("behavior");
  if (b == "Removed") return SplitBehavior::Removed;
  if (b == "Isolated") return SplitBehavior::Isolated;
  if (b == "MergedWithPrevious") return SplitBehavior::MergedWithPrevious;
  if (b == "MergedWithNext") return SplitBehavior::MergedWithNext;
  if (b == "Contiguous") return SplitBehavior::Contiguous;
  node.fail("behavior \"" + b + "\" is not one of Removed, Isolated, MergedWithPrevious, MergedWithNext, Contiguous");
}

void read_into(const JsonNode& node, std::vector<PreTokenizer>& out) {
  const std::string type = node.type();
  if (type == "Sequence") {
    for (const JsonNode& step : node.items("pretokenizers")) read_into(step, out);
  } else if (type == "Split") {
    out.push_back(Split{read_pattern(node), read_behavior(node), node.boolean("invert", false)});
  } else if (type == "ByteLevel") {
    out.push_back(ByteLevel{node.boolean("add_prefix_space", true), node.boolean("use_regex", true)});
  } else if (type == "Metaspace") {
    out.push_back(read_metaspace(node));
  } else if (type == "Digits") {
    out.push_back(Digits{node.boolean("individual_digits", false)});
  } else if (type == "Whitespace") {
    out.push_back(Whitespace{});
  } else if (type == "WhitespaceSplit") {
    out.push_back(WhitespaceSplit{});
  } else {
    node.unsupported("pre_tokenizer", type, kSupported);
  }
}

}  // namespace

Metaspace read_metaspace(const JsonNode& node) {
  Metaspace m;
  m.replacement = node.text("replacement", m.replacement);
  if (find_invalid_utf8(m.replacement) != std::string::npos || count_code_points(m.replacement) != 1)
    node.fail("replacement \"" + m.replacement + "\" must be one character");
  const std::string scheme = node.text("prepend_scheme", "");
  if (scheme == "always") m.prepend = PrependScheme::Always;
  else if (scheme == "first") m.prepend = PrependScheme::First;
  else if (scheme == "never") m.prepend = PrependScheme::Never;
  else if (!scheme.empty()) node.fail("prepend_scheme \"" + scheme + "\" is not one of always, first, never");
  if (!node.boolean("add_prefix_space", true)) {  // the older spelling of "never"
    if (!scheme.empty() && m.prepend != PrependScheme::Never)
      node.fail("add_prefix_space false contradicts prepend_scheme \"" + scheme + "\"");
    m.prepend = PrependScheme::Never;
  }
  m.split = node.boolean("split", true);
  return m;
}

std::vector<PreTokenizer> read_pre_tokenizers(const JsonNode& tokenizer_json) {
  std::vector<PreTokenizer> steps;
  if (tokenizer_json.has("pre_tokenizer")) read_into(tokenizer_json.child("pre_tokenizer"), steps);
  return steps;
}

std::vector<Piece> pre_tokenize(const std::vector<PreTokenizer>& steps, std::vector<Piece> pieces) {
  for (const PreTokenizer& step : steps) {
    std::vector<Piece> next;
    next.reserve(pieces.size());
    for (Piece& piece : pieces) {
      if (piece.id >= 0) next.push_back(std::move(piece));
      else apply(step, std::move(piece), next);
    }
    pieces = std::move(next);
  }
  return pieces;
}

}  // namespace heptapod::hf
