#!/usr/bin/env bash
# The server load benchmark, in SECTIONS (default "translation"; the whole run: SECTIONS="translation generation
# embeddings"), each one table with its goals checked (bench/serve_report.py).
# translation: `heptapod serve` batching across requests against the same server translating
# each request alone (--no-batching), under 1, 8, 32 and 128 concurrent LibreTranslate clients (bench/serve_load
# http), for beam 4 and greedy; beside them the offline ceiling (`heptapod translate` over the whole file) and
# the latency of one sentence through the Translator API in a warm process (serve_load alone). Then the table,
# with the goals checked (bench/serve_report.py): at 32 clients batching gives >= 3x the throughput of one at a
# time; at 128 clients it reaches >= 75% of offline; with one client its p50 is <= 1.2x that of the Translator.
# Then the hostile section (beam 4, batching, 32 clients, the server's default limits): the server alone, then
# beside HOSTILE_SLOW_LORIS (2000) slow-loris and HOSTILE_IDLE (2000) idle keep-alive connections from
# 127.0.0.2..9 (serve_load --slow-loris/--idle, reconnecting), with the goals: p50 <= 2x the unloaded p50, no
# request failed, the server's peak RSS < 500 MB (about 2 minutes more). BASELINE: another heptapod binary (the
# thread-per-connection front end); set, every server configuration runs with both ("front_end": "event" for
# BUILD's, "baseline"), side by side in the table, which doubles the time. The baseline may hang its clients
# under the hostile load (each request gives up after 120 s): its hostile run can take a few minutes.
#   bench/serve.sh [--compute-type int8|float32|bfloat16] [MODEL] [SENTENCES]
#   (defaults: int8, runs/demo/model.htp, runs/bible/data/test.es)
# BUILD (default build) holds apps/heptapod, bench/serve_load and bench/serve_models; raw results go to
# OUT/serve/ (OUT default runs/bench), the combined JSON to OUT/serve.json and the table to OUT/serve.md.
# Sizes: BEAMS ("4 1"), CLIENTS ("1 8 32 128"); each configuration sends max(MIN_REQUESTS, REQUESTS_PER_CLIENT x
# clients) requests (600, 64), none starting after MAX_SECONDS (50); WARMUP (2) untimed requests per client
# first. COMPUTE_TYPE sets the compute type too (int8 is batch-invariant: a batch translates each sentence as
# alone). With the demo model on 2 cores, about 6 minutes (only the 128-client runs one at a time reach the
# cap); at most about 16, every configuration at its cap. Run it on an otherwise idle machine: the clients and
# the server share the cores.
# generation: a language model served as `-m writer=LM`, batching (continuous batching) against the same server
# with --no-batching, under GEN_CLIENTS ("1 8 32") concurrent clients each sending streamed POST /v1/completions
# (bench/serve_load http --api completions: one line of PROMPTS per request, max_tokens MAX_TOKENS (64),
# temperature TEMPERATURE (1), top_p 1, request i seeded SEED (1) + i; TTFT is the time to the first event
# with text, the tokens made come from the final usage event: with random weights the end token may come
# early); beside them the same prompts one at a time through heptapod::Generator in a warm process (serve_load
# alone --api completions: TTFT up to the first GenerateOptions::stream call), and OFFLINE_BATCH (32) prompts
# per Generator call (serve_load alone --batch: the library's own batching, the ceiling a server's can reach).
# Goals: at 32 clients batching gives >= 3x the generated tokens/s of one at a time; with one client its TTFT
# p50 is <= 1.2x the Generator's.
# embeddings: an encoder served as `-m vec=ENCODER`, the same two servers under EMBED_CLIENTS ("1 8 32")
# clients each sending POST /v1/embeddings of one line of TEXTS, beside heptapod::Encoder::embed of one text at
# a time and of OFFLINE_BATCH texts per call; goals: at 32 clients batching gives >= 3x the texts/s of one at a time; with one client its p50
# latency is <= 1.2x the Encoder's. Both use the sizes above (MIN_REQUESTS, REQUESTS_PER_CLIENT, MAX_SECONDS,
# WARMUP) and COMPUTE_TYPE; BASELINE does not apply (the old front end serves translation only).
# Their models: LM and ENCODER, model files of yours; by default untrained ones of realistic size that
# bench/serve_models writes with random weights into OUT/serve-models/ at the start (speed does not depend on
# what a model learned): lm.htp, GPT's design at d_model 512, 6 pre-norm layers, 8 heads, d_ff 2048, context
# 256 (learned positions); encoder.htp, all-MiniLM-L6's shape (6 layers, d_model 384, 12 heads, d_ff 1536, 512
# positions); both with a BPE vocabulary of 8000 pieces trained on VOCAB_TEXT (runs/bible/data/train.en).
# PROMPTS and TEXTS default to runs/bible/data/test.en (English, as the vocabulary). With the defaults on 2
# cores, generation takes about 4 minutes and embeddings about 2 (each at most about 7, every run at its cap);
# the whole run, translation included, about 14.
#   SECTIONS="generation embeddings" bench/serve.sh      (those two alone; no translation model needed)
#   SECTIONS="translation generation embeddings" bench/serve.sh
set -euo pipefail
cd "$(dirname "$0")/.."
compute_type=${COMPUTE_TYPE:-int8}
positional=()
while [ $# -gt 0 ]; do
  case $1 in
    --compute-type) compute_type=${2:?--compute-type needs a value}; shift 2 ;;
    --compute-type=*) compute_type=${1#*=}; shift ;;
    *) positional+=("$1"); shift ;;
  esac
done
model=${positional[0]:-runs/demo/model.htp}
sentences=${positional[1]:-runs/bible/data/test.es}
out=${OUT:-runs/bench}
read -ra sections <<< "${SECTIONS:-translation}"
read -ra beams <<< "${BEAMS:-4 1}"
read -ra client_counts <<< "${CLIENTS:-1 8 32 128}"
read -ra gen_client_counts <<< "${GEN_CLIENTS:-1 8 32}"
read -ra embed_client_counts <<< "${EMBED_CLIENTS:-1 8 32}"
min_requests=${MIN_REQUESTS:-600}
requests_per_client=${REQUESTS_PER_CLIENT:-64}
max_seconds=${MAX_SECONDS:-50}
warmup=${WARMUP:-2}
max_tokens=${MAX_TOKENS:-64}
offline_batch=${OFFLINE_BATCH:-32}
temperature=${TEMPERATURE:-1}
seed=${SEED:-1}
prompts=${PROMPTS:-runs/bible/data/test.en}
texts=${TEXTS:-runs/bible/data/test.en}
vocab_text=${VOCAB_TEXT:-runs/bible/data/train.en}
source bench/common.sh
heptapod=$build/apps/heptapod
load=$build/bench/serve_load
models_tool=$build/bench/serve_models
hostile_slow_loris=${HOSTILE_SLOW_LORIS:-2000}
hostile_idle=${HOSTILE_IDLE:-2000}
need_built "$heptapod" "$load"
front_ends=(event)
if [ -n "${BASELINE:-}" ]; then
  need_built "$BASELINE"
  front_ends+=(baseline)
fi

has_section() {  # NAME: whether SECTIONS names it
  local s
  for s in "${sections[@]}"; do [ "$s" = "$1" ] && return 0; done
  return 1
}
for s in "${sections[@]}"; do
  case $s in
    translation|generation|embeddings) ;;
    *) echo "unknown section $s (known: translation generation embeddings)" >&2; exit 1 ;;
  esac
done
need_files() {
  local f
  for f in "$@"; do [ -f "$f" ] || { echo "no $f" >&2; exit 1; }; done
}
has_section translation && need_files "$model" "$sentences"
has_section generation && need_files "$prompts"
has_section embeddings && need_files "$texts"
raw=$out/serve
rm -rf "$raw"
mkdir -p "$raw"

# The generation and embeddings sections' models: LM and ENCODER, else untrained ones bench/serve_models writes.
lm=${LM:-}
encoder=${ENCODER:-}
if { has_section generation && [ -z "$lm" ]; } || { has_section embeddings && [ -z "$encoder" ]; }; then
  need_built "$models_tool"
  need_files "$vocab_text"
  mkdir -p "$out/serve-models"
  echo "== writing the untrained models into $out/serve-models" >&2
  "$models_tool" --text "$vocab_text" --lm "$out/serve-models/lm.htp" --encoder "$out/serve-models/encoder.htp" >&2
  lm=${lm:-$out/serve-models/lm.htp}
  encoder=${encoder:-$out/serve-models/encoder.htp}
fi
has_section generation && need_files "$lm"
has_section embeddings && need_files "$encoder"

requests_for() {  # clients
  local n=$((requests_per_client * $1))
  echo $((n > min_requests ? n : min_requests))
}

# seconds_of CMD...: runs CMD (stdout dropped) and prints the seconds it took.
seconds_of() {
  local t0=$EPOCHREALTIME
  "$@" > /dev/null || { echo "failed: $*" >&2; return 1; }
  awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.6f", b - a }'
}

# A server the script leaves running (it stopped on an error) is killed on the way out.
server_pid=""
trap '[ -z "$server_pid" ] || kill -KILL "$server_pid" 2> /dev/null || true' EXIT

json_or_null() {  # FILE: its text, or null when a run wrote none
  cat "$1" 2> /dev/null || echo null
}

# binary_of FRONT_END: the heptapod binary of the event (BUILD's) or the baseline front end.
binary_of() {
  if [ "$1" = baseline ]; then echo "$BASELINE"; else echo "$heptapod"; fi
}

# start_server LOG FRONT_END MODEL_SPEC FLAGS...: starts `heptapod serve -m MODEL_SPEC` of that front end on a
# free port of 127.0.0.1 and waits until its /health says 200. Sets server_pid and server_url.
start_server() {
  local log=$1 binary spec=$3 port="" i
  binary=$(binary_of "$2")
  shift 3
  : > "$log"  # there before the server opens it: the polling below reads it at once
  "$binary" serve -m "$spec" --host 127.0.0.1 --port 0 --compute-type "$compute_type" "$@" 2> "$log" &
  server_pid=$!
  for i in $(seq 300); do  # 30 s
    port=$(sed -n 's|^heptapod serve: listening on http://127\.0\.0\.1:\([0-9]*\) .*|\1|p' "$log")
    if [ -n "$port" ] || ! kill -0 "$server_pid" 2> /dev/null; then break; fi
    sleep 0.1
  done
  [ -n "$port" ] || server_failed "$log" "did not start listening"
  server_url=http://127.0.0.1:$port
  for i in $(seq 120); do  # 60 s
    "$load" wait --url "$server_url" --max-seconds 0.5 2> /dev/null && return 0
    kill -0 "$server_pid" 2> /dev/null || server_failed "$log" "exited before its model was loaded"
  done
  server_failed "$log" "did not load its model within 60 s"
}

server_failed() {  # LOG WHAT
  echo "heptapod serve $2; its log:" >&2
  cat "$1" >&2
  exit 1
}

# stop_server: records the server's peak RSS (VmHWM) in server_rss_mb, then SIGTERM; sets server_rc to its exit
# status (137 when it had to be killed after 60 s).
stop_server() {
  local i
  server_rss_mb=$(awk '/^VmHWM:/ { printf "%.1f", $2 / 1024 }' "/proc/$server_pid/status" 2> /dev/null || echo null)
  kill -TERM "$server_pid" 2> /dev/null || true
  for i in $(seq 600); do kill -0 "$server_pid" 2> /dev/null || break; sleep 0.1; done
  if kill -0 "$server_pid" 2> /dev/null; then kill -KILL "$server_pid"; fi
  server_rc=0
  wait "$server_pid" || server_rc=$?
  [ "$server_rc" = 0 ] || echo "heptapod serve exited $server_rc" >&2
  server_pid=""
}

# ---- translation ----

# run_server BEAM CLIENTS batching|one-at-a-time FRONT_END: one server, one load, one record.
run_server() {
  local beam=$1 clients=$2 kind=$3 front=$4 name=server-$4-$3-b$1-c$2 flags=(--beam "$1")
  [ "$kind" = batching ] || flags+=(--no-batching)
  echo "== beam $beam, $clients clients, $kind, $front front end" >&2
  start_server "$raw/$name.log" "$front" "es-en=$model" "${flags[@]}"
  local load_rc=0
  "$load" http --url "$server_url" --sentences "$sentences" --clients "$clients" --requests "$(requests_for "$clients")" \
    --max-seconds "$max_seconds" --warmup "$warmup" --beam "$beam" --json "$raw/$name.load.json" || load_rc=$?
  stop_server
  printf '{"kind": "server", "server": "%s", "front_end": "%s", "beam": %d, "clients": %d, "compute_type": "%s", "peak_rss_mb": %s, "exit_code": %d, "load_exit_code": %d, "load": %s}\n' \
    "$kind" "$front" "$beam" "$clients" "$compute_type" "$server_rss_mb" "$server_rc" "$load_rc" "$(json_or_null "$raw/$name.load.json")" \
    > "$raw/$name.json"
}

# run_hostile FRONT_END SLOW_LORIS IDLE: a batching server (beam 4, no limit flags: its defaults hold, and the
# baseline takes the same command line) under 32 clients, beside that many hostile connections (0 0: the
# unloaded reference); one record.
run_hostile() {
  local front=$1 slow_loris=$2 idle=$3 beam=4 clients=32 name=hostile-$1-s$2-i$3
  echo "== hostile: $slow_loris slow-loris + $idle idle connections, $clients clients, $front front end" >&2
  start_server "$raw/$name.log" "$front" "es-en=$model" --beam "$beam"
  local load_rc=0
  "$load" http --url "$server_url" --sentences "$sentences" --clients "$clients" --requests "$(requests_for "$clients")" \
    --max-seconds "$max_seconds" --warmup "$warmup" --beam "$beam" --slow-loris "$slow_loris" --idle "$idle" \
    --json "$raw/$name.load.json" || load_rc=$?
  stop_server
  printf '{"kind": "hostile", "server": "batching", "front_end": "%s", "beam": %d, "clients": %d, "slow_loris": %d, "idle": %d, "compute_type": "%s", "peak_rss_mb": %s, "exit_code": %d, "load_exit_code": %d, "load": %s}\n' \
    "$front" "$beam" "$clients" "$slow_loris" "$idle" "$compute_type" "$server_rss_mb" "$server_rc" "$load_rc" \
    "$(json_or_null "$raw/$name.load.json")" > "$raw/$name.json"
}

# run_offline BEAM: `heptapod translate` over the whole file, less the time it takes to load the model.
run_offline() {
  local beam=$1 load_s total_s
  echo "== beam $beam, offline" >&2
  load_s=$(seconds_of "$heptapod" translate -m "$model" --beam "$beam" --compute-type "$compute_type" -i /dev/null)
  total_s=$(seconds_of "$heptapod" translate -m "$model" --beam "$beam" --compute-type "$compute_type" -i "$sentences")
  printf '{"kind": "offline", "beam": %d, "compute_type": "%s", "sentences": %d, "seconds": %s, "load_seconds": %s}\n' \
    "$beam" "$compute_type" "$(grep -c . "$sentences")" "$total_s" "$load_s" > "$raw/offline-b$beam.json"
}

# run_alone BEAM: the sentences the one-client runs send, one at a time through the Translator API.
run_alone() {
  local beam=$1
  echo "== beam $beam, Translator alone" >&2
  "$load" alone --model "$model" --sentences "$sentences" --requests "$(requests_for 1)" --max-seconds "$max_seconds" \
    --warmup "$warmup" --beam "$beam" --compute-type "$compute_type" --json "$raw/alone-b$beam.load.json"
  printf '{"kind": "alone", "beam": %d, "compute_type": "%s", "load": %s}\n' \
    "$beam" "$compute_type" "$(cat "$raw/alone-b$beam.load.json")" > "$raw/alone-b$beam.json"
}

# ---- generation and embeddings ----

# set_api_args SECTION: sets api_args to the serve_load arguments of the section's requests: what they are,
# their lines, and a completion's sampling.
set_api_args() {
  if [ "$1" = generation ]; then
    api_args=(--api completions --sentences "$prompts" --max-tokens "$max_tokens" --temperature "$temperature"
              --seed "$seed")
  else
    api_args=(--api embeddings --sentences "$texts")
  fi
}

# run_api_server SECTION CLIENTS batching|one-at-a-time: a server of the section's model (writer=LM or
# vec=ENCODER), one load, one record (kind "generation-server" or "embeddings-server").
run_api_server() {
  local section=$1 clients=$2 kind=$3 name=$1-server-$3-c$2 spec flags=()
  if [ "$section" = generation ]; then spec=writer=$lm; else spec=vec=$encoder; fi
  [ "$kind" = batching ] || flags+=(--no-batching)
  set_api_args "$section"
  echo "== $section, $clients clients, $kind" >&2
  start_server "$raw/$name.log" event "$spec" "${flags[@]}"
  local load_rc=0
  "$load" http --url "$server_url" --name "${spec%%=*}" "${api_args[@]}" --clients "$clients" \
    --requests "$(requests_for "$clients")" --max-seconds "$max_seconds" --warmup "$warmup" \
    --json "$raw/$name.load.json" || load_rc=$?
  stop_server
  printf '{"kind": "%s-server", "server": "%s", "front_end": "event", "clients": %d, "compute_type": "%s", "model": "%s", "peak_rss_mb": %s, "exit_code": %d, "load_exit_code": %d, "load": %s}\n' \
    "$section" "$kind" "$clients" "$compute_type" "${spec#*=}" "$server_rss_mb" "$server_rc" "$load_rc" \
    "$(json_or_null "$raw/$name.load.json")" > "$raw/$name.json"
}

# run_api_alone SECTION [BATCH]: the requests the one-client runs send, through the Generator or the Encoder in
# this process: one at a time (kind "generation-alone" or "embeddings-alone"), or BATCH per library call, the
# library's own batching and the offline ceiling of a server's (kind "generation-offline", "embeddings-offline").
run_api_alone() {
  local section=$1 batch=${2:-1} name file kind=alone
  [ "$batch" -gt 1 ] && kind=offline
  name=$section-$kind
  if [ "$section" = generation ]; then file=$lm; else file=$encoder; fi
  set_api_args "$section"
  echo "== $section, $([ "$section" = generation ] && echo Generator || echo Encoder) alone, $batch per call" >&2
  "$load" alone --model "$file" "${api_args[@]}" --requests "$(requests_for "$batch")" --max-seconds "$max_seconds" \
    --warmup "$warmup" --compute-type "$compute_type" --batch "$batch" --json "$raw/$name.load.json"
  printf '{"kind": "%s-%s", "batch": %d, "compute_type": "%s", "model": "%s", "load": %s}\n' \
    "$section" "$kind" "$batch" "$compute_type" "$file" "$(cat "$raw/$name.load.json")" > "$raw/$name.json"
}

if has_section translation; then
  for beam in "${beams[@]}"; do
    run_offline "$beam"
    run_alone "$beam"
    for clients in "${client_counts[@]}"; do
      for kind in batching one-at-a-time; do
        for front in "${front_ends[@]}"; do run_server "$beam" "$clients" "$kind" "$front"; done
      done
    done
  done
  # Thousands of connections need as many descriptors, in the server as in serve_load: the soft limit goes up
  # to the hard one (as a service's LimitNOFILE would set it).
  ulimit -Sn "$(ulimit -Hn)"
  for front in "${front_ends[@]}"; do
    run_hostile "$front" 0 0
    run_hostile "$front" "$hostile_slow_loris" "$hostile_idle"
  done
fi
for section in generation embeddings; do
  has_section "$section" || continue
  if [ "$section" = generation ]; then counts=("${gen_client_counts[@]}"); else counts=("${embed_client_counts[@]}"); fi
  run_api_alone "$section"
  run_api_alone "$section" "$offline_batch"
  for clients in "${counts[@]}"; do
    for kind in batching one-at-a-time; do run_api_server "$section" "$clients" "$kind"; done
  done
done
{
  machine_line
  has_section translation && echo "Model $model, sentences $sentences, compute type $compute_type"
  has_section generation && echo "Language model $lm, prompts $prompts, max_tokens $max_tokens," \
    "temperature $temperature, compute type $compute_type"
  has_section embeddings && echo "Encoder $encoder, texts $texts, compute type $compute_type"
  echo
  /usr/bin/python3 bench/serve_report.py "$raw" "$out/serve.json"
} | tee "$out/serve.md"
