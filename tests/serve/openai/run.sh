#!/usr/bin/env bash
# run.sh HEPTAPOD MAKE_TEST_MODEL WORKDIR: `heptapod serve`'s OpenAI-compatible API driven by OpenAI's official
# JavaScript client library (npm package openai, fetched by fetch_openai.sh into WORKDIR/npm).
#
# Steps, each bounded in time:
#  1. fetch the package (exit 77, CTest's "skipped", passes through when npm's registry cannot be reached);
#  2. write three small random-weights models with MAKE_TEST_MODEL: a language model, an embedding encoder and
#     a classifier (labels "number", "word"); and a chat model, the language model given the ChatML-like
#     template tests/chat/chatml_like.jinja by `heptapod convert --chat-template`;
#  3. compute the references with the command line: `heptapod generate` for 8 prompt/seed pairs (sampling at
#     temperature 1, top-k 0, top-p 1, 12 new tokens), `heptapod embed` for two lines per encoder, and for a
#     conversation `heptapod chat --messages` (its reply, same sampling) and `heptapod chat --render` (its prompt);
#  4. start `heptapod serve -m writer=lm.htp -m vec=enc.htp -m topics=clf.htp -m talker=chat.htp` on 127.0.0.1,
#     port 0 (the port is
#     read from its "listening on" line), and a second one with --api-keys for the key checks; wait for
#     GET /health to answer 200 (60 s at most);
#  5. run openai_client.js (node) against them; the servers are stopped on exit, whatever happens.
# Every model runs with --compute-type int8, in the servers and in the references alike: int8 makes a reply
# independent of what else is in its batch, where the file's own float32 (every command's default, the
# server's too) sums in an order that depends on the batch.
# All traffic stays on 127.0.0.1 (proxy variables are cleared). The work files (models, references, config,
# server logs) stay in WORKDIR; a server log is printed when the test fails.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
source "$here/../node_client.sh"
# The pinned client is checked on Node 20 (it declares 22); Debian 12's own nodejs is 18.
node_client_checks $# "$0 HEPTAPOD MAKE_TEST_MODEL WORKDIR" 20 "the openai client is tested on Node 20 or newer"
heptapod=$1
make_model=$2
work=$3

# No OpenAI settings from the environment (the client would read OPENAI_ORG_ID etc.).
while read -r name; do unset "$name"; done < <(compgen -e | grep '^OPENAI_' || true)

mkdir -p "$work"
work=$(cd "$work" && pwd)

# ---- 1. the client library ----
status=0
"$here/fetch_openai.sh" "$work/npm" || status=$?
[ "$status" -eq 0 ] || exit "$status"

# ---- 2. the models ----
models=$work/models
rm -rf "$models" "$work/refs"
mkdir -p "$models" "$work/refs"
timeout 60 "$make_model" "$models/lm.htp" generation
timeout 60 "$make_model" "$models/enc.htp" embedding
timeout 60 "$make_model" "$models/clf.htp" classification
timeout 60 "$heptapod" convert "$models/lm.htp" --chat-template "$here/../../chat/chatml_like.jinja" \
  -o "$models/chat.htp" >/dev/null

# ---- 3. the references ----
compute=(--compute-type int8)
max_tokens=12
# seed|prompt; the first is the main case; all 8 also run concurrently.
cases=(
  "11|twenty-six thousand"
  "12|forty-four thousand nine hundred"
  "13|one hundred and"
  "14|fifty-eight"
  "15|seven thousand three hundred and ten"
  "16|ninety-nine"
  "17|six hundred and twelve"
  "18|thirty thousand and"
)
: >"$work/refs/cases.tsv"
i=0
for c in "${cases[@]}"; do
  seed=${c%%|*}
  prompt=${c#*|}
  timeout 60 "$heptapod" generate -m "$models/lm.htp" --prompt "$prompt" --temperature 1 --top-k 0 --top-p 1 \
    --seed "$seed" --max-tokens "$max_tokens" "${compute[@]}" >"$work/refs/generate.$i.txt"
  if [ "$(wc -l <"$work/refs/generate.$i.txt")" -ne 1 ]; then
    echo "error: heptapod generate printed other than one line for $c:" >&2
    cat "$work/refs/generate.$i.txt" >&2
    exit 1
  fi
  printf '%s\t%s\t%s\n' "$seed" "$prompt" "$work/refs/generate.$i.txt" >>"$work/refs/cases.tsv"
  i=$((i + 1))
done
embed_inputs=("one hundred and four" "fifty-eight thousand three hundred and ten")
printf '%s\n' "${embed_inputs[@]}" >"$work/refs/embed_input.txt"
for m in enc clf; do
  timeout 60 "$heptapod" embed -m "$models/$m.htp" "${compute[@]}" -i "$work/refs/embed_input.txt" \
    -o "$work/refs/embed.$m.jsonl"
done

# A conversation (a system message and a user turn): its reply at the sampling settings above, seed 21, and the
# prompt the template makes of it.
chat_seed=21
printf '%s\n' '[{"role": "system", "content": "count"}, {"role": "user", "content": "twenty-six thousand"}]' \
  >"$work/refs/chat_messages.json"
timeout 60 "$heptapod" chat -m "$models/chat.htp" --messages "$work/refs/chat_messages.json" --temperature 1 \
  --top-k 0 --top-p 1 --seed "$chat_seed" --max-tokens "$max_tokens" "${compute[@]}" >"$work/refs/chat.txt"
timeout 60 "$heptapod" chat -m "$models/chat.htp" --messages "$work/refs/chat_messages.json" --render \
  >"$work/refs/chat_render.txt"
if [ "$(wc -l <"$work/refs/chat.txt")" -ne 1 ]; then
  echo "error: heptapod chat --messages printed other than one line:" >&2
  cat "$work/refs/chat.txt" >&2
  exit 1
fi

# ---- 4. the servers ----
key=heptapod-openai-client-test-key
printf '# the one key the keyed server accepts\n%s\n' "$key" >"$work/api_keys.txt"
main_pid=
keyed_pid=
stop_server() {
  local pid=$1
  [ -n "$pid" ] || return 0
  kill -TERM "$pid" 2>/dev/null || return 0
  for _ in $(seq 100); do
    kill -0 "$pid" 2>/dev/null || { wait "$pid" 2>/dev/null || true; return 0; }
    sleep 0.1
  done
  kill -KILL "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
}
cleanup() {
  stop_server "$main_pid"
  stop_server "$keyed_pid"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# start_server LOG ARGS...: starts `heptapod serve ARGS` in the background (at most 280 s, so that no run leaves
# one behind), its stderr to LOG; sets $started to its pid.
start_server() {
  local log=$1
  shift
  : >"$log"
  timeout 280 "$heptapod" serve "$@" --host 127.0.0.1 --port 0 "${compute[@]}" 2>"$log" >/dev/null &
  started=$!
}

# http_get URL OUTFILE: prints the HTTP status of GET URL (000 when there is no answer within 10 s) and writes the
# body to OUTFILE; node's own fetch, so that the test needs nothing beyond node.
http_get() {
  node -e '
const [url, out] = process.argv.slice(1);
fetch(url, { signal: AbortSignal.timeout(10000) })
  .then(async (r) => { require("fs").writeFileSync(out, Buffer.from(await r.arrayBuffer())); console.log(r.status); })
  .catch(() => console.log("000"));' "$1" "$2"
}

# wait_ready PID LOG: waits (60 s at most) for the server's "listening on" line and for GET /health to answer
# 200; prints its base URL.
wait_ready() {
  local pid=$1 log=$2 port="" deadline=$((SECONDS + 60))
  while [ "$SECONDS" -lt "$deadline" ]; do
    if ! kill -0 "$pid" 2>/dev/null; then
      echo "error: heptapod serve exited before it was ready; its log:" >&2
      cat "$log" >&2
      return 1
    fi
    if [ -z "$port" ]; then
      port=$(listening_port "$log")
    fi
    if [ -n "$port" ] &&
      [ "$(http_get "http://127.0.0.1:$port/health" /dev/null)" = 200 ]; then
      echo "http://127.0.0.1:$port"
      return 0
    fi
    sleep 0.2
  done
  echo "error: heptapod serve was not ready within 60 s (port ${port:-unknown}); its log:" >&2
  cat "$log" >&2
  return 1
}

start_server "$work/server.log" -m "writer=$models/lm.htp" -m "vec=$models/enc.htp" -m "topics=$models/clf.htp" \
  -m "talker=$models/chat.htp"
main_pid=$started
start_server "$work/server-keyed.log" -m "writer=$models/lm.htp" -m "vec=$models/enc.htp" --api-keys "$work/api_keys.txt"
keyed_pid=$started
url=$(wait_ready "$main_pid" "$work/server.log")
keyed_url=$(wait_ready "$keyed_pid" "$work/server-keyed.log")

# The OpenAI routes must be there at all before the client's checks mean anything.
models_status=$(http_get "$url/v1/models" "$work/models.json")
if [ "$models_status" != 200 ]; then
  echo "error: GET $url/v1/models answered HTTP $models_status, not 200: $(head -c 300 "$work/models.json" 2>/dev/null)" >&2
  exit 1
fi

# ---- 5. the client ----
node - "$work/config.json" "$work/npm/node_modules/openai" "$url" "$keyed_url" "$key" "$max_tokens" \
  "$work/refs/cases.tsv" "$work/refs/embed_input.txt" "$work/refs/embed.enc.jsonl" "$work/refs/embed.clf.jsonl" \
  "$chat_seed" "$work/refs/chat_messages.json" "$work/refs/chat.txt" "$work/refs/chat_render.txt" <<'EOF'
'use strict';
// Gathers the references into the configuration openai_client.js reads.
const fs = require('fs');
const [out, openai, url, keyedUrl, key, maxTokens, casesTsv, embedInput, encJsonl, clfJsonl, chatSeed, chatMessages,
  chatReply, chatRender] = process.argv.slice(2);
const lines = (file) => fs.readFileSync(file, 'utf8').replace(/\n$/, '').split('\n');
const completions = lines(casesTsv).map((row) => {
  const [seed, prompt, file] = row.split('\t');
  return { prompt, seed: Number(seed), reference: fs.readFileSync(file, 'utf8').replace(/\n$/, '') };
});
const input = lines(embedInput);
const vectors = (file) => lines(file).map((l) => JSON.parse(l));
const config = {
  openai, url, apiKey: 'no-key-needed', max_tokens: Number(maxTokens), generation: 'writer',
  models: [
    { id: 'writer', kind: 'generation', context_length: 64, chat: false },
    { id: 'vec', kind: 'embedding' },
    { id: 'topics', kind: 'classification', labels: ['number', 'word'] },
    { id: 'talker', kind: 'generation', context_length: 64, chat: true },
  ],
  chat: {
    model: 'talker', seed: Number(chatSeed), messages: JSON.parse(fs.readFileSync(chatMessages, 'utf8')),
    reference: fs.readFileSync(chatReply, 'utf8').replace(/\n$/, ''), rendered: fs.readFileSync(chatRender, 'utf8'),
  },
  completions,
  pairPrompts: [completions[1].prompt, completions[2].prompt],
  embeddings: [
    { model: 'vec', input, vectors: vectors(encJsonl) },
    { model: 'topics', input, vectors: vectors(clfJsonl) },
  ],
  keyed: { url: keyedUrl, key, model: 'writer', embedding: 'vec' },
};
fs.writeFileSync(out, JSON.stringify(config, null, 1) + '\n');
EOF

status=0
timeout 150 node "$here/openai_client.js" "$work/config.json" || status=$?
if [ "$status" -ne 0 ]; then
  echo "openai_client.js failed (status $status); the server's log ($work/server.log):" >&2
  tail -n 40 "$work/server.log" >&2
  exit 1
fi
