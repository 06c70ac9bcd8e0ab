#!/usr/bin/env bash
# run.sh HEPTAPOD_TESTS DATA_DIR HEPTAPOD: the GGUF reader (io/gguf_file.h) and writer (data/gguf_export.h)
# against an independent parser. Writes GGUF files with our Python writer (tools/gguf_writer.py: every value
# type and array, F32/F16/BF16/Q8_0 tensors; versions 2 and 3, alignments 32 and 64) and with Heptapod's
# export (the LLaMA-family and GPT-2 fixtures converted to model files, then `convert --to gguf` in each
# weight type: f32, f16, q8_0, q4_0) and with tools/gguf_from_checkpoint.py from the same fixtures (llama.cpp's
# converter's metadata, tokenizers and tensor tables; F32, F16 and quantized), parses each with
# @huggingface/gguf (fetch_hf_gguf.sh: npm packages
# @huggingface/gguf@0.4.6 and @huggingface/tasks@0.21.54, hash-checked, cached in DATA_DIR) to JSON
# (gguf_reference.js), then runs the RealGguf tests of HEPTAPOD_TESTS, which require Heptapod's reading to
# equal it. Exits 77 (skipped) with the reason when npm's registry or node is unreachable.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
writer="$here/../../tools/gguf_writer.py"
tests_bin=$1
data=$2
heptapod=$3
fixtures="$here/../fixtures"
command -v node >/dev/null || { echo "skipped: node is not installed" >&2; exit 77; }
status=0
"$here/fetch_hf_gguf.sh" "$data" || status=$?
[ "$status" -eq 0 ] || exit "$status"
files="$data/files"
rm -rf "$files"
mkdir -p "$files"
/usr/bin/python3 "$writer" example "$files/v3.gguf"
/usr/bin/python3 "$writer" example "$files/v2.gguf" --version 2
/usr/bin/python3 "$writer" example "$files/v3_align64.gguf" --alignment 64
converter="$here/../../tools/gguf_from_checkpoint.py"
for family in gpt2 llama mistral qwen2 qwen3; do
  /usr/bin/python3 "$converter" "$fixtures/$family" "$files/$family.gguf"
done
/usr/bin/python3 "$converter" "$fixtures/qwen3" "$files/qwen3_f16_v2.gguf" --type f16 --version 2
/usr/bin/python3 "$converter" "$fixtures/llama" "$files/llama_q4_1.gguf" --type q4_1
for family in llama mistral qwen2 gpt2; do
  from=llama
  [ "$family" = gpt2 ] && from=gpt2
  "$heptapod" convert "$fixtures/$family" --from "$from" -o "$files/$family.htp" >/dev/null
  for type in f32 f16 q8_0 q4_0; do
    "$heptapod" convert "$files/$family.htp" --to gguf --gguf-type "$type" -o "$files/exported_${family}_$type.gguf" \
      >/dev/null 2>&1
  done
  rm "$files/$family.htp"
done
for file in "$files"/*.gguf; do
  node "$here/gguf_reference.js" "$data/node_modules/@huggingface/gguf" "$file" >"${file%.gguf}.json"
done
export HEPTAPOD_GGUF_DATA="$files"
exec "$tests_bin" --gtest_filter='RealGguf.*'
