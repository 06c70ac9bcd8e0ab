# Sourced by the benchmark scripts (bench/vs_pytorch.sh, bench/lm_vs_pytorch.sh, bench/low_precision.sh,
# bench/train_precision.sh, bench/serve.sh), run from the repository root: their common start, checks that the
# binaries (BUILD, default build) and the rival are there, runs the rivals with their best settings, and names
# the machine. Sets `build`
# and `bench` (build/bench/heptapod_bench).
build=${BUILD:-build}
bench=$build/bench/heptapod_bench
tcmalloc=/usr/lib/x86_64-linux-gnu/libtcmalloc_minimal.so.4

# need_built BINARY...: exits unless every binary is built.
need_built() {
  local b
  for b in "$@"; do
    [ -x "$b" ] || { echo "no $b: build first (scripts/build.sh)" >&2; exit 1; }
  done
}

# results_setup DEFAULT_OUT DEFAULT_REPEATS [MODEL...]: the scripts' common start: out (OUT, else the default),
# repeats (REPEATS, else the default) and models (the arguments, else DEFAULT_MODELS, else small base); checks
# the binaries and the rival, and makes out.
results_setup() {
  out=${OUT:-$1}
  repeats=${REPEATS:-$2}
  shift 2
  if [ $# -gt 0 ]; then models=("$@"); else read -r -a models <<< "${DEFAULT_MODELS:-small base}"; fi
  need_built "$bench"
  need_rival
  mkdir -p "$out"
}

# need_rival: exits unless the rival's python3-torch and tcmalloc are installed.
need_rival() {
  if ! /usr/bin/python3 -c 'import torch' 2>/dev/null || [ ! -e $tcmalloc ]; then
    echo "the rival needs python3-torch and libtcmalloc-minimal4: apt-get install python3-torch libtcmalloc-minimal4" >&2
    exit 1
  fi
}

# run_python_rival SCRIPT ARGS...: a rival script with 2 threads' best settings: tcmalloc preloaded, passive
# OpenMP waits, and OpenBLAS free to pick its AVX-512 kernels (OPENBLAS_CORETYPE/OPENBLAS_L2_SIZE, where the
# machine sets them, hold it to its AVX2 kernels). Its quantized engine's warnings are dropped from stderr.
run_python_rival() {
  local script=$1
  shift
  env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE LD_PRELOAD=$tcmalloc OMP_WAIT_POLICY=PASSIVE /usr/bin/python3 \
    "$script" --threads 2 "$@" 2> >(grep -v 'qlinear_dynamic' >&2)
}

# run_rival ARGS...: the translation rival, bench/pytorch_rival.py; run_gpt_rival ARGS...: the language-model
# rival, bench/pytorch_gpt.py.
run_rival() { run_python_rival bench/pytorch_rival.py "$@"; }

# run_both RIVAL NAME ROUND ARGS...: one phase on each side, heptapod_bench run and the rival script RIVAL with
# the same ARGS, into OUT/{heptapod,pytorch}-NAME.ROUND.json.
run_both() {
  local rival=$1 name=$2 round=$3
  shift 3
  echo "== round $round: $name" >&2
  $bench run --threads 2 "$@" > "$out/heptapod-$name.$round.json"
  run_python_rival "$rival" "$@" > "$out/pytorch-$name.$round.json"
}
run_gpt_rival() { run_python_rival bench/pytorch_gpt.py "$@"; }

# machine_line: the line that heads a results table: CPU, cores, date.
machine_line() {
  echo "Machine: $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) cores; $(date -u +%Y-%m-%d)"
}

# print_table REPORT.py: the machine line, then the report script's tables of out for models, on stdout and
# into out/table.md.
print_table() {
  {
    machine_line
    echo
    /usr/bin/python3 "$1" "$out" "${models[@]}"
  } | tee "$out/table.md"
}
