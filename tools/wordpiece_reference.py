#!/usr/bin/python3
# wordpiece_reference.py -- an independent reference of BERT's tokenizer (basic tokenizer + WordPiece), for the
# tests of Heptapod's WordPiece tokenizer. Python 3 standard library only (unicodedata); written from the
# published algorithm, with the semantics of Google's original BERT tokenization.py (FullTokenizer), not from
# Heptapod's code and without transformers/tokenizers.
#
#   /usr/bin/python3 tools/wordpiece_reference.py --vocab vocab.txt [--cased] < text > ids
#   /usr/bin/python3 tools/wordpiece_reference.py --self-test
#
# Reads stdin as UTF-8 (invalid UTF-8 is an error) and prints, for each input line (lines end at "\n" only; a
# "\r" before it is whitespace), that line's ids separated by single spaces, without [CLS]/[SEP]. An empty line
# (or one that tokenizes to nothing) gives an empty line. --pieces prints the pieces instead of the ids.
# vocab.txt: one piece per line, the line number (from 0) is the id; each line is stripped of surrounding
# whitespace as Google's load_vocab does; a piece listed twice keeps the later id.
#
# What it does, in order (uncased is the default, as for bert-base-uncased; --cased skips lower-casing and
# accent stripping, as do_lower_case=False does):
#   1. clean: drop U+0000, U+FFFD and control characters (category Cc or Cf, except "\t", "\n", "\r");
#      whitespace (" ", "\t", "\n", "\r" or category Zs) becomes " ".
#   2. put a space on both sides of every CJK ideograph: U+4E00-9FFF, 3400-4DBF, 20000-2A6DF, 2A700-2B73F,
#      2B740-2B81F, 2B820-2CEAF, F900-FAFF, 2F800-2FA1F (not kana, not Hangul).
#   3. split on whitespace with Python's str.split() (as Google's whitespace_tokenize does). After step 1
#      this also splits at U+2028 and U+2029 (categories Zl/Zp: neither "whitespace" nor control for step 1,
#      but str.split() splits there); every other character str.split() splits at is Cc or Zs.
#   4. uncased: str.lower(), then NFD, then drop the category Mn characters (so "Café" -> "cafe"; Hangul
#      syllables decompose into conjoining jamo, which are kept).
#   5. split off every punctuation character as a token of its own: ASCII 33-47, 58-64, 91-96, 123-126
#      (so "$", "+", "<", "^", "`", "|", "~" count) or any category starting with "P". Other symbols (S*, e.g.
#      "€", "©", "∑", emoji) are not split off and stay inside their word.
#   6. WordPiece on each resulting word: greedy longest match first from the left, later pieces looked up with
#      a "##" prefix; a word longer than --max-word-chars code points (default 100, as Hugging Face's
#      BertTokenizer and tokenizers use; Google's WordpieceTokenizer default is 200), or one where some
#      position has no match, becomes a single [UNK] as a whole.
#
# What it does not cover:
#   - Hugging Face's added/special-token handling: "[CLS]", "[SEP]", "[MASK]" etc. in the text are split as
#     "[", "cls", "]" here (HF keeps them whole as never_split / added tokens); no [CLS]/[SEP] are added.
#   - the NFC normalization that transformers' BasicTokenizer applies after step 2 (Google's has none): it
#     matters for --cased text that is not already NFC (e.g. "e" + U+0301) and for the CJK compatibility
#     ideographs U+F900-FAFF, which NFC maps to unified ideographs.
#   - HF's wider control-character class (transformers: every category starting with "C", i.e. also Co, Cn,
#     Cs; here only Cc and Cf), its strip_accents option independent of lower-casing, and tokenize_chinese_chars
#     being switchable.
#   - truncation, padding, pairs of segments, offsets.
import argparse
import sys
import unicodedata

UNK = "[UNK]"

CJK_RANGES = (
    (0x4E00, 0x9FFF),
    (0x3400, 0x4DBF),
    (0x20000, 0x2A6DF),
    (0x2A700, 0x2B73F),
    (0x2B740, 0x2B81F),
    (0x2B820, 0x2CEAF),
    (0xF900, 0xFAFF),
    (0x2F800, 0x2FA1F),
)


def is_whitespace(ch):
    return ch in " \t\n\r" or unicodedata.category(ch) == "Zs"


def is_control(ch):
    if ch in "\t\n\r":
        return False
    return unicodedata.category(ch) in ("Cc", "Cf")


def is_punctuation(ch):
    cp = ord(ch)
    if 33 <= cp <= 47 or 58 <= cp <= 64 or 91 <= cp <= 96 or 123 <= cp <= 126:
        return True
    return unicodedata.category(ch).startswith("P")


def is_cjk(ch):
    cp = ord(ch)
    return any(lo <= cp <= hi for lo, hi in CJK_RANGES)


def clean(text):
    out = []
    for ch in text:
        if ch == "\u0000" or ch == "\ufffd" or is_control(ch):
            continue
        out.append(" " if is_whitespace(ch) else ch)
    return "".join(out)


def pad_cjk(text):
    return "".join(" " + ch + " " if is_cjk(ch) else ch for ch in text)


def strip_accents(word):
    return "".join(ch for ch in unicodedata.normalize("NFD", word) if unicodedata.category(ch) != "Mn")


def split_punctuation(word):
    pieces = []
    current = []
    for ch in word:
        if is_punctuation(ch):
            if current:
                pieces.append("".join(current))
                current = []
            pieces.append(ch)
        else:
            current.append(ch)
    if current:
        pieces.append("".join(current))
    return pieces


def basic_tokenize(text, lower):
    text = pad_cjk(clean(text))
    words = []
    for word in text.split():
        if lower:
            word = strip_accents(word.lower())
        words.extend(split_punctuation(word))
    # Google re-splits " ".join(words) on whitespace; lower() + NFD cannot create whitespace, so this only
    # drops words that became empty (a word made only of Mn characters).
    return [w for w in words if w]


def wordpiece(word, vocab, max_chars):
    if len(word) > max_chars:
        return [UNK]
    pieces = []
    start = 0
    while start < len(word):
        end = len(word)
        match = None
        while start < end:
            piece = word[start:end] if start == 0 else "##" + word[start:end]
            if piece in vocab:
                match = piece
                break
            end -= 1
        if match is None:
            return [UNK]
        pieces.append(match)
        start = end
    return pieces


def tokenize(text, vocab, lower=True, max_chars=100):
    pieces = []
    for word in basic_tokenize(text, lower):
        pieces.extend(wordpiece(word, vocab, max_chars))
    return pieces


def load_vocab(path):
    vocab = {}
    with open(path, encoding="utf-8", newline="\n") as f:
        for index, line in enumerate(f):
            vocab[line.strip()] = index
    if UNK not in vocab:
        sys.exit("wordpiece_reference.py: %s has no %s" % (path, UNK))
    return vocab


SELF_TEST_VOCAB = [
    "[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]",        # 0-4
    "un", "##aff", "##able", "cafe", "Café",             # 5-9
    "hello", "world", ",", "!", ".",                     # 10-14
    "'", "s", "don", "t", "中",                           # 15-19
    "文", "a", "##a", "Hello", "##s",                     # 20-24
    "run", "##ning", "$", "5", "##0",                    # 25-29
    "[", "cls", "]", "ひらかな", "ひらがな",               # 30-34
]

# (text, cased, expected pieces). Each worked out by hand from the steps in the header.
SELF_TEST_CASES = [
    # WordPiece: greedy longest match, "##" continuations.
    ("unaffable", False, ["un", "##aff", "##able"]),
    ("runnings", False, ["run", "##ning", "##s"]),
    # lower() then NFD and dropping Mn: "Café" -> "café" -> "cafe" + U+0301 -> "cafe".
    ("Café", False, ["cafe"]),
    # the same word given decomposed (e + U+0301) ends the same.
    ("CAFE\u0301", False, ["cafe"]),
    # punctuation split off; ASCII "'" is punctuation, so "don't" -> don ' t.
    ("Hello, world! don't", False, ["hello", ",", "world", "!", "don", "'", "t"]),
    # runs of punctuation give one token per character; ASCII "$" counts as punctuation.
    ("!!...$5", False, ["!", "!", ".", ".", ".", "$", "5"]),
    # "50" is one word: "5" then "##0".
    ("50", False, ["5", "##0"]),
    # Unicode punctuation (em dash, Pd) is split off, then has no piece: [UNK] on its own.
    ("hello\u2014world", False, ["hello", UNK, "world"]),
    # a symbol (Sc) is not punctuation: "hello€" stays one word, "##€" is missing, so the whole word is [UNK].
    ("hello\u20ac", False, [UNK]),
    # CJK ideographs are padded with spaces; the kana word is not split, but uncased NFD turns "が" into
    # "か" + U+3099 (a combining mark, Mn), which is dropped: the voiced mark is lost.
    ("中文a ひらがな", False, ["中", "文", "a", "ひらかな"]),
    ("中文a ひらがな", True, ["中", "文", "a", "ひらがな"]),
    # U+0000, U+FFFD and controls (U+200B is Cf, U+0007 is Cc) vanish without splitting the word.
    ("hel\u0000lo wor\u200bld\ufffd\u0007", False, ["hello", "world"]),
    # whitespace runs: spaces, tabs, CR, LF, U+3000 and U+00A0 (Zs) all separate, leading/trailing ignored.
    ("  hello \t\r\n world\u3000\u00a0a ", False, ["hello", "world", "a"]),
    # U+2028 (Zl) is kept by the cleaning step but str.split() splits there.
    ("hello\u2028world", False, ["hello", "world"]),
    # empty and whitespace-only text give nothing.
    ("", False, []),
    (" \t ", False, []),
    # 100 characters is still tokenized; 101 is one [UNK].
    ("a" * 100, False, ["a"] + ["##a"] * 99),
    ("a" * 101, False, [UNK]),
    # no match at all, and a match at the start but none later: both a single [UNK] for the whole word.
    ("xyz", False, [UNK]),
    ("unx hello", False, [UNK, "hello"]),
    # bracketed specials in the text are not kept whole.
    ("[CLS]", False, ["[", "cls", "]"]),
    # cased: no lower-casing, accents kept.
    ("Hello Café", True, ["Hello", "Café"]),
    ("hello HELLO", True, ["hello", UNK]),
    # uncased: "HELLO" -> "hello".
    ("HELLO", False, ["hello"]),
]


def self_test():
    vocab = {piece: i for i, piece in enumerate(SELF_TEST_VOCAB)}
    failures = 0
    for text, cased, expected in SELF_TEST_CASES:
        got = tokenize(text, vocab, lower=not cased)
        ids = [vocab[p] for p in got]
        if got != expected or any(SELF_TEST_VOCAB[i] != p for i, p in zip(ids, got)):
            failures += 1
            print("FAIL %r (cased=%s): got %r, expected %r" % (text, cased, got, expected))
    # Line handling of the command line: split on "\n" only.
    lines = split_lines("a\r\nb\u2028c\n\nd")
    if lines != ["a\r", "b\u2028c", "", "d"]:
        failures += 1
        print("FAIL split_lines: %r" % (lines,))
    print("%d of %d self-test cases passed" % (len(SELF_TEST_CASES) + 1 - failures, len(SELF_TEST_CASES) + 1))
    return failures == 0


def split_lines(text):
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return lines


def main():
    parser = argparse.ArgumentParser(description="Reference BERT (WordPiece) tokenizer: one line of ids per input line.")
    parser.add_argument("--vocab", help="vocab.txt, one piece per line")
    parser.add_argument("--cased", action="store_true", help="no lower-casing or accent stripping")
    parser.add_argument("--max-word-chars", type=int, default=100, help="longer words become [UNK] (default 100)")
    parser.add_argument("--pieces", action="store_true", help="print the pieces instead of the ids")
    parser.add_argument("--self-test", action="store_true", help="run the built-in cases and exit")
    args = parser.parse_args()
    if args.self_test:
        sys.exit(0 if self_test() else 1)
    if not args.vocab:
        parser.error("--vocab is required (or --self-test)")
    vocab = load_vocab(args.vocab)
    try:
        text = sys.stdin.buffer.read().decode("utf-8")
    except UnicodeDecodeError as e:
        sys.exit("wordpiece_reference.py: stdin is not UTF-8: %s" % e)
    out = []
    for line in split_lines(text):
        pieces = tokenize(line, vocab, lower=not args.cased, max_chars=args.max_word_chars)
        out.append(" ".join(pieces if args.pieces else (str(vocab[p]) for p in pieces)))
    sys.stdout.write("".join(line + "\n" for line in out))


if __name__ == "__main__":
    main()
