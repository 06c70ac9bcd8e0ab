#!/usr/bin/python3
# export_state_dict.py -- turn a PyTorch checkpoint into a safetensors state dict for `heptapod convert`.
#
# Heptapod reads weights trained in PyTorch from safetensors files, never from pickles. This script loads a
# checkpoint with torch.load (on the CPU) and writes every tensor in it as F32 safetensors, under its
# state-dict name. The checkpoint may be
#   - a state dict (name -> tensor),
#   - a dict holding one under "model" or "state_dict" (training checkpoints often look like that),
#   - a whole pickled nn.Module (its class must be importable here, as torch.load needs it).
#
# From a PyTorch model to a Heptapod model file:
#
#   /usr/bin/python3 tools/export_state_dict.py checkpoint.pt -o state_dict.safetensors
#   heptapod convert state_dict.safetensors --from nn-transformer --norm post --heads 8 \
#     --source-spm src.model --target-spm tgt.model -o model.htp
#
# (--from nn-transformer expects the layout of PyTorch's nn.Transformer translation tutorial; --heads and --norm
# must be the model's nhead and norm_first, which the weights do not record. See src/heptapod/io/torch_import.h.)
#
# A fairseq `transformer` checkpoint also needs its architecture settings, which live in its pickled cfg/args.
# --config-out writes them as a JSON object: the fields of checkpoint["cfg"]["model"] (an argparse.Namespace, a
# dict or an omegaconf DictConfig; its nested encoder/decoder/quant_noise sections also as the flat
# encoder_embed_dim-style names), or of checkpoint["args"] in checkpoints before fairseq 0.10, keeping the values
# JSON can hold (numbers, strings, bools, None, lists of those); "bpe" (cfg["bpe"]["_name"] or args.bpe),
# "sentencepiece_model" where recorded, and "arch". Put the tensors and the settings in one directory DIR with
# the two dictionaries (fairseq's dict.<source lang>.txt and dict.<target lang>.txt, renamed) and the
# SentencePiece model, then convert the directory:
#
#   /usr/bin/python3 tools/export_state_dict.py checkpoint_best.pt -o DIR/model.safetensors --config-out DIR/cfg.json
#   cp dict.en.txt DIR/dict.src.txt && cp dict.es.txt DIR/dict.tgt.txt && cp sentencepiece.bpe.model DIR/
#   heptapod convert --from fairseq DIR -o model.htp
#
# (torch.load unpickles the whole checkpoint: a fairseq >= 0.10 one may hold omegaconf objects, so run this where
# omegaconf, or fairseq itself, is installed.)
# A Hugging Face MarianMT snapshot with only pytorch_model.bin: export it to model.safetensors beside its
# config.json, vocab.json, source.spm and target.spm, then `heptapod convert DIR --from marian`; a GPT-2 or
# BERT snapshot likewise (beside config.json and its tokenizer files), then `--from gpt2` or `--from bert`.
#
# Runs with Debian's interpreter and python3-torch (1.13); only torch and the standard library are used
# (no safetensors package: the format is written by hand, see docs/model-format.md for the layout):
#   u64 little-endian header length N, N bytes of JSON header padded with spaces to a multiple of 8,
#   then the tensor data, little-endian, row-major, packed in header order.

import argparse
import array
import json
import os
import struct
import sys

import torch

CHUNK = 1 << 20  # elements converted to bytes at a time (keeps the Python lists small)


def find_state_dict(obj, path):
    """Returns (state dict, description of where it was found)."""
    if isinstance(obj, torch.nn.Module):
        return obj.state_dict(), "the nn.Module's state_dict()"
    if isinstance(obj, dict):
        for key in ("model", "state_dict"):
            if key in obj:
                inner = obj[key]
                if isinstance(inner, torch.nn.Module):
                    return inner.state_dict(), "checkpoint[%r].state_dict()" % key
                if isinstance(inner, dict):
                    return inner, "checkpoint[%r]" % key
        if any(torch.is_tensor(v) for v in obj.values()):
            return obj, "the checkpoint itself"
    sys.exit("%s: no state dict found (expected a dict of tensors, a dict with a 'model' or 'state_dict' "
             "entry, or an nn.Module; got %s)" % (path, type(obj).__name__))


def tensor_bytes(t):
    """The float32 values of t, little-endian, row-major."""
    flat = t.detach().to("cpu", torch.float32).contiguous().reshape(-1)
    out = bytearray()
    for start in range(0, flat.numel(), CHUNK):
        a = array.array("f", flat[start:start + CHUNK].tolist())
        if sys.byteorder != "little":
            a.byteswap()
        out += a.tobytes()
    return bytes(out)


def write_atomic(path, write):
    """Calls write(f) on a temporary binary file beside path, then renames it onto path (removed on failure)."""
    tmp = path + ".tmp.%d" % os.getpid()
    try:
        with open(tmp, "wb") as f:
            write(f)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.remove(tmp)
        raise


def write_safetensors(path, tensors, metadata):
    """tensors: list of (name, tensor) in file order; metadata: dict of str -> str. Writes atomically."""
    header = {"__metadata__": metadata}
    blobs = []
    offset = 0
    for name, t in tensors:
        blob = tensor_bytes(t)
        assert len(blob) == 4 * t.numel()
        header[name] = {"dtype": "F32", "shape": list(t.shape), "data_offsets": [offset, offset + len(blob)]}
        offset += len(blob)
        blobs.append(blob)
    text = json.dumps(header, separators=(",", ":")).encode("utf-8")
    text += b" " * (-len(text) % 8)
    def write(f):
        f.write(struct.pack("<Q", len(text)))
        f.write(text)
        for blob in blobs:
            f.write(blob)

    write_atomic(path, write)
    return offset


def _scalar(value):
    if value is None or isinstance(value, (bool, int, str)):
        return True
    return isinstance(value, float) and value == value and abs(value) != float("inf")  # JSON has no NaN/inf


def plain(value):
    """value (a list for any sequence) if JSON can hold it: numbers, strings, bools, None, lists of those.
    Anything else (objects, nested sections, NaN, infinities) gives None."""
    if _scalar(value):
        return value
    if not isinstance(value, (str, bytes, dict)) and hasattr(value, "__len__") and hasattr(value, "__iter__") \
            and not hasattr(value, "keys"):  # list, tuple, omegaconf ListConfig
        try:
            items = list(value)
        except Exception:
            return None
        if all(_scalar(v) for v in items):
            return items
    return None


def as_dict(section):
    """The fields of an argparse.Namespace, a dict or an omegaconf DictConfig (fields that cannot be read, such
    as omegaconf's missing values or interpolations that do not resolve, are left out)."""
    if section is None:
        return {}
    if isinstance(section, argparse.Namespace):
        return dict(vars(section))
    if hasattr(section, "keys") and hasattr(section, "__getitem__"):
        out = {}
        for k in list(section.keys()):
            try:
                out[str(k)] = section[k]
            except Exception:
                pass
        return out
    return {}


# fairseq's TransformerConfig nests these sections (cfg.model.encoder.embed_dim); its flat names, which the
# legacy argparse models and every older checkpoint use, are "<section>_<field>" (encoder_embed_dim).
NESTED_SECTIONS = ("encoder", "decoder", "quant_noise")


def fairseq_config(obj, path):
    """The architecture settings of a fairseq checkpoint (cfg["model"], or the older args), with its BPE."""
    if not isinstance(obj, dict) or (obj.get("cfg") is None and obj.get("args") is None):
        sys.exit("%s: --config-out needs a fairseq checkpoint (a dict with 'cfg' or 'args'); this one has neither"
                 % path)
    cfg = as_dict(obj.get("cfg"))
    model = as_dict(cfg.get("model")) or as_dict(obj.get("args"))
    if not model:
        sys.exit("%s: the checkpoint's cfg has no 'model' section and it has no 'args'" % path)
    out = {k: plain(v) for k, v in model.items() if plain(v) is not None or v is None}
    for section in NESTED_SECTIONS:
        for k, v in as_dict(model.get(section)).items():
            flat = section + "_" + k
            if flat not in out and (plain(v) is not None or v is None):
                out[flat] = plain(v)
    bpe = as_dict(cfg.get("bpe"))
    args = as_dict(obj.get("args"))
    name = bpe.get("_name", args.get("bpe"))
    if name is not None:
        out["bpe"] = name
    spm = bpe.get("sentencepiece_model", args.get("sentencepiece_model"))
    if spm is not None:
        out["sentencepiece_model"] = spm
    if "arch" not in out and "_name" in out:
        out["arch"] = out["_name"]
    return out


def write_json_atomic(path, value):
    text = json.dumps(value, indent=1, sort_keys=True, allow_nan=False) + "\n"
    write_atomic(path, lambda f: f.write(text.encode("utf-8")))


def main():
    parser = argparse.ArgumentParser(description="Write the tensors of a PyTorch checkpoint as an F32 "
                                                 "safetensors state dict (input for `heptapod convert`).")
    parser.add_argument("checkpoint", help="file saved with torch.save (state dict, training checkpoint or module)")
    parser.add_argument("-o", "--output", required=True, help="safetensors file to write")
    parser.add_argument("--strip-prefix", default="",
                        help="remove this prefix from names that have it (e.g. 'module.' from DataParallel)")
    parser.add_argument("--config-out", default="",
                        help="fairseq checkpoints: also write the architecture settings (cfg.model or args, with "
                             "the BPE) as JSON here, for `heptapod convert --from fairseq`")
    args = parser.parse_args()

    try:
        obj = torch.load(args.checkpoint, map_location="cpu")
    except Exception as e:  # a missing file, a bad pickle, a class that cannot be imported
        sys.exit("%s: cannot load: %s" % (args.checkpoint, e))
    state, where = find_state_dict(obj, args.checkpoint)

    tensors = []
    skipped = []
    seen = set()
    for name, value in state.items():
        if not torch.is_tensor(value):
            skipped.append(name)
            continue
        name = str(name)
        if args.strip_prefix and name.startswith(args.strip_prefix):
            name = name[len(args.strip_prefix):]
        if name == "__metadata__" or name in seen:
            sys.exit("%s: tensor name %r is reserved or appears twice" % (args.checkpoint, name))
        seen.add(name)
        if value.is_complex():
            sys.exit("%s: tensor %r is complex; safetensors F32 cannot hold it" % (args.checkpoint, name))
        if not value.is_floating_point() and value.numel() and value.abs().max().item() > 2 ** 24:
            print("warning: %s holds integers beyond 2^24; F32 rounds them" % name, file=sys.stderr)
        tensors.append((name, value))
    if not tensors:
        sys.exit("%s: %s holds no tensors" % (args.checkpoint, where))

    config = fairseq_config(obj, args.checkpoint) if args.config_out else None
    metadata = {"format": "pytorch-state-dict", "source": os.path.basename(args.checkpoint)}
    nbytes = write_safetensors(args.output, tensors, metadata)
    count = sum(t.numel() for _, t in tensors)
    print("wrote %s: %d tensors, %d values (%.1f MB) from %s"
          % (args.output, len(tensors), count, nbytes / 1e6, where))
    if config is not None:
        write_json_atomic(args.config_out, config)
        print("wrote %s: %d architecture settings" % (args.config_out, len(config)))
    if skipped:
        print("skipped %d non-tensor entries: %s" % (len(skipped), ", ".join(map(str, skipped[:8]))
                                                      + (" ..." if len(skipped) > 8 else "")))


if __name__ == "__main__":
    main()
