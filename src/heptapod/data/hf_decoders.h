// The decoders of a tokenizer.json ("decoder"): ByteLevel, Metaspace, Replace, ByteFallback, Fuse, Strip,
// BPEDecoder, WordPiece and Sequence (read as its steps in order); CTC is refused by name. Decoding turns
// the pieces of the ids (an added token's piece is its content) into text step by step, each step mapping the
// list of strings to a new one, as Hugging Face's decode_chain does; the last list is joined (without a
// decoder: joined with spaces).
#pragma once

#include <string>
#include <variant>
#include <vector>

#include "heptapod/data/hf_json.h"
#include "heptapod/data/hf_normalizers.h"
#include "heptapod/data/hf_pre_tokenizers.h"

namespace heptapod::hf {

struct DecodeByteLevel {};     // GPT-2's byte symbols back to bytes, all pieces as one text (U+FFFD where not UTF-8)
struct DecodeByteFallback {};  // runs of "<0xAB>" pieces as the text of their bytes (U+FFFD per byte if not UTF-8)
struct DecodeFuse {};          // all pieces as one
struct DecodeStrip {           // up to `start` copies of `content` off each piece's start, `stop` off its end
  char32_t content = U' ';
  int start = 0, stop = 0;
};
struct DecodeBpe {  // the end-of-word suffix as a space (nothing after the last piece)
  std::string suffix = "</w>";
};
struct DecodeWordPiece {  // a continuation's prefix dropped, a space before the other pieces but the first
  std::string prefix = "##";
  bool cleanup = true;  // " ." -> ".", " n't" -> "n't" and the like
};
// Metaspace: the replacement as a space (dropped in the first piece unless the scheme is never).
using Decoder = std::variant<DecodeByteLevel, Metaspace, Replace, DecodeByteFallback, DecodeFuse, DecodeStrip, DecodeBpe,
                             DecodeWordPiece>;

// The "decoder" node (absent or null: none) as its steps in order.
std::vector<Decoder> read_decoders(const JsonNode& tokenizer_json);

// The text of the pieces.
std::string decode(const std::vector<Decoder>& steps, std::vector<std::string> pieces);

// The raw bytes one piece adds to a text: each step on the piece alone, as it treats a piece inside a text
// (Metaspace's replacement and BPEDecoder's suffix become a space, WordPiece's continuation loses its prefix
// and another piece gains a space before it), with ByteLevel's and ByteFallback's bytes left as they are,
// valid UTF-8 or not, and without the cleanups of a whole text: Strip, Metaspace's dropped first space and
// WordPiece's cleanup. Without steps, the piece itself.
std::string token_bytes(const std::vector<Decoder>& steps, std::string piece);

}  // namespace heptapod::hf
