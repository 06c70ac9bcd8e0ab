#!/usr/bin/python3
# pytorch_bert.py -- the PyTorch side of Heptapod's encoder-only (BERT-style) benchmarks.
#
# The benchmark driver runs Heptapod and this script on the same work and compares sentences per second,
# batch-1 latency and training tokens per second; this script is the rival for encoder-only models: a plain
# but competent PyTorch 1.13 CPU implementation of Heptapod's encoder-only model (docs/conventions.md, "The
# model, exactly", the encoder stack alone, with BERT's token types, embedding norm and masked-LM head;
# tools/make_parity_fixtures.py's encode / mlm_forward), given its best settings. bench/pytorch_gpt.py is its
# twin for the decoder-only language models, bench/pytorch_rival.py for the translation models.
#
#   /usr/bin/python3 bench/pytorch_bert.py --phase embed --model {enc-small,bert-base} --batch B \
#       [--length 128] [--compute-type float32|int8|bfloat16] [--repeats 3] [--warmup 1] [--threads 2] \
#       [--int8-engine qnnpack|onednn]
#   /usr/bin/python3 bench/pytorch_bert.py --phase mlm-train --model {enc-small,bert-base} [--threads 2] \
#       [--compute-type float32|bfloat16] [--batches 3] [--warmup 1]
#   /usr/bin/python3 bench/pytorch_bert.py --self-test
#
# Output: exactly one JSON line on stdout (progress and notes go to stderr).
#   embed:      {"side": "pytorch", "phase", "compute_type", "model", "batch", "length", "sentences",
#                "seconds", "sentences_per_second", "ms_per_batch", "gflop", "peak_rss_mb"}
#               sentences = batch * repeats; ms_per_batch = seconds / repeats * 1000 (the latency of one batch)
#   mlm-train:  {"side": "pytorch", "phase", "compute_type", "model", "tokens", "seconds", "tokens_per_second",
#                "gflop", "masked_tokens", "peak_rss_mb"}
#               tokens: every input token of the timed batches; masked_tokens: their chosen (target) rows
#   "gflop" is useful work, embed_flops() / mlm_training_flops() below (the formulas the C++ side uses):
#   matrix products only, 2 FLOPs per multiply-add; per layer and sequence of T tokens
#   T*(8 d^2 + 4 d f) for the q, k, v, out projections and the FFN plus 4 d T^2 for the (non-causal) scores
#   Q K^T and the probabilities x V. embed = that x layers x B (the pooling is not counted);
#   mlm-train = 3 x (that x layers x blocks + 2 Nm (d^2 + d V)), Nm the chosen rows, which alone go through
#   the MLM head (its transform and its output product against the embedding table); backward = 2 x forward.
#   Embedding lookups, norms, softmax, biases, the loss and Adam are not counted.
#
# Settings: torch.set_num_threads(--threads, default 2); torch.manual_seed(0); the driver should add
# LD_PRELOAD=libtcmalloc_minimal.so.4 and OMP_WAIT_POLICY=PASSIVE (bench/common.sh, run_python_rival), as for
# pytorch_gpt.py, whose measurements (glibc malloc more than doubles a training step) apply here too. All
# inputs are built before the clock starts; the first --warmup batches run untimed.
#
# Models (Heptapod model-config JSON in BENCH_MODELS, and the input length):
#   enc-small   4 layers, d 256, 4 heads, d_ff 1024, V 8000, 128 learned positions, 2 token types; input 128
#   bert-base   12 layers, d 768, 12 heads, d_ff 3072, V 30522, 512 learned positions, 2 token types; input 128
#   both BERT's: post-norm, exact GELU, unscaled embeddings, an embedding norm, no final norm, the masked-LM
#   head (mask_id 4), no output layer (tie "none", no output bias), layer_norm_eps 1e-5; dropout, attention,
#   activation and embedding dropout 0.1. Ids: pad 0, bos ([CLS]) 1, eos ([SEP]) 2, unk 3, mask 4; ordinary
#   tokens from 5.
# The model follows any encoder-only config (model_config): x = E[tok] (* sqrt(d)) + P[offset + pos]
# (learned, or the interleaved sinusoids) + T[type] (token_types; no types given: row 0), then the embedding
# norm (embedding_norm), embedding_dropout; per layer, post-norm x = LN(x + drop(f(x))) (a final norm only if
# "final_norm") or pre-norm x = x + drop(f(LN(x))) (with the final norm), f the self-attention (dropout on its
# probabilities, keys past a sentence's length masked) and the FFN W2 drop(act(W1 x + b1)) + b2, act relu /
# gelu (exact erf) / silu. The masked-LM head (mlm_head) on the chosen rows h only:
# logits = LN_mlm(act(h W_t^T + b_t)) E^T + output_bias. Initialisation as Heptapod's (Xavier-uniform linear
# weights, N(0, 1/sqrt(d)) embeddings, learned positions and token types, zero biases, unit norm weights), from
# torch's generator. Parameters map to Heptapod's names (heptapod_state_dict(): q/k/v fused in memory, split
# into q_proj, k_proj, v_proj).
# Loss: label-smoothed (0.1) cross-entropy, (1 - eps) * nll + eps * mean_j(-log p_j) over all V classes
# (F.cross_entropy's label_smoothing, checked against a float64 formula), the mean over the chosen rows.
#
# Phases:
#   embed       B sequences of --length ids: bos, random ids in [5, V), eos (fresh ones each repeat); all full
#               length (no mask), token types all 0; eval(), inference_mode; the encoder's output, then mean
#               pooling over every row (start and end tokens included, as Heptapod's default mean pooling)
#               -> (B, d). int8: torch.ao.quantization.quantize_dynamic of every nn.Linear (the lookups stay
#               float32), qnnpack engine by default; bfloat16: torch.autocast("cpu", bfloat16) around the
#               forward. Counted: B per repeat; the time covers the encoder and the pooling.
#   mlm-train   batches of 4096 tokens: 4096 / length blocks (32 x 128), each bos, length - 2 random ids in
#               [5, V), eos; token types 0; each of positions 1 .. length-2 chosen with probability 0.15 (at
#               least one per block) as a target (its original id), its input then mask_id (80%), a random
#               id in [5, V) (10%) or unchanged (10%). train() mode with the dropouts, the MLM head on the
#               chosen rows only, loss, backward, Adam (0.9, 0.98, 1e-9, foreach, lr 1e-4),
#               zero_grad(set_to_none). bfloat16: the forward under torch.autocast("cpu", bfloat16), the loss
#               in float32. Counted: all input tokens.
#   --self-test (about 10 s) tiny configs (2 layers, d 16, 2 heads, V 50, 16 learned positions, 2 token
#               types; and a pre-norm / relu / sinusoid variant): names and shapes as Heptapod's layout; the
#               module's masked-LM logits and mean-pooled output (float64 copy of its weights, a padded batch
#               of rows of different lengths with random token types) equal a float64 functional
#               reference within 1e-9, and its gradients the reference's; padding is invisible; the loss
#               equals the hand-written formula; dropout acts in training; the masking of a training batch;
#               float32 / bfloat16 training steps and the int8 / bfloat16 embed paths (cosine > 0.99 with
#               float32); the FLOP formulas by hand; the JSON lines of both phases.
#
# Implementation choices (those of pytorch_gpt.py, whose measurements are in its header; not re-measured
# here):
#   - Hand-written layers: fused q/k/v nn.Linear, 4-D matmuls, an additive (B, 1, 1, T) key-padding mask
#     added in place only when some row is shorter than the batch (never in the benchmark phases), softmax,
#     dropout, matmul. (F.scaled_dot_product_attention does not exist in 1.13; its private math path
#     measured no faster in pytorch_gpt.py.)
#   - inference_mode for embed; int8 on the qnnpack engine (Debian's torch has no fbgemm), its modules set to
#     the call without reduce_range (silent); tcmalloc.
#   - The masked-LM head runs on the chosen rows only (about 15% of the tokens), as Heptapod's does. Under
#     bf16 autocast its norm reads the activation cast to float32 (1.13's CPU layer_norm refuses a bfloat16
#     input with float32 weights; the encoder's norms read the float32 residual sum anyway).
#   - No token types given (all 0): row 0 of the type table is added by broadcast instead of a lookup (the
#     same values; Heptapod reads row 0 for inputs without types).

import argparse
import copy
import json
import math
import resource
import sys
import time

import torch
import torch.nn as nn
import torch.nn.functional as F

PROG = "pytorch_bert.py"
FIRST_REAL_TOKEN = 5          # pad 0, bos 1, eos 2, unk 3, mask 4
DATA_SEED = 1234
BATCH_TOKENS = 4096
MASK_RATE = 0.15
TRAIN_LR = 1e-4
ADAM_BETAS = (0.9, 0.98)
ADAM_EPS = 1e-9
LABEL_SMOOTHING = 0.1

# The benchmark models, as Heptapod's model-config JSON, and their input length. The parameters, under
# Heptapod's names: encoder/embedding/weight (V, d), encoder/positions/weight (learned_positions, d),
# encoder/token_types/weight (2, d), encoder/embedding_norm/{weight,bias}, per layer i
# encoder/layers/i/self_attn/{q_proj,k_proj,v_proj,out_proj}/{weight,bias}, .../self_attn_norm/*,
# .../ffn/fc1/*, .../ffn/fc2/*, .../ffn_norm/*; then encoder/mlm/transform/{weight,bias} (d, d),
# encoder/mlm/norm/*, encoder/mlm/output_bias (V).
_ENC_COMMON = {"architecture": "encoder-only", "norm": "post", "activation": "gelu", "token_types": 2,
               "embedding_norm": True, "mlm_head": True, "mask_id": 4, "pad_id": 0, "bos_id": 1, "eos_id": 2,
               "tie_embeddings": "none", "output_bias": False, "final_norm": False, "layer_norm_eps": 1e-5,
               "scale_embeddings": False, "dropout": 0.1, "attention_dropout": 0.1, "activation_dropout": 0.1,
               "embedding_dropout": 0.1}
BENCH_MODELS = {
    "enc-small": (dict(_ENC_COMMON, vocab_size=8000, layers=4, d_model=256, n_heads=4, d_ff=1024,
                       learned_positions=128), 128),
    "bert-base": (dict(_ENC_COMMON, vocab_size=30522, layers=12, d_model=768, n_heads=12, d_ff=3072,
                       learned_positions=512), 128),
}


def fail(message):
    sys.exit("%s: %s" % (PROG, message))


# ------------------------------------------------------------------------------------------------ config

_KNOWN_FIELDS = {"architecture", "vocab_size", "layers", "d_model", "n_heads", "d_ff", "dropout",
                 "attention_dropout", "activation_dropout", "embedding_dropout", "norm", "final_norm",
                 "layer_norm_eps", "tie_embeddings", "output_bias", "pad_id", "bos_id", "eos_id", "activation",
                 "scale_embeddings", "positions", "position_offset", "learned_positions", "token_types",
                 "embedding_norm", "mlm_head", "mask_id"}


def model_config(obj, where="model config"):
    """A Heptapod model-config JSON object (encoder-only) -> the dict the model reads. Optional fields take
    Heptapod's defaults; anything this rival does not implement (a classifier head, other sinusoid tables)
    exits with a message."""
    if not isinstance(obj, dict):
        fail("%s: not a JSON object" % where)
    unknown = sorted(set(obj) - _KNOWN_FIELDS)
    if unknown:
        fail("%s: fields this rival does not know: %s" % (where, ", ".join(unknown)))
    arch = obj.get("architecture", "encoder-decoder")
    if arch != "encoder-only":
        fail("%s: architecture \"%s\" is not supported (only \"encoder-only\")" % (where, arch))
    for key in ("vocab_size", "layers", "d_model", "n_heads", "d_ff", "dropout", "attention_dropout",
                "activation_dropout", "embedding_dropout", "norm", "final_norm", "layer_norm_eps",
                "tie_embeddings", "output_bias", "pad_id", "bos_id", "eos_id"):
        if key not in obj:
            fail("%s: missing field \"%s\"" % (where, key))
    c = {
        "vocab": int(obj["vocab_size"]), "layers": int(obj["layers"]), "d_model": int(obj["d_model"]),
        "heads": int(obj["n_heads"]), "d_ff": int(obj["d_ff"]),
        "dropout": float(obj["dropout"]), "attention_dropout": float(obj["attention_dropout"]),
        "activation_dropout": float(obj["activation_dropout"]),
        "embedding_dropout": float(obj["embedding_dropout"]),
        "norm": obj["norm"], "final_norm": bool(obj["final_norm"]), "eps": float(obj["layer_norm_eps"]),
        "pad": int(obj["pad_id"]), "bos": int(obj["bos_id"]), "eos": int(obj["eos_id"]),
        "activation": obj.get("activation", "relu"),
        "scale_embeddings": bool(obj.get("scale_embeddings", True)),
        "learned_positions": int(obj.get("learned_positions", 0)),
        "position_offset": int(obj.get("position_offset", 0)),
        "token_types": int(obj.get("token_types", 0)),
        "embedding_norm": bool(obj.get("embedding_norm", False)),
        "mlm_head": bool(obj.get("mlm_head", False)),
        "mask_id": int(obj.get("mask_id", -1)),
    }
    if c["activation"] == "swish":
        c["activation"] = "silu"
    if obj["tie_embeddings"] != "none" or obj["output_bias"]:
        fail("%s: an encoder has no output layer (tie_embeddings \"none\", output_bias false)" % where)
    if c["norm"] not in ("pre", "post"):
        fail("%s: norm must be \"pre\" or \"post\"" % where)
    if c["activation"] not in ("relu", "gelu", "silu"):
        fail("%s: activation \"%s\" is not supported" % (where, c["activation"]))
    if obj.get("positions", "interleaved") != "interleaved":
        fail("%s: positions \"%s\" is not supported (only the interleaved sinusoids)" % (where, obj["positions"]))
    if c["d_model"] % c["heads"] != 0:
        fail("%s: d_model must be divisible by n_heads" % where)
    if c["learned_positions"] == 0 and c["d_model"] % 2 != 0:
        fail("%s: sinusoidal positions need an even d_model" % where)
    if c["learned_positions"] and c["learned_positions"] <= c["position_offset"]:
        fail("%s: learned_positions must exceed position_offset" % where)
    if c["token_types"] < 0:
        fail("%s: token_types must be >= 0" % where)
    if c["mlm_head"] != (c["mask_id"] >= 0):
        fail("%s: mlm_head needs a mask_id (and a mask_id needs mlm_head)" % where)
    if c["mlm_head"] and (c["mask_id"] >= c["vocab"] or c["mask_id"] == c["pad"]):
        fail("%s: mask_id must be a vocabulary id other than pad_id" % where)
    return c


def has_final_norm(c):
    return c["norm"] == "pre" or c["final_norm"]


# ---------------------------------------------------------------------------------------------- FLOPs


def encoder_flops(c, length):
    """Useful FLOPs of the encoder's forward pass over one sequence of `length` tokens: per layer
    T*(8 d^2 + 4 d f) (q, k, v, out projections and the two FFN products) plus 4 d T^2 (scores Q K^T and
    probabilities x V over every key: d*T^2 multiply-adds each). Matrix products only, 2 FLOPs per
    multiply-add."""
    d, f, t = float(c["d_model"]), float(c["d_ff"]), float(length)
    return c["layers"] * (t * (8 * d * d + 4 * d * f) + 4 * d * t * t)


def embed_flops(c, batch, length):
    """Useful FLOPs of embedding `batch` sequences of `length` tokens: the encoder's forward pass over each
    (the mean pooling is not counted)."""
    return batch * encoder_flops(c, length)


def mlm_training_flops(c, blocks, context, masked):
    """Useful FLOPs of one masked-LM training update on `blocks` blocks of `context` tokens with `masked`
    chosen rows: 3 x the forward pass (backward = 2 x forward); the forward is the encoder over every token
    plus the MLM head over the chosen rows only, 2 Nm (d^2 + d V) (its d x d transform and the product with
    the (V, d) embedding table)."""
    d, v = float(c["d_model"]), float(c["vocab"])
    forward = blocks * encoder_flops(c, context) + 2 * float(masked) * (d * d + d * v)
    return 3 * forward


# ------------------------------------------------------------------------------------------------ model


def sinusoid_table(length, d_model):
    """(length, d_model) float64: PE(p, 2i) = sin(p / 10000^(2i/d)), PE(p, 2i+1) = cos(same)."""
    position = torch.arange(length, dtype=torch.float64).unsqueeze(1)
    div = torch.pow(10000.0, torch.arange(0, d_model, 2, dtype=torch.float64) / d_model)
    table = torch.zeros(length, d_model, dtype=torch.float64)
    table[:, 0::2] = torch.sin(position / div)
    table[:, 1::2] = torch.cos(position / div)
    return table


ACTIVATIONS = {"relu": F.relu, "gelu": F.gelu, "silu": F.silu}  # F.gelu: the exact erf GELU


def xavier_(weight):
    bound = math.sqrt(6.0 / (weight.shape[0] + weight.shape[1]))
    with torch.no_grad():
        weight.uniform_(-bound, bound)


class Layer(nn.Module):
    """One encoder layer: self-attention over every (unmasked) key (q, k, v fused into one (3d, d) product;
    Heptapod's separate q_proj/k_proj/v_proj) and the FFN, each a post- or pre-norm residual sub-layer."""

    def __init__(self, c):
        super().__init__()
        d = c["d_model"]
        self.c = c
        self.heads, self.head_dim = c["heads"], d // c["heads"]
        self.scale = 1.0 / math.sqrt(self.head_dim)
        self.qkv = nn.Linear(d, 3 * d)
        self.out_proj = nn.Linear(d, d)
        self.attn_norm = nn.LayerNorm(d, eps=c["eps"])
        self.fc1 = nn.Linear(d, c["d_ff"])
        self.fc2 = nn.Linear(c["d_ff"], d)
        self.ffn_norm = nn.LayerNorm(d, eps=c["eps"])
        self.activation = ACTIVATIONS[c["activation"]]
        self.pre = c["norm"] == "pre"

    def reset_parameters(self):
        d = self.c["d_model"]
        with torch.no_grad():
            for i in range(3):                                                  # q, k, v: each (d, d)
                xavier_(self.qkv.weight[i * d:(i + 1) * d])
            for lin in (self.out_proj, self.fc1, self.fc2):
                xavier_(lin.weight)
            for lin in (self.qkv, self.out_proj, self.fc1, self.fc2):
                lin.bias.zero_()
            for norm in (self.attn_norm, self.ffn_norm):
                norm.weight.fill_(1.0)
                norm.bias.zero_()

    def attention(self, h, mask):
        """h (B, T, d), mask None or additive (B, 1, 1, T) (-inf at padded keys) -> (B, T, d)."""
        b, t, d = h.shape
        qkv = self.qkv(h).view(b, t, 3, self.heads, self.head_dim).permute(2, 0, 3, 1, 4)  # (3, B, H, T, Dh)
        q, k, v = qkv[0], qkv[1], qkv[2]
        scores = torch.matmul(q * self.scale, k.transpose(-2, -1))              # (B, H, T, T)
        if mask is not None:
            scores.add_(mask)
        probs = F.dropout(torch.softmax(scores, dim=-1), self.c["attention_dropout"], self.training)
        out = torch.matmul(probs, v).transpose(1, 2).reshape(b, t, d)
        return self.out_proj(out)

    def ffn(self, h):
        return self.fc2(F.dropout(self.activation(self.fc1(h)), self.c["activation_dropout"], self.training))

    def forward(self, x, mask):
        p = self.c["dropout"]
        if self.pre:
            x = x + F.dropout(self.attention(self.attn_norm(x), mask), p, self.training)
            return x + F.dropout(self.ffn(self.ffn_norm(x)), p, self.training)
        x = self.attn_norm(x + F.dropout(self.attention(x, mask), p, self.training))
        return self.ffn_norm(x + F.dropout(self.ffn(x), p, self.training))


class EncoderModel(nn.Module):
    """Heptapod's encoder-only model (docs/conventions.md, the encoder stack alone; BERT's token types,
    embedding norm and masked-LM head as the config asks)."""

    def __init__(self, c):
        super().__init__()
        d, vocab = c["d_model"], c["vocab"]
        self.c = c
        self.embedding = nn.Parameter(torch.empty(vocab, d))                     # encoder/embedding/weight
        self.positions = nn.Parameter(torch.empty(c["learned_positions"], d)) if c["learned_positions"] else None
        self.token_types = nn.Parameter(torch.empty(c["token_types"], d)) if c["token_types"] else None
        self.embedding_norm = nn.LayerNorm(d, eps=c["eps"]) if c["embedding_norm"] else None
        self.layers = nn.ModuleList(Layer(c) for _ in range(c["layers"]))
        self.final_norm = nn.LayerNorm(d, eps=c["eps"]) if has_final_norm(c) else None
        if c["mlm_head"]:
            self.mlm_transform = nn.Linear(d, d)
            self.mlm_norm = nn.LayerNorm(d, eps=c["eps"])
            self.mlm_output_bias = nn.Parameter(torch.zeros(vocab))
        self.activation = ACTIVATIONS[c["activation"]]
        self.embed_scale = math.sqrt(d) if c["scale_embeddings"] else 1.0
        self.sinusoids = {}                                                      # dtype -> (L, d) table
        self.reset_parameters()

    def reset_parameters(self):
        """Heptapod's initialisation (src/heptapod/model/initialize.cpp): linear weights Xavier-uniform,
        embeddings, learned positions and token types N(0, 1/sqrt(d)), biases 0, norm weights 1 (from torch's
        generator)."""
        std = 1.0 / math.sqrt(self.c["d_model"])
        with torch.no_grad():
            self.embedding.normal_(0.0, std)
            for table in (self.positions, self.token_types):
                if table is not None:
                    table.normal_(0.0, std)
            for layer in self.layers:
                layer.reset_parameters()
            norms = [self.embedding_norm, self.final_norm]
            if self.c["mlm_head"]:
                xavier_(self.mlm_transform.weight)
                self.mlm_transform.bias.zero_()
                self.mlm_output_bias.zero_()
                norms.append(self.mlm_norm)
            for norm in norms:
                if norm is not None:
                    norm.weight.fill_(1.0)
                    norm.bias.zero_()

    def position_rows(self, length):
        """Positions [0, length) -> (length, d)."""
        c = self.c
        first = c["position_offset"]
        if self.positions is not None:
            if first + length > c["learned_positions"]:
                fail("sequences of %d tokens do not fit %d learned positions (offset %d)"
                     % (length, c["learned_positions"], first))
            return self.positions[first:first + length]
        dtype = self.embedding.dtype
        table = self.sinusoids.get(dtype)
        if table is None or first + length > table.shape[0]:
            table = self.sinusoids[dtype] = sinusoid_table(first + length, c["d_model"]).to(dtype)
        return table[first:first + length]

    def embed(self, tokens, types=None):
        """tokens (B, T), types None (all 0) or (B, T) -> drop_e(norm_e(E[tok] (* sqrt(d)) + P[pos] + T[type]))."""
        x = F.embedding(tokens, self.embedding)
        if self.embed_scale != 1.0:
            x = x * self.embed_scale
        x = x + self.position_rows(tokens.shape[1])
        if self.token_types is not None:
            x = x + (self.token_types[0] if types is None else F.embedding(types, self.token_types))
        if self.embedding_norm is not None:
            x = self.embedding_norm(x)
        return F.dropout(x, self.c["embedding_dropout"], self.training)

    def encode(self, tokens, types=None, lengths=None):
        """tokens (B, T) -> the encoder's output (B, T, d). lengths (B) or None (every row full): keys at
        positions >= lengths[b] are masked for sentence b."""
        b, t = tokens.shape
        mask = None
        if lengths is not None and bool((lengths < t).any()):
            padded = torch.arange(t)[None, :] >= lengths[:, None]                # (B, T)
            mask = torch.zeros(b, 1, 1, t).masked_fill_(padded[:, None, None, :], float("-inf"))
        x = self.embed(tokens, types)
        for layer in self.layers:
            x = layer(x, mask)
        if self.final_norm is not None:
            x = self.final_norm(x)
        return x

    def mlm_logits(self, h, rows):
        """h (B, T, d) the encoder's output, rows (Nm) flat row-major indices of the chosen rows -> (Nm, V)."""
        picked = h.reshape(-1, h.shape[-1]).index_select(0, rows)
        a = self.activation(self.mlm_transform(picked))
        n = self.mlm_norm(a.to(self.mlm_norm.weight.dtype))                     # bf16 autocast: the norm in float32
        return F.linear(n, self.embedding, self.mlm_output_bias)

    # -- Heptapod's names ---------------------------------------------------------------------------------

    def _views(self, grad=False):
        """(Heptapod name, live view of the parameter's data, or of its gradient if grad), in Heptapod's
        parameter layout order (param_shapes of tools/make_parity_fixtures.py); the fused q/k/v rows are split
        into q_proj, k_proj and v_proj."""
        d = self.c["d_model"]
        out = [("encoder/embedding/weight", self.embedding, None)]
        if self.positions is not None:
            out.append(("encoder/positions/weight", self.positions, None))
        if self.token_types is not None:
            out.append(("encoder/token_types/weight", self.token_types, None))
        if self.embedding_norm is not None:
            out += [("encoder/embedding_norm/weight", self.embedding_norm.weight, None),
                    ("encoder/embedding_norm/bias", self.embedding_norm.bias, None)]
        for i, layer in enumerate(self.layers):
            p = "encoder/layers/%d/" % i
            for j, proj in enumerate(("q_proj", "k_proj", "v_proj")):
                rows = slice(j * d, (j + 1) * d)
                out.append((p + "self_attn/%s/weight" % proj, layer.qkv.weight, rows))
                out.append((p + "self_attn/%s/bias" % proj, layer.qkv.bias, rows))
            for name, module in (("self_attn/out_proj", layer.out_proj), ("self_attn_norm", layer.attn_norm),
                                 ("ffn/fc1", layer.fc1), ("ffn/fc2", layer.fc2), ("ffn_norm", layer.ffn_norm)):
                out += [(p + name + "/weight", module.weight, None), (p + name + "/bias", module.bias, None)]
        if self.final_norm is not None:
            out += [("encoder/final_norm/weight", self.final_norm.weight, None),
                    ("encoder/final_norm/bias", self.final_norm.bias, None)]
        if self.c["mlm_head"]:
            out += [("encoder/mlm/transform/weight", self.mlm_transform.weight, None),
                    ("encoder/mlm/transform/bias", self.mlm_transform.bias, None),
                    ("encoder/mlm/norm/weight", self.mlm_norm.weight, None),
                    ("encoder/mlm/norm/bias", self.mlm_norm.bias, None),
                    ("encoder/mlm/output_bias", self.mlm_output_bias, None)]
        views = []
        for name, param, rows in out:
            t = param.grad if grad else param.data
            views.append((name, t if rows is None else t[rows]))
        return views

    def heptapod_state_dict(self):
        """[(name, tensor)]: a copy of every parameter under Heptapod's name (in the model's dtype)."""
        return [(n, t.detach().clone()) for n, t in self._views()]


def mean_pool(h, lengths=None):
    """h (B, T, d) -> (B, d): the mean of each sentence's rows (all T, or its first lengths[b])."""
    if lengths is None:
        return h.mean(dim=1)
    keep = (torch.arange(h.shape[1])[None, :] < lengths[:, None]).to(h.dtype)    # (B, T)
    return (h * keep[:, :, None]).sum(dim=1) / lengths[:, None].to(h.dtype)


def embed_batch(model, tokens, types=None, lengths=None):
    """The embed phase's work: tokens (B, T) -> mean-pooled encoder output (B, d)."""
    return mean_pool(model.encode(tokens, types, lengths), lengths)


def quantize_int8(model):
    """PyTorch's dynamic int8 quantization of every nn.Linear (fused q/k/v, out, fc1, fc2, the MLM transform);
    the embedding lookups stay float32."""
    quantized = torch.ao.quantization.quantize_dynamic(model, {nn.Linear}, dtype=torch.qint8)
    if torch.backends.quantized.engine == "qnnpack":
        # Module version 4 passes reduce_range=True, which qnnpack ignores, printing a warning on every call
        # (a line on stderr per product); version 3's call (reduce_range=False) is the same product, silent.
        for module in quantized.modules():
            if isinstance(module, torch.ao.nn.quantized.dynamic.Linear):
                module.version = 3
    return quantized


def mlm_loss(logits, targets, smoothing):
    """Label-smoothed cross-entropy, the mean over the chosen rows: per row (1 - eps) * (-log p_y) +
    eps * mean_j(-log p_j) over all V classes (= PyTorch's label_smoothing; checked against a float64 formula
    in the self-test). logits (Nm, V), targets (Nm)."""
    return F.cross_entropy(logits, targets, label_smoothing=smoothing, reduction="mean")


# ------------------------------------------------------------------------------------- speed: embedding


def random_sentences(gen, c, batch, length):
    """(batch, length) long: bos, length - 2 random ids in [5, V), eos."""
    ids = torch.randint(FIRST_REAL_TOKEN, c["vocab"], (batch, length), generator=gen)
    ids[:, 0] = c["bos"]
    ids[:, -1] = c["eos"]
    return ids


def run_embed(c, args):
    model = EncoderModel(c)
    model.eval()
    if args.compute_type == "int8":
        torch.backends.quantized.engine = args.int8_engine
        model = quantize_int8(model)
    gen = torch.Generator().manual_seed(DATA_SEED)
    inputs = [random_sentences(gen, c, args.batch, args.length) for _ in range(args.warmup + args.repeats)]
    bf16 = args.compute_type == "bfloat16"
    with torch.inference_mode(), torch.autocast("cpu", dtype=torch.bfloat16, enabled=bf16):
        for x in inputs[:args.warmup]:
            embed_batch(model, x)
        start = time.perf_counter()
        for x in inputs[args.warmup:]:
            embed_batch(model, x)
        seconds = time.perf_counter() - start
    return {"sentences": args.batch * args.repeats, "seconds": seconds,
            "ms_per_batch": seconds / args.repeats * 1000 if args.repeats else 0.0,
            "gflop": embed_flops(c, args.batch, args.length) * args.repeats / 1e9}


# ------------------------------------------------------------------------------------- speed: training


def mlm_batch(gen, c, blocks, context):
    """A masked-LM batch: (inputs (blocks, context), rows (Nm) the chosen positions' flat row-major
    indices, targets (Nm) their original ids). Each block: bos, context - 2 random ids in [5, V), eos; each
    of positions 1 .. context-2 chosen with probability MASK_RATE (at least one per block); a chosen input
    becomes mask_id (80%), a random id in [5, V) (10%) or stays (10%)."""
    if context < 3:
        fail("masked-LM blocks need at least 3 tokens")
    ids = random_sentences(gen, c, blocks, context)
    chosen = torch.rand(blocks, context, generator=gen) < MASK_RATE
    chosen[:, 0] = False
    chosen[:, -1] = False
    for b in (~chosen.any(dim=1)).nonzero().flatten().tolist():
        chosen[b, int(torch.randint(1, context - 1, (1,), generator=gen))] = True
    rows = chosen.flatten().nonzero().flatten()
    targets = ids.flatten()[rows]
    u = torch.rand(rows.numel(), generator=gen)
    replacements = torch.randint(FIRST_REAL_TOKEN, c["vocab"], (rows.numel(),), generator=gen)
    inputs = ids.clone()
    flat = inputs.view(-1)
    flat[rows[u < 0.8]] = c["mask_id"]
    random_ = (u >= 0.8) & (u < 0.9)
    flat[rows[random_]] = replacements[random_]
    return inputs, rows, targets


def train_step(model, optimizer, batch, smoothing, bfloat16=False):
    """One update: forward (under bfloat16 autocast if asked; the MLM head on the chosen rows), loss in
    float32, backward, Adam, zero_grad."""
    inputs, rows, targets = batch
    with torch.autocast("cpu", dtype=torch.bfloat16, enabled=bfloat16):
        logits = model.mlm_logits(model.encode(inputs), rows)                   # (Nm, V)
    loss = mlm_loss(logits.float(), targets, smoothing)
    loss.backward()
    optimizer.step()
    optimizer.zero_grad(set_to_none=True)
    return loss


def make_adam(model, lr):
    return torch.optim.Adam(model.parameters(), lr=lr, betas=ADAM_BETAS, eps=ADAM_EPS, weight_decay=0.0,
                            foreach=True)


def run_mlm_train(c, context, args):
    if not c["mlm_head"]:
        fail("mlm-train needs a model with the masked-LM head (mlm_head)")
    blocks = max(1, BATCH_TOKENS // context)
    model = EncoderModel(c)
    gen = torch.Generator().manual_seed(DATA_SEED)
    batches = [mlm_batch(gen, c, blocks, context) for _ in range(args.warmup + args.batches)]
    optimizer = make_adam(model, TRAIN_LR)
    model.train()
    bf16 = args.compute_type == "bfloat16"
    for batch in batches[:args.warmup]:
        train_step(model, optimizer, batch, LABEL_SMOOTHING, bf16)
    start = time.perf_counter()
    for batch in batches[args.warmup:]:
        train_step(model, optimizer, batch, LABEL_SMOOTHING, bf16)
    seconds = time.perf_counter() - start
    timed = batches[args.warmup:]
    masked = sum(int(rows.numel()) for _, rows, _ in timed)
    return {"tokens": args.batches * blocks * context, "seconds": seconds, "masked_tokens": masked,
            "gflop": sum(mlm_training_flops(c, blocks, context, rows.numel()) for _, rows, _ in timed) / 1e9}


# ----------------------------------------------------------------------------------------- self-test


def reference_encode(P, c, tokens, types, lengths):
    """An independent, plain float64 implementation of the encoder (docs/conventions.md, the parity
    fixtures' math written again): P {Heptapod name: tensor}; tokens, types (B, T) long (types None: all 0);
    lengths (B). Sentence b's queries see its keys j < lengths[b]. -> (B, T, d)."""
    P = {k: v.double() if not v.requires_grad else v for k, v in P.items()}
    b_, t_ = tokens.shape
    d, heads = c["d_model"], c["heads"]
    dh = d // heads
    rows = []
    for b in range(b_):
        row = []
        for t in range(t_):
            e = P["encoder/embedding/weight"][tokens[b, t]] * (math.sqrt(d) if c["scale_embeddings"] else 1.0)
            p = c["position_offset"] + t
            if c["learned_positions"]:
                e = e + P["encoder/positions/weight"][p]
            else:
                pe = []
                for i in range(0, d, 2):
                    pe += [math.sin(p / 10000.0 ** (i / d)), math.cos(p / 10000.0 ** (i / d))]
                e = e + torch.tensor(pe, dtype=torch.float64)
            if c["token_types"]:
                e = e + P["encoder/token_types/weight"][0 if types is None else types[b, t]]
            row.append(e)
        rows.append(torch.stack(row))
    x = torch.stack(rows)                                                       # (B, T, d)

    def ln(h, name):
        return reference_norm(h, P, name, c["eps"])

    def lin(h, name):
        return h @ P[name + "/weight"].t() + P[name + "/bias"]

    def act(h):
        return reference_activation(h, c)

    def attn(h, p):
        q, k, v = lin(h, p + "q_proj"), lin(h, p + "k_proj"), lin(h, p + "v_proj")
        sentences = []
        for b in range(b_):
            n = int(lengths[b])
            outs = []
            for i in range(t_):
                parts = []
                for hd in range(heads):
                    s = slice(hd * dh, (hd + 1) * dh)
                    w = torch.softmax(k[b, :n, s] @ q[b, i, s] / math.sqrt(dh), dim=0)   # keys j < n
                    parts.append((w[:, None] * v[b, :n, s]).sum(0))
                outs.append(torch.cat(parts))
            sentences.append(torch.stack(outs))
        return lin(torch.stack(sentences), p + "out_proj")

    if c["embedding_norm"]:
        x = ln(x, "encoder/embedding_norm")
    for i in range(c["layers"]):
        p = "encoder/layers/%d/" % i
        for f, norm in ((lambda h: attn(h, p + "self_attn/"), p + "self_attn_norm"),
                        (lambda h: lin(act(lin(h, p + "ffn/fc1")), p + "ffn/fc2"), p + "ffn_norm")):
            x = x + f(ln(x, norm)) if c["norm"] == "pre" else ln(x + f(x), norm)
    if has_final_norm(c):
        x = ln(x, "encoder/final_norm")
    return x


def reference_norm(h, P, name, eps):
    m = h.mean(-1, keepdim=True)
    var = ((h - m) ** 2).mean(-1, keepdim=True)
    return (h - m) / torch.sqrt(var + eps) * P[name + "/weight"] + P[name + "/bias"]


def reference_activation(h, c):
    if c["activation"] == "relu":
        return torch.where(h > 0, h, torch.zeros_like(h))
    if c["activation"] == "gelu":
        return 0.5 * h * (1.0 + torch.erf(h / math.sqrt(2.0)))
    return h / (1.0 + torch.exp(-h))


def reference_mlm_logits(P, c, h, chosen):
    """The masked-LM head on the rows (b, t) listed in `chosen`, in order: LN_mlm(act(h W_t^T + b_t)) E^T + bias."""
    out = []
    for b, t in chosen:
        a = reference_activation(h[b, t] @ P["encoder/mlm/transform/weight"].t() + P["encoder/mlm/transform/bias"], c)
        n = reference_norm(a, P, "encoder/mlm/norm", c["eps"])
        out.append(n @ P["encoder/embedding/weight"].t() + P["encoder/mlm/output_bias"])
    return torch.stack(out)


def reference_loss(logits, targets, eps):
    """By hand: the mean over the rows of (1 - eps) * (-log p_y) + eps * mean_j(-log p_j)."""
    total = 0.0
    for r in range(logits.shape[0]):
        logp = logits[r] - torch.logsumexp(logits[r], dim=0)
        total = total + (1.0 - eps) * (-logp[int(targets[r])]) + eps * (-logp).mean()
    return total / logits.shape[0]


def expected_names(c):
    """(name, shape) of every parameter, in Heptapod's order (param_shapes of the parity fixtures, written
    again for an encoder-only model)."""
    d, f, v = c["d_model"], c["d_ff"], c["vocab"]
    out = [("encoder/embedding/weight", (v, d))]
    if c["learned_positions"]:
        out.append(("encoder/positions/weight", (c["learned_positions"], d)))
    if c["token_types"]:
        out.append(("encoder/token_types/weight", (c["token_types"], d)))
    if c["embedding_norm"]:
        out += [("encoder/embedding_norm/weight", (d,)), ("encoder/embedding_norm/bias", (d,))]
    for i in range(c["layers"]):
        p = "encoder/layers/%d/" % i
        for proj in ("q_proj", "k_proj", "v_proj", "out_proj"):
            out += [(p + "self_attn/%s/weight" % proj, (d, d)), (p + "self_attn/%s/bias" % proj, (d,))]
        out += [(p + "self_attn_norm/weight", (d,)), (p + "self_attn_norm/bias", (d,)),
                (p + "ffn/fc1/weight", (f, d)), (p + "ffn/fc1/bias", (f,)),
                (p + "ffn/fc2/weight", (d, f)), (p + "ffn/fc2/bias", (d,)),
                (p + "ffn_norm/weight", (d,)), (p + "ffn_norm/bias", (d,))]
    if has_final_norm(c):
        out += [("encoder/final_norm/weight", (d,)), ("encoder/final_norm/bias", (d,))]
    if c["mlm_head"]:
        out += [("encoder/mlm/transform/weight", (d, d)), ("encoder/mlm/transform/bias", (d,)),
                ("encoder/mlm/norm/weight", (d,)), ("encoder/mlm/norm/bias", (d,)),
                ("encoder/mlm/output_bias", (v,))]
    return out


def self_test_configs():
    base = dict(_ENC_COMMON, vocab_size=50, layers=2, d_model=16, n_heads=2, d_ff=24, learned_positions=16)
    variants = [
        {},                                                                      # BERT's
        {"norm": "pre", "activation": "relu", "learned_positions": 0, "position_offset": 2,
         "scale_embeddings": True, "token_types": 0, "embedding_norm": False},    # pre-norm, sinusoids
    ]
    return [model_config(dict(base, **v), "self-test config %d" % i) for i, v in enumerate(variants)]


def perturbed_model(c, seed):
    """A model whose biases and norm weights are random too (the initialisation makes them 0 and 1)."""
    torch.manual_seed(seed)
    model = EncoderModel(c)
    with torch.no_grad():
        for name, t in model._views():
            if name.endswith("bias"):
                t.uniform_(-0.1, 0.1)
            elif "norm" in name:
                t.uniform_(0.9, 1.1)
    return model


def cosine(a, b):
    return F.cosine_similarity(a.double().flatten(1), b.double().flatten(1), dim=1).min().item()


def self_test():
    import io
    from contextlib import redirect_stdout
    start = time.perf_counter()
    configs = self_test_configs()
    gen = torch.Generator().manual_seed(7)
    lengths = torch.tensor([8, 5, 3, 8])

    for n, c in enumerate(configs):
        # (1) names and shapes; the float64 module = the float64 functional reference (padded batch, types)
        model = perturbed_model(c, 100 + n)
        names = [(name, tuple(t.shape)) for name, t in model.heptapod_state_dict()]
        assert names == expected_names(c), "config %d: parameter names/shapes differ" % n
        b_, t_ = len(lengths), int(lengths.max())
        tokens = torch.randint(FIRST_REAL_TOKEN, c["vocab"], (b_, t_), generator=gen)
        types = torch.randint(0, max(c["token_types"], 1), (b_, t_), generator=gen)
        real = torch.arange(t_)[None, :] < lengths[:, None]
        tokens[:, 0] = c["bos"]
        tokens[torch.arange(b_), lengths - 1] = c["eos"]
        tokens[~real] = c["pad"]
        types[~real] = 0
        if not c["token_types"]:
            types = None
        chosen = [(0, 2), (0, 5), (1, 1), (1, 3), (2, 1), (3, 4), (3, 6)]
        rows = torch.tensor([b * t_ + t for b, t in chosen])
        targets = torch.randint(FIRST_REAL_TOKEN, c["vocab"], (len(chosen),), generator=gen)
        if c["mlm_head"]:
            for r, (b, t) in enumerate(chosen):
                tokens[b, t] = c["mask_id"] if r % 3 else tokens[b, t]
        m64 = copy.deepcopy(model).double()
        m64.eval()                                                               # dropout off
        h = m64.encode(tokens, types, lengths)
        pooled = mean_pool(h, lengths)
        logits = m64.mlm_logits(h, rows)
        loss = mlm_loss(logits, targets, LABEL_SMOOTHING)
        loss.backward()
        P = {name: t.requires_grad_(True) for name, t in m64.heptapod_state_dict()}
        ref_h = reference_encode(P, c, tokens, types, lengths)
        ref_pooled = torch.stack([ref_h[b, :int(lengths[b])].mean(0) for b in range(b_)])
        ref_logits = reference_mlm_logits(P, c, ref_h, chosen)
        ref_loss = reference_loss(ref_logits, targets, LABEL_SMOOTHING)
        diff_h = (h - ref_h).abs()[real].max().item()
        diff_pool = (pooled - ref_pooled).abs().max().item()
        diff_logits = (logits - ref_logits).abs().max().item()
        assert diff_h < 1e-9 and diff_pool < 1e-9, "config %d: encoder output / pooled differ by %g / %g" % (
            n, diff_h, diff_pool)
        assert diff_logits < 1e-9, "config %d: MLM logits differ by %g" % (n, diff_logits)
        hand = reference_loss(logits.detach(), targets, LABEL_SMOOTHING).item()
        assert abs(loss.item() - hand) < 1e-12, "config %d: loss %.15f vs formula %.15f" % (n, loss.item(), hand)
        assert abs(loss.item() - ref_loss.item()) < 1e-9, (loss.item(), ref_loss.item())
        ref_loss.backward()
        grad_views = dict(m64._views(grad=True))
        worst = max((grad_views[name] - P[name].grad).abs().max().item() for name in P)
        scale = max(P[name].grad.abs().max().item() for name in P)
        assert worst <= 1e-9 * max(scale, 1.0), "config %d: gradients differ by %g (largest %g)" % (n, worst, scale)
        # the float32 module is the same function to float32 precision
        model.eval()
        with torch.no_grad():
            h32 = model.encode(tokens, types, lengths)
            diff32 = (mean_pool(h32, lengths).double() - ref_pooled).abs().max().item()
            assert diff32 < 1e-4, "config %d: float32 pooled differs by %g" % (n, diff32)
            # padding is invisible: other tokens and types on the padded positions change nothing
            tokens2 = tokens.clone()
            tokens2[~real] = FIRST_REAL_TOKEN + 1
            types2 = None if types is None else types.clone().masked_fill_(~real, 1)
            h2 = m64.encode(tokens2, types2, lengths)
            assert (h2 - h).abs()[real].max().item() < 1e-12, "config %d: padding is visible" % n
            # no types = all type 0; full rows need no mask
            full = tokens[[0, 3]]
            zero = None if types is None else torch.zeros_like(full)
            a = m64.encode(full, zero, torch.tensor([t_, t_]))
            assert torch.equal(a, m64.encode(full)), "config %d: types None differs from types 0" % n
            # dropout acts in training
            m64.train()
            dropped = m64.mlm_logits(m64.encode(tokens, types, lengths), rows)
            assert (dropped - logits).abs().max().item() > 1e-6, "config %d: dropout has no effect" % n
        print("  model %d: float64 module = reference (output %.1e, pooled %.1e, MLM logits %.1e, gradients "
              "%.1e of the largest); loss = formula; padding invisible" % (n, diff_h, diff_pool, diff_logits,
                                                                          worst / scale), file=sys.stderr)

        # (2) int8 and bfloat16 embedding stay close to float32 (padded and full batches)
        x = random_sentences(gen, c, 6, 12)
        engines = [e for e in torch.backends.quantized.supported_engines if e != "none"]
        quantized = {}
        for engine in engines:
            torch.backends.quantized.engine = engine
            quantized[engine] = quantize_int8(model)
        with torch.inference_mode():
            ref32 = embed_batch(model, x)
            refpad = embed_batch(model, tokens, types, lengths)
            with torch.autocast("cpu", dtype=torch.bfloat16):
                cos_bf16 = min(cosine(embed_batch(model, x), ref32),
                               cosine(embed_batch(model, tokens, types, lengths), refpad))
            cos_int8 = {}
            for engine, q in quantized.items():
                torch.backends.quantized.engine = engine
                cos_int8[engine] = min(cosine(embed_batch(q, x), ref32),
                                       cosine(embed_batch(q, tokens, types, lengths), refpad))
        assert cos_bf16 > 0.99, "config %d: bfloat16 pooled cosine %.4f" % (n, cos_bf16)
        for engine, value in cos_int8.items():
            assert value > 0.99, "config %d: int8 (%s) pooled cosine %.4f" % (n, engine, value)
        print("  model %d: pooled cosine with float32: bfloat16 %.4f, int8 %s" % (
            n, cos_bf16, ", ".join("%s %.4f" % kv for kv in sorted(cos_int8.items()))), file=sys.stderr)

    # (3) the masking of a training batch
    c = configs[0]
    g = torch.Generator().manual_seed(3)
    inputs, rows, targets = mlm_batch(g, c, 400, 12)
    ids_gen = torch.Generator().manual_seed(3)
    original = random_sentences(ids_gen, c, 400, 12).flatten()                  # the same first draw
    assert torch.equal(original[rows], targets)
    flat = inputs.flatten()
    untouched = torch.ones_like(flat, dtype=torch.bool)
    untouched[rows] = False
    assert torch.equal(flat[untouched], original[untouched]), "unchosen inputs changed"
    pos = rows % 12
    assert bool(((pos >= 1) & (pos <= 10)).all()), "a start or end token was chosen"
    assert bool(torch.bincount(rows // 12, minlength=400).min() >= 1), "a block without a target"
    share = rows.numel() / (400 * 10)
    masked = (flat[rows] == c["mask_id"]).float().mean().item()
    kept = (flat[rows] == targets).float().mean().item()
    assert 0.12 < share < 0.19 and 0.74 < masked < 0.86 and 0.06 < kept < 0.16, (share, masked, kept)
    assert bool(((inputs >= FIRST_REAL_TOKEN) | (inputs == c["mask_id"]) | (inputs == c["bos"])
                 | (inputs == c["eos"])).all())

    # (4) the phases themselves, on a tiny config and through main's JSON
    for ct in ("float32", "bfloat16"):
        args = argparse.Namespace(warmup=1, batches=1, compute_type=ct)
        torch.manual_seed(0)
        model = EncoderModel(c)
        before = [p.detach().clone() for p in model.parameters()]
        optimizer = make_adam(model, 1e-3)
        model.train()
        batch = mlm_batch(torch.Generator().manual_seed(4), c, 4, 12)
        loss = train_step(model, optimizer, batch, LABEL_SMOOTHING, ct == "bfloat16")
        assert math.isfinite(loss.item()) and abs(loss.item() - math.log(c["vocab"])) < 1.5, loss.item()
        assert all(not torch.equal(a, p) for a, p in zip(before, model.parameters()))
        assert all(p.grad is None for p in model.parameters())
        result = run_mlm_train(c, 12, args)
        assert result["tokens"] == (BATCH_TOKENS // 12) * 12 and result["masked_tokens"] > 0, result
    for argv in (["--phase", "embed", "--model", "enc-small", "--batch", "2", "--length", "8", "--repeats", "2",
                  "--warmup", "0", "--compute-type", ct] for ct in ("float32", "int8", "bfloat16")):
        out = io.StringIO()
        with redirect_stdout(out):
            main(argv)
        line = json.loads(out.getvalue())
        assert list(line) == ["side", "phase", "compute_type", "model", "batch", "length", "sentences", "seconds",
                              "sentences_per_second", "ms_per_batch", "gflop", "peak_rss_mb"], list(line)
        assert line["sentences"] == 4 and line["seconds"] > 0 and line["compute_type"] == argv[-1]
        ms = line["seconds"] / 2 * 1000
        assert abs(line["ms_per_batch"] - ms) < 1e-9 * ms
        assert abs(line["gflop"] - 2 * embed_flops(model_config(BENCH_MODELS["enc-small"][0]), 2, 8) / 1e9) < 1e-12
    keys = list(mlm_result_json(argparse.Namespace(phase="mlm-train", compute_type="float32", model="enc-small"),
                                {"tokens": 1, "seconds": 1.0, "gflop": 1.0, "masked_tokens": 1}))
    assert keys == ["side", "phase", "compute_type", "model", "tokens", "seconds", "tokens_per_second", "gflop",
                    "masked_tokens", "peak_rss_mb"], keys

    # (5) the FLOP formulas by hand: d 16, f 24, T 8, 2 layers, V 50
    per_layer = 8 * (8 * 256 + 4 * 16 * 24) + 4 * 16 * 64                         # 16384 + 12288 + 4096
    assert embed_flops(c, 3, 8) == 3 * 2 * per_layer == 3 * 2 * 32768
    assert mlm_training_flops(c, 3, 8, 5) == 3 * (3 * 2 * 32768 + 2 * 5 * (256 + 16 * 50))
    print("self-test passed (%.1f s)" % (time.perf_counter() - start), file=sys.stderr)


# ------------------------------------------------------------------------------------------------ main


def parse_args(argv=None):
    p = argparse.ArgumentParser(description="PyTorch rival for Heptapod's encoder-only (BERT-style) models")
    p.add_argument("--phase", choices=["embed", "mlm-train"])
    p.add_argument("--self-test", action="store_true", help="check the model, the loss and the phases")
    p.add_argument("--model", choices=sorted(BENCH_MODELS))
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--compute-type", default="float32", choices=["float32", "int8", "bfloat16"],
                   help="embed: float32, int8 (dynamic quantization of the linear layers) or bfloat16 (CPU "
                        "autocast); mlm-train: float32 or bfloat16")
    p.add_argument("--batch", type=int, help="embed: sentences per batch")
    p.add_argument("--length", type=int, help="tokens per sentence / block (default: the model's input length)")
    p.add_argument("--repeats", type=int, default=3, help="embed: timed batches")
    p.add_argument("--batches", type=int, default=3, help="mlm-train: timed batches")
    p.add_argument("--warmup", type=int, default=1, help="untimed batches")
    engines = [e for e in torch.backends.quantized.supported_engines if e != "none"]
    p.add_argument("--int8-engine", default="qnnpack" if "qnnpack" in engines else torch.backends.quantized.engine,
                   choices=engines, help="embed, int8: PyTorch's quantized engine (default qnnpack, as "
                   "pytorch_gpt.py: Debian's build has no fbgemm)")
    args = p.parse_args(argv)
    if args.self_test:
        return args
    if args.phase is None:
        p.error("--phase or --self-test is required")
    if args.model is None:
        p.error("--phase %s needs --model" % args.phase)
    if args.length is None:
        args.length = BENCH_MODELS[args.model][1]
    if args.phase == "embed":
        if args.batch is None or args.batch < 1:
            p.error("embed needs --batch B (B >= 1)")
        if args.length < 2 or args.repeats < 1:
            p.error("embed needs --length >= 2 and --repeats >= 1")
    if args.phase == "mlm-train":
        if args.compute_type == "int8":
            p.error("mlm-train: --compute-type float32 or bfloat16")
        if args.length < 3 or args.batches < 1:
            p.error("mlm-train needs --length >= 3 and --batches >= 1")
    if args.warmup < 0:
        p.error("--warmup must be >= 0")
    return args


def embed_result_json(args, result):
    seconds = result["seconds"]
    return {"side": "pytorch", "phase": "embed", "compute_type": args.compute_type, "model": args.model,
            "batch": args.batch, "length": args.length, "sentences": result["sentences"], "seconds": seconds,
            "sentences_per_second": result["sentences"] / seconds if seconds > 0 else 0.0,
            "ms_per_batch": result["ms_per_batch"], "gflop": result["gflop"],
            "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}


def mlm_result_json(args, result):
    seconds = result["seconds"]
    return {"side": "pytorch", "phase": "mlm-train", "compute_type": args.compute_type, "model": args.model,
            "tokens": result["tokens"], "seconds": seconds,
            "tokens_per_second": result["tokens"] / seconds if seconds > 0 else 0.0,
            "gflop": result["gflop"], "masked_tokens": result["masked_tokens"],
            "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}


def main(argv=None):
    args = parse_args(argv)
    torch.set_num_threads(args.threads)
    torch.manual_seed(0)
    if args.self_test:
        self_test()
        return
    cfg_json, _ = BENCH_MODELS[args.model]
    c = model_config(cfg_json)
    if c["learned_positions"] and c["position_offset"] + args.length > c["learned_positions"]:
        fail("--length %d does not fit the model's %d learned positions" % (args.length, c["learned_positions"]))
    if args.phase == "embed":
        out = embed_result_json(args, run_embed(c, args))
    else:
        out = mlm_result_json(args, run_mlm_train(c, args.length, args))
    print(json.dumps(out), flush=True)


if __name__ == "__main__":
    main()
