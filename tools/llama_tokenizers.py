#!/usr/bin/python3
# llama_tokenizers.py -- small tokenizers in the forms the LLaMA-family checkpoints ship, for
# tools/make_llama_fixtures.py: their tokenizer.json / tokenizer_config.json, and an encoder and decoder of each
# written from the published algorithms (Hugging Face tokenizers: models/bpe, pre_tokenizers/{split,byte_level},
# normalizers, decoders, processors/template; transformers convert_slow_tokenizer.py's LlamaConverter,
# TikTokenConverter and Qwen2Converter).
#
#   byte-level BPE (LLaMA 3, Qwen 2 / 3): normalizer none (LLaMA 3) or NFC (Qwen); pre-tokenizer Sequence[Split
#     (the family's regex, Isolated), ByteLevel(add_prefix_space false, use_regex false)]; ids 0-255 the 256 byte
#     symbols in GPT-2's bytes_to_unicode order, then the merges (merge r -> id 256 + r), then the special tokens
#     (added_tokens only, as the real files keep them out of model.vocab); LLaMA 3's model has ignore_merges
#     (a pre-token that is whole in the vocabulary is one token); ByteLevel decoder; post-processor: LLaMA 3's
#     TemplateProcessing puts <|begin_of_text|> first, Qwen's adds nothing.
#   SentencePiece-style BPE (Mistral, LLaMA 2, legacy form): <unk> 0, <s> 1, </s> 2 (in the vocabulary and in
#     added_tokens), <0x00>..<0xFF> 3-258, the merges (259 + r), then the single characters; normalizer
#     Sequence[Prepend("▁"), Replace(" ", "▁")], no pre-tokenizer (the whole text is one word), byte_fallback
#     (a character not in the vocabulary becomes one <0xNN> token per UTF-8 byte), fuse_unk; decoder
#     Sequence[Replace("▁", " "), ByteFallback, Fuse, Strip(" ", 1, 0)]; TemplateProcessing puts <s> first.
# Merges are learned greedily from a text as tools/make_hf_fixtures.py does (learn_merges_from); encoding
# applies them by rank (apply_merges). Special tokens in a text are split out before anything else (they are
# not normalized). Python's re has no \p{..}: the Split patterns run as Python translations that agree with
# the real ones on texts of letters (L*), ASCII digits, punctuation, symbols and white space (check_text).

import json
import re
import unicodedata
from collections import Counter

from make_hf_fixtures import BYTE_SYMBOL, SYMBOL_BYTE, apply_merges, learn_merges_from

# The Split patterns as the tokenizer.json files carry them, and their Python translations: \p{L} ->
# [^\W\d_], \p{N} -> \d, a class excluding \p{L}\p{N} -> one excluding \w, with "_" allowed back.
LLAMA3_SPLIT = (r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|"
                r"\s*[\r\n]+|\s+(?!\S)|\s+")
QWEN_SPLIT = (r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|"
              r"\s*[\r\n]+|\s+(?!\S)|\s+")
_PYTHON_SPLIT = {
    LLAMA3_SPLIT: r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|(?:[^\r\n\w]|_)?[^\W\d_]+|\d{1,3}| ?(?:[^\s\w]|_)+[\r\n]*|"
                  r"\s*[\r\n]+|\s+(?!\S)|\s+",
    QWEN_SPLIT: r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|(?:[^\r\n\w]|_)?[^\W\d_]+|\d| ?(?:[^\s\w]|_)+[\r\n]*|"
                r"\s*[\r\n]+|\s+(?!\S)|\s+",
}
SPIECE = "\u2581"  # ▁


def check_text(text):
    """The texts these tokenizers run on: characters on which the Python translations of \\p{L} and \\p{N}
    agree with Unicode's classes (letters, ASCII digits, punctuation, symbols, spaces, tab and newline)."""
    for ch in text:
        cat = unicodedata.category(ch)
        ok = cat[0] in "LPS" or cat == "Zs" or ch in "\t\n" or (cat == "Nd" and ch.isascii()) or cat == "Mn"
        assert ok, "character %r (%s) outside what the fixtures' tokenizers are checked on" % (ch, cat)


def split_specials(text, specials):
    """text -> [(piece, is_special)]: the special tokens' occurrences cut out, leftmost-longest."""
    if not specials:
        return [(text, False)] if text else []
    pattern = "(" + "|".join(re.escape(s) for s in sorted(specials, key=len, reverse=True)) + ")"
    return [(p, p in specials) for p in re.split(pattern, text) if p]


def added_token(i, content):
    return {"id": i, "content": content, "single_word": False, "lstrip": False, "rstrip": False,
            "normalized": False, "special": True}


def template(bos, bos_id):
    """TemplateProcessing putting `bos` before each sequence."""
    def seq(s, type_id):
        return [{"SpecialToken": {"id": bos, "type_id": type_id}}, {"Sequence": {"id": s, "type_id": type_id}}]
    return {"type": "TemplateProcessing", "single": seq("A", 0), "pair": seq("A", 0) + seq("B", 1),
            "special_tokens": {bos: {"id": bos, "ids": [bos_id], "tokens": [bos]}}}


def merges_json(merges, as_pairs):
    return [[a, b] for a, b in merges] if as_pairs else ["%s %s" % (a, b) for a, b in merges]


def merges_from_json(items):
    return [tuple(m) if isinstance(m, list) else tuple(m.split(" ")) for m in items]

# ------------------------------------------------------------------------------------------------ byte-level BPE


class ByteLevelBPE:
    """LLaMA 3's (family "llama3") or Qwen's (family "qwen") tokenizer over merges and special tokens."""

    def __init__(self, family, merges, specials, bos=None):
        self.family, self.merges, self.specials, self.bos = family, list(merges), list(specials), bos
        self.split = LLAMA3_SPLIT if family == "llama3" else QWEN_SPLIT
        self.pattern = re.compile(_PYTHON_SPLIT[self.split])
        self.vocab = list(BYTE_SYMBOL.values()) + [a + b for a, b in self.merges]
        self.ids = {p: i for i, p in enumerate(self.vocab)}
        assert len(self.ids) == len(self.vocab), "a merge repeats a symbol"
        self.special_ids = {s: len(self.vocab) + i for i, s in enumerate(self.specials)}
        self.ranks = {m: r for r, m in enumerate(self.merges)}
        self.ignore_merges = family == "llama3"

    @classmethod
    def learn(cls, family, corpus, count, specials, bos=None):
        probe = cls(family, [], specials, bos)
        words = Counter(tuple(w) for w in probe.pre_tokenize(corpus))
        return cls(family, learn_merges_from(words, set(BYTE_SYMBOL.values()), count), specials, bos)

    def size(self):
        return len(self.vocab) + len(self.specials)

    def pre_tokenize(self, text):
        """Normalized text -> its pre-tokens as byte symbols."""
        check_text(text)
        if self.family == "qwen":
            text = unicodedata.normalize("NFC", text)
        words = self.pattern.findall(text)
        assert "".join(words) == text, "the split pattern does not cover %r" % text
        return ["".join(BYTE_SYMBOL[b] for b in w.encode("utf-8")) for w in words]

    def encode(self, text, add_special=True):
        ids = [self.special_ids[self.bos]] if add_special and self.bos else []
        for piece, special in split_specials(text, self.specials):
            if special:
                ids.append(self.special_ids[piece])
                continue
            for w in self.pre_tokenize(piece):
                parts = [w] if self.ignore_merges and w in self.ids else apply_merges(w, self.ranks)
                ids += [self.ids[p] for p in parts]
        return ids

    def decode(self, ids, skip_special=True):
        out, raw = [], bytearray()
        names = {i: s for s, i in self.special_ids.items()}
        for i in ids:
            if i in names:
                out.append(raw.decode("utf-8", errors="replace"))
                raw = bytearray()
                out.append("" if skip_special else names[i])
            else:
                raw += bytes(SYMBOL_BYTE[ch] for ch in self.vocab[i])
        out.append(raw.decode("utf-8", errors="replace"))
        return "".join(out)

    def tokenizer_json(self, merges_as_pairs=False):
        llama = self.family == "llama3"
        byte_level = {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": llama, "use_regex": False}
        decoder = {"type": "ByteLevel", "add_prefix_space": llama, "trim_offsets": llama, "use_regex": llama}
        if llama:
            post = {"type": "Sequence", "processors": [
                {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": False, "use_regex": True},
                template(self.bos, self.special_ids[self.bos])]}
        else:
            post = {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": False, "use_regex": False}
        return {
            "version": "1.0", "truncation": None, "padding": None,
            "added_tokens": [added_token(i, s) for s, i in self.special_ids.items()],
            "normalizer": None if llama else {"type": "NFC"},
            "pre_tokenizer": {"type": "Sequence", "pretokenizers": [
                {"type": "Split", "pattern": {"Regex": self.split}, "behavior": "Isolated", "invert": False},
                byte_level]},
            "post_processor": post, "decoder": decoder,
            "model": {"type": "BPE", "dropout": None, "unk_token": None, "continuing_subword_prefix": None,
                      "end_of_word_suffix": None, "fuse_unk": False, "byte_fallback": False,
                      "ignore_merges": self.ignore_merges, "vocab": {p: i for i, p in enumerate(self.vocab)},
                      "merges": merges_json(self.merges, merges_as_pairs)}}

    @classmethod
    def from_json(cls, obj):
        """The tokenizer a tokenizer.json written by tokenizer_json() describes (what the file says, read back)."""
        split = obj["pre_tokenizer"]["pretokenizers"][0]["pattern"]["Regex"]
        family = "llama3" if split == LLAMA3_SPLIT else "qwen"
        specials = [t["content"] for t in sorted(obj["added_tokens"], key=lambda t: t["id"])]
        post = obj["post_processor"]
        bos = None
        if post["type"] == "Sequence":
            bos = post["processors"][1]["single"][0]["SpecialToken"]["id"]
        tok = cls(family, merges_from_json(obj["model"]["merges"]), specials, bos)
        assert obj["model"]["vocab"] == {p: i for i, p in enumerate(tok.vocab)}
        assert [t["id"] for t in obj["added_tokens"]] == [tok.special_ids[s] for s in specials]
        assert obj["model"]["ignore_merges"] == tok.ignore_merges
        assert (obj["normalizer"] is None) == (family == "llama3")
        return tok

# ------------------------------------------------------------------------------------------------ SentencePiece BPE


SPM_SPECIALS = ["<unk>", "<s>", "</s>"]
SPM_BYTES = ["<0x%02X>" % b for b in range(256)]


class SentencePieceBPE:
    """Mistral's (LLaMA 2's) tokenizer in the legacy Prepend / Replace form."""

    def __init__(self, merges, chars):
        self.merges, self.chars = list(merges), list(chars)
        self.vocab = SPM_SPECIALS + SPM_BYTES + [a + b for a, b in self.merges] + self.chars
        self.ids = {p: i for i, p in enumerate(self.vocab)}
        assert len(self.ids) == len(self.vocab), "a piece repeats"
        self.ranks = {m: r for r, m in enumerate(self.merges)}
        self.special_ids = {s: i for i, s in enumerate(SPM_SPECIALS)}
        self.bos = "<s>"

    @staticmethod
    def normalize(text):
        return SPIECE + text.replace(" ", SPIECE) if text else text

    @classmethod
    def learn(cls, corpus, count):
        """Merges from the corpus's words (each from one ▁ to the next; newlines read as spaces), the single
        characters those words hold."""
        text = cls.normalize(" ".join(corpus.split()))
        words = Counter(tuple(w) for w in re.findall(SPIECE + "[^" + SPIECE + "]*", text))
        chars = sorted(set(text))
        return cls(learn_merges_from(words, set(chars), count), chars)

    def size(self):
        return len(self.vocab)

    def encode(self, text, add_special=True):
        ids = [self.special_ids[self.bos]] if add_special else []
        for piece, special in split_specials(text, SPM_SPECIALS):
            if special:
                ids.append(self.special_ids[piece])
                continue
            symbols = []
            for ch in self.normalize(piece):
                if ch in self.ids:
                    symbols.append(ch)
                else:  # byte fallback: the character's UTF-8 bytes, which no merge joins
                    symbols += ["<0x%02X>" % b for b in ch.encode("utf-8")]
            ids += [self.ids[p] for p in apply_merges(symbols, self.ranks)]
        return ids

    def decode(self, ids, skip_special=True):
        text, raw = [], bytearray()
        for i in ids:
            piece = self.vocab[i]
            if piece in SPM_BYTES:
                raw.append(SPM_BYTES.index(piece))
                continue
            text.append(raw.decode("utf-8", errors="replace"))
            raw = bytearray()
            if piece not in SPM_SPECIALS or not skip_special:
                text.append(piece.replace(SPIECE, " "))
        text.append(raw.decode("utf-8", errors="replace"))
        out = "".join(text)
        return out[1:] if out.startswith(" ") else out

    def tokenizer_json(self, merges_as_pairs=False):
        return {
            "version": "1.0", "truncation": None, "padding": None,
            "added_tokens": [added_token(i, s) for i, s in enumerate(SPM_SPECIALS)],
            "normalizer": {"type": "Sequence", "normalizers": [
                {"type": "Prepend", "prepend": SPIECE},
                {"type": "Replace", "pattern": {"String": " "}, "content": SPIECE}]},
            "pre_tokenizer": None,
            "post_processor": template(self.bos, self.special_ids[self.bos]),
            "decoder": {"type": "Sequence", "decoders": [
                {"type": "Replace", "pattern": {"String": SPIECE}, "content": " "},
                {"type": "ByteFallback"}, {"type": "Fuse"},
                {"type": "Strip", "content": " ", "start": 1, "stop": 0}]},
            "model": {"type": "BPE", "dropout": None, "unk_token": "<unk>", "continuing_subword_prefix": None,
                      "end_of_word_suffix": None, "fuse_unk": True, "byte_fallback": True, "ignore_merges": False,
                      "vocab": {p: i for i, p in enumerate(self.vocab)},
                      "merges": merges_json(self.merges, merges_as_pairs)}}

    @classmethod
    def from_json(cls, obj):
        vocab = obj["model"]["vocab"]
        merges = merges_from_json(obj["model"]["merges"])
        first_char = len(SPM_SPECIALS) + len(SPM_BYTES) + len(merges)
        tok = cls(merges, [p for p, i in sorted(vocab.items(), key=lambda x: x[1]) if i >= first_char])
        assert vocab == {p: i for i, p in enumerate(tok.vocab)}
        assert obj["model"]["byte_fallback"] and obj["pre_tokenizer"] is None
        return tok


def tokenizer_from_json(obj):
    """The encoder a tokenizer.json of either form describes."""
    return SentencePieceBPE.from_json(obj) if obj["model"]["byte_fallback"] else ByteLevelBPE.from_json(obj)


def write_tokenizer(path, tok, merges_as_pairs=False):
    """tokenizer.json as the tokenizers library writes it (UTF-8, two-space indent); returns the object."""
    obj = tok.tokenizer_json(merges_as_pairs)
    with open(path, "w", encoding="utf-8") as f:
        json.dump(obj, f, indent=2, ensure_ascii=False)
        f.write("\n")
    return obj


def tokenizer_config(tok, **fields):
    """tokenizer_config.json's object: added_tokens_decoder from the tokenizer's special tokens, then `fields`."""
    decoder = {str(i): {"content": s, "lstrip": False, "normalized": False, "rstrip": False,
                        "single_word": False, "special": True}
               for s, i in sorted(tok.special_ids.items(), key=lambda x: x[1])}
    return dict({"added_tokens_decoder": decoder, "clean_up_tokenization_spaces": False}, **fields)
