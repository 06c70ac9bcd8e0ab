// Corpus-level BLEU exactly as sacreBLEU 2.x computes it with its defaults (tokenizer 13a, n-grams up to 4,
// `exp` smoothing, mixed case), plus the few Python string rules that sacreBLEU's results depend on (UTF-8,
// str.split() whitespace, str.lower()), which chrF shares.
//
// Replicated from sacreBLEU's source (mjpost/sacrebleu, version kSacrebleuVersion: sacrebleu/metrics/bleu.py,
// metrics/base.py, metrics/helpers.py, tokenizers/tokenizer_13a.py, tokenizers/tokenizer_re.py, utils.py):
//   - A reference equal to "" is dropped for its segment (a segment with no reference left is an error).
//     Each remaining line is lowercased (if asked), right-stripped of whitespace, then tokenized.
//   - Tokens are the line split on Python's whitespace (str.split()). Per segment, hypothesis n-grams (1..4)
//     are clipped by the maximum count of that n-gram over the segment's references.
//   - Reference length per segment is that of the reference CLOSEST in length to the hypothesis, the shorter
//     one on a tie (not the shortest reference, not the average); the corpus ref_len is their sum.
//   - BP = exp(1 - ref_len / hyp_len) when hyp_len < ref_len (0 when hyp_len is 0), else 1.
//   - No matches at any order: score 0 with all precisions 0 (sacreBLEU issue #141), no smoothing.
//   - `exp` smoothing: walking n = 1..4, each order with zero matches gets precision 100 / (2^k * total_n),
//     k counting such orders so far (1 for the first one, 2 for the second, ...); orders with matches get
//     100 * matches / total. An order with total 0 stops the walk (its precision stays 0, so the score is 0
//     unless effective_order). Score = BP * exp(mean of log precisions), log 0 taken as -9999999999.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace heptapod::eval {

// The sacreBLEU release whose algorithms (BLEU, chrF, 13a) are replicated; goes into the signatures.
inline constexpr const char* kSacrebleuVersion = "2.0.0";

// ---- Text rules shared by BLEU and chrF -------------------------------------------------------------------

// Strict UTF-8 decoding as Python's "utf-8" codec does it (no overlongs, surrogates or code points past
// U+10FFFF). Returns false and the byte offset of the first bad sequence when `text` is not valid.
bool decode_utf8(std::string_view text, std::u32string& out, std::size_t* bad_offset = nullptr);
bool is_valid_utf8(std::string_view text, std::size_t* bad_offset = nullptr);
std::u32string to_u32(std::string_view utf8);  // throws Error on invalid UTF-8
// Throws Error("<where>: invalid UTF-8 at byte <1-based offset>") when `text` is not valid UTF-8.
void require_utf8(std::string_view text, const std::string& where);
std::string to_utf8(std::u32string_view text);

// Python's str.isspace() (the separators of str.split() and str.strip()): \t \n \v \f \r, \x1c-\x1f, space,
// U+0085, U+00A0, U+1680, U+2000-U+200A, U+2028, U+2029, U+202F, U+205F, U+3000.
bool is_python_space(char32_t c);
// str.split() with no argument: the maximal runs of non-whitespace, as views into `text` (valid UTF-8).
std::vector<std::string_view> python_split(std::string_view text);
// str.rstrip() with no argument.
std::string_view python_rstrip(std::string_view text);
// str.lower(): Python 3.11's (Unicode 14.0) full lowercase mapping, including U+0130 -> "i\u0307". The one
// rule not reproduced is the context-dependent final sigma (a word-final capital sigma gives U+03C3 here
// where Python gives U+03C2).
std::u32string python_lower(std::u32string_view text);
std::string python_lower(std::string_view utf8);

// ---- Tokenizers -------------------------------------------------------------------------------------------

// sacreBLEU's "13a" tokenizer (mteval-v13a.pl as sacreBLEU implements it), on a UTF-8 line:
//   1. remove "<skipped>"; remove "-\n"; "\n" -> " "; then &quot; &amp; &lt; &gt; -> " & < > in that order
//      (so "&amp;lt;" becomes "<");
//   2. pad with one space each side, then four regex passes, each left to right without overlaps:
//      a. each of { | } ~ [ \ ] ^ _ ` space ! " # $ % & ( ) * + : ; < = > ? @ / -> " c "
//      b. ([^0-9])([.,])  -> "\1 \2 "   (period/comma split unless preceded by an ASCII digit)
//      c. ([.,])([^0-9])  -> " \1 \2"   (period/comma split unless followed by an ASCII digit)
//      d. ([0-9])(-)      -> "\1 \2 "   (dash split when preceded by a digit)
//   3. split on whitespace (Python's, Unicode-aware) and join with single spaces.
// Every regex class above is ASCII, so the passes run on bytes with results identical to Python's code
// point matching. The `&` fast path of sacreBLEU only skips work, it changes no output.
std::string tokenize_13a(std::string_view line);

// ---- BLEU -------------------------------------------------------------------------------------------------

enum class BleuSmoothing { kNone, kFloor, kAddK, kExp };

struct BleuOptions {
  bool lowercase = false;
  std::string tokenize = "13a";  // "13a" or "none"
  BleuSmoothing smooth = BleuSmoothing::kExp;
  std::optional<double> smooth_value;  // floor: 0.1, add-k: 1 when not given
  int max_ngram_order = 4;
  bool effective_order = false;  // sacreBLEU's sentence-level fix; off for corpus BLEU
};

// Corpus sufficient statistics: per order n (index n-1) clipped matches and hypothesis n-grams.
struct BleuStats {
  std::vector<std::int64_t> counts, totals;
  std::int64_t hyp_len = 0, ref_len = 0;
};

struct BleuScore {
  double score = 0;                // 0..100
  std::vector<double> precisions;  // 0..100 per order, after smoothing
  double bp = 1, ratio = 0;        // ratio = hyp_len / ref_len (0 when ref_len is 0)
  std::int64_t hyp_len = 0, ref_len = 0;
  std::vector<std::int64_t> counts, totals;
  std::string signature;  // e.g. nrefs:1|case:mixed|eff:no|tok:13a|smooth:exp|version:2.0.0

  // sacreBLEU's line: "BLEU = 48.53 82.4/50.0/45.5/37.5 (BP = 0.943 ratio = 0.944 hyp_len = 17 ref_len = 18)"
  std::string format(int width = 2) const;
};

// Parses "exp", "none", "floor", "add-k"; throws Error otherwise.
BleuSmoothing parse_bleu_smoothing(const std::string& name);

// The line as the options prescribe it: lowercased if asked, right-stripped, tokenized.
std::string bleu_preprocess(std::string_view line, const BleuOptions& options);

// The statistics of a corpus. `references` holds reference streams, each as long as `hypotheses`
// (sacreBLEU's layout: references[k][i] is the k-th reference of segment i). Throws Error on unequal lengths,
// invalid UTF-8, or a segment whose references are all empty.
BleuStats bleu_statistics(const std::vector<std::string>& hypotheses,
                          const std::vector<std::vector<std::string>>& references, const BleuOptions& options);

// BLEU from statistics (sacreBLEU's BLEU.compute_bleu); the signature is left empty.
BleuScore compute_bleu(const BleuStats& stats, const BleuOptions& options);

// The signature sacreBLEU prints; nrefs is a number or "var".
std::string bleu_signature(const BleuOptions& options, const std::string& nrefs);

// sacreBLEU's nrefs: the number of non-empty references per segment when it is the same for every segment,
// else "var". An empty corpus counts the reference streams.
std::string count_references(const std::vector<std::vector<std::string>>& references, std::size_t segments);

// Everything at once: statistics, score and signature.
BleuScore corpus_bleu(const std::vector<std::string>& hypotheses,
                      const std::vector<std::vector<std::string>>& references, const BleuOptions& options = {});

}  // namespace heptapod::eval
