#!/usr/bin/python3
# pytorch_gpt.py -- the PyTorch side of Heptapod's language-model (decoder-only, GPT-style) benchmarks.
#
# The benchmark driver runs Heptapod and this script on the same work and compares tokens per second; this
# script is the rival for decoder-only language models (GPT-style): a plain but competent PyTorch 1.13 CPU
# implementation of Heptapod's decoder-only model (docs/conventions.md, "The model, exactly", one causal
# stack), given its best settings. bench/pytorch_rival.py is its twin for the translation models.
#
#   /usr/bin/python3 bench/pytorch_gpt.py --phase lm-train --model {lm-small,gpt2-small,smollm-135m} [--threads 2] \
#       [--compute-type float32|bfloat16] [--batches 3] [--warmup 1]
#   /usr/bin/python3 bench/pytorch_gpt.py --phase generate --model {lm-small,gpt2-small,smollm-135m} --batch B \
#       [--prompt 64] [--new 128] [--compute-type float32|int8|bfloat16] [--repeats 2] [--warmup 1] \
#       [--step-attention mulsum|matmul] [--int8-engine qnnpack|onednn]
#   /usr/bin/python3 bench/pytorch_gpt.py --phase train-recipe --config CONFIG.json --blocks PREFIX \
#       --time-limit SECONDS [--warmup-steps 500] [--lr-scale 1.0] [--label-smoothing 0.1] [--seed 1] \
#       [--threads 2] -o OUT.safetensors
#   /usr/bin/python3 bench/pytorch_gpt.py --self-test
#
# Output: exactly one JSON line on stdout (progress and notes go to stderr).
#   lm-train:     {"side": "pytorch", "phase", "compute_type", "model", "tokens", "seconds",
#                  "tokens_per_second", "gflop", "peak_rss_mb"}
#   generate:     the same plus "batch" and "ms_per_token" (seconds / repeats / new * 1000: the time per
#                 generated position, all B rows together)
#   train-recipe: {"side": "pytorch", "steps", "tokens", "seconds", "tokens_per_second", "last_loss"}
#   "gflop" is useful work, lm_training_flops() / lm_generation_flops() below (the same formulas as
#   bench/workload.cpp): matrix products only, 2 FLOPs per multiply-add; per layer and block of T tokens
#   T*(8 d^2 + 4 d f) for the q, k, v, out projections and the FFN plus 2 d T^2 for the causal scores and
#   the probabilities x values, plus 2 T d V for the output projection; training = 3 x forward.
#
# Settings: torch.set_num_threads(--threads, default 2); torch.manual_seed(0) (train-recipe: --seed);
# the driver should add LD_PRELOAD=libtcmalloc_minimal.so.4 and OMP_WAIT_POLICY=PASSIVE as for
# pytorch_rival.py (bench/common.sh, run_rival): glibc malloc more than doubles the training time (below).
# All batches and prompts are built before the clock starts; the first --warmup batches (generations) run
# untimed.
#
# Models (Heptapod model-config JSON in BENCH_MODELS; bench/workload.cpp, bench_language_model):
#   lm-small    6 layers, d 256, 4 heads, d_ff 1024, V 8000, pre-norm, relu, sinusoids, embeddings x sqrt(d),
#               tied output, no output bias, context 256; dropout 0.1, embedding dropout 0.1, others 0
#   gpt2-small  12 layers, d 768, 12 heads, d_ff 3072, V 50257, pre-norm, exact GELU, 1024 learned positions,
#               unscaled embeddings, tied output, no output bias, context 1024; dropout, embedding dropout
#               and attention dropout 0.1, activation dropout 0
#   smollm-135m SmolLM-135M's shape (LLaMA's pieces): 30 layers, d 576, 9 heads of 64, 3 key/value heads, d_ff
#               1536 (SwiGLU), V 49152, RMSNorm (eps 1e-5), rotary positions (theta 100000, no scaling), no
#               biases, unscaled embeddings, tied output, context 1024 (the model takes 2048: max_positions);
#               no dropout
# The model follows any decoder-only config (--config): pre-norm x = x + drop(f(LN(x))) with the final
# norm decoder/final_norm; post-norm x = LN(x + drop(f(x))) with a final norm only if "final_norm";
# relu / gelu (exact erf) / silu; sinusoids (interleaved) or learned positions, position_offset,
# scale_embeddings; tie "target_output" or "none", optional output bias. Dropouts: embedding_dropout on the
# embedding + position sum, dropout on each sub-layer output, attention_dropout on the attention
# probabilities, activation_dropout on the FFN activation (training only). Initialisation as Heptapod's
# (Xavier-uniform linear weights, N(0, 1/sqrt(d)) embeddings and learned positions, zero biases, unit norm
# weights), from torch's generator. Weights are saved under Heptapod's names (q/k/v fused in memory, split
# into q_proj, k_proj, v_proj in the file).
# The LLaMA family's pieces, by the same config fields as Heptapod's (src/heptapod/model/config.h): norm_type
# "rms" (RMSNorm, weight only); kv_heads (grouped-query attention: query head h reads key/value head h / (n_heads
# / kv_heads)); head_dim; gated_ffn (fc2(act(gate(x)) * fc1(x)): SwiGLU with silu, GeGLU with gelu);
# attention_qkv_bias, attention_out_bias, ffn_bias (false: no bias); rotary {"theta", "dims" (0: the whole head),
# "scaling": "none"} (Hugging Face's rotate_half layout: columns i and i + R/2 turned by position * theta^(-2i/R);
# no positions added to the embeddings; rotary scaling is not implemented here); max_positions (the longest
# sequence). qk_norm is refused. A config with none of them runs the same code as before they existed.
# Loss: label-smoothed (0.1) cross-entropy, (1 - eps) * nll + eps * mean_j(-log p_j) over all V classes
# (F.cross_entropy's label_smoothing, checked against a float64 implementation), summed over the targets
# that are not pad_id and divided by their count.
#
# Phases:
#   lm-train      batches of 4096 tokens: 4096 / context blocks of context+1 random ids in [4, V) (inputs
#                 the first context, targets the next ones); forward, loss, backward, Adam (0.9, 0.98, 1e-9,
#                 foreach, lr 1e-4), zero_grad(set_to_none). bfloat16: the forward pass under
#                 torch.autocast("cpu", bfloat16), the loss in float32. Counted: targets.
#   generate      B prompts of --prompt random ids in [4, V) (fresh ones each repeat), then --new tokens
#                 each, greedy, the end token (and, as Heptapod's banned_output_ids, pad and bos) banned so
#                 that every row makes exactly --new tokens. The prompts in ONE batched causal pass that
#                 fills per-layer key/value caches preallocated as (B, KV, prompt+new, Dh) (KV: the key/value
#                 heads, H without grouped-query attention); then one position per step, the output
#                 projection for the new position only. eval(), inference_mode.
#                 int8: torch.ao.quantization.quantize_dynamic of every nn.Linear, the output projection
#                 made an nn.Linear sharing the embedding weight first (the lookup stays float32);
#                 bfloat16: autocast around prefill and steps, bfloat16 caches. Counted: B * new per repeat;
#                 the time covers prefill and every step.
#   train-recipe  the wall-time training comparison: reads the batches Heptapod's trainer would read, in its
#                 order, from PREFIX.json {"batches", "rows", "context", "pad_id"} and PREFIX.inputs /
#                 PREFIX.targets (little-endian int32, (batches, rows, context)); a row whose inputs are all
#                 pad_id is an absent block (dropped), a pad_id target has no loss, each batch is trimmed to
#                 its longest row. train() mode with the config's dropouts, Adam (0.9, 0.98, 1e-9, no weight
#                 decay, foreach), Heptapod's "noam" rate scale * d^-0.5 * min(step^-0.5, step *
#                 warmup^-1.5) from step 1, no clipping. Stops once the summed time of the updates (forward,
#                 backward, optimizer; perf_counter) reaches --time-limit, or when the batches run out (said on
#                 stderr). Progress on stderr every 50 updates. Writes the weights atomically as an F32
#                 safetensors state dict with Heptapod's names (for heptapod convert --from heptapod).
#   --self-test   (a few seconds) tiny configs (2 layers, d 16, 2 heads, V 50: pre/post-norm, sinusoids and
#                 learned positions with an offset, relu/gelu/silu, tied/untied, output bias): loss within
#                 1e-5 relative and gradients of a float64 plain implementation, names and shapes as
#                 Heptapod's layout; two configs with the LLaMA pieces (RMSNorm, SwiGLU / GeGLU, rotary
#                 positions whole and on half the head, 2 and 1 key/value heads of 4, an explicit head_dim,
#                 q/k/v biases, tied / untied) against tools/llama_reference.py's float64 loss and gradients
#                 (their weights under Hugging Face's names); cached generation (both step attentions) = the
#                 full causal forward's greedy tokens and last logits (1e-4), the caches holding the key/value
#                 heads alone; int8 and bfloat16 generation run; safetensors write /
#                 read / reload round trip with its header checked; noam values by hand; the recipe's loop
#                 (order, absent rows and batches, rates per update, the time limit).
#
# Implementation choices:
#   - Hand-written layers: fused q/k/v nn.Linear, 4-D matmuls with an additive causal (T, T) mask added in
#     place, softmax, dropout, matmul; the same modules serve the cached decoder (layer.step).
#   - One-query attention over the cache is broadcast multiply + sum (--step-attention mulsum).
#   - Grouped-query attention never repeats keys and values: the G query heads of a key/value head run as
#     one (G T, T) score product (training, prefill) or one (G, t) one (steps), so the cache holds the KV
#     heads alone. Rotary angles are tables of cos and sin (float64 -> float32) applied to q and k.
#     Unmeasured: whether mulsum or matmul is the faster step attention for grouped heads (default mulsum).
#   - int8 uses the qnnpack engine (Debian's torch has no fbgemm: onednn and qnnpack), its modules set to
#     the call without reduce_range (which qnnpack ignores anyway, but otherwise logs a warning line on
#     every product).
#
# Measurements behind those choices (AMD EPYC with AVX-512 bf16, 2 cores, 2 threads, tcmalloc, OMP PASSIVE,
# shared with another job, so differences under ~10% are noise):
#   lm-train, lm-small, one 4096-token step: glibc malloc 7.6 s, tcmalloc 3.1 s (page faults: sys time).
#     Profile with tcmalloc: GEMMs ~75% (mm 48%, addmm 14%, bmm 12%), element-wise adds 12%.
#   causal attention core (16 blocks x 4 heads x 256 x 64), forward + backward: hand-written 51 ms median,
#     F._scaled_dot_product_attention (1.13's private one; math path) 45-55 ms -> no gain, hand-written kept.
#   generate lm-small, 64 new tokens, median s: B=1 mulsum 0.35 / matmul 0.32; B=16 0.78 / 0.88;
#     B=64 2.40 / 2.77 -> mulsum.
#   int8 engines, lm-small, 64 new tokens, median s (float32 / bfloat16 / int8 onednn / int8 qnnpack):
#     B=1 0.25 / 0.25 / 1.42 / 0.19; B=16 0.60 / 0.57 / 2.06 / 0.94. onednn rebuilds its primitive when
#     the dynamic input scale changes (a 1x256x768 product: 47 us with a repeated input, 231 us with fresh
#     ones); qnnpack with the warning on every call: B=1 0.24 s, B=16 1.01 s.
#   bfloat16 caches vs float32 caches under autocast: B=1 0.20 / 0.18 s, B=16 0.60 / 0.62 s -> bfloat16
#     (half the memory).
#   inference_mode vs no_grad: B=1 0.242 / 0.267 s, B=16 0.551 / 0.569 s -> inference_mode.
#   Full runs (defaults): lm-train lm-small float32 2500 tokens/s (1.64 s per batch, 107 GFLOP/s), bfloat16
#     5190 tokens/s; generate lm-small (prompt 64, new 128) B=1: float32 5.1 ms/token, int8 3.1, bfloat16
#     3.2; B=16: 8.7 / 10.5 / 7.7 ms per position (1840 / 1530 / 2080 tokens/s).

import argparse
import json
import math
import os
import resource
import struct
import sys
import tempfile
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

PROG = "pytorch_gpt.py"
FIRST_REAL_TOKEN = 4
DATA_SEED = 1234
BATCH_TOKENS = 4096
TRAIN_LR = 1e-4
ADAM_BETAS = (0.9, 0.98)
ADAM_EPS = 1e-9
LABEL_SMOOTHING = 0.1

# The benchmark models, as Heptapod's model-config JSON (bench/workload.cpp, bench_language_model) and their
# context (block length).
_LM_COMMON = {"architecture": "decoder-only", "activation_dropout": 0.0, "dropout": 0.1,
              "embedding_dropout": 0.1, "final_norm": False, "layer_norm_eps": 1e-5, "norm": "pre",
              "output_bias": False, "pad_id": 0, "bos_id": 1, "eos_id": 2, "tie_embeddings": "target_output"}
BENCH_MODELS = {
    "lm-small": (dict(_LM_COMMON, vocab_size=8000, layers=6, d_model=256, n_heads=4, d_ff=1024,
                      attention_dropout=0.0), 256),
    "gpt2-small": (dict(_LM_COMMON, vocab_size=50257, layers=12, d_model=768, n_heads=12, d_ff=3072,
                        attention_dropout=0.1, activation="gelu", scale_embeddings=False,
                        learned_positions=1024), 1024),
    "smollm-135m": (dict(_LM_COMMON, vocab_size=49152, layers=30, d_model=576, n_heads=9, d_ff=1536,
                         dropout=0.0, attention_dropout=0.0, embedding_dropout=0.0, activation="silu",
                         scale_embeddings=False, norm_type="rms", kv_heads=3, gated_ffn=True,
                         attention_qkv_bias=False, attention_out_bias=False, ffn_bias=False,
                         rotary={"theta": 100000.0, "dims": 0, "scaling": "none"}, max_positions=2048), 1024),
}


def fail(message):
    sys.exit("%s: %s" % (PROG, message))


# ------------------------------------------------------------------------------------------------ config

_KNOWN_FIELDS = {"architecture", "vocab_size", "layers", "d_model", "n_heads", "d_ff", "dropout",
                 "attention_dropout", "activation_dropout", "embedding_dropout", "norm", "final_norm",
                 "layer_norm_eps", "tie_embeddings", "output_bias", "pad_id", "bos_id", "eos_id", "activation",
                 "scale_embeddings", "positions", "position_offset", "learned_positions", "source_eos",
                 "norm_type", "kv_heads", "head_dim", "gated_ffn", "attention_qkv_bias", "attention_out_bias",
                 "ffn_bias", "qk_norm", "rotary", "max_positions", "prompt_bos"}


def model_config(obj, where="model config"):
    """A Heptapod model-config JSON object (decoder-only) -> the dict the model reads. Optional fields take
    Heptapod's defaults; anything this rival does not implement exits with a message."""
    if not isinstance(obj, dict):
        fail("%s: not a JSON object" % where)
    unknown = sorted(set(obj) - _KNOWN_FIELDS)
    if unknown:
        fail("%s: fields this rival does not know: %s" % (where, ", ".join(unknown)))
    arch = obj.get("architecture", "encoder-decoder")
    if arch != "decoder-only":
        fail("%s: architecture \"%s\" is not supported (only \"decoder-only\")" % (where, arch))
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
        "tie": obj["tie_embeddings"], "output_bias": bool(obj["output_bias"]),
        "pad": int(obj["pad_id"]), "bos": int(obj["bos_id"]), "eos": int(obj["eos_id"]),
        "activation": obj.get("activation", "relu"),
        "scale_embeddings": bool(obj.get("scale_embeddings", True)),
        "learned_positions": int(obj.get("learned_positions", 0)),
        "position_offset": int(obj.get("position_offset", 0)),
    }
    if c["activation"] == "swish":
        c["activation"] = "silu"
    if c["tie"] not in ("target_output", "none"):
        fail("%s: tie_embeddings \"%s\" is not supported (\"target_output\" or \"none\")" % (where, c["tie"]))
    if c["norm"] not in ("pre", "post"):
        fail("%s: norm must be \"pre\" or \"post\"" % where)
    if c["activation"] not in ("relu", "gelu", "silu"):
        fail("%s: activation \"%s\" is not supported" % (where, c["activation"]))
    if obj.get("positions", "interleaved") != "interleaved":
        fail("%s: positions \"%s\" is not supported (only the interleaved sinusoids)" % (where, obj["positions"]))
    if c["d_model"] % c["heads"] != 0 and not obj.get("head_dim"):
        fail("%s: d_model must be divisible by n_heads unless head_dim is given" % where)
    if c["learned_positions"] == 0 and c["d_model"] % 2 != 0 and "rotary" not in obj:
        fail("%s: sinusoidal positions need an even d_model" % where)
    if c["learned_positions"] and c["learned_positions"] <= c["position_offset"]:
        fail("%s: learned_positions must exceed position_offset" % where)
    llama_pieces(c, obj, where)
    return c


def llama_pieces(c, obj, where):
    """The LLaMA family's pieces into c: norm_type ("layer" or "rms"), kv_heads and head_dim (0: n_heads and
    d_model / n_heads), gated (down(act(gate(x)) * up(x)), fc1 being up), the biases, rotary ({"theta", "dims"
    (0: the whole head), "scaling": "none"}: this rival implements no rotary scaling) or None; "classic": none of
    them (the paper's attention and FFN, run by the same code as before they existed)."""
    c["norm_type"] = obj.get("norm_type", "layer")
    if c["norm_type"] not in ("layer", "rms"):
        fail("%s: norm_type must be \"layer\" or \"rms\"" % where)
    c["kv_heads"] = int(obj.get("kv_heads", 0)) or c["heads"]
    c["head_dim"] = int(obj.get("head_dim", 0)) or c["d_model"] // c["heads"]
    if c["kv_heads"] < 1 or c["heads"] % c["kv_heads"]:
        fail("%s: kv_heads must divide n_heads" % where)
    c["gated"] = bool(obj.get("gated_ffn", False))
    c["qkv_bias"] = bool(obj.get("attention_qkv_bias", True))
    c["out_bias"] = bool(obj.get("attention_out_bias", True))
    c["ffn_bias"] = bool(obj.get("ffn_bias", True))
    if obj.get("qk_norm", False):
        fail("%s: qk_norm is not implemented by this rival" % where)
    c["rotary"] = None
    if "rotary" in obj:
        r = obj["rotary"]
        if not isinstance(r, dict) or r.get("scaling", "none") != "none" or "theta" not in r:
            fail("%s: rotary must be {\"theta\", \"dims\", \"scaling\": \"none\"} (no rotary scaling here)" % where)
        dims = int(r.get("dims", 0)) or c["head_dim"]
        if dims % 2 or dims > c["head_dim"]:
            fail("%s: rotary dims must be even and at most head_dim" % where)
        if c["learned_positions"]:
            fail("%s: rotary positions replace learned positions" % where)
        c["rotary"] = {"theta": float(r["theta"]), "dims": dims}
    c["max_positions"] = int(obj.get("max_positions", 0))
    c["classic"] = (c["norm_type"] == "layer" and c["kv_heads"] == c["heads"] and not c["gated"] and
                    c["head_dim"] * c["heads"] == c["d_model"] and c["qkv_bias"] and c["out_bias"] and
                    c["ffn_bias"] and c["rotary"] is None)


def has_final_norm(c):
    return c["norm"] == "pre" or c["final_norm"]


# ---------------------------------------------------------------------------------------------- FLOPs


def layer_token_flops(c):
    """A layer's matrix-product FLOPs per token outside attention's scores: the q and out projections 2 d qw
    each, k and v 2 d kvw each (qw = n_heads * head_dim, kvw = kv_heads * head_dim), the FFN's 2 (3 gated)
    products 2 d f each; the paper's model: 8 d^2 + 4 d f."""
    d, f = float(c["d_model"]), float(c["d_ff"])
    qw, kvw = float(c["heads"] * c["head_dim"]), float(c["kv_heads"] * c["head_dim"])
    return 4 * d * qw + 4 * d * kvw + (6 if c["gated"] else 4) * d * f


def lm_training_flops(c, blocks, context):
    """Useful FLOPs of one training update on `blocks` blocks of `context` tokens: 3 x the forward pass
    (backward = 2 x forward). Forward per block of T tokens, counting only matrix products (2 FLOPs per
    multiply-add): per layer T * layer_token_flops (the projections and the FFN; the paper's model: T*(8 d^2 +
    4 d f)) plus 2 qw T^2 (causal scores Q K^T and probabilities x V, each qw*T^2/2 multiply-adds; qw = d for
    the paper's model), then the output projection 2 T d V. Embedding lookups, norms, rotations, softmax,
    biases, the loss and Adam are not counted. The same formula as bench/workload.cpp's lm_training_flops."""
    d, t, v = float(c["d_model"]), float(context), float(c["vocab"])
    qw = float(c["heads"] * c["head_dim"])
    forward = c["layers"] * (t * layer_token_flops(c) + 2 * qw * t * t) + 2 * t * d * v
    return 3 * forward * blocks


def lm_generation_flops(c, rows, prompt, added):
    """Useful FLOPs of generating `added` tokens after a `prompt`-token prompt for `rows` rows: the prompt's
    causal forward pass (as above) with the output projection of its last position only (which gives the
    first new token), then added-1 one-position steps, step i (1-based) attending over prompt+i keys (4 qw
    FLOPs per key per layer) and projecting onto the vocabulary. The same formula as bench/workload.cpp's
    lm_generation_flops."""
    d, p, v = float(c["d_model"]), float(prompt), float(c["vocab"])
    qw, per_token = float(c["heads"] * c["head_dim"]), layer_token_flops(c)
    total = c["layers"] * (p * per_token + 2 * qw * p * p) + 2 * d * v
    for i in range(1, added):
        total += c["layers"] * (per_token + 4 * qw * (p + i)) + 2 * d * v
    return rows * total


# ------------------------------------------------------------------------------------------------ model


def sinusoid_table(length, d_model):
    """(length, d_model) float32: PE(p, 2i) = sin(p / 10000^(2i/d)), PE(p, 2i+1) = cos(same), computed in
    float64."""
    position = torch.arange(length, dtype=torch.float64).unsqueeze(1)
    div = torch.pow(10000.0, torch.arange(0, d_model, 2, dtype=torch.float64) / d_model)
    table = torch.zeros(length, d_model, dtype=torch.float64)
    table[:, 0::2] = torch.sin(position / div)
    table[:, 1::2] = torch.cos(position / div)
    return table.float()


def causal_mask(t):
    """Additive (t, t) mask: -inf above the diagonal."""
    return torch.full((t, t), float("-inf")).triu_(1)


ACTIVATIONS = {"relu": F.relu, "gelu": F.gelu, "silu": F.silu}  # F.gelu: the exact erf GELU


def xavier_(weight):
    bound = math.sqrt(6.0 / (weight.shape[0] + weight.shape[1]))
    with torch.no_grad():
        weight.uniform_(-bound, bound)


def one_query_attention_mulsum(q, k, v):
    """q (B, H, Dh) scaled; k, v (B, H, t, Dh) -> (B, H, Dh), as broadcast multiply + sum."""
    probs = torch.softmax((q.unsqueeze(2) * k).sum(-1), dim=-1)                 # (B, H, t)
    return (probs.unsqueeze(-1) * v).sum(2)


def one_query_attention_matmul(q, k, v):
    """The same as batched matrix products."""
    scores = torch.matmul(q.unsqueeze(2), k.transpose(-2, -1))                   # (B, H, 1, t)
    return torch.matmul(torch.softmax(scores, dim=-1), v).squeeze(2)


def grouped_query_attention_mulsum(q, k, v):
    """Grouped-query: q (B, KV, G, Dh) scaled, the G query heads of each key/value head; k, v (B, KV, t, Dh)
    -> (B, KV, G, Dh), as broadcast multiply + sum."""
    probs = torch.softmax((q.unsqueeze(3) * k.unsqueeze(2)).sum(-1), dim=-1)    # (B, KV, G, t)
    return (probs.unsqueeze(-1) * v.unsqueeze(2)).sum(3)


def grouped_query_attention_matmul(q, k, v):
    """The same as batched matrix products."""
    scores = torch.matmul(q, k.transpose(-2, -1))                                # (B, KV, G, t)
    return torch.matmul(torch.softmax(scores, dim=-1), v)


# --step-attention: (the paper's attention's, grouped-query attention's).
STEP_ATTENTION = {"mulsum": (one_query_attention_mulsum, grouped_query_attention_mulsum),
                  "matmul": (one_query_attention_matmul, grouped_query_attention_matmul)}


class RMSNorm(nn.Module):
    """LLaMA's norm: weight * x / sqrt(mean(x^2) + eps), no shift."""

    def __init__(self, d, eps):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(d))
        self.bias = None
        self.eps = eps

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight


def make_norm(c, d):
    return nn.LayerNorm(d, eps=c["eps"]) if c["norm_type"] == "layer" else RMSNorm(d, c["eps"])


def rotary_tables(length, rotary):
    """(cos, sin), each (length, R) float32, computed in float64: position p turns columns i and i + R/2 of a
    head (Hugging Face's rotate_half layout) by p * theta^(-2i/R)."""
    r = rotary["dims"]
    inv_freq = rotary["theta"] ** (-torch.arange(0, r, 2, dtype=torch.float64) / r)
    angles = torch.arange(length, dtype=torch.float64)[:, None] * inv_freq[None, :]
    emb = torch.cat([angles, angles], dim=-1)
    return emb.cos().float(), emb.sin().float()


def rotate(x, cos, sin):
    """x (..., Dh): its first R columns rotated by cos, sin (..., R) (broadcast over the heads), the rest kept."""
    r = cos.shape[-1]
    head = x[..., :r]
    half = torch.cat([-head[..., r // 2:], head[..., :r // 2]], dim=-1)           # rotate_half
    turned = head * cos + half * sin
    return turned if r == x.shape[-1] else torch.cat([turned, x[..., r:]], dim=-1)


class Layer(nn.Module):
    """One decoder layer: causal self-attention (q, k, v fused into one (3d, d) product; saved as Heptapod's
    separate q_proj/k_proj/v_proj) and the FFN, each a pre- or post-norm residual sub-layer."""

    def __init__(self, c):
        super().__init__()
        d = c["d_model"]
        self.c = c
        self.heads, self.head_dim, self.kv_heads = c["heads"], c["head_dim"], c["kv_heads"]
        self.scale = 1.0 / math.sqrt(self.head_dim)
        # The rows of q, k and v in the fused projection (the paper's model: d each).
        self.widths = (self.heads * self.head_dim, self.kv_heads * self.head_dim, self.kv_heads * self.head_dim)
        self.qkv = nn.Linear(d, sum(self.widths), bias=c["qkv_bias"])
        self.out_proj = nn.Linear(self.widths[0], d, bias=c["out_bias"])
        self.attn_norm = make_norm(c, d)
        self.fc1 = nn.Linear(d, c["d_ff"], bias=c["ffn_bias"])                  # a gated FFN's up projection
        self.gate = nn.Linear(d, c["d_ff"], bias=c["ffn_bias"]) if c["gated"] else None
        self.fc2 = nn.Linear(c["d_ff"], d, bias=c["ffn_bias"])
        self.ffn_norm = make_norm(c, d)
        self.activation = ACTIVATIONS[c["activation"]]
        self.pre = c["norm"] == "pre"

    def linears(self):
        """The layer's linear modules after the fused q/k/v one, in Heptapod's parameter order."""
        return [self.out_proj, self.fc1] + ([self.gate] if self.gate is not None else []) + [self.fc2]

    def reset_parameters(self):
        with torch.no_grad():
            start = 0
            for width in self.widths:                                           # q, k, v: each (width, d)
                xavier_(self.qkv.weight[start:start + width])
                start += width
            for lin in self.linears():
                xavier_(lin.weight)
            for lin in [self.qkv] + self.linears():
                if lin.bias is not None:
                    lin.bias.zero_()
            for norm in (self.attn_norm, self.ffn_norm):
                norm.weight.fill_(1.0)
                if norm.bias is not None:
                    norm.bias.zero_()

    def attention(self, h, mask, cache=None, rope=None):
        """h (B, T, d), mask (T, T) additive -> (B, T, d). cache: (k, v) buffers (B, KV, L, Dh) whose positions
        [0, T) receive this pass's keys and values (the prompt's prefill); rope: (cos, sin) (T, R) of rotary
        positions, or None."""
        if not self.c["classic"]:
            return self.grouped_attention(h, mask, cache, rope)
        b, t, d = h.shape
        qkv = self.qkv(h).view(b, t, 3, self.heads, self.head_dim).permute(2, 0, 3, 1, 4)  # (3, B, H, T, Dh)
        q, k, v = qkv[0], qkv[1], qkv[2]
        if cache is not None:
            cache[0][:, :, :t] = k
            cache[1][:, :, :t] = v
        scores = torch.matmul(q * self.scale, k.transpose(-2, -1)).add_(mask)   # (B, H, T, T)
        probs = F.dropout(torch.softmax(scores, dim=-1), self.c["attention_dropout"], self.training)
        out = torch.matmul(probs, v).transpose(1, 2).reshape(b, t, d)
        return self.out_proj(out)

    def grouped_attention(self, h, mask, cache, rope):
        """attention() with the LLaMA pieces: q of H heads, k and v of KV heads (each shared by the G = H / KV
        query heads kv * G .. kv * G + G - 1), rotary positions on q and k. Each key/value head's G query heads
        run as one (G T, T) product against its keys, so keys and values are never repeated."""
        b, t, _ = h.shape
        heads, kv, dh, g = self.heads, self.kv_heads, self.head_dim, self.heads // self.kv_heads
        q, k, v = self.qkv(h).split(self.widths, dim=-1)
        q = q.view(b, t, heads, dh).transpose(1, 2)                             # (B, H, T, Dh)
        k = k.view(b, t, kv, dh).transpose(1, 2)                                # (B, KV, T, Dh)
        v = v.view(b, t, kv, dh).transpose(1, 2)
        if rope is not None:
            q, k = rotate(q, *rope), rotate(k, *rope)
        if cache is not None:
            cache[0][:, :, :t] = k
            cache[1][:, :, :t] = v
        q = q.reshape(b, kv, g * t, dh)                                         # row j T + i: head kv G + j
        scores = torch.matmul(q * self.scale, k.transpose(-2, -1))              # (B, KV, G T, T)
        scores.add_(mask if g == 1 else mask.repeat(g, 1))
        probs = F.dropout(torch.softmax(scores, dim=-1), self.c["attention_dropout"], self.training)
        out = torch.matmul(probs, v).view(b, heads, t, dh).transpose(1, 2).reshape(b, t, heads * dh)
        return self.out_proj(out)

    def ffn(self, h):
        if self.gate is not None:                                               # SwiGLU / GeGLU
            inner = self.activation(self.gate(h)) * self.fc1(h)
            return self.fc2(F.dropout(inner, self.c["activation_dropout"], self.training))
        return self.fc2(F.dropout(self.activation(self.fc1(h)), self.c["activation_dropout"], self.training))

    def forward(self, x, mask, cache=None, rope=None):
        p = self.c["dropout"]
        if self.pre:
            x = x + F.dropout(self.attention(self.attn_norm(x), mask, cache, rope), p, self.training)
            return x + F.dropout(self.ffn(self.ffn_norm(x)), p, self.training)
        x = self.attn_norm(x + F.dropout(self.attention(x, mask, cache, rope), p, self.training))
        return self.ffn_norm(x + F.dropout(self.ffn(x), p, self.training))

    def classic_step_attention(self, h, t, k_cache, v_cache, step_attention):
        """One position t's attention: h (B, d) -> (B, d) after out_proj; its key and value go to position t of
        the caches (B, H, L, Dh) and the query attends over positions [0, t]."""
        b, d = h.shape
        qkv = self.qkv(h).view(b, 3, self.heads, self.head_dim)                  # (B, 3, H, Dh)
        k_cache[:, :, t] = qkv[:, 1]
        v_cache[:, :, t] = qkv[:, 2]
        a = step_attention[0](qkv[:, 0] * self.scale, k_cache[:, :, :t + 1], v_cache[:, :, :t + 1])  # (B, H, Dh)
        return self.out_proj(a.reshape(b, d))

    def grouped_step_attention(self, h, t, k_cache, v_cache, step_attention, rope):
        """step_attention() with the LLaMA pieces: the caches hold the KV key/value heads alone (B, KV, L, Dh);
        rope: (cos, sin) (R) of position t, or None."""
        b = h.shape[0]
        heads, kv, dh = self.heads, self.kv_heads, self.head_dim
        q, k, v = self.qkv(h).split(self.widths, dim=-1)
        q, k = q.view(b, heads, dh), k.view(b, kv, dh)
        if rope is not None:
            q, k = rotate(q, *rope), rotate(k, *rope)
        k_cache[:, :, t] = k
        v_cache[:, :, t] = v.view(b, kv, dh)
        q = q.view(b, kv, heads // kv, dh) * self.scale                         # (B, KV, G, Dh)
        a = step_attention[1](q, k_cache[:, :, :t + 1], v_cache[:, :, :t + 1])    # (B, KV, G, Dh)
        return self.out_proj(a.reshape(b, heads * dh))

    def step(self, x, t, k_cache, v_cache, step_attention, rope=None):
        """One position t: x (B, d) -> (B, d) (step_attention: an entry of STEP_ATTENTION). Inference only (no
        dropout)."""
        h = self.attn_norm(x) if self.pre else x
        if self.c["classic"]:
            a = self.classic_step_attention(h, t, k_cache, v_cache, step_attention)
        else:
            a = self.grouped_step_attention(h, t, k_cache, v_cache, step_attention, rope)
        if self.pre:
            x = x + a
            return x + self.ffn(self.ffn_norm(x))
        x = self.attn_norm(x + a)
        return self.ffn_norm(x + self.ffn(x))


class DecoderLM(nn.Module):
    """Heptapod's decoder-only model (docs/conventions.md, "The model, exactly", one causal stack)."""

    def __init__(self, c, max_len=1):
        super().__init__()
        d, vocab = c["d_model"], c["vocab"]
        self.c = c
        self.embedding = nn.Parameter(torch.empty(vocab, d))                     # decoder/embedding/weight
        self.positions = nn.Parameter(torch.empty(c["learned_positions"], d)) if c["learned_positions"] else None
        self.output_weight = nn.Parameter(torch.empty(vocab, d)) if c["tie"] == "none" else None
        self.output_bias = nn.Parameter(torch.zeros(vocab)) if c["output_bias"] else None
        self.layers = nn.ModuleList(Layer(c) for _ in range(c["layers"]))
        self.final_norm = make_norm(c, d) if has_final_norm(c) else None
        self.embed_scale = math.sqrt(d) if c["scale_embeddings"] else 1.0
        self.sinusoids = torch.empty(0, d)
        if c["rotary"] is not None:                                             # (cos, sin) (L, R)
            self.rope = (torch.empty(0, c["rotary"]["dims"]), torch.empty(0, c["rotary"]["dims"]))
        self.reserve_positions(max_len)
        self.reset_parameters()

    def reset_parameters(self):
        """Heptapod's initialisation (src/heptapod/model/initialize.cpp): linear weights Xavier-uniform,
        embeddings and learned positions N(0, 1/sqrt(d)), biases 0, norm weights 1 (from torch's generator)."""
        std = 1.0 / math.sqrt(self.c["d_model"])
        with torch.no_grad():
            self.embedding.normal_(0.0, std)
            if self.positions is not None:
                self.positions.normal_(0.0, std)
            if self.output_weight is not None:
                xavier_(self.output_weight)
            if self.output_bias is not None:
                self.output_bias.zero_()
            for layer in self.layers:
                layer.reset_parameters()
            if self.final_norm is not None:
                self.final_norm.weight.fill_(1.0)
                if self.final_norm.bias is not None:
                    self.final_norm.bias.zero_()

    def reserve_positions(self, length):
        """Make positions [0, length) available (sinusoids or rotary angles precomputed; learned tables are
        checked)."""
        c = self.c
        if c["max_positions"] and length > c["max_positions"]:
            fail("sequences of %d tokens do not fit the model's %d positions" % (length, c["max_positions"]))
        if c["rotary"] is not None:
            if length > self.rope[0].shape[0]:
                self.rope = rotary_tables(length, c["rotary"])
        elif c["learned_positions"]:
            if c["position_offset"] + length > c["learned_positions"]:
                fail("sequences of %d tokens do not fit %d learned positions (offset %d)"
                     % (length, c["learned_positions"], c["position_offset"]))
        elif c["position_offset"] + length > self.sinusoids.shape[0]:
            self.sinusoids = sinusoid_table(c["position_offset"] + length, c["d_model"])

    def position_rows(self, start, count):
        """Positions [start, start + count) -> (count, d)."""
        first = self.c["position_offset"] + start
        if self.positions is not None:
            return self.positions[first:first + count]
        if first + count > self.sinusoids.shape[0]:
            self.reserve_positions(start + count)
        return self.sinusoids[first:first + count]

    def embed(self, tokens):
        """tokens (B, T) -> drop_e(E[tok] (* sqrt(d)) + P[pos]) (B, T, d) (rotary models add no positions)."""
        x = F.embedding(tokens, self.embedding)
        if self.embed_scale != 1.0:
            x = x * self.embed_scale
        if self.c["rotary"] is None:
            x = x + self.position_rows(0, tokens.shape[1])
        return F.dropout(x, self.c["embedding_dropout"], self.training)

    def rotary_rows(self, start, count):
        """Rotary models: (cos, sin) of positions [start, start + count), each (count, R); else None."""
        if self.c["rotary"] is None:
            return None
        self.reserve_positions(start + count)
        return self.rope[0][start:start + count], self.rope[1][start:start + count]

    def hidden(self, tokens, caches=None):
        """tokens (B, T) -> the last layer's output (B, T, d), before the final norm. caches: per layer
        (k, v) buffers to fill with the keys and values of positions [0, T)."""
        x = self.embed(tokens)
        mask = causal_mask(tokens.shape[1])
        rope = self.rotary_rows(0, tokens.shape[1])
        for i, layer in enumerate(self.layers):
            x = layer(x, mask, None if caches is None else caches[i], rope)
        return x

    def logits(self, h):
        """h (..., d) from the last layer -> (final norm) -> logits (..., V)."""
        if self.final_norm is not None:
            h = self.final_norm(h)
        if hasattr(self, "output_linear"):                                      # int8: a quantized twin
            return self.output_linear(h)
        weight = self.embedding if self.output_weight is None else self.output_weight
        return F.linear(h, weight, self.output_bias)

    def forward(self, tokens):
        return self.logits(self.hidden(tokens))

    def step(self, tokens, t, caches, step_attention):
        """tokens (B,) at position t -> logits (B, V) of position t + 1."""
        x = self.embedding.index_select(0, tokens)
        if self.embed_scale != 1.0:
            x = x * self.embed_scale
        rope = self.rotary_rows(t, 1)
        if rope is None:
            x = x + self.position_rows(t, 1)
        else:
            rope = (rope[0][0], rope[1][0])                                     # (R) each
        for i, layer in enumerate(self.layers):
            x = layer.step(x, t, caches[i][0], caches[i][1], step_attention, rope)
        return self.logits(x)

    # -- Heptapod's names ---------------------------------------------------------------------------------

    def _views(self, grad=False):
        """(Heptapod name, live view of the parameter's data, or of its gradient if grad), in the order of
        Heptapod's parameter layout (param_shapes of tools/make_parity_fixtures.py); the fused q/k/v rows
        are split into q_proj, k_proj and v_proj; a gated FFN's gate follows fc1; absent biases are skipped."""
        out = [("decoder/embedding/weight", self.embedding, None)]
        if self.positions is not None:
            out.append(("decoder/positions/weight", self.positions, None))
        if self.output_weight is not None:
            out.append(("decoder/output_proj/weight", self.output_weight, None))
        if self.output_bias is not None:
            out.append(("decoder/output_proj/bias", self.output_bias, None))
        for i, layer in enumerate(self.layers):
            p = "decoder/layers/%d/" % i
            start = 0
            for proj, width in zip(("q_proj", "k_proj", "v_proj"), layer.widths):
                rows = slice(start, start + width)
                start += width
                out.append((p + "self_attn/%s/weight" % proj, layer.qkv.weight, rows))
                if layer.qkv.bias is not None:
                    out.append((p + "self_attn/%s/bias" % proj, layer.qkv.bias, rows))
            modules = [("self_attn/out_proj", layer.out_proj), ("self_attn_norm", layer.attn_norm),
                       ("ffn/fc1", layer.fc1)] + ([("ffn/gate", layer.gate)] if layer.gate is not None else []) + \
                      [("ffn/fc2", layer.fc2), ("ffn_norm", layer.ffn_norm)]
            for name, module in modules:
                out.append((p + name + "/weight", module.weight, None))
                if module.bias is not None:
                    out.append((p + name + "/bias", module.bias, None))
        if self.final_norm is not None:
            out.append(("decoder/final_norm/weight", self.final_norm.weight, None))
            if self.final_norm.bias is not None:
                out.append(("decoder/final_norm/bias", self.final_norm.bias, None))
        views = []
        for name, param, rows in out:
            t = param.grad if grad else param.data
            views.append((name, t if rows is None else t[rows]))
        return views

    def heptapod_state_dict(self):
        """[(name, float32 tensor)]: a copy of every parameter under Heptapod's name."""
        return [(n, t.detach().float().clone()) for n, t in self._views()]

    def load_heptapod_state_dict(self, tensors):
        """tensors: {name: tensor} holding exactly the names of heptapod_state_dict()."""
        views = self._views()
        if sorted(tensors) != sorted(n for n, _ in views):
            fail("state dict names differ from the model's")
        with torch.no_grad():
            for name, view in views:
                view.copy_(tensors[name])


def quantize_int8(model):
    """PyTorch's dynamic int8 quantization of every nn.Linear (fused q/k/v, out, fc1, fc2) and of the output
    projection, made an nn.Linear sharing the embedding (or the untied output) weight first; the embedding
    lookup stays float32."""
    weight = model.embedding if model.output_weight is None else model.output_weight
    lin = nn.Linear(weight.shape[1], weight.shape[0], bias=model.output_bias is not None)
    lin.weight = weight
    if model.output_bias is not None:
        lin.bias = model.output_bias
    model.output_linear = lin
    quantized = torch.ao.quantization.quantize_dynamic(model, {nn.Linear}, dtype=torch.qint8)
    if torch.backends.quantized.engine == "qnnpack":
        # Module version 4 passes reduce_range=True, which qnnpack ignores, printing a warning on every call
        # (a line on stderr per product); version 3's call (reduce_range=False) is the same product, silent.
        for module in quantized.modules():
            if isinstance(module, torch.ao.nn.quantized.dynamic.Linear):
                module.version = 3
    return quantized


def next_token_loss(logits, targets, pad, smoothing):
    """Label-smoothed cross-entropy summed over the targets that are not pad and divided by their count:
    per token (1 - eps) * (-log p_y) + eps * mean_j(-log p_j) over all V classes (= PyTorch's
    label_smoothing; checked against a float64 implementation in the self-test). logits (N, V) float32."""
    total = F.cross_entropy(logits, targets, ignore_index=pad, label_smoothing=smoothing, reduction="sum")
    return total / (targets != pad).sum().clamp(min=1)


# ----------------------------------------------------------------------------------------- safetensors


def write_safetensors(path, tensors, metadata=None):
    """tensors: [(name, float32 tensor)] in file order, written as F32 (little-endian); atomically (a
    temporary file in the same directory, then rename)."""
    header = {"__metadata__": dict(metadata or {})}
    offset = 0
    arrays = []
    for name, t in tensors:
        if name in header:
            raise ValueError("duplicate name " + name)
        a = np.ascontiguousarray(t.detach().cpu().float().numpy(), dtype="<f4")
        header[name] = {"dtype": "F32", "shape": list(a.shape), "data_offsets": [offset, offset + a.nbytes]}
        offset += a.nbytes
        arrays.append(a)
    text = json.dumps(header, separators=(",", ":"), ensure_ascii=True).encode("utf-8")
    text += b" " * ((-len(text)) % 8)
    directory = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=os.path.basename(path) + ".", suffix=".tmp", dir=directory)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(struct.pack("<Q", len(text)))
            f.write(text)
            for a in arrays:
                f.write(a.tobytes())
            f.flush()
            os.fsync(f.fileno())
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)                                           # mkstemp made it 0600
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def read_safetensors(path):
    """-> ([(name, float32 tensor)] in file order, metadata). Checks the layout strictly (F32 only)."""
    with open(path, "rb") as f:
        raw = f.read()
    (n,) = struct.unpack("<Q", raw[:8])
    if n % 8 != 0 or 8 + n > len(raw):
        raise ValueError("bad header length")
    header = json.loads(raw[8:8 + n].decode("utf-8"))
    data = raw[8 + n:]
    metadata = header.pop("__metadata__", {})
    out, expected = [], 0
    for name, info in header.items():
        if info["dtype"] != "F32":
            raise ValueError("%s: dtype %s" % (name, info["dtype"]))
        begin, end = info["data_offsets"]
        count = int(np.prod(info["shape"], dtype=np.int64))
        if begin != expected or end - begin != 4 * count:
            raise ValueError("bad data_offsets at " + name)
        a = np.frombuffer(data, dtype="<f4", count=count, offset=begin).reshape(info["shape"])
        out.append((name, torch.from_numpy(a.copy())))
        expected = end
    if expected != len(data):
        raise ValueError("trailing bytes")
    return out, metadata


# ------------------------------------------------------------------------------------- speed: training


def random_blocks(gen, c, blocks, context):
    """(inputs, targets), each (blocks, context) long: a block of context+1 random ids in [4, V), the
    inputs its first context ids, the targets the next ones."""
    ids = torch.randint(FIRST_REAL_TOKEN, c["vocab"], (blocks, context + 1), generator=gen)
    return ids[:, :-1].contiguous(), ids[:, 1:].contiguous()


def train_step(model, optimizer, inputs, targets, smoothing, bfloat16=False):
    """One update: forward (under bfloat16 autocast if asked), loss in float32, backward, Adam, zero_grad."""
    with torch.autocast("cpu", dtype=torch.bfloat16, enabled=bfloat16):
        logits = model(inputs)                                                  # (B, T, V)
    loss = next_token_loss(logits.float().view(-1, logits.shape[-1]), targets.view(-1), model.c["pad"], smoothing)
    loss.backward()
    optimizer.step()
    optimizer.zero_grad(set_to_none=True)
    return loss


def make_adam(model, lr):
    return torch.optim.Adam(model.parameters(), lr=lr, betas=ADAM_BETAS, eps=ADAM_EPS, weight_decay=0.0,
                            foreach=True)


def run_lm_train(c, context, args):
    blocks = max(1, BATCH_TOKENS // context)
    model = DecoderLM(c, max_len=context)
    gen = torch.Generator().manual_seed(DATA_SEED)
    batches = [random_blocks(gen, c, blocks, context) for _ in range(args.warmup + args.batches)]
    optimizer = make_adam(model, TRAIN_LR)
    model.train()
    bf16 = args.compute_type == "bfloat16"
    for inputs, targets in batches[:args.warmup]:
        train_step(model, optimizer, inputs, targets, LABEL_SMOOTHING, bf16)
    start = time.perf_counter()
    for inputs, targets in batches[args.warmup:]:
        train_step(model, optimizer, inputs, targets, LABEL_SMOOTHING, bf16)
    seconds = time.perf_counter() - start
    tokens = args.batches * blocks * context
    return {"tokens": tokens, "seconds": seconds,
            "gflop": lm_training_flops(c, blocks, context) * args.batches / 1e9}


# ----------------------------------------------------------------------------------- speed: generation


def banned_ids(c):
    """The end token, and (as Heptapod's banned_output_ids) pad and the start token unless either is the end
    token: every row then makes exactly the requested number of tokens."""
    return sorted({c["eos"]} | {i for i in (c["pad"], c["bos"]) if i != c["eos"]})


def new_caches(c, rows, length, dtype):
    """Per layer (keys, values), each (rows, KV, length, Dh): the key/value heads alone."""
    shape = (rows, c["kv_heads"], length, c["head_dim"])
    return [(torch.empty(shape, dtype=dtype), torch.empty(shape, dtype=dtype)) for _ in range(c["layers"])]


def generate(model, prompts, new, step_attention, cache_dtype=torch.float32):
    """Greedy: prompts (B, P) -> (new tokens (B, new), the logits (B, V) that chose the last one). The prompts
    in one causal pass that fills the key/value caches (new_caches: (B, KV, P+new, Dh) per layer); then one
    position per step, projected onto the vocabulary alone. step_attention: an entry of STEP_ATTENTION."""
    c = model.c
    b, p = prompts.shape
    caches = new_caches(c, b, p + new, cache_dtype)
    banned = torch.tensor(banned_ids(c))
    out = torch.empty(b, new, dtype=torch.long)
    logits = model.logits(model.hidden(prompts, caches)[:, -1])                # (B, V)
    for s in range(new):
        if s > 0:
            logits = model.step(out[:, s - 1], p + s - 1, caches, step_attention)
        logits.index_fill_(1, banned, float("-inf"))
        out[:, s] = logits.argmax(dim=-1)
    return out, logits


def run_generate(c, args):
    max_len = args.prompt + args.new
    model = DecoderLM(c, max_len=max_len)
    model.eval()
    cache_dtype = torch.float32
    if args.compute_type == "int8":
        torch.backends.quantized.engine = args.int8_engine
        model = quantize_int8(model)
    elif args.compute_type == "bfloat16":
        cache_dtype = torch.bfloat16
    gen = torch.Generator().manual_seed(DATA_SEED)
    prompts = [torch.randint(FIRST_REAL_TOKEN, c["vocab"], (args.batch, args.prompt), generator=gen)
               for _ in range(args.warmup + args.repeats)]
    step_attention = STEP_ATTENTION[args.step_attention]
    bf16 = args.compute_type == "bfloat16"
    with torch.inference_mode(), torch.autocast("cpu", dtype=torch.bfloat16, enabled=bf16):
        for x in prompts[:args.warmup]:
            generate(model, x, args.new, step_attention, cache_dtype)
        start = time.perf_counter()
        for x in prompts[args.warmup:]:
            generate(model, x, args.new, step_attention, cache_dtype)
        seconds = time.perf_counter() - start
    tokens = args.repeats * args.batch * args.new
    return {"tokens": tokens, "seconds": seconds,
            "ms_per_token": seconds / (args.repeats * args.new) * 1000 if args.repeats * args.new else 0.0,
            "gflop": lm_generation_flops(c, args.batch, args.prompt, args.new) * args.repeats / 1e9}


# ---------------------------------------------------------------------------- wall-time training recipe


def noam_lr(step, d_model, scale, warmup):
    """Heptapod's "noam": scale * d^-0.5 * min(step^-0.5, step * warmup^-1.5), step counted from 1."""
    s, w = float(max(step, 1)), float(max(warmup, 1))
    return scale * d_model ** -0.5 * min(s ** -0.5, s * w ** -1.5)


def read_blocks(prefix):
    """PREFIX.json {"batches", "rows", "context", "pad_id"}; PREFIX.inputs / PREFIX.targets int32 (N, R, C)."""
    with open(prefix + ".json") as f:
        meta = json.load(f)
    shape = (int(meta["batches"]), int(meta["rows"]), int(meta["context"]))
    arrays = []
    for ext in ("inputs", "targets"):
        path = prefix + "." + ext
        size = os.path.getsize(path)
        if size != 4 * shape[0] * shape[1] * shape[2]:
            fail("%s holds %d bytes, not the %s int32 of %s.json" % (path, size, shape, prefix))
        arrays.append(np.memmap(path, dtype="<i4", mode="r", shape=shape))
    return meta, arrays[0], arrays[1]


def write_blocks(prefix, inputs, targets, pad):
    """The inverse of read_blocks (self-test and hand-made test files). inputs, targets: int arrays (N, R, C)."""
    inputs, targets = np.asarray(inputs, dtype="<i4"), np.asarray(targets, dtype="<i4")
    n, r, c = inputs.shape
    with open(prefix + ".json", "w") as f:
        json.dump({"batches": n, "rows": r, "context": c, "pad_id": pad}, f)
    inputs.tofile(prefix + ".inputs")
    targets.tofile(prefix + ".targets")


def recipe_batch(inputs, targets, pad):
    """One stored batch (R, C) -> (inputs, targets) long (R', T), without its absent rows (inputs all pad)
    and trimmed to its longest row; None if no row is present."""
    present = (inputs != pad).any(axis=1)
    if not present.any():
        return None
    inputs, targets = inputs[present], targets[present]
    used = (inputs != pad) | (targets != pad)                                   # (R', C)
    length = int(used.shape[1] - np.argmax(used[:, ::-1].any(axis=0)))
    return (torch.from_numpy(inputs[:, :length].astype(np.int64)),
            torch.from_numpy(targets[:, :length].astype(np.int64)))


def train_recipe(c, prefix, time_limit, warmup_steps, lr_scale, smoothing, seed, out_path, log=sys.stderr,
                 lr_trace=None):
    """Trains on the stored batches in order until the updates' summed time reaches time_limit or the batches
    run out; writes the weights to out_path. lr_trace: a list that receives each update's learning rate."""
    torch.manual_seed(seed)
    meta, inputs, targets = read_blocks(prefix)
    pad = c["pad"]
    if int(meta.get("pad_id", pad)) != pad:
        fail("%s.json: pad_id %s differs from the config's %d" % (prefix, meta["pad_id"], pad))
    model = DecoderLM(c, max_len=int(meta["context"]))
    model.train()
    optimizer = make_adam(model, noam_lr(1, c["d_model"], lr_scale, warmup_steps))
    steps, tokens, seconds, last_loss = 0, 0, 0.0, float("nan")
    ran_out = True
    for n in range(int(meta["batches"])):
        if seconds >= time_limit:
            ran_out = False
            break
        batch = recipe_batch(np.asarray(inputs[n]), np.asarray(targets[n]), pad)
        if batch is None:
            continue
        x, y = batch
        count = int((y != pad).sum())
        lr = noam_lr(steps + 1, c["d_model"], lr_scale, warmup_steps)
        for group in optimizer.param_groups:
            group["lr"] = lr
        if lr_trace is not None:
            lr_trace.append(lr)
        start = time.perf_counter()
        loss = train_step(model, optimizer, x, y, smoothing)
        seconds += time.perf_counter() - start
        steps += 1
        tokens += count
        last_loss = loss.item()
        if steps % 50 == 0:
            print("step %d  loss %.4f  lr %.3g  %.0f tokens/s" % (steps, last_loss, lr, tokens / seconds),
                  file=log, flush=True)
    if ran_out:
        print("%s: the batches ran out after %d updates (%.1f s of the %.1f s limit)"
              % (PROG, steps, seconds, time_limit), file=log, flush=True)
    write_safetensors(out_path, model.heptapod_state_dict(), {"format": "pt", "producer": "bench/pytorch_gpt.py"})
    return {"side": "pytorch", "steps": steps, "tokens": tokens, "seconds": seconds,
            "tokens_per_second": tokens / seconds if seconds > 0 else 0.0, "last_loss": last_loss}


# ----------------------------------------------------------------------------------------- self-test

def reference_loss(P, c, tokens, targets, eps):
    """An independent, plain float64 implementation of the model and its loss (docs/conventions.md, the
    parity fixtures' math written again): P {Heptapod name: tensor}; tokens, targets (B, T) long."""
    P = {k: v.double() for k, v in P.items()}
    b_, t_ = tokens.shape
    d, heads = c["d_model"], c["heads"]
    dh = d // heads
    x = P["decoder/embedding/weight"][tokens] * (math.sqrt(d) if c["scale_embeddings"] else 1.0)
    for t in range(t_):
        p = c["position_offset"] + t
        if c["learned_positions"]:
            x[:, t] += P["decoder/positions/weight"][p]
        else:
            for i in range(0, d, 2):
                x[:, t, i] += math.sin(p / 10000.0 ** (i / d))
                x[:, t, i + 1] += math.cos(p / 10000.0 ** (i / d))

    def ln(h, name):
        m = h.mean(-1, keepdim=True)
        var = ((h - m) ** 2).mean(-1, keepdim=True)
        return (h - m) / torch.sqrt(var + c["eps"]) * P[name + "/weight"] + P[name + "/bias"]

    def lin(h, name):
        return h @ P[name + "/weight"].t() + P[name + "/bias"]

    def act(h):
        if c["activation"] == "relu":
            return torch.where(h > 0, h, torch.zeros_like(h))
        if c["activation"] == "gelu":
            return 0.5 * h * (1.0 + torch.erf(h / math.sqrt(2.0)))
        return h / (1.0 + torch.exp(-h))

    def attn(h, p):
        q, k, v = lin(h, p + "q_proj"), lin(h, p + "k_proj"), lin(h, p + "v_proj")
        o = torch.zeros_like(h)
        for b in range(b_):
            for hd in range(heads):
                s = slice(hd * dh, (hd + 1) * dh)
                for i in range(t_):                                             # keys j <= i
                    w = torch.softmax(k[b, :i + 1, s] @ q[b, i, s] / math.sqrt(dh), dim=0)
                    o[b, i, s] = (w[:, None] * v[b, :i + 1, s]).sum(0)
        return lin(o, p + "out_proj")

    def ffn(h, p):
        return lin(act(lin(h, p + "fc1")), p + "fc2")

    for i in range(c["layers"]):
        p = "decoder/layers/%d/" % i
        for f, norm in ((lambda h: attn(h, p + "self_attn/"), p + "self_attn_norm"),
                        (lambda h: ffn(h, p + "ffn/"), p + "ffn_norm")):
            x = x + f(ln(x, norm)) if c["norm"] == "pre" else ln(x + f(x), norm)
    if c["norm"] == "pre" or c["final_norm"]:
        x = ln(x, "decoder/final_norm")
    w_out = P["decoder/embedding/weight"] if c["tie"] == "target_output" else P["decoder/output_proj/weight"]
    logits = x @ w_out.t()
    if c["output_bias"]:
        logits = logits + P["decoder/output_proj/bias"]
    total, count = 0.0, 0
    for b in range(b_):
        for t in range(t_):
            y = int(targets[b, t])
            if y == c["pad"]:
                continue
            logp = logits[b, t] - torch.logsumexp(logits[b, t], dim=0)
            total = total + (1.0 - eps) * (-logp[y]) + eps * (-logp).mean()
            count += 1
    return total / count


def expected_names(c):
    """(name, shape) of every parameter, in Heptapod's order (param_shapes of the parity fixtures, written
    again for one causal stack, with the LLaMA pieces as src/heptapod/model/parameter_layout.cpp adds them)."""
    d, f, v = c["d_model"], c["d_ff"], c["vocab"]
    qw, kvw = c["heads"] * c["head_dim"], c["kv_heads"] * c["head_dim"]

    def linear(name, rows, cols, bias):
        return [(name + "/weight", (rows, cols))] + ([(name + "/bias", (rows,))] if bias else [])

    def norm(name):
        return [(name + "/weight", (d,))] + ([(name + "/bias", (d,))] if c["norm_type"] == "layer" else [])

    out = [("decoder/embedding/weight", (v, d))]
    if c["learned_positions"]:
        out.append(("decoder/positions/weight", (c["learned_positions"], d)))
    if c["tie"] == "none":
        out.append(("decoder/output_proj/weight", (v, d)))
    if c["output_bias"]:
        out.append(("decoder/output_proj/bias", (v,)))
    for i in range(c["layers"]):
        p = "decoder/layers/%d/" % i
        for proj, rows in (("q_proj", qw), ("k_proj", kvw), ("v_proj", kvw)):
            out += linear(p + "self_attn/" + proj, rows, d, c["qkv_bias"])
        out += linear(p + "self_attn/out_proj", d, qw, c["out_bias"]) + norm(p + "self_attn_norm")
        out += linear(p + "ffn/fc1", f, d, c["ffn_bias"])
        if c["gated"]:
            out += linear(p + "ffn/gate", f, d, c["ffn_bias"])
        out += linear(p + "ffn/fc2", d, f, c["ffn_bias"]) + norm(p + "ffn_norm")
    if c["norm"] == "pre" or c["final_norm"]:
        out += norm("decoder/final_norm")
    return out


# Heptapod's names of the LLaMA pieces -> Hugging Face's (the layer's part after decoder/layers/N/).
HF_LAYER_NAMES = {"self_attn/q_proj": "self_attn.q_proj", "self_attn/k_proj": "self_attn.k_proj",
                  "self_attn/v_proj": "self_attn.v_proj", "self_attn/out_proj": "self_attn.o_proj",
                  "self_attn_norm": "input_layernorm", "ffn/gate": "mlp.gate_proj", "ffn/fc1": "mlp.up_proj",
                  "ffn/fc2": "mlp.down_proj", "ffn_norm": "post_attention_layernorm"}


def hf_checkpoint(c, state):
    """A LLaMA-shaped model (rms, pre-norm, gated, rotary without scaling, no output bias, unscaled embeddings)
    as a Hugging Face checkpoint: (config.json's object, {HF name: tensor}); q/k/v biases alone make it qwen2's,
    none llama's. state: [(Heptapod name, tensor)]."""
    assert c["norm_type"] == "rms" and c["norm"] == "pre" and c["gated"] and c["rotary"] is not None
    assert not c["output_bias"] and not c["scale_embeddings"] and not c["out_bias"] and not c["ffn_bias"]
    config = {"model_type": "qwen2" if c["qkv_bias"] else "llama", "vocab_size": c["vocab"],
              "hidden_size": c["d_model"], "intermediate_size": c["d_ff"], "num_hidden_layers": c["layers"],
              "num_attention_heads": c["heads"], "num_key_value_heads": c["kv_heads"], "head_dim": c["head_dim"],
              "rms_norm_eps": c["eps"], "hidden_act": c["activation"], "tie_word_embeddings": c["tie"] != "none",
              "rope_theta": c["rotary"]["theta"], "partial_rotary_factor": c["rotary"]["dims"] / c["head_dim"],
              "max_position_embeddings": 1024}
    tensors = {}
    for name, t in state:
        parts = name.split("/")
        if name == "decoder/embedding/weight":
            hf = "model.embed_tokens.weight"
        elif name == "decoder/output_proj/weight":
            hf = "lm_head.weight"
        elif name == "decoder/final_norm/weight":
            hf = "model.norm.weight"
        else:
            hf = "model.layers.%s.%s.%s" % (parts[2], HF_LAYER_NAMES["/".join(parts[3:-1])], parts[-1])
        tensors[hf] = t
    return config, tensors


def import_llama_reference():
    """tools/llama_reference.py, the LLaMA family's float64 reference, beside bench/."""
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tools"))
    try:
        import llama_reference
    except ImportError as e:
        fail("the self-test compares the LLaMA pieces with tools/llama_reference.py, which does not import (%s)" % e)
    return llama_reference


def llama_reference_loss(reference, P, c, tokens, targets, eps):
    """The loss of a LLaMA-shaped model through tools/llama_reference.py (float64): P {Heptapod name: tensor};
    targets equal to pad have no loss (rows run whole: later pad inputs cannot change earlier positions)."""
    config, tensors = hf_checkpoint(c, list(P.items()))
    hc = reference.parse_config(config, "self-test")
    ignored = torch.where(targets == c["pad"], torch.full_like(targets, -1), targets)
    return reference.smoothed_loss(tensors, hc, tokens, ignored, [tokens.shape[1]] * tokens.shape[0], eps)


# The LLaMA pieces on the self-test's base config (dropouts kept: the self-test checks they act).
LLAMA_PIECES = {"norm_type": "rms", "gated_ffn": True, "activation": "silu", "attention_qkv_bias": False,
                "attention_out_bias": False, "ffn_bias": False, "scale_embeddings": False}


def self_test_configs():
    base = {"architecture": "decoder-only", "vocab_size": 50, "layers": 2, "d_model": 16, "n_heads": 2,
            "d_ff": 24, "dropout": 0.1, "attention_dropout": 0.1, "activation_dropout": 0.1,
            "embedding_dropout": 0.1, "norm": "pre", "final_norm": False, "layer_norm_eps": 1e-5,
            "tie_embeddings": "target_output", "output_bias": False, "pad_id": 0, "bos_id": 1, "eos_id": 2}
    variants = [
        {},                                                                      # pre, sinusoids, relu, tied
        {"norm": "post", "final_norm": True, "activation": "gelu", "learned_positions": 12,
         "position_offset": 2, "tie_embeddings": "none", "output_bias": True, "scale_embeddings": False},
        {"activation": "gelu", "learned_positions": 16, "scale_embeddings": False},  # GPT-2's style
        {"norm": "post", "activation": "silu", "position_offset": 1, "output_bias": True},
        # The LLaMA pieces: SmolLM's kind (RMSNorm, SwiGLU, grouped-query, rotary, no biases, tied) ...
        dict(LLAMA_PIECES, n_heads=4, kv_heads=2, rotary={"theta": 100.0, "dims": 0, "scaling": "none"}),
        # ... and multi-query, an explicit head_dim, half the head rotated, GeGLU, q/k/v biases (Qwen 2's), untied.
        dict(LLAMA_PIECES, n_heads=4, kv_heads=1, head_dim=8, activation="gelu", attention_qkv_bias=True,
             tie_embeddings="none", rotary={"theta": 50.0, "dims": 4, "scaling": "none"}),
    ]
    return [model_config(dict(base, **v), "self-test config %d" % i) for i, v in enumerate(variants)]


def perturbed_model(c, seed, max_len=8):
    """A model whose biases and norm weights are random too (the initialisation makes them 0 and 1)."""
    torch.manual_seed(seed)
    model = DecoderLM(c, max_len=max_len)
    with torch.no_grad():
        for name, t in model._views():
            if name.endswith("bias"):
                t.uniform_(-0.1, 0.1)
            elif "norm" in name:
                t.uniform_(0.9, 1.1)
    return model


def self_test():
    start = time.perf_counter()
    configs = self_test_configs()
    gen = torch.Generator().manual_seed(7)

    reference = import_llama_reference()

    # (1) loss and gradients against the float64 reference (tools/llama_reference.py for the LLaMA pieces);
    # names and shapes against Heptapod's layout
    for n, c in enumerate(configs):
        model = perturbed_model(c, 100 + n)
        names = [(name, tuple(t.shape)) for name, t in model.heptapod_state_dict()]
        assert names == expected_names(c), "config %d: parameter names/shapes differ" % n
        tokens = torch.randint(FIRST_REAL_TOKEN, c["vocab"], (4, 8), generator=gen)
        targets = torch.randint(FIRST_REAL_TOKEN, c["vocab"], (4, 8), generator=gen)
        tokens[1, 5:] = c["pad"]                                                 # a short row
        targets[1, 5:] = c["pad"]
        tokens[2, :] = c["pad"]                                                  # an absent row
        targets[2, :] = c["pad"]
        targets[3, 0] = c["pad"]                                                 # one target without loss
        model.eval()                                                             # dropout off
        loss = next_token_loss(model(tokens).view(-1, c["vocab"]), targets.view(-1), c["pad"], 0.1)
        loss.backward()
        P = {name: t.double().requires_grad_(True) for name, t in model.heptapod_state_dict()}
        if c["classic"]:
            ref = reference_loss(P, c, tokens, targets, 0.1)
        else:
            ref = llama_reference_loss(reference, P, c, tokens, targets, 0.1)
        rel = abs(loss.item() - ref.item()) / abs(ref.item())
        assert rel < 1e-5, "config %d: loss %.8f vs float64 reference %.8f" % (n, loss.item(), ref.item())
        ref.backward()
        grad_views = dict(model._views(grad=True))
        worst = max((grad_views[name] - P[name].grad).abs().max().item() for name in P)
        scale = max(P[name].grad.abs().max().item() for name in P)
        assert worst <= 1e-4 * scale, "config %d: gradients differ by %g (largest %g)" % (n, worst, scale)
        model.train()
        with torch.no_grad():
            dropped = next_token_loss(model(tokens).view(-1, c["vocab"]), targets.view(-1), c["pad"], 0.1)
        assert abs(dropped.item() - loss.item()) > 1e-6, "config %d: dropout has no effect in training" % n
        print("  model %d: loss %.6f, float64 reference %.6f (rel %.1e), gradients within %.1e of the largest"
              % (n, loss.item(), ref.item(), rel, worst / scale), file=sys.stderr)

    # (2) cached generation = the full causal forward pass on the whole sequence
    for n, c in enumerate(configs):
        model = perturbed_model(c, 200 + n)
        model.eval()
        prompts = torch.randint(FIRST_REAL_TOKEN, c["vocab"], (3, 5), generator=gen)
        new = 5
        banned = torch.tensor(banned_ids(c))
        with torch.no_grad():
            for kind, fn in sorted(STEP_ATTENTION.items()):
                out, last = generate(model, prompts, new, fn)
                full = model(torch.cat([prompts, out[:, :-1]], dim=1))           # (B, P+new-1, V)
                full = full[:, prompts.shape[1] - 1:].index_fill(2, banned, float("-inf"))
                assert torch.equal(full.argmax(-1), out), "config %d (%s): greedy tokens differ" % (n, kind)
                finite = torch.isfinite(full[:, -1])
                assert torch.equal(finite, torch.isfinite(last))
                diff = (full[:, -1][finite] - last[finite]).abs().max().item()
                assert diff < 1e-4, "config %d (%s): last logits differ by %g" % (n, kind, diff)
            with torch.inference_mode(), torch.autocast("cpu", dtype=torch.bfloat16):
                out16, _ = generate(model, prompts, new, STEP_ATTENTION["mulsum"], torch.bfloat16)
            outs = [out16]
            for engine in [e for e in torch.backends.quantized.supported_engines if e != "none"]:
                torch.backends.quantized.engine = engine
                outs.append(generate(quantize_int8(model), prompts, new, STEP_ATTENTION["mulsum"])[0])
            for out_ in outs:
                assert out_.shape == (3, new) and not torch.isin(out_, banned).any()
                assert ((out_ >= 0) & (out_ < c["vocab"])).all()
        assert new_caches(c, 3, 10, torch.float32)[0][0].shape == (3, c["kv_heads"], 10, c["head_dim"])
        print("  model %d: cached greedy = full forward (last logits within %.1e), caches of %d key/value heads; "
              "int8 and bfloat16 run" % (n, diff, c["kv_heads"]), file=sys.stderr)

    with tempfile.TemporaryDirectory() as tmp:
        # (3) safetensors round trip, header checked by hand
        c = configs[1]
        model = perturbed_model(c, 300)
        model.eval()
        path = os.path.join(tmp, "w.safetensors")
        state = model.heptapod_state_dict()
        write_safetensors(path, state, {"format": "pt"})
        with open(path, "rb") as f:
            raw = f.read()
        (hlen,) = struct.unpack("<Q", raw[:8])
        header = json.loads(raw[8:8 + hlen])
        assert header.pop("__metadata__") == {"format": "pt"}
        assert list(header) == [name for name, _ in state]
        offset = 0
        for name, t in state:
            info = header[name]
            assert info["dtype"] == "F32" and info["shape"] == list(t.shape)
            assert info["data_offsets"] == [offset, offset + 4 * t.numel()]
            offset += 4 * t.numel()
        assert len(raw) == 8 + hlen + offset
        back, meta = read_safetensors(path)
        assert [n for n, _ in back] == [n for n, _ in state] and meta == {"format": "pt"}
        for (name, a), (_, b) in zip(state, back):
            assert a.dtype == b.dtype and torch.equal(a, b), name
        other = perturbed_model(c, 301)
        other.eval()
        other.load_heptapod_state_dict(dict(back))
        tokens = torch.randint(FIRST_REAL_TOKEN, c["vocab"], (2, 6), generator=gen)
        with torch.no_grad():
            assert torch.equal(model(tokens), other(tokens))
        print("  safetensors: %d tensors written, read back and reloaded bit for bit" % len(state),
              file=sys.stderr)

        # (4) the noam schedule, by hand: 256^-0.5 = 1/16; 500^1.5 = 11180.339887...
        for step, expect in ((1, 1 / 16 / 11180.339887498949), (250, 250 / 16 / 11180.339887498949),
                             (500, 1 / 16 / 22.360679774997898), (2000, 1 / 16 / 44.721359549995796)):
            got = noam_lr(step, 256, 1.0, 500)
            assert abs(got - expect) <= 1e-12 * expect, (step, got, expect)
        assert abs(noam_lr(100, 512, 2.0, 4000) - 2 * 100 / math.sqrt(512) / 4000 ** 1.5) < 1e-15
        assert noam_lr(0, 256, 1.0, 500) == noam_lr(1, 256, 1.0, 500)
        # ... and the recipe: its batches in order, absent rows and batches skipped, the rates per update
        c = configs[0]
        rng = np.random.default_rng(5)
        inputs = rng.integers(FIRST_REAL_TOKEN, c["vocab"], (4, 3, 6))
        targets = rng.integers(FIRST_REAL_TOKEN, c["vocab"], (4, 3, 6))
        inputs[0, 2], targets[0, 2] = c["pad"], c["pad"]                         # an absent block
        inputs[1, 0, 4:], targets[1, 0, 3:] = c["pad"], c["pad"]                 # a short one
        inputs[2], targets[2] = c["pad"], c["pad"]                               # an absent batch
        prefix = os.path.join(tmp, "blocks")
        write_blocks(prefix, inputs, targets, c["pad"])
        b1 = recipe_batch(inputs[1], targets[1], c["pad"])
        assert b1[0].shape == (3, 6) and recipe_batch(inputs[0], targets[0], c["pad"])[0].shape == (2, 6)
        assert recipe_batch(inputs[2], targets[2], c["pad"]) is None
        trim_in, trim_tg = inputs[3].copy(), targets[3].copy()
        trim_in[:, 4:], trim_tg[:, 4:] = c["pad"], c["pad"]
        assert recipe_batch(trim_in, trim_tg, c["pad"])[0].shape == (3, 4)
        import io
        log, lrs = io.StringIO(), []
        out = os.path.join(tmp, "out.safetensors")
        result = train_recipe(c, prefix, 1e9, 3, 1.5, 0.1, 1, out, log, lrs)
        assert result["steps"] == 3 and "ran out" in log.getvalue(), result
        assert result["tokens"] == int((targets[[0, 1, 3]] != c["pad"]).sum()), result
        assert lrs == [noam_lr(s, c["d_model"], 1.5, 3) for s in (1, 2, 3)]
        assert math.isfinite(result["last_loss"])
        assert [n for n, _ in read_safetensors(out)[0]] == [n for n, _ in expected_names(c)]
        one = train_recipe(c, prefix, 1e-12, 3, 1.0, 0.1, 1, out, io.StringIO())
        assert one["steps"] == 1, one
        print("  noam schedule and the recipe's loop checked", file=sys.stderr)
    print("self-test passed (%.1f s)" % (time.perf_counter() - start))


# ------------------------------------------------------------------------------------------------ main


def parse_args(argv=None):
    p = argparse.ArgumentParser(description="PyTorch rival for Heptapod's decoder-only language models")
    p.add_argument("--phase", choices=["lm-train", "generate", "train-recipe"])
    p.add_argument("--self-test", action="store_true", help="check the model, cache, files and schedule")
    p.add_argument("--model", choices=sorted(BENCH_MODELS))
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--compute-type", default="float32", choices=["float32", "int8", "bfloat16"],
                   help="lm-train: float32 or bfloat16 (CPU autocast); generate: float32, int8 (dynamic "
                        "quantization of the linear layers) or bfloat16 (CPU autocast)")
    p.add_argument("--batches", type=int, default=3, help="lm-train: timed batches")
    p.add_argument("--warmup", type=int, default=1, help="untimed batches (lm-train) or generations (generate)")
    p.add_argument("--batch", type=int, help="generate: prompts per generation")
    p.add_argument("--prompt", type=int, default=64)
    p.add_argument("--new", type=int, default=128)
    p.add_argument("--repeats", type=int, default=2, help="generate: timed generations")
    p.add_argument("--step-attention", default="mulsum", choices=sorted(STEP_ATTENTION),
                   help="generate: one-query attention over the cache as broadcast multiply + sum or as matmul")
    engines = [e for e in torch.backends.quantized.supported_engines if e != "none"]
    p.add_argument("--int8-engine", default="qnnpack" if "qnnpack" in engines else torch.backends.quantized.engine,
                   choices=engines, help="generate, int8: PyTorch's quantized engine (default qnnpack: measured "
                   "fastest for dynamic int8 decoding with Debian's build, which has no fbgemm)")
    p.add_argument("--config", help="train-recipe: a Heptapod model-config JSON file")
    p.add_argument("--blocks", help="train-recipe: the batch files' prefix")
    p.add_argument("--time-limit", type=float, help="train-recipe: seconds of updates")
    p.add_argument("--warmup-steps", type=int, default=500)
    p.add_argument("--lr-scale", type=float, default=1.0)
    p.add_argument("--label-smoothing", type=float, default=LABEL_SMOOTHING)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("-o", "--output", help="train-recipe: the trained weights (safetensors)")
    args = p.parse_args(argv)
    if args.self_test:
        return args
    if args.phase is None:
        p.error("--phase or --self-test is required")
    if args.phase in ("lm-train", "generate") and args.model is None:
        p.error("--phase %s needs --model" % args.phase)
    if args.phase == "lm-train" and args.compute_type == "int8":
        p.error("lm-train: --compute-type float32 or bfloat16")
    if args.phase == "generate" and (args.batch is None or args.batch < 1):
        p.error("generate needs --batch B (B >= 1)")
    if args.phase == "generate" and (args.new < 1 or args.prompt < 1):
        p.error("generate needs --prompt >= 1 and --new >= 1")
    if args.phase == "train-recipe":
        for name, flag in (("config", "--config"), ("blocks", "--blocks"), ("time_limit", "--time-limit"),
                           ("output", "-o")):
            if getattr(args, name) is None:
                p.error("train-recipe needs %s" % flag)
        if args.compute_type != "float32":
            p.error("train-recipe trains in float32")
    return args


def main(argv=None):
    args = parse_args(argv)
    torch.set_num_threads(args.threads)
    torch.manual_seed(0)
    if args.self_test:
        self_test()
        return
    if args.phase == "train-recipe":
        with open(args.config) as f:
            c = model_config(json.load(f), args.config)
        result = train_recipe(c, args.blocks, args.time_limit, args.warmup_steps, args.lr_scale,
                              args.label_smoothing, args.seed, args.output)
        print(json.dumps(result), flush=True)
        return
    cfg_json, context = BENCH_MODELS[args.model]
    c = model_config(cfg_json)
    if args.phase == "lm-train":
        result = run_lm_train(c, context, args)
    else:
        result = run_generate(c, args)
    seconds = result["seconds"]
    out = {"side": "pytorch", "phase": args.phase, "compute_type": args.compute_type, "model": args.model,
           "tokens": result["tokens"], "seconds": seconds,
           "tokens_per_second": result["tokens"] / seconds if seconds > 0 else 0.0}
    if args.phase == "generate":
        out["batch"] = args.batch
        out["ms_per_token"] = result["ms_per_token"]
    out["gflop"] = result["gflop"]
    out["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps(out), flush=True)


if __name__ == "__main__":
    main()
