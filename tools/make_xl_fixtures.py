#!/usr/bin/python3
# make_xl_fixtures.py -- an independent PyTorch reference of Transformer-XL's relative attention, for the layer-level
# parity test tests/test_relative_attention.cpp.
#
# One multi-head attention layer with Transformer-XL's relative positions (Dai et al. 2019, "Transformer-XL",
# section 3.3), written here from the paper's equations in float64, without Heptapod's code. C = d_model 16, H 2
# heads, D = C / H. With m = concat(mem, x) (M memory rows, then the L rows of the current segment; K = M + L keys):
#
#   q = x Wq^T + bq,   k = m Wk^T + bk,   v = m Wv^T + bv,   r_d = W_r R_d   (W_r (C, C), no bias)
#   score_h(i, j) = [(q_i + u_h) . k_j + (q_i + v_h) . r_(h, p_i - j)] / sqrt(D)   for j <= p_i = M + i, else -inf
#   context = softmax_j(score) v (heads concatenated),   y = context Wo^T + bo
#
# u, v (C) are the heads' global content and position biases (head h's at [h D, (h + 1) D)), R_d the sinusoid of the
# distance d in [sin | cos] halves: R_d[f] = sin(d / 10000^(2f / C)), R_d[C/2 + f] = cos(the same), f < C/2, and the
# distance is clamped to clamp_length (6) when that is > 0. No dropout. The position term is computed here per
# (query, key) pair from its distance (no relative-shift trick), and the script checks it against a plain loop over
# the paper's four terms (a) + (b) + (c) + (d).
#
# Three consecutive segments of one stream, L = 5 rows each, memory length M = 4: segment 0 has no memory, segment
# s > 0 keeps as memory the last M rows of the layer INPUTS before it (Transformer-XL caches the previous segment's
# hidden states, i.e. what this layer read), detached: no gradient flows into the memory. Segments 1 and 2 reach
# distance 8, so the clamp is exercised; segment 0's longest distance is 4.
#
#   /usr/bin/python3 tools/make_xl_fixtures.py [--out PATH]     (default tests/fixtures/xl_attention.safetensors)
#
# Only torch and the standard library are used. Output is deterministic (same bytes on every run).
#
# Fixture contents (metadata format "heptapod-xl-fixture", heads "2", clamp_length "6"), all F64 but mem_len:
#   param/{wq,bq,wk,bk,wv,bv,wo,bo}   the projections, weights (out, in) = (C, C), biases (C)
#   param/w_r (C, C), param/u (C), param/v (C)
#   per segment s = 0, 1, 2:
#   seg{s}/x          (L, C)   the segment's rows: the queries, and the last L keys / values
#   seg{s}/kv         (K_s, C) concat(mem, x): the keys' and values' input rows (K_0 = 5, K_1 = K_2 = 9)
#   seg{s}/mem_len    I32 (1)  M_s, the memory rows at the top of kv (0, 4, 4)
#   seg{s}/r          (L, C)   a fixed random projection: loss_s = sum(y_s * r_s)
#   expect/seg{s}/y   (L, C)
#   expect/seg{s}/grad/x       d loss_s / d x_s, through the queries and through x_s's rows of kv (not the memory)
#   expect/seg{s}/grad/<name>  d loss_s / d param/<name> for each parameter (name without the param/ prefix)
# Self-checks: the file is re-read and compared tensor by tensor; y equals a scalar loop over the paper's terms; the
# gradients pass torch.autograd.gradcheck (central differences) for every segment; the clamp changes segments 1 and
# 2 and not segment 0; the memory is the previous inputs' last M rows.
# Note: expect/seg{s}/grad/bk is zero in exact arithmetic ((q_i + u) . bk is the same for every key of a query, and
# the softmax ignores it), so it holds rounding noise (~1e-16): compare it with an absolute floor.

import argparse
import math
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from make_parity_fixtures import REPO, check_round_trip, write_safetensors  # noqa: E402

torch.set_num_threads(1)  # deterministic reductions
D64 = torch.float64

C, HEADS = 16, 2
SEGMENT, MEMORY, SEGMENTS = 5, 4, 3  # L, M and the segments of the stream
CLAMP = 6
SEED = 2019
PARAMS = [("wq", (C, C)), ("bq", (C,)), ("wk", (C, C)), ("bk", (C,)), ("wv", (C, C)), ("bv", (C,)),
          ("wo", (C, C)), ("bo", (C,)), ("w_r", (C, C)), ("u", (C,)), ("v", (C,))]


def encoding(d):
    """d (n) integer distances -> (n, C): the [sin | cos] sinusoid of each."""
    f = torch.arange(C // 2, dtype=D64)
    angle = d.to(D64)[:, None] / torch.pow(torch.tensor(10000.0, dtype=D64), 2 * f / C)[None, :]
    return torch.cat([torch.sin(angle), torch.cos(angle)], -1)


def relative_attention(P, x, mem, clamp):
    """x (L, C) the segment, mem (M, C) the memory -> y (L, C)."""
    L, M = x.shape[0], mem.shape[0]
    m = torch.cat([mem, x], 0)
    K, D = m.shape[0], C // HEADS
    q = x @ P["wq"].T + P["bq"]
    k = m @ P["wk"].T + P["bk"]
    val = m @ P["wv"].T + P["bv"]
    dist = (M + torch.arange(L))[:, None] - torch.arange(K)[None, :]  # (L, K): p_i - j
    visible = dist >= 0
    d = dist.clamp(min=0)
    if clamp > 0:
        d = d.clamp(max=clamp)
    r = (encoding(d.reshape(-1)) @ P["w_r"].T).view(L, K, HEADS, D)  # r of each pair's distance
    qh, kh, vh = q.view(L, HEADS, D), k.view(K, HEADS, D), val.view(K, HEADS, D)
    content = torch.einsum("ihd,jhd->hij", qh + P["u"].view(HEADS, D), kh)
    position = torch.einsum("ihd,ijhd->hij", qh + P["v"].view(HEADS, D), r)
    scores = ((content + position) / math.sqrt(D)).masked_fill(~visible[None], float("-inf"))
    probs = torch.softmax(scores, -1)
    context = torch.einsum("hij,jhd->ihd", probs, vh).reshape(L, C)
    return context @ P["wo"].T + P["bo"]


def loop_reference(P, x, mem, clamp):
    """The same layer as scalar loops over the paper's terms: A_ij = (a) q_i.k_j + (b) q_i.r + (c) u.k_j + (d) v.r."""
    L, M = x.shape[0], mem.shape[0]
    m = torch.cat([mem, x], 0)
    K, D = m.shape[0], C // HEADS
    q = (x @ P["wq"].T + P["bq"]).tolist()
    k = (m @ P["wk"].T + P["bk"]).tolist()
    val = (m @ P["wv"].T + P["bv"]).tolist()
    u, pv, wr = P["u"].tolist(), P["v"].tolist(), P["w_r"].tolist()
    context = [[0.0] * C for _ in range(L)]
    for i in range(L):
        p = M + i
        for h in range(HEADS):
            cols = range(h * D, (h + 1) * D)
            scores = []
            for j in range(p + 1):
                dd = min(p - j, clamp) if clamp > 0 else p - j
                enc = [math.sin(dd / 10000 ** (2 * f / C)) for f in range(C // 2)] + \
                      [math.cos(dd / 10000 ** (2 * f / C)) for f in range(C // 2)]
                r = {o: sum(wr[o][c] * enc[c] for c in range(C)) for o in cols}
                a = sum(q[i][o] * k[j][o] for o in cols)
                b = sum(q[i][o] * r[o] for o in cols)
                c_ = sum(u[o] * k[j][o] for o in cols)
                d_ = sum(pv[o] * r[o] for o in cols)
                scores.append((a + b + c_ + d_) / math.sqrt(D))
            top = max(scores)
            e = [math.exp(s - top) for s in scores]
            total = sum(e)
            for j, w in enumerate(e):
                for o in cols:
                    context[i][o] += w / total * val[j][o]
    return torch.tensor(context, dtype=D64) @ P["wo"].T + P["bo"]


def make_fixture(path):
    gen = torch.Generator().manual_seed(SEED)
    P = {n: torch.rand(shape, generator=gen, dtype=D64) - 0.5 for n, shape in PARAMS}
    xs = [torch.randn(SEGMENT, C, generator=gen, dtype=D64) for _ in range(SEGMENTS)]
    rs = [torch.randn(SEGMENT, C, generator=gen, dtype=D64) for _ in range(SEGMENTS)]

    tensors = [("param/" + n, P[n]) for n, _ in PARAMS]
    summary = []
    for s in range(SEGMENTS):
        before = torch.cat([torch.zeros(0, C, dtype=D64)] + xs[:s], 0)
        mem = before[max(0, before.shape[0] - MEMORY):].detach()  # the previous inputs' last M rows
        assert mem.shape[0] == (0 if s == 0 else MEMORY)
        if s > 0:
            assert torch.equal(mem, xs[s - 1][SEGMENT - MEMORY:])
        x = xs[s].clone().requires_grad_(True)
        leaves = {n: P[n].clone().requires_grad_(True) for n, _ in PARAMS}
        y = relative_attention(leaves, x, mem, CLAMP)
        loss = (y * rs[s]).sum()
        grads = torch.autograd.grad(loss, [x] + [leaves[n] for n, _ in PARAMS])
        y = y.detach()

        # Self-checks: the scalar loop, finite differences, the clamp's reach.
        assert torch.allclose(y, loop_reference(P, xs[s], mem, CLAMP), rtol=0, atol=1e-12), "loop mismatch"
        names = [n for n, _ in PARAMS]

        def f(x_, *ps):
            return (relative_attention(dict(zip(names, ps)), x_, mem, CLAMP) * rs[s]).sum()
        assert torch.autograd.gradcheck(f, (x,) + tuple(leaves[n] for n in names), eps=1e-6, atol=1e-8)
        unclamped = relative_attention(P, xs[s], mem, 0)
        longest = mem.shape[0] + SEGMENT - 1
        assert (longest > CLAMP) == (not torch.allclose(unclamped, y, rtol=0, atol=1e-9)), "clamp reach"

        tensors += [("seg%d/x" % s, xs[s]), ("seg%d/kv" % s, torch.cat([mem, xs[s]], 0)),
                    ("seg%d/mem_len" % s, torch.tensor([mem.shape[0]], dtype=torch.int32)),
                    ("seg%d/r" % s, rs[s]), ("expect/seg%d/y" % s, y),
                    ("expect/seg%d/grad/x" % s, grads[0])]
        tensors += [("expect/seg%d/grad/%s" % (s, n), g) for n, g in zip(names, grads[1:])]
        summary.append("seg%d: mem %d, longest distance %d, loss %.6f, |grad bk| %.2g" % (
            s, mem.shape[0], longest, loss.item(), grads[1 + names.index("bk")].abs().max().item()))

    meta = {"format": "heptapod-xl-fixture", "heads": str(HEADS), "clamp_length": str(CLAMP)}
    for name, t in tensors:
        assert not (t.is_floating_point() and not torch.isfinite(t).all()), name
    write_safetensors(path, tensors, meta)
    check_round_trip(path, tensors, meta)
    return summary


def main():
    ap = argparse.ArgumentParser(description="Writes the Transformer-XL relative-attention fixture.")
    ap.add_argument("--out", default=os.path.join(REPO, "tests", "fixtures", "xl_attention.safetensors"))
    args = ap.parse_args()
    summary = make_fixture(args.out)
    print("%s: %d bytes" % (os.path.relpath(args.out), os.path.getsize(args.out)))
    for line in summary:
        print("  " + line)


if __name__ == "__main__":
    main()
