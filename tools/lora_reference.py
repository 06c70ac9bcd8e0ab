#!/usr/bin/python3
# lora_reference.py -- an independent float64 PyTorch reference of LoRA adapters (Hu et al. 2021, "LoRA: Low-Rank
# Adaptation of Large Language Models", eq. 3: h = W0 x + (alpha / r) B A x, W0 frozen, A (r, in) and B (out, r)
# trained) over the decoder-only llama fixture (tests/fixtures/llama, its model computed by
# tools/llama_reference.py), written as tests/fixtures/lora/reference.safetensors for tests/test_lora_reference.cpp.
#
#   /usr/bin/python3 tools/lora_reference.py
#
# The adapters: rank 2, alpha 4 (scale 2) on every layer's q, v and o projections and its gate, up and down
# matrices; A drawn uniform in +-1/sqrt(in) (PEFT's kaiming-uniform, a = sqrt(5)), B drawn N(0, 0.05^2) (non-zero,
# so that A's gradient is too), both rounded to float32, the values the test gives its model. The loss is the
# fixture's: its training batch (batch/train_*), label smoothing 0.1, mean over the targets.
#
# reference.safetensors:
#   <name>/lora_a, <name>/lora_b   F32   the adapters, under Heptapod's names (decoder/layers/i/self_attn/q_proj ...)
#   grad/<name>/lora_a, ...        F64   d loss / d adapter
#   expect/loss                    F64 (1)
#   expect/adam_losses             F64 (11) the loss before each of 10 Adam updates of the adapters alone (betas
#                                  (0.9, 0.98), eps 1e-9, Noam rate of d_model with lr_scale and warm-up), then after
#   metadata: rank, alpha, targets (Heptapod's names, comma-separated), label_smoothing, lr_scale, warmup_steps,
#             d_model, adam_beta1, adam_beta2, adam_eps
# peft/adapter_config.json, peft/adapter_model.safetensors: the same adapters as PEFT's save_pretrained writes
#   them (its names, base_model.model.model.layers.<i>.<module>.lora_A.weight and lora_B.weight; r, lora_alpha,
#   target_modules, ...), for `heptapod convert --from peft`.
# Self-checks: central finite differences of the float64 loss at entries of every adapter kind; zero B gives the
# base model's loss exactly; the Adam losses reproduced in float32 and from perturbed values within 2e-5.

import json
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import llama_reference as ref  # noqa: E402
import make_parity_fixtures as parity  # noqa: E402
from make_parity_fixtures import REPO, check_round_trip, write_safetensors  # noqa: E402

torch.set_num_threads(1)
D = torch.float64
RANK, ALPHA = 2, 4.0
LABEL_SMOOTHING = 0.1
LR_SCALE, WARMUP_STEPS = 0.3, 4
# Hugging Face module -> Heptapod's module (io/llama_import.cpp's table) and the LoRA target it belongs to.
MODULES = {"self_attn.q_proj": ("self_attn/q_proj", "q"), "self_attn.v_proj": ("self_attn/v_proj", "v"),
           "self_attn.o_proj": ("self_attn/out_proj", "o"), "mlp.gate_proj": ("ffn/gate", "ffn"),
           "mlp.up_proj": ("ffn/fc1", "ffn"), "mlp.down_proj": ("ffn/fc2", "ffn")}


def adapted(P, adapters, scale):
    """The base weights with each adapter's scale * B A added to its matrix."""
    Q = dict(P)
    for hf, (a, b) in adapters.items():
        Q[hf] = P[hf] + scale * b @ a
    return Q


def main():
    fixture = os.path.join(REPO, "tests", "fixtures", "llama")
    c, P = ref.load_checkpoint(fixture)
    batch = dict(parity.read_safetensors(os.path.join(fixture, "reference.safetensors"))[0])
    inputs, targets, lengths = batch["batch/train_input"], batch["batch/train_target"], batch["batch/train_lengths"]
    scale = ALPHA / RANK

    def loss_with(Q):
        return ref.smoothed_loss(Q, c, inputs, targets, lengths.tolist(), LABEL_SMOOTHING)

    gen = torch.Generator().manual_seed(63)
    names, hf_of, values = [], {}, {}  # Heptapod tensor names in layer order; name -> (HF weight, leaf)
    peft_of = {}  # Heptapod name -> PEFT's
    for i in range(c.layers):
        for hf_module, (module, _) in MODULES.items():
            hf = "model.layers.%d.%s.weight" % (i, hf_module)
            out, inp = P[hf].shape
            a = ((2 * torch.rand(RANK, inp, generator=gen, dtype=D) - 1) / inp ** 0.5).float().double()
            b = (0.05 * torch.randn(out, RANK, generator=gen, dtype=D)).float().double()
            base = "decoder/layers/%d/%s" % (i, module)
            for leaf, v in (("lora_a", a), ("lora_b", b)):
                names.append(base + "/" + leaf)
                hf_of[base + "/" + leaf] = (hf, leaf)
                values[base + "/" + leaf] = v
                peft_of[base + "/" + leaf] = "base_model.model.model.layers.%d.%s.lora_%s.weight" % (
                    i, hf_module, "A" if leaf == "lora_a" else "B")

    def loss_of(V):
        adapters = {}
        for n, t in V.items():
            hf, leaf = hf_of[n]
            pair = adapters.setdefault(hf, [None, None])
            pair[0 if leaf == "lora_a" else 1] = t
        return loss_with(adapted(P, adapters, scale))

    with torch.no_grad():  # zero B: the base model's loss, exactly
        zero = {n: (torch.zeros_like(v) if n.endswith("lora_b") else v) for n, v in values.items()}
        assert loss_of(zero).item() == loss_with(P).item(), "zero B changes the loss"
    V = {n: v.clone().requires_grad_(True) for n, v in values.items()}
    loss = loss_of(V)
    loss.backward()
    grads = {n: V[n].grad.detach().clone() for n in names}
    assert all(torch.isfinite(g).all() for g in grads.values())
    with torch.no_grad():
        probes = []  # every kind of adapter of layer 0: three entries each
        for n in names[:12]:
            for _ in range(3):
                probes.append((n, tuple(int(torch.randint(0, s, (1,), generator=gen)) for s in values[n].shape)))
        parity.check_finite_differences(values, grads, probes, loss_of)
    values32 = {n: v.float() for n, v in values.items()}
    adam_losses, spread = parity.adam_losses_checked(values32, names, loss_of, c.hidden_size, LR_SCALE,
                                                     WARMUP_STEPS, 10, loss)

    tensors = [(n, values32[n]) for n in names] + [("grad/" + n, grads[n]) for n in names]
    tensors += [("expect/loss", torch.tensor([loss.item()], dtype=D)),
                ("expect/adam_losses", torch.tensor(adam_losses, dtype=D))]
    meta = {"format": "heptapod-lora-fixture", "format_version": "1", "rank": str(RANK), "alpha": repr(ALPHA),
            "targets": "q,v,o,ffn", "label_smoothing": repr(LABEL_SMOOTHING), "lr_scale": repr(LR_SCALE),
            "warmup_steps": str(WARMUP_STEPS), "d_model": str(c.hidden_size),
            "adam_beta1": repr(parity.ADAM_BETAS[0]), "adam_beta2": repr(parity.ADAM_BETAS[1]),
            "adam_eps": repr(parity.ADAM_EPS)}
    out = os.path.join(REPO, "tests", "fixtures", "lora")
    os.makedirs(out, exist_ok=True)
    path = os.path.join(out, "reference.safetensors")
    write_safetensors(path, tensors, meta)
    check_round_trip(path, tensors, meta)
    peft = os.path.join(out, "peft")
    os.makedirs(peft, exist_ok=True)
    peft_config = {"peft_type": "LORA", "task_type": "CAUSAL_LM", "base_model_name_or_path": "tests/fixtures/llama",
                   "r": RANK, "lora_alpha": ALPHA, "lora_dropout": 0.0, "bias": "none", "fan_in_fan_out": False,
                   "use_rslora": False, "use_dora": False, "init_lora_weights": True, "modules_to_save": None,
                   "layers_to_transform": None, "rank_pattern": {}, "alpha_pattern": {},
                   "target_modules": sorted(m.split(".")[1] for m in MODULES)}
    with open(os.path.join(peft, "adapter_config.json"), "w", encoding="utf-8") as f:
        json.dump(peft_config, f, indent=2, sort_keys=True)
        f.write("\n")
    peft_tensors = [(peft_of[n], values32[n]) for n in names]
    write_safetensors(os.path.join(peft, "adapter_model.safetensors"), peft_tensors, {"format": "pt"})
    check_round_trip(os.path.join(peft, "adapter_model.safetensors"), peft_tensors, {"format": "pt"})
    print("lora: %d adapter tensors, loss %.6f (base %.6f), adam losses %s (spread %.2g)"
          % (len(names), loss.item(), loss_with(P).item(), " ".join("%.4f" % v for v in adam_losses), spread))


if __name__ == "__main__":
    main()
