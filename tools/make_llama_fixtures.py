#!/usr/bin/python3
# make_llama_fixtures.py -- tiny random checkpoints of the LLaMA family (llama, mistral, qwen2, qwen3) under
# Hugging Face's exact tensor names and config keys, with reference outputs from tools/llama_reference.py (an
# independent float64 implementation of the published math), for the tests of `heptapod convert DIR --from llama`.
#
#   /usr/bin/python3 tools/make_llama_fixtures.py [llama] [mistral] [qwen2] [qwen3]
#
# Each directory is what a downloaded snapshot holds: config.json, generation_config.json, the weights,
# tokenizer.json and tokenizer_config.json (small tokenizers made by tools/llama_tokenizers.py, merges learned
# from tools/make_hf_fixtures.py's CORPUS), and reference.safetensors:
#
#   tests/fixtures/llama/    LlamaForCausalLM: 4 heads, 2 key/value heads, untied lm_head, rope_scaling
#                            {"rope_type": "llama3"} with original_max_position_embeddings 16 (shorter than
#                            the longer prompts and training rows) and rope_theta 5 so the frequencies meet all
#                            three branches of the remap; F32 weights sharded in two files (model.safetensors.index.json,
#                            model-00001-of-00002.safetensors, model-00002-of-00002.safetensors); LLaMA 3's
#                            tokenizer form (Split regex with \p{N}{1,3}, ignore_merges, <|begin_of_text|> first);
#                            generation_config eos_token_id [<|end_of_text|>, <|eot_id|>], do_sample, temperature
#                            0.6, top_p 0.9
#   tests/fixtures/mistral/  MistralForCausalLM: 4 heads, 1 key/value head (multi-query), sliding_window 32 (longer
#                            than every sequence here), untied, BF16 weights; SentencePiece-style BPE with
#                            byte_fallback (<unk> 0, <s> 1, </s> 2, <0xNN> 3-258), <s> first
#   tests/fixtures/qwen2/    Qwen2ForCausalLM: q/k/v biases, 4 heads = 4 key/value heads, tie_word_embeddings (no
#                            lm_head.weight in the file), rope_scaling {"type": "linear", "factor": 2.0} (the older
#                            key), F16 weights, use_sliding_window false with sliding_window 4 (shorter than the
#                            sequences: it must be ignored); Qwen's tokenizer form (NFC, single digits, no bos,
#                            merges as "a b" strings); generation_config top_k 20, top_p 0.8, temperature 0.7,
#                            repetition_penalty 1.05, eos [<|im_end|>, <|endoftext|>]
#   tests/fixtures/qwen3/    Qwen3ForCausalLM: q_norm / k_norm, head_dim 16 with hidden_size 32 and 4 heads (2
#                            key/value heads), untied, "rope_parameters" {"rope_type": "dynamic", "factor": 2.0,
#                            "rope_theta": 10000.0} (no top-level rope_theta), max_position_embeddings 8 (so
#                            dynamic scaling is in force past 8 positions), F32; Qwen's tokenizer form with merges
#                            as ["a", "b"] pairs
#
# reference.safetensors (metadata format "heptapod-llama-fixture", format_version "1", family; the rest JSON
# strings or numbers as text), values in float64 from the stored (rounded) weights, B = 3:
#   batch/input_ids     I32 (B, T)  the prompts' ids as the tokenizer makes them (llama, mistral: the bos id first;
#                                   qwen: none), right-padded with the config's eos id (a filler, never read)
#   batch/lengths       I32 (B)
#   expect/logits       F32 (B, T, V)  each row alone, as its own sequence (its length chooses dynamic scaling's
#                                   frequencies); rows t >= length are 0: compare t < length
#   expect/greedy       I32 (B, 8)  8 new ids by argmax over all V ids after each prompt alone, through the
#                                   key/value cache: a new key is rotated once, with the frequencies of its own step
#                                   (for dynamic scaling, the sequence length at that step; qwen3's prompts cross
#                                   max_position_embeddings while generating, and its greedy ids differ from those
#                                   of rerunning the whole sequence each step); no stopping; every step wins by
#                                   MARGIN (0.05) in log-probability, never an eos or special id, only ids the
#                                   tokenizer makes from the corpus
#   batch/train_input   I32 (B, Tt) training rows: tokenized corpus lines (bos first where the family has one),
#                                   right-padded with the eos id
#   batch/train_target  I32 (B, Tt) the next ids; -1 exactly on the padding (t >= train_lengths[b])
#   batch/train_lengths I32 (B)     each row its own sequence, as for the logits
#   expect/loss         F64 (1)     label-smoothed cross-entropy (metadata label_smoothing 0.1), mean over the
#                                   targets that are not -1
#   grad/<HF name>      F64         d loss / d tensor for every tensor of the checkpoint (a tied embedding's
#                                   gradient sums both uses)
#   expect/adam_losses  F64 (11)    the loss before each of 10 Adam updates on the training batch (betas (0.9,
#                                   0.98), eps 1e-9, rate lr_scale * d_model^-0.5 * min(step^-0.5, step *
#                                   warmup_steps^-1.5) from step 1, d_model = hidden_size), then after the 10th
#   metadata: prompts, prompt_ids, greedy_text (prompt ids + greedy ids decoded, special tokens skipped),
#             eos_token_ids (config's and generation_config's), label_smoothing, lr_scale, warmup_steps, d_model,
#             adam_beta1, adam_beta2, adam_eps
# Self-checks: every file is re-read (the weights through llama_reference.load_checkpoint, sharded or not, F32 /
# F16 / BF16, equal to the values used; tokenizer.json rebuilt into an encoder that gives the same ids); central
# finite differences of the float64 loss at entries of every kind of tensor; the loss equals F.cross_entropy's;
# grouped-query attention equals the model with its key/value heads repeated; cached greedy equals uncached for
# the static rotary types; the llama3 remap at its branch boundaries by hand; linear scaling equals positions
# divided by the factor; dynamic scaling by hand; a sliding window against a window-long sequence; which layers
# slide; the activations against torch's; unknown model and rotary types refused; the Adam losses reproduced
# within 2e-5 in float32 and from perturbed weights. Deterministic: the same bytes on every run.

import json
import math
import os
import sys
from dataclasses import dataclass

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import llama_reference as ref  # noqa: E402
import make_parity_fixtures as parity  # noqa: E402
from llama_tokenizers import ByteLevelBPE, SentencePieceBPE, tokenizer_config, tokenizer_from_json, \
    write_tokenizer  # noqa: E402
from make_hf_fixtures import CORPUS, padded, write_json, write_model  # noqa: E402
from make_parity_fixtures import REPO, check_round_trip, write_safetensors  # noqa: E402

torch.set_num_threads(1)
D = torch.float64
MARGIN = 0.05
NEW_TOKENS = 8
LABEL_SMOOTHING = 0.1
WARMUP_STEPS = 4
MERGES = 40
SEEDS = int(os.environ.get("FIXTURE_SEEDS", "400"))
DTYPE_NAMES = {torch.float32: "float32", torch.float16: "float16", torch.bfloat16: "bfloat16"}


@dataclass
class Fixture:
    """One family's checkpoint: its tokenizer, config.json, generation_config.json, tokenizer_config.json's
    fields, how its weights are stored, and the texts and rows of its reference."""
    name: str
    tok: object
    config: dict
    generation_config: dict
    tokenizer_fields: dict
    dtype: torch.dtype
    prompts: list
    train_lengths: list
    shards: int = 1
    merges_as_pairs: bool = False
    lr_scale: float = 0.1
    # Weight scales: the projections' gain over 1/sqrt(in), and the final norm's (sharper logits).
    gain: float = 1.0
    final_gain: float = 1.0


def common_config(tok, architecture, model_type, dtype, **kw):
    """The keys every family's config.json has, then the family's own."""
    return dict({"architectures": [architecture], "attention_dropout": 0.0, "hidden_act": "silu",
                 "initializer_range": 0.02, "model_type": model_type, "torch_dtype": DTYPE_NAMES[dtype],
                 "transformers_version": "4.51.0", "use_cache": True, "vocab_size": tok.size()}, **kw)


def llama_fixture():
    specials = ["<|begin_of_text|>", "<|end_of_text|>", "<|start_header_id|>", "<|end_header_id|>", "<|eot_id|>"]
    tok = ByteLevelBPE.learn("llama3", CORPUS, MERGES, specials, bos="<|begin_of_text|>")
    s = tok.special_ids
    config = common_config(
        tok, "LlamaForCausalLM", "llama", torch.float32, attention_bias=False, bos_token_id=s["<|begin_of_text|>"],
        eos_token_id=s["<|end_of_text|>"], head_dim=8, hidden_size=32, intermediate_size=48,
        max_position_embeddings=64, mlp_bias=False, num_attention_heads=4, num_hidden_layers=2,
        num_key_value_heads=2, pretraining_tp=1, rms_norm_eps=1e-05, rope_theta=5.0,
        rope_scaling={"factor": 4.0, "high_freq_factor": 2.0, "low_freq_factor": 1.0,
                      "original_max_position_embeddings": 16, "rope_type": "llama3"},
        tie_word_embeddings=False)
    generation = {"bos_token_id": s["<|begin_of_text|>"], "do_sample": True,
                  "eos_token_id": [s["<|end_of_text|>"], s["<|eot_id|>"]], "temperature": 0.6, "top_p": 0.9,
                  "transformers_version": "4.51.0"}
    fields = {"bos_token": "<|begin_of_text|>", "eos_token": "<|end_of_text|>",
              "model_input_names": ["input_ids", "attention_mask"], "model_max_length": 131072,
              "tokenizer_class": "PreTrainedTokenizerFast"}
    return Fixture("llama", tok, config, generation, fields, torch.float32,
                   ["The quick brown fox", "Hello, world! It's 12345 apples.", "We've got 42\n\nThe dog"],
                   [20, 17, 12], shards=2, gain=1.5)


def mistral_fixture():
    tok = SentencePieceBPE.learn(CORPUS, MERGES)
    config = common_config(
        tok, "MistralForCausalLM", "mistral", torch.bfloat16, bos_token_id=1, eos_token_id=2, head_dim=8,
        hidden_size=32, intermediate_size=48, max_position_embeddings=128, num_attention_heads=4,
        num_hidden_layers=2, num_key_value_heads=1, rms_norm_eps=1e-05, rope_theta=10000.0, sliding_window=32,
        tie_word_embeddings=False)
    generation = {"_from_model_config": True, "bos_token_id": 1, "eos_token_id": 2, "transformers_version": "4.51.0"}
    fields = {"add_bos_token": True, "add_eos_token": False, "additional_special_tokens": [], "bos_token": "<s>",
              "eos_token": "</s>", "legacy": True, "model_max_length": 1000000000000000019884624838656,
              "pad_token": None, "sp_model_kwargs": {}, "spaces_between_special_tokens": False,
              "tokenizer_class": "LlamaTokenizer", "unk_token": "<unk>", "use_default_system_prompt": False}
    return Fixture("mistral", tok, config, generation, fields, torch.bfloat16,
                   ["The dog sleeps", "Hello, caf\u00e9 and tea!", "We've got 42\napples"], [12, 9, 6], gain=1.5)


QWEN_SPECIALS = ["<|endoftext|>", "<|im_start|>", "<|im_end|>"]
QWEN_FIELDS = {"add_prefix_space": False, "additional_special_tokens": ["<|im_start|>", "<|im_end|>"],
               "bos_token": None, "eos_token": "<|im_end|>", "errors": "replace", "model_max_length": 32768,
               "pad_token": "<|endoftext|>", "split_special_tokens": False, "tokenizer_class": "Qwen2Tokenizer",
               "unk_token": None}


def qwen2_fixture():
    tok = ByteLevelBPE.learn("qwen", CORPUS, MERGES, QWEN_SPECIALS)
    s = tok.special_ids
    config = common_config(
        tok, "Qwen2ForCausalLM", "qwen2", torch.float16, bos_token_id=s["<|endoftext|>"],
        eos_token_id=s["<|im_end|>"], hidden_size=32, intermediate_size=48, max_position_embeddings=64,
        max_window_layers=2, num_attention_heads=4, num_hidden_layers=2, num_key_value_heads=4, rms_norm_eps=1e-06,
        rope_scaling={"factor": 2.0, "type": "linear"}, rope_theta=10000.0, sliding_window=4,
        tie_word_embeddings=True, use_sliding_window=False)
    generation = {"bos_token_id": s["<|endoftext|>"], "do_sample": True,
                  "eos_token_id": [s["<|im_end|>"], s["<|endoftext|>"]], "pad_token_id": s["<|endoftext|>"],
                  "repetition_penalty": 1.05, "temperature": 0.7, "top_k": 20, "top_p": 0.8,
                  "transformers_version": "4.51.0"}
    # The third prompt's "e" + U+0301 becomes one "é" under NFC.
    return Fixture("qwen2", tok, config, generation, QWEN_FIELDS, torch.float16,
                   ["<|im_start|>user\nThe fox", "It runs 123 woods", "Cafe\u0301 in the sun"], [12, 9, 6],
                   gain=1.5)


def qwen3_fixture():
    tok = ByteLevelBPE.learn("qwen", CORPUS, MERGES, QWEN_SPECIALS)
    s = tok.special_ids
    config = common_config(
        tok, "Qwen3ForCausalLM", "qwen3", torch.float32, attention_bias=False, bos_token_id=s["<|endoftext|>"],
        eos_token_id=s["<|im_end|>"], head_dim=16, hidden_size=32, intermediate_size=48,
        layer_types=["full_attention", "full_attention"], max_position_embeddings=8, max_window_layers=2,
        num_attention_heads=4, num_hidden_layers=2, num_key_value_heads=2, rms_norm_eps=1e-06,
        rope_parameters={"factor": 2.0, "rope_theta": 10000.0, "rope_type": "dynamic"}, sliding_window=None,
        tie_word_embeddings=False, use_sliding_window=False)
    generation = {"bos_token_id": s["<|endoftext|>"], "do_sample": True,
                  "eos_token_id": [s["<|im_end|>"], s["<|endoftext|>"]], "pad_token_id": s["<|endoftext|>"],
                  "temperature": 0.6, "top_k": 20, "top_p": 0.95, "transformers_version": "4.51.0"}
    # Prompts below, near and past max_position_embeddings (8); training rows past and below it.
    return Fixture("qwen3", tok, config, generation, QWEN_FIELDS, torch.float32,
                   ["The dog", "The fox runs into the", "It's a small test of the tokenizer"], [14, 11, 7],
                   merges_as_pairs=True, gain=1.5)


FIXTURES = {"llama": llama_fixture, "mistral": mistral_fixture, "qwen2": qwen2_fixture, "qwen3": qwen3_fixture}

# ------------------------------------------------------------------------------------------------ weights


def draw_weights(c, gen, rare_rows, fx):
    """{name: float32 tensor}, rounded to the fixture's storage dtype."""
    P = {}
    for name, shape in ref.expected_tensors(c):
        if name == "model.norm.weight":
            t = fx.final_gain * (1 + 0.2 * torch.randn(shape, generator=gen))
        elif name.endswith("norm.weight"):
            t = 1 + 0.2 * torch.randn(shape, generator=gen)
        elif name.endswith(".bias"):
            t = 0.2 * torch.randn(shape, generator=gen)
        elif name in ("model.embed_tokens.weight", "lm_head.weight"):
            t = torch.randn(shape, generator=gen)
            t[rare_rows] *= 0.1  # ids the corpus never makes stay near their initialisation
        else:
            t = fx.gain * torch.randn(shape, generator=gen) / math.sqrt(shape[1])
        P[name] = t.to(fx.dtype).to(torch.float32)
    return P


def state_files(c, P32, fx):
    """[(file name, [(name, stored tensor)])]: tensors sorted by name in each file (as safetensors writes them);
    sharded: the embedding and the first layers in the first file, the rest in the second."""
    names = [n for n, _ in ref.expected_tensors(c)]
    if fx.shards == 1:
        return [("model.safetensors", [(n, P32[n].to(fx.dtype)) for n in sorted(names)])]
    cut = names.index("model.layers.%d.self_attn.q_proj.weight" % (c.layers // 2))
    parts = [names[:cut], names[cut:]]
    return [("model-%05d-of-%05d.safetensors" % (i + 1, len(parts)), [(n, P32[n].to(fx.dtype)) for n in sorted(p)])
            for i, p in enumerate(parts)]


def write_weights(out, files):
    for fname, state in files:
        write_model(os.path.join(out, fname), state)
    if len(files) > 1:
        weight_map = {n: fname for fname, state in files for n, _ in state}
        total = sum(t.numel() * t.element_size() for _, state in files for _, t in state)
        write_json(os.path.join(out, "model.safetensors.index.json"),
                   {"metadata": {"total_size": total}, "weight_map": dict(sorted(weight_map.items()))})

# ------------------------------------------------------------------------------------------------ batches


def training_batch(fx, eos):
    """Rows of the corpus's lines as the tokenizer makes them (bos first where it adds one), inputs the first
    train_lengths[b] ids, targets the next ones; right-padded (inputs with eos, targets with -1)."""
    lines = [line for line in CORPUS.splitlines() if line]
    rows_in, rows_out = [], []
    for line, n in zip(lines, fx.train_lengths):
        ids = fx.tok.encode(line)
        assert len(ids) > n, "corpus line too short for a row of %d" % n
        rows_in.append(ids[:n])
        rows_out.append(ids[1:n + 1])
    return padded(rows_in, eos), padded(rows_out, -1), torch.tensor(fx.train_lengths, dtype=torch.int32)

# ------------------------------------------------------------------------------------------------ checks


def check_math():
    """The reference's pieces against hand-computed values and independent formulations."""
    # llama3's remap at Llama 3.1's numbers (factor 8, low 1, high 4, original 8192): wavelengths up to 2048
    # keep their frequency, past 8192 are divided by 8, between blend with s = (8192 / w - 1) / 3.
    w = torch.tensor([1000.0, 2048.0, 4096.0, 8192.0, 10000.0], dtype=D)
    got = ref.llama3_remap(2 * math.pi / w, 8.0, 1.0, 4.0, 8192)
    want = 2 * math.pi / w * torch.tensor([1, 1, 1 / 12 + 1 / 3, 1 / 8, 1 / 8], dtype=D)
    assert torch.allclose(got, want, rtol=1e-15, atol=0), (got, want)
    # Linear scaling = positions divided by the factor; dynamic by hand; both against the default frequencies.
    x = torch.randn(5, 2, 8, dtype=D, generator=torch.Generator().manual_seed(1))
    pos = torch.arange(5)
    default = ref.Rope(theta=100.0, kind="default", dims=8)
    linear = ref.Rope(theta=100.0, kind="linear", dims=8, factor=2.0)
    assert torch.allclose(ref.rotate(x, pos, ref.inv_frequencies(linear, 5)),
                          ref.rotate(x, pos / 2.0, ref.inv_frequencies(default, 5)), rtol=0, atol=1e-15)
    dynamic = ref.Rope(theta=100.0, kind="dynamic", dims=8, factor=2.0, max_position_embeddings=4)
    assert torch.equal(ref.inv_frequencies(dynamic, 4), ref.inv_frequencies(default, 4))
    theta = 100.0 * (2.0 * 6 / 4 - 1.0) ** (8 / 6)
    assert torch.allclose(ref.inv_frequencies(dynamic, 6), theta ** (-torch.arange(0, 8, 2, dtype=D) / 8),
                          rtol=1e-14, atol=0)
    # The rotation keeps norms and turns pair (i, i + R/2) by angle p * inv_freq[i]; columns past R pass.
    partial = ref.rotate(x, pos, ref.inv_frequencies(ref.Rope(theta=100.0, kind="default", dims=4), 5))
    assert torch.equal(partial[..., 4:], x[..., 4:])
    a = 3 * 100.0 ** (-2 / 4)
    assert abs(partial[3, 0, 1].item() - (x[3, 0, 1] * math.cos(a) - x[3, 0, 3] * math.sin(a)).item()) < 1e-14
    # Activations against torch's.
    t = torch.linspace(-5, 5, 101, dtype=D)
    assert torch.allclose(ref.silu(t), F.silu(t), rtol=1e-14, atol=1e-15)
    assert torch.allclose(ref.gelu(t), F.gelu(t), rtol=1e-14, atol=1e-15)
    assert torch.allclose(ref.gelu_tanh(t), F.gelu(t, approximate="tanh"), rtol=1e-14, atol=1e-15)
    # Which layers slide; what is refused.
    base = {"model_type": "qwen2", "vocab_size": 10, "hidden_size": 8, "intermediate_size": 8,
            "num_hidden_layers": 3, "num_attention_heads": 2, "num_key_value_heads": 2, "sliding_window": 5}
    assert ref.parse_config(base).windows == [None] * 3
    assert ref.parse_config(dict(base, use_sliding_window=True, max_window_layers=1)).windows == [None, 5, 5]
    assert ref.parse_config(dict(base, use_sliding_window=True, layer_types=[
        "sliding_attention", "full_attention", "sliding_attention"])).windows == [5, None, 5]
    assert ref.parse_config(dict(base, model_type="mistral")).windows == [5] * 3
    for bad, words in ((dict(base, model_type="gemma"), "model_type \"gemma\""),
                       (dict(base, rope_scaling={"rope_type": "yarn", "factor": 4.0}), "rope type \"yarn\""),
                       (dict(base, rope_scaling={"type": "longrope"}), "rope type \"longrope\""),
                       (dict(base, hidden_act="relu"), "hidden_act \"relu\"")):
        try:
            ref.parse_config(bad, "x/config.json")
        except ref.CheckpointError as e:
            assert str(e).startswith("x/config.json: ") and words in str(e), str(e)
        else:
            raise AssertionError("accepted %s" % words)
    print("reference math: llama3 remap, linear, dynamic, rotation, activations, windows, refusals checked")


def rotary_branches(rope):
    """How many of the rotary frequencies each llama3 branch takes (kept, blended, divided)."""
    inv = 1.0 / rope.theta ** (torch.arange(0, rope.dims, 2, dtype=D) / rope.dims)
    w = 2 * math.pi / inv
    O = rope.original_max_position_embeddings
    kept = int((w < O / rope.high_freq_factor).sum())
    divided = int((w > O / rope.low_freq_factor).sum())
    return kept, len(w) - kept - divided, divided


def check_repeated_kv(c, P, ids):
    """Grouped-query attention = the same model with each key/value head repeated for its query heads."""
    group = c.heads // c.kv_heads
    if group == 1:
        return
    c2 = ref.Config(**dict(c.__dict__, kv_heads=c.heads))
    P2 = dict(P)
    for name in P:
        if ".k_proj." in name or ".v_proj." in name:
            t = P[name].view(c.kv_heads, c.head_dim, *P[name].shape[1:])
            P2[name] = t.repeat_interleave(group, 0).reshape(c.heads * c.head_dim, *P[name].shape[1:])
    a, b = ref.forward(P, c, ids), ref.forward(P2, c2, ids)
    assert (a - b).abs().max().item() < 1e-12, "grouped-query attention differs from repeated key/value heads"


def check_sliding_window(c, P, ids):
    """With one layer and a window of 3, position i sees only the 3 rows ending at i: its logits equal those of
    the last row of those 3 ids alone (rotary scores depend on distances only)."""
    one = ref.Config(**dict(c.__dict__, layers=1, windows=[3]))
    full = ref.Config(**dict(c.__dict__, layers=1, windows=[None]))
    logits = ref.forward(P, one, ids)
    for i in range(len(ids)):
        alone = ref.forward(P, full, ids[max(0, i - 2):i + 1])[-1]
        assert (logits[i] - alone).abs().max().item() < 1e-10, "sliding window at %d" % i
    assert (logits - ref.forward(P, full, ids)).abs().max().item() > 1e-3, "the window changed nothing"


def finite_difference_probes(c, gen):
    """Two entries of the first tensor of every kind (names with the layer number taken out)."""
    seen, probes = set(), []
    for name, shape in ref.expected_tensors(c):
        kind = ".".join("N" if part.isdigit() else part for part in name.split("."))
        if kind in seen:
            continue
        seen.add(kind)
        for _ in range(2):
            probes.append((name, tuple(int(torch.randint(0, s, (1,), generator=gen)) for s in shape)))
    return probes


def check_loss(P, c, inputs, targets, lengths, loss):
    """The loss through F.cross_entropy (label_smoothing, ignore_index -1) over each row's logits."""
    logits = torch.cat([ref.forward(P, c, inputs[b, :n]) for b, n in enumerate(lengths.tolist())])
    y = torch.cat([targets[b, :n] for b, n in enumerate(lengths.tolist())]).long()
    other = F.cross_entropy(logits, y, ignore_index=-1, label_smoothing=LABEL_SMOOTHING)
    assert abs(other.item() - loss.item()) < 1e-12, (other.item(), loss.item())


def check_files(out, fx, c, P32, prompt_ids, written_json):
    """Everything written, read back: the checkpoint through the reference's own loader, the JSON files, and
    the tokenizer rebuilt from tokenizer.json."""
    c2, P2 = ref.load_checkpoint(out)
    assert c2 == c, "config.json reads back differently"
    assert list(P2) == [n for n, _ in ref.expected_tensors(c)]
    for n, t in P2.items():
        assert torch.equal(t, P32[n].to(D)), "%s reads back differently" % n
    for fname, obj in written_json.items():
        with open(os.path.join(out, fname), encoding="utf-8") as f:
            assert json.load(f) == obj, fname
    tok = tokenizer_from_json(written_json["tokenizer.json"])
    assert [tok.encode(p) for p in fx.prompts] == prompt_ids
    assert tok.encode(CORPUS) == fx.tok.encode(CORPUS)

# ------------------------------------------------------------------------------------------------ one fixture


def choose_weights(fx, c, prompt_ids, allowed, rare):
    """The first seed whose greedy continuations are clear (MARGIN), use only `allowed` ids, vary, and (dynamic
    rotary) differ from rerunning the whole sequence at each step."""
    for seed in range(1, SEEDS):
        P32 = draw_weights(c, torch.Generator().manual_seed(seed), rare, fx)
        P = {k: v.to(D) for k, v in P32.items()}
        runs = [ref.greedy(P, c, p, NEW_TOKENS) for p in prompt_ids]
        greedy = [g for g, _ in runs]
        margin = min(min(m) for _, m in runs)
        ok = margin >= MARGIN and all(t in allowed for g in greedy for t in g) and \
            all(len(set(g)) >= 3 for g in greedy)
        if ok and c.rope.kind == "dynamic":
            ok = any(ref.greedy(P, c, p, NEW_TOKENS, cached=False)[0] != g for p, g in zip(prompt_ids, greedy))
        if os.environ.get("FIXTURE_DEBUG"):
            print(seed, round(margin, 3), [fx.tok.decode(g) for g in greedy], ok)
        if ok:
            return seed, P32, P, greedy, margin
    raise SystemExit("%s: no seed gives clear greedy continuations" % fx.name)


def make_fixture(fx, out):
    os.makedirs(out, exist_ok=True)
    for stale in os.listdir(out):
        os.remove(os.path.join(out, stale))
    c = ref.parse_config(fx.config)
    tok = fx.tok
    eos_ids = sorted(set(c.eos_token_ids) | set(fx.generation_config["eos_token_id"]
                                                if isinstance(fx.generation_config["eos_token_id"], list)
                                                else [fx.generation_config["eos_token_id"]]))
    prompt_ids = [tok.encode(p) for p in fx.prompts]
    lengths = [len(p) for p in prompt_ids]
    corpus_ids = set(tok.encode(CORPUS, add_special=False))
    allowed = corpus_ids - set(tok.special_ids.values())
    rare = [i for i in range(c.vocab_size) if i not in allowed]
    assert max(lengths) + NEW_TOKENS <= min([w for w in c.windows if w] or [1 << 30]), "sequences past the window"

    seed, P32, P, greedy, margin = choose_weights(fx, c, prompt_ids, allowed, rare)
    ids = padded(prompt_ids, c.eos_token_ids[0])
    with torch.no_grad():
        logits = ref.batch_logits(P, c, ids, lengths)
    if c.rope.kind != "dynamic":
        for p, g in zip(prompt_ids, greedy):  # the cache changes nothing for static frequencies
            assert ref.greedy(P, c, p, NEW_TOKENS, cached=False)[0] == g, "cached greedy differs"
    check_repeated_kv(c, P, prompt_ids[-1])
    if c.rope.kind != "dynamic":  # (dynamic frequencies depend on the sequence's length, not distances alone)
        check_sliding_window(c, P, prompt_ids[-1])

    # Training: loss, gradients, finite differences, Adam.
    inputs, targets, train_lengths = training_batch(fx, c.eos_token_ids[0])
    names = [n for n, _ in ref.expected_tensors(c)]
    Pg = {n: P[n].clone().requires_grad_(True) for n in names}

    def loss_of(Q):
        return ref.smoothed_loss(Q, c, inputs, targets, train_lengths.tolist(), LABEL_SMOOTHING)

    loss = loss_of(Pg)
    loss.backward()
    grads = {n: Pg[n].grad.detach().clone() for n in names}
    assert all(torch.isfinite(g).all() for g in grads.values())
    with torch.no_grad():
        check_loss(P, c, inputs, targets, train_lengths, loss)
        probes = finite_difference_probes(c, torch.Generator().manual_seed(5))
        parity.check_finite_differences(P, grads, probes, loss_of)
    adam_losses, spread = parity.adam_losses_checked(P32, names, loss_of, c.hidden_size, fx.lr_scale,
                                                     WARMUP_STEPS, 10, loss)

    # The files.
    written = {"config.json": fx.config, "generation_config.json": fx.generation_config,
               "tokenizer_config.json": tokenizer_config(tok, **fx.tokenizer_fields)}
    for fname in written:
        write_json(os.path.join(out, fname), written[fname])
    written["tokenizer.json"] = write_tokenizer(os.path.join(out, "tokenizer.json"), tok, fx.merges_as_pairs)
    write_weights(out, state_files(c, P32, fx))
    texts = [tok.decode(p + g) for p, g in zip(prompt_ids, greedy)]
    tensors = [("batch/input_ids", ids), ("batch/lengths", torch.tensor(lengths, dtype=torch.int32)),
               ("expect/logits", logits.to(torch.float32)), ("expect/greedy", torch.tensor(greedy, dtype=torch.int32)),
               ("batch/train_input", inputs), ("batch/train_target", targets), ("batch/train_lengths", train_lengths),
               ("expect/loss", torch.tensor([loss.item()], dtype=D))]
    tensors += [("grad/" + n, grads[n]) for n in names]
    tensors.append(("expect/adam_losses", torch.tensor(adam_losses, dtype=D)))
    meta = {"format": "heptapod-llama-fixture", "format_version": "1", "family": fx.name,
            "prompts": json.dumps(fx.prompts), "prompt_ids": json.dumps(prompt_ids), "greedy_text": json.dumps(texts),
            "eos_token_ids": json.dumps(eos_ids), "label_smoothing": repr(LABEL_SMOOTHING),
            "lr_scale": repr(fx.lr_scale), "warmup_steps": str(WARMUP_STEPS), "d_model": str(c.hidden_size),
            "adam_beta1": repr(parity.ADAM_BETAS[0]), "adam_beta2": repr(parity.ADAM_BETAS[1]),
            "adam_eps": repr(parity.ADAM_EPS)}
    path = os.path.join(out, "reference.safetensors")
    write_safetensors(path, tensors, meta)
    check_round_trip(path, tensors, meta)
    check_files(out, fx, c, P32, prompt_ids, written)

    size = sum(os.path.getsize(os.path.join(out, f)) for f in os.listdir(out))
    extra = ""
    if c.rope.kind == "llama3":
        extra = ", llama3 branches (kept, blended, divided) %s" % (rotary_branches(c.rope),)
    if c.rope.kind == "dynamic":
        static = [ref.greedy(P, c, p, NEW_TOKENS, cached=False)[0] for p in prompt_ids]
        extra = ", uncached greedy differs in %d of %d rows" % (sum(a != b for a, b in zip(static, greedy)), len(greedy))
    print("%s: seed %d, V %d, %d bytes, smallest margin %.3f, loss %.6f, adam losses %s (spread %.2g)%s\n  greedy %s"
          % (fx.name, seed, c.vocab_size, size, margin, loss.item(), " ".join("%.4f" % v for v in adam_losses),
             spread, extra, json.dumps(texts)))


def main():
    which = sys.argv[1:] or list(FIXTURES)
    unknown = [w for w in which if w not in FIXTURES]
    if unknown:
        raise SystemExit("make_llama_fixtures.py: unknown fixture %s (%s)" % (unknown, ", ".join(FIXTURES)))
    check_math()
    for name in which:
        make_fixture(FIXTURES[name](), os.path.join(REPO, "tests", "fixtures", name))


if __name__ == "__main__":
    main()
