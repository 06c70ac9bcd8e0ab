#!/usr/bin/env bash
# tmux_chat.sh HEPTAPOD MAKE_TEST_MODEL WORKDIR: `heptapod chat` on a terminal, as a person uses it, in a
# detached tmux session (a private server, tmux -L, killed on exit, whatever happens).
#
# The tests' random language model gets the ChatML-like template (tests/chat/chatml_like.jinja) with
# `heptapod convert --chat-template`; `heptapod chat -m CHAT --temperature 0 --max-tokens 8 --compute-type int8`
# runs in the pane. The script types a turn, waits (bounded) for its reply and the next prompt, types a second
# turn, then /reset and one more turn, then Ctrl-D, and checks:
#  - after each step the pane holds exactly the transcript so far: the greeting, each "> " prompt with what was
#    typed, each reply on its own line, "(a new conversation)" after /reset;
#  - each reply is what `heptapod chat --messages` prints for the same conversation so far (greedy), so the one
#    after /reset is that of a fresh one-turn conversation;
#  - Ctrl-D ends the process with exit status 0 (the pane's shell writes it to a file: tmux's own
#    pane_dead_status is not always set where the server's SIGCHLD is blocked).
# Every wait is bounded (30 s). Exit status 0 passed, 1 failed, 77 skipped (no tmux: CTest's SKIP_RETURN_CODE).
set -euo pipefail

if [ $# -ne 3 ]; then
  echo "usage: $0 HEPTAPOD MAKE_TEST_MODEL WORKDIR" >&2
  exit 2
fi
here=$(cd "$(dirname "$0")" && pwd)
heptapod=$(realpath "$1")
make_model=$2
work=$3
command -v tmux >/dev/null || { echo "skipped: tmux is not installed" >&2; exit 77; }

rm -rf "$work"
mkdir -p "$work"
work=$(cd "$work" && pwd)
timeout 60 "$make_model" "$work/lm.htp" generation
timeout 60 "$heptapod" convert "$work/lm.htp" --chat-template "$here/chatml_like.jinja" -o "$work/chat.htp" >/dev/null

settings=(--temperature 0 --max-tokens 8 --compute-type int8)
turns=("twenty-six thousand" "three hundred and" "/reset" "sixty")

# reply MESSAGES_JSON: the reply `heptapod chat --messages` prints (without its newline).
reply() {
  printf '%s' "$1" >"$work/messages.json"
  timeout 60 "$heptapod" chat -m "$work/chat.htp" --messages "$work/messages.json" "${settings[@]}" >"$work/reply.txt"
  [ "$(wc -l <"$work/reply.txt")" -eq 1 ] || { echo "error: chat --messages printed other than one line" >&2; exit 1; }
  head -c -1 "$work/reply.txt"
}
# json_string TEXT: TEXT as a JSON string (the turns and replies are letters, digits, hyphens and spaces).
json_string() { printf '"%s"' "$(printf '%s' "$1" | sed 's/\\/\\\\/g; s/"/\\"/g')"; }

# The expected replies, turn by turn.
expected=()
messages=""
for turn in "${turns[@]}"; do
  if [ "$turn" = /reset ]; then
    messages=""
    continue
  fi
  messages+="${messages:+, }{\"role\": \"user\", \"content\": $(json_string "$turn")}"
  answer=$(reply "[$messages]")
  expected+=("$answer")
  messages+=", {\"role\": \"assistant\", \"content\": $(json_string "$answer")}"
done
echo "expected replies: $(printf '[%s] ' "${expected[@]}")"
# The check of /reset can fail only where the last turn, had the conversation gone on, gets another reply.
first_two="{\"role\": \"user\", \"content\": $(json_string "${turns[0]}")}, {\"role\": \"assistant\", \"content\": $(json_string "${expected[0]}")}"
first_two+=", {\"role\": \"user\", \"content\": $(json_string "${turns[1]}")}, {\"role\": \"assistant\", \"content\": $(json_string "${expected[1]}")}"
unreset=$(reply "[$first_two, {\"role\": \"user\", \"content\": $(json_string "${turns[3]}")}]")
if [ "$unreset" = "${expected[2]}" ]; then
  echo "error: \"${turns[3]}\" gets the reply \"$unreset\" with or without /reset: pick other turns" >&2
  exit 1
fi

# A private tmux server whose panes stay after their process ends.
socket=heptapod-chat-test-$$
printf 'set -g remain-on-exit on\nset -g history-limit 1000\n' >"$work/tmux.conf"
tmux_() { tmux -L "$socket" -f "$work/tmux.conf" "$@"; }
cleanup() { tmux_ kill-server 2>/dev/null || true; }
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# A wide pane (no line wraps); the shell around heptapod chat writes its exit status to $work/status.
rm -f "$work/status"
tmux_ new-session -d -s chat -x 250 -y 50 \
  "$(printf '%q ' "$heptapod" chat -m "$work/chat.htp" "${settings[@]}"); echo \$? >$(printf '%q' "$work/status")"

# pane: the pane's text, wrapped lines joined, trailing spaces (and, by $(...), trailing empty lines) removed.
pane() {
  tmux_ capture-pane -p -J -t chat -S - | sed 's/[[:space:]]*$//'
}
# wait_pane EXPECTED WHAT: waits (30 s at most) until the pane holds exactly EXPECTED.
wait_pane() {
  local deadline=$((SECONDS + 30))
  while [ "$(pane)" != "$1" ]; do
    if [ "$SECONDS" -ge "$deadline" ]; then
      echo "FAILED: $2: after 30 s the pane holds:" >&2
      pane | sed 's/^/  | /' >&2
      echo "expected:" >&2
      printf '%s\n' "$1" | sed 's/^/  | /' >&2
      exit 1
    fi
    sleep 0.1
  done
}

transcript="Chatting with $work/chat.htp: a line is a turn; /reset starts again, Ctrl-D leaves."$'\n'">"
wait_pane "$transcript" "the greeting and the first prompt"
echo "ok - the greeting and the prompt"
i=0
for turn in "${turns[@]}"; do
  tmux_ send-keys -t chat -l "$turn"
  tmux_ send-keys -t chat Enter
  if [ "$turn" = /reset ]; then
    transcript+=" $turn"$'\n'"(a new conversation)"$'\n'">"
    wait_pane "$transcript" "/reset"
    echo "ok - /reset starts a new conversation"
    continue
  fi
  transcript+=" $turn"$'\n'"${expected[$i]}"$'\n'">"
  wait_pane "$transcript" "the reply to \"$turn\""
  echo "ok - the reply to \"$turn\" is chat --messages' for the conversation so far: \"${expected[$i]}\""
  i=$((i + 1))
done

tmux_ send-keys -t chat C-d
deadline=$((SECONDS + 30))
until [ -s "$work/status" ]; do
  if [ "$SECONDS" -ge "$deadline" ]; then
    echo "FAILED: heptapod chat still runs 30 s after Ctrl-D" >&2
    exit 1
  fi
  sleep 0.1
done
status=$(cat "$work/status")
if [ "$status" != 0 ]; then
  echo "FAILED: Ctrl-D ended heptapod chat with exit status $status, not 0; the pane:" >&2
  pane | sed 's/^/  | /' >&2
  exit 1
fi
echo "ok - Ctrl-D ends heptapod chat with exit status 0"
echo "PASSED"
