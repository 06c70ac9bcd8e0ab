#!/usr/bin/python3
# lora_reference.py -- an independent float64 PyTorch reference of LoRA adapters (Hu et al. 2021, "LoRA: Low-Rank
# Adaptation of Large Language Models", eq. 3: h = W0 x + (alpha / r) B A x, W0 frozen, A (r, in) and B (out, r)
# trained) over three kinds of model, for tests/test_lora_reference.cpp, and PEFT's files of adapters of its own
# making over Hugging Face's LLaMA, GPT-2 and BERT layouts, for `heptapod convert --from peft`.
#
#   /usr/bin/python3 tools/lora_reference.py
#
# The adapters: rank 2, alpha 4 (scale 2); A drawn uniform in +-1/sqrt(in) (PEFT's kaiming-uniform, a = sqrt(5)),
# B drawn N(0, 0.05^2) (non-zero, so that A's gradient is too), both rounded to float32, the values the test gives
# its model. Each base is a committed fixture whose own float64 model is written out elsewhere from the published
# math (tools/llama_reference.py, tools/make_parity_fixtures.py, tools/make_hf_fixtures.py); the adapters are added
# to its weights here (W0 + scale B A), never through Heptapod's code.
#
# Training references (tests/fixtures/lora/):
#   reference.safetensors       decoder-only: the llama fixture (tests/fixtures/llama), adapters on every layer's
#                               q, v, o, gate, up and down; its training batch (batch/train_*), label smoothing 0.1
#   encoder_decoder.safetensors an encoder-decoder translator: parity_prenorm_untied.safetensors (its parameters
#                               param/..., its batch batch/..., its label smoothing), adapters on the
#                               self-attention's q, k, v, o, the cross-attention's xq, xk, xv, xo and the ffn
#   encoder_only.safetensors    an encoder-only classifier: parity_encoder_only_classifier.safetensors ([CLS]
#                               through the pooler, 3 classes), adapters on q, v and the ffn; the pooler and the
#                               classifier train in full beside them
#   each holding:
#     <name>/lora_a, <name>/lora_b   F32   the adapters, under Heptapod's names (decoder/layers/i/self_attn/q_proj ...)
#     grad/<name>                    F64   d loss / d each trained tensor (the adapters; the classifier's head)
#     expect/loss                    F64 (1)
#     expect/adam_losses             F64 (11) the loss before each of 10 Adam updates of the trained tensors alone
#                                    (betas (0.9, 0.98), eps 1e-9, Noam rate of d_model with lr_scale and warm-up),
#                                    then after
#     metadata: base (the fixture the base model comes from), rank, alpha, targets (Heptapod's names,
#               comma-separated), label_smoothing, lr_scale, warmup_steps, d_model, adam_beta1, adam_beta2, adam_eps
# Self-checks: central finite differences of the float64 loss at entries of every trained tensor kind; zero B gives
# the base model's loss exactly; the Adam losses reproduced in float32 and from perturbed values within 2e-5.
#
# PEFT adapters (what PeftModel.save_pretrained writes: adapter_config.json, adapter_model.safetensors with the
# wrapped model's names, base_model.model.<module>.lora_A.weight and lora_B.weight):
#   peft/       the decoder-only reference's adapters over the llama fixture (model.layers.<i>.self_attn.q_proj ...)
#   peft_gpt2/  adapters over the gpt2 fixture (GPT2LMHeadModel): target_modules c_attn, c_proj (the attention's
#               and the MLP's), c_fc; fan_in_fan_out (Conv1D keeps W as (in, out): the delta added is
#               scale (B A)^T); c_attn's one adapter spans the fused q|k|v output (B (3C, r))
#   peft_bert/  adapters over the bert fixture (BertForMaskedLM): query, key, value, attention.output.dense,
#               intermediate.dense and output.dense (which PEFT matches by suffix: attention.output.dense too)
#   peft_bert_classifier/  PEFT's SEQ_CLS task over the bert_classifier fixture: adapters on query and value, and
#               the classifier saved in full (modules_to_save, base_model.model.classifier.weight and .bias), new
#               values; the pooler stays the base's
#   the last three with reference.safetensors: the fixture's batch (batch/...) and what the adapted model computes
#   in float64: gpt2 expect/logits (B, T, V); bert expect/hidden (B, T, C) and expect/mlm_logits (B, T, V);
#   bert_classifier expect/pooled (B, C) and expect/class_logits (B, L).

import json
import os
import re
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import llama_reference as ref  # noqa: E402
import make_hf_fixtures as hf  # noqa: E402
import make_parity_fixtures as parity  # noqa: E402
from make_parity_fixtures import REPO, check_round_trip, write_safetensors  # noqa: E402

torch.set_num_threads(1)
D = torch.float64
RANK, ALPHA = 2, 4.0
SCALE = ALPHA / RANK
OUT = os.path.join(REPO, "tests", "fixtures", "lora")
# Hugging Face module -> Heptapod's module (io/llama_import.cpp's table) and the LoRA target it belongs to.
MODULES = {"self_attn.q_proj": ("self_attn/q_proj", "q"), "self_attn.v_proj": ("self_attn/v_proj", "v"),
           "self_attn.o_proj": ("self_attn/out_proj", "o"), "mlp.gate_proj": ("ffn/gate", "ffn"),
           "mlp.up_proj": ("ffn/fc1", "ffn"), "mlp.down_proj": ("ffn/fc2", "ffn")}
# Heptapod's modules of a parity model's layers each target adapts (make_parity_fixtures.param_shapes' names).
PARITY_TARGETS = {"q": ["self_attn/q_proj"], "k": ["self_attn/k_proj"], "v": ["self_attn/v_proj"],
                  "o": ["self_attn/out_proj"], "xq": ["cross_attn/q_proj"], "xk": ["cross_attn/k_proj"],
                  "xv": ["cross_attn/v_proj"], "xo": ["cross_attn/out_proj"], "ffn": ["ffn/fc1", "ffn/fc2"]}


def draw_adapter(gen, out, inp):
    """A (r, in) and B (out, r), float32 values held in float64."""
    a = ((2 * torch.rand(RANK, inp, generator=gen, dtype=D) - 1) / inp ** 0.5).float().double()
    b = (0.05 * torch.randn(out, RANK, generator=gen, dtype=D)).float().double()
    return a, b


def adapted(P, adapters):
    """The base weights with each adapter's scale * B A added to its matrix (weights (out, in))."""
    Q = dict(P)
    for w, (a, b) in adapters.items():
        Q[w] = P[w] + SCALE * b @ a
    return Q


def pairs(V, weight_of):
    """{weight name: (A, B)} of the adapter tensors in V (names <module>/lora_a, <module>/lora_b)."""
    adapters = {}
    for n, t in V.items():
        if n.endswith("/lora_a") or n.endswith("/lora_b"):
            pair = adapters.setdefault(weight_of(n), [None, None])
            pair[0 if n.endswith("/lora_a") else 1] = t
    return adapters


def write_training_reference(path, values, adapter_names, loss_of, base_loss, d_model, gen, meta):
    """The fixture of the trained tensors `values` (float64 holding float32 values: the adapters, `adapter_names`,
    and any head trained in full), their loss loss_of(values) and its gradients, finite-difference probes of the
    first tensor of each kind (stack, module, leaf), ten Adam steps. base_loss: the base model's, which zero B
    must give exactly."""
    names = list(values)
    with torch.no_grad():  # zero B: the base model's loss, exactly
        zero = {n: (torch.zeros_like(v) if n.endswith("/lora_b") else v) for n, v in values.items()}
        assert loss_of(zero).item() == base_loss, "zero B changes the loss"
    V = {n: v.clone().requires_grad_(True) for n, v in values.items()}
    loss = loss_of(V)
    loss.backward()
    grads = {n: V[n].grad.detach().clone() for n in names}
    assert all(torch.isfinite(g).all() for g in grads.values())
    with torch.no_grad():
        kinds = {}  # the first tensor of each kind (its name without the layer number), three entries each
        for n in names:
            kinds.setdefault(re.sub(r"/layers/\d+/", "/layers/*/", n), n)
        probes = [(n, tuple(int(torch.randint(0, s, (1,), generator=gen)) for s in values[n].shape))
                  for n in kinds.values() for _ in range(3)]
        parity.check_finite_differences(values, grads, probes, loss_of)
    values32 = {n: v.float() for n, v in values.items()}
    adam_losses, spread = parity.adam_losses_checked(values32, names, loss_of, d_model, float(meta["lr_scale"]),
                                                     int(meta["warmup_steps"]), 10, loss)
    tensors = [(n, values32[n]) for n in adapter_names] + [("grad/" + n, grads[n]) for n in names]
    tensors += [("expect/loss", torch.tensor([loss.item()], dtype=D)),
                ("expect/adam_losses", torch.tensor(adam_losses, dtype=D))]
    meta = dict({"format": "heptapod-lora-fixture", "format_version": "1", "rank": str(RANK), "alpha": repr(ALPHA),
                 "d_model": str(d_model), "adam_beta1": repr(parity.ADAM_BETAS[0]),
                 "adam_beta2": repr(parity.ADAM_BETAS[1]), "adam_eps": repr(parity.ADAM_EPS)}, **meta)
    write_safetensors(path, tensors, meta)
    check_round_trip(path, tensors, meta)
    print("%s: %d trained tensors, loss %.6f, adam losses %s (spread %.2g)" % (
        os.path.basename(path), len(names), loss.item(), " ".join("%.4f" % v for v in adam_losses), spread))
    return values32


def write_peft(directory, config, tensors):
    """adapter_config.json (PEFT's plain-LoRA fields, then `config`) and adapter_model.safetensors."""
    os.makedirs(directory, exist_ok=True)
    peft_config = {"peft_type": "LORA", "task_type": None, "base_model_name_or_path": None, "r": RANK,
                   "lora_alpha": ALPHA, "lora_dropout": 0.0, "bias": "none", "fan_in_fan_out": False,
                   "use_rslora": False, "use_dora": False, "init_lora_weights": True, "modules_to_save": None,
                   "layers_to_transform": None, "rank_pattern": {}, "alpha_pattern": {}}
    peft_config.update(config)
    hf.write_json(os.path.join(directory, "adapter_config.json"), peft_config)
    path = os.path.join(directory, "adapter_model.safetensors")
    write_safetensors(path, tensors, {"format": "pt"})
    check_round_trip(path, tensors, {"format": "pt"})


def peft_pair(prefix, a, b):
    return [(prefix + ".lora_A.weight", a.float()), (prefix + ".lora_B.weight", b.float())]


# ------------------------------------------------------------------------------------------------ decoder-only


def decoder_only():
    fixture = os.path.join(REPO, "tests", "fixtures", "llama")
    c, P = ref.load_checkpoint(fixture)
    batch = dict(parity.read_safetensors(os.path.join(fixture, "reference.safetensors"))[0])
    inputs, targets, lengths = batch["batch/train_input"], batch["batch/train_target"], batch["batch/train_lengths"]
    smoothing = 0.1
    gen = torch.Generator().manual_seed(63)
    values, hf_of, peft_of = {}, {}, {}  # Heptapod name -> value, HF weight, PEFT's name
    for i in range(c.layers):
        for hf_module, (module, _) in MODULES.items():
            w = "model.layers.%d.%s.weight" % (i, hf_module)
            a, b = draw_adapter(gen, *P[w].shape)
            base = "decoder/layers/%d/%s" % (i, module)
            for leaf, v, peft_leaf in (("lora_a", a, "A"), ("lora_b", b, "B")):
                values[base + "/" + leaf] = v
                hf_of[base] = w
                peft_of[base + "/" + leaf] = "base_model.model.model.layers.%d.%s.lora_%s.weight" % (i, hf_module,
                                                                                                      peft_leaf)

    def loss_of(V):
        Q = adapted(P, pairs(V, lambda n: hf_of[n.rsplit("/", 1)[0]]))
        return ref.smoothed_loss(Q, c, inputs, targets, lengths.tolist(), smoothing)

    meta = {"base": "llama", "targets": "q,v,o,ffn", "label_smoothing": repr(smoothing), "lr_scale": repr(0.3),
            "warmup_steps": "4"}
    base_loss = ref.smoothed_loss(P, c, inputs, targets, lengths.tolist(), smoothing).item()
    values32 = write_training_reference(os.path.join(OUT, "reference.safetensors"), values, list(values), loss_of,
                                        base_loss, c.hidden_size, gen, meta)
    write_peft(os.path.join(OUT, "peft"),
               {"task_type": "CAUSAL_LM", "base_model_name_or_path": "tests/fixtures/llama",
                "target_modules": sorted(m.split(".")[1] for m in MODULES)},
               [(peft_of[n], values32[n]) for n in values])


# ------------------------------------------------------------------------------------------------ parity bases


def parity_reference(base_name, out_name, targets, trained_head, lr_scale, seed):
    """Adapters on `targets` (in every layer that has the module) of a parity fixture's model, its batch and
    loss (make_parity_fixtures.model_loss); `trained_head`: full tensors trained beside them."""
    tensors, meta = parity.read_safetensors(os.path.join(REPO, "tests", "fixtures", base_name + ".safetensors"))
    cfg = parity.config_from_json(meta["config"])
    P = {n[len("param/"):]: t.double() for n, t in tensors if n.startswith("param/")}
    batch = {n[len("batch/"):]: t for n, t in tensors if n.startswith("batch/")}
    smoothing = float(meta["label_smoothing"])
    gen = torch.Generator().manual_seed(seed)
    values = {}
    for stack, layers in (("encoder", cfg["encoder_layers"]), ("decoder", cfg["decoder_layers"])):
        for i in range(layers):
            for t in targets:
                for module in PARITY_TARGETS[t]:
                    w = "%s/layers/%d/%s/weight" % (stack, i, module)
                    if w in P:
                        a, b = draw_adapter(gen, *P[w].shape)
                        values[w[:-len("/weight")] + "/lora_a"], values[w[:-len("/weight")] + "/lora_b"] = a, b
    adapter_names = list(values)
    for n in trained_head:
        values[n] = P[n]

    def loss_of(V):
        Q = adapted(P, pairs(V, lambda n: n.rsplit("/", 1)[0] + "/weight"))
        Q.update({n: V[n].double() for n in trained_head})  # float32 in the float32 Adam run
        return parity.model_loss(Q, cfg, batch, smoothing)

    out = {"base": base_name + ".safetensors", "targets": ",".join(targets), "label_smoothing": repr(smoothing),
           "lr_scale": repr(lr_scale), "warmup_steps": "4"}
    base_loss = parity.model_loss(P, cfg, batch, smoothing).item()
    expect = dict(tensors)["expect/loss"].item()  # the fixture's own: the base read as the parity test reads it
    assert abs(base_loss - expect) < 1e-6 * expect, (base_loss, expect)
    write_training_reference(os.path.join(OUT, out_name), values, adapter_names, loss_of, base_loss, cfg["d_model"],
                             gen, out)


# ------------------------------------------------------------------------------------------------ GPT-2, BERT


def hf_fixture(name):
    """A Hugging Face fixture's weights (float64, BERT's old gamma / beta as weight / bias) and its reference."""
    state = dict(parity.read_safetensors(os.path.join(REPO, "tests", "fixtures", name, "model.safetensors"))[0])
    P = {}
    for n, t in state.items():
        n = n.replace("LayerNorm.gamma", "LayerNorm.weight").replace("LayerNorm.beta", "LayerNorm.bias")
        P[n] = t.double() if t.is_floating_point() else t
    with open(os.path.join(REPO, "tests", "fixtures", name, "config.json"), encoding="utf-8") as f:
        cfg = json.load(f)
    reference = dict(parity.read_safetensors(os.path.join(REPO, "tests", "fixtures", name, "reference.safetensors"))[0])
    return P, cfg, reference


def peft_gpt2(gen):
    P, cfg, fixture = hf_fixture("gpt2")
    Q, tensors = dict(P), []
    for i in range(cfg["n_layer"]):
        for module in ("attn.c_attn", "attn.c_proj", "mlp.c_fc", "mlp.c_proj"):
            w = "transformer.h.%d.%s.weight" % (i, module)
            inp, out = P[w].shape  # Conv1D: (in, out)
            a, b = draw_adapter(gen, out, inp)
            Q[w] = P[w] + SCALE * (b @ a).t()  # PEFT's merge with fan_in_fan_out
            tensors += peft_pair("base_model.model.transformer.h.%d.%s" % (i, module), a, b)
    ids, lengths = fixture["batch/input_ids"].long(), fixture["batch/lengths"]
    logits = hf.gpt2_forward(Q, cfg, ids, lengths.tolist())
    base = hf.gpt2_forward(P, cfg, ids, lengths.tolist())
    assert (logits - base).abs().max().item() > 0.1, "the adapters change too little to be seen"
    d = os.path.join(OUT, "peft_gpt2")
    write_peft(d, {"task_type": "CAUSAL_LM", "base_model_name_or_path": "tests/fixtures/gpt2", "fan_in_fan_out": True,
                   "target_modules": ["c_attn", "c_fc", "c_proj"]}, tensors)
    hf.write_reference(os.path.join(d, "reference.safetensors"),
                       [("batch/input_ids", fixture["batch/input_ids"]), ("batch/lengths", lengths),
                        ("expect/logits", logits.float())], {"family": "gpt2", "task": "causal-lm"})
    print("peft_gpt2: %d tensors, logits moved by up to %.3f" % (len(tensors), (logits - base).abs().max().item()))


def bert_adapted(P, cfg, gen, modules):
    """BERT's weights with adapters on each layer's `modules` (nn.Linear: W (out, in)), and PEFT's tensors."""
    Q, tensors = dict(P), []
    for i in range(cfg["num_hidden_layers"]):
        for module in modules:
            w = "bert.encoder.layer.%d.%s.weight" % (i, module)
            a, b = draw_adapter(gen, *P[w].shape)
            Q[w] = P[w] + SCALE * b @ a
            tensors += peft_pair("base_model.model.bert.encoder.layer.%d.%s" % (i, module), a, b)
    return Q, tensors


def bert_batch(fixture):
    """A bert fixture's batch: its reference tensors and the ids, types and lengths to compute with."""
    ids, types, lengths = fixture["batch/input_ids"], fixture["batch/token_type_ids"], fixture["batch/lengths"]
    kept = [("batch/input_ids", ids), ("batch/token_type_ids", types), ("batch/lengths", lengths)]
    return kept, ids.long(), types.long(), lengths.tolist()


def peft_bert(gen):
    P, cfg, fixture = hf_fixture("bert")
    Q, tensors = bert_adapted(P, cfg, gen, ("attention.self.query", "attention.self.key", "attention.self.value",
                                            "attention.output.dense", "intermediate.dense", "output.dense"))
    kept, ids, types, lengths = bert_batch(fixture)
    hidden = hf.bert_encode(Q, cfg, ids, types, lengths)
    logits = hf.bert_mlm(Q, cfg, hidden)
    base = hf.bert_mlm(P, cfg, hf.bert_encode(P, cfg, ids, types, lengths))
    assert (logits - base).abs().max().item() > 0.1, "the adapters change too little to be seen"
    d = os.path.join(OUT, "peft_bert")
    write_peft(d, {"base_model_name_or_path": "tests/fixtures/bert",
                   "target_modules": ["query", "key", "value", "attention.output.dense", "intermediate.dense",
                                      "output.dense"]}, tensors)
    hf.write_reference(os.path.join(d, "reference.safetensors"),
                       kept + [("expect/hidden", hidden.float()), ("expect/mlm_logits", logits.float())],
                       {"family": "bert", "task": "masked-lm"})
    print("peft_bert: %d tensors, logits moved by up to %.3f" % (len(tensors), (logits - base).abs().max().item()))


def peft_bert_classifier(gen):
    """PEFT's SEQ_CLS task: adapters on query and value, and the classifier saved in full (modules_to_save), its
    weights new (the pooler stays the base's)."""
    P, cfg, fixture = hf_fixture("bert_classifier")
    Q, tensors = bert_adapted(P, cfg, gen, ("attention.self.query", "attention.self.value"))
    for leaf in ("weight", "bias"):
        Q["classifier." + leaf] = (torch.randn(P["classifier." + leaf].shape, generator=gen, dtype=D) /
                                   cfg["hidden_size"] ** 0.5).float().double()
        tensors.append(("base_model.model.classifier." + leaf, Q["classifier." + leaf].float()))
    kept, ids, types, lengths = bert_batch(fixture)
    pooled = hf.bert_pooled(Q, hf.bert_encode(Q, cfg, ids, types, lengths))
    logits = pooled @ Q["classifier.weight"].T + Q["classifier.bias"]
    d = os.path.join(OUT, "peft_bert_classifier")
    write_peft(d, {"task_type": "SEQ_CLS", "base_model_name_or_path": "tests/fixtures/bert_classifier",
                   "target_modules": ["query", "value"], "modules_to_save": ["classifier", "score"]}, tensors)
    hf.write_reference(os.path.join(d, "reference.safetensors"),
                       kept + [("expect/pooled", pooled.float()), ("expect/class_logits", logits.float())],
                       {"family": "bert", "task": "sequence-classification"})
    print("peft_bert_classifier: %d tensors" % len(tensors))


def main():
    decoder_only()
    parity_reference("parity_prenorm_untied", "encoder_decoder.safetensors",
                     ["q", "k", "v", "o", "xq", "xk", "xv", "xo", "ffn"], [], 1.0, 64)
    parity_reference("parity_encoder_only_classifier", "encoder_only.safetensors", ["q", "v", "ffn"],
                     ["encoder/pooler/weight", "encoder/pooler/bias", "encoder/classifier/weight",
                      "encoder/classifier/bias"], 0.25, 65)
    gen = torch.Generator().manual_seed(66)
    peft_gpt2(gen)
    peft_bert(gen)
    peft_bert_classifier(gen)


if __name__ == "__main__":
    main()
