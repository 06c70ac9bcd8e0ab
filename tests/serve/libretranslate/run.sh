#!/usr/bin/env bash
# run.sh HEPTAPOD FIXTURES WORKDIR: `heptapod serve`'s LibreTranslate route (POST /translate, GET /languages)
# driven by the LibreTranslate npm client (libretranslate@1.0.1, fetched and hash-checked by tests/npm_pack.sh
# into WORKDIR/npm), against a server holding a multilingual model: the M2M100 fixture (FIXTURES/m2m100,
# languages __en__, __fr__, __es__, __de__) converted with `heptapod convert --from m2m100`.
#
# Steps, each bounded in time:
#  1. fetch the package (exit 77, CTest's "skipped", passes through when npm's registry cannot be reached);
#  2. convert the fixture; compute the references with `heptapod translate --source-lang/--target-lang`, given
#     the client's two-letter codes (which the model resolves to its own: fr -> __fr__);
#  3. start `heptapod serve -m model.htp` on 127.0.0.1, port 0 (read from its "listening on" line);
#  4. run libretranslate_client.js (node) against it; the server is stopped on exit, whatever happens.
# The model runs with --compute-type int8 in the server and in the references alike (a reply independent of what
# else is in its batch). All traffic stays on 127.0.0.1 (proxy variables are cleared).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
source "$here/../node_client.sh"
node_client_checks $# "$0 HEPTAPOD FIXTURES WORKDIR" 18 "the client needs fetch (Node 18 or newer)"
heptapod=$1
fixtures=$2
work=$3

mkdir -p "$work"
work=$(cd "$work" && pwd)

# ---- 1. the client library ----
status=0
"$here/../../npm_pack.sh" "$work/npm" libretranslate@1.0.1 \
  dc016af228e7f26bfb65c9fadc42bb60021b6985fadc353a1914a62d588ea2ab || status=$?
[ "$status" -eq 0 ] || exit "$status"

# ---- 2. the model and the references ----
rm -rf "$work/refs"
mkdir -p "$work/refs"
model=$work/m2m100.htp
timeout 60 "$heptapod" convert "$fixtures/m2m100" --from m2m100 -o "$model" >/dev/null 2>&1
compute=(--compute-type int8)
# source|target|text: two-letter codes as the client sends them; "auto" leaves the source untagged.
cases=(
  "en|fr|twenty-six thousand one hundred and four"
  "fr|de|cuarenta y cuatro mil"
  "es|en|trescientos diez"
  "auto|es|three hundred"
)
: >"$work/refs/cases.tsv"
i=0
for c in "${cases[@]}"; do
  IFS='|' read -r source target text <<<"$c"
  langs=(--target-lang "$target")
  [ "$source" = auto ] || langs+=(--source-lang "$source")
  printf '%s\n' "$text" | timeout 60 "$heptapod" translate -m "$model" "${langs[@]}" "${compute[@]}" \
    >"$work/refs/out.$i.txt"
  printf '%s\t%s\t%s\t%s\n' "$source" "$target" "$text" "$(cat "$work/refs/out.$i.txt")" >>"$work/refs/cases.tsv"
  i=$((i + 1))
done

# ---- 3. the server ----
pid=
cleanup() {
  [ -n "$pid" ] || return 0
  kill -TERM "$pid" 2>/dev/null || return 0
  for _ in $(seq 100); do
    kill -0 "$pid" 2>/dev/null || { wait "$pid" 2>/dev/null || true; return 0; }
    sleep 0.1
  done
  kill -KILL "$pid" 2>/dev/null || true
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
: >"$work/server.log"
timeout 200 "$heptapod" serve -m "$model" --host 127.0.0.1 --port 0 "${compute[@]}" 2>"$work/server.log" >/dev/null &
pid=$!
port=""
deadline=$((SECONDS + 60))
while [ -z "$port" ]; do
  kill -0 "$pid" 2>/dev/null || { echo "error: heptapod serve exited; its log:" >&2; cat "$work/server.log" >&2; exit 1; }
  [ "$SECONDS" -lt "$deadline" ] || { echo "error: heptapod serve did not listen within 60 s" >&2; exit 1; }
  port=$(listening_port "$work/server.log")
  [ -n "$port" ] || sleep 0.2
done

# ---- 4. the client ----
status=0
timeout 120 node "$here/libretranslate_client.js" "$work/npm/node_modules/libretranslate" "http://127.0.0.1:$port" \
  "$work/refs/cases.tsv" || status=$?
if [ "$status" -ne 0 ]; then
  echo "libretranslate_client.js failed (status $status); the server's log:" >&2
  tail -n 40 "$work/server.log" >&2
  exit 1
fi
