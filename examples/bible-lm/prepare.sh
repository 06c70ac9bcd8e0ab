#!/usr/bin/env bash
# English prose for a language model from Debian's World English Bible (sword-text-web, exported with
# mod2imp from libsword-utils; markup stripped by the translation recipe's extract_verses.pl): one chapter per
# paragraph (its verses, one per line), chapters separated by blank lines, whole books held out as the
# translation recipe holds them out: test = Mark, Ruth, Jonah; dev = Colossians, Nahum, Jude. Output in $1
# (default runs/bible-lm/data): train.txt, dev.txt, test.txt.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-runs/bible-lm/data}
"$here/../../scripts/apt-install.sh" sword-text-web libsword-utils
mkdir -p "$out"
mod2imp engWEB2015eb | perl "$here/../bible-es-en/extract_verses.pl" > "$out/eng.tsv"
awk -F'\t' -v out="$out" '
  { split_name = "train"
    if ($1 == "Mark" || $1 == "Ruth" || $1 == "Jonah") split_name = "test"
    if ($1 == "Colossians" || $1 == "Nahum" || $1 == "Jude") split_name = "dev"
    file = out "/" split_name ".txt"
    chapter = $1 " " $2
    if (chapter != last[file] && last[file] != "") print "" > file
    last[file] = chapter
    print $4 > file }' "$out/eng.tsv"
wc -l "$out"/train.txt "$out"/dev.txt "$out"/test.txt | sed '$d'
