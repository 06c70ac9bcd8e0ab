#!/usr/bin/python3
# make_import_fixtures.py -- independent PyTorch references of two pre-trained model families, for the tests of
# `heptapod convert --from marian` and `--from fairseq` (tests/test_import.cpp).
#
# Each family is written out here from its documented math (Hugging Face's MarianMTModel; fairseq's
# TransformerModel with SinusoidalPositionalEmbedding and Dictionary), in float64, without Heptapod's code or
# names. Random weights are saved under the family's exact state-dict names and config keys, beside the files
# its tokenizer reads, in the directory layout the converter takes:
#
#   tests/fixtures/marian/   config.json, model.safetensors, vocab.json, source.spm, target.spm, reference.safetensors
#   tests/fixtures/fairseq/  cfg.json, model.safetensors (both through tools/export_state_dict.py from a
#                            fairseq-style checkpoint), dict.src.txt, dict.tgt.txt, sentencepiece.bpe.model,
#                            reference.safetensors
#
# The SentencePiece models are Heptapod's own (BPE on the numbers corpus of tests/data), made when missing with
#   HEPTAPOD=build/apps/heptapod /usr/bin/python3 tools/make_import_fixtures.py [marian] [fairseq]
# (source.spm: `heptapod vocab tests/data/numbers.train.en --size 60`, target.spm: the .es side; the fairseq
# model: both sides, --size 80). Their pieces are read here from the protobuf by hand.
#
# reference.safetensors (metadata format "heptapod-import-fixture", family, greedy_text):
#   batch/src I32 (B, S)      B = 3 sources of ordinary pieces, each ending with the family's </s>, right-padded
#   batch/src_len I32 (B)     </s> included
#   batch/tgt_in I32 (B, T)   the decoder start (Marian: pad; fairseq: </s>), then target ids, padded
#   batch/tgt_len I32 (B)
#   expect/logits F32 (B, T, V)   teacher-forced logits (float64 from the float32 weights)
#   expect/greedy, expect/beam I32 (B, L) padded with -1, and *_len I32 (B): outputs without start or end token
#   greedy_text (metadata): the greedy outputs decoded as the family's tokenizer does, as a JSON list
# The search mirrors src/heptapod/decode/beam_search.cpp (GNMT length penalty 0.6, beam 4, at most the source
# length + 50 tokens, the pad token and a start token other than </s> never emitted); the weights are drawn
# until every greedy step and every final beam ranking wins by a clear margin, so float32 rounding cannot flip
# a token. Deterministic: the same bytes on every run.

import json
import math
import os
import struct
import subprocess
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from make_parity_fixtures import REPO, check_round_trip, write_safetensors  # noqa: E402

torch.set_num_threads(1)
D = torch.float64
MARGIN = 0.05  # log-probability gap that every search decision must clear
EOS_ROW_SCALE = float(os.environ.get("EOS_ROW_SCALE", "1.5"))

# ------------------------------------------------------------------------------------------------ SentencePiece


def varint(buf, i):
    shift = value = 0
    while True:
        b = buf[i]
        i += 1
        value |= (b & 0x7F) << shift
        shift += 7
        if b < 0x80:
            return value, i


def spm_pieces(path):
    """[(piece, type)] of a SentencePiece ModelProto (field 1: SentencePiece {1: piece, 2: score, 3: type})."""
    buf = open(path, "rb").read()
    out, i = [], 0
    while i < len(buf):
        key, i = varint(buf, i)
        field, wire = key >> 3, key & 7
        if wire == 0:
            _, i = varint(buf, i)
            continue
        if wire == 5:
            i += 4
            continue
        if wire == 1:
            i += 8
            continue
        n, i = varint(buf, i)
        body = buf[i:i + n]
        i += n
        if field != 1:
            continue
        piece, kind, j = None, 1, 0
        while j < len(body):
            k, j = varint(body, j)
            f, w = k >> 3, k & 7
            if w == 2:
                m, j = varint(body, j)
                if f == 1:
                    piece = body[j:j + m].decode("utf-8")
                j += m
            elif w == 5:
                j += 4
            elif w == 0:
                v, j = varint(body, j)
                if f == 3:
                    kind = v
        out.append((piece, kind))
    return out


def ordinary(pieces):
    return [p for p, kind in pieces if kind == 1]  # NORMAL


def ensure_spm(path, inputs, size):
    if os.path.exists(path):
        return
    heptapod = os.environ.get("HEPTAPOD", os.path.join(REPO, "build", "apps", "heptapod"))
    subprocess.run([heptapod, "vocab", *inputs, "--size", str(size), "-o", path], check=True)


def render(pieces):
    return "".join(pieces).replace("\u2581", " ").strip()

# ------------------------------------------------------------------------------------------------ the math


def layer_norm(x, P, name):
    mean = x.mean(-1, keepdim=True)
    var = ((x - mean) ** 2).mean(-1, keepdim=True)
    return (x - mean) / torch.sqrt(var + 1e-5) * P[name + ".weight"] + P[name + ".bias"]


def linear(x, P, name, bias=True):
    y = x @ P[name + ".weight"].T
    return y + P[name + ".bias"] if bias else y


def attention(xq, xkv, P, name, heads, key_len, causal):
    B, Tq, C = xq.shape
    Tk = xkv.shape[1]
    hd = C // heads
    q = (linear(xq, P, name + ".q_proj") * hd ** -0.5).view(B, Tq, heads, hd).transpose(1, 2)
    k = linear(xkv, P, name + ".k_proj").view(B, Tk, heads, hd).transpose(1, 2)
    v = linear(xkv, P, name + ".v_proj").view(B, Tk, heads, hd).transpose(1, 2)
    scores = q @ k.transpose(-1, -2)  # (B, H, Tq, Tk)
    allowed = torch.arange(Tk)[None, :] < torch.tensor(key_len)[:, None]  # (B, Tk)
    allowed = allowed[:, None, None, :].expand(B, 1, Tq, Tk)
    if causal:
        allowed = allowed & (torch.arange(Tk)[None, :] <= torch.arange(Tq)[:, None])[None, None]
    scores = scores.masked_fill(~allowed, float("-inf"))
    out = torch.softmax(scores, -1) @ v
    return linear(out.transpose(1, 2).reshape(B, Tq, C), P, name + ".out_proj")


def activation(name, x):
    if name in ("swish", "silu"):
        return x * torch.sigmoid(x)
    if name == "gelu":
        return 0.5 * x * (1 + torch.erf(x / math.sqrt(2)))
    assert name == "relu"
    return torch.relu(x)


def sinusoids_marian(n, C):
    """HF MarianSinusoidalPositionalEmbedding: angle pos / 10000^(2j/C); sines in [0, C/2), cosines after."""
    pos = torch.arange(n, dtype=D)[:, None]
    angle = pos / torch.pow(torch.tensor(10000.0, dtype=D), 2 * torch.arange(C // 2, dtype=D) / C)[None, :]
    return torch.cat([torch.sin(angle), torch.cos(angle)], 1)


def sinusoids_fairseq(positions, C):
    """fairseq SinusoidalPositionalEmbedding (tensor2tensor's): freq_i = exp(-i ln(10000) / (C/2 - 1))."""
    half = C // 2
    freq = torch.exp(torch.arange(half, dtype=D) * -(math.log(10000.0) / (half - 1)))
    angle = torch.tensor(positions, dtype=D)[..., None] * freq
    return torch.cat([torch.sin(angle), torch.cos(angle)], -1)


class Family:
    """One model family: its forward pass over (src, src_len, tgt_in, tgt_len) -> logits (B, T, V)."""

    def __init__(self, name, P, cfg):
        self.name, self.P, self.cfg = name, P, cfg

    def embed(self, ids, side):
        C = self.cfg["d_model"]
        P = self.P
        if self.name == "marian":
            table = P["model.shared.weight"]
            x = table[ids] * (math.sqrt(C) if self.cfg["scale_embedding"] else 1.0)
            return x + sinusoids_marian(ids.shape[1], C)[None]
        table = P["encoder.embed_tokens.weight" if side == "src" else "decoder.embed_tokens.weight"]
        x = table[ids] * math.sqrt(C)
        # make_positions: padding_idx + 1 onwards for real tokens (right padding: the same for every row)
        pad = 1
        positions = [[pad + 1 + t for t in range(ids.shape[1])] for _ in range(ids.shape[0])]
        return x + sinusoids_fairseq(positions, C)

    def sublayer(self, x, f, norm):
        if self.cfg["pre"]:
            return x + f(layer_norm(x, self.P, norm))
        return layer_norm(x + f(x), self.P, norm)

    def forward(self, src, src_len, tgt_in, tgt_len):
        P, H, act = self.P, self.cfg["heads"], self.cfg["activation"]
        enc = "model.encoder.layers." if self.name == "marian" else "encoder.layers."
        dec = "model.decoder.layers." if self.name == "marian" else "decoder.layers."
        ffn = lambda x, n: linear(activation(act, linear(x, P, n + ".fc1")), P, n + ".fc2")  # noqa: E731
        x = self.embed(src, "src")
        for i in range(self.cfg["encoder_layers"]):
            n = enc + str(i)
            x = self.sublayer(x, lambda h: attention(h, h, P, n + ".self_attn", H, src_len, False), n + ".self_attn_layer_norm")
            x = self.sublayer(x, lambda h: ffn(h, n), n + ".final_layer_norm")
        if self.cfg["pre"]:
            x = layer_norm(x, P, "encoder.layer_norm")
        memory = x
        y = self.embed(tgt_in, "tgt")
        for i in range(self.cfg["decoder_layers"]):
            n = dec + str(i)
            y = self.sublayer(y, lambda h: attention(h, h, P, n + ".self_attn", H, tgt_len, True), n + ".self_attn_layer_norm")
            y = self.sublayer(y, lambda h: attention(h, memory, P, n + ".encoder_attn", H, src_len, False),
                              n + ".encoder_attn_layer_norm")
            y = self.sublayer(y, lambda h: ffn(h, n), n + ".final_layer_norm")
        if self.cfg["pre"]:
            y = layer_norm(y, P, "decoder.layer_norm")
        if self.name == "marian":
            return y @ P["lm_head.weight"].T + P["final_logits_bias"][0]
        return y @ P["decoder.output_projection.weight"].T

# ------------------------------------------------------------------------------------------------ search


def next_log_probs(model, source, prefix, start):
    src = torch.tensor([source])
    tgt = torch.tensor([[start] + prefix])
    logits = model.forward(src, [len(source)], tgt, [len(prefix) + 1])[0, -1]
    return torch.log_softmax(logits, -1)


def search(model, source, beam, start, eos, banned, margins, alpha=0.6, extra=50, forced=(), positions=None):
    """Heptapod's beam search (beam_search.cpp) by full recomputation; greedy is beam 1. Appends to margins
    the gaps that decided each step (greedy) or the final ranking. forced: the tokens every output begins with
    (a target language code), each taken with its log-probability; positions: a learned table's length, which
    caps the output's."""
    V = model.cfg["vocab_tgt"]
    top = min(2 * beam + len(banned), V)
    limit = len(source) + extra if positions is None else min(len(source) + extra, positions)
    rows = [([], 0.0)] + [([], float("-inf"))] * (beam - 1)
    finished = []
    step = 0
    lp = lambda n: ((5.0 + n) / 6.0) ** alpha  # noqa: E731
    while True:
        cands = []
        for r, (tokens, logp) in enumerate(rows):
            if not math.isfinite(logp):
                continue
            lps = next_log_probs(model, source, tokens, start)
            if step < len(forced):
                cands.append((logp + lps[forced[step]].item(), r, forced[step]))
                continue
            # the best `top` ids, ties to the smaller id (stable sort over ids in order)
            order = sorted(range(V), key=lambda v: -lps[v].item())[:top]
            if beam == 1:
                ranked = [v for v in order if v not in banned]
                margins.append(lps[ranked[0]].item() - lps[ranked[1]].item())
            for v in order:
                if v in banned:
                    continue
                cands.append((logp + lps[v].item(), r, v))
        cands.sort(key=lambda c: -c[0])  # stable: row order, then rank
        new_rows = []
        for i, (total, r, v) in enumerate(cands):
            if len(new_rows) >= beam:
                break
            if v == eos:
                if i < beam:
                    n = len(rows[r][0]) + 1
                    finished.append((total / lp(n), rows[r][0]))
                continue
            new_rows.append((rows[r][0] + [v], total))
        at_limit = step + 1 >= limit or not new_rows
        if len(finished) >= beam or at_limit:
            if len(finished) < beam:
                finished += [(logp / lp(len(tokens)), tokens) for tokens, logp in new_rows]
            break
        while len(new_rows) < beam:
            new_rows.append((new_rows[0][0], float("-inf")))
        rows = new_rows
        step += 1
    finished.sort(key=lambda f: -f[0])
    if beam > 1 and len(finished) > 1:
        margins.append(finished[0][0] - finished[1][0])
    return finished[0][1]

# ------------------------------------------------------------------------------------------------ the fixtures


def padded(rows, fill):
    width = max(1, max(len(r) for r in rows))
    return torch.tensor([r + [fill] * (width - len(r)) for r in rows], dtype=torch.int32)


def random_params(shapes, gen, embedding_names, embed_std):
    P = {}
    for name, shape in shapes:
        if name.endswith("layer_norm.weight"):
            t = 1 + 0.2 * torch.randn(shape, generator=gen)
        elif name.endswith("layer_norm.bias") or name.endswith(".bias") or name == "final_logits_bias":
            t = 0.2 * torch.randn(shape, generator=gen)
        elif name in embedding_names:
            t = embed_std * torch.randn(shape, generator=gen)
        else:
            t = torch.randn(shape, generator=gen) / math.sqrt(shape[-1])
        P[name] = t.to(torch.float32)
    return P


def layer_shapes(prefix, C, F, cross):
    out = []
    attns = ["self_attn"] + (["encoder_attn"] if cross else [])
    for a in attns:
        for proj in ("q_proj", "k_proj", "v_proj", "out_proj"):
            out += [(f"{prefix}.{a}.{proj}.weight", (C, C)), (f"{prefix}.{a}.{proj}.bias", (C,))]
        out += [(f"{prefix}.{a}_layer_norm.weight", (C,)), (f"{prefix}.{a}_layer_norm.bias", (C,))]
    out += [(f"{prefix}.fc1.weight", (F, C)), (f"{prefix}.fc1.bias", (F,)), (f"{prefix}.fc2.weight", (C, F)),
            (f"{prefix}.fc2.bias", (C,)), (f"{prefix}.final_layer_norm.weight", (C,)),
            (f"{prefix}.final_layer_norm.bias", (C,))]
    return out


def draw(make_params, cfg, name, sources, targets, start, eos, banned, decode_text, ordinary_ids):
    """Draws weights (seed 1, 2, ...) until every search decision clears MARGIN, the greedy outputs decode to
    ordinary pieces and one ends after a few tokens but before the limit. Returns (params, reference, texts)."""
    for seed in range(1, int(os.environ.get("FIXTURE_SEEDS", "200"))):
        gen = torch.Generator().manual_seed(seed)
        P32 = make_params(gen)
        model = Family(name, {k: v.to(D) for k, v in P32.items()}, cfg)
        margins = []
        greedy = [search(model, s, 1, start, eos, banned, margins) for s in sources]
        beams = [search(model, s, 4, start, eos, banned, margins) for s in sources]
        if os.environ.get("FIXTURE_DEBUG"):
            print(seed, round(min(margins), 3), [len(g) for g in greedy], [len(g) for g in beams],
                  all(v in ordinary_ids for g in greedy for v in g))
        if min(margins) < MARGIN or any(v not in ordinary_ids for g in greedy for v in g):
            continue
        # Outputs worth comparing: one that </s> ends after a few tokens, before the length limit.
        if not any(2 <= len(g) < len(s) + 50 for g, s in zip(greedy, sources)):
            continue
        src = padded(sources, cfg["pad"])
        src_len = [len(s) for s in sources]
        tgt_in = padded([[start] + t for t in targets], cfg["pad"])
        tgt_len = [len(t) + 1 for t in targets]
        logits = model.forward(src.long(), src_len, tgt_in.long(), tgt_len)
        # batch against one sentence at a time: padding changes nothing
        for b in range(len(sources)):
            alone = model.forward(src[b:b + 1, :src_len[b]].long(), [src_len[b]], tgt_in[b:b + 1, :tgt_len[b]].long(),
                                  [tgt_len[b]])
            assert torch.allclose(alone[0], logits[b, :tgt_len[b]], atol=1e-10), "batching changed the logits"
        ref = [("batch/src", src), ("batch/src_len", torch.tensor(src_len, dtype=torch.int32)),
               ("batch/tgt_in", tgt_in), ("batch/tgt_len", torch.tensor(tgt_len, dtype=torch.int32)),
               ("expect/logits", logits.to(torch.float32)),
               ("expect/greedy", padded(greedy, -1)),
               ("expect/greedy_len", torch.tensor([len(g) for g in greedy], dtype=torch.int32)),
               ("expect/beam", padded(beams, -1)),
               ("expect/beam_len", torch.tensor([len(g) for g in beams], dtype=torch.int32))]
        print("%s: seed %d, smallest margin %.3f, greedy lengths %s, beam lengths %s" % (
            name, seed, min(margins), [len(g) for g in greedy], [len(g) for g in beams]))
        return P32, ref, [decode_text(g) for g in greedy]
    raise SystemExit(name + ": no seed gives clear margins")


def write_reference(path, family, ref, texts):
    meta = {"format": "heptapod-import-fixture", "family": family, "greedy_text": json.dumps(texts)}
    write_safetensors(path, ref, meta)
    check_round_trip(path, ref, meta)


def make_marian(out):
    os.makedirs(out, exist_ok=True)
    data = os.path.join(REPO, "tests", "data")
    ensure_spm(os.path.join(out, "source.spm"), [os.path.join(data, "numbers.train.en")], 60)
    ensure_spm(os.path.join(out, "target.spm"), [os.path.join(data, "numbers.train.es")], 60)
    pieces = []
    for f in ("source.spm", "target.spm"):
        for p in ordinary(spm_pieces(os.path.join(out, f))):
            if p not in pieces:
                pieces.append(p)
    vocab = ["</s>", "<unk>"] + pieces + ["<pad>"]  # OPUS-MT: </s> 0, <unk> 1, ..., <pad> last
    V, C, F, H = len(vocab), 32, 48, 4
    pad, eos = V - 1, 0
    config = {
        "_name_or_path": "heptapod-test/opus-mt-tiny", "activation_dropout": 0.0, "activation_function": "swish",
        "architectures": ["MarianMTModel"], "attention_dropout": 0.0, "bad_words_ids": [[pad]], "bos_token_id": 0,
        "classifier_dropout": 0.0, "d_model": C, "decoder_attention_heads": H, "decoder_ffn_dim": F,
        "decoder_layerdrop": 0.0, "decoder_layers": 2, "decoder_start_token_id": pad, "decoder_vocab_size": V,
        "dropout": 0.1, "encoder_attention_heads": H, "encoder_ffn_dim": F, "encoder_layerdrop": 0.0,
        "encoder_layers": 2, "eos_token_id": eos, "forced_eos_token_id": eos, "init_std": 0.02,
        "is_encoder_decoder": True, "max_length": 64, "max_position_embeddings": 64, "model_type": "marian",
        "normalize_embedding": False, "num_beams": 4, "num_hidden_layers": 2, "pad_token_id": pad,
        "scale_embedding": True, "share_encoder_decoder_embeddings": True, "static_position_embeddings": True,
        "transformers_version": "4.22.0.dev0", "use_cache": True, "vocab_size": V}
    cfg = {"d_model": C, "heads": H, "encoder_layers": 2, "decoder_layers": 2, "activation": "swish",
           "scale_embedding": True, "pre": False, "pad": pad, "vocab_tgt": V}
    shapes = [("model.shared.weight", (V, C))]
    for i in range(2):
        shapes += layer_shapes("model.encoder.layers.%d" % i, C, F, False)
    for i in range(2):
        shapes += layer_shapes("model.decoder.layers.%d" % i, C, F, True)
    shapes += [("final_logits_bias", (1, V))]

    def make_params(gen):
        P = random_params(shapes, gen, {"model.shared.weight"}, 1.0)
        P["final_logits_bias"] = P["final_logits_bias"] * 5
        P["final_logits_bias"][0, eos] += 12  # random models loop on one token; this lets some sentences end
        P["lm_head.weight"] = P["model.shared.weight"]
        return P

    gen = torch.Generator().manual_seed(0)
    ids = list(range(2, V - 1))  # ordinary pieces
    sources = [[ids[int(torch.randint(len(ids), (1,), generator=gen))] for _ in range(n)] + [eos] for n in (5, 7, 1)]
    targets = [[ids[int(torch.randint(len(ids), (1,), generator=gen))] for _ in range(n)] for n in (3, 1, 7)]
    # Outputs decode through target.spm: only its pieces come back as themselves.
    target_pieces = set(ordinary(spm_pieces(os.path.join(out, "target.spm"))))
    P, ref, texts = draw(make_params, cfg, "marian", sources, targets, pad, eos, {pad},
                         lambda g: render([vocab[v] for v in g]), {i for i in ids if vocab[i] in target_pieces})
    # The state dict as MarianMTModel holds it: the shared matrix under all its tied names, and the positions.
    state = [("model.shared.weight", P["model.shared.weight"]),
             ("model.encoder.embed_tokens.weight", P["model.shared.weight"]),
             ("model.encoder.embed_positions.weight", sinusoids_marian(64, C).to(torch.float32))]
    state += [(n, P[n]) for n, _ in shapes if n.startswith("model.encoder.layers.")]
    state += [("model.decoder.embed_tokens.weight", P["model.shared.weight"]),
              ("model.decoder.embed_positions.weight", sinusoids_marian(64, C).to(torch.float32))]
    state += [(n, P[n]) for n, _ in shapes if n.startswith("model.decoder.layers.")]
    state += [("lm_head.weight", P["lm_head.weight"]), ("final_logits_bias", P["final_logits_bias"])]
    write_safetensors(os.path.join(out, "model.safetensors"), state, {"format": "pt"})
    with open(os.path.join(out, "config.json"), "w") as f:
        json.dump(config, f, indent=2, sort_keys=True)
        f.write("\n")
    with open(os.path.join(out, "vocab.json"), "w", encoding="utf-8") as f:
        json.dump({p: i for i, p in enumerate(vocab)}, f, ensure_ascii=False, indent=1)
        f.write("\n")
    write_reference(os.path.join(out, "reference.safetensors"), "marian", ref, texts)


def make_fairseq(out):
    os.makedirs(out, exist_ok=True)
    data = os.path.join(REPO, "tests", "data")
    spm = os.path.join(out, "sentencepiece.bpe.model")
    ensure_spm(spm, [os.path.join(data, "numbers.train.en"), os.path.join(data, "numbers.train.es")], 80)
    pieces = ordinary(spm_pieces(spm))
    # Two dictionaries over the one model, in different orders (fairseq sorts by count): src all pieces, tgt
    # all but the first three, reversed.
    dicts = {"src": pieces, "tgt": list(reversed(pieces[3:]))}
    tables = {}
    for side, entries in dicts.items():
        # fairseq's Dictionary.finalize pads to a multiple of 8 ids with madeupwords, which the file keeps.
        table = ["<s>", "<pad>", "</s>", "<unk>"] + entries
        while len(table) % 8:
            table.append("madeupword%04d" % (len(table) - 4 - len(entries)))
        with open(os.path.join(out, "dict.%s.txt" % side), "w", encoding="utf-8") as f:
            for k, p in enumerate(table[4:]):
                f.write("%s %d\n" % (p, 1000 - k if k < len(entries) else 0))
        tables[side] = table
    Vs, Vt, C, F, H = len(tables["src"]), len(tables["tgt"]), 32, 48, 4
    pad, eos = 1, 2
    cfg_model = {
        "_name": "transformer", "arch": "transformer", "activation_fn": "gelu", "dropout": 0.1,
        "attention_dropout": 0.0, "activation_dropout": 0.0, "encoder_embed_dim": C, "encoder_ffn_embed_dim": F,
        "encoder_layers": 2, "encoder_attention_heads": H, "encoder_normalize_before": True,
        "encoder_learned_pos": False, "decoder_embed_dim": C, "decoder_ffn_embed_dim": F, "decoder_layers": 3,
        "decoder_attention_heads": H, "decoder_normalize_before": True, "decoder_learned_pos": False,
        "decoder_output_dim": C, "decoder_input_dim": C, "share_decoder_input_output_embed": False,
        "share_all_embeddings": False, "no_scale_embedding": False, "layernorm_embedding": False,
        "no_token_positional_embeddings": False, "adaptive_softmax_cutoff": None, "no_decoder_final_norm": False,
        "cross_self_attention": False, "max_source_positions": 64, "max_target_positions": 64,
        "bpe": "sentencepiece", "sentencepiece_model": "/data/spm/sentencepiece.bpe.model"}
    cfg = {"d_model": C, "heads": H, "encoder_layers": 2, "decoder_layers": 3, "activation": "gelu",
           "pre": True, "pad": pad, "vocab_tgt": Vt}
    shapes = [("encoder.embed_tokens.weight", (Vs, C))]
    for i in range(2):
        shapes += layer_shapes("encoder.layers.%d" % i, C, F, False)
    shapes += [("encoder.layer_norm.weight", (C,)), ("encoder.layer_norm.bias", (C,)),
               ("decoder.embed_tokens.weight", (Vt, C))]
    for i in range(3):
        shapes += layer_shapes("decoder.layers.%d" % i, C, F, True)
    shapes += [("decoder.layer_norm.weight", (C,)), ("decoder.layer_norm.bias", (C,)),
               ("decoder.output_projection.weight", (Vt, C))]

    def make_params(gen):
        # An untied output layer (tied, a random pre-norm decoder only repeats its input token).
        P = random_params(shapes, gen, {"encoder.embed_tokens.weight", "decoder.embed_tokens.weight",
                                        "decoder.output_projection.weight"}, 1.0)
        # Rows a trained model leaves near their initialisation (<s>, <unk>, the padding words) small; </s>
        # likelier, so that some outputs end before the limit.
        out_rows = P["decoder.output_projection.weight"]
        for v in [0, 3] + list(range(4 + len(dicts["tgt"]), Vt)):
            out_rows[v] *= 0.1
        out_rows[eos] *= EOS_ROW_SCALE
        for n in ("encoder.layer_norm.weight", "decoder.layer_norm.weight"):
            P[n] = (1 + 0.2 * torch.randn(C, generator=gen)).to(torch.float32)
        for n in ("encoder.layer_norm.bias", "decoder.layer_norm.bias"):
            P[n] = (0.2 * torch.randn(C, generator=gen)).to(torch.float32)
        return P

    gen = torch.Generator().manual_seed(0)
    src_ids = list(range(4, 4 + len(dicts["src"])))
    tgt_ids = list(range(4, 4 + len(dicts["tgt"])))
    sources = [[src_ids[int(torch.randint(len(src_ids), (1,), generator=gen))] for _ in range(n)] + [eos]
               for n in (5, 7, 1)]
    targets = [[tgt_ids[int(torch.randint(len(tgt_ids), (1,), generator=gen))] for _ in range(n)] for n in (3, 1, 7)]
    # fairseq's sentencepiece decoding: pieces joined by spaces, spaces dropped, U+2581 -> space, stripped
    decode = lambda g: " ".join(tables["tgt"][v] for v in g).replace(" ", "").replace("\u2581", " ").strip()  # noqa: E731
    P, ref, texts = draw(make_params, cfg, "fairseq", sources, targets, eos, eos, {pad}, decode, set(tgt_ids))
    # The checkpoint's state dict, through tools/export_state_dict.py as a user would run it.
    state = {"encoder.version": torch.tensor([3.0]), "decoder.version": torch.tensor([3.0]),
             "encoder.embed_positions._float_tensor": torch.tensor([1.0]),
             "decoder.embed_positions._float_tensor": torch.tensor([1.0])}
    for n, _ in shapes:
        state[n] = P[n]
    import argparse
    import tempfile
    with tempfile.TemporaryDirectory() as tmp:
        ckpt = os.path.join(tmp, "checkpoint_best.pt")
        model_ns = argparse.Namespace(**{k: v for k, v in cfg_model.items() if k not in ("bpe", "sentencepiece_model")})
        torch.save({"model": state, "cfg": {"model": model_ns, "bpe": {"_name": "sentencepiece",
                                                                       "sentencepiece_model": cfg_model["sentencepiece_model"]}}},
                   ckpt)
        tool = os.path.join(REPO, "tools", "export_state_dict.py")
        subprocess.run([sys.executable, tool, ckpt, "-o", os.path.join(out, "model.safetensors"), "--config-out",
                        os.path.join(out, "cfg.json")], check=True, stdout=subprocess.DEVNULL)
    write_reference(os.path.join(out, "reference.safetensors"), "fairseq", ref, texts)


def main():
    fixtures = os.path.join(REPO, "tests", "fixtures")
    families = sys.argv[1:] or ["marian", "fairseq"]
    if "marian" in families:
        make_marian(os.path.join(fixtures, "marian"))
    if "fairseq" in families:
        make_fairseq(os.path.join(fixtures, "fairseq"))


if __name__ == "__main__":
    main()
