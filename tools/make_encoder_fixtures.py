#!/usr/bin/python3
# make_encoder_fixtures.py -- tiny random RoBERTa, XLM-R, DistilBERT and sentence-transformers checkpoints under
# Hugging Face's real tensor names and config keys, with the tokenizer files each ships, and their expected
# outputs from tools/encoder_reference.py, for tests/test_import_encoders.cpp (`heptapod convert --from roberta`,
# `--from distilbert`, and a sentence-transformers directory found by itself).
#
#   tests/fixtures/roberta/              RobertaForMaskedLM: config.json, model.safetensors, vocab.json, merges.txt
#   tests/fixtures/roberta_classifier/   RobertaForSequenceClassification (3 labels; a sentence pair among its texts)
#   tests/fixtures/xlm_roberta/          XLMRobertaForMaskedLM: sentencepiece.bpe.model (trained here by spm_train)
#   tests/fixtures/distilbert/           DistilBertForMaskedLM: vocab.txt (BERT's WordPiece)
#   tests/fixtures/distilbert_classifier/ DistilBertForSequenceClassification (a sentence pair among its texts)
#   tests/fixtures/sentence_transformers/ an XLM-R body (XLMRobertaModel, with its pooler) as sentence-transformers
#                                        saves it: modules.json (Transformer, Pooling, Normalize),
#                                        1_Pooling/config.json (mean), sentence_bert_config.json (max_seq_length 12)
#   tests/fixtures/sentence_transformers_dense/ the same body with every pooling mode on (concatenated), a Dense
#                                        module (2_Dense: tanh, 192 -> 24, model.safetensors) and Normalize
#
#   /usr/bin/python3 tools/make_encoder_fixtures.py   (needs torch and spm_train; deterministic)
#
# Each directory's reference.safetensors (metadata format "heptapod-encoder-fixture", family, task; JSON texts):
#   batch/input_ids I32 (B, T) padded with the pad id, batch/lengths I32 (B), expect/hidden F32 (B, T, C);
#   masked LM: expect/mlm_logits F32 (B, T, V) (the head at every row); batch/masked_ids (the input with mask_id
#     at the rows batch/mlm_targets marks with their original id, -1 elsewhere), expect/loss F64 (the mean
#     cross-entropy of the masked rows) and grad/<Hugging Face name> F64 (its gradient);
#   classifier: expect/pooled F32 (B, C), expect/class_logits, expect/probs F32 (B, L), batch/labels I32 (B),
#     expect/loss F64 (the mean cross-entropy over the sentences), grad/<name> F64; metadata labels;
#   sentence_transformers: expect/embedding/{cls,max,mean,mean_sqrt_len,weightedmean,lasttoken}{,_normalized}
#     F32 (B, C) of the texts cut to max_seq_length; sentence_transformers_dense: expect/embedding/default F32
#     (B, 24) of the same texts (all modes, Dense, Normalize);
#   tokenizer: metadata tokenizer_texts (varied text) and tokenizer_ids (each text's ids without <s> and </s>).
# Rows at t >= length are padding: compare t < length.

import json
import math
import os
import shutil
import subprocess
import sys
import tempfile

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import encoder_reference as ref  # noqa: E402
import make_hf_fixtures as hf  # noqa: E402
from make_parity_fixtures import REPO  # noqa: E402

torch.set_num_threads(1)
D = torch.float64
C, F, H, L = 32, 64, 4, 2
DENSE_FEATURES = 24  # the Dense module's outputs in sentence_transformers_dense

# Texts: single sentences and a pair (a tuple of two).
TEXTS = [("The cat sat on the mat.",), ("Where is the dog?", "It is playing outside."),
         ("Hello, world! 42 cats like the sun.",)]
# Varied text for the tokenizers (accents, digits, punctuation runs, several spaces, CJK, an emoji).
TOKENIZER_TEXTS = ["The quick brown fox.", "  two  spaces and\ttabs ", "It's 2024: caf\u00e9 na\u00efve r\u00e9sum\u00e9!",
                   "\u65e5\u672c\u8a9e\u306e\u30c6\u30ad\u30b9\u30c8", "emoji \U0001F600 and ?!... done",
                   "we've got 1,234 apples_and pears"]
# <mask> written in text: after a space, several spaces, a tab or a line end, at the start, inside a word, twice.
MASK_TEXTS = ["Hello <mask>!", "The   <mask> sat\t<mask>.", "<mask> at the start", "no space<mask>here",
              "two <mask> <mask> masks", "a line\n<mask> ends <mask> "]
CORPUS = hf.CORPUS + "caf\u00e9 na\u00efve r\u00e9sum\u00e9 \u65e5\u672c\u8a9e\u306e\u30c6\u30ad\u30b9\u30c8 " \
                     "playing outside cats dogs sun world\n"


def params(shapes, gen):
    P = {}
    for name, shape in shapes:
        if name.endswith("LayerNorm.weight") or name.endswith("layer_norm.weight"):
            t = 1 + 0.2 * torch.randn(shape, generator=gen)
        elif name.endswith(".bias"):
            t = 0.2 * torch.randn(shape, generator=gen)
        elif "embeddings" in name:
            t = torch.randn(shape, generator=gen)
        elif name in ("classifier.out_proj.weight", "classifier.weight"):
            t = 3 * torch.randn(shape, generator=gen) / math.sqrt(shape[1])
        else:
            t = torch.randn(shape, generator=gen) / math.sqrt(shape[1])
        P[name] = t.to(torch.float32)
    return P


def body_shapes(family, cfg, prefix):
    V, T = cfg["vocab_size"], cfg["max_position_embeddings"]
    e = prefix + "embeddings."
    out = [(e + "word_embeddings.weight", (V, C)), (e + "position_embeddings.weight", (T, C))]
    if family == "roberta":
        out.append((e + "token_type_embeddings.weight", (1, C)))
    out += [(e + "LayerNorm.weight", (C,)), (e + "LayerNorm.bias", (C,))]
    f = ref.FAMILIES[family]
    q, k, v, o, n1, f1, f2, n2 = f["modules"]
    for i in range(L):
        n = prefix + f["layers"] + "%d." % i
        for m in (q, k, v, o):
            out += [(n + m + ".weight", (C, C)), (n + m + ".bias", (C,))]
        out += [(n + n1 + ".weight", (C,)), (n + n1 + ".bias", (C,)), (n + f1 + ".weight", (F, C)),
                (n + f1 + ".bias", (F,)), (n + f2 + ".weight", (C, F)), (n + f2 + ".bias", (C,)),
                (n + n2 + ".weight", (C,)), (n + n2 + ".bias", (C,))]
    return out


def head_shapes(family, task, V, labels):
    if task == "mlm":
        if family == "distilbert":
            return [("vocab_transform.weight", (C, C)), ("vocab_transform.bias", (C,)),
                    ("vocab_layer_norm.weight", (C,)), ("vocab_layer_norm.bias", (C,)), ("vocab_projector.bias", (V,))]
        return [("lm_head.bias", (V,)), ("lm_head.dense.weight", (C, C)), ("lm_head.dense.bias", (C,)),
                ("lm_head.layer_norm.weight", (C,)), ("lm_head.layer_norm.bias", (C,))]
    if task == "classifier":
        if family == "distilbert":
            return [("pre_classifier.weight", (C, C)), ("pre_classifier.bias", (C,)),
                    ("classifier.weight", (labels, C)), ("classifier.bias", (labels,))]
        return [("classifier.dense.weight", (C, C)), ("classifier.dense.bias", (C,)),
                ("classifier.out_proj.weight", (labels, C)), ("classifier.out_proj.bias", (labels,))]
    return [("pooler.dense.weight", (C, C)), ("pooler.dense.bias", (C,))]  # a bare model's pooler


def config_of(family, model_type, V, T, task, labels, pad):
    if family == "distilbert":
        cfg = {"_name_or_path": "heptapod-test/distilbert-tiny", "activation": "gelu", "attention_dropout": 0.1,
               "dim": C, "dropout": 0.1, "hidden_dim": F, "initializer_range": 0.02, "max_position_embeddings": T,
               "model_type": "distilbert", "n_heads": H, "n_layers": L, "pad_token_id": pad, "qa_dropout": 0.1,
               "seq_classif_dropout": 0.2, "sinusoidal_pos_embds": False, "tie_weights_": True,
               "transformers_version": "4.26.0", "vocab_size": V}
        arch = "DistilBertForMaskedLM" if task == "mlm" else "DistilBertForSequenceClassification"
    else:
        cfg = {"_name_or_path": "heptapod-test/%s-tiny" % model_type, "attention_probs_dropout_prob": 0.1,
               "bos_token_id": 0, "classifier_dropout": None, "eos_token_id": 2, "hidden_act": "gelu",
               "hidden_dropout_prob": 0.1, "hidden_size": C, "initializer_range": 0.02, "intermediate_size": F,
               "layer_norm_eps": 1e-05, "max_position_embeddings": T, "model_type": model_type,
               "num_attention_heads": H, "num_hidden_layers": L, "pad_token_id": pad,
               "position_embedding_type": "absolute", "transformers_version": "4.26.0", "type_vocab_size": 1,
               "use_cache": True, "vocab_size": V}
        base = "XLMRoberta" if model_type == "xlm-roberta" else "Roberta"
        arch = base + {"mlm": "ForMaskedLM", "classifier": "ForSequenceClassification", "model": "Model"}[task]
    cfg["architectures"] = [arch]
    if task == "classifier":
        names = ["negative", "neutral", "positive"][:labels]
        cfg["id2label"] = {str(i): n for i, n in enumerate(names)}
        cfg["label2id"] = {n: i for i, n in enumerate(names)}
        cfg["problem_type"] = "single_label_classification"
    return cfg


def layout(text_ids, family, cls, sep):
    """A text's or pair's ids as the family lays them out."""
    out = [cls] + text_ids[0] + [sep]
    if len(text_ids) == 2:
        out += ([sep] if family == "roberta" else []) + text_ids[1] + [sep]
    return out


def write_fixture(out, family, model_type, task, tokenizer, vocab_size, specials, tokenizer_files, max_seq=None):
    """specials: pad, cls (<s> / [CLS]), sep, mask ids. tokenizer: .encode(text) -> ids. Returns nothing."""
    os.makedirs(out, exist_ok=True)
    pad, cls, sep, mask = specials
    T = 42 if family == "roberta" else 40
    labels = 3
    cfg = config_of(family, model_type, vocab_size, T, task, labels, pad)
    prefix = "" if task == "model" else ref.FAMILIES[family]["prefix"]  # a bare model is saved without one
    shapes = body_shapes(family, cfg, prefix) + head_shapes(family, task, vocab_size, labels)
    # Sentence pairs: the classifiers' (RoBERTa's <s> A </s></s> B </s>; DistilBERT's [CLS] A [SEP] B [SEP], which
    # has no token types).
    texts = TEXTS if task == "classifier" else [t[:1] for t in TEXTS]
    seqs = [layout([tokenizer.encode(s) for s in t], family, cls, sep) for t in texts]
    if max_seq:
        seqs = [s if len(s) <= max_seq else s[:max_seq - 1] + [sep] for s in seqs]
    lengths = [len(s) for s in seqs]
    # The WordPiece reference here reads ASCII alone (BERT's own tests cover the rest of its text handling).
    # RoBERTa's and XLM-R's <mask> written in text (it takes the white space before it).
    tokenizer_texts = [t for t in TOKENIZER_TEXTS if family != "distilbert" or all(ord(c) < 128 for c in t)]
    tokenizer_texts += MASK_TEXTS if family == "roberta" else []
    ids = hf.padded(seqs, pad)
    for seed in range(1, 100):
        P32 = params(shapes, torch.Generator().manual_seed(seed))
        P = {k: v.to(D) for k, v in P32.items()}
        h = ref.encode(P, family, cfg, ids.long(), lengths, prefix)
        if task != "classifier":
            break
        logits, _ = ref.classifier_logits(P, family, h)
        probs = torch.softmax(logits, -1)
        top = probs.topk(2, -1).values
        if len(set(probs.argmax(-1).tolist())) > 1 and (top[:, 0] - top[:, 1]).min() >= hf.MARGIN:
            break
    else:
        raise SystemExit("%s: no seed gives distinct labels" % out)
    for b in range(len(seqs)):  # batching changes nothing
        alone = ref.encode(P, family, cfg, ids[b:b + 1, :lengths[b]].long(), [lengths[b]], prefix)
        assert torch.allclose(alone[0], h[b, :lengths[b]], atol=1e-10), "batching changed the hidden states"
    reference = [("batch/input_ids", ids), ("batch/lengths", torch.tensor(lengths, dtype=torch.int32)),
                 ("expect/hidden", h.to(torch.float32))]
    meta = {"format": "heptapod-encoder-fixture", "family": model_type, "task": task,
            "texts": json.dumps([list(t) for t in texts]),
            "tokenizer_texts": json.dumps(tokenizer_texts),
            "tokenizer_ids": json.dumps([tokenizer.encode(t) for t in tokenizer_texts])}
    # Gradients of one training step's loss at the float64 weights.
    G = {k: v.clone().requires_grad_(True) for k, v in P.items()}
    if task == "mlm":
        reference.append(("expect/mlm_logits", ref.masked_lm_logits(P, family, cfg, h).to(torch.float32)))
        targets = torch.full_like(ids, -1)
        for b, t in ((0, 1), (0, 3), (1, 2), (2, 1), (2, lengths[2] - 2)):
            targets[b, t] = ids[b, t]
        masked = torch.where(targets >= 0, torch.full_like(ids, mask), ids)
        hg = ref.encode(G, family, cfg, masked.long(), lengths)
        rows = (targets >= 0).nonzero()
        logits = ref.masked_lm_logits(G, family, cfg, hg[rows[:, 0], rows[:, 1]])
        loss = torch.nn.functional.cross_entropy(logits, targets[rows[:, 0], rows[:, 1]].long())
        reference += [("batch/masked_ids", masked), ("batch/mlm_targets", targets.to(torch.int32))]
    elif task == "classifier":
        logits, pooled = ref.classifier_logits(P, family, h)
        probs = torch.softmax(logits, -1)
        gold = torch.tensor([2, 0, 1], dtype=torch.int32)
        reference += [("expect/pooled", pooled.to(torch.float32)), ("expect/class_logits", logits.to(torch.float32)),
                      ("expect/probs", probs.to(torch.float32)), ("batch/labels", gold)]
        meta["labels"] = json.dumps([cfg["id2label"][str(i)] for i in range(labels)])
        hg = ref.encode(G, family, cfg, ids.long(), lengths)
        loss = torch.nn.functional.cross_entropy(ref.classifier_logits(G, family, hg)[0], gold.long())
    else:
        loss = None
        for mode in ref.POOLING_ORDER:
            for normalize in (False, True):
                v = ref.sentence_embedding(h, lengths, mode, normalize)
                reference.append(("expect/embedding/%s%s" % (mode, "_normalized" if normalize else ""),
                                  v.to(torch.float32)))
    if loss is not None:
        loss.backward()
        reference.append(("expect/loss", loss.detach().reshape(1)))
        reference += [("grad/" + name, G[name].grad.clone()) for name, _ in shapes]
    # The checkpoint as the model's state dict holds it: the positions buffer, tied decoder weights.
    state = [(prefix + "embeddings.position_ids", torch.arange(T, dtype=torch.int64)[None])]
    state += [(n, P32[n]) for n, _ in shapes]
    if task == "mlm":
        if family == "distilbert":
            state.append(("vocab_projector.weight", P32["distilbert.embeddings.word_embeddings.weight"]))
        else:
            state += [("lm_head.decoder.weight", P32["roberta.embeddings.word_embeddings.weight"]),
                      ("lm_head.decoder.bias", P32["lm_head.bias"])]
    hf.write_model(os.path.join(out, "model.safetensors"), state)
    hf.write_json(os.path.join(out, "config.json"), cfg)
    for name, write in tokenizer_files.items():
        write(os.path.join(out, name))
    hf.write_reference(os.path.join(out, "reference.safetensors"), reference, meta)
    print("%s: seed %d, V %d, lengths %s" % (os.path.basename(out), seed, vocab_size, lengths))
    return h, lengths


def write_sentence_transformers(st, dense_st, h, lengths):
    """The sentence-transformers modules over the XLM-R body in st: mean pooling and Normalize; and dense_st, a
    copy of st with every pooling mode on (concatenated), a Dense module (tanh, to DENSE_FEATURES) and
    Normalize, its reference expect/embedding/default the float64 embedding of st's texts."""
    hf.write_json(os.path.join(st, "modules.json"), [
        {"idx": 0, "name": "0", "path": "", "type": "sentence_transformers.models.Transformer"},
        {"idx": 1, "name": "1", "path": "1_Pooling", "type": "sentence_transformers.models.Pooling"},
        {"idx": 2, "name": "2", "path": "2_Normalize", "type": "sentence_transformers.models.Normalize"}])
    os.makedirs(os.path.join(st, "1_Pooling"), exist_ok=True)
    pooling = {"word_embedding_dimension": C, "pooling_mode_cls_token": False, "pooling_mode_mean_tokens": True,
               "pooling_mode_max_tokens": False, "pooling_mode_mean_sqrt_len_tokens": False,
               "pooling_mode_weightedmean_tokens": False, "pooling_mode_lasttoken": False, "include_prompt": True}
    hf.write_json(os.path.join(st, "1_Pooling", "config.json"), pooling)
    hf.write_json(os.path.join(st, "sentence_bert_config.json"), {"max_seq_length": 12, "do_lower_case": False})
    shutil.rmtree(dense_st, ignore_errors=True)
    shutil.copytree(st, dense_st, ignore=shutil.ignore_patterns("reference.safetensors"))
    hf.write_json(os.path.join(dense_st, "modules.json"), [
        {"idx": 0, "name": "0", "path": "", "type": "sentence_transformers.models.Transformer"},
        {"idx": 1, "name": "1", "path": "1_Pooling", "type": "sentence_transformers.models.Pooling"},
        {"idx": 2, "name": "2", "path": "2_Dense", "type": "sentence_transformers.models.Dense"},
        {"idx": 3, "name": "3", "path": "3_Normalize", "type": "sentence_transformers.models.Normalize"}])
    hf.write_json(os.path.join(dense_st, "1_Pooling", "config.json"),
                  dict(pooling, **{k: True for k in pooling if k.startswith("pooling_mode_")}))
    in_features = C * len(ref.POOLING_ORDER)
    os.makedirs(os.path.join(dense_st, "2_Dense"), exist_ok=True)
    hf.write_json(os.path.join(dense_st, "2_Dense", "config.json"), {
        "in_features": in_features, "out_features": DENSE_FEATURES, "bias": True,
        "activation_function": "torch.nn.modules.activation.Tanh"})
    gen = torch.Generator().manual_seed(7)
    w = (torch.randn(DENSE_FEATURES, in_features, generator=gen) / math.sqrt(in_features)).to(torch.float32)
    b = (torch.randn(DENSE_FEATURES, generator=gen) * 0.1).to(torch.float32)
    hf.write_model(os.path.join(dense_st, "2_Dense", "model.safetensors"), [("linear.weight", w), ("linear.bias", b)])
    v = ref.sentence_embedding(h, lengths, ref.POOLING_ORDER, True, (w.to(D), b.to(D), "tanh"))
    hf.write_reference(os.path.join(dense_st, "reference.safetensors"), [("expect/embedding/default", v.to(torch.float32))],
                       {"format": "heptapod-encoder-fixture", "family": "xlm-roberta", "task": "model"})
    print("%s: %d pooling modes, Dense %d -> %d (tanh)" % (os.path.basename(dense_st), len(ref.POOLING_ORDER),
                                                          in_features, DENSE_FEATURES))


# ------------------------------------------------------------------------------------------------ tokenizers


def roberta_tokenizer():
    merges = hf.learn_merges(hf.CORPUS, 60)
    pieces = ["<s>", "<pad>", "</s>", "<unk>"] + list(ref.BYTE_SYMBOL.values()) + [a + b for a, b in merges] + ["<mask>"]
    vocab = {p: i for i, p in enumerate(pieces)}
    assert len(vocab) == len(pieces)
    tok = ref.RobertaBpe(vocab, merges, ["<s>", "<pad>", "</s>", "<unk>", "<mask>"])

    def write_vocab(path):
        with open(path, "w", encoding="utf-8") as f:
            f.write(json.dumps(vocab, ensure_ascii=False))

    def write_merges(path):
        with open(path, "w", encoding="utf-8") as f:
            f.write("#version: 0.2\n" + "".join("%s %s\n" % m for m in merges))

    return tok, len(pieces), (1, 0, 2, len(pieces) - 1), {"vocab.json": write_vocab, "merges.txt": write_merges}


class XlmrTokenizer:
    """XLM-R's: the SentencePiece model under fairseq's ids; its special pieces written in the text become their
    ids (<mask> taking the white space before it), each text between them encoded alone (white space alone
    encodes to nothing)."""

    def __init__(self, spm, specials):
        self.spm, self.specials = spm, specials

    def encode(self, text):
        ids = []
        for i, part in enumerate(ref.split_specials(text, self.specials, ("<mask>",))):
            if i % 2:
                ids.append(self.specials[part])
            elif part.strip(ref.ASCII_SPACE):
                ids += ref.fairseq_ids(self.spm.encode(part), self.spm.unk, None)
        return ids


def xlmr_tokenizer(workdir):
    corpus = os.path.join(workdir, "corpus.txt")
    with open(corpus, "w", encoding="utf-8") as f:
        f.write(CORPUS)
    prefix = os.path.join(workdir, "spm")
    # Relative names: the model stores its trainer's arguments, so the bytes do not depend on the directory.
    subprocess.run(["spm_train", "--input=corpus.txt", "--model_prefix=spm", "--model_type=bpe",
                    "--vocab_size=150", "--normalization_rule_name=identity", "--unk_id=0", "--bos_id=1",
                    "--eos_id=2", "--pad_id=-1", "--character_coverage=1.0", "--num_threads=1",
                    "--minloglevel=2"], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=workdir)
    model = prefix + ".model"
    pieces = ref.read_sentencepiece_pieces(model)
    spm = ref.SentencePieceBpe(pieces)
    size = len(pieces) + 2  # fairseq's <pad> and <mask>

    def write_model(path):
        shutil.copyfile(model, path)

    specials = {"<s>": 0, "<pad>": 1, "</s>": 2, "<unk>": 3, "<mask>": size - 1}
    return XlmrTokenizer(spm, specials), size, (1, 0, 2, size - 1), {"sentencepiece.bpe.model": write_model}


def wordpiece_tokenizer():
    vocab = hf.BERT_SPECIAL + hf.BERT_PIECES
    wp = hf.WordPiece(vocab)

    class Tok:
        def encode(self, text):
            return [wp.ids[p] for p in wp.tokenize(text)]

    def write_vocab(path):
        with open(path, "w", encoding="utf-8") as f:
            f.write("".join(p + "\n" for p in vocab))

    ids = wp.ids
    return Tok(), len(vocab), (ids["[PAD]"], ids["[CLS]"], ids["[SEP]"], ids["[MASK]"]), {"vocab.txt": write_vocab}


def main():
    fixtures = os.path.join(REPO, "tests", "fixtures")
    tok, V, specials, files = roberta_tokenizer()
    write_fixture(os.path.join(fixtures, "roberta"), "roberta", "roberta", "mlm", tok, V, specials, files)
    write_fixture(os.path.join(fixtures, "roberta_classifier"), "roberta", "roberta", "classifier", tok, V, specials,
                  files)
    with tempfile.TemporaryDirectory() as work:
        tok, V, specials, files = xlmr_tokenizer(work)
        write_fixture(os.path.join(fixtures, "xlm_roberta"), "roberta", "xlm-roberta", "mlm", tok, V, specials, files)
        st = os.path.join(fixtures, "sentence_transformers")
        h, lengths = write_fixture(st, "roberta", "xlm-roberta", "model", tok, V, specials, files, max_seq=12)
    write_sentence_transformers(st, os.path.join(fixtures, "sentence_transformers_dense"), h, lengths)
    tok, V, specials, files = wordpiece_tokenizer()
    write_fixture(os.path.join(fixtures, "distilbert"), "distilbert", "distilbert", "mlm", tok, V, specials, files)
    write_fixture(os.path.join(fixtures, "distilbert_classifier"), "distilbert", "distilbert", "classifier", tok, V,
                  specials, files)


if __name__ == "__main__":
    main()
