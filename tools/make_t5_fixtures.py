#!/usr/bin/python3
# make_t5_fixtures.py -- tiny random T5 checkpoints under Hugging Face's exact tensor names and config keys, with
# reference outputs from tools/t5_reference.py (an independent float64 implementation of the published math),
# for the tests of `heptapod convert DIR --from t5` (tests/test_import_t5.cpp).
#
#   /usr/bin/python3 tools/make_t5_fixtures.py [t5] [t5_v1_1] [mt5]
#
# Each directory is what a downloaded snapshot holds: config.json, model.safetensors, spiece.model (a
# SentencePiece unigram model trained here by spm_train with T5's special ids: <pad> 0, </s> 1, <unk> 2, no
# <s>) and tokenizer_config.json (extra_ids 100: the sentinels <extra_id_99> .. <extra_id_0> after the pieces),
# and reference.safetensors:
#
#   tests/fixtures/t5/       T5 v1.0: feed_forward_proj "relu", tie_word_embeddings (the decoder output times
#                            d_model^-0.5 before shared.weight; lm_head.weight stored as its copy, and
#                            encoder/decoder.embed_tokens.weight too), 8 buckets, max_distance 20 (so short
#                            sentences reach the log-spaced buckets), d_kv * num_heads == d_model
#   tests/fixtures/t5_v1_1/  T5 v1.1 / flan-T5: "gated-gelu", untied lm_head.weight, 16 buckets, max_distance 24,
#                            d_kv 16 with 4 heads and d_model 32 (heads wider than d_model / num_heads), 3 decoder
#                            layers over 2 encoder layers; no embed_tokens copies in the file
#   tests/fixtures/mt5/      mT5: model_type "mt5" (MT5ForConditionalGeneration), T5 v1.1's architecture
#                            ("gated-gelu", untied lm_head.weight), 16 buckets, max_distance 32, and its own
#                            spiece.model (140 pieces of both languages' plain text); the output rows of the
#                            ids no text reaches (sentinels, unused rows) scaled down, so outputs are pieces
#
# The </s> row of the output layer is scaled (eos_boost) so that some outputs end.
# The vocabulary (config vocab_size) is the spm pieces + 100 sentinels + 8 rows no token has (as t5-small's
# 32128 rows over its tokenizer's 32100).
#
# reference.safetensors (metadata format "heptapod-t5-fixture", family, and JSON strings), float64 math on the
# stored float32 weights:
#   batch/src I32 (B, S)       sources ending with </s>, right-padded with <pad>; batch/src_len I32 (B)
#   batch/tgt_in I32 (B, T)    decoder inputs from <pad> (the start token); batch/tgt_len I32 (B)
#   batch/tgt_out I32 (B, T)   the next tokens (the targets then </s>), -1 past tgt_len
#   expect/encoder F32 (B, S, C)  the encoder's output (after its final norm)
#   expect/logits F32 (B, T, V)
#   expect/greedy, expect/beam I32 (B, L) padded with -1, with _len: Heptapod's search (beam 1 and 4, length
#                              penalty 0.6, <pad> never emitted, at most the source's length + metadata
#                              max_extra_length tokens) by full recomputation (make_import_fixtures.search);
#                              every decision clears MARGIN
#   expect/loss F64 (1)        label-smoothed (metadata label_smoothing) cross-entropy of tgt_out, mean over targets
#   grad/<HF name> F64         d loss / d tensor of every weight (shared.weight sums its uses)
#   expect/buckets I32 (2, 2 * 300 - 1)  relative_bucket(r) for r = -299 .. 299 with T5's defaults (32 buckets,
#                              max_distance 128), bidirectional and causal, computed as torch computes it
#   metadata: greedy_text (the greedy outputs decoded), texts (varied text), text_ids (their ids as T5Tokenizer
#             lays them out: spm ids, <extra_id_N> = V_spm + 99 - N, then </s>; by a stdlib reading of the layout)
import json
import os
import subprocess
import sys
import tempfile

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import t5_reference as t5  # noqa: E402
from make_import_fixtures import padded, search, spm_pieces  # noqa: E402
from make_parity_fixtures import REPO, check_round_trip, write_safetensors  # noqa: E402

D = torch.float64
EXTRA_IDS = 100
UNUSED_ROWS = 8
LABEL_SMOOTHING = 0.1
MARGIN = 0.01  # log-probability gap every search decision clears: a thousand times the logits' 1e-5 tolerance
EXTRA_LENGTH = 10  # outputs stop at the source's length (with </s>) + this many tokens (the search's max_extra_length)

FAMILIES = {
    "t5": {"feed_forward_proj": "relu", "tie_word_embeddings": True, "d_model": 32, "d_kv": 8, "num_heads": 4,
           "d_ff": 48, "num_layers": 2, "num_decoder_layers": 2, "relative_attention_num_buckets": 8,
           "relative_attention_max_distance": 20, "architectures": ["T5ForConditionalGeneration"],
           "model_type": "t5", "eos_boost": 2.0},
    "t5_v1_1": {"feed_forward_proj": "gated-gelu", "tie_word_embeddings": False, "d_model": 32, "d_kv": 16,
                "num_heads": 4, "d_ff": 40, "num_layers": 2, "num_decoder_layers": 3,
                "relative_attention_num_buckets": 16, "relative_attention_max_distance": 24,
                "architectures": ["T5ForConditionalGeneration"], "model_type": "t5", "eos_boost": 1.5},
    "mt5": {"feed_forward_proj": "gated-gelu", "tie_word_embeddings": False, "d_model": 32, "d_kv": 8,
            "num_heads": 4, "d_ff": 44, "num_layers": 2, "num_decoder_layers": 2,
            "relative_attention_num_buckets": 16, "relative_attention_max_distance": 32,
            "architectures": ["MT5ForConditionalGeneration"], "model_type": "mt5", "eos_boost": 1.5,
            "quiet_rows": True},
}


CORPUS_PREFIX = "translate English to Spanish: "
# Each family's spiece.model: T5's with the task prefix in its corpus (120 pieces); mT5's its own, of both
# languages' plain text (140 pieces).
SPM = {"t5": (CORPUS_PREFIX, 120), "t5_v1_1": (CORPUS_PREFIX, 120), "mt5": ("", 140)}
TEXTS = ["translate English to Spanish: twenty thousand", "one hundred <extra_id_0> three",
         "<extra_id_5> seven<extra_id_99>", "veinte mil y tres", "translate English to Spanish: ninety-nine!"]


def train_spm(out, prefix, size):
    """spiece.model: a unigram model of `size` pieces of the numbers corpus (the English lines after `prefix`),
    T5's special ids."""
    path = os.path.join(out, "spiece.model")
    if os.path.exists(path):
        return path
    data = os.path.join(REPO, "tests", "data")
    with tempfile.TemporaryDirectory() as tmp:
        text = os.path.join(tmp, "corpus.txt")
        with open(text, "w", encoding="utf-8") as f:
            for line in open(os.path.join(data, "numbers.train.en"), encoding="utf-8"):
                f.write(prefix + line)
            for line in open(os.path.join(data, "numbers.train.es"), encoding="utf-8"):
                f.write(line)
        subprocess.run(["spm_train", "--input=" + text, "--model_prefix=" + os.path.join(tmp, "spiece"),
                        "--vocab_size=%d" % size, "--model_type=unigram", "--pad_id=0", "--eos_id=1", "--unk_id=2",
                        "--bos_id=-1", "--character_coverage=1.0", "--num_threads=1", "--minloglevel=2"],
                       check=True)
        os.replace(os.path.join(tmp, "spiece.model"), path)
    return path


def state_shapes(c, family):
    C, F, H, Dk = c["d_model"], c["d_ff"], c["num_heads"], c["d_kv"]
    inner = H * Dk
    gated = family["feed_forward_proj"].startswith("gated-")
    ffn = [("wi_0", (F, C)), ("wi_1", (F, C))] if gated else [("wi", (F, C))]
    ffn += [("wo", (C, F))]

    def attention(prefix):
        return [(prefix + ".q.weight", (inner, C)), (prefix + ".k.weight", (inner, C)),
                (prefix + ".v.weight", (inner, C)), (prefix + ".o.weight", (C, inner))]

    shapes = [("shared.weight", (c["vocab_size"], C))]
    for stack, layers in (("encoder", c["num_layers"]), ("decoder", c["num_decoder_layers"])):
        for i in range(layers):
            n = "%s.block.%d.layer." % (stack, i)
            shapes += attention(n + "0.SelfAttention")
            if i == 0:
                shapes += [(n + "0.SelfAttention.relative_attention_bias.weight", (c["relative_attention_num_buckets"], H))]
            shapes += [(n + "0.layer_norm.weight", (C,))]
            last = 1
            if stack == "decoder":
                shapes += attention(n + "1.EncDecAttention") + [(n + "1.layer_norm.weight", (C,))]
                last = 2
            shapes += [("%s%d.DenseReluDense.%s.weight" % (n, last, w), s) for w, s in ffn]
            shapes += [("%s%d.layer_norm.weight" % (n, last), (C,))]
        shapes += [(stack + ".final_layer_norm.weight", (C,))]
    if not family["tie_word_embeddings"]:
        shapes += [("lm_head.weight", (c["vocab_size"], C))]
    return shapes


def random_params(shapes, gen, eos, boost, quiet=()):
    """quiet: ids whose output rows are scaled down (as a trained model leaves the rows no text reaches), so that
    the outputs are ordinary pieces."""
    P = {}
    for name, shape in shapes:
        if name.endswith("layer_norm.weight"):
            t = 1 + 0.2 * torch.randn(shape, generator=gen)
        elif name.endswith("relative_attention_bias.weight"):
            t = 0.5 * torch.randn(shape, generator=gen)
        elif name == "shared.weight":
            t = torch.randn(shape, generator=gen)
        elif name == "lm_head.weight":  # logits as spread as a tied output's, so that decisions are clear
            t = 0.5 * torch.randn(shape, generator=gen)
        else:
            t = torch.randn(shape, generator=gen) / shape[-1] ** 0.5
        P[name] = t.to(torch.float32)
    # Random models loop on one token; a larger </s> row lets some outputs end.
    head = "lm_head.weight" if "lm_head.weight" in P else "shared.weight"
    P[head][eos] *= boost
    for v in quiet:
        P[head][v] *= 0.1
    return P


def model_of(P32, c):
    P = {k: v.to(D) for k, v in P32.items()}
    if c["tied"]:
        P["lm_head.weight"] = P["shared.weight"]
    return t5.T5(P, c)


def smoothed_loss(model, src, src_len, tgt_in, tgt_out, tgt_len, eps):
    logp = torch.log_softmax(model.forward(src.long(), src_len, tgt_in.long(), tgt_len), -1)
    total, count = 0, 0
    for b, n in enumerate(tgt_len):
        y = tgt_out[b, :n].long()
        lp = logp[b, :n]
        nll = -lp.gather(-1, y[:, None])[:, 0]
        total = total + ((1 - eps) * nll - eps * lp.mean(-1)).sum()
        count += n
    return total / count


def t5_layout_ids(text, pieces_of, vocab):
    """T5Tokenizer's ids of `text`: the sentinels split out whole, each piece of the rest by its spm id (spm's own
    segmentation given by pieces_of), <extra_id_N> = len(spm) + EXTRA_IDS - 1 - N, then </s>."""
    ids, rest = [], text
    n_spm = len(vocab)
    while rest:
        at = rest.find("<extra_id_")
        end = rest.find(">", at) if at >= 0 else -1
        head = rest if at < 0 or end < 0 else rest[:at]
        if head.strip():
            ids += [vocab.index(p) if p in vocab else 2 for p in pieces_of(head)]
        if at < 0 or end < 0:
            break
        ids.append(n_spm + EXTRA_IDS - 1 - int(rest[at + len("<extra_id_"):end]))
        rest = rest[end + 1:]
    return ids + [1]


def spm_encode(spm_path):
    """spm's segmentation of a text, through the spm_encode tool (the pieces; ids come from the layout)."""
    def pieces_of(text):
        r = subprocess.run(["spm_encode", "--model=" + spm_path, "--output_format=piece"], input=text.strip() + "\n",
                           capture_output=True, text=True, check=True)
        return r.stdout.split()
    return pieces_of


def make(name, out):
    family = FAMILIES[name]
    os.makedirs(out, exist_ok=True)
    spm = train_spm(out, *SPM[name])
    pieces = spm_pieces(spm)
    vocab = [p for p, _ in pieces]
    assert vocab[:3] == ["<pad>", "</s>", "<unk>"], vocab[:3]
    V = len(vocab) + EXTRA_IDS + UNUSED_ROWS
    config = dict({k: v for k, v in family.items() if k not in ("eos_boost", "quiet_rows")}, vocab_size=V, dropout_rate=0.1, layer_norm_epsilon=1e-6,
                  initializer_factor=1.0, is_encoder_decoder=True, pad_token_id=0, eos_token_id=1,
                  decoder_start_token_id=0, use_cache=True, transformers_version="4.40.0", n_positions=512)
    c = t5.parse_config(config)
    shapes = state_shapes(config, family)
    ordinary_ids = [i for i, (p, kind) in enumerate(pieces) if kind == 1]
    gen = torch.Generator().manual_seed(0)
    draw = lambda n: [ordinary_ids[int(torch.randint(len(ordinary_ids), (1,), generator=gen))] for _ in range(n)]  # noqa
    sources = [draw(n) + [1] for n in (6, 11, 2)]
    targets = [draw(n) for n in (4, 1, 9)]
    for seed in range(1, 400):
        quiet = [v for v in range(V) if v not in ordinary_ids and v != 1] if family.get("quiet_rows") else ()
        P32 = random_params(shapes, torch.Generator().manual_seed(seed), 1, family["eos_boost"], quiet)
        model = model_of(P32, c)
        margins = []
        greedy = [search(model, s, 1, 0, 1, {0}, margins, extra=EXTRA_LENGTH) for s in sources]
        beams = [search(model, s, 4, 0, 1, {0}, margins, extra=EXTRA_LENGTH) for s in sources]
        ok = min(margins) >= MARGIN and all(v in ordinary_ids for g in greedy for v in g)
        # Outputs worth comparing: one that </s> ends before the length limit.
        ok = ok and any(1 <= len(g) < len(s) + EXTRA_LENGTH for g, s in zip(greedy + beams, sources + sources))
        ok = ok and sum(len(g) for g in greedy) >= 6
        if os.environ.get("FIXTURE_DEBUG"):
            print(seed, round(min(margins), 3), [len(g) for g in greedy], [len(g) for g in beams], ok)
        if ok:
            break
    else:
        raise SystemExit(name + ": no seed gives clear margins")
    print("%s: seed %d, smallest margin %.3f, greedy lengths %s, beam lengths %s" % (
        name, seed, min(margins), [len(g) for g in greedy], [len(g) for g in beams]))

    src = padded(sources, 0)
    src_len = [len(s) for s in sources]
    tgt_in = padded([[0] + t for t in targets], 0)
    tgt_out = padded([t + [1] for t in targets], -1)
    tgt_len = [len(t) + 1 for t in targets]
    logits = model.forward(src.long(), src_len, tgt_in.long(), tgt_len)
    encoder = model.encode(src.long(), src_len)
    for b in range(len(sources)):  # padding changes nothing
        alone = model.forward(src[b:b + 1, :src_len[b]].long(), [src_len[b]], tgt_in[b:b + 1, :tgt_len[b]].long(),
                              [tgt_len[b]])
        assert torch.allclose(alone[0], logits[b, :tgt_len[b]], atol=1e-10), "batching changed the logits"

    # Gradients of every stored tensor (the tied output reads shared.weight: its gradient sums both uses).
    leaves = {k: v.to(D).requires_grad_() for k, v in P32.items()}
    graded = dict(leaves)
    if c["tied"]:
        graded["lm_head.weight"] = leaves["shared.weight"]
    loss = smoothed_loss(t5.T5(graded, c), src, src_len, tgt_in, tgt_out, tgt_len, LABEL_SMOOTHING)
    loss.backward()

    buckets = torch.tensor([[t5.relative_bucket(r, bidirectional, 32, 128) for r in range(-299, 300)]
                            for bidirectional in (True, False)], dtype=torch.int32)
    pieces_of = spm_encode(spm)
    text_ids = [t5_layout_ids(t, pieces_of, vocab) for t in TEXTS]

    def decode(ids):
        return "".join(vocab[i] for i in ids).replace("\u2581", " ").strip()

    ref = [("batch/src", src), ("batch/src_len", torch.tensor(src_len, dtype=torch.int32)),
           ("batch/tgt_in", tgt_in), ("batch/tgt_len", torch.tensor(tgt_len, dtype=torch.int32)),
           ("batch/tgt_out", tgt_out),
           ("expect/encoder", encoder.to(torch.float32)), ("expect/logits", logits.to(torch.float32)),
           ("expect/greedy", padded(greedy, -1)),
           ("expect/greedy_len", torch.tensor([len(g) for g in greedy], dtype=torch.int32)),
           ("expect/beam", padded(beams, -1)),
           ("expect/beam_len", torch.tensor([len(g) for g in beams], dtype=torch.int32)),
           ("expect/loss", loss.detach().reshape(1)), ("expect/buckets", buckets)]
    ref += [("grad/" + n, leaves[n].grad) for n, _ in shapes]
    meta = {"format": "heptapod-t5-fixture", "family": name, "greedy_text": json.dumps([decode(g) for g in greedy]),
            "label_smoothing": repr(LABEL_SMOOTHING), "max_extra_length": str(EXTRA_LENGTH), "texts": json.dumps(TEXTS), "text_ids": json.dumps(text_ids)}

    state = [(n, P32[n]) for n, _ in shapes]
    if family["tie_word_embeddings"]:  # T5ForConditionalGeneration's state dict holds the tied copies
        state += [("encoder.embed_tokens.weight", P32["shared.weight"]),
                  ("decoder.embed_tokens.weight", P32["shared.weight"]), ("lm_head.weight", P32["shared.weight"])]
    write_safetensors(os.path.join(out, "model.safetensors"), state, {"format": "pt"})
    check_round_trip(os.path.join(out, "model.safetensors"), state, {"format": "pt"})
    with open(os.path.join(out, "config.json"), "w") as f:
        json.dump(config, f, indent=2, sort_keys=True)
        f.write("\n")
    with open(os.path.join(out, "tokenizer_config.json"), "w") as f:
        json.dump({"eos_token": "</s>", "extra_ids": EXTRA_IDS, "model_max_length": 512, "pad_token": "<pad>",
                   "tokenizer_class": "T5Tokenizer", "unk_token": "<unk>"}, f, indent=2, sort_keys=True)
        f.write("\n")
    write_safetensors(os.path.join(out, "reference.safetensors"), ref, meta)
    check_round_trip(os.path.join(out, "reference.safetensors"), ref, meta)


def main():
    names = sys.argv[1:] or list(FAMILIES)
    for name in names:
        make(name, os.path.join(REPO, "tests", "fixtures", name))


if __name__ == "__main__":
    main()
