#!/usr/bin/python3
# make_xl_model_fixtures.py -- an independent PyTorch reference of a whole decoder-only Transformer-XL language
# model (Dai et al. 2019), with its segment memory, for the model-level parity test tests/test_xl_model.cpp.
#
# Written here from the paper's equations in float64, without Heptapod's code, under Heptapod's parameter names
# and conventions (parameter_layout.cpp, config.cpp): V 11 (pad 0, bos 1, eos 2; the streams use ids 4..10),
# C = d_model 16, H 2 heads (D = 8), F = d_ff 32, 2 layers, ReLU FFN, layer-norm epsilon the config's float
# 1e-5 (biased variance, epsilon inside the square root), token embeddings times sqrt(C) = 4 and NO absolute
# positions, the output layer the embedding table (tie "target_output", no output bias): logits = h E^T.
#
# Memory: layer l keeps the last M rows of its INPUT rows (layer 0's: the scaled embeddings) of the stream's
# previous segments, detached (no gradient into it): empty before segment 0, then mem_l <- the last M rows of
# concat(mem_l, input_l). With m memory rows and the segment's L rows x, layer l's self-attention reads
#   post-norm:  a = attn(q rows x, kv rows concat(mem, x)),   x <- LN1(x + a),   x <- LN2(x + FFN(x))
#   pre-norm:   n = LN1(concat(mem, x)) (memory rows included, current parameters), x <- x + attn(n[m:], n),
#               x <- x + FFN(LN2(x)), and a final norm after the last layer
# attn(q rows, kv rows), K = m + L keys, query i at position p_i = m + i, for key j <= p_i (else -inf):
#   score_h(i, j) = [(q_i + u_h) . k_j + (q_i + v_h) . r_(h, p_i - j)] / sqrt(D),   r_d = W_r R_d (no bias)
# with R_d[f] = sin(d / 10000^(2f / C)), R_d[C/2 + f] = cos(the same), f < C/2, d clamped to clamp_length when
# that is > 0; softmax over j, heads concatenated, then out_proj. No dropout. u, v: decoder/relative/{u,v}
# (shared) or decoder/layers/<l>/self_attn/relative_{u,v} (untie_relative); W_r: .../self_attn/r_proj/weight.
#
#   /usr/bin/python3 tools/make_xl_model_fixtures.py [--out PATH]   (default tests/fixtures/xl_model.safetensors)
#
# Two models, prefixes "post/" (post-norm, shared u / v, clamp_length 0) and "pre/" (pre-norm with the final
# norm, untie_relative, clamp_length 3); B = 2 streams, 3 segments of L = 5 rows, memory M = 4. Per prefix P:
#   metadata P + "config"          the model config JSON (model_config_from_json's fields, keys sorted)
#   P param/<name>                 F64, every parameter, in parameter_layout.cpp's order
#   P seg{s}/tokens, seg{s}/targets  I32 (B, L): stream[b][sL : sL + L] and stream[b][sL + 1 : sL + L + 1]
#   P expect/seg{s}/logits         F64 (B L, V), rows stream after stream (row b L + i)
#   P expect/seg{s}/memory/layer{l}  F64 (B, M, C), what layer l read as memory (s = 1, 2; none for s = 0)
#   P expect/loss                  F64 (1): the cross-entropy summed over the segments, streams and rows
#   P expect/grad/<name>           F64: d loss / d param (memory detached: the sum of the segments' gradients)
# Metadata also "format" = "heptapod-xl-model-fixture", "streams", "segment_length", "memory_length", "segments".
# The k_proj bias gradients are rounding noise (zero in exact arithmetic): compare them with an absolute floor.
# Self-checks: the file is re-read and compared; torch.autograd.gradcheck through the 3 segments; the model with
# M = 0 equals plain per-segment runs and, with any M, per-stream runs of make_xl_fixtures.relative_attention; the
# scores of one layer equal a scalar loop over the paper's terms; the segments with memory M (and with M = 10)
# equal ONE whole-text pass over each stream's 15 inputs (banded(), no recurrence) in which query i, at every
# layer, sees keys seg_start(i) - M <= j <= i at distance i - j (clamped as usual), and the band M = 10 (full
# causal) differs from M = 4. Output is deterministic (same bytes every run).

import argparse
import json
import math
import os
import sys

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import make_xl_fixtures as xl  # noqa: E402  (its C 16 and HEADS 2 are ours)
from make_parity_fixtures import REPO, check_round_trip, write_safetensors  # noqa: E402

torch.set_num_threads(1)  # deterministic reductions
D64 = torch.float64

V, C, HEADS, FF, LAYERS = 11, 16, 2, 32, 2
B, L, MEMORY, SEGMENTS = 2, 5, 4, 3
EPS = float(torch.tensor(1e-5, dtype=torch.float32))  # layer_norm_eps as the C++ config's float holds it
SCALE = math.sqrt(C)  # scale_embeddings (the default): embeddings times sqrt(d_model)
EMB = "decoder/embedding/weight"
BANDED_DEV = [0.0]  # the largest |banded - recurrence| logit deviation seen (printed)
MODELS = [("post/", dict(norm="post", untie=False, clamp=0, seed=1901)),
          ("pre/", dict(norm="pre", untie=True, clamp=3, seed=1902))]
assert C == xl.C and HEADS == xl.HEADS


def config_json(cfg):
    j = {"architecture": "decoder-only", "vocab_size": V, "d_model": C, "n_heads": HEADS, "d_ff": FF,
         "layers": LAYERS, "dropout": 0.0, "attention_dropout": 0.0, "activation_dropout": 0.0,
         "embedding_dropout": 0.0, "norm": cfg["norm"], "final_norm": False, "layer_norm_eps": 1e-5,
         "tie_embeddings": "target_output", "output_bias": False, "pad_id": 0, "bos_id": 1, "eos_id": 2,
         "relative_positions": True}
    if cfg["clamp"]:
        j["clamp_length"] = cfg["clamp"]
    if cfg["untie"]:
        j["untie_relative"] = True
    return json.dumps(j, sort_keys=True, separators=(",", ":"))


def param_specs(cfg):
    """(name, shape, kind) in parameter_layout.cpp's order for a decoder-only relative model."""
    specs = [(EMB, (V, C), "embed")]
    if not cfg["untie"]:
        specs += [("decoder/relative/u", (C,), "uv"), ("decoder/relative/v", (C,), "uv")]
    for l in range(LAYERS):
        p = "decoder/layers/%d/" % l
        for proj in ("q_proj", "k_proj", "v_proj", "out_proj"):
            specs += [(p + "self_attn/%s/weight" % proj, (C, C), "matrix"), (p + "self_attn/%s/bias" % proj, (C,), "bias")]
        specs.append((p + "self_attn/r_proj/weight", (C, C), "matrix"))
        if cfg["untie"]:
            specs += [(p + "self_attn/relative_u", (C,), "uv"), (p + "self_attn/relative_v", (C,), "uv")]
        specs += [(p + "self_attn_norm/weight", (C,), "gain"), (p + "self_attn_norm/bias", (C,), "bias"),
                  (p + "ffn/fc1/weight", (FF, C), "matrix"), (p + "ffn/fc1/bias", (FF,), "bias"),
                  (p + "ffn/fc2/weight", (C, FF), "matrix"), (p + "ffn/fc2/bias", (C,), "bias"),
                  (p + "ffn_norm/weight", (C,), "gain"), (p + "ffn_norm/bias", (C,), "bias")]
    if cfg["norm"] == "pre":
        specs += [("decoder/final_norm/weight", (C,), "gain"), ("decoder/final_norm/bias", (C,), "bias")]
    return specs


def make_params(specs, gen):
    P = {}
    for name, shape, kind in specs:
        z = torch.randn(shape, generator=gen, dtype=D64)
        P[name] = {"matrix": 0.3 * z, "embed": 0.3 * z, "uv": 0.3 * z, "bias": 0.1 * z, "gain": 1 + 0.1 * z}[kind]
    return P


def relative_uv(P, cfg, l):
    if cfg["untie"]:
        return P["decoder/layers/%d/self_attn/relative_u" % l], P["decoder/layers/%d/self_attn/relative_v" % l]
    return P["decoder/relative/u"], P["decoder/relative/v"]


def layer_norm(x, P, prefix):
    mean = x.mean(-1, keepdim=True)
    var = ((x - mean) ** 2).mean(-1, keepdim=True)
    return (x - mean) / torch.sqrt(var + EPS) * P[prefix + "/weight"] + P[prefix + "/bias"]


def distances(m, lq, k, clamp):
    """(lq, k) p_i - j, the visible mask, and the (clamped) distance each visible pair's encoding uses."""
    dist = (m + torch.arange(lq))[:, None] - torch.arange(k)[None, :]
    d = dist.clamp(min=0)
    return dist, dist >= 0, (d.clamp(max=clamp) if clamp > 0 else d)


def attention(P, cfg, l, xq, kv, record=None):
    """xq (B, lq, C) the query rows, kv (B, K, C) concat(mem, current) -> (B, lq, C)."""
    p, D = "decoder/layers/%d/self_attn/" % l, C // HEADS
    nb, lq, K = xq.shape[0], xq.shape[1], kv.shape[1]
    q = (xq @ P[p + "q_proj/weight"].T + P[p + "q_proj/bias"]).view(nb, lq, HEADS, D)
    k = (kv @ P[p + "k_proj/weight"].T + P[p + "k_proj/bias"]).view(nb, K, HEADS, D)
    val = (kv @ P[p + "v_proj/weight"].T + P[p + "v_proj/bias"]).view(nb, K, HEADS, D)
    u, v = relative_uv(P, cfg, l)
    _, visible, d = distances(K - lq, lq, K, cfg["clamp"])
    r = (xl.encoding(d.reshape(-1)) @ P[p + "r_proj/weight"].T).view(lq, K, HEADS, D)
    scores = (torch.einsum("bihd,bjhd->bhij", q + u.view(HEADS, D), k) +
              torch.einsum("bihd,ijhd->bhij", q + v.view(HEADS, D), r)) / math.sqrt(D)
    scores = scores.masked_fill(~visible, float("-inf"))
    if record is not None:
        record[l] = dict(q=q.detach(), k=k.detach(), scores=scores.detach())
    context = torch.einsum("bhij,bjhd->bihd", torch.softmax(scores, -1), val).reshape(nb, lq, C)
    return context @ P[p + "out_proj/weight"].T + P[p + "out_proj/bias"]


def xl_attention(P, cfg, l, xq, kv, record=None):
    """The same through make_xl_fixtures.relative_attention, one stream at a time."""
    p = "decoder/layers/%d/self_attn/" % l
    u, v = relative_uv(P, cfg, l)
    Q = {"w_r": P[p + "r_proj/weight"], "u": u, "v": v}
    for short, proj in (("q", "q_proj"), ("k", "k_proj"), ("v", "v_proj"), ("o", "out_proj")):
        Q["w" + short], Q["b" + short] = P[p + proj + "/weight"], P[p + proj + "/bias"]
    m = kv.shape[1] - xq.shape[1]
    return torch.stack([xl.relative_attention(Q, xq[b], kv[b, :m], cfg["clamp"]) for b in range(xq.shape[0])])


def ffn(P, p, x):
    return torch.relu(x @ P[p + "ffn/fc1/weight"].T + P[p + "ffn/fc1/bias"]) @ P[p + "ffn/fc2/weight"].T + \
        P[p + "ffn/fc2/bias"]


def segment(P, cfg, tokens, mems, attend=attention, record=None):
    """tokens (B, L), mems: per layer (B, m, C) -> logits (B L, V), each layer's input rows."""
    x = P[EMB][tokens] * SCALE  # relative positions: nothing added
    inputs = []
    for l in range(LAYERS):
        p = "decoder/layers/%d/" % l
        inputs.append(x)
        m, kv = mems[l].shape[1], torch.cat([mems[l], x], 1)
        if cfg["norm"] == "pre":
            n = layer_norm(kv, P, p + "self_attn_norm")
            x = x + attend(P, cfg, l, n[:, m:], n, record)
            x = x + ffn(P, p, layer_norm(x, P, p + "ffn_norm"))
        else:
            x = layer_norm(x + attend(P, cfg, l, x, kv, record), P, p + "self_attn_norm")
            x = layer_norm(x + ffn(P, p, x), P, p + "ffn_norm")
    if cfg["norm"] == "pre":
        x = layer_norm(x, P, "decoder/final_norm")
    return x.reshape(-1, C) @ P[EMB].T, inputs


def run(P, cfg, stream, memory, attend=attention, fixed_mems=None, record=None):
    """Every segment in turn -> [(logits, loss, the memories it read)]; fixed_mems: per segment, instead."""
    mems = [torch.zeros(B, 0, C, dtype=D64)] * LAYERS
    out = []
    for s in range(SEGMENTS):
        if fixed_mems is not None:
            mems = fixed_mems[s]
        tokens, targets = stream[:, s * L:s * L + L], stream[:, s * L + 1:s * L + L + 1]
        logits, inputs = segment(P, cfg, tokens, mems, attend, record if s == SEGMENTS - 1 else None)
        out.append((logits, F.cross_entropy(logits, targets.reshape(-1), reduction="sum"), mems))
        joined = [torch.cat([mm, x.detach()], 1) for mm, x in zip(mems, inputs)]
        mems = [t[:, max(0, t.shape[1] - memory):] for t in joined]
    return out


def banded(P, cfg, tokens, memory):
    """tokens (B, T): one pass over the whole text, no memory and no segments; query i sees the keys j with
    seg_start(i) - memory <= j <= i at distance i - j -> logits (B, T, V)."""
    T, D = tokens.shape[1], C // HEADS
    i, j = torch.arange(T)[:, None], torch.arange(T)[None, :]
    visible = (j <= i) & (j >= (i // L) * L - memory)
    d = (i - j).clamp(min=0)
    d = d.clamp(max=cfg["clamp"]) if cfg["clamp"] > 0 else d
    x = P[EMB][tokens] * SCALE
    for l in range(LAYERS):
        p = "decoder/layers/%d/" % l
        a = "decoder/layers/%d/self_attn/" % l
        n = layer_norm(x, P, p + "self_attn_norm") if cfg["norm"] == "pre" else x
        q, k, val = ((n @ P[a + w + "/weight"].T + P[a + w + "/bias"]).view(B, T, HEADS, D)
                     for w in ("q_proj", "k_proj", "v_proj"))
        r = (xl.encoding(d.reshape(-1)) @ P[a + "r_proj/weight"].T).view(T, T, HEADS, D)
        u, v = relative_uv(P, cfg, l)
        scores = (torch.einsum("bihd,bjhd->bhij", q + u.view(HEADS, D), k) +
                  torch.einsum("bihd,ijhd->bhij", q + v.view(HEADS, D), r)) / math.sqrt(D)
        context = torch.einsum("bhij,bjhd->bihd", torch.softmax(scores.masked_fill(~visible, float("-inf")), -1), val)
        att = context.reshape(B, T, C) @ P[a + "out_proj/weight"].T + P[a + "out_proj/bias"]
        if cfg["norm"] == "pre":
            x = x + att
            x = x + ffn(P, p, layer_norm(x, P, p + "ffn_norm"))
        else:
            x = layer_norm(x + att, P, p + "self_attn_norm")
            x = layer_norm(x + ffn(P, p, x), P, p + "ffn_norm")
    if cfg["norm"] == "pre":
        x = layer_norm(x, P, "decoder/final_norm")
    return x @ P[EMB].T


def scalar_scores(P, cfg, l, rec, b, h):
    """The scores of stream b, head h from the recorded q, k: a loop over the paper's terms, per pair."""
    D, q, k = C // HEADS, rec["q"][b, :, h].tolist(), rec["k"][b, :, h].tolist()
    u, v = [t[h * D:(h + 1) * D].tolist() for t in relative_uv(P, cfg, l)]
    wr = P["decoder/layers/%d/self_attn/r_proj/weight" % l][h * D:(h + 1) * D].tolist()
    lq, K = len(q), len(k)
    out = torch.full((lq, K), float("-inf"), dtype=D64)
    for i in range(lq):
        for j in range(K - lq + i + 1):
            dd = K - lq + i - j
            dd = min(dd, cfg["clamp"]) if cfg["clamp"] > 0 else dd
            enc = [math.sin(dd / 10000 ** (2 * f / C)) for f in range(C // 2)] + \
                  [math.cos(dd / 10000 ** (2 * f / C)) for f in range(C // 2)]
            r = [sum(wr[e][c] * enc[c] for c in range(C)) for e in range(D)]
            terms = sum(q[i][e] * k[j][e] + q[i][e] * r[e] + u[e] * k[j][e] + v[e] * r[e] for e in range(D))
            out[i, j] = terms / math.sqrt(D)
    return out


def make_model(prefix, cfg):
    gen = torch.Generator().manual_seed(cfg["seed"])
    specs = param_specs(cfg)
    names = [n for n, _, _ in specs]
    P = make_params(specs, gen)
    stream = torch.randint(4, V, (B, SEGMENTS * L + 1), generator=gen)
    leaves = {n: P[n].clone().requires_grad_(True) for n in names}
    record = {}
    out = run(leaves, cfg, stream, MEMORY, record=record)
    loss = sum(o[1] for o in out)
    grads = dict(zip(names, torch.autograd.grad(loss, [leaves[n] for n in names])))

    # Self-checks. The loss: a plain log-softmax sum.
    manual = sum(-(torch.log_softmax(o[0], -1).gather(1, stream[:, s * L + 1:s * L + L + 1].reshape(-1, 1))).sum()
                 for s, o in enumerate(out))
    assert abs(manual.item() - loss.item()) < 1e-12, "loss"
    # The memories: the last M input rows of the previous segment (L >= M), layer 0's the scaled embeddings.
    assert out[0][2][0].shape[1] == 0 and all(o[2][l].shape[1] == MEMORY for o in out[1:] for l in range(LAYERS))
    assert torch.equal(out[1][2][0], P[EMB][stream[:, L - MEMORY:L]] * SCALE), "layer 0 memory"
    # Per-stream make_xl_fixtures.relative_attention gives the same logits (memory or not).
    for M in (MEMORY, 0):
        mine, theirs = run(P, cfg, stream, M), run(P, cfg, stream, M, attend=xl_attention)
        for a, t in zip(mine, theirs):
            assert torch.allclose(a[0], t[0], rtol=0, atol=1e-12), "xl_attention, M %d" % M
    # M = 0: each segment alone is a plain causal model of its own L rows, stream by stream.
    for s, o in enumerate(run(P, cfg, stream, 0)):
        for b in range(B):
            alone, _ = segment(P, cfg, stream[b:b + 1, s * L:s * L + L], [torch.zeros(1, 0, C, dtype=D64)] * LAYERS)
            assert torch.allclose(o[0][b * L:(b + 1) * L], alone, rtol=0, atol=1e-12), "M = 0"
    # The memory changes segments 1 and 2 and not segment 0.
    plain = run(P, cfg, stream, 0)
    assert torch.equal(plain[0][0], out[0][0].detach())
    assert all((plain[s][0] - out[s][0].detach()).abs().max() > 1e-3 for s in (1, 2)), "memory has no effect"
    # The recurrence is a band: one whole-text pass in which query i sees seg_start(i) - M <= j <= i gives the same
    # logits, with M = MEMORY and with M = 10 (which is full causal); and the two bands differ (segments 1, 2).
    text = stream[:, :SEGMENTS * L]
    full = SEGMENTS * L - L
    for M, segs in ((MEMORY, out), (full, run(P, cfg, stream, full))):
        whole = banded(P, cfg, text, M)
        for s, o in enumerate(segs):
            dev = (whole[:, s * L:s * L + L].reshape(-1, V) - o[0].detach()).abs().max().item()
            assert dev <= 1e-12, "banded whole-text pass, M %d, segment %d: %.3g" % (M, s, dev)
            BANDED_DEV[0] = max(BANDED_DEV[0], dev)
    wide, narrow = banded(P, cfg, text, full), banded(P, cfg, text, MEMORY)
    assert torch.equal(wide[:, :L], narrow[:, :L])
    assert all((wide[:, s * L:s * L + L] - narrow[:, s * L:s * L + L]).abs().max() > 1e-3 for s in (1, 2)), \
        "band M = %d does not differ from M = %d" % (full, MEMORY)
    # The scores of the last layer in the last segment (memory, clamp) against the paper's terms, per pair.
    for b in range(B):
        for h in range(HEADS):
            want = scalar_scores(P, cfg, LAYERS - 1, record[LAYERS - 1], b, h)
            got = record[LAYERS - 1]["scores"][b, h]
            assert torch.equal(torch.isinf(want), torch.isinf(got)), "mask"
            assert torch.allclose(want[~torch.isinf(want)], got[~torch.isinf(got)], rtol=0, atol=1e-12), "scores"
    # Gradients: the segments with their memories held fixed give the same gradient, and it passes gradcheck
    # (central differences) for a few parameters, the embedding (read again through layer 0's memory) among them.
    fixed = [[mm.detach() for mm in o[2]] for o in out]
    u_name, v_name = ("decoder/layers/1/self_attn/relative_u", "decoder/layers/1/self_attn/relative_v") \
        if cfg["untie"] else ("decoder/relative/u", "decoder/relative/v")
    some = [EMB, u_name, v_name, "decoder/layers/0/self_attn/r_proj/weight", "decoder/layers/1/self_attn_norm/weight",
            "decoder/layers/0/self_attn/q_proj/weight"]

    def total(*ps):
        return sum(o[1] for o in run(dict(P, **dict(zip(some, ps))), cfg, stream, MEMORY, fixed_mems=fixed))
    inputs = tuple(P[n].clone().requires_grad_(True) for n in some)
    for n, g in zip(some, torch.autograd.grad(total(*inputs), inputs)):
        assert torch.allclose(g, grads[n], rtol=0, atol=1e-12), "fixed memories: " + n
    assert torch.autograd.gradcheck(total, inputs, eps=1e-6, atol=1e-7), "gradcheck"

    tensors = [(prefix + "param/" + n, P[n]) for n in names]
    for s in range(SEGMENTS):
        tensors += [(prefix + "seg%d/tokens" % s, stream[:, s * L:s * L + L].to(torch.int32)),
                    (prefix + "seg%d/targets" % s, stream[:, s * L + 1:s * L + L + 1].to(torch.int32))]
    for s, o in enumerate(out):
        tensors.append((prefix + "expect/seg%d/logits" % s, o[0].detach()))
    for s, o in enumerate(out[1:], 1):
        tensors += [(prefix + "expect/seg%d/memory/layer%d" % (s, l), o[2][l]) for l in range(LAYERS)]
    tensors.append((prefix + "expect/loss", loss.detach().reshape(1)))
    tensors += [(prefix + "expect/grad/" + n, grads[n]) for n in names]
    logits = torch.cat([o[0].detach() for o in out])
    top = torch.softmax(logits, -1).max(-1).values
    summary = "%s loss %.6f (%.4f a row), |logits| max %.3f, mean %.3f, top probability %.2f..%.2f, |grad| max %.3g" % (
        prefix, loss.item(), loss.item() / (SEGMENTS * B * L), logits.abs().max().item(), logits.abs().mean().item(),
        top.min().item(), top.max().item(), max(g.abs().max().item() for g in grads.values()))
    return tensors, summary


def main():
    ap = argparse.ArgumentParser(description="Writes the Transformer-XL language-model fixture.")
    ap.add_argument("--out", default=os.path.join(REPO, "tests", "fixtures", "xl_model.safetensors"))
    args = ap.parse_args()
    meta = {"format": "heptapod-xl-model-fixture", "streams": str(B), "segment_length": str(L),
            "memory_length": str(MEMORY), "segments": str(SEGMENTS)}
    tensors, summaries = [], []
    for prefix, cfg in MODELS:
        t, line = make_model(prefix, cfg)
        tensors += t
        summaries.append(line)
        meta[prefix + "config"] = config_json(cfg)
    for name, t in tensors:
        assert not (t.is_floating_point() and not torch.isfinite(t).all()), name
    write_safetensors(args.out, tensors, meta)
    check_round_trip(args.out, tensors, meta)
    print("%s: %d bytes, %d tensors" % (os.path.relpath(args.out), os.path.getsize(args.out), len(tensors)))
    for line in summaries:
        print("  " + line)
    print("  banded whole-text pass vs the segments with memory: max |logit deviation| %.3g" % BANDED_DEV[0])


if __name__ == "__main__":
    main()
