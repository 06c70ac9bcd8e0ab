#!/usr/bin/env bash
# Writes tests/fixtures/frozen/: what a given heptapod binary makes of one small translation model, kept so
# that later binaries can be checked to make exactly the same bytes (tests/test_frozen_outputs.cpp and
# tests/mpi/test_mpi_train.cpp rerun the same commands and compare). Run it with the binary whose behaviour
# is to be frozen:
#
#   tools/make_frozen_fixtures.sh build/apps/heptapod
#
# ONLY="NAME ..." tools/make_frozen_fixtures.sh BINARY records the named commands alone (commands added later,
# without recording the others again on another machine).
#
# LABEL=zen4 tools/make_frozen_fixtures.sh BINARY records another machine's outcomes beside the recorded ones,
# where they differ from them, as <isa>/NAME@LABEL (stdout) and <isa>/NAME@LABEL.* (training; the tests accept
# any of them).
#
# The translation model (model.htp) is trained once: 300 updates of the tiny preset on the numbers corpus. The commands of
# frozen/commands.txt then run under every ISA this machine runs, into frozen/<isa>/, since kernels may round
# differently per ISA. They run with --threads 1; the machine's ISA is in each directory's name.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=$(realpath "${1:?usage: $0 HEPTAPOD_BINARY}")
out=tests/fixtures/frozen
data=tests/data
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

if [ ! -f "$out/model.htp" ]; then
  "$bin" train --source $data/numbers.train.en --target $data/numbers.train.es -o "$work/model" --preset tiny \
    --vocab-size 200 --batch-tokens 2048 --warmup 100 --steps 300 --valid-every 300 --threads 1 >/dev/null 2>&1
  cp "$work/model/model.htp" "$out/model.htp"
  # The input: the 200 dev sentences, the first 100 training sentences and some one-word and odd lines.
  { cat $data/numbers.dev.en; head -n 100 $data/numbers.train.en
    printf 'one\nhundred\nand\n\nthousand thousand thousand\nseven seven seven seven seven seven seven\n'; } > "$out/input.en"
  cp $data/numbers.dev.en "$out/reference.en"
  cp $data/numbers.dev.es "$out/reference.es"
fi

# The other kinds of model, trained once from the numbers text (tests/data/numbers.train.en): a language model, a
# Transformer-XL language model, a masked-LM encoder and a classifier fine-tuned from it on labels made here (a
# line holding "seven" is class seven, any other plain), with the prompts generation starts from.
lm_flags="--text $data/numbers.train.en --preset tiny --layers 2 --vocab-size 120 --context 32 --batch-tokens 512 --warmup 30 --threads 1 --valid-every 200"
write_labels() { /usr/bin/python3 -c '
import sys
for line in open(sys.argv[1]): print("seven" if "seven" in line else "plain")' "$1" > "$2"; }
[ -f "$out/labels.txt" ] || write_labels $data/numbers.train.en "$out/labels.txt"
[ -f "$out/reference.labels" ] || write_labels $data/numbers.dev.en "$out/reference.labels"
[ -f "$out/prompts.txt" ] || printf 'twenty\nseven hundred\n\nninety-nine thousand\none\nforty-four thousand nine hundred and\n' > "$out/prompts.txt"
train_once() {  # NAME ARGS...: trains $out/NAME.htp unless it exists
  local name=$1; shift
  [ -f "$out/$name.htp" ] && return
  "$bin" train "$@" -o "$work/$name" >/dev/null 2>&1
  cp "$work/$name/model.htp" "$out/$name.htp"
}
train_once lm --arch decoder-only $lm_flags --steps 200
train_once xl --arch decoder-only $lm_flags --positions relative --memory 16 --steps 200
train_once encoder --arch encoder-only $lm_flags --steps 200
train_once classifier --init "$out/encoder.htp" --task classify --text $data/numbers.train.en --labels "$out/labels.txt" \
  --batch-tokens 512 --warmup 20 --threads 1 --valid-every 200 --steps 100

# A run's metrics records without their timings, one JSON object per line.
records() {
  /usr/bin/python3 -c '
import json, sys
for line in open(sys.argv[1]):
    j = json.loads(line)
    j.pop("elapsed_seconds", None); j.pop("tokens_per_second", None)
    print(json.dumps(j, sort_keys=True))' "$1/metrics.jsonl"
}
mpirun_2=(mpirun --bind-to none --mca btl self,tcp --mca btl_tcp_if_include lo --mca oob_tcp_if_include lo -np 2)
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

for isa in baseline avx2 avx512; do
  if ! HEPTAPOD_ISA=$isa "$bin" info >/dev/null 2>&1; then echo "skipping $isa: this machine cannot run it"; continue; fi
  mkdir -p "$out/$isa"
  grep -v '^#' $out/commands.txt | while read -r name kind args; do
    [ -z "${ONLY:-}" ] || [[ " $ONLY " == *" $name "* ]] || continue
    record=$name${LABEL:+@$LABEL}
    run="$work/$isa-$name"
    args=${args//\{model\}/$out/model.htp}
    args=${args//\{input\}/$out/input.en}
    args=${args//\{reference.en\}/$out/reference.en}
    args=${args//\{reference.es\}/$out/reference.es}
    for file in lm xl encoder classifier; do args=${args//\{$file\}/$out/$file.htp}; done
    for file in prompts labels; do args=${args//\{$file.txt\}/$out/$file.txt}; done
    args=${args//\{reference.labels\}/$out/reference.labels}
    args=${args//\{data\}/$data}
    args=${args//\{run\}/$run}
    case $kind in
      stdout)
        HEPTAPOD_ISA=$isa "$bin" $args > "$work/stdout"
        if [ -n "${LABEL:-}" ] && cmp -s "$work/stdout" "$out/$isa/$name"; then echo "$isa $name: as recorded"; continue; fi
        cp "$work/stdout" "$out/$isa/$record" ;;
      train | mpi2)
        if [ "$kind" = mpi2 ]; then
          command -v mpirun >/dev/null || { echo "skipping $name: no mpirun"; continue; }
          HEPTAPOD_ISA=$isa "${mpirun_2[@]}" "$bin" $args >/dev/null 2>&1 </dev/null
        else
          HEPTAPOD_ISA=$isa "$bin" $args >/dev/null 2>&1 </dev/null
        fi
        sha256sum < "$run/model.htp" | cut -d' ' -f1 > "$work/sha256"
        records "$run" > "$work/metrics.jsonl"
        if [ -n "${LABEL:-}" ] && cmp -s "$work/sha256" "$out/$isa/$name.model.sha256" &&
          cmp -s "$work/metrics.jsonl" "$out/$isa/$name.metrics.jsonl"; then
          echo "$isa $name: as recorded"
          continue
        fi
        cp "$work/metrics.jsonl" "$out/$isa/$record.metrics.jsonl"
        cp "$work/sha256" "$out/$isa/$record.model.sha256" ;;
    esac
    echo "$isa $name"
  done
done
