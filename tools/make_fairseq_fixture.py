#!/usr/bin/python3
# make_fairseq_fixture.py -- an independent PyTorch reference of fairseq's `transformer` model family, and the
# fixture that `heptapod convert --from fairseq` is tested against (tests/test_import.cpp).
#
# The model is written out here, in float64, from fairseq's documented math (TransformerModel with
# TransformerEncoder/TransformerDecoder, pre-norm layers, SinusoidalPositionalEmbedding with make_positions,
# Dictionary, the sentencepiece BPE); nothing of Heptapod's model code or names is used. Random float32 weights
# are stored under fairseq's exact state-dict names, in a fake fairseq checkpoint that goes through
# tools/export_state_dict.py (so the export route is exercised too). It writes tests/fixtures/fairseq/:
#
#   sentencepiece.bpe.model  Heptapod's own SentencePiece model (joint BPE, 72 pieces, no byte fallback), made
#                            only when missing (or with --train-spm) by
#                              build/heptapod vocab tests/data/numbers.train.en tests/data/numbers.train.es \
#                                -o tests/fixtures/fairseq/sentencepiece.bpe.model --model bpe --size 72
#                            (HEPTAPOD=path overrides the binary); otherwise the committed file is reused, so
#                            regenerating needs no binary. Its pieces are read here from the protobuf by hand.
#   dict.src.txt             fairseq Dictionary files as fairseq-preprocess writes them: "piece count" lines,
#   dict.tgt.txt             counts descending (ties by piece), then "madeupword0000 0", ... up to a multiple
#                            of 8 ids; ids are <s> 0, <pad> 1, </s> 2, <unk> 3, then the lines in order.
#                            src: the pieces of the English side (numbers.train.en), tgt: of the Spanish side,
#                            with their real counts, so the two dictionaries have different sizes and orders.
#   model.safetensors        the checkpoint's "model" state dict (F32, fairseq names), and
#   cfg.json                 its architecture settings, both written by
#                              tools/export_state_dict.py checkpoint_best.pt -o model.safetensors --config-out cfg.json
#                            from a checkpoint {"model": state dict, "cfg": {"model": argparse.Namespace(...),
#                            "bpe": {"_name": "sentencepiece", "sentencepiece_model": ...}, ...}}.
#   reference.safetensors    metadata format "heptapod-import-fixture", format_version, family "fairseq",
#                            greedy_text (JSON list), beam, length_penalty; tensors
#     batch/src I32 (B, S)     B = 3 sources of ordinary src-dict ids (5, 7, 1 of them), each + </s> (2),
#                              right-padded with <pad> (1)
#     batch/src_len I32 (B)    </s> included
#     batch/tgt_in I32 (B, T)  </s> (fairseq's decoder start) + ordinary tgt-dict ids, 4 / 2 / 8 positions, padded 1
#     batch/tgt_len I32 (B)    start token included
#     expect/logits F32 (B, T, V_tgt)  teacher-forced logits, float64 from the float32 weights; rows t >= tgt_len
#                              are what fairseq computes for pad inputs (position row zero) and are not compared
#     expect/greedy, expect/beam I32 (B, L) padded with -1, expect/greedy_len, expect/beam_len I32 (B): the
#                              search outputs without start or end token (greedy = beam 1; beam 4, alpha 0.6)
#
# The architecture (cfg.model, fairseq's field names): arch transformer, 32-wide, FFN 48, 4 heads, 2 encoder and
# 3 decoder layers, encoder/decoder_normalize_before (so encoder.layer_norm and decoder.layer_norm exist),
# activation_fn gelu (exact erf), share_decoder_input_output_embed (decoder.output_projection.weight equals
# decoder.embed_tokens.weight), sinusoidal positions, embeddings scaled by sqrt(32), max positions 64.
#
# The search mirrors src/heptapod/decode/beam_search.cpp, not fairseq's SequenceGenerator: log_softmax over the
# whole target vocabulary, the pad id never emitted (dropped after log_softmax, no renormalisation; the start
# token is </s> so nothing else is banned and <s> may be emitted), each row's best 2k + 1 tokens, the best 2k
# extensions of a sentence's rows ranked by total log-probability (stable), an end token finishes a hypothesis
# only when ranked within the first k, the beam is the first k other extensions, a sentence stops once k
# hypotheses ended or after source length (</s> included) + 50 output tokens (then its live rows finish without
# an end token), hypotheses ranked by log_prob / ((5 + |Y|) / 6)^0.6 with |Y| counting the end token.
# The weights are drawn (seed after seed) until every greedy step wins by more than 0.05 in log-probability,
# every beam decision (which extensions enter the beam, which ends rank within k) and the final ranking is
# clear by more than 0.05, the greedy outputs are ordinary tgt-dict pieces whose text the SentencePiece model
# encodes back into tgt-dict pieces, and beam and greedy differ somewhere, so float32 (and a float16 cache)
# cannot flip a token.
#
# Self-checks: every written file is read back (safetensors tensor by tensor, the dictionaries the way
# fairseq's Dictionary.add_from_file parses them, cfg.json against the Namespace); the exported tensors equal
# the checkpoint's; the batched logits equal each sentence run alone without padding; the attention equals
# torch's F.multi_head_attention_forward; every search step's log-probabilities equal the teacher-forced ones
# of the same prefix; the Python BPE encoder reproduces the corpus pieces' coverage.
#
# Run with Debian's interpreter (python3-torch 1.13; torch and the standard library only):
#   /usr/bin/python3 tools/make_fairseq_fixture.py [--out-dir DIR] [--train-spm]
# Deterministic: the same bytes on every run (given the same sentencepiece.bpe.model).

import argparse
import collections
import json
import math
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import unicodedata

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from make_parity_fixtures import check_round_trip, read_safetensors, write_safetensors  # noqa: E402

torch.set_num_threads(1)  # deterministic reductions

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TOOLS = os.path.join(REPO, "tools")
CORPUS_EN = os.path.join(REPO, "tests", "data", "numbers.train.en")
CORPUS_ES = os.path.join(REPO, "tests", "data", "numbers.train.es")
SPM_NAME = "sentencepiece.bpe.model"
SPM_SIZE = 72

# fairseq's Dictionary
BOS, PAD, EOS, UNK = 0, 1, 2, 3
SPECIALS = ["<s>", "<pad>", "</s>", "<unk>"]
PADDING_FACTOR = 8

# The model (fairseq field names); the search
C, FFN, HEADS, ENC_LAYERS, DEC_LAYERS, MAX_POSITIONS = 32, 48, 4, 2, 3, 64
LN_EPS = 1e-5
BEAM, ALPHA, MAX_EXTRA = 4, 0.6, 50
MARGIN = 0.05
SRC_LENS, TGT_LENS = [5, 7, 1], [4, 2, 8]  # source tokens before </s>; decoder positions with the start token
BATCH_SEED, FIRST_WEIGHT_SEED, MAX_DRAWS = 20251202, 1000, 400


def model_namespace():
    """cfg["model"] as a fairseq >= 0.10 checkpoint of a legacy (argparse) model holds it: the whole command
    line, after base_architecture filled in the architecture's defaults."""
    return argparse.Namespace(
        _name="transformer", arch="transformer", task="translation", data="data-bin/numbers",
        source_lang="en", target_lang="es", criterion="label_smoothed_cross_entropy", label_smoothing=0.1,
        optimizer="adam", adam_betas="(0.9, 0.98)", adam_eps=1e-08, lr=[0.0005], lr_scheduler="inverse_sqrt",
        warmup_updates=4000, clip_norm=0.0, weight_decay=0.0001, max_tokens=4096, seed=1, fp16=False,
        bpe="sentencepiece", sentencepiece_model=SPM_NAME, tokenizer=None, user_dir=None,
        left_pad_source=True, left_pad_target=False, eval_bleu=False,
        encoder_embed_path=None, encoder_embed_dim=C, encoder_ffn_embed_dim=FFN, encoder_layers=ENC_LAYERS,
        encoder_attention_heads=HEADS, encoder_normalize_before=True, encoder_learned_pos=False,
        decoder_embed_path=None, decoder_embed_dim=C, decoder_ffn_embed_dim=FFN, decoder_layers=DEC_LAYERS,
        decoder_attention_heads=HEADS, decoder_normalize_before=True, decoder_learned_pos=False,
        attention_dropout=0.0, activation_dropout=0.0, relu_dropout=0.0, activation_fn="gelu", dropout=0.1,
        adaptive_softmax_cutoff=None, adaptive_softmax_dropout=0, share_decoder_input_output_embed=True,
        share_all_embeddings=False, merge_src_tgt_embed=False, no_token_positional_embeddings=False,
        adaptive_input=False, no_cross_attention=False, cross_self_attention=False, decoder_output_dim=C,
        decoder_input_dim=C, no_scale_embedding=False, layernorm_embedding=False, tie_adaptive_weights=False,
        checkpoint_activations=False, offload_activations=False, encoder_layers_to_keep=None,
        decoder_layers_to_keep=None, encoder_layerdrop=0, decoder_layerdrop=0, quant_noise_pq=0,
        quant_noise_pq_block_size=8, quant_noise_scalar=0, max_source_positions=MAX_POSITIONS,
        max_target_positions=MAX_POSITIONS, no_decoder_final_norm=False, base_layers=0, export=False,
        min_params_to_wrap=100000000, char_inputs=False)


# --------------------------------------------------------------------------------------------
# SentencePiece: the model protobuf by hand, and its BPE segmentation
# --------------------------------------------------------------------------------------------

def _varint(b, i):
    value, shift = 0, 0
    while True:
        c = b[i]
        i += 1
        value |= (c & 0x7F) << shift
        shift += 7
        if c < 0x80:
            return value, i


def _fields(b):
    """(field number, wire type, value) of a protobuf message: ints for varints, bytes otherwise."""
    i = 0
    while i < len(b):
        key, i = _varint(b, i)
        number, wire = key >> 3, key & 7
        if wire == 0:
            value, i = _varint(b, i)
        elif wire == 1:
            value, i = b[i:i + 8], i + 8
        elif wire == 2:
            n, i = _varint(b, i)
            value, i = b[i:i + n], i + n
        elif wire == 5:
            value, i = b[i:i + 4], i + 4
        else:
            raise ValueError("protobuf wire type %d" % wire)
        yield number, wire, value


def read_spm(path):
    """ModelProto: 1 repeated SentencePiece {1 piece, 2 score (float), 3 type (1 normal, 2 unknown, 3 control,
    4 user defined, 5 unused, 6 byte)}, 2 TrainerSpec {3 model_type (2 = BPE), 35 byte_fallback}, 3 NormalizerSpec
    {1 name, 3 add_dummy_prefix, 4 remove_extra_whitespaces, 5 escape_whitespaces}."""
    with open(path, "rb") as f:
        data = f.read()
    pieces, trainer, normalizer = [], {}, {}
    for number, _, value in _fields(data):
        if number == 1:
            p = {"piece": None, "score": 0.0, "type": 1}
            for n, _, v in _fields(value):
                if n == 1:
                    p["piece"] = v.decode("utf-8")
                elif n == 2:
                    p["score"] = struct.unpack("<f", v)[0]
                elif n == 3:
                    p["type"] = v
            pieces.append(p)
        elif number == 2:
            trainer = {n: v for n, _, v in _fields(value)}
        elif number == 3:
            normalizer = {n: v for n, _, v in _fields(value)}
    assert trainer.get(3) == 2, "%s: not a BPE model" % path
    assert not trainer.get(35, 0), "%s: byte fallback is on" % path
    assert normalizer.get(1) == b"nmt_nfkc", normalizer.get(1)
    for key in (3, 4, 5):  # add_dummy_prefix, remove_extra_whitespaces, escape_whitespaces: the defaults
        assert normalizer.get(key, 1) == 1, key
    return pieces


class BpeEncoder:
    """SentencePiece's BPE segmentation: normalise (NFKC; the corpus holds nothing where nmt_nfkc's extra rules
    differ), squeeze whitespace, prefix U+2581, spaces -> U+2581, then merge adjacent symbols into the
    highest-scoring piece until no pair forms one (leftmost first among equal scores)."""

    def __init__(self, pieces):
        self.score = {p["piece"]: p["score"] for p in pieces if p["type"] in (1, 4)}

    def encode(self, text):
        text = " ".join(unicodedata.normalize("NFKC", text).split())
        symbols = list("\u2581" + text.replace(" ", "\u2581"))
        while True:
            best, at = None, -1
            for i in range(len(symbols) - 1):
                s = self.score.get(symbols[i] + symbols[i + 1])
                if s is not None and (best is None or s > best):
                    best, at = s, i
            if best is None:
                return symbols
            symbols[at:at + 2] = [symbols[at] + symbols[at + 1]]


def fairseq_decode(pieces):
    """fairseq's sentencepiece post-processing of Dictionary.string(): pieces joined by spaces, the spaces
    removed, U+2581 -> space, stripped."""
    return " ".join(pieces).replace(" ", "").replace("\u2581", " ").strip()


# --------------------------------------------------------------------------------------------
# fairseq's Dictionary
# --------------------------------------------------------------------------------------------

def dictionary_lines(counter):
    """What Dictionary.finalize() + save() write: the non-special symbols by count, descending (ties in symbol
    order: the Counter is built from sorted items and most_common is stable), then the madeupword padding
    symbols (count 0) that make the size, specials included, a multiple of 8."""
    ordered = sorted(counter.items(), key=lambda kv: (-kv[1], kv[0]))
    lines = ["%s %d" % (w, c) for w, c in ordered]
    i = 0
    while (len(SPECIALS) + len(lines)) % PADDING_FACTOR:
        lines.append("madeupword%04d 0" % i)
        i += 1
    return lines


def load_dictionary(path):
    """Dictionary.load(): the four specials, then each line's symbol (everything before the last space; a
    trailing '#fairseq:overwrite' flag allowed), in order."""
    symbols = list(SPECIALS)
    with open(path, encoding="utf-8") as f:
        for line in f:
            word, field = line.rstrip().rsplit(" ", 1)
            overwrite = field == "#fairseq:overwrite"
            if overwrite:
                word, field = word.rsplit(" ", 1)
            int(field)
            assert overwrite or word not in symbols, "duplicate %r in %s" % (word, path)
            symbols.append(word)
    return symbols


# --------------------------------------------------------------------------------------------
# The model, float64
# --------------------------------------------------------------------------------------------

def make_positions(tokens):
    """fairseq.utils.make_positions: the k-th non-pad token (k from 1) gets padding_idx + k, pads get padding_idx."""
    mask = tokens.ne(PAD).long()
    return torch.cumsum(mask, dim=1) * mask + PAD


def sinusoid_table(n):
    """SinusoidalPositionalEmbedding.get_embedding(n, C, padding_idx): row p = [sin(p w_i) | cos(p w_i)],
    w_i = exp(-i ln(10000) / (C/2 - 1)), i < C/2; the padding_idx row is zero. (fairseq builds it in float32.)"""
    half = C // 2
    w = torch.exp(torch.arange(half, dtype=torch.float64) * -(math.log(10000.0) / (half - 1)))
    angle = torch.arange(n, dtype=torch.float64)[:, None] * w[None, :]
    table = torch.cat([torch.sin(angle), torch.cos(angle)], dim=1)
    table[PAD] = 0
    return table


def layer_norm(x, P, name):
    return F.layer_norm(x, (C,), P[name + ".weight"], P[name + ".bias"], LN_EPS)


def linear(x, P, name, bias=True):
    y = x @ P[name + ".weight"].t()
    return y + P[name + ".bias"] if bias else y


def attention(P, name, query, key, key_pad, causal):
    """fairseq MultiheadAttention: q = q_proj(x) * head_dim^-0.5, k, v; future positions -inf (causal),
    key_padding_mask -inf, softmax, heads concatenated, out_proj. query (B, Tq, C), key (B, K, C)."""
    B, Tq, _ = query.shape
    K = key.shape[1]
    D = C // HEADS
    q = (linear(query, P, name + ".q_proj") * D ** -0.5).reshape(B, Tq, HEADS, D).transpose(1, 2)
    k = linear(key, P, name + ".k_proj").reshape(B, K, HEADS, D).transpose(1, 2)
    v = linear(key, P, name + ".v_proj").reshape(B, K, HEADS, D).transpose(1, 2)
    scores = q @ k.transpose(-1, -2)
    if causal:
        scores = scores + torch.triu(torch.full((Tq, K), float("-inf"), dtype=scores.dtype), 1)
    scores = scores.masked_fill(key_pad[:, None, None, :], float("-inf"))
    o = (torch.softmax(scores, dim=-1) @ v).transpose(1, 2).reshape(B, Tq, C)
    return linear(o, P, name + ".out_proj")


def ffn(P, name, x):
    return linear(F.gelu(linear(x, P, name + ".fc1")), P, name + ".fc2")


def encoder(P, src):
    """TransformerEncoder.forward, pre-norm: (B, S) ids with </s>, padded with <pad> -> (B, S, C), pad mask."""
    pad = src.eq(PAD)
    x = math.sqrt(C) * P["encoder.embed_tokens.weight"][src] + sinusoid_table(src.shape[1] + PAD + 1)[make_positions(src)]
    x = x * (~pad)[..., None].to(x.dtype)  # fairseq zeroes the padded rows
    for i in range(ENC_LAYERS):
        p = "encoder.layers.%d" % i
        h = layer_norm(x, P, p + ".self_attn_layer_norm")
        x = x + attention(P, p + ".self_attn", h, h, pad, False)
        x = x + ffn(P, p, layer_norm(x, P, p + ".final_layer_norm"))
    return layer_norm(x, P, "encoder.layer_norm"), pad


def decoder(P, prev, memory, memory_pad):
    """TransformerDecoder.forward, pre-norm, teacher-forced: (B, T) ids starting with </s> -> logits (B, T, V)."""
    self_pad = prev.eq(PAD)
    x = math.sqrt(C) * P["decoder.embed_tokens.weight"][prev] + sinusoid_table(prev.shape[1] + PAD + 1)[make_positions(prev)]
    for i in range(DEC_LAYERS):
        p = "decoder.layers.%d" % i
        h = layer_norm(x, P, p + ".self_attn_layer_norm")
        x = x + attention(P, p + ".self_attn", h, h, self_pad, True)
        x = x + attention(P, p + ".encoder_attn", layer_norm(x, P, p + ".encoder_attn_layer_norm"), memory,
                          memory_pad, False)
        x = x + ffn(P, p, layer_norm(x, P, p + ".final_layer_norm"))
    x = layer_norm(x, P, "decoder.layer_norm")
    return linear(x, P, "decoder.output_projection", bias=False)


def logits_of(P, src, prev):
    memory, memory_pad = encoder(P, src)
    return decoder(P, prev, memory, memory_pad)


# --------------------------------------------------------------------------------------------
# Weights under fairseq's names, in the order fairseq's state_dict() lists them
# --------------------------------------------------------------------------------------------

def make_state_dict(gen, Vs, Vt, tgt_quiet):
    """float32 tensors. Embeddings N(0, C^-0.5) with the pad row zero (fairseq's Embedding), xavier-uniform
    linears, small random biases, layer norms 1 +- 0.1, except the decoder's final layer norm, scaled up so that
    the output distributions are peaked. tgt_quiet: target ids (<s>, <unk>, madeupwords) whose rows are shrunk,
    as in a trained model, where they are rarely the best token."""
    sd = collections.OrderedDict()

    def uniform(shape, bound):
        return (torch.rand(shape, generator=gen, dtype=torch.float64) * 2 - 1) * bound

    def embedding(V):
        t = torch.randn((V, C), generator=gen, dtype=torch.float64) * C ** -0.5
        t[PAD] = 0
        return t

    def lin(name, n_out, n_in):
        sd[name + ".weight"] = uniform((n_out, n_in), math.sqrt(6.0 / (n_out + n_in)))
        sd[name + ".bias"] = uniform((n_out,), 0.1)

    def norm(name, scale=1.0):
        sd[name + ".weight"] = (1.0 + uniform((C,), 0.1)) * scale
        sd[name + ".bias"] = uniform((C,), 0.1)

    def mha(name):
        for proj in ("k_proj", "v_proj", "q_proj", "out_proj"):  # MultiheadAttention's registration order
            lin(name + "." + proj, C, C)

    sd["encoder.version"] = torch.tensor([3.0])
    sd["encoder.embed_tokens.weight"] = embedding(Vs)
    sd["encoder.embed_positions._float_tensor"] = torch.zeros(1)  # the sinusoid's only state: a dtype probe
    for i in range(ENC_LAYERS):
        p = "encoder.layers.%d" % i
        mha(p + ".self_attn")
        norm(p + ".self_attn_layer_norm")
        lin(p + ".fc1", FFN, C)
        lin(p + ".fc2", C, FFN)
        norm(p + ".final_layer_norm")
    norm("encoder.layer_norm")
    sd["decoder.version"] = torch.tensor([3.0])
    tgt = embedding(Vt)
    tgt[tgt_quiet] *= 0.25
    sd["decoder.embed_tokens.weight"] = tgt
    sd["decoder.embed_positions._float_tensor"] = torch.zeros(1)
    for i in range(DEC_LAYERS):
        p = "decoder.layers.%d" % i
        mha(p + ".self_attn")
        norm(p + ".self_attn_layer_norm")
        mha(p + ".encoder_attn")
        norm(p + ".encoder_attn_layer_norm")
        lin(p + ".fc1", FFN, C)
        lin(p + ".fc2", C, FFN)
        norm(p + ".final_layer_norm")
    norm("decoder.layer_norm", scale=4.0)
    out = collections.OrderedDict((k, v.float()) for k, v in sd.items())
    out["decoder.output_projection.weight"] = out["decoder.embed_tokens.weight"]  # shared: the same tensor
    return out


# --------------------------------------------------------------------------------------------
# Search, as src/heptapod/decode/beam_search.cpp does it
# --------------------------------------------------------------------------------------------

def length_penalty(length, alpha):
    return 1.0 if alpha == 0 else ((5.0 + length) / 6.0) ** alpha


class Unclear(Exception):
    """A decision that float32 rounding could flip: draw other weights."""


def search(P, source, beam, alpha, check, banned=(PAD,)):
    """source: ids without </s>. Returns (tokens of the best hypothesis, list of per-step log-prob rows for the
    consistency check). Raises Unclear where a decision wins by less than MARGIN (when check is set)."""
    src = torch.tensor([source + [EOS]])
    src_len = len(source) + 1
    memory, memory_pad = encoder(P, src)
    limit = src_len + MAX_EXTRA
    k = beam
    top = min(2 * k + len(banned), P["decoder.output_projection.weight"].shape[0])
    rows = [{"tokens": [], "log_prob": 0.0 if r == 0 else float("-inf")} for r in range(k)]
    finished = []
    step = 0
    trace = []
    while True:
        prev = torch.tensor([[EOS] + r["tokens"] for r in rows])
        logits = decoder(P, prev, memory.expand(k, -1, -1), memory_pad.expand(k, -1))[:, -1, :]
        logp = torch.log_softmax(logits, dim=-1)
        trace.append((prev, logp))
        cands = []
        for r, row in enumerate(rows):
            if not math.isfinite(row["log_prob"]):
                continue
            values, ids = torch.topk(logp[r], top)
            for value, token in zip(values.tolist(), ids.tolist()):
                if token in banned:
                    continue
                cands.append((row["log_prob"] + value, r, token))
        cands.sort(key=lambda c: -c[0])  # stable, as std::stable_sort
        if check:
            clear_decisions(cands, k, beam == 1)
        new_beam = []
        for i, (total, r, token) in enumerate(cands):
            if len(new_beam) >= k:
                break
            if token == EOS:
                if i < k:
                    tokens = list(rows[r]["tokens"])
                    finished.append((total / length_penalty(len(tokens) + 1, alpha), total, tokens))
                continue
            new_beam.append({"tokens": rows[r]["tokens"] + [token], "log_prob": total})
        at_limit = step + 1 >= limit or not new_beam
        if len(finished) >= k or at_limit:
            if len(finished) < k:
                for row in new_beam:
                    finished.append((row["log_prob"] / length_penalty(len(row["tokens"]), alpha),
                                     row["log_prob"], row["tokens"]))
            break
        while len(new_beam) < k:
            new_beam.append({"tokens": list(new_beam[0]["tokens"]), "log_prob": float("-inf")})
        rows = new_beam
        step += 1
    finished.sort(key=lambda h: -h[0])
    if check and len(finished) > 1 and finished[0][0] - finished[1][0] <= MARGIN:
        raise Unclear("final ranking %.4f vs %.4f" % (finished[0][0], finished[1][0]))
    return finished[0][2], trace


def clear_decisions(cands, k, greedy):
    """Every outcome of one step must survive perturbations below MARGIN: greedy, the best token against the
    second; beam, the k-th non-end extension against the (k+1)-th (which rows survive), and each end token's
    rank against the k boundary (whether it finishes)."""
    totals = [c[0] for c in cands]
    if greedy:
        if len(totals) > 1 and totals[0] - totals[1] <= MARGIN:
            raise Unclear("greedy step %.4f vs %.4f" % (totals[0], totals[1]))
        return
    others = [c[0] for c in cands if c[2] != EOS]
    if len(others) > k and others[k - 1] - others[k] <= MARGIN:
        raise Unclear("beam cut %.4f vs %.4f" % (others[k - 1], others[k]))
    for i, c in enumerate(cands):
        if c[2] != EOS:
            continue
        above = sum(1 for t in totals if t > c[0] + MARGIN)  # ranked above it under any perturbation
        near = sum(1 for j, t in enumerate(totals) if j != i and abs(t - c[0]) <= MARGIN)
        if not (above + near < k or above >= k):  # its rank could fall on either side of k
            raise Unclear("end token at rank %d is near the beam boundary" % i)


# --------------------------------------------------------------------------------------------
# Checks of the reference itself
# --------------------------------------------------------------------------------------------

def check_attention_against_torch(P):
    """The attention above equals F.multi_head_attention_forward (the kernel fairseq itself calls) with the
    same separate projections, key padding and causal mask."""
    gen = torch.Generator().manual_seed(7)
    x = torch.randn(2, 5, C, generator=gen, dtype=torch.float64)
    pad = torch.tensor([[False] * 5, [False] * 3 + [True] * 2])
    name = "decoder.layers.1.self_attn"
    mine = attention(P, name, x, x, pad, True)
    t = x.transpose(0, 1)
    theirs, _ = F.multi_head_attention_forward(
        t, t, t, C, HEADS, None,
        torch.cat([P[name + ".q_proj.bias"], P[name + ".k_proj.bias"], P[name + ".v_proj.bias"]]),
        None, None, False, 0.0, P[name + ".out_proj.weight"], P[name + ".out_proj.bias"], training=False,
        key_padding_mask=pad, need_weights=False,
        attn_mask=torch.triu(torch.full((5, 5), float("-inf"), dtype=torch.float64), 1),
        use_separate_proj_weight=True, q_proj_weight=P[name + ".q_proj.weight"],
        k_proj_weight=P[name + ".k_proj.weight"], v_proj_weight=P[name + ".v_proj.weight"])
    diff = (mine - theirs.transpose(0, 1)).abs().max().item()
    assert diff < 1e-12, "attention differs from torch's: %g" % diff


def check_batch_against_single(P, batch, logits):
    """Padding changes nothing: each sentence alone, without pads, gives the batch's rows t < tgt_len."""
    worst = 0.0
    for b in range(batch["src"].shape[0]):
        s, t = int(batch["src_len"][b]), int(batch["tgt_len"][b])
        alone = logits_of(P, batch["src"][b:b + 1, :s].long(), batch["tgt_in"][b:b + 1, :t].long())[0]
        worst = max(worst, (alone - logits[b, :t]).abs().max().item())
    assert worst < 1e-10, "batched and single-sentence logits differ: %g" % worst
    return worst


def check_trace(P, source, output, trace):
    """Causality: the greedy search's step-by-step log-probabilities (each prefix decoded alone) are the rows of
    one teacher-forced pass over the whole output."""
    src = torch.tensor([source + [EOS]])
    full = torch.log_softmax(logits_of(P, src, torch.tensor([[EOS] + output]))[0], dim=-1)
    assert len(trace) in (len(output), len(output) + 1)
    for t, (_, logp) in enumerate(trace):
        assert (full[t] - logp[0]).abs().max().item() < 1e-10, t


# --------------------------------------------------------------------------------------------

def heptapod_binary():
    path = os.environ.get("HEPTAPOD", os.path.join(REPO, "build", "heptapod"))
    if not os.access(path, os.X_OK):
        sys.exit("no Heptapod binary at %s (build it, or set HEPTAPOD=path) to train %s" % (path, SPM_NAME))
    return path


def train_spm(path):
    cmd = [heptapod_binary(), "vocab", CORPUS_EN, CORPUS_ES, "-o", path, "--model", "bpe", "--size", str(SPM_SIZE)]
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)


def read_lines(path):
    with open(path, encoding="utf-8") as f:
        return [line.rstrip("\n") for line in f]


def write_text(path, lines):
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        for line in lines:
            f.write(line + "\n")


def padded(rows, fill):
    L = max(1, max(len(r) for r in rows))
    out = torch.full((len(rows), L), fill, dtype=torch.int32)
    for i, r in enumerate(rows):
        out[i, :len(r)] = torch.tensor(r, dtype=torch.int32)
    return out, torch.tensor([len(r) for r in rows], dtype=torch.int32)


def expected_config(ns):
    """cfg.json as export_state_dict.py must write it for this checkpoint."""
    out = {k: v for k, v in vars(ns).items()}
    out["bpe"] = "sentencepiece"
    out["sentencepiece_model"] = SPM_NAME
    return json.loads(json.dumps(out))


def main():
    ap = argparse.ArgumentParser(description="Writes the fairseq import fixture (tests/fixtures/fairseq).")
    ap.add_argument("--out-dir", default=os.path.join(REPO, "tests", "fixtures", "fairseq"))
    ap.add_argument("--train-spm", action="store_true", help="retrain %s with build/heptapod vocab" % SPM_NAME)
    args = ap.parse_args()
    out = args.out_dir
    os.makedirs(out, exist_ok=True)

    # The SentencePiece model and the dictionaries.
    spm_path = os.path.join(out, SPM_NAME)
    if args.train_spm or not os.path.exists(spm_path):
        train_spm(spm_path)
    pieces = read_spm(spm_path)
    assert [p["piece"] for p in pieces[:4]] == ["<pad>", "<s>", "</s>", "<unk>"], pieces[:4]
    assert [p["type"] for p in pieces[:4]] == [3, 3, 3, 2]
    ordinary_pieces = {p["piece"] for p in pieces if p["type"] == 1}
    bpe = BpeEncoder(pieces)
    counts = {}
    for side, corpus in (("src", CORPUS_EN), ("tgt", CORPUS_ES)):
        c = collections.Counter()
        for line in read_lines(corpus):
            seg = bpe.encode(line)
            assert set(seg) <= ordinary_pieces, "unknown piece in %s" % corpus
            assert "".join(seg).replace("\u2581", " ").strip() == " ".join(line.split())
            c.update(seg)
        counts[side] = c
    dict_paths = {}
    symbols = {}
    for side in ("src", "tgt"):
        dict_paths[side] = os.path.join(out, "dict.%s.txt" % side)
        write_text(dict_paths[side], dictionary_lines(counts[side]))
        symbols[side] = load_dictionary(dict_paths[side])
        assert len(symbols[side]) % PADDING_FACTOR == 0
    Vs, Vt = len(symbols["src"]), len(symbols["tgt"])
    src_ordinary = [i for i, s in enumerate(symbols["src"]) if s in counts["src"]]
    tgt_ordinary = [i for i, s in enumerate(symbols["tgt"]) if s in counts["tgt"]]
    tgt_index = {s: i for i, s in enumerate(symbols["tgt"])}
    assert symbols["src"][4:] != symbols["tgt"][4:]

    # The batch: ordinary ids, </s> after each source, </s> as the decoder's start; right-padded with <pad>.
    gen = torch.Generator().manual_seed(BATCH_SEED)
    B, S, T = len(SRC_LENS), max(SRC_LENS) + 1, max(TGT_LENS)
    src = torch.full((B, S), PAD, dtype=torch.int32)
    tgt_in = torch.full((B, T), PAD, dtype=torch.int32)
    sources = []
    for b in range(B):
        pick = torch.randint(0, len(src_ordinary), (SRC_LENS[b],), generator=gen).tolist()
        sources.append([src_ordinary[j] for j in pick])
        src[b, :SRC_LENS[b]] = torch.tensor(sources[b], dtype=torch.int32)
        src[b, SRC_LENS[b]] = EOS
        pick = torch.randint(0, len(tgt_ordinary), (TGT_LENS[b] - 1,), generator=gen).tolist()
        tgt_in[b, 0] = EOS
        tgt_in[b, 1:TGT_LENS[b]] = torch.tensor([tgt_ordinary[j] for j in pick], dtype=torch.int32)
    batch = {"src": src, "src_len": torch.tensor([n + 1 for n in SRC_LENS], dtype=torch.int32),
             "tgt_in": tgt_in, "tgt_len": torch.tensor(TGT_LENS, dtype=torch.int32)}

    # Draw weights until every search decision is clear.
    quiet = [BOS, UNK] + [i for i, s in enumerate(symbols["tgt"]) if s.startswith("madeupword")]
    for draw in range(MAX_DRAWS):
        seed = FIRST_WEIGHT_SEED + draw
        sd = make_state_dict(torch.Generator().manual_seed(seed), Vs, Vt, quiet)
        P = {k: v.double() for k, v in sd.items()}
        try:
            greedy, beam, traces = [], [], []
            for source in sources:
                g, trace = search(P, source, 1, ALPHA, True)
                greedy.append(g)
                traces.append(trace)
                beam.append(search(P, source, BEAM, ALPHA, True)[0])
        except Unclear:
            continue
        texts = [fairseq_decode([symbols["tgt"][i] for i in g]) for g in greedy]
        if not all(g and all(i in tgt_ordinary for i in g) for g in greedy):
            continue  # want non-empty greedy outputs of ordinary pieces
        if not all(t and all(p in tgt_index for p in bpe.encode(t)) for t in texts):
            continue  # the text must encode back into target-dictionary pieces
        if greedy == beam or any(len(h) >= len(s) + 1 + MAX_EXTRA for h, s in zip(greedy + beam, sources * 2)):
            continue  # want the beam to matter, and ends the model chose
        break
    else:
        sys.exit("no clear draw in %d seeds" % MAX_DRAWS)

    with torch.no_grad():
        logits = logits_of(P, batch["src"].long(), batch["tgt_in"].long())
    assert torch.isfinite(logits).all()
    check_attention_against_torch(P)
    batch_diff = check_batch_against_single(P, batch, logits)
    for source, output, trace in zip(sources, greedy, traces):
        check_trace(P, source, output, trace)

    # The checkpoint, through tools/export_state_dict.py.
    ns = model_namespace()
    checkpoint = {
        "args": None,
        "cfg": {"_name": None, "model": ns, "task": {"_name": "translation", "data": "data-bin/numbers",
                                                     "source_lang": "en", "target_lang": "es"},
                "bpe": {"_name": "sentencepiece", "sentencepiece_model": SPM_NAME}},
        "model": sd,
        "optimizer_history": [{"criterion_name": "LabelSmoothedCrossEntropyCriterion", "num_updates": 0}],
        "extra_state": {"epoch": 1},
    }
    tmp = tempfile.mkdtemp(prefix="fairseq_fixture.")
    try:
        ckpt_path = os.path.join(tmp, "checkpoint_best.pt")
        torch.save(checkpoint, ckpt_path)
        subprocess.run([sys.executable, os.path.join(TOOLS, "export_state_dict.py"), ckpt_path,
                        "-o", os.path.join(out, "model.safetensors"), "--config-out", os.path.join(out, "cfg.json")],
                       check=True, stdout=subprocess.DEVNULL)
    finally:
        shutil.rmtree(tmp)
    exported, meta = read_safetensors(os.path.join(out, "model.safetensors"))
    assert [n for n, _ in exported] == list(sd), "exported names or order differ"
    for (name, t), ref in zip(exported, sd.values()):
        assert t.dtype == torch.float32 and torch.equal(t, ref), name
    assert meta == {"format": "pytorch-state-dict", "source": "checkpoint_best.pt"}, meta
    with open(os.path.join(out, "cfg.json"), encoding="utf-8") as f:
        cfg = json.load(f)
    want = expected_config(ns)
    assert cfg == want, sorted(k for k in set(cfg) | set(want) if cfg.get(k, "?") != want.get(k, "?"))

    # reference.safetensors
    greedy_t, greedy_len = padded(greedy, -1)
    beam_t, beam_len = padded(beam, -1)
    tensors = [("batch/src", batch["src"]), ("batch/src_len", batch["src_len"]), ("batch/tgt_in", batch["tgt_in"]),
               ("batch/tgt_len", batch["tgt_len"]), ("expect/logits", logits.float()),
               ("expect/greedy", greedy_t), ("expect/greedy_len", greedy_len),
               ("expect/beam", beam_t), ("expect/beam_len", beam_len)]
    metadata = {"format": "heptapod-import-fixture", "format_version": "1", "family": "fairseq",
                "greedy_text": json.dumps(texts, ensure_ascii=False), "beam": str(BEAM),
                "length_penalty": repr(ALPHA)}
    ref_path = os.path.join(out, "reference.safetensors")
    write_safetensors(ref_path, tensors, metadata)
    check_round_trip(ref_path, tensors, metadata)

    total = 0
    for name in sorted(os.listdir(out)):
        size = os.path.getsize(os.path.join(out, name))
        total += size
        print("%s: %d bytes" % (os.path.relpath(os.path.join(out, name)), size))
    print("total %d bytes; V_src %d, V_tgt %d; weight seed %d (draw %d); batch vs single |diff| %.2g"
          % (total, Vs, Vt, seed, draw, batch_diff))
    for name, rows_ in (("greedy", greedy), ("beam", beam)):
        print("%s: %s" % (name, [[symbols["tgt"][i] for i in r] for r in rows_]))
    print("greedy_text: %s" % json.dumps(texts, ensure_ascii=False))


if __name__ == "__main__":
    main()
