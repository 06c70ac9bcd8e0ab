#!/usr/bin/python3
# encoder_reference.py -- independent float64 PyTorch references of the encoders on BERT's body that Heptapod
# converts besides BERT itself, written from their published definitions (the RoBERTa paper and fairseq's
# RobertaModel; XLM-R, which is RoBERTa's network over a SentencePiece vocabulary; DistilBERT, Sanh et al.
# 2019; sentence-transformers' Pooling and Normalize modules), without transformers or Heptapod's code; and
# stdlib-only tokenizers of the layouts their checkpoints ship (GPT-2's byte-level BPE with RoBERTa's special
# tokens, SentencePiece BPE under fairseq's ids, BERT's WordPiece comes from make_hf_fixtures.py).
#
# Parameters are dicts of tensors under Hugging Face's state-dict names; every function takes float64 tensors.
#
#   RoBERTa / XLM-R: x = LN(word[ids] + pos[p] + type[0]), p = pad + 1 + t for real tokens (pad for padding);
#     then post-norm layers: x = LN(x + Attn(x)), x = LN(x + W2 gelu(W1 x)). Masked LM: W_dec LN(gelu(D x)) + b.
#     Classifier: out_proj(tanh(dense(x[:, 0]))).
#   DistilBERT: x = LN(word[ids] + pos[t]); the same post-norm layers (sa_layer_norm, output_layer_norm), eps
#     1e-12. Masked LM: vocab_projector(vocab_layer_norm(gelu(vocab_transform(x)))); classifier:
#     classifier(relu(pre_classifier(x[:, 0]))).
#   sentence-transformers: mean = sum of the real rows / their count, cls = row 0, max = the largest of the
#     real rows (padding filled with -1e9), mean_sqrt_len = sum / sqrt(count), weightedmean = the rows weighted
#     by their positions 1..n, lasttoken = the last real row; several modes concatenated (cls, max, mean,
#     mean_sqrt_len, weightedmean, lasttoken); then optionally the Dense module act(v W^T + b) (tanh or the
#     identity) and x / max(|x|, 1e-12).

import math
import os
import re
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import make_hf_fixtures as hf  # noqa: E402
from make_import_fixtures import varint  # noqa: E402

D = torch.float64

# ------------------------------------------------------------------------------------------------ the math


def layer_norm(x, w, b, eps):
    mean = x.mean(-1, keepdim=True)
    var = ((x - mean) ** 2).mean(-1, keepdim=True)
    return (x - mean) / torch.sqrt(var + eps) * w + b


def gelu(x):
    return 0.5 * x * (1 + torch.erf(x / math.sqrt(2)))


def linear(P, name, x):
    return x @ P[name + ".weight"].T + P[name + ".bias"]


def attend(q, k, v, heads, lengths):
    """Bidirectional scaled dot-product attention over the first lengths[b] keys of each sentence."""
    B, T, C = q.shape
    hd = C // heads
    split = lambda t: t.view(B, T, heads, hd).transpose(1, 2)  # noqa: E731
    scores = split(q) @ split(k).transpose(-1, -2) / math.sqrt(hd)  # (B, H, T, T)
    visible = torch.arange(T)[None, :] < torch.tensor(lengths)[:, None]  # (B, T)
    scores = scores.masked_fill(~visible[:, None, None, :], float("-inf"))
    return (torch.softmax(scores, -1) @ split(v)).transpose(1, 2).reshape(B, T, C)


# Each family's names: the body's prefix, its layers' modules (q, k, v, attention output, its norm, FFN in,
# FFN out, FFN norm), its embeddings.
FAMILIES = {
    "roberta": dict(prefix="roberta.", layers="encoder.layer.",
                    modules=("attention.self.query", "attention.self.key", "attention.self.value",
                             "attention.output.dense", "attention.output.LayerNorm", "intermediate.dense",
                             "output.dense", "output.LayerNorm")),
    "distilbert": dict(prefix="distilbert.", layers="transformer.layer.",
                       modules=("attention.q_lin", "attention.k_lin", "attention.v_lin", "attention.out_lin",
                                "sa_layer_norm", "ffn.lin1", "ffn.lin2", "output_layer_norm")),
}


def positions(ids, family, pad):
    """RoBERTa: pad + cumulative count of real tokens (fairseq's make_positions); DistilBERT: 0, 1, ..."""
    if family == "distilbert":
        return torch.arange(ids.shape[1])[None].expand_as(ids)
    real = (ids != pad).long()
    return torch.cumsum(real, 1) * real + pad


def encode(P, family, cfg, ids, lengths, prefix=None):
    """The last hidden states (B, T, C) of ids (B, T), sentences right-padded to lengths."""
    f = FAMILIES[family]
    p = f["prefix"] if prefix is None else prefix
    e = p + "embeddings."
    if family == "distilbert":
        heads, eps, pad = cfg["n_heads"], 1e-12, cfg["pad_token_id"]
        x = P[e + "word_embeddings.weight"][ids] + P[e + "position_embeddings.weight"][positions(ids, family, pad)]
    else:
        heads, eps, pad = cfg["num_attention_heads"], cfg["layer_norm_eps"], cfg["pad_token_id"]
        x = P[e + "word_embeddings.weight"][ids] + P[e + "position_embeddings.weight"][positions(ids, family, pad)] + \
            P[e + "token_type_embeddings.weight"][torch.zeros_like(ids)]
    x = layer_norm(x, P[e + "LayerNorm.weight"], P[e + "LayerNorm.bias"], eps)
    n_layers = cfg["n_layers"] if family == "distilbert" else cfg["num_hidden_layers"]
    q, k, v, o, norm1, f1, f2, norm2 = f["modules"]
    for i in range(n_layers):
        n = p + f["layers"] + "%d." % i
        a = attend(linear(P, n + q, x), linear(P, n + k, x), linear(P, n + v, x), heads, lengths)
        x = layer_norm(x + linear(P, n + o, a), P[n + norm1 + ".weight"], P[n + norm1 + ".bias"], eps)
        h = linear(P, n + f2, gelu(linear(P, n + f1, x)))
        x = layer_norm(x + h, P[n + norm2 + ".weight"], P[n + norm2 + ".bias"], eps)
    return x


def masked_lm_logits(P, family, cfg, h):
    """The masked-LM head on hidden states h (..., C) -> (..., V), its output layer the word embeddings."""
    if family == "distilbert":
        t = layer_norm(gelu(linear(P, "vocab_transform", h)), P["vocab_layer_norm.weight"], P["vocab_layer_norm.bias"],
                       1e-12)
        return t @ P["distilbert.embeddings.word_embeddings.weight"].T + P["vocab_projector.bias"]
    t = layer_norm(gelu(linear(P, "lm_head.dense", h)), P["lm_head.layer_norm.weight"], P["lm_head.layer_norm.bias"],
                   cfg["layer_norm_eps"])
    return t @ P["roberta.embeddings.word_embeddings.weight"].T + P["lm_head.bias"]


def classifier_logits(P, family, h):
    """(logits (B, L), the pooled vectors (B, C) the output layer reads) from the first token's row."""
    first = h[:, 0]
    if family == "distilbert":
        pooled = torch.relu(linear(P, "pre_classifier", first))
        return linear(P, "classifier", pooled), pooled
    pooled = torch.tanh(linear(P, "classifier.dense", first))
    return linear(P, "classifier.out_proj", pooled), pooled


# sentence-transformers' pooling modes in the order its Pooling module concatenates them.
POOLING_ORDER = ("cls", "max", "mean", "mean_sqrt_len", "weightedmean", "lasttoken")


def pool(h, lengths, mode):
    """One pooling mode over hidden states h (B, T, C) of sentences right-padded to lengths -> (B, C)."""
    mask = (torch.arange(h.shape[1])[None, :] < torch.tensor(lengths)[:, None]).to(h.dtype)[..., None]  # (B, T, 1)
    if mode == "cls":
        return h[:, 0]
    if mode == "max":
        return torch.where(mask > 0, h, torch.full_like(h, -1e9)).max(1).values
    if mode == "lasttoken":
        return h[torch.arange(h.shape[0]), torch.tensor(lengths) - 1]
    if mode == "weightedmean":
        w = torch.arange(1, h.shape[1] + 1, dtype=h.dtype)[None, :, None] * mask  # (B, T, 1): 1..n
        return (h * w).sum(1) / w.sum(1)
    total, count = (h * mask).sum(1), mask.sum(1).clamp(min=1e-9)
    return total / (count if mode == "mean" else torch.sqrt(count))


def sentence_embedding(h, lengths, modes, normalize, dense=None):
    """sentence-transformers' Pooling (a mode, or several concatenated in POOLING_ORDER), then optionally its
    Dense module (dense: (W (out, in), b or None, "tanh" or "identity")): act(v W^T + b), then optionally
    Normalize: v / max(|v|, 1e-12)."""
    modes = (modes,) if isinstance(modes, str) else tuple(modes)
    assert list(modes) == [m for m in POOLING_ORDER if m in modes], "modes out of order"
    v = torch.cat([pool(h, lengths, m) for m in modes], -1)
    if dense is not None:
        w, b, activation = dense
        v = v @ w.T + (b if b is not None else 0)
        v = torch.tanh(v) if activation == "tanh" else v
    if normalize:
        v = v / v.norm(dim=-1, keepdim=True).clamp(min=1e-12)
    return v


# ------------------------------------------------------------------------------------------------ tokenizers


BYTE_SYMBOL = hf.BYTE_SYMBOL  # GPT-2's reversible byte -> printable symbol map
# GPT-2's pre-tokenization pattern with \p{L} as [^\W\d_] and \p{N} as \d (Python's re has no classes).
GPT2_PATTERN = re.compile(r"""'s|'t|'re|'ve|'m|'ll|'d| ?[^\W\d_]+| ?\d+| ?(?:[^\s\w]|_)+|\s+(?!\S)|\s+""")


ASCII_SPACE = " \t\n\r\v\f"


def split_specials(text, specials, lstrip):
    """Text as its parts: the special pieces written in it (the longest first where two start at one place),
    and the text between them; a special piece in `lstrip` takes the white space before it (Hugging Face's
    added token flag, RoBERTa's <mask>)."""
    pattern = "(" + "|".join(re.escape(s) for s in sorted(specials, key=len, reverse=True)) + ")"
    parts = re.split(pattern, text)
    for i in range(1, len(parts), 2):
        if parts[i] in lstrip:
            parts[i - 1] = parts[i - 1].rstrip(ASCII_SPACE)
    return parts


class RobertaBpe:
    """RoBERTa's tokenizer: GPT-2's byte-level BPE, vocab {piece: id}, merges [(a, b)] by rank; special pieces
    written in the text ("<mask>") become their ids, <mask> taking the white space before it."""

    def __init__(self, vocab, merges, specials, lstrip=("<mask>",)):
        self.vocab, self.ranks, self.specials, self.lstrip = vocab, {m: r for r, m in enumerate(merges)}, specials, lstrip

    def encode(self, text):
        ids = []
        for i, part in enumerate(split_specials(text, self.specials, self.lstrip)):
            if i % 2:
                ids.append(self.vocab[part])
                continue
            for word in GPT2_PATTERN.findall(part):
                symbols = "".join(BYTE_SYMBOL[b] for b in word.encode("utf-8"))
                ids += [self.vocab[p] for p in hf.apply_merges(symbols, self.ranks)]
        return ids


def read_sentencepiece_pieces(path):
    """(piece, score, type) of a serialized SentencePiece ModelProto, read with the protobuf wire format
    (field 1: the repeated pieces, each {1: piece, 2: score (float), 3: type})."""
    import struct
    data = open(path, "rb").read()

    def fields(buf):
        i = 0
        while i < len(buf):
            key, i = varint(buf, i)
            number, wire = key >> 3, key & 7
            if wire == 0:
                value, i = varint(buf, i)
            elif wire == 1:
                value, i = buf[i:i + 8], i + 8
            elif wire == 2:
                n, i = varint(buf, i)
                value, i = buf[i:i + n], i + n
            elif wire == 5:
                value, i = buf[i:i + 4], i + 4
            else:
                raise ValueError("wire type %d" % wire)
            yield number, value

    pieces = []
    for number, value in fields(data):
        if number != 1:
            continue
        piece, score, kind = "", 0.0, 1
        for n, v in fields(value):
            if n == 1:
                piece = v.decode("utf-8")
            elif n == 2:
                score = struct.unpack("<f", v)[0]
            elif n == 3:
                kind = v
        pieces.append((piece, score, kind))
    return pieces


class SentencePieceBpe:
    """A SentencePiece BPE model trained with the identity normalization: white space runs collapsed and
    trimmed, "\u2581" for each space and before the text, then the adjacent pair whose joined piece scores
    highest merged (leftmost first) until none is a piece; characters without a piece are <unk>."""

    def __init__(self, pieces):
        self.score = {p: s for p, s, kind in pieces if kind in (1, 4)}  # normal and user-defined pieces
        self.index = {p: i for i, (p, _, _) in enumerate(pieces)}
        self.unk = next(i for i, (_, _, kind) in enumerate(pieces) if kind == 2)

    def pieces(self, text):
        text = "\u2581" + re.sub(" +", " ", text.strip(" ")).replace(" ", "\u2581")
        symbols = list(text)
        while len(symbols) > 1:
            best, best_score = None, -math.inf
            for i in range(len(symbols) - 1):
                s = self.score.get(symbols[i] + symbols[i + 1])
                if s is not None and s > best_score:
                    best, best_score = i, s
            if best is None:
                break
            symbols[best:best + 2] = [symbols[best] + symbols[best + 1]]
        return symbols

    def encode(self, text):
        return [self.index[p] if p in self.score else self.unk for p in self.pieces(text)]


def fairseq_ids(spm_ids, spm_unk, spm_size):
    """XLM-R's ids of SentencePiece ids: <unk> 3, the others shifted by one (<mask> is spm_size + 1)."""
    del spm_size
    return [3 if i == spm_unk else i + 1 for i in spm_ids]
