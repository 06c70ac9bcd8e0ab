#!/usr/bin/env bash
# Another English text for the Bible language model to be fine-tuned on: Matthew Henry's Concise Commentary
# (Debian's sword-comm-mhcc, exported with mod2imp from libsword-utils; markup stripped by
# extract_commentary.pl), one paragraph per line, in the commentary's order, with the commentary on the books
# that prepare.sh holds out of the Bible held out here too: test = Mark, Ruth, Jonah; dev = Colossians, Nahum,
# Jude. Output in $1 (default runs/bible-lm/commentary): train.txt, dev.txt, test.txt.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-runs/bible-lm/commentary}
"$here/../../scripts/apt-install.sh" sword-comm-mhcc libsword-utils
mkdir -p "$out"
# mod2imp repeats paragraphs across the module's entries and complains on stderr about its index; the extractor
# keeps each paragraph once and fails if no book is found.
mod2imp MHCC 2>/dev/null | perl "$here/extract_commentary.pl" > "$out/commentary.tsv"
awk -F'\t' -v out="$out" '
  { split_name = "train"
    if ($1 == "Mark" || $1 == "Ruth" || $1 == "Jonah") split_name = "test"
    if ($1 == "Col" || $1 == "Nah" || $1 == "Jude") split_name = "dev"
    print $2 > (out "/" split_name ".txt") }' "$out/commentary.tsv"
wc -lc "$out"/train.txt "$out"/dev.txt "$out"/test.txt | sed '$d'
