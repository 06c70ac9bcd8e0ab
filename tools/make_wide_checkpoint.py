#!/usr/bin/python3
"""make_wide_checkpoint.py OUT_DIR [--seed N] -- a random LLaMA checkpoint wide enough for GGUF's K types (rows of
256 values: hidden 256, intermediate 512), written at test time for tests/test_gguf_import.cpp, which turns it
into quantized GGUF files with tools/gguf_from_checkpoint.py. Hugging Face's layout (config.json,
generation_config.json, model.safetensors in F32) with the tokenizer of tests/fixtures/llama (LLaMA 3's form, 301
tokens); 2 layers, 4 heads of 64 with 2 key/value heads, an untied lm_head, rope_theta 10000. Weights: normal
with std 0.05 (norm gains 1 + 0.1 N(0, 1)); numpy only, the same bytes for the same seed.
"""
import argparse
import json
import os
import shutil
import struct

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURE = os.path.join(HERE, "..", "tests", "fixtures", "llama")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("out")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    for name in ("tokenizer.json", "tokenizer_config.json"):
        shutil.copy(os.path.join(FIXTURE, name), os.path.join(args.out, name))
    C, F, H, KV, D, L, V = 256, 512, 4, 2, 64, 2, 301
    config = {"architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": C,
              "intermediate_size": F, "num_attention_heads": H, "num_key_value_heads": KV, "head_dim": D,
              "num_hidden_layers": L, "vocab_size": V, "max_position_embeddings": 64, "rms_norm_eps": 1e-5,
              "rope_theta": 10000.0, "hidden_act": "silu", "tie_word_embeddings": False, "bos_token_id": 296,
              "eos_token_id": 297, "torch_dtype": "float32"}
    with open(os.path.join(args.out, "config.json"), "w") as f:
        json.dump(config, f, indent=1)
    with open(os.path.join(args.out, "generation_config.json"), "w") as f:
        json.dump({"bos_token_id": 296, "eos_token_id": [297, 300]}, f)
    rng = np.random.default_rng(args.seed)
    shapes = {"model.embed_tokens.weight": (V, C), "model.norm.weight": (C,), "lm_head.weight": (V, C)}
    for i in range(L):
        p = "model.layers.%d." % i
        shapes.update({p + "input_layernorm.weight": (C,), p + "post_attention_layernorm.weight": (C,),
                       p + "self_attn.q_proj.weight": (H * D, C), p + "self_attn.k_proj.weight": (KV * D, C),
                       p + "self_attn.v_proj.weight": (KV * D, C), p + "self_attn.o_proj.weight": (C, H * D),
                       p + "mlp.gate_proj.weight": (F, C), p + "mlp.up_proj.weight": (F, C),
                       p + "mlp.down_proj.weight": (C, F)})
    header, data = {}, bytearray()
    for name, shape in shapes.items():
        if len(shape) == 1:
            values = 1 + 0.1 * rng.standard_normal(shape)
        else:
            values = 0.05 * rng.standard_normal(shape)
        raw = values.astype("<f4").tobytes()
        header[name] = {"dtype": "F32", "shape": list(shape), "data_offsets": [len(data), len(data) + len(raw)]}
        data += raw
    text = json.dumps(header).encode()
    text += b" " * (-len(text) % 8)
    with open(os.path.join(args.out, "model.safetensors"), "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + bytes(data))


if __name__ == "__main__":
    main()
