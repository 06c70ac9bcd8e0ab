"""The heptapod Python module against the CLI's bytes: translate, score and bleu/chrf give what `heptapod`
prints; bad input raises heptapod.Error with the CLI's message; threads translating at once get what one
thread gets; a thousand calls leave memory where it was; heptapod.train runs the CLI's trainer.

Run by CTest (python.api) with PYTHONPATH at the built module and HEPTAPOD_BIN, HEPTAPOD_MAKE_MODEL and
HEPTAPOD_DATA set."""
import json
import os
import subprocess
import threading

import pytest

import heptapod

BIN = os.environ["HEPTAPOD_BIN"]
DATA = os.environ["HEPTAPOD_DATA"]
SOURCES = os.path.join(DATA, "numbers.dev.es")
TARGETS = os.path.join(DATA, "numbers.dev.en")


def lines(path):
    with open(path, encoding="utf-8") as f:
        return f.read().split("\n")[:-1]


def cli(*args):
    return subprocess.run([BIN, *args], check=True, capture_output=True, text=True).stdout


@pytest.fixture(scope="module")
def model(tmp_path_factory):
    path = str(tmp_path_factory.mktemp("model") / "model.htp")
    subprocess.run([os.environ["HEPTAPOD_MAKE_MODEL"], path], check=True, capture_output=True)
    return path


@pytest.fixture(scope="module")
def translator(model):
    return heptapod.Translator(model, threads=1)


def test_translate_equals_the_cli_text_scores_and_alignments(model, translator):
    out = cli("translate", "-m", model, "-i", SOURCES, "--beam", "3", "--max-extra-length", "6", "--scores",
              "--alignments", "--threads", "1")
    results = translator.translate(lines(SOURCES), beam=3, max_extra_length=6, alignments=True)
    printed = []
    for r in results:
        h = r["hypotheses"][0]
        pairs = " ".join(f"{i}-{j}" for i, j in h["alignment"])
        printed.append(f"{h['text']} ||| {h['score']:g} ||| {pairs}")
    assert "\n".join(printed) + "\n" == out


def test_nbest_equals_the_cli(model, translator):
    src = lines(SOURCES)[:20]
    out = subprocess.run([BIN, "translate", "-m", model, "--nbest", "3", "--max-extra-length", "4", "--threads", "1"],
                         input="\n".join(src) + "\n", check=True, capture_output=True, text=True).stdout  # stdin
    printed = []
    for i, r in enumerate(translator.translate(src, nbest=3, max_extra_length=4)):
        assert len(r["hypotheses"]) == 3
        for h in r["hypotheses"]:
            printed.append(f"{i} ||| {h['text']} ||| {h['score']:g}")
    assert "\n".join(printed) + "\n" == out


def test_score_equals_the_cli(model, translator):
    out = cli("score", "-m", model, "--source", SOURCES, "--target", TARGETS, "--threads", "1")
    scores = translator.score(lines(SOURCES), lines(TARGETS))
    assert "".join(f"{s['log_prob']:.6f}\n" for s in scores) == out
    assert all(len(s["token_log_probs"]) == s["tokens"] for s in scores)


def test_bleu_and_chrf_equal_the_cli(tmp_path):
    hyps = lines(TARGETS)
    refs = [h if i % 3 else h.replace("a", "e") for i, h in enumerate(hyps)]
    hyp_file, ref_file = tmp_path / "hyp.txt", tmp_path / "ref.txt"
    hyp_file.write_text("\n".join(hyps) + "\n", encoding="utf-8")
    ref_file.write_text("\n".join(refs) + "\n", encoding="utf-8")
    printed = cli("bleu", "-i", str(hyp_file), str(ref_file), "-m", "bleu").split("\n")
    b = heptapod.bleu(hyps, [refs])
    assert str(b) == printed[0]
    assert b.signature == printed[1]
    assert heptapod.bleu(hyps, refs).score == b.score  # one stream as a plain list
    assert len(b.counts) == 4 and b.sys_len > 0 and 0 < b.bp <= 1
    chrf = heptapod.chrf(hyps, refs)
    assert str(chrf) == cli("bleu", "-i", str(hyp_file), str(ref_file), "-m", "chrf").split("\n")[0]


def test_bad_input_raises_the_cli_message(tmp_path, translator):
    with pytest.raises(heptapod.Error, match="cannot open"):
        heptapod.Translator(str(tmp_path / "missing.htp"))
    with pytest.raises(heptapod.Error, match="not a regular file"):
        heptapod.Translator(str(tmp_path))
    bad = tmp_path / "bad.htp"
    bad.write_bytes(b"\x08\x00\x00\x00\x00\x00\x00\x00{not json")
    with pytest.raises(heptapod.Error, match=str(bad)):
        heptapod.Translator(str(bad))
    with pytest.raises(heptapod.Error, match="compute_type"):
        heptapod.Translator(str(bad), compute_type="float8")
    with pytest.raises(heptapod.Error, match="2 sources but 1 targets"):
        translator.score(["a", "b"], ["c"])
    with pytest.raises(heptapod.Error, match="beam"):
        translator.translate(["uno"], beam=0)
    with pytest.raises(heptapod.Error, match="segments but there are 2 hypotheses"):
        heptapod.bleu(["a", "b"], [["a"]])
    with pytest.raises(heptapod.Error, match="unknown option 'stepz'"):
        heptapod.train(SOURCES, TARGETS, str(tmp_path / "run"), stepz=3)


def test_threads_translating_at_once_equal_one_thread(model):
    src = lines(SOURCES)
    shared = heptapod.Translator(model, threads=1)
    expected = shared.translate(src, max_extra_length=5)
    results = {}

    def work(k, t):
        results[k] = t.translate(src, max_extra_length=5)

    own = heptapod.Translator(model, threads=1)
    threads = [threading.Thread(target=work, args=(k, shared if k % 2 else own)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert all(results[k] == expected for k in range(4))


def rss_kb():
    with open("/proc/self/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith("VmRSS"))


def test_a_thousand_calls_do_not_grow_memory(translator):
    src = lines(SOURCES)[:4]
    for _ in range(100):  # warm: caches and pools reach their size
        translator.translate(src, beam=2, max_extra_length=3)
        translator.score(src, src)
    before = rss_kb()
    for _ in range(1000):
        translator.translate(src, beam=2, max_extra_length=3)
        translator.score(src, src)
        heptapod.bleu(src, [src])
    assert rss_kb() - before < 8 * 1024, f"RSS grew from {before} kB to {rss_kb()} kB"


def test_model_properties(model, translator):
    assert translator.config["d_model"] > 0
    assert translator.compute_type == "float32"
    assert heptapod.Translator(model, compute_type="int8").compute_type == "int8"
    v = translator.vocabularies
    assert v["source_size"] == translator.config["src_vocab_size"]
    ids = translator.encode("dos")
    assert ids and translator.decode(ids, target=False) == "dos"


def test_train_runs_the_cli_trainer_and_resumes(tmp_path):
    updates = []
    out = str(tmp_path / "run")
    args = dict(preset="tiny", d_model=32, d_ff=64, vocab_model="char", steps=6, batch_tokens=512,
                valid_every=3, valid_bleu_sentences=0, log_every=3, threads=1)
    result = heptapod.train(os.path.join(DATA, "numbers.train.es"), os.path.join(DATA, "numbers.train.en"), out,
                            on_update=updates.append, **args)
    assert [u["step"] for u in updates] == list(range(1, 7))
    assert result["steps"] == 6 and result["stop_reason"] == "max steps"
    assert heptapod.Translator(result["model"]).translate(["uno"])[0]["hypotheses"]
    # The same call with more steps resumes from the run's last checkpoint, as the CLI does.
    args["steps"] = 8
    updates.clear()
    result = heptapod.train(os.path.join(DATA, "numbers.train.es"), os.path.join(DATA, "numbers.train.en"), out,
                            on_update=updates.append, **args)
    assert [u["step"] for u in updates] == [7, 8]


def test_train_takes_the_cli_option_table_and_trains_the_cli_model(tmp_path):
    # Options Python's train once lacked (dropouts, norm, tie, cool-down, averaging, products, validation beam,
    # the all-reduce flag): the same run through Python and through the CLI writes the same model file.
    train_es, train_en = os.path.join(DATA, "numbers.train.es"), os.path.join(DATA, "numbers.train.en")
    options = dict(preset="tiny", d_model=32, d_ff=64, vocab_model="char", steps=4, batch_tokens=512, warmup=2,
                   valid_every=2, valid_bleu_sentences=2, valid_beam=2, log_every=2, threads=1, dropout=0.1,
                   attention_dropout=0.05, activation_dropout=0.05, embedding_dropout=0.05, norm="pre",
                   tie="none", cooldown=2, average=2, keep_checkpoints=2, matmul_precision="float32",
                   no_overlap_allreduce=True, valid_source=SOURCES, valid_target=TARGETS)
    result = heptapod.train(train_es, train_en, str(tmp_path / "py"), **options)
    args = []
    for key, value in options.items():
        if value is True:
            args.append("--" + key.replace("_", "-"))
        else:
            args += ["--" + key.replace("_", "-"), str(value)]
    cli("train", "--source", train_es, "--target", train_en, "-o", str(tmp_path / "cli"), *args)
    for name in ("model.htp", "averaged.htp"):
        with open(tmp_path / "py" / name, "rb") as a, open(tmp_path / "cli" / name, "rb") as b:
            assert a.read() == b.read(), name
    config = heptapod.Translator(result["model"]).config
    assert config["norm"] == "pre" and config["tie_embeddings"] == "none"
    # Bad values get the CLI's checks, named as Python spells them.
    with pytest.raises(heptapod.Error, match="warmup"):
        heptapod.train(train_es, train_en, str(tmp_path / "bad"), warmup=0)
    with pytest.raises(heptapod.Error, match="matmul_precision"):
        heptapod.train(train_es, train_en, str(tmp_path / "bad"), matmul_precision="float8")
    with pytest.raises(heptapod.Error, match="takes a value"):
        heptapod.train(train_es, train_en, str(tmp_path / "bad"), steps=True)


def test_sampling_prefixes_and_guards_give_the_clis_bytes(model, translator, tmp_path):
    src = ["tres mil", "uno", "noventa y nueve"]
    (tmp_path / "in.txt").write_text("\n".join(src) + "\n")
    (tmp_path / "prefix.txt").write_text("three\n\nninety\n")
    out = cli("translate", "-m", model, "-i", str(tmp_path / "in.txt"), "--threads", "1", "--sample", "--seed", "4",
              "--temperature", "0.9", "--top-k", "5", "--top-p", "0.9", "--nbest", "2", "--repetition-penalty", "1.2",
              "--no-repeat-ngram", "3", "--target-prefix", str(tmp_path / "prefix.txt"))
    results = translator.translate(src, sample=True, seed=4, temperature=0.9, top_k=5, top_p=0.9, nbest=2,
                                   repetition_penalty=1.2, no_repeat_ngram=3,
                                   target_prefixes=["three", "", "ninety"])
    expected = "".join(f"{i} ||| {h['text']} ||| {h['score']:g}\n" for i, r in enumerate(results) for h in r["hypotheses"])
    assert [line.split(" ||| ")[:2] for line in out.splitlines()] == \
        [line.split(" ||| ")[:2] for line in expected.splitlines()]
    with pytest.raises(heptapod.Error, match="top-p"):
        translator.translate(src, sample=True, top_p=0.0)
    with pytest.raises(heptapod.Error, match="repetition penalty"):
        translator.translate(src, repetition_penalty=-1.0)


def test_train_keywords_none_empty_lists_and_dashes(tmp_path):
    train_es, train_en = os.path.join(DATA, "numbers.train.es"), os.path.join(DATA, "numbers.train.en")
    # None and [] leave an option out; a value beginning with "-" stays a value (here a bad one, named).
    with pytest.raises(heptapod.Error, match="max_ratio"):
        heptapod.train(train_es, train_en, str(tmp_path / "a"), init=None, freeze=[], max_ratio=-3)
    with pytest.raises(heptapod.Error, match="unknown option 'help'"):
        heptapod.train(train_es, train_en, str(tmp_path / "b"), help=True)
    with pytest.raises(heptapod.Error, match="is a flag"):
        heptapod.train(train_es, train_en, str(tmp_path / "c"), byte_fallback="yes")


def test_a_language_model_trains_and_generates_the_clis_bytes(tmp_path):
    out = str(tmp_path / "lm")
    result = heptapod.train(None, None, out, arch="decoder-only", text=os.path.join(DATA, "numbers.train.en"),
                            valid_text=TARGETS, preset="tiny", layers=2, d_model=32, d_ff=64, vocab_size=100,
                            context=16, batch_tokens=256, steps=6, valid_every=3, log_every=3, threads=1)
    assert result["steps"] == 6
    generator = heptapod.Generator(result["model"], threads=1)
    assert generator.config["architecture"] == "decoder-only"
    prompts = ["twenty", "", "nine hundred"]
    (tmp_path / "prompts.txt").write_text("\n".join(prompts) + "\n")
    for options, flags in [(dict(seed=5, nbest=2, stop=["y"]), ["--seed", "5", "--nbest", "2", "--stop", "y"]),
                           (dict(beam=3, nbest=2), ["--beam", "3", "--nbest", "2"])]:
        text = cli("generate", "-m", result["model"], "-i", str(tmp_path / "prompts.txt"), "--threads", "1",
                   "--max-tokens", "6", *flags)
        results = generator.generate(prompts, max_tokens=6, **options)
        expected = "".join(f"{i} ||| {o['text']}\n" for i, r in enumerate(results) for o in r["outputs"])
        assert [line.rsplit(" ||| ", 1)[0] for line in text.splitlines()] == expected.splitlines()
        for r in results:
            for o in r["outputs"]:
                assert o["end"] in ("end", "stop", "length") and o["text"].endswith(o["new_text"])
    with pytest.raises(heptapod.Error, match="top-p"):
        generator.generate(prompts, top_p=0.0)
    # Scores: the CLI's per-line log-probabilities, per token too.
    scored = cli("score", "-m", result["model"], "-i", str(tmp_path / "prompts.txt"), "--per-token", "--threads", "1")
    scores = generator.score(prompts)
    for line, s in zip(scored.splitlines(), scores):
        fields = [float(x) for x in line.split("\t")]
        assert fields[0] == pytest.approx(s["log_prob"], abs=1e-5)
        assert fields[1:] == pytest.approx(s["token_log_probs"], abs=1e-5)
        assert len(s["token_log_probs"]) == s["tokens"]
    with pytest.raises(heptapod.Error, match="decoder-only"):
        heptapod.Generator(_translation_model(tmp_path))


def test_transformer_xl_trains_and_scores_a_stream_as_the_cli(tmp_path):
    out = str(tmp_path / "xl")
    result = heptapod.train(None, None, out, arch="decoder-only", text=os.path.join(DATA, "numbers.train.en"),
                            preset="tiny", layers=2, d_model=32, d_ff=64, vocab_size=100, context=8,
                            batch_tokens=64, positions="relative", memory=8, clamp_length=20, steps=4, threads=1)
    generator = heptapod.Generator(result["model"], threads=1)
    assert generator.config["memory_length"] == 8
    lines = open(TARGETS).read().splitlines()[:20]
    (tmp_path / "text.txt").write_text("\n".join(lines) + "\n")
    for options, flags in [(dict(segment=8), ["--segment", "8"]), (dict(segment=8, memory=0), ["--segment", "8", "--memory", "0"]),
                           (dict(window=6), ["--sliding-window", "6"])]:
        scored = cli("score", "-m", result["model"], "-i", str(tmp_path / "text.txt"), "--threads", "1", *flags)
        scores = generator.score_stream(lines, **options)
        assert [float(x) for x in scored.split()] == pytest.approx([s["log_prob"] for s in scores], abs=1e-5)
    with pytest.raises(heptapod.Error, match="--memory"):
        generator.score_stream(lines, window=6, memory=4)


def _translation_model(tmp_path):
    path = str(tmp_path / "translation.htp")
    subprocess.run([os.environ["HEPTAPOD_MAKE_MODEL"], path], check=True, capture_output=True)
    return path


def test_an_encoder_trains_and_embeds_the_clis_numbers(tmp_path):
    out = str(tmp_path / "enc")
    result = heptapod.train(None, None, out, arch="encoder-only", text=os.path.join(DATA, "numbers.train.en"),
                            valid_text=TARGETS, preset="tiny", layers=2, d_model=32, d_ff=64, vocab_size=100,
                            context=16, batch_tokens=256, steps=4, valid_every=2, log_every=2, threads=1,
                            mask_rate=0.2, whole_word_mask=True)
    assert result["steps"] == 4
    encoder = heptapod.Encoder(result["model"], threads=1)
    assert encoder.config["architecture"] == "encoder-only" and encoder.config["mlm_head"]
    texts = ["twenty", "", "nine hundred and one"]
    (tmp_path / "texts.txt").write_text("\n".join(texts) + "\n")
    vectors = encoder.embed(texts, normalize=True)
    lines = cli("embed", "-m", result["model"], "-i", str(tmp_path / "texts.txt"), "--normalize", "--threads", "1")
    expected = [[float(x) for x in line.strip("[]").split(", ")] for line in lines.splitlines()]
    assert len(vectors) == len(texts) == len(expected)
    for got, want in zip(vectors, expected):
        assert list(got) == pytest.approx(want, abs=1e-7)
        assert sum(float(x) * float(x) for x in got) == pytest.approx(1.0, abs=1e-5)
    try:
        import numpy
        assert isinstance(vectors, numpy.ndarray) and vectors.shape == (3, 32) and vectors.dtype == numpy.float32
    except ImportError:
        assert isinstance(vectors, list)
    ids = encoder.encode("twenty")
    assert ids[0] == encoder.config["bos_id"] and ids[-1] == encoder.config["eos_id"]
    # Sentence pairs as (first, second) tuples: the CLI's vectors for "first<TAB>second" lines with --pairs.
    pairs = [("twenty", "nine hundred"), ("", "one")]
    (tmp_path / "pairs.txt").write_text("".join(a + "\t" + b + "\n" for a, b in pairs))
    lines = cli("embed", "-m", result["model"], "-i", str(tmp_path / "pairs.txt"), "--pairs", "--threads", "1")
    expected = [[float(x) for x in line.strip("[]").split(", ")] for line in lines.splitlines()]
    for got, want in zip(encoder.embed(pairs), expected):
        assert list(got) == pytest.approx(want, abs=1e-6)
    with pytest.raises(heptapod.Error, match="sentence pair"):
        encoder.embed([("a", "b", "c")])
    with pytest.raises(heptapod.Error, match="pooling"):
        encoder.embed(texts, pooling="sum")
    with pytest.raises(heptapod.Error, match="encoder-only"):
        heptapod.Encoder(_translation_model(tmp_path))


def test_a_classifier_trains_and_classifies_as_the_cli(tmp_path):
    text = os.path.join(DATA, "numbers.train.en")
    labels = tmp_path / "train.labels"
    with open(text) as f:
        labels.write_text("".join(("seven" if "seven" in line else "plain") + "\n" for line in f))
    result = heptapod.train(None, None, str(tmp_path / "cls"), arch="encoder-only", task="classify", text=text,
                            labels=str(labels), preset="tiny", layers=1, d_model=32, d_ff=64, vocab_size=100,
                            context=16, batch_tokens=256, steps=4, log_every=2, threads=1)
    encoder = heptapod.Encoder(result["model"], threads=1)
    assert encoder.labels == ["plain", "seven"]
    texts = ["one hundred", "seven", ""]
    (tmp_path / "texts.txt").write_text("\n".join(texts) + "\n")
    out = cli("classify", "-m", result["model"], "-i", str(tmp_path / "texts.txt"), "--top-k", "2", "--threads", "1")
    for line, r in zip(out.splitlines(), encoder.classify(texts, top_k=2)):
        fields = line.split("\t")
        assert [fields[0], fields[2]] == [label for label, _ in r["top"]]
        assert [float(fields[1]), float(fields[3])] == pytest.approx([p for _, p in r["top"]], abs=1e-6)
        assert r["labels"] == [fields[0]]


FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fixtures")


def test_converted_gpt2_and_bert_give_the_clis_bytes(tmp_path):
    """Converted Hugging Face models load like any other: the GPT-2 fixture's greedy continuations and the
    BERT classifier's classes are the CLI's, read through the tokenizers inside the model files."""
    gpt2, bert = str(tmp_path / "gpt2.htp"), str(tmp_path / "bert.htp")
    cli("convert", os.path.join(FIXTURES, "gpt2"), "--from", "gpt2", "-o", gpt2)
    cli("convert", os.path.join(FIXTURES, "bert_classifier"), "--from", "bert", "-o", bert)
    prompts = ["The dog and the fox", "Hello! It's a  test."]
    (tmp_path / "prompts.txt").write_text("\n".join(prompts) + "\n")
    text = cli("generate", "-m", gpt2, "-i", str(tmp_path / "prompts.txt"), "--beam", "1", "--max-tokens", "8",
               "--threads", "1")
    generator = heptapod.Generator(gpt2, threads=1)
    results = generator.generate(prompts, beam=1, max_tokens=8)
    assert text.splitlines() == [r["outputs"][0]["text"] for r in results]
    assert generator.decode(generator.encode("caf\u00e9 \U0001F600 <|endoftext|>")) == "caf\u00e9 \U0001F600 <|endoftext|>"
    texts = ["the cat sat on the mat", "where is the [MASK] dog?"]
    (tmp_path / "texts.txt").write_text("\n".join(texts) + "\n")
    out = cli("classify", "-m", bert, "-i", str(tmp_path / "texts.txt"), "--top-k", "3", "--threads", "1")
    encoder = heptapod.Encoder(bert, threads=1)
    assert encoder.labels == ["negative", "neutral", "positive"]
    for line, r in zip(out.splitlines(), encoder.classify(texts, top_k=3)):
        fields = line.split("\t")
        assert fields[0::2] == [label for label, _ in r["top"]]
        assert [float(x) for x in fields[1::2]] == pytest.approx([p for _, p in r["top"]], abs=1e-6)


def test_multilingual_models_take_language_codes_as_the_cli(tmp_path):
    """A converted NLLB fixture (convert --from m2m100) lists its language codes, and translates with a source
    and a target language (its codes, or ISO 639-1 codes) as `heptapod translate --source-lang/--target-lang`;
    an unknown code raises the CLI's message, the model's codes listed."""
    nllb = str(tmp_path / "nllb.htp")
    cli("convert", os.path.join(FIXTURES, "nllb"), "--from", "m2m100", "-o", nllb)
    texts = ["twenty-six thousand one hundred and four", "tres mil"]
    (tmp_path / "texts.txt").write_text("\n".join(texts) + "\n")
    out = cli("translate", "-m", nllb, "-i", str(tmp_path / "texts.txt"), "--source-lang", "eng_Latn",
              "--target-lang", "spa_Latn", "--threads", "1")
    translator = heptapod.Translator(nllb, threads=1)
    assert list(translator.languages) == ["eng_Latn", "fra_Latn", "spa_Latn", "deu_Latn"]
    for source, target in (("eng_Latn", "spa_Latn"), ("en", "es")):
        results = translator.translate(texts, source_lang=source, target_lang=target)
        assert out.splitlines() == [r["hypotheses"][0]["text"] for r in results]
        assert all(r["hypotheses"][0]["tokens"][0] == translator.languages["spa_Latn"] for r in results)
    with pytest.raises(heptapod.Error, match="eng_Latn, fra_Latn, spa_Latn, deu_Latn"):
        translator.translate(texts, target_lang="tlh_Latn")


def test_converted_llama_family_models_give_the_clis_bytes(tmp_path):
    """LLaMA-family checkpoints (convert --from llama) load in the Python Generator like any other: greedy
    continuations equal the CLI's, read through the tokenizer.json tokenizer inside the model file."""
    for family in ("llama", "mistral", "qwen2", "qwen3"):
        model = str(tmp_path / (family + ".htp"))
        cli("convert", os.path.join(FIXTURES, family), "--from", "llama", "-o", model)
        prompts = ["The dog and the fox", "Hello! It's a  test."]
        (tmp_path / "prompts.txt").write_text("\n".join(prompts) + "\n")
        text = cli("generate", "-m", model, "-i", str(tmp_path / "prompts.txt"), "--beam", "1", "--max-tokens",
                   "8", "--threads", "1")
        generator = heptapod.Generator(model, threads=1)
        results = generator.generate(prompts, beam=1, max_tokens=8)
        assert text == "".join(r["outputs"][0]["text"] + "\n" for r in results), family  # texts may hold newlines


def test_generate_logprobs_are_the_clis_records(tmp_path):
    """Generator.generate(logprobs=K) gives each token of new_text's record as `heptapod generate --logprobs K`
    writes it: its id, raw bytes (joining to the new text) and log-probability, and the K most likely."""
    gpt2 = str(tmp_path / "gpt2.htp")
    cli("convert", os.path.join(FIXTURES, "gpt2"), "--from", "gpt2", "-o", gpt2)
    prompts = ["The dog and the fox", "Hello! It's"]
    (tmp_path / "prompts.txt").write_text("\n".join(prompts) + "\n")
    text = cli("generate", "-m", gpt2, "-i", str(tmp_path / "prompts.txt"), "--max-tokens", "6", "--seed", "3",
               "--logprobs", "2", "--threads", "1")
    generator = heptapod.Generator(gpt2, threads=1)
    results = generator.generate(prompts, max_tokens=6, seed=3, logprobs=2)
    lines = [json.loads(line) for line in text.splitlines()]
    assert len(lines) == len(results)
    for line, r in zip(lines, results):
        o = r["outputs"][0]
        assert line["new_text"] == o["new_text"]
        records = o["logprobs"]
        assert [t["id"] for t in records] == o["tokens"][len(o["tokens"]) - o["new_tokens"]:]
        assert [t["id"] for t in line["logprobs"]] == [t["id"] for t in records]
        assert [bytes(t["bytes"]) for t in line["logprobs"]] == [t["bytes"] for t in records]
        assert [t["logprob"] for t in line["logprobs"]] == pytest.approx([t["logprob"] for t in records], abs=1e-7)
        assert b"".join(t["bytes"] for t in records).decode("utf-8", "replace") == o["new_text"]
        for t in records:
            assert t["logprob"] <= 0 and len(t["top_logprobs"]) == 2
            assert t["top_logprobs"][0]["logprob"] >= t["top_logprobs"][1]["logprob"] >= -1e30
    assert "logprobs" not in generator.generate(prompts, max_tokens=2)[0]["outputs"][0]
    with pytest.raises(heptapod.Error, match="logprobs"):
        generator.generate(prompts, logprobs=-1)


CHATML = ("{%- for message in messages %}{{- '<|im_start|>' + message.role + '\\n' + message.content + "
          "'<|im_end|>\\n' }}{%- endfor %}{%- if add_generation_prompt %}{{- '<|im_start|>assistant\\n' }}{%- endif %}")


def test_chat_gives_the_clis_reply_and_prompt(tmp_path):
    """Generator.chat and render_chat give what `heptapod chat --messages` and `--render` write for the same
    conversation (the Qwen 3 fixture converted, a ChatML template set with convert --chat-template), logprobs
    as `chat --logprobs` gives them; a model without a template and a bad message raise the CLI's message."""
    plain = str(tmp_path / "qwen3.htp")  # Qwen 3's fixture: no bound on its context
    cli("convert", os.path.join(FIXTURES, "qwen3"), "--from", "llama", "-o", plain)
    (tmp_path / "chatml.jinja").write_text(CHATML)
    model = str(tmp_path / "chat.htp")
    cli("convert", plain, "--chat-template", str(tmp_path / "chatml.jinja"), "-o", model)
    messages = [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "The dog and the fox"},
                {"role": "assistant", "content": "Hello!"}, {"role": "user", "content": "Caf\u00e9?"}]
    (tmp_path / "talk.json").write_text(json.dumps(messages))
    generator = heptapod.Generator(model, threads=1)
    rendered = cli("chat", "-m", model, "--messages", str(tmp_path / "talk.json"), "--render")
    assert rendered == generator.render_chat(messages)
    assert rendered.endswith("<|im_start|>user\nCaf\u00e9?<|im_end|>\n<|im_start|>assistant\n")
    assert generator.render_chat(messages, add_generation_prompt=False) + "<|im_start|>assistant\n" == rendered
    reply = cli("chat", "-m", model, "--messages", str(tmp_path / "talk.json"), "--seed", "5", "--max-tokens", "6",
                "--threads", "1")
    got = generator.chat(messages, seed=5, max_tokens=6)
    assert reply == got["content"] + "\n"
    assert got["prompt_tokens"] == len(generator.encode(rendered))  # Qwen's sequences begin with their text
    line = json.loads(cli("chat", "-m", model, "--messages", str(tmp_path / "talk.json"), "--seed", "5",
                          "--max-tokens", "6", "--logprobs", "2", "--threads", "1"))
    records = generator.chat(messages, seed=5, max_tokens=6, logprobs=2)["logprobs"]
    assert line["content"] == got["content"]
    assert [t["logprob"] for t in line["logprobs"]["content"]] == pytest.approx([t["logprob"] for t in records],
                                                                                abs=1e-6)
    assert [len(t["top_logprobs"]) for t in line["logprobs"]["content"]] == [2] * len(records)
    with pytest.raises(heptapod.Error, match="chat template"):
        heptapod.Generator(plain, threads=1).chat(messages)
    with pytest.raises(heptapod.Error, match=r"messages\[0\]\.role"):
        generator.chat([{"content": "x"}])


def test_adapters_give_the_clis_bytes(tmp_path):
    """Translator, Generator and Encoder take adapter= as the CLI's --adapter takes it: the CLI's bytes, which are
    not the base's."""
    def model_and_adapter(kind):
        base, adapter = str(tmp_path / (kind + ".htp")), str(tmp_path / (kind + ".adapter.htp"))
        subprocess.run([os.environ["HEPTAPOD_MAKE_MODEL"], base, kind], check=True, capture_output=True)
        subprocess.run([os.environ["HEPTAPOD_MAKE_MODEL"], adapter, "adapter", base], check=True, capture_output=True)
        return base, adapter

    base, adapter = model_and_adapter("generation")
    prompts = ["twenty", "nine hundred", "one"]
    (tmp_path / "prompts.txt").write_text("\n".join(prompts) + "\n")
    generate = ["generate", "-m", base, "-i", str(tmp_path / "prompts.txt"), "--max-tokens", "6", "--threads", "1"]
    text = cli(*generate, "--adapter", adapter)
    assert text != cli(*generate)
    results = heptapod.Generator(base, threads=1, adapter=adapter).generate(prompts, max_tokens=6)
    assert text.splitlines() == [r["outputs"][0]["text"] for r in results]

    base, adapter = model_and_adapter("translation")
    translate = ["translate", "-m", base, "-i", SOURCES, "--scores", "--threads", "1"]
    text = cli(*translate, "--adapter", adapter)
    assert text != cli(*translate)
    results = heptapod.Translator(base, threads=1, adapter=adapter).translate(lines(SOURCES))
    assert "".join(f"{r['hypotheses'][0]['text']} ||| {r['hypotheses'][0]['score']:g}\n" for r in results) == text

    base, adapter = model_and_adapter("classification")
    texts = ["one hundred", "seven", ""]
    (tmp_path / "texts.txt").write_text("\n".join(texts) + "\n")
    out = cli("classify", "-m", base, "--adapter", adapter, "-i", str(tmp_path / "texts.txt"), "--top-k", "2",
              "--threads", "1")
    for line, r in zip(out.splitlines(), heptapod.Encoder(base, threads=1, adapter=adapter).classify(texts, top_k=2)):
        fields = line.split("\t")
        assert [fields[0], fields[2]] == [label for label, _ in r["top"]]
        assert [float(fields[1]), float(fields[3])] == pytest.approx([p for _, p in r["top"]], abs=1e-6)
    with pytest.raises(heptapod.Error, match="another base"):
        heptapod.Encoder(model_and_adapter("embedding")[0], threads=1, adapter=adapter)


def test_a_sentence_transformers_model_embeds_by_its_own_defaults(tmp_path):
    # Converted from its directory (found by modules.json): mean pooling, normalised, as `heptapod embed` does.
    path = str(tmp_path / "st.htp")
    cli("convert", os.path.join(FIXTURES, "sentence_transformers"), "-o", path)
    encoder = heptapod.Encoder(path, threads=1)
    assert encoder.config.get("embed_pooling", "mean") == "mean" and encoder.config["embed_normalize"]
    texts = ["The cat sat on the mat.", "Hello, world! 42 cats like the sun."]
    (tmp_path / "texts.txt").write_text("\n".join(texts) + "\n")
    lines = cli("embed", "-m", path, "-i", str(tmp_path / "texts.txt"), "--threads", "1")
    expected = [[float(x) for x in line.strip("[]").split(", ")] for line in lines.splitlines()]
    for got, want in zip(encoder.embed(texts), expected):
        assert list(got) == pytest.approx(want, abs=1e-7)
        assert sum(float(x) * float(x) for x in got) == pytest.approx(1.0, abs=1e-5)
    raw = encoder.embed(texts, pooling="max", normalize=False)
    assert sum(float(x) * float(x) for x in raw[0]) != pytest.approx(1.0, abs=1e-3)
