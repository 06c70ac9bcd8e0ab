#!/usr/bin/python3
# t5_reference.py -- an independent float64 PyTorch implementation of T5 (Raffel et al. 2020, "Exploring the
# Limits of Transfer Learning with a Unified Text-to-Text Transformer"; the T5 v1.1 / flan-T5 / mT5 variants as
# Hugging Face's T5ForConditionalGeneration defines them), written from the published math for the tests of
# `heptapod convert DIR --from t5`; it reads a checkpoint directory (config.json, model.safetensors) under
# Hugging Face's tensor names, without transformers or Heptapod's code.
#
# The math:
#   RMSNorm(x) = w * x / sqrt(mean(x^2) + eps)        no mean, no bias (T5LayerNorm)
#   every sub-layer pre-norm: x + f(RMSNorm(x)); each stack ends with its final_layer_norm
#   attention: softmax(q k^T + bias) v per head (d_kv wide), NO 1/sqrt(d_kv); no biases anywhere
#   bias[h, i, j] = table[bucket(j - i), h], table = block 0's relative_attention_bias (buckets, heads), the same
#     for every layer of its stack; none in cross-attention
#   bucket(r): bidirectional (encoder): n = buckets / 2, +n if r > 0, d = |r|; causal (decoder): n = buckets,
#     d = max(-r, 0); exact = n / 2; d < exact -> d, else min(exact + int(log(d / exact) / log(max_distance /
#     exact) * (n - exact)), n - 1) (the logarithm in float32, as torch computes it)
#   feed-forward: wo(relu(wi x)) ("relu"), or wo(gelu_new(wi_0 x) * wi_1 x) ("gated-gelu")
#   embeddings: shared.weight, no scale, no positions; output: tied (tie_word_embeddings): (y * d_model^-0.5)
#     shared^T; untied: y lm_head^T
#   sequences: the source ends with </s> (1); the decoder starts from decoder_start_token_id (pad, 0)
#
#   /usr/bin/python3 tools/t5_reference.py DIR --ids "5 6 7 1" [--new 8]     greedy continuation ids
import argparse
import json
import math
import os
import struct
import sys

import torch

D = torch.float64


def read_safetensors(path):
    with open(path, "rb") as f:
        n = struct.unpack("<Q", f.read(8))[0]
        header = json.loads(f.read(n))
        data = f.read()
    out = {}
    kinds = {"F32": torch.float32, "F64": torch.float64, "F16": torch.float16, "BF16": torch.bfloat16,
             "I32": torch.int32, "I64": torch.int64}
    for name, e in header.items():
        if name == "__metadata__":
            continue
        a, b = e["data_offsets"]
        t = torch.frombuffer(bytearray(data[a:b]), dtype=kinds[e["dtype"]]) if b > a else torch.zeros(0)
        out[name] = t.reshape(e["shape"]).clone()
    return out


def parse_config(obj):
    ffn = obj.get("feed_forward_proj", "relu")
    gated = ffn.startswith("gated-")
    act = "gelu_new" if ffn == "gated-gelu" else ffn[6:] if gated else ffn
    if act not in ("relu", "gelu_new"):
        raise SystemExit("feed_forward_proj %r: the reference takes relu and gated-gelu" % ffn)
    return {
        "C": obj["d_model"], "H": obj["num_heads"], "Dk": obj["d_kv"], "F": obj["d_ff"],
        "enc_layers": obj["num_layers"], "dec_layers": obj.get("num_decoder_layers") or obj["num_layers"],
        "V": obj["vocab_size"], "buckets": obj.get("relative_attention_num_buckets", 32),
        "max_distance": obj.get("relative_attention_max_distance", 128), "gated": gated, "act": act,
        "tied": obj.get("tie_word_embeddings", True), "eps": obj.get("layer_norm_epsilon", 1e-6),
        "pad": obj.get("pad_token_id", 0), "eos": obj.get("eos_token_id", 1),
        "start": obj.get("decoder_start_token_id", 0)}


def relative_bucket(r, bidirectional, buckets, max_distance):
    n, bucket = buckets, 0
    if bidirectional:
        n //= 2
        bucket = n if r > 0 else 0
        d = abs(r)
    else:
        d = max(-r, 0)
    exact = n // 2
    if d < exact:
        return bucket + d
    # float32, as torch.log(relative_position.float() / max_exact) / math.log(...) * (n - max_exact)
    x = torch.log(torch.tensor([d], dtype=torch.float32) / exact)
    x = x / math.log(max_distance / exact)
    x = x * (n - exact)
    return bucket + min(exact + int(x.to(torch.int64)[0]), n - 1)


_BUCKETS = {}


def bucket_matrix(q_len, k_len, bidirectional, c):
    """(q_len, k_len) buckets: query i at position k_len - q_len + i, key j."""
    key = (q_len, k_len, bidirectional, c["buckets"], c["max_distance"])
    if key not in _BUCKETS:
        _BUCKETS[key] = torch.tensor([[relative_bucket(j - (k_len - q_len + i), bidirectional, c["buckets"],
                                                       c["max_distance"]) for j in range(k_len)]
                                      for i in range(q_len)], dtype=torch.int64)
    return _BUCKETS[key]


def position_bias(table, q_len, k_len, bidirectional, c):
    """(H, q_len, k_len) from the table (buckets, H)."""
    return table[bucket_matrix(q_len, k_len, bidirectional, c)].permute(2, 0, 1)


def rms_norm(x, w, eps):
    return w * x / torch.sqrt((x * x).mean(-1, keepdim=True) + eps)


def gelu_new(x):
    return 0.5 * x * (1 + torch.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x ** 3)))


class T5:
    """P: HF name -> tensor (any dtype; computed in the tensors' dtype); c: parse_config's."""

    def __init__(self, P, c):
        self.P, self.c = P, c
        self.cfg = {"vocab_tgt": c["V"]}  # what make_import_fixtures.search reads

    def attention(self, xq, xkv, name, key_len, bias, causal):
        """xq (B, Tq, C), xkv (B, Tk, C); keys t >= key_len[b] masked; bias (H, Tq, Tk) or None."""
        P, c = self.P, self.c
        B, Tq, _ = xq.shape
        Tk = xkv.shape[1]
        H, Dk = c["H"], c["Dk"]
        q = (xq @ P[name + ".q.weight"].T).view(B, Tq, H, Dk).transpose(1, 2)
        k = (xkv @ P[name + ".k.weight"].T).view(B, Tk, H, Dk).transpose(1, 2)
        v = (xkv @ P[name + ".v.weight"].T).view(B, Tk, H, Dk).transpose(1, 2)
        s = q @ k.transpose(-1, -2)  # (B, H, Tq, Tk), unscaled
        if bias is not None:
            s = s + bias[None]
        mask = torch.zeros(B, 1, Tq, Tk, dtype=torch.bool)
        for b in range(B):
            mask[b, :, :, key_len[b]:] = True
        if causal:
            mask = mask | torch.triu(torch.ones(Tq, Tk, dtype=torch.bool), 1)[None, None]
        s = s.masked_fill(mask, float("-inf"))
        a = torch.softmax(s, -1)
        y = (a @ v).transpose(1, 2).reshape(B, Tq, H * Dk)
        return y @ P[name + ".o.weight"].T

    def ffn(self, x, name):
        P, c = self.P, self.c
        if c["gated"]:
            return (gelu_new(x @ P[name + ".wi_0.weight"].T) * (x @ P[name + ".wi_1.weight"].T)) @ P[name + ".wo.weight"].T
        return torch.relu(x @ P[name + ".wi.weight"].T) @ P[name + ".wo.weight"].T

    def encode(self, src, src_len):
        P, c = self.P, self.c
        x = P["shared.weight"][src]
        T = src.shape[1]
        bias = position_bias(P["encoder.block.0.layer.0.SelfAttention.relative_attention_bias.weight"], T, T, True, c)
        for i in range(c["enc_layers"]):
            n = "encoder.block.%d." % i
            h = rms_norm(x, P[n + "layer.0.layer_norm.weight"], c["eps"])
            x = x + self.attention(h, h, n + "layer.0.SelfAttention", src_len, bias, False)
            h = rms_norm(x, P[n + "layer.1.layer_norm.weight"], c["eps"])
            x = x + self.ffn(h, n + "layer.1.DenseReluDense")
        return rms_norm(x, P["encoder.final_layer_norm.weight"], c["eps"])

    def decode(self, memory, src_len, tgt_in, tgt_len):
        P, c = self.P, self.c
        y = P["shared.weight"][tgt_in]
        T = tgt_in.shape[1]
        bias = position_bias(P["decoder.block.0.layer.0.SelfAttention.relative_attention_bias.weight"], T, T, False, c)
        for i in range(c["dec_layers"]):
            n = "decoder.block.%d." % i
            h = rms_norm(y, P[n + "layer.0.layer_norm.weight"], c["eps"])
            y = y + self.attention(h, h, n + "layer.0.SelfAttention", tgt_len, bias, True)
            h = rms_norm(y, P[n + "layer.1.layer_norm.weight"], c["eps"])
            y = y + self.attention(h, memory, n + "layer.1.EncDecAttention", src_len, None, False)
            h = rms_norm(y, P[n + "layer.2.layer_norm.weight"], c["eps"])
            y = y + self.ffn(h, n + "layer.2.DenseReluDense")
        y = rms_norm(y, P["decoder.final_layer_norm.weight"], c["eps"])
        if c["tied"]:
            return (y * c["C"] ** -0.5) @ P["shared.weight"].T
        return y @ P["lm_head.weight"].T

    def forward(self, src, src_len, tgt_in, tgt_len):
        """(B, S) sources (ending with </s>), (B, T) decoder inputs (starting with the start token) -> (B, T, V)."""
        return self.decode(self.encode(src, src_len), src_len, tgt_in, tgt_len)


def load(directory, dtype=D):
    with open(os.path.join(directory, "config.json")) as f:
        c = parse_config(json.load(f))
    P = {k: v.to(dtype) for k, v in read_safetensors(os.path.join(directory, "model.safetensors")).items()}
    if c["tied"]:
        P.setdefault("lm_head.weight", P["shared.weight"])
    return T5(P, c)


def main(argv=None):
    p = argparse.ArgumentParser(description="float64 reference of a T5 checkpoint: greedy decoding")
    p.add_argument("directory")
    p.add_argument("--ids", required=True, help="source ids (ending with </s>), spaces or commas")
    p.add_argument("--new", type=int, default=8)
    a = p.parse_args(argv)
    model = load(a.directory)
    src = [int(t) for t in a.ids.replace(",", " ").split()]
    out = [model.c["start"]]
    for _ in range(a.new):
        logits = model.forward(torch.tensor([src]), [len(src)], torch.tensor([out]), [len(out)])[0, -1]
        out.append(int(torch.argmax(logits)))
        if out[-1] == model.c["eos"]:
            break
    print(" ".join(str(t) for t in out[1:]))


if __name__ == "__main__":
    sys.exit(main())
