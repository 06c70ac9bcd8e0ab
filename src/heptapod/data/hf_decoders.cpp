// Reading and applying tokenizer.json's decoders.
#include "heptapod/data/hf_decoders.h"

#include "heptapod/data/byte_bpe.h"
#include "heptapod/data/utf8.h"

namespace heptapod::hf {

namespace {

constexpr const char* kSupported = "ByteLevel, Metaspace, Replace, ByteFallback, Fuse, Strip, BPEDecoder, WordPiece, Sequence";

void read_into(const JsonNode& node, std::vector<Decoder>& out) {
  const std::string type = node.type();
  if (type == "Sequence") {
    for (const JsonNode& step : node.items("decoders")) read_into(step, out);
  } else if (type == "ByteLevel") {
    out.push_back(DecodeByteLevel{});
  } else if (type == "Metaspace") {
    out.push_back(read_metaspace(node));
  } else if (type == "Replace") {
    out.push_back(read_replace(node));
  } else if (type == "ByteFallback") {
    out.push_back(DecodeByteFallback{});
  } else if (type == "Fuse") {
    out.push_back(DecodeFuse{});
  } else if (type == "Strip") {
    const std::string content = node.text("content");
    if (find_invalid_utf8(content) != std::string::npos || count_code_points(content) != 1)
      node.fail("content \"" + content + "\" must be one character");
    out.push_back(DecodeStrip{decode_utf8(content)[0], node.integer("start"), node.integer("stop")});
  } else if (type == "BPEDecoder") {
    out.push_back(DecodeBpe{node.text("suffix", "</w>")});
  } else if (type == "WordPiece") {
    out.push_back(DecodeWordPiece{node.text("prefix", "##"), node.boolean("cleanup", true)});
  } else {
    node.unsupported("decoder", type, kSupported);
  }
}

std::string joined(const std::vector<std::string>& pieces, const std::string& separator) {
  std::string out;
  for (std::size_t i = 0; i < pieces.size(); ++i) out += (i ? separator : "") + pieces[i];
  return out;
}

// Every occurrence of `from` in `text` by `to`.
std::string replaced(std::string text, const std::string& from, const std::string& to) {
  for (std::size_t at = 0; !from.empty() && (at = text.find(from, at)) != std::string::npos; at += to.size())
    text.replace(at, from.size(), to);
  return text;
}

// The bytes GPT-2's byte symbols in `piece` stand for; a piece of other characters (an added token's text)
// stays as it is.
std::string symbol_bytes(const std::string& piece) {
  std::string bytes;
  for (const char32_t c : decode_utf8(piece)) {
    const int b = symbol_byte(c);
    if (b < 0) return piece;
    bytes += static_cast<char>(b);
  }
  return bytes;
}

std::vector<std::string> byte_level(const std::vector<std::string>& pieces) {
  std::string bytes;
  for (const std::string& piece : pieces) bytes += symbol_bytes(piece);
  return {replace_invalid_utf8(bytes)};
}

std::vector<std::string> metaspace(const Metaspace& m, const std::vector<std::string>& pieces) {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < pieces.size(); ++i)
    out.push_back(replaced(pieces[i], m.replacement, i == 0 && m.prepend != PrependScheme::Never ? "" : " "));
  return out;
}

// The byte of a "<0xAB>" piece, -1 for other pieces.
int fallback_byte(const std::string& piece) {
  if (piece.size() != 6 || piece.compare(0, 3, "<0x") != 0 || piece[5] != '>') return -1;
  int value = 0;
  for (const char c : piece.substr(3, 2)) {
    const int digit = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
    if (digit < 0) return -1;
    value = value * 16 + digit;
  }
  return value;
}

std::vector<std::string> byte_fallback(const std::vector<std::string>& pieces) {
  std::vector<std::string> out;
  std::string run;  // the bytes of the current run of byte pieces
  const auto flush = [&] {
    if (run.empty()) return;
    if (find_invalid_utf8(run) == std::string::npos) out.push_back(run);
    else out.insert(out.end(), run.size(), "\xef\xbf\xbd");  // one U+FFFD per byte
    run.clear();
  };
  for (const std::string& piece : pieces) {
    const int b = fallback_byte(piece);
    if (b >= 0) {
      run += static_cast<char>(b);
      continue;
    }
    flush();
    out.push_back(piece);
  }
  flush();
  return out;
}

std::vector<std::string> strip(const DecodeStrip& s, const std::vector<std::string>& pieces) {
  std::vector<std::string> out;
  for (const std::string& piece : pieces) {
    const std::vector<char32_t> chars = decode_utf8(piece);
    std::size_t begin = 0, end = chars.size();
    while (begin < static_cast<std::size_t>(s.start) && begin < end && chars[begin] == s.content) ++begin;
    for (int i = 0; i < s.stop && end > begin && chars[end - 1] == s.content; ++i) --end;
    std::string text;
    for (std::size_t i = begin; i < end; ++i) append_utf8(chars[i], text);
    out.push_back(std::move(text));
  }
  return out;
}

std::string wordpiece_cleanup(std::string text) {
  static const std::pair<const char*, const char*> kRules[] = {
      {" .", "."},     {" ?", "?"},     {" !", "!"},         {" ,", ","},     {" ' ", "'"},    {" n't", "n't"},
      {" 'm", "'m"},   {" do not", " don't"}, {" 's", "'s"}, {" 've", "'ve"}, {" 're", "'re"}};
  for (const auto& [from, to] : kRules) text = replaced(std::move(text), from, to);
  return text;
}

std::vector<std::string> apply(const Decoder& step, std::vector<std::string> pieces) {
  if (std::holds_alternative<DecodeByteLevel>(step)) return byte_level(pieces);
  if (const auto* m = std::get_if<Metaspace>(&step)) return metaspace(*m, pieces);
  if (const auto* r = std::get_if<Replace>(&step)) {
    for (std::string& piece : pieces) piece = replace_all(*r, piece);
    return pieces;
  }
  if (std::holds_alternative<DecodeByteFallback>(step)) return byte_fallback(pieces);
  if (std::holds_alternative<DecodeFuse>(step)) return {joined(pieces, "")};
  if (const auto* s = std::get_if<DecodeStrip>(&step)) return strip(*s, pieces);
  if (const auto* b = std::get_if<DecodeBpe>(&step)) {
    for (std::size_t i = 0; i < pieces.size(); ++i)
      pieces[i] = replaced(pieces[i], b->suffix, i + 1 == pieces.size() ? "" : " ");
    return pieces;
  }
  const auto& w = std::get<DecodeWordPiece>(step);
  for (std::size_t i = 0; i < pieces.size(); ++i) {
    if (i > 0) pieces[i] = pieces[i].rfind(w.prefix, 0) == 0 ? pieces[i].substr(w.prefix.size()) : " " + pieces[i];
    if (w.cleanup) pieces[i] = wordpiece_cleanup(std::move(pieces[i]));
  }
  return pieces;
}

}  // namespace

std::vector<Decoder> read_decoders(const JsonNode& tokenizer_json) {
  std::vector<Decoder> steps;
  if (tokenizer_json.has("decoder")) read_into(tokenizer_json.child("decoder"), steps);
  return steps;
}

std::string decode(const std::vector<Decoder>& steps, std::vector<std::string> pieces) {
  if (steps.empty()) return joined(pieces, " ");
  for (const Decoder& step : steps) pieces = apply(step, std::move(pieces));
  return joined(pieces, "");
}

std::string token_bytes(const std::vector<Decoder>& steps, std::string piece) {
  for (const Decoder& step : steps) {
    if (std::holds_alternative<DecodeByteLevel>(step)) {
      piece = symbol_bytes(piece);
    } else if (const auto* m = std::get_if<Metaspace>(&step)) {
      piece = replaced(std::move(piece), m->replacement, " ");
    } else if (const auto* r = std::get_if<Replace>(&step)) {
      piece = replace_all(*r, piece);
    } else if (std::holds_alternative<DecodeByteFallback>(step)) {
      const int b = fallback_byte(piece);
      if (b >= 0) piece = std::string(1, static_cast<char>(b));
    } else if (const auto* b = std::get_if<DecodeBpe>(&step)) {
      piece = replaced(std::move(piece), b->suffix, " ");
    } else if (const auto* w = std::get_if<DecodeWordPiece>(&step)) {
      piece = piece.rfind(w->prefix, 0) == 0 ? piece.substr(w->prefix.size()) : " " + piece;
    }  // Fuse joins pieces and Strip tidies a text's edges: neither changes one piece's bytes
  }
  return piece;
}

}  // namespace heptapod::hf
