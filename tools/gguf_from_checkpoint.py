#!/usr/bin/python3
"""gguf_from_checkpoint.py -- writes a GGUF file from a Hugging Face checkpoint directory (GPT-2 or the LLaMA
family: model_type gpt2, llama, mistral, qwen2, qwen3) as llama.cpp's convert_hf_to_gguf.py lays it out, with
our independent writer (tools/gguf_writer.py), for the tests of Heptapod's GGUF import
(src/heptapod/io/gguf_model.h, src/heptapod/data/gguf_vocab.h). It never uses Heptapod's code.

  gguf_from_checkpoint.py DIR OUT.gguf [--type f32|f16|bf16|q8_0|q4_0|q4_1|q5_0|q5_1|q4_k|q5_k|q6_k]
                          [--chat-template FILE] [--version 2|3] [--dequantized DIR2]

--dequantized writes DIR2, the checkpoint with every tensor replaced by the values the GGUF file's blocks decode
to (tools/gguf_blocks_reference.py's float64 decoder, stored as F32 in one model.safetensors, Hugging Face's
names and layout): the model a quantized file computes, for references of its logits.

What it writes (docs/models.md section 4):
- metadata: general.architecture (gpt2, llama for llama and mistral, qwen2, qwen3), general.name,
  general.file_type; {arch}.context_length, embedding_length, block_count, feed_forward_length,
  attention.head_count, head_count_kv, layer_norm_rms_epsilon (gpt2: layer_norm_epsilon), key_length and
  value_length where config.json names head_dim, rope.dimension_count, rope.freq_base, rope.scaling.type and
  factor for linear scaling, vocab_size; where llama.cpp's converter writes nothing that could tell the same
  model, what Heptapod's reader reads: rope.scaling.type "dynamic" with factor and original_context_length
  (llama.cpp has no dynamic scaling and drops it) and attention.sliding_window where the checkpoint's window is
  in force (Mistral);
- tokenizer.ggml.*: model "gpt2" (byte-level BPE: tokens in id order, merges as "a b", token_type 1 normal,
  3 control for special added tokens, 4 user-defined for the others; pre "gpt-2" for GPT-2's vocab.json and
  merges.txt, "llama-bpe" for LLaMA 3's tokenizer.json form, "qwen2" for Qwen's) or "llama" (a SentencePiece-style
  BPE with byte_fallback: token types 2 unknown, 3 control, 6 for <0xXX> bytes, and scores as SentencePiece's
  model would hold them: -r for the piece merge r makes, lower for the single characters); the bos, eos, unknown
  and padding ids from tokenizer_config.json's tokens, else config.json's ids; add_bos_token from
  tokenizer_config.json or the post-processor's template; tokenizer.chat_template from --chat-template or
  tokenizer_config.json;
- tensors under llama.cpp's names (token_embd, position_embd, output_norm, output, blk.N.attn_norm, attn_q,
  attn_k, attn_v, attn_qkv (gpt2, Conv1D weights transposed), attn_output, attn_q_norm, attn_k_norm, ffn_norm,
  ffn_gate, ffn_up, ffn_down), llama's q and k rows permuted to llama.cpp's rotary order (LlamaModel.permute),
  rope_freqs (F32) for llama3 rope scaling computed from rope_scaling (its own original_max_position_embeddings;
  llama.cpp's converter reads a top-level key instead, 8192 when absent). Vectors and the position table stay
  F32; the weight matrices and token_embd take --type, falling back as llama-quantize does where a row is not a
  whole number of blocks (K types to Q5_0 / Q5_1 / Q8_0, then F16).
"""
import argparse
import json
import os
import re
import struct
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gguf_writer as gw  # noqa: E402
from gguf_blocks_reference import TYPES as BLOCK_TYPES, decode  # noqa: E402

TYPE_NAMES = {ggml_id: name for name, (ggml_id, _, _) in BLOCK_TYPES.items()}

TYPES = {"f32": gw.GGML_F32, "f16": gw.GGML_F16, "bf16": gw.GGML_BF16, "q8_0": gw.GGML_Q8_0,
         "q4_0": gw.GGML_Q4_0, "q4_1": gw.GGML_Q4_1, "q5_0": gw.GGML_Q5_0, "q5_1": gw.GGML_Q5_1,
         "q4_k": gw.GGML_Q4_K, "q5_k": gw.GGML_Q5_K, "q6_k": gw.GGML_Q6_K}
# llama-quantize's fallbacks for rows that are not a whole number of blocks.
FALLBACK = {gw.GGML_Q4_K: gw.GGML_Q5_0, gw.GGML_Q5_K: gw.GGML_Q5_1, gw.GGML_Q6_K: gw.GGML_Q8_0}
FILE_TYPES = {gw.GGML_F32: 0, gw.GGML_F16: 1, gw.GGML_Q4_0: 2, gw.GGML_Q4_1: 3, gw.GGML_Q8_0: 7, gw.GGML_Q5_0: 8,
              gw.GGML_Q5_1: 9, gw.GGML_Q4_K: 15, gw.GGML_Q5_K: 17, gw.GGML_Q6_K: 18, gw.GGML_BF16: 32}
ARCHITECTURES = {"gpt2": "gpt2", "llama": "llama", "mistral": "llama", "qwen2": "qwen2", "qwen3": "qwen3"}
NORMAL, UNKNOWN, CONTROL, USER_DEFINED, UNUSED, BYTE = 1, 2, 3, 4, 5, 6


def read_json(path, default=None):
    if not os.path.exists(path):
        return default
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def matrix_type(wanted, columns):
    """The type a matrix of `columns` values per row is stored in: `wanted`, or its fallback."""
    t = wanted
    while t not in (gw.GGML_F32, gw.GGML_F16, gw.GGML_BF16) and columns % gw.block_elements(t) != 0:
        t = FALLBACK.get(t, gw.GGML_F16)
    return t


def permute(w, heads):
    """LlamaModel.permute: each head's rows (2, hd/2) -> (hd/2, 2), llama.cpp's rotary order."""
    return w.reshape(heads, 2, w.shape[0] // heads // 2, *w.shape[1:]).swapaxes(1, 2).reshape(w.shape)


def unpermute(w, heads):
    return w.reshape(heads, w.shape[0] // heads // 2, 2, *w.shape[1:]).swapaxes(1, 2).reshape(w.shape)


def llama3_rope_freqs(theta, dims, scaling):
    factor = scaling.get("factor", 8.0)
    low, high = scaling.get("low_freq_factor", 1.0), scaling.get("high_freq_factor", 4.0)
    original = scaling.get("original_max_position_embeddings", 8192)
    out = []
    for i in range(0, dims, 2):
        wavelength = 2 * np.pi / (1.0 / theta ** (i / dims))
        if wavelength < original / high:
            out.append(1.0)
        elif wavelength > original / low:
            out.append(factor)
        else:
            smooth = (original / wavelength - low) / (high - low)
            out.append(1 / ((1 - smooth) / factor + smooth))
    return np.array(out, dtype=np.float32)


def read_safetensors(path):
    """{name: float64 array} of a safetensors file's F32, F16, F64 and BF16 tensors (GPT-2's causal-mask
    buffers, the others, are left out as llama.cpp's converter leaves them)."""
    with open(path, "rb") as f:
        raw = f.read()
    (n,) = struct.unpack("<Q", raw[:8])
    header = json.loads(raw[8:8 + n])
    data = raw[8 + n:]
    out = {}
    for name, info in header.items():
        if name == "__metadata__" or info["dtype"] not in ("F32", "F16", "F64", "BF16"):
            continue
        begin, end = info["data_offsets"]
        chunk = data[begin:end]
        if info["dtype"] == "BF16":
            values = (np.frombuffer(chunk, "<u2").astype(np.uint32) << 16).view(np.float32)
        else:
            values = np.frombuffer(chunk, {"F32": "<f4", "F16": "<f2", "F64": "<f8"}[info["dtype"]])
        out[name] = values.astype(np.float64).reshape(info["shape"])
    return out


def read_weights(d):
    """The checkpoint's tensors: model.safetensors, or the shards model.safetensors.index.json lists."""
    index = read_json(os.path.join(d, "model.safetensors.index.json"))
    if index is None:
        return read_safetensors(os.path.join(d, "model.safetensors"))
    out = {}
    for shard in sorted(set(index["weight_map"].values())):
        out.update(read_safetensors(os.path.join(d, shard)))
    return out


# ------------------------------------------------------------------------------------------------ tokenizers


def special_ids(d, config, tokens):
    """bos, eos, unk, pad: tokenizer_config.json's tokens by their text, else config.json's ids (SpecialVocab)."""
    tc = read_json(os.path.join(d, "tokenizer_config.json"), {})
    ids = {}
    index = {t: i for i, t in enumerate(tokens)}
    for role in ("bos", "eos", "unk", "pad"):
        token = tc.get(role + "_token")
        if isinstance(token, dict):
            token = token.get("content")
        if isinstance(token, str) and token in index:
            ids[role] = index[token]
        elif isinstance(config.get(role + "_token_id"), int):
            ids[role] = config[role + "_token_id"]
    return ids, tc


def add_bos_of(tc, tokenizer):
    if "add_bos_token" in tc:
        return bool(tc["add_bos_token"])
    post = (tokenizer or {}).get("post_processor") or {}
    steps = post.get("processors", [post]) if post.get("type") == "Sequence" else [post]
    for step in steps:
        if step.get("type") == "TemplateProcessing":
            return "SpecialToken" in step["single"][0]
    return None


def gpt2_vocab(d):
    vocab = read_json(os.path.join(d, "vocab.json"))
    tokens = [t for t, _ in sorted(vocab.items(), key=lambda kv: kv[1])]
    with open(os.path.join(d, "merges.txt"), encoding="utf-8") as f:
        merges = [line.rstrip("\n") for line in f if line.strip() and not line.startswith("#version")]
    types = [CONTROL if t == "<|endoftext|>" else NORMAL for t in tokens]
    return {"model": "gpt2", "pre": "gpt-2", "tokens": tokens, "types": types, "merges": merges}


def tokenizer_json_vocab(d):
    tj = read_json(os.path.join(d, "tokenizer.json"))
    m = tj["model"]
    by_id = {i: t for t, i in m["vocab"].items()}
    types = {}
    for a in tj.get("added_tokens", []):
        by_id[a["id"]] = a["content"]
        types[a["id"]] = CONTROL if a["special"] else USER_DEFINED
    tokens = [by_id[i] for i in range(max(by_id) + 1)]
    merges = [" ".join(p) if isinstance(p, list) else p for p in m["merges"]]
    if m.get("byte_fallback"):
        # SentencePiece's scores: -r for the piece merge r makes, lower for the other normal pieces.
        rank = {}
        for r, p in enumerate(merges):
            rank.setdefault(p.replace(" ", ""), r)
        scores, kinds = [], []
        for i, t in enumerate(tokens):
            if t == m.get("unk_token"):
                kinds.append(UNKNOWN)
            elif re.fullmatch(r"<0x[0-9A-Fa-f]{2}>", t):
                kinds.append(BYTE)
            else:
                kinds.append(types.get(i, NORMAL))
            scores.append(0.0 if kinds[-1] != NORMAL else float(-rank[t]) if t in rank else float(-len(merges) - i))
        return {"model": "llama", "tokens": tokens, "types": kinds, "scores": scores}, tj
    regex = tj["pre_tokenizer"]["pretokenizers"][0]["pattern"]["Regex"]
    pre = "llama-bpe" if "\\p{N}{1,3}" in regex else "qwen2"
    return {"model": "gpt2", "pre": pre, "tokens": tokens, "types": [types.get(i, NORMAL) for i in range(len(tokens))],
            "merges": merges}, tj


def write_tokenizer(w, d, config, chat_template):
    if os.path.exists(os.path.join(d, "tokenizer.json")):
        v, tj = tokenizer_json_vocab(d)
    else:
        v, tj = gpt2_vocab(d), None
    w.add("tokenizer.ggml.model", gw.STRING, v["model"])
    if "pre" in v:
        w.add("tokenizer.ggml.pre", gw.STRING, v["pre"])
    w.add_array("tokenizer.ggml.tokens", gw.STRING, v["tokens"])
    if "scores" in v:
        w.add_array("tokenizer.ggml.scores", gw.F32, v["scores"])
    w.add_array("tokenizer.ggml.token_type", gw.I32, v["types"])
    if "merges" in v:
        w.add_array("tokenizer.ggml.merges", gw.STRING, v["merges"])
    ids, tc = special_ids(d, config, v["tokens"])
    names = {"bos": "bos_token_id", "eos": "eos_token_id", "unk": "unknown_token_id", "pad": "padding_token_id"}
    for role, key in names.items():
        if role in ids:
            w.add("tokenizer.ggml." + key, gw.U32, ids[role])
    add_bos = add_bos_of(tc, tj)
    if add_bos is not None:
        w.add("tokenizer.ggml.add_bos_token", gw.BOOL, add_bos)
    if "add_eos_token" in tc:
        w.add("tokenizer.ggml.add_eos_token", gw.BOOL, bool(tc["add_eos_token"]))
    if chat_template is None and isinstance(tc.get("chat_template"), str):
        chat_template = tc["chat_template"]
    if chat_template is not None:
        w.add("tokenizer.chat_template", gw.STRING, chat_template)
    return len(v["tokens"])


# ------------------------------------------------------------------------------------------------ the model


def write_dequantized(d, out, tensors):
    """DIR2: d's files but its weights, and model.safetensors of `tensors` ({HF name: float64 array}) as F32."""
    os.makedirs(out, exist_ok=True)
    for name in os.listdir(d):
        if not (name.endswith(".safetensors") or name.endswith(".safetensors.index.json") or name.startswith("reference")):
            with open(os.path.join(d, name), "rb") as src, open(os.path.join(out, name), "wb") as dst:
                dst.write(src.read())
    header, data = {}, bytearray()
    for name, values in tensors.items():
        raw = np.ascontiguousarray(values, dtype="<f4").tobytes()
        header[name] = {"dtype": "F32", "shape": list(values.shape), "data_offsets": [len(data), len(data) + len(raw)]}
        data += raw
    text = json.dumps(header).encode()
    text += b" " * (-len(text) % 8)
    with open(os.path.join(out, "model.safetensors"), "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + bytes(data))


def convert(d, out, wanted, chat_template=None, version=3, dequantized=None):
    config = read_json(os.path.join(d, "config.json"))
    model_type = config["model_type"]
    arch = ARCHITECTURES[model_type]
    P = read_weights(d)
    w = gw.GgufWriter(version)
    w.add("general.architecture", gw.STRING, arch)
    w.add("general.name", gw.STRING, os.path.basename(os.path.normpath(d)))
    w.add("general.file_type", gw.U32, FILE_TYPES[wanted])
    if wanted not in (gw.GGML_F32, gw.GGML_F16, gw.GGML_BF16):
        w.add("general.quantization_version", gw.U32, 2)

    def key(name, value_type, value):
        w.add(arch + "." + name, value_type, value)

    reference = {}

    def tensor(name, values, matrix=False, hf=None, undo=lambda v: v):
        """Writes `values`; records what its blocks decode to, back in the layout of `hf` (undo)."""
        values = np.asarray(values, dtype=np.float64)
        t = matrix_type(wanted, values.shape[-1]) if matrix and values.ndim == 2 else gw.GGML_F32
        w.add_tensor(name, values.astype(np.float32), t)
        if hf is not None:
            type_name = TYPE_NAMES[t]
            blocks = np.frombuffer(w.tensors[-1][3], np.uint8).reshape(-1, BLOCK_TYPES[type_name][2])
            reference[hf] = undo(decode(type_name, blocks).reshape(values.shape))

    if arch == "gpt2":
        C = config["n_embd"]
        key("context_length", gw.U32, config.get("n_ctx", config.get("n_positions", 1024)))
        key("embedding_length", gw.U32, C)
        key("feed_forward_length", gw.U32, config.get("n_inner") or 4 * C)
        key("block_count", gw.U32, config["n_layer"])
        key("attention.head_count", gw.U32, config["n_head"])
        key("attention.layer_norm_epsilon", gw.F32, config.get("layer_norm_epsilon", 1e-5))
    else:
        H = config["num_attention_heads"]
        kv = config.get("num_key_value_heads", H)
        head_dim = config.get("head_dim") or config["hidden_size"] // H
        rope = config.get("rope_parameters") or config.get("rope_scaling") or {}
        theta = config.get("rope_theta", rope.get("rope_theta", 10000.0))
        key("context_length", gw.U32, config["max_position_embeddings"])
        key("embedding_length", gw.U32, config["hidden_size"])
        key("feed_forward_length", gw.U32, config["intermediate_size"])
        key("block_count", gw.U32, config["num_hidden_layers"])
        key("attention.head_count", gw.U32, H)
        key("attention.head_count_kv", gw.U32, kv)
        key("attention.layer_norm_rms_epsilon", gw.F32, config["rms_norm_eps"])
        if "head_dim" in config:
            key("attention.key_length", gw.U32, head_dim)
            key("attention.value_length", gw.U32, head_dim)
        key("rope.dimension_count", gw.U32, head_dim)
        key("rope.freq_base", gw.F32, theta)
        rope_type = rope.get("rope_type", rope.get("type", "default"))
        if rope_type in ("linear", "dynamic"):
            key("rope.scaling.type", gw.STRING, rope_type)
            key("rope.scaling.factor", gw.F32, rope["factor"])
            if rope_type == "dynamic":
                key("rope.scaling.original_context_length", gw.U32, config["max_position_embeddings"])
        window = config.get("sliding_window")
        in_force = model_type == "mistral" or config.get("use_sliding_window", False)
        if window and in_force and window < config["max_position_embeddings"]:
            key("attention.sliding_window", gw.U32, window)
    vocab_size = write_tokenizer(w, d, config, chat_template)
    key("vocab_size", gw.U32, vocab_size)

    if arch == "gpt2":
        p = "transformer." if "transformer.wte.weight" in P else ""
        tensor("token_embd.weight", P[p + "wte.weight"], True, p + "wte.weight")
        tensor("position_embd.weight", P[p + "wpe.weight"], hf=p + "wpe.weight")
        tensor("output_norm.weight", P[p + "ln_f.weight"], hf=p + "ln_f.weight")
        tensor("output_norm.bias", P[p + "ln_f.bias"], hf=p + "ln_f.bias")
        for i in range(config["n_layer"]):
            h, b = "%sh.%d." % (p, i), "blk.%d." % i
            for theirs, ours in (("ln_1", "attn_norm"), ("ln_2", "ffn_norm")):
                tensor(b + ours + ".weight", P[h + theirs + ".weight"], hf=h + theirs + ".weight")
                tensor(b + ours + ".bias", P[h + theirs + ".bias"], hf=h + theirs + ".bias")
            for theirs, ours in (("attn.c_attn", "attn_qkv"), ("attn.c_proj", "attn_output"), ("mlp.c_fc", "ffn_up"),
                                 ("mlp.c_proj", "ffn_down")):
                # Conv1D keeps (in, out): stored transposed
                tensor(b + ours + ".weight", P[h + theirs + ".weight"].T, True, h + theirs + ".weight", lambda v: v.T)
                tensor(b + ours + ".bias", P[h + theirs + ".bias"], hf=h + theirs + ".bias")
    else:
        p = "model." if "model.embed_tokens.weight" in P else ""
        if rope_type == "llama3":
            tensor("rope_freqs.weight", llama3_rope_freqs(theta, head_dim, rope))
        tensor("token_embd.weight", P[p + "embed_tokens.weight"], True, p + "embed_tokens.weight")
        tensor("output_norm.weight", P[p + "norm.weight"], hf=p + "norm.weight")
        if not config.get("tie_word_embeddings", False):
            tensor("output.weight", P["lm_head.weight"], True, "lm_head.weight")
        names = (("input_layernorm", "attn_norm"), ("self_attn.q_proj", "attn_q"), ("self_attn.k_proj", "attn_k"),
                 ("self_attn.v_proj", "attn_v"), ("self_attn.o_proj", "attn_output"),
                 ("self_attn.q_norm", "attn_q_norm"), ("self_attn.k_norm", "attn_k_norm"),
                 ("post_attention_layernorm", "ffn_norm"), ("mlp.gate_proj", "ffn_gate"), ("mlp.up_proj", "ffn_up"),
                 ("mlp.down_proj", "ffn_down"))
        for i in range(config["num_hidden_layers"]):
            for theirs, ours in names:
                for leaf in ("weight", "bias"):
                    name = "%slayers.%d.%s.%s" % (p, i, theirs, leaf)
                    if name not in P:
                        continue
                    values, undo = P[name], (lambda v: v)
                    if arch == "llama" and ours in ("attn_q", "attn_k"):
                        heads = H if ours == "attn_q" else kv
                        values, undo = permute(values, heads), (lambda v, n=heads: unpermute(v, n))
                    tensor("blk.%d.%s.%s" % (i, ours, leaf), values, leaf == "weight" and values.ndim == 2, name, undo)
    w.write(out)
    if dequantized:
        write_dequantized(d, dequantized, reference)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("directory")
    parser.add_argument("out")
    parser.add_argument("--type", default="f32", choices=sorted(TYPES))
    parser.add_argument("--chat-template", help="a Jinja file: tokenizer.chat_template")
    parser.add_argument("--version", type=int, default=3, choices=[2, 3])
    parser.add_argument("--dequantized", help="also write this checkpoint directory of the decoded weights")
    args = parser.parse_args()
    template = None
    if args.chat_template:
        with open(args.chat_template, encoding="utf-8") as f:
            template = f.read()
    convert(args.directory, args.out, TYPES[args.type], template, args.version, args.dequantized)


if __name__ == "__main__":
    main()
