#!/usr/bin/env bash
# scan_isa.sh — check that a LINKED x86-64 binary keeps every instruction beyond the x86-64 baseline
# inside the namespace allowed to hold it.
#
#   tests/isa/scan_isa.sh [--allow REGEX]... [--summary] [--max-list N] [--strict-tzcnt] BINARY
#
# One `objdump -d -C -w` pass, streamed through awk, function by function (every `<name>:` header of
# every executable section). Each instruction gets an ISA level:
#   3  AVX-512      EVEX encoding (first byte 0x62 after optional 0x67 / segment prefixes), any zmm
#                   register, any %k0-%k7 mask register, `{%k`, `{1to`, xmm16-31 / ymm16-31, AMX tiles
#   2  AVX..BMI     VEX encoding (c4/c5), any ymm register, v-prefixed SIMD mnemonics, BMI1/BMI2
#                   (andn bextr blsi blsr blsmsk bzhi mulx pdep pext rorx sarx shlx shrx), lzcnt, movbe,
#                   adcx/adox
#   1  SSE3..SSE4.2 SSE3, SSSE3, SSE4.1, SSE4.2, POPCNT (plus SSE4a, AES-NI, PCLMUL, SHA, cmpxchg16b)
#   0  baseline     x86-64 with SSE2 (cpuid, xgetbv, rdtsc, endbr64, prefetch*, pause, *fence are level 0)
# A function whose demangled name contains `::avx512::` may hold level <= 3, one containing `::avx2::`
# level <= 2, one matching an --allow REGEX (awk ERE on the demangled name) any level; everything else
# must stay at level 0. OpenMP outlined bodies ([clone ._omp_fn.N]), lambdas and anonymous namespaces
# nested in an ISA namespace carry it in their demangled name, so they are judged by it. Functions in
# .plt / .plt.sec / .plt.got / .init / .fini are not classified (level 0).
#
# tzcnt: GCC compiles __builtin_ctz / std::countr_zero for the plain x86-64 baseline as `rep bsf`, whose
# bytes (f3 0f bc) objdump prints as `tzcnt`; it runs as bsf on CPUs without BMI1. So by default tzcnt
# counts as level 0; --strict-tzcnt counts it as level 2 (expect false reports in baseline code then).
#
# Exit status: 0 clean, 1 offenders found (report on stdout), 2 usage error or objdump failure.
# Environment: OBJDUMP (default objdump) names the binutils objdump to run.
set -u

usage() {
  sed -n '2,/^set -u$/{/^set -u$/d;s/^# \{0,1\}//;p}' "$0" >&2
  exit 2
}

allow=""
summary=0
max_list=20
strict_tzcnt=0
binary=""
while (($#)); do
  case "$1" in
    --allow)
      (($# >= 2)) || { echo "scan_isa: --allow needs a REGEX" >&2; exit 2; }
      allow+="$2"$'\n'
      shift 2 ;;
    --allow=*) allow+="${1#--allow=}"$'\n'; shift ;;
    --summary) summary=1; shift ;;
    --max-list)
      (($# >= 2)) || { echo "scan_isa: --max-list needs a number" >&2; exit 2; }
      max_list="$2"; shift 2 ;;
    --max-list=*) max_list="${1#--max-list=}"; shift ;;
    --strict-tzcnt) strict_tzcnt=1; shift ;;
    -h|--help) usage ;;
    --) shift; break ;;
    -*) echo "scan_isa: unknown option $1" >&2; usage ;;
    *)
      [[ -z "$binary" ]] || { echo "scan_isa: only one BINARY, got '$binary' and '$1'" >&2; exit 2; }
      binary="$1"; shift ;;
  esac
done
if (($#)); then
  [[ -z "$binary" && $# -eq 1 ]] || { echo "scan_isa: only one BINARY" >&2; exit 2; }
  binary="$1"
fi
[[ -n "$binary" ]] || usage
[[ -f "$binary" && -r "$binary" ]] || { echo "scan_isa: cannot read '$binary'" >&2; exit 2; }
[[ "$max_list" =~ ^[0-9]+$ ]] || { echo "scan_isa: --max-list wants a number, got '$max_list'" >&2; exit 2; }
objdump_cmd="${OBJDUMP:-objdump}"
command -v "$objdump_cmd" >/dev/null 2>&1 || { echo "scan_isa: '$objdump_cmd' not found" >&2; exit 2; }

export LC_ALL=C
export SCAN_ISA_ALLOW="$allow"
errfile="$(mktemp "${TMPDIR:-/tmp}/scan_isa.XXXXXX")" || exit 2
trap 'rm -f "$errfile"' EXIT

# Without a symbol table objdump can only split code at the few dynamic symbols, so whole stretches of
# code get blamed on (or excused by) whatever symbol precedes them. Say so; scan anyway.
if ! "$objdump_cmd" -t -- "$binary" 2>/dev/null | grep -q -E '[[:space:]]F[[:space:]]'; then
  echo "scan_isa: warning: '$binary' has no symbol table (stripped?); functions cannot be told apart," \
       "scan an unstripped build" >&2
fi

"$objdump_cmd" -d -C -w -- "$binary" 2>"$errfile" | awk \
  -v binary="$binary" -v summary="$summary" -v max_list="$max_list" -v strict_tzcnt="$strict_tzcnt" '
function set_words(arr, s,    n, i, w) {
  n = split(s, w, " ")
  for (i = 1; i <= n; i++) arr[w[i]] = 1
}
BEGIN {
  # Prefix bytes that may come before a VEX (c4/c5) or EVEX (62) byte in 64-bit mode.
  set_words(pfx_byte, "67 26 2e 36 3e 64 65")
  # Textual prefixes objdump prints before the mnemonic.
  set_words(pfx_text, "lock rep repz repe repnz repne notrack bnd data16 data32 addr16 addr32 " \
                      "cs ds es fs gs ss xacquire xrelease rex rex64")
  # v-prefixed mnemonics that are not SIMD (virtualisation / segment verification): level 0.
  set_words(v_sys, "verr verw vmcall vmlaunch vmresume vmxoff vmxon vmread vmwrite vmptrld vmptrst " \
                   "vmclear vmfunc vmrun vmload vmsave vmmcall vmgexit")
  # Level 2 without VEX bytes to show it (and BMI, which is VEX-encoded anyway).
  set_words(l2, "andn bextr blsi blsr blsmsk bzhi mulx pdep pext rorx sarx shlx shrx lzcnt movbe adcx adox")
  if (strict_tzcnt) l2["tzcnt"] = 1
  # Level 1: SSE3, SSSE3, SSE4.1, SSE4.2, POPCNT, and other legacy-encoded extensions beyond SSE2.
  set_words(l1, "addsubps addsubpd haddps haddpd hsubps hsubpd lddqu movddup movshdup movsldup " \
                "fisttp fisttps fisttpl fisttpll monitor mwait")
  set_words(l1, "pabsb pabsw pabsd palignr phaddw phaddd phaddsw phsubw phsubd phsubsw pmaddubsw " \
                "pmulhrsw pshufb psignb psignw psignd")
  set_words(l1, "blendps blendpd blendvps blendvpd pblendvb pblendw dpps dppd extractps insertps " \
                "movntdqa mpsadbw packusdw pcmpeqq pextrb pextrd pextrq pinsrb pinsrd pinsrq " \
                "pmaxsb pmaxsd pmaxud pmaxuw pminsb pminsd pminud pminuw pmuldq pmulld phminposuw " \
                "ptest roundps roundpd roundss roundsd")
  set_words(l1, "pcmpestri pcmpestrm pcmpistri pcmpistrm pcmpgtq crc32 popcnt")
  set_words(l1, "extrq insertq movntss movntsd cmpxchg16b " \
                "aesenc aesenclast aesdec aesdeclast aesimc aeskeygenassist pclmulqdq " \
                "sha1rnds4 sha1nexte sha1msg1 sha1msg2 sha256rnds2 sha256msg1 sha256msg2")
  level_name[0] = "x86-64 baseline"
  level_name[1] = "SSE3..SSE4.2/POPCNT"
  level_name[2] = "AVX/AVX2/FMA/F16C/BMI"
  level_name[3] = "AVX-512"
  n_allow = split(ENVIRON["SCAN_ISA_ALLOW"], allow_re, "\n")
  while (n_allow > 0 && allow_re[n_allow] == "") n_allow--
  in_fn = 0; skip_sec = 0; n_fn = 0; n_bad = 0; n_named = 0
}

# Level of one instruction from its raw bytes and its text.
function classify(bytes, text,    p, b, lvl, n, w, i, mn, c) {
  if (text ~ /^\(bad\)/) return 0
  lvl = 0
  p = 1
  b = substr(bytes, p, 2)
  while (b in pfx_byte) { p += 3; b = substr(bytes, p, 2) }
  if (b == "62") return 3
  if (b == "c4" || b == "c5") lvl = 2
  # Drop the branch target / comment part: `call 4011a0 <ns::avx2::f()>`, `lea ...(%rip),%rdi # 4040 <x>`.
  c = index(text, "<"); if (c > 0) text = substr(text, 1, c - 1)
  c = index(text, "#"); if (c > 0) text = substr(text, 1, c - 1)
  if (text ~ /zmm|%k[0-7]|\{1to|[xy]mm(1[6-9]|2[0-9]|3[01])|%tmm/) return 3
  if (lvl == 2) return 2
  if (index(text, "ymm") > 0) return 2
  n = split(text, w, " ")
  i = 1
  while (i <= n && ((w[i] in pfx_text) || w[i] ~ /^(\{|rex\.)/)) i++
  if (i > n) return 0
  mn = w[i]
  if (mn ~ /^v/ && !(mn in v_sys)) return 2
  if (mn in l2) return 2
  if (mn in l1) return 1
  if (mn ~ /^(pmovsx|pmovzx)/) return 1
  if (mn ~ /[bwlq]$/) {
    mn = substr(mn, 1, length(mn) - 1)
    if (mn in l2) return 2
    if (mn in l1) return 1
  }
  return 0
}

function ns_class(name,    i) {
  for (i = 1; i <= n_allow; i++) if (name ~ allow_re[i]) return "allow"
  if (name ~ /(^|::)avx512::/) return "avx512"
  if (name ~ /(^|::)avx2::/) return "avx2"
  return "baseline"
}

function finish_fn(    r) {
  if (!in_fn) return
  in_fn = 0
  if (fn_sec_skip) return
  n_fn++
  if (fn_max > fn_cap) {
    n_bad++
    bad_at_level[fn_max]++
    # Keep up to max_list reports per level; the highest levels are listed first at the end.
    if (bad_at_level[fn_max] <= max_list) {
      r = sprintf("  %s\n      level %d (%s) in %s code, allowed <= %d; first offending instruction:\n        %s", \
        fn_name, fn_max, level_name[fn_max], fn_class, fn_cap, fn_first)
      if (fn_first_lvl < fn_max)
        r = r "\n      first level-" fn_max " instruction:\n        " fn_first_max
      report[fn_max, bad_at_level[fn_max]] = r
    }
  }
  if (summary) { sum[fn_class, fn_max]++; sum_class[fn_class] = 1 }
}

/^Disassembly of section / {
  finish_fn()
  sec = $4; sub(/:$/, "", sec)
  skip_sec = (sec ~ /^\.(plt|plt\.sec|plt\.got|plt\.bnd|init|fini)$/)
  next
}

/^[0-9a-f]+ <.*>:$/ {
  finish_fn()
  in_fn = 1
  fn_sec_skip = skip_sec
  c = index($0, " <")
  fn_addr = substr($0, 1, c - 1)
  fn_name = substr($0, c + 2, length($0) - c - 3)
  fn_class = ns_class(fn_name)
  fn_cap = (fn_class == "avx512" || fn_class == "allow") ? 3 : (fn_class == "avx2" ? 2 : 0)
  fn_max = 0; fn_first = ""; fn_first_lvl = 0; fn_first_max = ""
  # Without --summary a function allowed everything needs no look at its body.
  fn_done = fn_sec_skip || (!summary && fn_cap >= 3)
  next
}

in_fn && !fn_done {
  n = split($0, f, "\t")
  if (n < 3) next
  text = f[3]
  for (i = 4; i <= n; i++) text = text " " f[i]
  lvl = classify(f[2], text)
  if (lvl > fn_max) {
    addr = f[1]; sub(/^ +/, "", addr)
    sub(/ +$/, "", text)
    line = addr " " text
    if (lvl > fn_cap && fn_first == "") { fn_first = line; fn_first_lvl = lvl }
    fn_max = lvl
    fn_first_max = line
    if (fn_max >= 3) fn_done = 1
  }
}

END {
  finish_fn()
  if (n_fn == 0) {
    printf "scan_isa: %s: objdump showed no functions (not an x86-64 object with code?)\n", binary > "/dev/stderr"
    exit 2
  }
  if (summary) {
    printf "scan_isa: %s: %d functions; highest ISA level used, by namespace class:\n", binary, n_fn
    printf "  %-10s %9s %9s %9s %9s\n", "class", "level0", "level1", "level2", "level3"
    split("avx512 avx2 allow baseline", order, " ")
    for (k = 1; k <= 4; k++) {
      cl = order[k]
      if (!(cl in sum_class)) continue
      printf "  %-10s %9d %9d %9d %9d\n", cl, sum[cl, 0], sum[cl, 1], sum[cl, 2], sum[cl, 3]
    }
  }
  if (n_bad == 0) {
    printf "scan_isa: %s: OK, %d functions checked\n", binary, n_fn
    exit 0
  }
  printf "scan_isa: %s: %d of %d functions use instructions above what their namespace allows\n", \
    binary, n_bad, n_fn
  # Highest level first, in address order within a level.
  for (l = 3; l >= 1 && n_named < max_list; l--)
    for (i = 1; i <= bad_at_level[l] && i <= max_list && n_named < max_list; i++) {
      print report[l, i]
      n_named++
    }
  if (n_bad > n_named) printf "  ... and %d more\n", n_bad - n_named
  printf "  offending functions by level found: 3 (AVX-512): %d, 2 (AVX/AVX2/FMA/BMI): %d, 1 (SSE3..SSE4.2/POPCNT): %d\n", \
    bad_at_level[3], bad_at_level[2], bad_at_level[1]
  print "  rule: names with ::avx512:: may hold level <= 3, ::avx2:: level <= 2, all other code level 0 (SSE2);"
  print "        keep ISA-specific code (and everything it inlines) inside its namespace."
  exit 1
}
'
st=("${PIPESTATUS[@]}")
if ((st[0] != 0)); then
  echo "scan_isa: $objdump_cmd failed on '$binary' (status ${st[0]}):" >&2
  cat "$errfile" >&2
  exit 2
fi
exit "${st[1]}"
