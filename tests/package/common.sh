# Shared by tests/package/*.sh (sourced, not run): messages, a temporary directory removed on exit, bounded
# commands, the test model and the translation comparison.
# The sourcing script sets NAME (its name in messages) before sourcing.

fail() {
  echo "$NAME: FAIL: $*" >&2
  exit 1
}
note() { echo "$NAME: $*"; }

# WORK: a fresh temporary directory, removed when the script exits, however it exits. KEEP_TMP=1 keeps it.
WORK=$(mktemp -d "${TMPDIR:-/tmp}/heptapod-$NAME.XXXXXX")
cleanup() {
  if [[ "${KEEP_TMP:-0}" == 1 ]]; then echo "$NAME: kept $WORK" >&2; else rm -rf "$WORK"; fi
}
trap cleanup EXIT

# bounded SECONDS LOG WHAT COMMAND...: runs COMMAND under a time limit with its output in LOG; on failure or
# timeout, shows the end of LOG and fails naming WHAT.
bounded() {
  local limit=$1 log=$2 what=$3
  shift 3
  local rc=0
  timeout --kill-after=10 "$limit" "$@" >"$log" 2>&1 || rc=$?
  if ((rc != 0)); then
    tail -n 40 "$log" >&2
    if ((rc == 124 || rc == 137)); then fail "$what: timed out after ${limit}s"; fi
    fail "$what: exit status $rc (command: $*)"
  fi
}

# test_model HEPTAPOD SOURCE_DIR [MODEL]: prints the path of a model to translate with: MODEL if given (the
# CTest fixture package.model made it), else a tiny one trained here in a few seconds.
test_model() {
  local heptapod=$1 src=$2 model=${3:-}
  if [[ -n "$model" ]]; then
    [[ -f "$model" ]] || fail "no model file $model (the package.model fixture should have made it)"
    echo "$model"
    return
  fi
  bounded 300 "$WORK/train.log" "training the test model" \
    "$src/tests/package/make_model.sh" "$heptapod" "$src/tests/data" "$WORK/model"
  echo "$WORK/model/model.htp"
}

# The sentences both tests translate (one per run of a program that takes one sentence).
TEST_SENTENCES=("two hundred and forty-one" "ninety-nine thousand nine hundred and ninety-nine" "seven")

# expect_same_translation WHAT EXPECTED_FILE ACTUAL_FILE: byte-exact, with both shown when they differ.
expect_same_translation() {
  local what=$1 expected=$2 actual=$3
  if ! cmp -s "$expected" "$actual"; then
    echo "expected (heptapod translate):" >&2
    od -c "$expected" | head -n 10 >&2
    echo "got ($what):" >&2
    od -c "$actual" | head -n 10 >&2
    fail "$what translates differently from heptapod translate"
  fi
  [[ -n "$(tr -d '\n' <"$expected")" ]] || fail "the reference translation is empty: the test model is useless"
}
