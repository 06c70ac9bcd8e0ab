#!/usr/bin/env bash
# Builds a verse-aligned Spanish->English corpus from Debian's SWORD modules: Reina-Valera 1909
# (sword-text-sparv) and the World English Bible (sword-text-web), exported with mod2imp (libsword-utils).
# Markup is stripped (extract_verses.pl), verses are paired per chapter by a length-based alignment that
# survives the modules' different verse numbering (align_verses.pl), and whole books are held out:
# test = Mark, Ruth, Jonah; dev = Colossians, Nahum, Jude. Output in $1 (default runs/bible/data):
#   {train,dev,test}.{es,en}   one verse per line
#   {train,dev,test}.ref       "Book chapter:verse" of each line (Spanish numbering)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-runs/bible/data}
"$here/../../scripts/apt-install.sh" sword-text-sparv sword-text-web libsword-utils
mkdir -p "$out"
mod2imp spaRV1909eb | perl "$here/extract_verses.pl" --initial-caps > "$out/spa.tsv"
mod2imp engWEB2015eb | perl "$here/extract_verses.pl" > "$out/eng.tsv"
perl "$here/align_verses.pl" "$out/spa.tsv" "$out/eng.tsv" > "$out/pairs.tsv"
awk -F'\t' -v out="$out" '
  { split_name = "train"
    if ($1 == "Mark" || $1 == "Ruth" || $1 == "Jonah") split_name = "test"
    if ($1 == "Colossians" || $1 == "Nahum" || $1 == "Jude") split_name = "dev"
    print $5 > (out "/" split_name ".es"); print $6 > (out "/" split_name ".en")
    print $1 " " $2 ":" $3 > (out "/" split_name ".ref") }' "$out/pairs.tsv"
wc -l "$out"/train.es "$out"/dev.es "$out"/test.es | sed '$d'
