#!/usr/bin/python3
# llama_reference.py -- an independent float64 PyTorch implementation of the LLaMA family of decoders (Hugging
# Face model_type llama, mistral, qwen2, qwen3), written from the published math, reading a checkpoint directory
# as Hugging Face stores it. tools/make_llama_fixtures.py builds the test fixtures with it; as a command it
# runs a real checkpoint on a few ids, to compare Heptapod's conversion of it against.
#
#   /usr/bin/python3 tools/llama_reference.py DIR --ids "128000 791 4062" [--new 8] [--top 5]
#
# prints one JSON line: {"model_type", "ids", "top": [[id, logit], ...] (the largest logits after the ids),
# "greedy": [ids] (--new tokens by argmax, with the key/value cache)}. A directory it cannot read, or a model it
# does not implement, exits with a message naming the file and the field.
#
# The checkpoint: config.json; model.safetensors, or model.safetensors.index.json ({"weight_map": {tensor:
# shard}}) and its shards; F32, F16 or BF16 tensors (read by hand: u64 little-endian header size, the JSON
# header, the data), computed in float64. Buffers some checkpoints carry (*.rotary_emb.inv_freq) and a tied
# model's lm_head.weight are ignored; any other tensor it does not expect is an error.
#
# The model (sources: transformers src/transformers/models/{llama,mistral,qwen2,qwen3}/modeling_*.py and
# configuration_*.py, src/transformers/modeling_rope_utils.py, src/transformers/masking_utils.py):
#   x = embed_tokens[ids]; per layer, pre-norm:
#     h = x + o_proj(attention(input_layernorm(x)))
#     x = h + down_proj(act(gate_proj(g)) * up_proj(g)),  g = post_attention_layernorm(h)
#   logits = norm(x) lm_head^T (lm_head = embed_tokens when tie_word_embeddings).
#   RMSNorm: w * x / sqrt(mean(x^2) + rms_norm_eps) (weight only).
#   act: hidden_act silu (SwiGLU), gelu (exact erf) or gelu_pytorch_tanh (tanh approximation) (GeGLU).
#   Attention: q_proj (heads * head_dim), k_proj and v_proj (num_key_value_heads * head_dim) of the normed input
#     (head_dim explicit or hidden_size / num_attention_heads; qwen3 without one: 128, its class default);
#     biases: llama q, k, v and o by attention_bias, gate, up and down by mlp_bias; qwen2 q, k and v always;
#     qwen3 all four by attention_bias; mistral none. qwen3: q_norm and k_norm, an RMSNorm over each head's
#     head_dim columns (weight (head_dim)), before the rotation. Rotary positions on q and k (below); query head
#     h reads key/value head h // (heads / kv_heads) (repeat_kv); scores q.k / sqrt(head_dim); key j visible to
#     query i iff j <= i and, in a sliding layer, j > i - sliding_window.
#   Sliding layers: mistral every layer when sliding_window is set; qwen2 / qwen3 only with use_sliding_window,
#     then the layers "sliding_attention" in layer_types, or without layer_types those >= max_window_layers.
# Rotary positions (rotate_half layout): R = int(head_dim * partial_rotary_factor) columns per head (default
#   all), inv_freq[i] = rope_theta^(-2i/R), i < R/2; angle(p, i) = p * inv_freq[i]; the first R columns become
#   x * cos(a) + rotate_half(x) * sin(a) with a = cat(angles, angles) and rotate_half(x) = cat(-x2, x1) of its
#   halves; columns past R pass unchanged. rope_theta and rope_scaling are top-level keys or both inside
#   "rope_parameters"; the type under "rope_type" or the older "type":
#     default  as above;
#     linear   inv_freq / factor (the same as positions / factor);
#     dynamic  (NTK) for a sequence of L positions, theta' = theta * (factor * L' / M - (factor - 1))^(R/(R-2)),
#              L' = max(L, M), M = max_position_embeddings; a pass over positions [S, S+T) uses L = S + T (its
#              largest position + 1, as transformers' dynamic_rope_update reads max(position_ids) + 1). So a whole
#              sequence of L > M positions is rotated with theta'(L) at every position, and in cached generation
#              each new key is rotated once, with the frequencies of its own step, and kept (transformers' cached
#              generate: the cache holds rotated keys; the frequencies only grow within one generation).
#     llama3   factor, low_freq_factor, high_freq_factor, original_max_position_embeddings (O): wavelength
#              w = 2 pi / inv_freq; w < O / high: unchanged; w > O / low: inv_freq / factor; else
#              s = (O / w - low) / (high - low), inv_freq * ((1 - s) / factor + s).
#   Any other type (yarn, longrope, ...) is refused by name.
# A batch of sequences: each row is its own sequence (its own length chooses dynamic scaling's frequencies).

import argparse
import json
import math
import os
import struct
import sys
from dataclasses import dataclass, field

import torch

D = torch.float64
MODEL_TYPES = ("llama", "mistral", "qwen2", "qwen3")
ROPE_TYPES = ("default", "linear", "dynamic", "llama3")
# A config without num_key_value_heads or head_dim gets its class's default (transformers configuration_*.py).
DEFAULT_KV_HEADS = {"mistral": 8, "qwen2": 32, "qwen3": 32}
DEFAULT_HEAD_DIM = {"qwen3": 128}
IGNORED_SUFFIXES = (".rotary_emb.inv_freq",)


class CheckpointError(Exception):
    """A checkpoint this reference cannot read or does not implement; the message names the file and field."""


# ------------------------------------------------------------------------------------------------ config


@dataclass
class Rope:
    theta: float
    kind: str                      # default, linear, dynamic, llama3
    dims: int                      # rotated columns per head (even)
    factor: float = 1.0
    low_freq_factor: float = 1.0
    high_freq_factor: float = 4.0
    original_max_position_embeddings: int = 0   # llama3's O
    max_position_embeddings: int = 0            # dynamic's M


@dataclass
class Config:
    model_type: str
    vocab_size: int
    hidden_size: int
    intermediate_size: int
    layers: int
    heads: int
    kv_heads: int
    head_dim: int
    eps: float
    act: str
    qkv_bias: bool
    o_bias: bool
    mlp_bias: bool
    qk_norm: bool
    tie: bool
    rope: Rope
    windows: list                  # per layer: the sliding window, or None
    bos_token_id: object = None
    eos_token_ids: list = field(default_factory=list)


def parse_config(obj, where="config.json"):
    """config.json's object -> Config; CheckpointError naming `where` and the field for anything refused."""
    def fail(message):
        raise CheckpointError("%s: %s" % (where, message))

    def get(key, kind, default=None, source=obj, required=False):
        if key not in source or source[key] is None:
            if required:
                fail("missing \"%s\"" % key)
            return default
        value = source[key]
        if kind is float and isinstance(value, int) and not isinstance(value, bool):
            value = float(value)
        if kind is int and isinstance(value, float) and value == int(value):
            value = int(value)
        if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
            fail("\"%s\" must be a %s, got %r" % (key, kind.__name__, value))
        return value

    if not isinstance(obj, dict):
        fail("not a JSON object")
    model_type = get("model_type", str, required=True)
    if model_type not in MODEL_TYPES:
        fail("model_type \"%s\" is not one this reference implements (%s)" % (model_type, ", ".join(MODEL_TYPES)))
    hidden = get("hidden_size", int, required=True)
    heads = get("num_attention_heads", int, required=True)
    # Absent: the class's default; null: one key/value head per query head, head_dim hidden / heads.
    kv_heads = get("num_key_value_heads", int, heads) if "num_key_value_heads" in obj else \
        DEFAULT_KV_HEADS.get(model_type, heads)
    head_dim = get("head_dim", int, hidden // max(heads, 1)) if "head_dim" in obj else \
        DEFAULT_HEAD_DIM.get(model_type, hidden // max(heads, 1))
    for key, value in (("hidden_size", hidden), ("num_attention_heads", heads), ("num_key_value_heads", kv_heads),
                       ("head_dim", head_dim)):
        if value <= 0:
            fail("\"%s\" must be positive, got %d" % (key, value))
    if heads % kv_heads:
        fail("num_attention_heads (%d) must be a multiple of num_key_value_heads (%d)" % (heads, kv_heads))
    act = get("hidden_act", str, "silu")
    if act not in ACTIVATIONS:
        fail("hidden_act \"%s\" is not one this reference implements (%s)" % (act, ", ".join(sorted(ACTIVATIONS))))

    attention_bias = get("attention_bias", bool, False)
    qkv_bias, o_bias, mlp_bias = {
        "llama": (attention_bias, attention_bias, get("mlp_bias", bool, False)),
        "mistral": (False, False, False),
        "qwen2": (True, False, False),
        "qwen3": (attention_bias, attention_bias, False)}[model_type]

    layers = get("num_hidden_layers", int, required=True)
    windows = [None] * layers
    if model_type == "mistral":
        windows = [get("sliding_window", int)] * layers
    elif model_type in ("qwen2", "qwen3") and get("use_sliding_window", bool, False):
        window = get("sliding_window", int)
        types = get("layer_types", list)
        if types is not None and len(types) != layers:
            fail("layer_types has %d entries for %d layers" % (len(types), layers))
        first = get("max_window_layers", int, 28)
        windows = [window if (types[i] == "sliding_attention" if types is not None else i >= first) else None
                   for i in range(layers)]
    eos = obj.get("eos_token_id")
    eos = [] if eos is None else list(eos) if isinstance(eos, list) else [eos]
    return Config(
        model_type=model_type, vocab_size=get("vocab_size", int, required=True), hidden_size=hidden,
        intermediate_size=get("intermediate_size", int, required=True), layers=layers, heads=heads,
        kv_heads=kv_heads, head_dim=head_dim, eps=get("rms_norm_eps", float, 1e-6), act=act, qkv_bias=qkv_bias,
        o_bias=o_bias, mlp_bias=mlp_bias, qk_norm=model_type == "qwen3",
        tie=get("tie_word_embeddings", bool, False), rope=parse_rope(obj, head_dim, fail, get), windows=windows,
        bos_token_id=obj.get("bos_token_id"), eos_token_ids=eos)


def parse_rope(obj, head_dim, fail, get):
    """Rope from the top-level rope_theta / rope_scaling / partial_rotary_factor or a "rope_parameters" dict."""
    params = obj.get("rope_parameters")
    if params is not None:
        if not isinstance(params, dict) or any(isinstance(v, dict) for v in params.values()):
            fail("\"rope_parameters\" must be one object of numbers (per-layer-type rotary is not implemented)")
        scaling, source = params, params
    else:
        scaling, source = obj.get("rope_scaling") or {}, obj
        if not isinstance(scaling, dict):
            fail("\"rope_scaling\" must be an object or null")
    theta = get("rope_theta", float, 10000.0, source)
    kind = scaling.get("rope_type", scaling.get("type", "default"))
    if kind not in ROPE_TYPES:
        fail("rope type \"%s\" is not one this reference implements (%s)" % (kind, ", ".join(ROPE_TYPES)))
    partial = get("partial_rotary_factor", float, 1.0, source if "partial_rotary_factor" in source else obj)
    dims = int(head_dim * partial)
    if dims <= 0 or dims % 2 or dims > head_dim:
        fail("partial_rotary_factor %g leaves %d rotated columns of %d (must be even, 2 or more)"
             % (partial, dims, head_dim))
    rope = Rope(theta=theta, kind=kind, dims=dims)
    if kind in ("linear", "dynamic", "llama3"):
        rope.factor = get("factor", float, source=scaling, required=True)
    if kind == "dynamic":
        rope.max_position_embeddings = get("max_position_embeddings", int, required=True)
    if kind == "llama3":
        rope.low_freq_factor = get("low_freq_factor", float, source=scaling, required=True)
        rope.high_freq_factor = get("high_freq_factor", float, source=scaling, required=True)
        rope.original_max_position_embeddings = get("original_max_position_embeddings", int, source=scaling,
                                                    required=True)
        if rope.high_freq_factor <= rope.low_freq_factor:
            fail("llama3 rotary: high_freq_factor must exceed low_freq_factor")
    return rope


def expected_tensors(c):
    """(name, shape) of every tensor the checkpoint must hold, in the model's order."""
    C, F, V = c.hidden_size, c.intermediate_size, c.vocab_size
    Q, K = c.heads * c.head_dim, c.kv_heads * c.head_dim
    out = [("model.embed_tokens.weight", (V, C))]
    for i in range(c.layers):
        n = "model.layers.%d." % i
        for proj, rows in (("q_proj", Q), ("k_proj", K), ("v_proj", K)):
            out.append((n + "self_attn.%s.weight" % proj, (rows, C)))
            if c.qkv_bias:
                out.append((n + "self_attn.%s.bias" % proj, (rows,)))
        out.append((n + "self_attn.o_proj.weight", (C, Q)))
        if c.o_bias:
            out.append((n + "self_attn.o_proj.bias", (C,)))
        if c.qk_norm:
            out += [(n + "self_attn.q_norm.weight", (c.head_dim,)), (n + "self_attn.k_norm.weight", (c.head_dim,))]
        for proj, shape in (("gate_proj", (F, C)), ("up_proj", (F, C)), ("down_proj", (C, F))):
            out.append((n + "mlp.%s.weight" % proj, shape))
            if c.mlp_bias:
                out.append((n + "mlp.%s.bias" % proj, shape[:1]))
        out += [(n + "input_layernorm.weight", (C,)), (n + "post_attention_layernorm.weight", (C,))]
    out.append(("model.norm.weight", (C,)))
    if not c.tie:
        out.append(("lm_head.weight", (V, C)))
    return out

# ------------------------------------------------------------------------------------------------ checkpoint


SAFETENSORS_DTYPES = {"F32": torch.float32, "F16": torch.float16, "BF16": torch.bfloat16, "F64": torch.float64}


def read_safetensors(path):
    """{name: float64 tensor} of a safetensors file (floating-point tensors only); CheckpointError otherwise."""
    def fail(message):
        raise CheckpointError("%s: %s" % (path, message))

    try:
        with open(path, "rb") as f:
            raw = f.read()
    except OSError as e:
        fail("cannot read (%s)" % e.strerror)
    if len(raw) < 8:
        fail("shorter than a safetensors header")
    (n,) = struct.unpack("<Q", raw[:8])
    if 8 + n > len(raw):
        fail("header of %d bytes runs past the end of the file" % n)
    try:
        header = json.loads(raw[8:8 + n].decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as e:
        fail("header is not JSON (%s)" % e)
    data = memoryview(raw)[8 + n:]
    out = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        dtype = SAFETENSORS_DTYPES.get(info.get("dtype"))
        if dtype is None:
            fail("tensor %s: dtype %s is not F32, F16, BF16 or F64" % (name, info.get("dtype")))
        shape, (begin, end) = info["shape"], info["data_offsets"]
        count = math.prod(shape)
        size = torch.empty(0, dtype=dtype).element_size()
        if not 0 <= begin <= end <= len(data) or end - begin != count * size:
            fail("tensor %s: data_offsets %s do not hold %s %s" % (name, [begin, end], shape, info["dtype"]))
        t = torch.frombuffer(bytearray(data[begin:end]), dtype=dtype) if count else torch.empty(0, dtype=dtype)
        out[name] = t.to(D).reshape(shape)
    return out


def read_weights(directory):
    """{name: float64 tensor} from model.safetensors or model.safetensors.index.json and its shards."""
    index = os.path.join(directory, "model.safetensors.index.json")
    if not os.path.exists(index):
        return read_safetensors(os.path.join(directory, "model.safetensors"))
    try:
        with open(index, encoding="utf-8") as f:
            weight_map = json.load(f)["weight_map"]
    except (OSError, ValueError, KeyError, TypeError) as e:
        raise CheckpointError("%s: no \"weight_map\" object (%s)" % (index, e))
    tensors = {}
    for shard in sorted(set(weight_map.values())):
        names = {n for n, s in weight_map.items() if s == shard}
        held = read_safetensors(os.path.join(directory, shard))
        for name in sorted(names - set(held)):
            raise CheckpointError("%s: weight_map puts %s in %s, which does not hold it" % (index, name, shard))
        for name in sorted(set(held) - names):
            raise CheckpointError("%s: %s holds %s, which weight_map does not list" % (index, shard, name))
        tensors.update(held)
    return tensors


def load_checkpoint(directory):
    """(Config, {name: float64 tensor} in expected_tensors' order) of a checkpoint directory."""
    path = os.path.join(directory, "config.json")
    try:
        with open(path, encoding="utf-8") as f:
            obj = json.load(f)
    except (OSError, ValueError) as e:
        raise CheckpointError("%s: cannot read (%s)" % (path, e))
    c = parse_config(obj, path)
    tensors = read_weights(directory)
    P = {}
    for name, shape in expected_tensors(c):
        if name not in tensors:
            raise CheckpointError("%s: no tensor %s" % (directory, name))
        if tuple(tensors[name].shape) != shape:
            raise CheckpointError("%s: %s is %s, the config makes it %s"
                                  % (directory, name, list(tensors[name].shape), list(shape)))
        P[name] = tensors[name]
    for name in sorted(set(tensors) - set(P)):
        if not (name.endswith(IGNORED_SUFFIXES) or (c.tie and name == "lm_head.weight")):
            raise CheckpointError("%s: tensor %s is not part of a %s model with this config"
                                  % (directory, name, c.model_type))
    return c, P

# ------------------------------------------------------------------------------------------------ the math


def silu(x):
    return x / (1 + torch.exp(-x))


def gelu(x):
    return 0.5 * x * (1 + torch.erf(x / math.sqrt(2)))


def gelu_tanh(x):
    return 0.5 * x * (1 + torch.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x ** 3)))


ACTIVATIONS = {"silu": silu, "gelu": gelu, "gelu_pytorch_tanh": gelu_tanh}


def rms_norm(x, w, eps):
    return x / torch.sqrt((x * x).mean(-1, keepdim=True) + eps) * w


def llama3_remap(inv_freq, factor, low_freq_factor, high_freq_factor, original):
    """LLaMA 3.1's frequency remap of inv_freq (a float64 tensor)."""
    out = []
    for f in inv_freq.tolist():
        wavelength = 2 * math.pi / f
        if wavelength < original / high_freq_factor:
            out.append(f)
        elif wavelength > original / low_freq_factor:
            out.append(f / factor)
        else:
            s = (original / wavelength - low_freq_factor) / (high_freq_factor - low_freq_factor)
            out.append((1 - s) * f / factor + s * f)
    return torch.tensor(out, dtype=D)


def inv_frequencies(rope, seq_len):
    """inv_freq (R/2) for a sequence of seq_len positions."""
    theta = rope.theta
    if rope.kind == "dynamic":
        M, R = rope.max_position_embeddings, rope.dims
        theta = theta * (rope.factor * max(seq_len, M) / M - (rope.factor - 1)) ** (R / (R - 2))
    inv = 1.0 / theta ** (torch.arange(0, rope.dims, 2, dtype=D) / rope.dims)
    if rope.kind == "linear":
        inv = inv / rope.factor
    elif rope.kind == "llama3":
        inv = llama3_remap(inv, rope.factor, rope.low_freq_factor, rope.high_freq_factor,
                           rope.original_max_position_embeddings)
    return inv


def rotate_half(x):
    half = x.shape[-1] // 2
    return torch.cat([-x[..., half:], x[..., :half]], -1)


def rotate(x, positions, inv_freq):
    """x (T, heads, head_dim): each head's first R = 2 len(inv_freq) columns rotated by position * inv_freq
    (angles in float64, their cosines and sines in x's dtype)."""
    R = 2 * inv_freq.shape[0]
    angles = positions.to(D)[:, None] * inv_freq[None, :]                     # (T, R/2)
    a = torch.cat([angles, angles], -1)[:, None, :]                           # (T, 1, R)
    cos, sin = torch.cos(a).to(x.dtype), torch.sin(a).to(x.dtype)
    head = x[..., :R]
    return torch.cat([head * cos + rotate_half(head) * sin, x[..., R:]], -1)


def linear(x, P, name, bias):
    y = x @ P[name + ".weight"].T
    return y + P[name + ".bias"] if bias else y


def attention(P, c, i, h, start, inv_freq, cache):
    """Layer i's self-attention over new rows h (T, C) at positions [start, start + T), after the cached keys
    and values of positions [0, start); cache: [keys, values] (start, kv_heads, head_dim), extended in place."""
    n = "model.layers.%d.self_attn." % i
    T, hd = h.shape[0], c.head_dim
    q = linear(h, P, n + "q_proj", c.qkv_bias).view(T, c.heads, hd)
    k = linear(h, P, n + "k_proj", c.qkv_bias).view(T, c.kv_heads, hd)
    v = linear(h, P, n + "v_proj", c.qkv_bias).view(T, c.kv_heads, hd)
    if c.qk_norm:
        q = rms_norm(q, P[n + "q_norm.weight"], c.eps)
        k = rms_norm(k, P[n + "k_norm.weight"], c.eps)
    positions = torch.arange(start, start + T)
    q, k = rotate(q, positions, inv_freq), rotate(k, positions, inv_freq)
    cache[0] = torch.cat([cache[0], k]) if cache[0] is not None else k          # (start + T, kv_heads, hd)
    cache[1] = torch.cat([cache[1], v]) if cache[1] is not None else v
    group = torch.arange(c.heads) // (c.heads // c.kv_heads)                  # query head -> its kv head
    keys, values = cache[0][:, group], cache[1][:, group]                     # (S, heads, hd)
    scores = torch.einsum("thd,shd->hts", q, keys) / math.sqrt(hd)            # (heads, T, S)
    query_pos, key_pos = positions[:, None], torch.arange(keys.shape[0])[None, :]
    visible = key_pos <= query_pos
    if c.windows[i] is not None:
        visible = visible & (key_pos > query_pos - c.windows[i])
    scores = scores.masked_fill(~visible[None], float("-inf"))
    out = torch.einsum("hts,shd->thd", torch.softmax(scores, -1), values).reshape(T, c.heads * hd)
    return linear(out, P, n + "o_proj", c.o_bias)


def forward(P, c, ids, cache=None):
    """ids (T) -> logits (T, V) of the rows after `cache` (None: a new sequence from position 0; else the list
    new_cache() made, filled by earlier calls and extended by this one)."""
    cache = cache if cache is not None else new_cache(c)
    start = 0 if cache[0][0] is None else cache[0][0].shape[0]
    inv_freq = inv_frequencies(c.rope, start + len(ids))
    act = ACTIVATIONS[c.act]
    x = P["model.embed_tokens.weight"][torch.as_tensor(ids, dtype=torch.long)]
    for i in range(c.layers):
        n = "model.layers.%d." % i
        x = x + attention(P, c, i, rms_norm(x, P[n + "input_layernorm.weight"], c.eps), start, inv_freq, cache[i])
        g = rms_norm(x, P[n + "post_attention_layernorm.weight"], c.eps)
        m = act(linear(g, P, n + "mlp.gate_proj", c.mlp_bias)) * linear(g, P, n + "mlp.up_proj", c.mlp_bias)
        x = x + linear(m, P, n + "mlp.down_proj", c.mlp_bias)
    x = rms_norm(x, P["model.norm.weight"], c.eps)
    return x @ P["model.embed_tokens.weight" if c.tie else "lm_head.weight"].T


def new_cache(c):
    return [[None, None] for _ in range(c.layers)]


def batch_logits(P, c, ids, lengths):
    """ids (B, T) right-padded, lengths (B) -> logits (B, T, V): each row its own sequence; rows t >= length 0."""
    out = torch.zeros(ids.shape[0], ids.shape[1], c.vocab_size, dtype=D)
    for b, n in enumerate(lengths):
        out[b, :n] = forward(P, c, ids[b, :n])
    return out


def smoothed_loss(P, c, inputs, targets, lengths, eps):
    """Label-smoothed cross-entropy, (1 - eps) (-log p_y) + eps mean_j(-log p_j), mean over the targets that are
    not -1; row b is the sequence inputs[b, :lengths[b]] (its targets past the length must be -1)."""
    total, count = 0, 0
    for b, n in enumerate(lengths):
        assert (targets[b, n:] == -1).all(), "row %d: a target past its length" % b
        logp = torch.log_softmax(forward(P, c, inputs[b, :n]), -1)            # (n, V)
        y = targets[b, :n].long()
        real = y >= 0
        nll = -logp[real].gather(-1, y[real][:, None])[:, 0]
        total = total + ((1 - eps) * nll - eps * logp[real].mean(-1)).sum()
        count += int(real.sum())
    return total / count


def greedy(P, c, prompt, steps, cached=True):
    """steps new ids by argmax after the prompt, and each step's lead of the best over the second in
    log-probability. cached: one pass over the prompt, then one position per step through the key/value cache
    (each key rotated once); else every step reruns the whole sequence (no cache)."""
    ids, margins = list(prompt), []
    cache = new_cache(c)
    logits = forward(P, c, ids, cache)[-1]
    for s in range(steps):
        top = torch.topk(torch.log_softmax(logits, -1), 2)
        margins.append((top.values[0] - top.values[1]).item())
        ids.append(int(top.indices[0]))
        if s + 1 < steps:
            logits = forward(P, c, ids[-1:], cache)[-1] if cached else forward(P, c, ids)[-1]
    return ids[len(prompt):], margins

# ------------------------------------------------------------------------------------------------ command


def main(argv=None):
    p = argparse.ArgumentParser(description="float64 reference of a LLaMA / Mistral / Qwen 2 / Qwen 3 checkpoint")
    p.add_argument("directory", help="a Hugging Face checkpoint directory (config.json and safetensors weights)")
    p.add_argument("--ids", required=True, help="the input token ids, separated by spaces or commas")
    p.add_argument("--new", type=int, default=8, help="tokens to generate by argmax (default 8)")
    p.add_argument("--top", type=int, default=5, help="largest next-token logits to print (default 5)")
    args = p.parse_args(argv)
    try:
        ids = [int(t) for t in args.ids.replace(",", " ").split()]
    except ValueError:
        p.error("--ids: not a list of integers: %s" % args.ids)
    if not ids or args.new < 0 or args.top < 1:
        p.error("--ids needs one id or more, --new 0 or more, --top 1 or more")
    torch.set_num_threads(max(1, os.cpu_count() or 1))
    try:
        c, P = load_checkpoint(args.directory)
    except CheckpointError as e:
        sys.exit("llama_reference.py: %s" % e)
    bad = [i for i in ids if not 0 <= i < c.vocab_size]
    if bad:
        sys.exit("llama_reference.py: --ids: %s outside the vocabulary [0, %d)" % (bad, c.vocab_size))
    with torch.no_grad():
        last = forward(P, c, ids)[-1]
        top = torch.topk(last, min(args.top, c.vocab_size))
        new = greedy(P, c, ids, args.new)[0] if args.new else []
    print(json.dumps({"model_type": c.model_type, "ids": ids,
                      "top": [[int(i), float(v)] for v, i in zip(top.values, top.indices)], "greedy": new}))


if __name__ == "__main__":
    main()
