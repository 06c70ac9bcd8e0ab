#!/usr/bin/env bash
# scan_isa_selftest.sh — check that tests/isa/scan_isa.sh tells allowed ISA use from stray ISA use.
#
#   tests/isa/scan_isa_selftest.sh        (compiler from $CXX, else g++; builds into a temporary folder)
#
# Builds two small programs for the plain x86-64 baseline, with ISA code only through
# __attribute__((target(...))):
#   clean  x::avx512::wide_add (AVX-512F), x::avx2::fma_add (AVX2+FMA), a helper in an anonymous
#          namespace inside x::avx2, a template in x::avx2, and a plain baseline function
#   stray  the same, plus three strays: stray_avx2_sum (AVX2 outside any ISA namespace),
#          x::avx2::stray_avx512_add (AVX-512 in the avx2 namespace), stray_sse41_floor (SSE4.1 in
#          baseline code)
# and checks that the scanner passes `clean`, fails `stray` naming exactly the three strays with the
# right levels, accepts `stray` with --allow for them, and rejects a missing file with status 2.
# Exit status 0 when the scanner behaves, 1 otherwise.
set -u

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
scan="$here/scan_isa.sh"
cxx="${CXX:-g++}"
tmp="$(mktemp -d "${TMPDIR:-/tmp}/scan_isa_selftest.XXXXXX")" || exit 1
trap 'rm -rf "$tmp"' EXIT

failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
pass() { echo "ok:   $*"; }

cat >"$tmp/common.h" <<'EOF'
#include <immintrin.h>
#define NOINLINE __attribute__((noinline, used))

namespace x::avx512 {
__attribute__((target("avx512f"))) NOINLINE void wide_add(float* a, const float* b) {
  _mm512_storeu_ps(a, _mm512_add_ps(_mm512_loadu_ps(a), _mm512_loadu_ps(b)));
}
}  // namespace x::avx512

namespace x::avx2 {
namespace {
__attribute__((target("avx2,fma"))) NOINLINE __m256 helper(__m256 a, __m256 b) {
  return _mm256_fmadd_ps(a, b, a);
}
}  // namespace
__attribute__((target("avx2,fma"))) NOINLINE void fma_add(float* a, const float* b) {
  _mm256_storeu_ps(a, helper(_mm256_loadu_ps(a), _mm256_loadu_ps(b)));
}
template <int Scale>
__attribute__((target("avx2"))) NOINLINE void tmpl_scale(int* a) {
  __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(a));
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(a), _mm256_mullo_epi32(v, _mm256_set1_epi32(Scale)));
}
template void tmpl_scale<3>(int*);
}  // namespace x::avx2

NOINLINE float plain_sum(const float* a, int n) {
  float s = 0;
  for (int i = 0; i < n; ++i) s += a[i];
  return s;
}

inline void run_clean(float* a, float* b, int* k) {
  x::avx512::wide_add(a, b);
  x::avx2::fma_add(a, b);
  x::avx2::tmpl_scale<3>(k);
  a[0] = plain_sum(a, 16);
}
EOF

cat >"$tmp/clean.cpp" <<'EOF'
#include "common.h"
int main(int argc, char**) {
  alignas(64) float a[16] = {}, b[16] = {};
  alignas(64) int k[8] = {};
  if (argc > 99) run_clean(a, b, k);  // never runs: the binary is only scanned
  return static_cast<int>(a[0]);
}
EOF

cat >"$tmp/stray.cpp" <<'EOF'
#include "common.h"

// AVX2 outside any ISA namespace.
__attribute__((target("avx2"))) NOINLINE void stray_avx2_sum(int* a, const int* b) {
  __m256i v = _mm256_add_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(a)),
                               _mm256_loadu_si256(reinterpret_cast<const __m256i*>(b)));
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(a), v);
}

// AVX-512 inside the avx2 namespace.
namespace x::avx2 {
__attribute__((target("avx512f"))) NOINLINE void stray_avx512_add(float* a, const float* b) {
  _mm512_storeu_ps(a, _mm512_add_ps(_mm512_loadu_ps(a), _mm512_loadu_ps(b)));
}
}  // namespace x::avx2

// SSE4.1 in baseline code: roundps and pmulld.
__attribute__((target("sse4.1"))) NOINLINE void stray_sse41_floor(float* a, int* k) {
  _mm_storeu_ps(a, _mm_floor_ps(_mm_loadu_ps(a)));
  __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(k));
  _mm_storeu_si128(reinterpret_cast<__m128i*>(k), _mm_mullo_epi32(v, v));
}

int main(int argc, char**) {
  alignas(64) float a[16] = {}, b[16] = {};
  alignas(64) int k[8] = {}, l[8] = {};
  if (argc > 99) {  // never runs: the binary is only scanned
    run_clean(a, b, k);
    stray_avx2_sum(k, l);
    x::avx2::stray_avx512_add(a, b);
    stray_sse41_floor(a, k);
  }
  return static_cast<int>(a[0]) + k[0];
}
EOF

# The plain x86-64 baseline, whatever the compiler's default or the caller's CXXFLAGS say.
flags=(-std=c++20 -O2 -march=x86-64 -mtune=generic)
for prog in clean stray; do
  if ! "$cxx" "${flags[@]}" -I"$tmp" "$tmp/$prog.cpp" -o "$tmp/$prog" 2>"$tmp/$prog.err"; then
    echo "FAIL: cannot build the $prog test program with $cxx:"
    cat "$tmp/$prog.err"
    exit 1
  fi
done

# 1. The clean program passes.
"$scan" "$tmp/clean" >"$tmp/clean.out" 2>&1
rc=$?
if ((rc == 0)); then pass "clean program passes"; else fail "clean program: status $rc, want 0"; cat "$tmp/clean.out"; fi

# The clean program really holds the ISA code it should (or the test proves nothing).
"$scan" --summary "$tmp/clean" >"$tmp/clean.sum" 2>&1
if grep -Eq '^  avx512 +[0-9]+ +[0-9]+ +[0-9]+ +[1-9]' "$tmp/clean.sum" &&
   grep -Eq '^  avx2 +[0-9]+ +[0-9]+ +[1-9]' "$tmp/clean.sum"; then
  pass "--summary shows level 3 in avx512 and level 2 in avx2 functions"
else
  fail "--summary does not show the expected ISA use"; cat "$tmp/clean.sum"
fi

# 2. The stray program fails, naming exactly the three strays.
"$scan" --max-list 100 "$tmp/stray" >"$tmp/stray.out" 2>&1
rc=$?
if ((rc == 1)); then pass "stray program fails"; else fail "stray program: status $rc, want 1"; fi
# Offender names are the report lines indented by exactly two spaces (minus the closing lines).
grep -E '^  [^ ]' "$tmp/stray.out" | grep -Ev '^  (offending functions by level|rule:|\.\.\. and)' \
  >"$tmp/stray.names"
expect_offender() {  # NAME_REGEX LEVEL
  local line
  line="$(grep -En "^  $1" "$tmp/stray.names" | head -1)"
  if [[ -z "$line" ]]; then fail "stray report does not name $1"; return; fi
  if grep -A1 -E "^  $1" "$tmp/stray.out" | grep -q "level $2 "; then
    pass "stray report names $1 at level $2"
  else
    fail "stray report names $1 but not at level $2"
  fi
}
expect_offender 'stray_avx2_sum\(int\*, int const\*\)' 2
expect_offender 'x::avx2::stray_avx512_add\(float\*, float const\*\)' 3
expect_offender 'stray_sse41_floor\(float\*, int\*\)' 1
n_names=$(wc -l <"$tmp/stray.names")
if ((n_names == 3)); then
  pass "exactly 3 offenders named"
else
  fail "want exactly 3 offenders, the report names $n_names"
fi
if grep -Eq '^scan_isa: .*: 3 of [0-9]+ functions use' "$tmp/stray.out"; then
  pass "report counts 3 offending functions"
else
  fail "report does not count 3 offending functions"
fi
if grep -Eq 'roundps|pmulld' "$tmp/stray.out" && grep -Eq 'ymm' "$tmp/stray.out" &&
   grep -Eq 'zmm' "$tmp/stray.out"; then
  pass "report shows the offending instructions"
else
  fail "report lacks the offending instruction lines"
fi

# 3. --allow lets the strays through.
"$scan" --allow '^stray_' --allow 'stray_avx512' "$tmp/stray" >"$tmp/allow.out" 2>&1
rc=$?
if ((rc == 0)); then pass "--allow accepts the strays"; else fail "--allow: status $rc, want 0"; cat "$tmp/allow.out"; fi

# 4. A missing file is a usage error, not a pass.
"$scan" "$tmp/no-such-binary" >/dev/null 2>&1
rc=$?
if ((rc == 2)); then pass "missing binary gives status 2"; else fail "missing binary: status $rc, want 2"; fi

if ((failures)); then
  echo "scan_isa selftest: $failures check(s) failed; scanner output for the stray program:"
  cat "$tmp/stray.out"
  exit 1
fi
echo "scan_isa selftest: all checks passed"
exit 0
