# Sourced by the benchmark scripts (bench/vs_pytorch.sh, bench/low_precision.sh), run from the repository root:
# checks that Heptapod's benchmark binary and the rival are there, and runs the rival with its best settings.
# Sets `bench` (BUILD, default build, holds bench/heptapod_bench).
bench=${BUILD:-build}/bench/heptapod_bench
tcmalloc=/usr/lib/x86_64-linux-gnu/libtcmalloc_minimal.so.4
[ -x "$bench" ] || { echo "no $bench: build first (scripts/build.sh)" >&2; exit 1; }
if ! /usr/bin/python3 -c 'import torch' 2>/dev/null || [ ! -e $tcmalloc ]; then
  echo "the rival needs python3-torch and libtcmalloc-minimal4: apt-get install python3-torch libtcmalloc-minimal4" >&2
  exit 1
fi

# run_rival ARGS...: bench/pytorch_rival.py with 2 threads' best settings: tcmalloc preloaded, passive OpenMP
# waits, and OpenBLAS free to pick its AVX-512 kernels (OPENBLAS_CORETYPE/OPENBLAS_L2_SIZE, where the machine
# sets them, hold it to its AVX2 kernels). Its quantized engine's warnings are dropped from stderr.
run_rival() {
  env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE LD_PRELOAD=$tcmalloc OMP_WAIT_POLICY=PASSIVE /usr/bin/python3 \
    bench/pytorch_rival.py --threads 2 "$@" 2> >(grep -v 'qlinear_dynamic' >&2)
}
