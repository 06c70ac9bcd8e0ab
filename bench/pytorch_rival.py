#!/usr/bin/python3
# pytorch_rival.py -- the PyTorch side of Heptapod's side-by-side speed benchmark.
#
# The benchmark driver runs Heptapod and this script on the same work (a workload JSON file) and compares
# tokens per second. This script is the rival: a plain but competent PyTorch 1.13 CPU implementation of
# the same model (docs/conventions.md, "The model, exactly"), given its best settings.
#
#   /usr/bin/python3 bench/pytorch_rival.py --workload W.json --phase {train,beam4,greedy,latency} \
#       --model {small,base} [--threads 2]
#
# It prints exactly one JSON line on stdout:
#   {"side": "pytorch", "phase", "model", "tokens", "seconds", "tokens_per_second", "peak_rss_mb"
#    [, "ms_per_sentence" (latency only)]}
# The first `warmup` batches (sentences) of a phase are run but neither timed nor counted.
#
# Settings: float32; torch.set_num_threads(--threads); torch.manual_seed(0); the driver adds
# LD_PRELOAD=libtcmalloc_minimal.so.4 and OMP_WAIT_POLICY=PASSIVE. All batch tensors are built before the
# clock starts.
#
# Model: the paper's Transformer, post-norm (x = LN(x + drop(f(x))), eps 1e-5, no final stack norms), one
# tied (V, d) matrix for source embedding, target embedding and output projection (no output bias),
# embeddings scaled by sqrt(d) plus sinusoidal positions, attention and FFN with biases, ReLU FFN, dropout
# 0.1 on the embedding sum, attention probabilities, FFN activation and sub-layer outputs (training only).
# Token ids: pad 0, bos 1, eos 2; real tokens are random ids in [4, V).
#
# Phases:
#   train    forward + label-smoothed (0.1) cross-entropy summed over target tokens / their count, backward,
#            Adam (0.9, 0.98, 1e-9, lr 1e-4), zero_grad(set_to_none). Counted: target tokens.
#   beam4    beam search, 4 hypotheses, batches of sentences. greedy: the same with one hypothesis and argmax.
#   latency  greedy, one sentence at a time. Counted (translation): output tokens of the best hypothesis.
#   In translation EOS is banned and a sentence of source length L decodes exactly L tokens, then leaves
#   the batch (its rows are dropped from every cache).
#
# Implementation choices:
#   - Training layers are hand-written (fused q/k/v projection, 4-D matmuls with a broadcast additive
#     mask); the same modules serve the incremental decoder. With equal weights their output matches
#     nn.TransformerEncoderLayer / nn.TransformerDecoderLayer (batch_first, post-norm) to 2e-6.
#   - The loss projects only the non-padding decoder positions onto the vocabulary.
#   - Incremental decoder: encoder once per batch; cross-attention keys/values once per batch and layer,
#     kept per sentence and shared by its beam hypotheses (the hypotheses of a sentence form one query
#     block, so nothing there is copied or reordered per step); self-attention key/value caches
#     preallocated as (rows, heads, max_len, head_dim), each reordered by one index_select per step into a
#     spare buffer that then takes its place; output projection and log_softmax for the new position only.
#   - One-query attention is broadcast multiply + sum rather than rows*heads tiny batched GEMMs.
#
# Measurements behind those choices (2-core development machine, 2 threads, tcmalloc, OMP PASSIVE, shared
# with another job, so differences under ~5% are noise):
#   train, small model, batches of 32 sentences (~770 target tokens), 9 interleaved steps per variant,
#   median / min ms per step:
#     hand-written layers, Adam foreach=True         1004 / 904
#     nn.Transformer{Encoder,Decoder}Layer, foreach   966 / 912
#     hand-written, in-place mask add (kept)          956 / 935
#     hand-written, Adam foreach=False                969 / 900
#   -> no variant is measurably faster; hand-written layers kept (one model for training and decoding),
#      Adam foreach=True kept (fewer ops).
#   one-query self-attention, rows*heads = 1024, 30 cached positions: bmm 2.0-2.5 ms, multiply+sum
#     0.8-0.9 ms; whole beam-4 batch (32 sentences, small model): multiply+sum 0.94 s, matmul 1.05 s.
#   Profile of a base-model beam-4 batch: ~65% GEMMs (about 40% of that the (rows, V) output projection),
#     log_softmax ~8%, cache reorders ~3%.

import argparse
import json
import math
import resource
import sys
import time

import torch
import torch.nn as nn
import torch.nn.functional as F

PAD, BOS, EOS = 0, 1, 2
FIRST_REAL_TOKEN = 4
DROPOUT = 0.1
LAYER_NORM_EPS = 1e-5
LABEL_SMOOTHING = 0.1
DATA_SEED = 1234


# ----------------------------------------------------------------------------------------------- model


def sinusoid_table(max_len, d_model):
    """(max_len, d_model): PE(p, 2i) = sin(p / 10000^(2i/d)), PE(p, 2i+1) = cos(same)."""
    position = torch.arange(max_len, dtype=torch.float64).unsqueeze(1)           # (max_len, 1)
    div = torch.pow(10000.0, torch.arange(0, d_model, 2, dtype=torch.float64) / d_model)  # (d/2,)
    table = torch.zeros(max_len, d_model, dtype=torch.float64)
    table[:, 0::2] = torch.sin(position / div)
    table[:, 1::2] = torch.cos(position / div)
    return table.float()


def attention(q, k, v, mask, dropout_p, training):
    """q (B, H, Tq, Dh) already scaled by 1/sqrt(Dh); k, v (B, H, Tk, Dh); mask additive, broadcastable
    to (B, H, Tq, Tk). Returns (B, H, Tq, Dh)."""
    scores = torch.matmul(q, k.transpose(-2, -1)).add_(mask)                    # (B, H, Tq, Tk)
    probs = F.dropout(torch.softmax(scores, dim=-1), dropout_p, training)
    return torch.matmul(probs, v)


def split_heads(x, heads):
    """(B, T, d) -> (B, H, T, Dh)."""
    b, t, d = x.shape
    return x.view(b, t, heads, d // heads).transpose(1, 2)


def merge_heads(x):
    """(B, H, T, Dh) -> (B, T, d)."""
    b, h, t, dh = x.shape
    return x.transpose(1, 2).reshape(b, t, h * dh)


class MultiheadAttention(nn.Module):
    """Attention with biased q/k/v/out projections. Parameter names and layout follow
    nn.MultiheadAttention: in_proj_weight (3d, d) holds q, k, v rows; out_proj is a Linear."""

    def __init__(self, d_model, heads):
        super().__init__()
        self.heads = heads
        self.scale = 1.0 / math.sqrt(d_model // heads)
        self.in_proj_weight = nn.Parameter(torch.empty(3 * d_model, d_model))
        self.in_proj_bias = nn.Parameter(torch.zeros(3 * d_model))
        self.out_proj = nn.Linear(d_model, d_model)
        nn.init.xavier_uniform_(self.in_proj_weight)
        nn.init.zeros_(self.out_proj.bias)

    def q_weights(self):
        d = self.in_proj_weight.shape[1]
        return self.in_proj_weight[:d], self.in_proj_bias[:d]

    def kv_weights(self):
        d = self.in_proj_weight.shape[1]
        return self.in_proj_weight[d:], self.in_proj_bias[d:]

    # The projections as products. quantize_int8() gives them nn.Linear twins (the modules PyTorch's dynamic
    # quantization converts); otherwise they read the float parameters directly.
    def project_qkv(self, x):
        return self.qkv_linear(x) if hasattr(self, "qkv_linear") else F.linear(x, self.in_proj_weight, self.in_proj_bias)

    def project_q(self, x):
        return self.q_linear(x) if hasattr(self, "q_linear") else F.linear(x, *self.q_weights())

    def project_kv(self, memory):
        return self.kv_linear(memory) if hasattr(self, "kv_linear") else F.linear(memory, *self.kv_weights())

    def self_attention(self, x, mask):
        """x (B, T, d), mask broadcastable to (B, H, T, T) -> (B, T, d)."""
        b, t, d = x.shape
        qkv = self.project_qkv(x)                                                # (B, T, 3d)
        q, k, v = qkv.view(b, t, 3, self.heads, d // self.heads).permute(2, 0, 3, 1, 4)  # each (B, H, T, Dh)
        out = attention(q * self.scale, k, v, mask, DROPOUT, self.training)
        return self.out_proj(merge_heads(out))

    def cross_attention(self, x, memory, mask):
        """x (B, T, d) queries, memory (B, S, d) keys/values, mask broadcastable to (B, H, T, S)."""
        b, s, d = memory.shape
        q = split_heads(self.project_q(x), self.heads)                           # (B, H, T, Dh)
        kv = self.project_kv(memory)                                             # (B, S, 2d)
        k, v = kv.view(b, s, 2, self.heads, d // self.heads).permute(2, 0, 3, 1, 4)  # each (B, H, S, Dh)
        out = attention(q * self.scale, k, v, mask, DROPOUT, self.training)
        return self.out_proj(merge_heads(out))


class FeedForward(nn.Module):
    def __init__(self, d_model, d_ff):
        super().__init__()
        self.linear1 = nn.Linear(d_model, d_ff)
        self.linear2 = nn.Linear(d_ff, d_model)

    def forward(self, x):
        return self.linear2(F.dropout(F.relu(self.linear1(x)), DROPOUT, self.training))


def add_and_norm(x, sublayer_out, norm, training):
    """Post-norm residual: LN(x + dropout(sublayer_out))."""
    return norm(x + F.dropout(sublayer_out, DROPOUT, training))


class EncoderLayer(nn.Module):
    def __init__(self, d_model, heads, d_ff):
        super().__init__()
        self.self_attn = MultiheadAttention(d_model, heads)
        self.ffn = FeedForward(d_model, d_ff)
        self.norm1 = nn.LayerNorm(d_model, eps=LAYER_NORM_EPS)
        self.norm2 = nn.LayerNorm(d_model, eps=LAYER_NORM_EPS)

    def forward(self, x, src_mask):
        """x (B, S, d); src_mask (B, 1, 1, S) additive."""
        x = add_and_norm(x, self.self_attn.self_attention(x, src_mask), self.norm1, self.training)
        return add_and_norm(x, self.ffn(x), self.norm2, self.training)


class DecoderLayer(nn.Module):
    def __init__(self, d_model, heads, d_ff):
        super().__init__()
        self.self_attn = MultiheadAttention(d_model, heads)
        self.cross_attn = MultiheadAttention(d_model, heads)
        self.ffn = FeedForward(d_model, d_ff)
        self.norm1 = nn.LayerNorm(d_model, eps=LAYER_NORM_EPS)
        self.norm2 = nn.LayerNorm(d_model, eps=LAYER_NORM_EPS)
        self.norm3 = nn.LayerNorm(d_model, eps=LAYER_NORM_EPS)

    def forward(self, x, memory, tgt_mask, src_mask):
        """x (B, T, d); memory (B, S, d); tgt_mask (B, 1, T, T) causal + padding; src_mask (B, 1, 1, S)."""
        x = add_and_norm(x, self.self_attn.self_attention(x, tgt_mask), self.norm1, self.training)
        x = add_and_norm(x, self.cross_attn.cross_attention(x, memory, src_mask), self.norm2, self.training)
        return add_and_norm(x, self.ffn(x), self.norm3, self.training)


class Transformer(nn.Module):
    def __init__(self, cfg, max_len):
        super().__init__()
        d = cfg["d_model"]
        self.d_model, self.heads = d, cfg["heads"]
        self.embedding = nn.Parameter(torch.randn(cfg["vocab"], d) * d ** -0.5)  # (V, d), tied 3 ways
        self.register_buffer("positions", sinusoid_table(max_len, d), persistent=False)  # (max_len, d)
        self.encoder = nn.ModuleList(
            EncoderLayer(d, cfg["heads"], cfg["d_ff"]) for _ in range(cfg["encoder_layers"]))
        self.decoder = nn.ModuleList(
            DecoderLayer(d, cfg["heads"], cfg["d_ff"]) for _ in range(cfg["decoder_layers"]))
        for layer in list(self.encoder) + list(self.decoder):
            for lin in (layer.ffn.linear1, layer.ffn.linear2):
                nn.init.xavier_uniform_(lin.weight)
                nn.init.zeros_(lin.bias)

    def project_output(self, hidden):
        """hidden (..., d) -> logits (..., V) through the tied embedding."""
        return self.output_linear(hidden) if hasattr(self, "output_linear") else F.linear(hidden, self.embedding)

    def embed(self, tokens):
        """tokens (B, T) -> (B, T, d): dropout(E[tok] * sqrt(d) + PE[pos])."""
        x = F.embedding(tokens, self.embedding) * math.sqrt(self.d_model)
        x = x + self.positions[: tokens.shape[1]]
        return F.dropout(x, DROPOUT, self.training)

    def encode(self, src, src_mask):
        """src (B, S) -> memory (B, S, d)."""
        x = self.embed(src)
        for layer in self.encoder:
            x = layer(x, src_mask)
        return x

    def decode(self, tgt_in, memory, tgt_mask, src_mask):
        """tgt_in (B, T) -> hidden (B, T, d) (before the output projection)."""
        x = self.embed(tgt_in)
        for layer in self.decoder:
            x = layer(x, memory, tgt_mask, src_mask)
        return x


def linear_from(weight, bias):
    """An nn.Linear holding copies of weight (out, in) and bias (out) or none."""
    lin = nn.Linear(weight.shape[1], weight.shape[0], bias=bias is not None)
    with torch.no_grad():
        lin.weight.copy_(weight)
        if bias is not None:
            lin.bias.copy_(bias)
    return lin


def quantize_int8(model):
    """PyTorch's dynamic int8 quantization (torch.quantization.quantize_dynamic) of every linear product,
    the attention projections and the tied output projection included: those become nn.Linear modules
    first, as quantize_dynamic converts only nn.Linear."""
    for layer in list(model.encoder) + list(model.decoder):
        for attn in (layer.self_attn, getattr(layer, "cross_attn", None)):
            if attn is None:
                continue
            attn.qkv_linear = linear_from(attn.in_proj_weight, attn.in_proj_bias)
            attn.q_linear = linear_from(*attn.q_weights())
            attn.kv_linear = linear_from(*attn.kv_weights())
    model.output_linear = linear_from(model.embedding, None)
    return torch.quantization.quantize_dynamic(model, {nn.Linear}, dtype=torch.qint8)


def padding_mask(lengths, max_len):
    """Additive key mask (B, 1, 1, max_len): 0 for real keys, -inf for padding."""
    keep = torch.arange(max_len).unsqueeze(0) < torch.tensor(lengths).unsqueeze(1)  # (B, max_len)
    mask = torch.zeros(keep.shape).masked_fill_(~keep, float("-inf"))
    return mask.view(len(lengths), 1, 1, max_len)


def causal_mask(t):
    """Additive (t, t) mask: -inf above the diagonal."""
    return torch.full((t, t), float("-inf")).triu_(1)


# ------------------------------------------------------------------------------------------- workload


def random_tokens(gen, vocab, lengths):
    """(B, max(lengths)) long: lengths[b] random real tokens in [4, V) per sentence, padded with PAD."""
    n = max(lengths) if lengths else 0
    out = torch.full((len(lengths), n), PAD, dtype=torch.long)
    for b, length in enumerate(lengths):
        out[b, :length] = torch.randint(FIRST_REAL_TOKEN, vocab, (length,), generator=gen)
    return out


def longest_sentence(workload):
    """The largest source or target length anywhere in the workload (sizes the position table)."""
    lengths = [1] + list(workload["latency"]["src_lengths"])
    for batch in workload["train"]["batches"]:
        lengths += batch["src_lengths"] + batch["tgt_lengths"]
    for batch in workload["translate"]["batches"]:
        lengths += batch["src_lengths"]
    return max(lengths)


def make_train_batch(gen, vocab, src_lengths, tgt_lengths):
    """All tensors of one training step. Sentence b: src_lengths[b] source tokens; tgt_lengths[b] decoder
    positions: input = bos + tgt_lengths[b]-1 tokens, output = those tokens + eos."""
    if min(src_lengths) < 1 or min(tgt_lengths) < 1:
        raise ValueError("training sentences need at least one source token and one target position")
    batch, t = len(tgt_lengths), max(tgt_lengths)
    src = random_tokens(gen, vocab, src_lengths)                               # (B, S)
    words = random_tokens(gen, vocab, [n - 1 for n in tgt_lengths])             # (B, <=T-1)
    tgt_in = torch.full((batch, t), PAD, dtype=torch.long)                      # (B, T)
    tgt_out = torch.full((batch, t), PAD, dtype=torch.long)                     # (B, T)
    for b, n in enumerate(tgt_lengths):
        tgt_in[b, 0] = BOS
        tgt_in[b, 1:n] = words[b, : n - 1]
        tgt_out[b, : n - 1] = words[b, : n - 1]
        tgt_out[b, n - 1] = EOS
    real = (torch.arange(t).unsqueeze(0) < torch.tensor(tgt_lengths).unsqueeze(1)).view(-1)  # (B*T,)
    real_rows = real.nonzero().squeeze(1)                                       # (N,)
    return {
        "src": src,
        "src_mask": padding_mask(src_lengths, src.shape[1]),                    # (B, 1, 1, S)
        "tgt_in": tgt_in,
        "tgt_mask": causal_mask(t) + padding_mask(tgt_lengths, t),              # (B, 1, T, T)
        "real_rows": real_rows,
        "targets": tgt_out.view(-1).index_select(0, real_rows),                 # (N,)
        "tokens": sum(tgt_lengths),
    }


def make_source_batch(gen, vocab, src_lengths):
    """(src (B, S), src_mask (B, 1, 1, S), lengths) for translation."""
    src = random_tokens(gen, vocab, src_lengths)
    return src, padding_mask(src_lengths, src.shape[1]), list(src_lengths)


# --------------------------------------------------------------------------------------------- training


def train_step(model, optimizer, batch, bfloat16=False):
    """One update; bfloat16: the forward pass under CPU autocast (bfloat16 products, float32 weights)."""
    with torch.autocast("cpu", dtype=torch.bfloat16, enabled=bfloat16):
        memory = model.encode(batch["src"], batch["src_mask"])                 # (B, S, d)
        hidden = model.decode(batch["tgt_in"], memory, batch["tgt_mask"], batch["src_mask"])  # (B, T, d)
        hidden = hidden.reshape(-1, model.d_model).index_select(0, batch["real_rows"])  # (N, d)
        logits = F.linear(hidden, model.embedding)                              # (N, V)
        loss = F.cross_entropy(logits.float(), batch["targets"], ignore_index=PAD,
                               label_smoothing=LABEL_SMOOTHING, reduction="sum") / batch["tokens"]
    loss.backward()
    optimizer.step()
    optimizer.zero_grad(set_to_none=True)
    return loss


def run_train(model, spec, vocab, gen, bfloat16=False):
    batches = [make_train_batch(gen, vocab, b["src_lengths"], b["tgt_lengths"]) for b in spec["batches"]]
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-4, betas=(0.9, 0.98), eps=1e-9, foreach=True)
    model.train()
    warmup = spec["warmup"]
    for batch in batches[:warmup]:
        train_step(model, optimizer, batch, bfloat16)
    start = time.perf_counter()
    for batch in batches[warmup:]:
        train_step(model, optimizer, batch, bfloat16)
    seconds = time.perf_counter() - start
    return sum(b["tokens"] for b in batches[warmup:]), seconds


# ------------------------------------------------------------------------------- incremental decoding


class SelfCache:
    """Self-attention keys and values of every decoder layer: 2*L buffers (rows, H, max_len, Dh) plus one
    spare; reordering a buffer is one index_select into the spare, which then takes its place."""

    def __init__(self, layers, rows, heads, head_dim, max_len):
        shape = (rows, heads, max_len, head_dim)
        self.buffers = [torch.empty(shape) for _ in range(2 * layers)]          # k0, v0, k1, v1, ...
        self.spare = torch.empty(shape)

    def keys(self, layer):
        return self.buffers[2 * layer]

    def values(self, layer):
        return self.buffers[2 * layer + 1]

    def reorder(self, rows, length):
        """Keep, in order, the rows `rows` (R',) of positions [0, length) of every buffer."""
        r = rows.shape[0]
        for i, buf in enumerate(self.buffers):
            torch.index_select(buf[:, :, :length], 0, rows, out=self.spare[:r, :, :length])
            self.buffers[i], self.spare = self.spare, buf


def one_query_attention(q, k, v):
    """q (R, H, Dh) scaled; k, v (R, H, t, Dh) -> (R, H, Dh), as broadcast multiply + sum."""
    probs = torch.softmax((q.unsqueeze(2) * k).sum(-1), dim=-1)                 # (R, H, t)
    return (probs.unsqueeze(-1) * v).sum(2)


def cross_kv(model, memory):
    """Per decoder layer: (k, v), each (B, H, S, Dh), from the encoder output memory (B, S, d)."""
    b, s, d = memory.shape
    out = []
    for layer in model.decoder:
        kv = layer.cross_attn.project_kv(memory)                                # (B, S, 2d)
        kv = kv.view(b, s, 2, model.heads, d // model.heads).permute(2, 0, 3, 1, 4).contiguous()
        out.append((kv[0], kv[1]))
    return out


def decoder_layer_step(layer, x, t, cache, index, cross, src_mask, beam):
    """One position of one decoder layer. x (R, d) with R = sentences * beam, hypotheses of a sentence
    adjacent; keys/values of position t are written into the cache; cross = (k, v) each (B, H, S, Dh)."""
    r, d = x.shape
    heads = layer.self_attn.heads
    dh = d // heads
    sa, ca = layer.self_attn, layer.cross_attn
    # self-attention over positions [0, t]
    qkv = sa.project_qkv(x).view(r, 3, heads, dh)                               # (R, 3, H, Dh)
    keys, values = cache.keys(index), cache.values(index)
    keys[:r, :, t] = qkv[:, 1]
    values[:r, :, t] = qkv[:, 2]
    a = one_query_attention(qkv[:, 0] * sa.scale, keys[:r, :, : t + 1], values[:r, :, : t + 1])  # (R, H, Dh)
    x = F.layer_norm(x + sa.out_proj(a.reshape(r, d)), (d,), layer.norm1.weight, layer.norm1.bias,
                     LAYER_NORM_EPS)
    # cross-attention: the `beam` hypotheses of a sentence form one query block over its source
    q = ca.project_q(x) * ca.scale                                               # (R, d)
    q = q.view(r // beam, beam, heads, dh).transpose(1, 2)                       # (B, H, beam, Dh)
    k, v = cross
    scores = torch.matmul(q, k.transpose(-2, -1)) + src_mask                     # (B, H, beam, S)
    a = torch.matmul(torch.softmax(scores, dim=-1), v)                           # (B, H, beam, Dh)
    x = F.layer_norm(x + ca.out_proj(a.transpose(1, 2).reshape(r, d)), (d,), layer.norm2.weight,
                     layer.norm2.bias, LAYER_NORM_EPS)
    # feed-forward
    f = layer.ffn.linear2(F.relu(layer.ffn.linear1(x)))
    return F.layer_norm(x + f, (d,), layer.norm3.weight, layer.norm3.bias, LAYER_NORM_EPS)


def next_log_probs(model, y, t, cache, cross, src_mask, beam):
    """y (R,) tokens at position t -> log-probabilities (R, V) of position t+1, EOS banned."""
    x = model.embedding.index_select(0, y) * math.sqrt(model.d_model) + model.positions[t]  # (R, d)
    for i, layer in enumerate(model.decoder):
        x = decoder_layer_step(layer, x, t, cache, i, cross[i], src_mask, beam)
    logp = torch.log_softmax(model.project_output(x), dim=-1)                    # (R, V)
    logp[:, EOS] = float("-inf")
    return logp


def translate_batch(model, src, src_mask, lengths, beam):
    """Decode every sentence b of src (B, S) into exactly lengths[b] tokens (EOS banned) with a beam of
    `beam` hypotheses (beam 1: greedy). Returns the best hypothesis of each sentence, (lengths[b],) long.
    Sentences leave the batch as soon as they are complete."""
    vocab = model.embedding.shape[0]
    results = [torch.empty(0, dtype=torch.long) for _ in lengths]
    live = [b for b, n in enumerate(lengths) if n > 0]                           # original ids of live sentences
    if not live:
        return results
    if len(live) < len(lengths):
        keep = torch.tensor(live)
        src, src_mask = src.index_select(0, keep), src_mask.index_select(0, keep)
    live_lengths = [lengths[b] for b in live]
    max_len = max(live_lengths)
    rows = len(live) * beam

    memory = model.encode(src, src_mask)                                         # (B, S, d)
    cross = cross_kv(model, memory)                                              # L x 2 x (B, H, S, Dh)
    cache = SelfCache(len(model.decoder), rows, model.heads, model.d_model // model.heads, max_len)
    history = torch.empty(rows, max_len, dtype=torch.long)                       # (R, max_len) chosen tokens
    scores = torch.full((len(live), beam), float("-inf"))                        # (B, beam) cumulative log-probs
    scores[:, 0] = 0.0                                                           # step 0: one live hypothesis
    y = torch.full((rows,), BOS, dtype=torch.long)                               # (R,) current input tokens

    for t in range(max_len):
        n_sent = len(live)
        logp = next_log_probs(model, y, t, cache, cross, src_mask, beam)          # (R, V)
        if beam == 1:
            best, tokens = logp.max(dim=-1)                                      # (R,), (R,)
            scores = scores + best.unsqueeze(1)
            order = None                                                         # rows keep their order
        else:
            candidates = (scores.unsqueeze(2) + logp.view(n_sent, beam, vocab)).view(n_sent, beam * vocab)
            scores, flat = candidates.topk(beam, dim=1)                          # (B, beam) sorted
            parents = flat // vocab + torch.arange(0, n_sent * beam, beam).unsqueeze(1)  # (B, beam) rows
            tokens = (flat % vocab).view(-1)                                     # (R,)
            order = parents.view(-1)                                             # (R,)
            history = history.index_select(0, order)
        history[:, t] = tokens

        done = [i for i, n in enumerate(live_lengths) if n == t + 1]
        if done:
            for i in done:                                                       # hypothesis 0 is the best
                results[live[i]] = history[i * beam, : t + 1].clone()
            kept = [i for i, n in enumerate(live_lengths) if n > t + 1]
            if not kept:
                break
            keep_sent = torch.tensor(kept)                                       # (B',)
            keep_rows = (keep_sent.unsqueeze(1) * beam + torch.arange(beam)).view(-1)  # (R',)
            order = keep_rows if order is None else order.index_select(0, keep_rows)
            history, tokens = history.index_select(0, keep_rows), tokens.index_select(0, keep_rows)
            scores = scores.index_select(0, keep_sent)
            cross = [(k.index_select(0, keep_sent), v.index_select(0, keep_sent)) for k, v in cross]
            src_mask = src_mask.index_select(0, keep_sent)
            live = [live[i] for i in kept]
            live_lengths = [live_lengths[i] for i in kept]
        if order is not None:
            cache.reorder(order, t + 1)
        y = tokens
    return results


def run_translate(model, spec, vocab, gen, beam):
    batches = [make_source_batch(gen, vocab, b["src_lengths"]) for b in spec["batches"]]
    return timed_translation(model, batches, spec["warmup"], beam)


def run_latency(model, spec, vocab, gen):
    sentences = [make_source_batch(gen, vocab, [n]) for n in spec["src_lengths"]]
    return timed_translation(model, sentences, spec["warmup"], 1)


def timed_translation(model, batches, warmup, beam):
    """Translate every batch; time and count all but the first `warmup`."""
    model.eval()
    with torch.inference_mode():
        for src, mask, lengths in batches[:warmup]:
            translate_batch(model, src, mask, lengths, beam)
        start = time.perf_counter()
        for src, mask, lengths in batches[warmup:]:
            translate_batch(model, src, mask, lengths, beam)
        seconds = time.perf_counter() - start
    return sum(sum(lengths) for _, _, lengths in batches[warmup:]), seconds


# ------------------------------------------------------------------------------------------------ main


def parse_args(argv=None):
    p = argparse.ArgumentParser(description="PyTorch rival for Heptapod's speed benchmark")
    p.add_argument("--workload", required=True, help="workload JSON written by the driver")
    p.add_argument("--phase", required=True, choices=["train", "beam4", "greedy", "latency"])
    p.add_argument("--model", required=True, choices=["small", "base"])
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--compute-type", default="float32", choices=["float32", "int8", "bfloat16"],
                   help="int8: dynamic quantization of the linear layers (translation phases only); "
                        "bfloat16: CPU autocast (the train phase only)")
    return p.parse_args(argv)


def main(argv=None):
    args = parse_args(argv)
    torch.set_num_threads(args.threads)
    torch.manual_seed(0)
    with open(args.workload) as f:
        workload = json.load(f)
    cfg = workload["models"][args.model]
    model = Transformer(cfg, max_len=longest_sentence(workload))
    if args.compute_type == "int8":
        if args.phase == "train":
            sys.exit("pytorch_rival.py: int8 is for the translation phases")
        model = quantize_int8(model)
    if args.compute_type == "bfloat16" and args.phase != "train":
        sys.exit("pytorch_rival.py: bfloat16 is for the train phase")
    gen = torch.Generator().manual_seed(DATA_SEED)

    if args.phase == "train":
        tokens, seconds = run_train(model, workload["train"], cfg["vocab"], gen, args.compute_type == "bfloat16")
    elif args.phase == "latency":
        tokens, seconds = run_latency(model, workload["latency"], cfg["vocab"], gen)
    else:
        beam = 4 if args.phase == "beam4" else 1
        tokens, seconds = run_translate(model, workload["translate"], cfg["vocab"], gen, beam)

    result = {
        "side": "pytorch",
        "phase": args.phase,
        "compute_type": args.compute_type,
        "model": args.model,
        "tokens": tokens,
        "seconds": seconds,
        "tokens_per_second": tokens / seconds if seconds > 0 else 0.0,
        "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    }
    if args.phase == "latency":
        timed = len(workload["latency"]["src_lengths"]) - workload["latency"]["warmup"]
        result["ms_per_sentence"] = seconds * 1000 / timed if timed > 0 else 0.0
    print(json.dumps(result), flush=True)


if __name__ == "__main__":
    main()
