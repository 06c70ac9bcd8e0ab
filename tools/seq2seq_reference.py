#!/usr/bin/python3
# seq2seq_reference.py -- independent float64 PyTorch references of the multilingual encoder-decoder
# translators that `heptapod convert --from m2m100 | mbart` takes, written from their published descriptions
# (Fan et al. 2020, "Beyond English-Centric Multilingual Machine Translation" and NLLB Team 2022, both
# fairseq transformers; Liu et al. 2020 / Tang et al. 2020 for mBART and mBART-50) and Hugging Face's
# documented checkpoint layout (M2M100ForConditionalGeneration, MBartForConditionalGeneration), without
# Heptapod's code or names; and each family's tokenizer id layout in plain Python over the SentencePiece
# library's segmentation. tools/make_seq2seq_fixtures.py draws tiny random checkpoints and stores what these
# compute.
#
# The model (both families): pre-norm layers, x + f(LN(x)), each stack ending with a layer norm
# ("model.encoder.layer_norm", "model.decoder.layer_norm"); attention with q scaled by head_dim^-0.5 and biases
# on every projection; one embedding matrix ("model.shared.weight") for both stacks and the output layer.
# - M2M100 / NLLB: tokens x sqrt(d_model) (scale_embedding) plus fairseq's sinusoids: freq_k =
#   exp(-k ln(10000) / (d/2 - 1)), row p = [sin(p freq) | cos(p freq)], row padding_idx zero, and a token's
#   position padding_idx + (the number of non-pad tokens up to and including it), pads at padding_idx; ReLU.
# - mBART: tokens (x sqrt(d_model) when scale_embedding) plus a learned table read at row t + 2 for the t-th
#   token (not padding-aware), then a layer norm over that sum ("layernorm_embedding"); exact GELU; the output
#   adds "final_logits_bias".
import json
import math
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from make_import_fixtures import activation, attention, layer_norm, linear  # noqa: E402

D = torch.float64


# layer_norm (eps 1e-5), linear, attention (q x head_dim^-0.5, a key-length mask, causal or not) and activation
# (relu, exact gelu) as tools/make_import_fixtures.py writes them for the BART family.
def fairseq_sinusoids(rows, C, padding_idx, dtype=D):
    """The table of rows positions: [sin | cos] halves, freq_k = exp(-k ln 10000 / (C/2 - 1)), padding row zero."""
    half = C // 2
    freq = torch.exp(torch.arange(half, dtype=dtype) * -(math.log(10000.0) / (half - 1)))
    angle = torch.arange(rows, dtype=dtype)[:, None] * freq[None, :]
    table = torch.cat([torch.sin(angle), torch.cos(angle)], 1)
    table[padding_idx] = 0
    return table


def fairseq_positions(ids, padding_idx):
    """padding_idx + the running count of non-pad tokens; pads stay at padding_idx."""
    mask = (ids != padding_idx).long()
    return torch.cumsum(mask, 1) * mask + padding_idx


class Seq2Seq:
    """family "m2m100" or "mbart"; P: the checkpoint's tensors (float64) under Hugging Face's names; cfg: the
    config.json keys read here (d_model, encoder_attention_heads, encoder_layers, decoder_layers,
    activation_function, scale_embedding, pad_token_id) and vocab_tgt (for the search)."""

    def __init__(self, family, P, cfg):
        self.family, self.P, self.cfg = family, P, cfg

    def embed(self, ids, stack):
        P, C = self.P, self.cfg["d_model"]
        scale = math.sqrt(C) if self.cfg["scale_embedding"] else 1.0
        x = P["model.shared.weight"][ids] * scale
        pad = self.cfg["pad_token_id"]
        if self.family == "m2m100":
            positions = fairseq_positions(ids, pad)
            return x + fairseq_sinusoids(int(positions.max()) + 1, C, pad, x.dtype)[positions]
        table = P["model.%s.embed_positions.weight" % stack]
        x = x + table[torch.arange(ids.shape[1]) + 2][None]
        return layer_norm(x, P, "model.%s.layernorm_embedding" % stack)

    def ffn(self, x, n):
        act = self.cfg["activation_function"]
        return linear(activation(act, linear(x, self.P, n + ".fc1")), self.P, n + ".fc2")

    def encode(self, src, src_len):
        P, H = self.P, self.cfg["encoder_attention_heads"]
        x = self.embed(src, "encoder")
        for i in range(self.cfg["encoder_layers"]):
            n = "model.encoder.layers.%d" % i
            x = x + self_attention(layer_norm(x, P, n + ".self_attn_layer_norm"), P, n, H, src_len, False)
            x = x + self.ffn(layer_norm(x, P, n + ".final_layer_norm"), n)
        return layer_norm(x, P, "model.encoder.layer_norm")

    def forward(self, src, src_len, tgt_in, tgt_len, memory=None):
        """Teacher-forced logits (B, T, V)."""
        P, H = self.P, self.cfg["encoder_attention_heads"]
        if memory is None:
            memory = self.encode(src, src_len)
        y = self.embed(tgt_in, "decoder")
        for i in range(self.cfg["decoder_layers"]):
            n = "model.decoder.layers.%d" % i
            y = y + self_attention(layer_norm(y, P, n + ".self_attn_layer_norm"), P, n, H, tgt_len, True)
            y = y + attention(layer_norm(y, P, n + ".encoder_attn_layer_norm"), memory, P, n + ".encoder_attn", H,
                              src_len, False)
            y = y + self.ffn(layer_norm(y, P, n + ".final_layer_norm"), n)
        y = layer_norm(y, P, "model.decoder.layer_norm")
        logits = y @ P["model.shared.weight"].T
        if self.family == "mbart":
            logits = logits + P["final_logits_bias"][0]
        return logits


def self_attention(x, P, layer, heads, length, causal):
    return attention(x, x, P, layer + ".self_attn", heads, length, causal)


def label_smoothed_loss(logits, tgt_out, tgt_len, eps):
    """(1 - eps) * (-log p_y) + eps * mean_j(-log p_j), averaged over the real target positions."""
    B, T, V = logits.shape
    logp = torch.log_softmax(logits, -1)
    nll = -logp.gather(-1, tgt_out[..., None]).squeeze(-1)
    per_position = (1 - eps) * nll + eps * (-logp.mean(-1))
    mask = (torch.arange(T)[None, :] < torch.tensor(tgt_len)[:, None]).to(D)
    return (per_position * mask).sum() / mask.sum()

# ------------------------------------------------------------------------------------------------ tokenizers


class FairseqSpmLayout:
    """NLLB-200's and mBART-50's ids over sentencepiece.bpe.model: <s> 0, <pad> 1, </s> 2, <unk> 3; any other
    piece its SentencePiece id + 1 (the fairseq offset; SentencePiece's own 0 = <unk> -> 3); then the language
    codes in order (spm_size + 1 + i), then <mask>."""
    SPECIALS = {"<s>": 0, "<pad>": 1, "</s>": 2, "<unk>": 3}
    OFFSET = 1

    def __init__(self, sp, codes):
        self.sp, self.codes = sp, list(codes)
        self.size = sp.get_piece_size()
        self.code_ids = {c: self.size + self.OFFSET + i for i, c in enumerate(self.codes)}
        self.mask_id = self.size + self.OFFSET + len(self.codes)

    def piece_id(self, piece):
        if piece in self.SPECIALS:
            return self.SPECIALS[piece]
        spm_id = self.sp.piece_to_id(piece)
        return spm_id + self.OFFSET if spm_id else self.SPECIALS["<unk>"]

    def id_piece(self, i):
        inverse = {v: k for k, v in self.SPECIALS.items()}
        if i in inverse:
            return inverse[i]
        for c, ci in self.code_ids.items():
            if ci == i:
                return c
        return self.sp.id_to_piece(i - self.OFFSET)

    def encode(self, text):
        return [self.piece_id(p) for p in self.sp.encode(text, out_type=str)]

    def source(self, text, code):
        """The current (non-legacy) layout: [code] X </s>."""
        return [self.code_ids[code]] + self.encode(text) + [2]

    def decode(self, ids):
        return "".join(self.id_piece(i) for i in ids).replace("\u2581", " ").strip()


class M2M100Layout(FairseqSpmLayout):
    """M2M100's ids: vocab.json's (piece -> id; a piece it lacks is <unk>, 3), the codes after them
    (len(vocab.json) + i)."""

    def __init__(self, sp, vocab, codes):
        self.sp, self.vocab, self.codes = sp, dict(vocab), list(codes)
        self.inverse = {v: k for k, v in self.vocab.items()}
        self.code_ids = {c: len(self.vocab) + i for i, c in enumerate(self.codes)}

    def piece_id(self, piece):
        return self.vocab.get(piece, self.vocab["<unk>"])

    def id_piece(self, i):
        if i in self.inverse:
            return self.inverse[i]
        return [c for c, ci in self.code_ids.items() if ci == i][0]


# ------------------------------------------------------------------------------------ the command-line check
#
#   /usr/bin/python3 tools/seq2seq_reference.py CHECKPOINT_DIR REQUEST.json
#
# REQUEST: {"family": "m2m100" | "mbart", "sources": [[ids]], "targets": [[ids]], "source_lang", "target_lang"}
# with the sentences' untagged ids. The checkpoint's own files say how they are tagged: the codes'
# ids (NLLB / mBART-50: after the SentencePiece pieces, config vocab_size - 2 - len(codes) + 1 + i with <mask>
# last; M2M100: len(vocab.json) + i), and NllbTokenizer's legacy_behaviour (tokenizer_config.json): sources
# X </s> [code] instead of [code] X </s>. Prints JSON: "sources" (the tagged encoder inputs), "greedy" (each
# source's greedy output from </s> with the target code forced first, code included, as make_seq2seq_fixtures
# searches), "margins" (the smallest gap of each search's decisions) and "log_probs" (each [code] Y </s>'s
# natural log-probability given its source).


def _tokenizer_json(directory):
    out = {}
    for name in ("special_tokens_map.json", "tokenizer_config.json"):  # the second wins, as the tokenizer reads
        path = os.path.join(directory, name)
        if os.path.exists(path):
            with open(path, encoding="utf-8") as f:
                out.update({k: v for k, v in json.load(f).items() if v is not None})
    return out


def code_ids(directory, vocab_size):
    tok = _tokenizer_json(directory)
    codes = [c["content"] if isinstance(c, dict) else c for c in tok["additional_special_tokens"]]
    vocab_path = os.path.join(directory, "vocab.json")
    if os.path.exists(vocab_path):
        with open(vocab_path, encoding="utf-8") as f:
            first = len(json.load(f))
    else:
        first = vocab_size - 1 - len(codes)  # the pieces, the codes, then <mask>
    return {c: first + i for i, c in enumerate(codes)}, bool(tok.get("legacy_behaviour", False))


def check(directory, request):
    from make_import_fixtures import next_log_probs, search  # noqa: E402
    from make_parity_fixtures import read_safetensors  # noqa: E402
    with open(os.path.join(directory, "config.json")) as f:
        config = json.load(f)
    tensors, _ = read_safetensors(os.path.join(directory, "model.safetensors"))
    P = {name: t.to(D) for name, t in tensors}
    V = config["vocab_size"]
    model = Seq2Seq(request["family"], P, dict(config, vocab_tgt=V))
    ids, legacy = code_ids(directory, V)
    src_code, tgt_code = ids[request["source_lang"]], ids[request["target_lang"]]
    eos, pad = config["eos_token_id"], config["pad_token_id"]
    sources = [s + [eos, src_code] if legacy else [src_code] + s + [eos] for s in request["sources"]]
    greedy, margins, log_probs = [], [], []
    limit = config["max_position_embeddings"] if request["family"] == "mbart" else None
    with torch.no_grad():
        for s in sources:
            gaps = []
            greedy.append(search(model, s, 1, eos, eos, {pad}, gaps, forced=[tgt_code], positions=limit))
            margins.append(min(gaps) if gaps else float("inf"))
        for s, t in zip(sources, request["targets"]):
            tagged = [tgt_code] + t + [eos]
            total = 0.0
            for n, token in enumerate(tagged):
                total += float(next_log_probs(model, s, tagged[:n], eos)[token])
            log_probs.append(total)
    return {"sources": sources, "greedy": greedy, "margins": margins, "log_probs": log_probs}


if __name__ == "__main__":
    torch.set_num_threads(1)
    with open(sys.argv[2], encoding="utf-8") as f:
        print(json.dumps(check(sys.argv[1], json.load(f))))
