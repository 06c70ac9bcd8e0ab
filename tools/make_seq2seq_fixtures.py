#!/usr/bin/python3
# make_seq2seq_fixtures.py -- tiny random NLLB-200, M2M100 and mBART-50 checkpoints for the tests of
# `heptapod convert --from m2m100 | mbart` (tests/test_import_seq2seq.cpp), with what the independent float64
# references of tools/seq2seq_reference.py compute from them.
#
#   /usr/bin/python3 tools/make_seq2seq_fixtures.py [nllb] [m2m100] [mbart]
#
# Each directory holds what the family's Hugging Face snapshot holds, under its real tensor names and config
# keys (config.json, model.safetensors), and its tokenizer files in its own layout:
#   tests/fixtures/nllb/    sentencepiece.bpe.model (fairseq-style: <unk> 0, <s> 1, </s> 2), tokenizer_config.json
#                           and special_tokens_map.json listing the codes eng_Latn, fra_Latn, spa_Latn, deu_Latn;
#                           only model.shared.weight of the tied embeddings (as save_pretrained dedupes them)
#   tests/fixtures/m2m100/  vocab.json (its own order) beside sentencepiece.bpe.model, special_tokens_map.json
#                           alone listing __en__, __fr__, __es__, __de__; 8 made-up words past the codes; every
#                           tied name of the shared matrix stored
#   tests/fixtures/mbart/   sentencepiece.bpe.model, tokenizer_config.json with en_XX, fr_XX, es_XX, de_DE;
#                           learned positions (max_position_embeddings 64 + 2 rows), layernorm_embedding,
#                           final_logits_bias, lm_head.weight stored beside model.shared.weight
# and reference.safetensors (metadata format "heptapod-seq2seq-fixture", family, source_lang, target_lang,
# texts (JSON: the source sentences), targets (JSON: the batch's target sentences), greedy_text, codes (JSON {code: id}), tokenizer_texts / tokenizer_ids
# (JSON: varied text and its ids by the reference layout, without tags), label_smoothing):
#   batch/src I32 (B, S)       [source code] text ids </s>, right-padded with pad (1); batch/src_len I32 (B)
#   batch/tgt_in I32 (B, T)    </s> (the decoder start), [target code], target ids; batch/tgt_len I32 (B)
#   batch/tgt_out I32 (B, T)   tgt_in shifted left, ending with </s>
#   expect/encoder F32 (B, S, C)  the encoder's output (after its final layer norm)
#   expect/logits F32 (B, T, V)   teacher-forced logits
#   expect/greedy, expect/beam I32 (B, L) padded with -1, *_len I32 (B): outputs of the search with the target
#                              code forced first (included), without start or end token; beam 4, length
#                              penalty 0.6 (tools/make_import_fixtures.py's search)
#   expect/loss F64 (1), grad/<checkpoint name> F64: the label-smoothed (0.1) cross-entropy of the batch and its
#                              gradient for every tensor of the checkpoint (final_logits_bias as if trained)
# The SentencePiece models are trained here by spm_train (Debian's sentencepiece package) on the numbers
# corpus of tests/data when missing; their segmentation in the references is python3-sentencepiece's.
# Weights are drawn (seed 1, 2, ...) until every search decision clears a margin and the outputs are ordinary
# pieces, so float32 rounding cannot flip a token. Deterministic.

import json
import math
import os
import subprocess
import sys

import sentencepiece
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from make_import_fixtures import padded, search  # noqa: E402
from make_parity_fixtures import REPO, check_round_trip, write_safetensors  # noqa: E402
from seq2seq_reference import D, FairseqSpmLayout, M2M100Layout, Seq2Seq, label_smoothed_loss  # noqa: E402

torch.set_num_threads(1)
MARGIN = 0.05
C, H, F, LAYERS = 32, 4, 48, 2
PAD, EOS = 1, 2
LABEL_SMOOTHING = 0.1
EOS_LEAN = float(os.environ.get("EOS_LEAN", "6.0"))
EMBED_STD = float(os.environ.get("EMBED_STD", "0.15"))
LAYER_GAIN = float(os.environ.get("LAYER_GAIN", "2.0"))
FINAL_GAIN = float(os.environ.get("FINAL_GAIN", "4.0"))
FLOAT32_ERROR = 3e-6  # the most float32 arithmetic may move the logits (relative), so that 1e-5 tests mean something
TEXTS = ["twenty-six thousand one hundred and four", "cuarenta y cuatro mil novecientos", "three"]
TARGETS = ["veintiséis mil ciento cuatro", "forty", "trescientos diez mil y tres"]
TOKENIZER_TEXTS = [
    "forty-four thousand nine hundred and sixty-three", "cincuenta y ocho mil trescientos diez",
    "  Twenty  THOUSAND, 42 zebras!", "naïve café — ünïcode ✓ 日本", "one\ttwo  three", "", "mil",
    "seventy-seven thousand seven hundred and seventy-seven", "x y z q", "¿cuántos? ¡novecientos!"]
FAMILIES = {
    "nllb": dict(family="m2m100", codes=["eng_Latn", "fra_Latn", "spa_Latn", "deu_Latn"], source="eng_Latn",
                 target="spa_Latn", tokenizer="NllbTokenizer"),
    "m2m100": dict(family="m2m100", codes=["__en__", "__fr__", "__es__", "__de__"], source="__en__",
                   target="__fr__", tokenizer="M2M100Tokenizer"),
    "mbart": dict(family="mbart", codes=["en_XX", "fr_XX", "es_XX", "de_DE"], source="en_XX", target="de_DE",
                  tokenizer="MBart50Tokenizer"),
}


def train_spm(out, size):
    path = os.path.join(out, "sentencepiece.bpe.model")
    if not os.path.exists(path):
        data = os.path.join(REPO, "tests", "data")
        prefix = os.path.join(out, "sentencepiece.bpe")
        subprocess.run(["spm_train", "--input=%s,%s" % (os.path.join(data, "numbers.train.en"),
                                                          os.path.join(data, "numbers.train.es")),
                        "--model_prefix=" + prefix, "--vocab_size=%d" % size, "--model_type=bpe",
                        "--character_coverage=1.0", "--unk_id=0", "--bos_id=1", "--eos_id=2", "--pad_id=-1",
                        "--shuffle_input_sentence=false", "--num_threads=1", "--minloglevel=2"],
                       check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.remove(prefix + ".vocab")
    return sentencepiece.SentencePieceProcessor(model_file=path)


def tokenizer_files(name, spec, out, sp):
    """Writes the family's tokenizer files; returns (layout, vocab_size of the model, ordinary ids)."""
    codes = spec["codes"]
    special = {"bos_token": "<s>", "eos_token": "</s>", "unk_token": "<unk>", "pad_token": "<pad>",
               "sep_token": "</s>", "cls_token": "<s>"}
    config = dict(special, tokenizer_class=spec["tokenizer"], src_lang=spec["source"], tgt_lang=spec["target"],
                  model_max_length=64)
    smap = dict(special, additional_special_tokens=codes)
    if name == "m2m100":
        # fairseq's dictionary order (by count), not SentencePiece's: here the reverse of its pieces.
        pieces = [sp.id_to_piece(i) for i in range(3, sp.get_piece_size())]
        vocab = {"<s>": 0, "<pad>": 1, "</s>": 2, "<unk>": 3}
        for p in reversed(pieces):
            vocab[p] = len(vocab)
        with open(os.path.join(out, "vocab.json"), "w", encoding="utf-8") as f:
            json.dump(vocab, f, ensure_ascii=False, indent=1)
            f.write("\n")
        config.update(language_codes="m2m100", num_madeup_words=8)
        layout = M2M100Layout(sp, vocab, codes)
        V = len(vocab) + len(codes) + 8
        ordinary = set(range(4, len(vocab)))
    else:
        config["additional_special_tokens"] = codes
        config["mask_token"] = "<mask>"
        if name == "nllb":
            config["legacy_behaviour"] = False
        smap["mask_token"] = "<mask>"
        layout = FairseqSpmLayout(sp, codes)
        V = layout.mask_id + 1
        ordinary = set(range(4, sp.get_piece_size() + 1))
    with open(os.path.join(out, "tokenizer_config.json"), "w", encoding="utf-8") as f:
        json.dump(config, f, indent=2, sort_keys=True)
        f.write("\n")
    with open(os.path.join(out, "special_tokens_map.json"), "w", encoding="utf-8") as f:
        json.dump(smap, f, indent=2, sort_keys=True)
        f.write("\n")
    return layout, V, ordinary


def model_config(spec, V):
    mbart = spec["family"] == "mbart"
    config = {
        "_name_or_path": "heptapod-test/" + ("mbart-50-tiny" if mbart else "m2m100-tiny"), "activation_dropout": 0.0,
        "activation_function": "gelu" if mbart else "relu", "architectures": [
            "MBartForConditionalGeneration" if mbart else "M2M100ForConditionalGeneration"],
        "attention_dropout": 0.1, "bos_token_id": 0, "d_model": C, "decoder_attention_heads": H,
        "decoder_ffn_dim": F, "decoder_layerdrop": 0.05, "decoder_layers": LAYERS, "decoder_start_token_id": EOS,
        "dropout": 0.1, "encoder_attention_heads": H, "encoder_ffn_dim": F, "encoder_layerdrop": 0.05,
        "encoder_layers": LAYERS, "eos_token_id": EOS, "init_std": 0.02, "is_encoder_decoder": True,
        "max_length": 64, "max_position_embeddings": 64, "model_type": "mbart" if mbart else "m2m_100",
        "num_hidden_layers": LAYERS, "pad_token_id": PAD, "scale_embedding": True, "tie_word_embeddings": True,
        "torch_dtype": "float32", "transformers_version": "4.40.0", "use_cache": True, "vocab_size": V}
    if mbart:
        config.update(add_final_layer_norm=True, normalize_before=True, forced_eos_token_id=EOS,
                      classifier_dropout=0.0)
    return config


def shapes(mbart, V):
    out = [("model.shared.weight", (V, C))]
    for stack in ("encoder", "decoder"):
        if mbart:
            out += [("model.%s.embed_positions.weight" % stack, (64 + 2, C)),
                    ("model.%s.layernorm_embedding.weight" % stack, (C,)),
                    ("model.%s.layernorm_embedding.bias" % stack, (C,))]
        for i in range(LAYERS):
            n = "model.%s.layers.%d" % (stack, i)
            for a in ["self_attn"] + (["encoder_attn"] if stack == "decoder" else []):
                for proj in ("q_proj", "k_proj", "v_proj", "out_proj"):
                    out += [("%s.%s.%s.weight" % (n, a, proj), (C, C)), ("%s.%s.%s.bias" % (n, a, proj), (C,))]
                out += [("%s.%s_layer_norm.weight" % (n, a), (C,)), ("%s.%s_layer_norm.bias" % (n, a), (C,))]
            out += [(n + ".fc1.weight", (F, C)), (n + ".fc1.bias", (F,)), (n + ".fc2.weight", (C, F)),
                    (n + ".fc2.bias", (C,)), (n + ".final_layer_norm.weight", (C,)), (n + ".final_layer_norm.bias", (C,))]
        out += [("model.%s.layer_norm.weight" % stack, (C,)), ("model.%s.layer_norm.bias" % stack, (C,))]
    if mbart:
        out += [("final_logits_bias", (1, V))]
    return out


def draw_params(gen, tensor_shapes, ordinary):
    P = {}
    for name, shape in tensor_shapes:
        if name.endswith("norm.weight"):
            t = 1 + 0.2 * torch.randn(shape, generator=gen)
        elif name.endswith(".bias") or name == "final_logits_bias":
            t = 0.2 * torch.randn(shape, generator=gen)
        elif name == "model.shared.weight":
            t = EMBED_STD * torch.randn(shape, generator=gen)
            for v in range(shape[0]):  # rows a trained model leaves near their start: the special ones
                if v not in ordinary and v != EOS:
                    t[v] *= 0.1
        elif name.endswith("embed_positions.weight"):
            t = 0.5 * torch.randn(shape, generator=gen)
        else:  # projections: strong enough that the layers, not the input token, drive the next token
            t = LAYER_GAIN * torch.randn(shape, generator=gen) / math.sqrt(shape[-1])
        P[name] = t.to(torch.float32)
    # The decoder's last norm leans towards </s> (by a drawn amount), so that some outputs end before the
    # length limit.
    lean = EOS_LEAN * float(torch.rand(1, generator=gen))
    P["model.decoder.layer_norm.bias"] += (lean * P["model.shared.weight"][EOS]).to(torch.float32)
    # Logits large enough for clear decisions, scaled at the very end (which float32 computes as exactly).
    for key in ("model.decoder.layer_norm.weight", "model.decoder.layer_norm.bias"):
        P[key] *= FINAL_GAIN
    return P


def make(name, spec, out):
    os.makedirs(out, exist_ok=True)
    sp = train_spm(out, 80)
    layout, V, ordinary = tokenizer_files(name, spec, out, sp)
    mbart = spec["family"] == "mbart"
    config = model_config(spec, V)
    with open(os.path.join(out, "config.json"), "w") as f:
        json.dump(config, f, indent=2, sort_keys=True)
        f.write("\n")
    tensor_shapes = shapes(mbart, V)
    src_code, tgt_code = layout.code_ids[spec["source"]], layout.code_ids[spec["target"]]
    sources = [layout.source(t, spec["source"]) for t in TEXTS]
    targets = [[tgt_code] + layout.encode(t) for t in TARGETS]
    cfg = dict(config, vocab_tgt=V)
    limit = config["max_position_embeddings"] if mbart else None  # learned positions end the output
    src = padded(sources, PAD)
    src_len = [len(s) for s in sources]
    tgt_in = padded([[EOS] + t for t in targets], PAD)
    tgt_out = padded([t + [EOS] for t in targets], PAD)
    tgt_len = [len(t) + 1 for t in targets]
    for seed in range(1, int(os.environ.get("FIXTURE_SEEDS", "300"))):
        gen = torch.Generator().manual_seed(seed)
        P32 = draw_params(gen, tensor_shapes, ordinary)
        model = Seq2Seq(spec["family"], {k: v.to(D) for k, v in P32.items()}, cfg)
        # Weights whose logits float32 arithmetic moves by more than FLOAT32_ERROR are ill-conditioned.
        with torch.no_grad():
            exact = model.forward(src.long(), src_len, tgt_in.long(), tgt_len)
            rounded = Seq2Seq(spec["family"], P32, cfg).forward(src.long(), src_len, tgt_in.long(), tgt_len)
        real = torch.arange(tgt_in.shape[1])[None, :, None] < torch.tensor(tgt_len)[:, None, None]
        error = float(((rounded.to(D) - exact) * real).abs().max() / (exact * real).abs().max())
        margins = []
        greedy = [search(model, s, 1, EOS, EOS, {PAD}, margins, forced=[tgt_code], positions=limit) for s in sources]
        if os.environ.get("FIXTURE_DEBUG"):
            print(seed, "%.1e" % error, round(min(margins), 3), [len(g) for g in greedy], [v for g in greedy for v in g[1:] if v not in ordinary], greedy[0][:12])
        if error > FLOAT32_ERROR or min(margins) < MARGIN or any(v not in ordinary for g in greedy for v in g[1:]):
            continue
        if not any(3 <= len(g) < len(s) + 50 for g, s in zip(greedy, sources)):
            continue
        beams = [search(model, s, 4, EOS, EOS, {PAD}, margins, forced=[tgt_code], positions=limit) for s in sources]
        if min(margins) < MARGIN:
            continue
        break
    else:
        raise SystemExit(name + ": no seed gives clear margins")
    print("%s: seed %d, smallest margin %.3f, greedy lengths %s, beam lengths %s" % (
        name, seed, min(margins), [len(g) for g in greedy], [len(g) for g in beams]))

    # Teacher forcing, the encoder's states, the loss and its gradients.
    P = {k: v.to(D).requires_grad_(True) for k, v in P32.items()}
    model = Seq2Seq(spec["family"], P, cfg)
    memory = model.encode(src.long(), src_len)
    logits = model.forward(src.long(), src_len, tgt_in.long(), tgt_len, memory)
    loss = label_smoothed_loss(logits, tgt_out.long(), tgt_len, LABEL_SMOOTHING)
    loss.backward()
    for b in range(len(sources)):  # padding changes nothing
        alone = model.forward(src[b:b + 1, :src_len[b]].long(), [src_len[b]], tgt_in[b:b + 1, :tgt_len[b]].long(),
                              [tgt_len[b]])
        assert torch.allclose(alone[0], logits[b, :tgt_len[b]], atol=1e-10), "batching changed the logits"
    ref = [("batch/src", src), ("batch/src_len", torch.tensor(src_len, dtype=torch.int32)),
           ("batch/tgt_in", tgt_in), ("batch/tgt_out", tgt_out),
           ("batch/tgt_len", torch.tensor(tgt_len, dtype=torch.int32)),
           ("expect/encoder", memory.detach().to(torch.float32)), ("expect/logits", logits.detach().to(torch.float32)),
           ("expect/greedy", padded(greedy, -1)),
           ("expect/greedy_len", torch.tensor([len(g) for g in greedy], dtype=torch.int32)),
           ("expect/beam", padded(beams, -1)),
           ("expect/beam_len", torch.tensor([len(g) for g in beams], dtype=torch.int32)),
           ("expect/loss", loss.detach().reshape(1))]
    ref += [("grad/" + n, P[n].grad) for n, _ in tensor_shapes]
    meta = {"format": "heptapod-seq2seq-fixture", "family": name, "source_lang": spec["source"],
            "target_lang": spec["target"], "texts": json.dumps(TEXTS, ensure_ascii=False),
            "targets": json.dumps(TARGETS, ensure_ascii=False),
            "greedy_text": json.dumps([layout.decode(g[1:]) for g in greedy], ensure_ascii=False),
            "codes": json.dumps(layout.code_ids), "label_smoothing": str(LABEL_SMOOTHING),
            "tokenizer_texts": json.dumps(TOKENIZER_TEXTS, ensure_ascii=False),
            "tokenizer_ids": json.dumps([layout.encode(t) for t in TOKENIZER_TEXTS])}
    path = os.path.join(out, "reference.safetensors")
    write_safetensors(path, ref, meta)
    check_round_trip(path, ref, meta)

    # The checkpoint as each family's snapshot stores it.
    state = [(n, P32[n]) for n, _ in tensor_shapes]
    if name == "m2m100":  # every tied name of the shared matrix
        shared = P32["model.shared.weight"]
        state[1:1] = [("model.encoder.embed_tokens.weight", shared), ("model.decoder.embed_tokens.weight", shared)]
        state.append(("lm_head.weight", shared))
    if name == "mbart":
        state.append(("lm_head.weight", P32["model.shared.weight"]))
    write_safetensors(os.path.join(out, "model.safetensors"), state, {"format": "pt"})


def main():
    fixtures = os.path.join(REPO, "tests", "fixtures")
    for name in sys.argv[1:] or list(FAMILIES):
        make(name, FAMILIES[name], os.path.join(fixtures, name))


if __name__ == "__main__":
    main()
