#!/usr/bin/python3
# make_hf_fixtures.py -- independent PyTorch references of Hugging Face's GPT-2 and BERT families, for the tests
# of `heptapod convert DIR --from gpt2` and `--from bert`.
#
# Each family is written out here from its published math (GPT2LMHeadModel; BertForMaskedLM with the
# pre-training checkpoint's extra heads; BertForSequenceClassification), in float64, without transformers or
# Heptapod's code. Random weights are saved under the family's exact state-dict names and config keys, beside
# the tokenizer files the family ships, in the directory layout the converter takes:
#
#   tests/fixtures/gpt2/             config.json, model.safetensors, vocab.json, merges.txt, reference.safetensors
#   tests/fixtures/bert/             config.json, model.safetensors (old LayerNorm names gamma / beta), vocab.txt,
#                                    reference.safetensors
#   tests/fixtures/bert_classifier/  config.json (id2label / label2id), model.safetensors, vocab.txt,
#                                    reference.safetensors
#
#   /usr/bin/python3 tools/make_hf_fixtures.py [gpt2] [bert] [bert_classifier]
#
# The tokenizers are small ones made here: for GPT-2 a byte-level BPE (the 256 byte symbols of GPT-2's
# bytes_to_unicode, ids in its encoder.json order, so the space symbol U+0120 is 220; then 100 merges learned
# greedily from the paragraph CORPUS below, merge r giving id 256 + r; then <|endoftext|> last), for BERT an
# uncased WordPiece vocabulary ([PAD] 0, [unused0] 1, [unused1] 2, [UNK] 3, [CLS] 4, [SEP] 5, [MASK] 6, then
# punctuation, words and ## pieces), with an encoder / decoder for each written from the published algorithms.
#
# reference.safetensors (metadata format "heptapod-hf-fixture", family "gpt2" or "bert", task, and JSON strings):
#   gpt2: batch/input_ids I32 (B, T) right-padded with <|endoftext|>, batch/lengths I32 (B);
#         expect/logits F32 (B, T, V); expect/greedy I32 (B, 8): 8 new tokens each by argmax over all V ids
#         after <|endoftext|> + the prompt (a decoder-only model's generation starts from its bos token);
#         metadata prompts, prompt_ids, greedy_text (prompt + continuation through the byte-level decoder)
#   bert: batch/input_ids, batch/token_type_ids I32 (B, T) padded with 0, batch/lengths I32 (B);
#         expect/hidden F32 (B, T, C) (the last hidden states); masked-LM: expect/mlm_logits F32 (B, T, V);
#         classifier: expect/pooled F32 (B, C), expect/class_logits F32 (B, L), expect/probs F32 (B, L),
#         metadata labels; metadata texts, tokens
# Rows at t >= length are what the HF model computes with attention_mask (padded keys masked, the pad id fed):
# tests should compare t < length. Reference values are float64 from the stored float32 weights. The GPT-2
# weights are drawn until every greedy step wins by at least MARGIN in log-probability, <|endoftext|> is never
# chosen and every chosen token is one the tokenizer makes from text, so float32 rounding cannot flip a token.
# The checkpoints hold what the families' state dicts hold beyond the weights, for the converter to ignore or
# check: GPT-2's lm_head.weight (a copy of transformer.wte.weight) and per-layer attn.bias (U8 (1, 1, 32, 32)
# lower triangle) and attn.masked_bias (F32 scalar -1e4); BERT's bert.embeddings.position_ids (I64 (1, 64)),
# the masked-LM head's tied cls.predictions.decoder.{weight,bias}, the pooler (kept for classifiers fine-tuned
# from the model) and the next-sentence head (dropped).
# Deterministic: the same bytes on every run.

import json
import math
import os
import re
import sys
from collections import Counter

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import make_parity_fixtures as parity  # noqa: E402
from make_parity_fixtures import REPO, check_round_trip, write_safetensors  # noqa: E402

# The checkpoints carry integer buffers (GPT-2's causal mask, BERT's position_ids): the dtypes they need.
parity._DTYPES.setdefault(torch.uint8, ("U8", "B"))
parity._DTYPES.setdefault(torch.int64, ("I64", "q"))
parity._BY_NAME.setdefault("U8", (torch.uint8, "B", 1))
parity._BY_NAME.setdefault("I64", (torch.int64, "q", 8))

torch.set_num_threads(1)
D = torch.float64
MARGIN = 0.05  # log-probability gap that every greedy step must clear
NEW_TOKENS = 8

# ------------------------------------------------------------------------------------------------ shared math


def layer_norm(x, w, b, eps):
    mean = x.mean(-1, keepdim=True)
    var = ((x - mean) ** 2).mean(-1, keepdim=True)  # biased, as nn.LayerNorm
    return (x - mean) / torch.sqrt(var + eps) * w + b


def attend(q, k, v, heads, lengths, causal):
    """q, k, v (B, T, C) -> (B, T, C): scaled dot-product attention per head; key j visible to query i iff
    j < lengths[b] (and j <= i when causal)."""
    B, T, C = q.shape
    hd = C // heads
    split = lambda t: t.view(B, T, heads, hd).transpose(1, 2)  # noqa: E731
    scores = split(q) @ split(k).transpose(-1, -2) / math.sqrt(hd)  # (B, H, T, T)
    j = torch.arange(T)
    visible = (j[None, :] < torch.tensor(lengths)[:, None])[:, None, None, :].expand(B, 1, T, T)
    if causal:
        visible = visible & (j[None, :] <= j[:, None])[None, None]
    scores = scores.masked_fill(~visible, float("-inf"))
    return (torch.softmax(scores, -1) @ split(v)).transpose(1, 2).reshape(B, T, C)


def gelu_new(x):
    """GPT-2's tanh approximation."""
    return 0.5 * x * (1 + torch.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x ** 3)))


def gelu(x):
    """BERT's exact GELU."""
    return 0.5 * x * (1 + torch.erf(x / math.sqrt(2)))


def padded(rows, fill):
    width = max(len(r) for r in rows)
    return torch.tensor([r + [fill] * (width - len(r)) for r in rows], dtype=torch.int32)


def write_json(path, obj):
    with open(path, "w", encoding="utf-8") as f:
        json.dump(obj, f, indent=2, sort_keys=True)
        f.write("\n")


def write_reference(path, ref, meta):
    meta = dict({"format": "heptapod-hf-fixture"}, **meta)
    for name, t in ref:
        assert not (t.is_floating_point() and not torch.isfinite(t).all()), name
    write_safetensors(path, ref, meta)
    check_round_trip(path, ref, meta)


def write_model(path, state):
    write_safetensors(path, state, {"format": "pt"})
    check_round_trip(path, state, {"format": "pt"})

# ------------------------------------------------------------------------------------------------ GPT-2's BPE


# The text the merges are learned from (GPT-2-pretokenized, ASCII).
CORPUS = """\
The quick brown fox jumps over the lazy dog. The dog sleeps in the sun, and the fox runs into the woods.
Hello, world! It's a small test of the tokenizer, and it's not the last one. We've got 42 apples and 7 pears;
they're on the table in the kitchen. I'm sure you'll like them. She'd say that the apples are the best in the
world, but the pears are sweet too. There are 1999 reasons to test a tokenizer, and the first is that it
should give the same pieces every time. The model reads the text, then writes the next word, and the next.
Numbers like 12, 345 and 6789 are split into digits by the pattern; words keep their leading space.
"""

GPT2_PROMPTS = ["The dog and the fox", "Hello! It's a  test.", "We've got 42\n\nThe"]
GPT2_MERGES = 100
# GPT-2's pre-tokenizer, for ASCII text (\p{L} -> [A-Za-z], \p{N} -> [0-9]).
PRETOKENIZE = re.compile(r"""'s|'t|'re|'ve|'m|'ll|'d| ?[A-Za-z]+| ?[0-9]+| ?[^\sA-Za-z0-9]+|\s+(?!\S)|\s+""")
EOT = "<|endoftext|>"


def bytes_to_unicode():
    """GPT-2's reversible byte -> symbol map, in its order: the printable Latin-1 bytes as themselves, then the
    others (ascending) as U+0100 onwards."""
    bs = list(range(ord("!"), ord("~") + 1)) + list(range(ord("\xa1"), ord("\xac") + 1)) + \
        list(range(ord("\xae"), ord("\xff") + 1))
    cs = bs[:]
    n = 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + n)
            n += 1
    return dict(zip(bs, [chr(c) for c in cs]))


BYTE_SYMBOL = bytes_to_unicode()
SYMBOL_BYTE = {s: b for b, s in BYTE_SYMBOL.items()}


def pretokenize(text):
    assert all(ord(c) < 128 for c in text), "ASCII texts only"
    return ["".join(BYTE_SYMBOL[b] for b in w.encode("utf-8")) for w in PRETOKENIZE.findall(text)]


def merge_pair(symbols, a, b):
    """symbols with every occurrence of the pair (a, b), left to right, made one symbol."""
    out, i = [], 0
    while i < len(symbols):
        if i + 1 < len(symbols) and symbols[i] == a and symbols[i + 1] == b:
            out.append(a + b)
            i += 2
        else:
            out.append(symbols[i])
            i += 1
    return out


def learn_merges(text, count):
    """GPT-2's merges: learn_merges_from over the pre-tokenized words as byte symbols."""
    return learn_merges_from(Counter(tuple(w) for w in pretokenize(text)), set(BYTE_SYMBOL.values()), count)


def learn_merges_from(words, symbols, count):
    """Greedy BPE over `words` (a Counter of symbol tuples) starting from the symbol set `symbols`: repeatedly
    merge the most frequent adjacent pair (ties: the smaller pair), skipping pairs whose result is already a
    symbol, so every merge adds one new id."""
    symbols = set(symbols)
    merges = []
    while len(merges) < count:
        pairs = Counter()
        for w, n in words.items():
            for a, b in zip(w, w[1:]):
                pairs[(a, b)] += n
        ranked = sorted((p for p in pairs if p[0] + p[1] not in symbols), key=lambda p: (-pairs[p], p))
        if not ranked:
            break
        a, b = ranked[0]
        merges.append((a, b))
        symbols.add(a + b)
        new_words = Counter()
        for w, n in words.items():
            new_words[tuple(merge_pair(w, a, b))] += n
        words = new_words
    return merges


def apply_merges(parts, ranks):
    """BPE on one word: parts (a list of symbols) with the lowest-ranked adjacent pair merged, again and again,
    until no adjacent pair has a rank (ranks: {(a, b): rank})."""
    parts = list(parts)
    while len(parts) > 1:
        rank, i = min((ranks.get(pair, math.inf), i) for i, pair in enumerate(zip(parts, parts[1:])))
        if rank == math.inf:
            break
        parts = merge_pair(parts, parts[i], parts[i + 1])
    return parts


class ByteBPE:
    def __init__(self, merges):
        self.vocab = list(BYTE_SYMBOL.values()) + [a + b for a, b in merges] + [EOT]
        self.ids = {p: i for i, p in enumerate(self.vocab)}
        assert len(self.ids) == len(self.vocab)
        self.ranks = {m: r for r, m in enumerate(merges)}
        self.merges = merges

    def bpe(self, word):
        return apply_merges(word, self.ranks)

    def encode(self, text):
        return [self.ids[p] for w in pretokenize(text) for p in self.bpe(w)]

    def decode(self, ids):
        # Special tokens decode as their text; everything else through the byte map.
        out, raw = [], bytearray()
        for i in ids:
            if self.vocab[i] == EOT:
                out.append(raw.decode("utf-8", errors="replace"))
                raw = bytearray()
                out.append(EOT)
            else:
                raw += bytes(SYMBOL_BYTE[c] for c in self.vocab[i])
        out.append(raw.decode("utf-8", errors="replace"))
        return "".join(out)

# ------------------------------------------------------------------------------------------------ GPT-2


def gpt2_forward(P, cfg, ids, lengths):
    """GPT2LMHeadModel: ids (B, T) -> logits (B, T, V)."""
    B, T = ids.shape
    C, H, eps = cfg["n_embd"], cfg["n_head"], cfg["layer_norm_epsilon"]
    x = P["transformer.wte.weight"][ids] + P["transformer.wpe.weight"][torch.arange(T)][None]
    for i in range(cfg["n_layer"]):
        n = "transformer.h.%d." % i
        h = layer_norm(x, P[n + "ln_1.weight"], P[n + "ln_1.bias"], eps)
        qkv = h @ P[n + "attn.c_attn.weight"] + P[n + "attn.c_attn.bias"]  # Conv1D: x W + b, W (in, out)
        q, k, v = qkv.split(C, -1)
        a = attend(q, k, v, H, lengths, True)
        x = x + a @ P[n + "attn.c_proj.weight"] + P[n + "attn.c_proj.bias"]
        h = layer_norm(x, P[n + "ln_2.weight"], P[n + "ln_2.bias"], eps)
        m = gelu_new(h @ P[n + "mlp.c_fc.weight"] + P[n + "mlp.c_fc.bias"])
        x = x + m @ P[n + "mlp.c_proj.weight"] + P[n + "mlp.c_proj.bias"]
    x = layer_norm(x, P["transformer.ln_f.weight"], P["transformer.ln_f.bias"], eps)
    return x @ P["transformer.wte.weight"].T


def gpt2_greedy(P, cfg, prompt, margins):
    ids = list(prompt)
    for _ in range(NEW_TOKENS):
        lp = torch.log_softmax(gpt2_forward(P, cfg, torch.tensor([ids]), [len(ids)])[0, -1], -1)
        top = torch.topk(lp, 2)
        margins.append((top.values[0] - top.values[1]).item())
        ids.append(int(top.indices[0]))
    return ids[len(prompt):]


def gpt2_shapes(cfg):
    V, P, C, L = cfg["vocab_size"], cfg["n_positions"], cfg["n_embd"], cfg["n_layer"]
    F = cfg["n_inner"] or 4 * C
    out = [("transformer.wte.weight", (V, C)), ("transformer.wpe.weight", (P, C))]
    for i in range(L):
        n = "transformer.h.%d." % i
        out += [(n + "ln_1.weight", (C,)), (n + "ln_1.bias", (C,)),
                (n + "attn.c_attn.weight", (C, 3 * C)), (n + "attn.c_attn.bias", (3 * C,)),
                (n + "attn.c_proj.weight", (C, C)), (n + "attn.c_proj.bias", (C,)),
                (n + "ln_2.weight", (C,)), (n + "ln_2.bias", (C,)),
                (n + "mlp.c_fc.weight", (C, F)), (n + "mlp.c_fc.bias", (F,)),
                (n + "mlp.c_proj.weight", (F, C)), (n + "mlp.c_proj.bias", (C,))]
    out += [("transformer.ln_f.weight", (C,)), ("transformer.ln_f.bias", (C,))]
    return out


def gpt2_params(shapes, gen, rare_rows):
    P = {}
    for name, shape in shapes:
        if name.endswith("ln_1.weight") or name.endswith("ln_2.weight"):
            t = 1 + 0.2 * torch.randn(shape, generator=gen)
        elif name == "transformer.ln_f.weight":
            t = 2 * (1 + 0.2 * torch.randn(shape, generator=gen))  # sharper logits
        elif name.endswith(".bias"):
            t = 0.2 * torch.randn(shape, generator=gen)
        elif name == "transformer.wte.weight":
            t = torch.randn(shape, generator=gen)
            t[rare_rows] *= 0.1  # ids the corpus never makes stay near their initialisation
        elif name == "transformer.wpe.weight":
            t = 0.5 * torch.randn(shape, generator=gen)
        else:  # Conv1D (in, out)
            t = 2 * torch.randn(shape, generator=gen) / math.sqrt(shape[0])
        P[name] = t.to(torch.float32)
    return P


def make_gpt2(out):
    os.makedirs(out, exist_ok=True)
    tok = ByteBPE(learn_merges(CORPUS, GPT2_MERGES))
    V, C, Pn, L, H = len(tok.vocab), 32, 32, 2, 4
    eot = tok.ids[EOT]
    config = {
        "_name_or_path": "heptapod-test/gpt2-tiny", "activation_function": "gelu_new",
        "architectures": ["GPT2LMHeadModel"], "attn_pdrop": 0.1, "bos_token_id": eot, "embd_pdrop": 0.1,
        "eos_token_id": eot, "initializer_range": 0.02, "layer_norm_epsilon": 1e-05, "model_type": "gpt2",
        "n_ctx": Pn, "n_embd": C, "n_head": H, "n_inner": None, "n_layer": L, "n_positions": Pn,
        "reorder_and_upcast_attn": False, "resid_pdrop": 0.1, "scale_attn_by_inverse_layer_idx": False,
        "scale_attn_weights": True, "summary_activation": None, "summary_first_dropout": 0.1,
        "summary_proj_to_labels": True, "summary_type": "cls_index", "summary_use_proj": True,
        "task_specific_params": {"text-generation": {"do_sample": True, "max_length": 50}},
        "tie_word_embeddings": True, "transformers_version": "4.26.0", "use_cache": True, "vocab_size": V}
    shapes = gpt2_shapes(config)
    # Ids the tokenizer makes from the corpus's text (ASCII letters, digits, punctuation, space, newline, the
    # merges): the only ones a continuation may use.
    corpus_ids = set(tok.encode(CORPUS))
    rare = [i for i in range(V) if i not in corpus_ids]
    prompts = [tok.encode(p) for p in GPT2_PROMPTS]
    for p, text in zip(prompts, GPT2_PROMPTS):
        assert tok.decode(p) == text
    lengths = [len(p) for p in prompts]
    ids = padded(prompts, eot)
    for seed in range(1, int(os.environ.get("FIXTURE_SEEDS", "500"))):
        gen = torch.Generator().manual_seed(seed)
        P32 = gpt2_params(shapes, gen, rare)
        P = {k: v.to(D) for k, v in P32.items()}
        margins = []
        greedy = [gpt2_greedy(P, config, [eot] + p, margins) for p in prompts]  # after bos, as generate runs
        ok = min(margins) >= MARGIN and all(t in corpus_ids and t != eot for g in greedy for t in g) and \
            all(len(set(g)) >= 3 for g in greedy)
        if os.environ.get("FIXTURE_DEBUG"):
            print(seed, round(min(margins), 3), [tok.decode(g) for g in greedy], ok)
        if ok:
            break
    else:
        raise SystemExit("gpt2: no seed gives clear margins")
    logits = gpt2_forward(P, config, ids.long(), lengths)
    for b in range(len(prompts)):  # batching changes nothing
        alone = gpt2_forward(P, config, ids[b:b + 1, :lengths[b]].long(), [lengths[b]])
        assert torch.allclose(alone[0], logits[b, :lengths[b]], atol=1e-10), "batching changed the logits"
    texts = [tok.decode(p + g) for p, g in zip(prompts, greedy)]
    print("gpt2: seed %d, V %d, smallest margin %.3f, greedy %s" % (seed, V, min(margins), json.dumps(texts)))
    # The state dict as GPT2LMHeadModel holds it, with the attention buffers older checkpoints carry.
    state = []
    causal = torch.tril(torch.ones(Pn, Pn, dtype=torch.uint8)).view(1, 1, Pn, Pn)
    for name, _ in shapes:
        if name.endswith("ln_1.bias"):
            state += [(name, P32[name]), (name[:-len("ln_1.bias")] + "attn.bias", causal),
                      (name[:-len("ln_1.bias")] + "attn.masked_bias", torch.tensor(-1e4, dtype=torch.float32))]
        else:
            state.append((name, P32[name]))
    state.append(("lm_head.weight", P32["transformer.wte.weight"]))
    write_model(os.path.join(out, "model.safetensors"), state)
    write_json(os.path.join(out, "config.json"), config)
    with open(os.path.join(out, "vocab.json"), "w", encoding="utf-8") as f:
        f.write(json.dumps({p: i for i, p in enumerate(tok.vocab)}, ensure_ascii=True))  # as encoder.json
    with open(os.path.join(out, "merges.txt"), "w", encoding="utf-8") as f:
        f.write("#version: 0.2\n")
        for a, b in tok.merges:
            f.write("%s %s\n" % (a, b))
    ref = [("batch/input_ids", ids), ("batch/lengths", torch.tensor(lengths, dtype=torch.int32)),
           ("expect/logits", logits.to(torch.float32)), ("expect/greedy", torch.tensor(greedy, dtype=torch.int32))]
    write_reference(os.path.join(out, "reference.safetensors"), ref, {
        "family": "gpt2", "task": "causal-lm", "prompts": json.dumps(GPT2_PROMPTS),
        "prompt_ids": json.dumps(prompts), "greedy_text": json.dumps(texts)})

# ------------------------------------------------------------------------------------------------ BERT's WordPiece


BERT_SPECIAL = ["[PAD]", "[unused0]", "[unused1]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
BERT_PIECES = [".", ",", "!", "?", "'", "the", "cat", "sat", "on", "mat", "where", "is", "dog", "it", "play",
               "outside", "hello", "un", "s", "t", "don", "we", "like", "##ing", "##s", "##believ", "##able",
               "##ed", "##side", "out", "a", "##n"]
# (a, b): one sentence or a pair. "Zebras" has no covering pieces: WordPiece makes the whole word [UNK].
BERT_TEXTS = [("The cat sat on the [MASK].",), ("Where is the dog?", "It is playing outside."),
              ("Hello, zebras! Unbelievable cats.",)]


def is_punctuation(ch):
    o = ord(ch)
    return 33 <= o <= 47 or 58 <= o <= 64 or 91 <= o <= 96 or 123 <= o <= 126


class WordPiece:
    def __init__(self, vocab):
        self.vocab = vocab
        self.ids = {p: i for i, p in enumerate(vocab)}

    def basic(self, text):
        """BertTokenizer's basic tokenizer (do_lower_case, ASCII): special tokens kept whole, whitespace split,
        lower-case, punctuation split off as single characters."""
        out = []
        for part in re.split("(" + "|".join(re.escape(s) for s in BERT_SPECIAL[3:]) + ")", text):
            if part in BERT_SPECIAL:
                out.append(part)
                continue
            for word in part.lower().split():
                cur = ""
                for ch in word:
                    if is_punctuation(ch):
                        if cur:
                            out.append(cur)
                        out.append(ch)
                        cur = ""
                    else:
                        cur += ch
                if cur:
                    out.append(cur)
        return out

    def wordpiece(self, word):
        """Greedy longest-match-first; a word with no full covering is [UNK]."""
        if word in BERT_SPECIAL:
            return [word]
        pieces, start = [], 0
        while start < len(word):
            end = len(word)
            while end > start:
                piece = ("##" if start else "") + word[start:end]
                if piece in self.ids:
                    break
                end -= 1
            if end == start:
                return ["[UNK]"]
            pieces.append(piece)
            start = end
        return pieces

    def tokenize(self, text):
        return [p for w in self.basic(text) for p in self.wordpiece(w)]

    def encode(self, texts):
        """[CLS] a [SEP] (b [SEP]): ids and token types (1 on the second segment, its [SEP] included)."""
        a = ["[CLS]"] + self.tokenize(texts[0]) + ["[SEP]"]
        pieces, types = a, [0] * len(a)
        if len(texts) > 1:
            b = self.tokenize(texts[1]) + ["[SEP]"]
            pieces, types = a + b, types + [1] * len(b)
        return pieces, [self.ids[p] for p in pieces], types

# ------------------------------------------------------------------------------------------------ BERT


def bert_encode(P, cfg, ids, types, lengths):
    """BertModel: last hidden states (B, T, C)."""
    T = ids.shape[1]
    H, eps = cfg["num_attention_heads"], cfg["layer_norm_eps"]
    e = "bert.embeddings."
    x = P[e + "word_embeddings.weight"][ids] + P[e + "position_embeddings.weight"][torch.arange(T)][None] + \
        P[e + "token_type_embeddings.weight"][types]
    x = layer_norm(x, P[e + "LayerNorm.weight"], P[e + "LayerNorm.bias"], eps)
    lin = lambda t, n: t @ P[n + ".weight"].T + P[n + ".bias"]  # noqa: E731  nn.Linear: W (out, in)
    for i in range(cfg["num_hidden_layers"]):
        n = "bert.encoder.layer.%d." % i
        s = n + "attention.self."
        a = attend(lin(x, s + "query"), lin(x, s + "key"), lin(x, s + "value"), H, lengths, False)
        x = layer_norm(x + lin(a, n + "attention.output.dense"), P[n + "attention.output.LayerNorm.weight"],
                       P[n + "attention.output.LayerNorm.bias"], eps)
        f = lin(gelu(lin(x, n + "intermediate.dense")), n + "output.dense")
        x = layer_norm(x + f, P[n + "output.LayerNorm.weight"], P[n + "output.LayerNorm.bias"], eps)
    return x


def bert_pooled(P, h):
    return torch.tanh(h[:, 0] @ P["bert.pooler.dense.weight"].T + P["bert.pooler.dense.bias"])


def bert_mlm(P, cfg, h):
    t = gelu(h @ P["cls.predictions.transform.dense.weight"].T + P["cls.predictions.transform.dense.bias"])
    t = layer_norm(t, P["cls.predictions.transform.LayerNorm.weight"], P["cls.predictions.transform.LayerNorm.bias"],
                   cfg["layer_norm_eps"])
    return t @ P["bert.embeddings.word_embeddings.weight"].T + P["cls.predictions.bias"]


def bert_state_names(cfg, task):
    """(name, shape) in BertForMaskedLM's / BertForSequenceClassification's state-dict order (position_ids
    aside)."""
    V, C, F, T = cfg["vocab_size"], cfg["hidden_size"], cfg["intermediate_size"], cfg["max_position_embeddings"]
    e = "bert.embeddings."
    out = [(e + "word_embeddings.weight", (V, C)), (e + "position_embeddings.weight", (T, C)),
           (e + "token_type_embeddings.weight", (cfg["type_vocab_size"], C)),
           (e + "LayerNorm.weight", (C,)), (e + "LayerNorm.bias", (C,))]
    for i in range(cfg["num_hidden_layers"]):
        n = "bert.encoder.layer.%d." % i
        for p in ("attention.self.query", "attention.self.key", "attention.self.value", "attention.output.dense"):
            out += [(n + p + ".weight", (C, C)), (n + p + ".bias", (C,))]
        out += [(n + "attention.output.LayerNorm.weight", (C,)), (n + "attention.output.LayerNorm.bias", (C,)),
                (n + "intermediate.dense.weight", (F, C)), (n + "intermediate.dense.bias", (F,)),
                (n + "output.dense.weight", (C, F)), (n + "output.dense.bias", (C,)),
                (n + "output.LayerNorm.weight", (C,)), (n + "output.LayerNorm.bias", (C,))]
    out += [("bert.pooler.dense.weight", (C, C)), ("bert.pooler.dense.bias", (C,))]
    if task == "mlm":
        out += [("cls.predictions.bias", (V,)),
                ("cls.predictions.transform.dense.weight", (C, C)), ("cls.predictions.transform.dense.bias", (C,)),
                ("cls.predictions.transform.LayerNorm.weight", (C,)),
                ("cls.predictions.transform.LayerNorm.bias", (C,)),
                ("cls.seq_relationship.weight", (2, C)), ("cls.seq_relationship.bias", (2,))]
    else:
        out += [("classifier.weight", (len(cfg["id2label"]), C)), ("classifier.bias", (len(cfg["id2label"]),))]
    return out


def bert_params(shapes, gen):
    P = {}
    for name, shape in shapes:
        if name.endswith("LayerNorm.weight"):
            t = 1 + 0.2 * torch.randn(shape, generator=gen)
        elif name.endswith(".bias"):
            t = 0.2 * torch.randn(shape, generator=gen)
        elif "embeddings" in name:
            t = torch.randn(shape, generator=gen)
        elif name == "classifier.weight":
            t = 3 * torch.randn(shape, generator=gen) / math.sqrt(shape[1])
        else:
            t = torch.randn(shape, generator=gen) / math.sqrt(shape[1])
        P[name] = t.to(torch.float32)
    return P


def make_bert(out, task):
    os.makedirs(out, exist_ok=True)
    vocab = BERT_SPECIAL + BERT_PIECES
    tok = WordPiece(vocab)
    V, C, F, H, L, T = len(vocab), 32, 64, 4, 2, 64
    labels = ["negative", "neutral", "positive"]
    config = {
        "_name_or_path": "heptapod-test/bert-tiny-uncased", "attention_probs_dropout_prob": 0.1,
        "classifier_dropout": None, "gradient_checkpointing": False, "hidden_act": "gelu",
        "hidden_dropout_prob": 0.1, "hidden_size": C, "initializer_range": 0.02, "intermediate_size": F,
        "layer_norm_eps": 1e-12, "max_position_embeddings": T, "model_type": "bert", "num_attention_heads": H,
        "num_hidden_layers": L, "pad_token_id": 0, "position_embedding_type": "absolute",
        "transformers_version": "4.26.0", "type_vocab_size": 2, "use_cache": True, "vocab_size": V}
    if task == "mlm":
        config["architectures"] = ["BertForMaskedLM"]
    else:
        config["architectures"] = ["BertForSequenceClassification"]
        config["id2label"] = {str(i): l for i, l in enumerate(labels)}
        config["label2id"] = {l: i for i, l in enumerate(labels)}
        config["problem_type"] = "single_label_classification"
    shapes = bert_state_names(config, task)
    encoded = [tok.encode(t) for t in BERT_TEXTS]
    lengths = [len(ids) for _, ids, _ in encoded]
    ids = padded([e[1] for e in encoded], 0)
    types = padded([e[2] for e in encoded], 0)
    # Seeds from 1 (masked-LM: the first); the classifier's until its sentences do not all get one label and
    # each top probability leads the next by MARGIN.
    for seed in range(1, 100):
        P32 = bert_params(shapes, torch.Generator().manual_seed(seed))
        P = {k: v.to(D) for k, v in P32.items()}
        h = bert_encode(P, config, ids.long(), types.long(), lengths)
        if task == "mlm":
            break
        probs = torch.softmax(bert_pooled(P, h) @ P["classifier.weight"].T + P["classifier.bias"], -1)
        top = probs.topk(2, -1).values
        if len(set(probs.argmax(-1).tolist())) > 1 and (top[:, 0] - top[:, 1]).min() >= MARGIN:
            break
    else:
        raise SystemExit("bert: no seed gives distinct labels")
    for b in range(len(encoded)):  # batching changes nothing
        alone = bert_encode(P, config, ids[b:b + 1, :lengths[b]].long(), types[b:b + 1, :lengths[b]].long(),
                            [lengths[b]])
        assert torch.allclose(alone[0], h[b, :lengths[b]], atol=1e-10), "batching changed the hidden states"
    ref = [("batch/input_ids", ids), ("batch/token_type_ids", types),
           ("batch/lengths", torch.tensor(lengths, dtype=torch.int32)), ("expect/hidden", h.to(torch.float32))]
    meta = {"family": "bert", "texts": json.dumps([list(t) for t in BERT_TEXTS]),
            "tokens": json.dumps([e[0] for e in encoded])}
    # The state dict as the model holds it: position_ids first, tied decoder weight and bias.
    pos = [("bert.embeddings.position_ids", torch.arange(T, dtype=torch.int64)[None])]
    state = pos + [(n, P32[n]) for n, _ in shapes if not n.startswith("cls.seq_relationship")]
    if task == "mlm":
        logits = bert_mlm(P, config, h)
        ref.append(("expect/mlm_logits", logits.to(torch.float32)))
        meta["task"] = "masked-lm"
        state += [("cls.predictions.decoder.weight", P32["bert.embeddings.word_embeddings.weight"]),
                  ("cls.predictions.decoder.bias", P32["cls.predictions.bias"]),
                  ("cls.seq_relationship.weight", P32["cls.seq_relationship.weight"]),
                  ("cls.seq_relationship.bias", P32["cls.seq_relationship.bias"])]
        # The old TF-converted names: LayerNorm.gamma / LayerNorm.beta.
        state = [(re.sub(r"LayerNorm\.weight$", "LayerNorm.gamma", re.sub(r"LayerNorm\.bias$", "LayerNorm.beta", n)),
                  t) for n, t in state]
        mask_rows = (ids == tok.ids["[MASK]"]).nonzero().tolist()
        summary = "mask at %s, argmax there %s" % (mask_rows, [vocab[int(logits[b, t].argmax())] for b, t in mask_rows])
    else:
        pooled = bert_pooled(P, h)
        class_logits = pooled @ P["classifier.weight"].T + P["classifier.bias"]
        probs = torch.softmax(class_logits, -1)
        ref += [("expect/pooled", pooled.to(torch.float32)), ("expect/class_logits", class_logits.to(torch.float32)),
                ("expect/probs", probs.to(torch.float32))]
        meta["task"] = "sequence-classification"
        meta["labels"] = json.dumps(labels)
        summary = "probs %s" % [[round(p, 3) for p in row] for row in probs.tolist()]
    write_model(os.path.join(out, "model.safetensors"), state)
    write_json(os.path.join(out, "config.json"), config)
    with open(os.path.join(out, "vocab.txt"), "w", encoding="utf-8") as f:
        f.write("".join(p + "\n" for p in vocab))
    write_reference(os.path.join(out, "reference.safetensors"), ref, meta)
    print("%s: seed %d, V %d, tokens %s, %s" % (os.path.basename(out), seed, V,
                                                 json.dumps([e[0] for e in encoded]), summary))


def main():
    fixtures = os.path.join(REPO, "tests", "fixtures")
    which = sys.argv[1:] or ["gpt2", "bert", "bert_classifier"]
    if "gpt2" in which:
        make_gpt2(os.path.join(fixtures, "gpt2"))
    if "bert" in which:
        make_bert(os.path.join(fixtures, "bert"), "mlm")
    if "bert_classifier" in which:
        make_bert(os.path.join(fixtures, "bert_classifier"), "classifier")


if __name__ == "__main__":
    main()
