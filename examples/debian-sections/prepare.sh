#!/usr/bin/env bash
# The Debian package-section task: the bookworm suite's main component from Debian's archive (apt-get update
# into a private lists directory: the machine's own apt state is left alone), each binary package's short and
# long description as its text and its Section as its label, split by source package (join_descriptions.pl).
# Output in $1 (default runs/debian-sections/data): {train,dev,test}.{txt,labels,packages}, and lists.txt: the
# suite's Release date and the counts.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-runs/debian-sections/data}
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
mkdir -p "$out/lists/partial"
echo "deb $mirror bookworm main" > "$out/sources.list"
apt-get update -qq -o Dir::State::Lists="$out/lists" -o Dir::Etc::SourceList="$out/sources.list" \
  -o Dir::Etc::SourceParts=/dev/null -o Acquire::Languages=en
lists=("$out"/lists/*_dists_bookworm_main_binary-amd64_Packages* "$out"/lists/*_dists_bookworm_main_i18n_Translation-en*)
for f in "${lists[@]}"; do [ -f "$f" ] || { echo "prepare.sh: apt-get update gave no $f" >&2; exit 1; }; done
/usr/lib/apt/apt-helper cat-file "${lists[0]}" > "$out/Packages"
/usr/lib/apt/apt-helper cat-file "${lists[1]}" > "$out/Translation-en"
perl "$here/join_descriptions.pl" "$out/Packages" "$out/Translation-en" "$out"
rm -f "$out/Packages" "$out/Translation-en"
{
  echo "suite: bookworm main ($mirror), $(grep -m1 '^Date:' "$out"/lists/*_dists_bookworm_InRelease)"
  for split in train dev test; do
    echo "$split: $(wc -l < "$out/$split.txt") packages, $(cut -f2 "$out/$split.packages" | sort -u | wc -l) source packages, $(sort -u "$out/$split.labels" | wc -l) sections"
  done
} | tee "$out/lists.txt"
