#!/usr/bin/env bash
# deb.sh BUILD_DIR SOURCE_DIR VERSION [MODEL]: the Debian packages cpack makes are complete and work.
#   1. `cpack -G DEB` with the build's CPack config (into a temporary directory, not the build directory) makes
#      heptapod_VERSION_ARCH.deb and heptapod-dev_VERSION_ARCH.deb;
#   2. their fields (dpkg-deb -I) and contents (dpkg-deb -c): the binary in one, the static libraries, headers
#      and CMake package in the other, no test-only header; the runtime package's Depends names libdnnl,
#      OpenBLAS's OpenMP build, SentencePiece and libgomp;
#   3. both are unpacked with `dpkg -x` into a temporary root, and `ldd` on the unpacked usr/bin/heptapod
#      resolves every shared library. Each library the binary needs itself (ELF NEEDED) must come from a
#      package (dpkg -S) that the runtime package's Depends names, or that provides a name it lists; each
#      library loaded only through another (libgfortran under OpenBLAS, libOpenCL under oneDNN) must come
#      from a package in the installed dependency closure of that Depends;
#   4. the unpacked binary runs: `heptapod info`, and `heptapod translate` gives byte-exact the build tree's
#      translations of the test sentences (MODEL from the package.model fixture, or one trained here);
#   5. tests/package/consumer builds against the unpacked heptapod-dev alone and translates the same.
# The unpacked binary runs against this machine's libraries, not in a clean debootstrap chroot: a chroot would
# need a Debian mirror, and CI is not guaranteed any network. What a chroot would show -- that Depends pulls
# in every library the binary loads -- step 3 checks from the package database instead.
# Environment: CMAKE, CPACK (default cmake, cpack), CXX, KEEP_TMP=1 (keep the temporary directory).
set -euo pipefail
NAME=deb
if (($# < 3 || $# > 4)); then
  echo "usage: $0 BUILD_DIR SOURCE_DIR VERSION [MODEL]" >&2
  exit 2
fi
build=$(cd "$1" && pwd)
src=$(cd "$2" && pwd)
version=$3
source "$src/tests/package/common.sh"
cmake=${CMAKE:-cmake}
cpack=${CPACK:-cpack}
heptapod=$build/apps/heptapod
for tool in dpkg dpkg-deb dpkg-query dpkg-shlibdeps file ldd readelf timeout; do
  command -v "$tool" >/dev/null || fail "$tool is missing (scripts/install-deps.sh installs dpkg-dev, binutils and file)"
done
[[ -f "$build/CPackConfig.cmake" ]] || fail "no $build/CPackConfig.cmake (is cmake/Package.cmake included?)"
[[ -x "$heptapod" ]] || fail "no built binary $heptapod"

# 1. The packages.
arch=$(dpkg --print-architecture)
out=$WORK/packages
(cd "$build" && bounded 600 "$WORK/cpack.log" "cpack -G DEB" "$cpack" -G DEB --config "$build/CPackConfig.cmake" -B "$out")
runtime_deb=$out/heptapod_${version}_${arch}.deb
dev_deb=$out/heptapod-dev_${version}_${arch}.deb
for deb in "$runtime_deb" "$dev_deb"; do
  [[ -f "$deb" ]] || fail "cpack made no $(basename "$deb"); it made: $(cd "$out" && ls -- *.deb 2>/dev/null | tr '\n' ' ')"
done

# 2. Fields and contents.
field() { dpkg-deb -f "$1" "$2"; }
for deb in "$runtime_deb" "$dev_deb"; do
  dpkg-deb -I "$deb" >"$WORK/info.txt" || fail "dpkg-deb -I cannot read $(basename "$deb")"
  for f in Package Version Architecture Maintainer Description Depends; do
    [[ -n "$(field "$deb" "$f")" ]] || fail "$(basename "$deb") has no $f field"
  done
  [[ "$(field "$deb" Version)" == "$version" ]] || fail "$(basename "$deb"): Version $(field "$deb" Version), not $version"
  [[ "$(field "$deb" Architecture)" == "$arch" ]] || fail "$(basename "$deb"): Architecture is not $arch"
  # CPack turns quotes and semicolons of a description into list separators.
  [[ "$(field "$deb" Description)" != *";"* ]] || fail "$(basename "$deb"): mangled Description: $(field "$deb" Description | head -n 1)"
done
[[ "$(field "$runtime_deb" Package)" == heptapod ]] || fail "the runtime package is not named heptapod"
[[ "$(field "$dev_deb" Package)" == heptapod-dev ]] || fail "the development package is not named heptapod-dev"
depends=$(field "$runtime_deb" Depends)
note "heptapod Depends: $depends"
note "heptapod-dev Depends: $(field "$dev_deb" Depends)"

# The package names in a Depends field (every alternative, versions and architecture qualifiers dropped).
names_of() { tr ',|' '\n\n' <<<"$1" | sed 's/(.*)//; s/:[a-z0-9]*//; s/[[:space:]]//g' | sed '/^$/d' | sort -u; }
depend_names=$(names_of "$depends")
for required in 'libdnnl[0-9]+' libopenblas0-openmp 'libsentencepiece[0-9]+' libgomp1; do
  grep -Eqx "$required" <<<"$depend_names" || fail "heptapod's Depends lacks $required: $depends"
done
grep -Eqx 'heptapod' <<<"$(names_of "$(field "$dev_deb" Depends)")" || fail "heptapod-dev does not depend on heptapod"

dpkg-deb -c "$runtime_deb" | awk '{print $NF}' | sed 's|^\./|/|' >"$WORK/runtime.files"
dpkg-deb -c "$dev_deb" | awk '{print $NF}' | sed 's|^\./|/|' >"$WORK/dev.files"
grep -qx /usr/bin/heptapod "$WORK/runtime.files" || fail "heptapod's .deb has no /usr/bin/heptapod"
if grep -v '/$' "$WORK/runtime.files" | grep -vqx /usr/bin/heptapod; then
  fail "heptapod's .deb holds more than the binary: $(grep -v '/$' "$WORK/runtime.files" | grep -vx /usr/bin/heptapod | head -5)"
fi
for f in /usr/lib/cmake/heptapod/heptapodConfig.cmake /usr/lib/cmake/heptapod/heptapodConfigVersion.cmake \
  /usr/lib/cmake/heptapod/heptapodTargets.cmake /usr/lib/libheptapod_core.a /usr/lib/libheptapod_train.a \
  /usr/lib/libheptapod_kernels_baseline.a /usr/include/heptapod/decode/translator.h; do
  grep -qx "$f" "$WORK/dev.files" || fail "heptapod-dev's .deb has no $f"
done
! grep -q '/kernels/naive/' "$WORK/dev.files" || fail "heptapod-dev's .deb ships the test-only kernels/naive headers"
! grep -q /usr/bin/ "$WORK/dev.files" || fail "heptapod-dev's .deb ships a binary"

# 3. Unpack; every library the binary loads resolves and is depended on.
root=$WORK/root
dpkg -x "$runtime_deb" "$root" || fail "dpkg -x $(basename "$runtime_deb") failed"
dpkg -x "$dev_deb" "$root" || fail "dpkg -x $(basename "$dev_deb") failed"
bin=$root/usr/bin/heptapod
[[ -x "$bin" ]] || fail "the unpacked package has no executable usr/bin/heptapod"
ldd "$bin" >"$WORK/ldd.txt" 2>&1 || { cat "$WORK/ldd.txt" >&2; fail "ldd cannot read the unpacked binary"; }
if grep -q 'not found' "$WORK/ldd.txt"; then
  grep 'not found' "$WORK/ldd.txt" >&2
  fail "the unpacked binary does not resolve every shared library"
fi
needed=$(readelf -d "$bin" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
[[ -n "$needed" ]] || fail "readelf finds no NEEDED entries in the unpacked binary"

# owner PATH: the installed package that owns PATH (as ldd printed it, or its real path; with a merged /usr,
# dpkg may know either /lib/... or /usr/lib/...).
owner() {
  local real candidates=() c o
  real=$(readlink -f "$1")
  for c in "$1" "$real"; do
    candidates+=("$c")
    if [[ "$c" == /usr/* ]]; then candidates+=("${c#/usr}"); else candidates+=("/usr$c"); fi
  done
  for c in "${candidates[@]}"; do
    if o=$(dpkg-query -S "$c" 2>/dev/null); then
      sed -n '1s/^\([^:, ]*\).*/\1/p' <<<"$o"
      return 0
    fi
  done
  return 1
}
provides_of() { names_of "$(dpkg-query -W -f='${Provides}' "$1" 2>/dev/null || true)"; }
# The installed dependency closure of the Depends field: every package reachable through Depends and
# Pre-Depends of installed packages, and what those provide.
closure=$depend_names
queue=$depend_names
while [[ -n "$queue" ]]; do
  next=""
  for p in $queue; do
    deps=$(dpkg-query -W -f='${Depends}, ${Pre-Depends}' "$p" 2>/dev/null || true)
    for d in $(names_of "$deps") $(provides_of "$p"); do
      if ! grep -qx -- "$d" <<<"$closure"; then
        closure+=$'\n'"$d"
        next+=" $d"
      fi
    done
  done
  queue=$next
done

checked=0
while read -r line; do
  # "libx.so.1 => /path (0x...)", or "/lib64/ld-linux-x86-64.so.2 (0x...)"; linux-vdso has no file.
  if [[ "$line" == *" => "* ]]; then
    soname=${line%% =>*}
    path=${line#*=> }
    path=${path%% (*}
  else
    path=${line%% (*}
    [[ "$path" == /* ]] || continue
    soname=$(basename "$path")
  fi
  package=$(owner "$path") || fail "$path ($soname, loaded by the binary) belongs to no installed Debian package"
  accepted=$depend_names
  direct="the runtime package's Depends"
  if ! grep -qx -- "$soname" <<<"$needed"; then
    accepted=$closure
    direct="the dependency closure of the runtime package's Depends"
  fi
  ok=0
  for n in "$package" $(provides_of "$package"); do
    if grep -qx -- "$n" <<<"$accepted"; then ok=1; fi
  done
  ((ok)) || fail "$soname resolves to $path of package $package, which is not in $direct ($depends)"
  checked=$((checked + 1))
done <"$WORK/ldd.txt"
note "ldd: $checked libraries resolved, each from a package that Depends brings in"

# 4. The unpacked binary runs and translates as the build tree's does.
bounded 60 "$WORK/info.txt" "the unpacked heptapod info" "$bin" info
grep -qx "heptapod $version" <(head -n 1 "$WORK/info.txt") || fail "heptapod info does not report version $version: $(head -n 1 "$WORK/info.txt")"
model=$(test_model "$heptapod" "$src" "${4:-}")
printf '%s\n' "${TEST_SENTENCES[@]}" >"$WORK/input.txt"
bounded 120 "$WORK/translate.log" "the build tree's heptapod translate" \
  "$heptapod" translate -m "$model" -i "$WORK/input.txt" -o "$WORK/expected.txt"
bounded 120 "$WORK/translate.log" "the unpacked heptapod translate" \
  "$bin" translate -m "$model" -i "$WORK/input.txt" -o "$WORK/actual.txt"
expect_same_translation "the unpacked heptapod translate" "$WORK/expected.txt" "$WORK/actual.txt"
note "the unpacked binary: $(head -n 1 "$WORK/info.txt"); translates the ${#TEST_SENTENCES[@]} test sentences as the build does"

# 5. The development package alone serves a consumer.
consumer=$WORK/consumer-build
bounded 300 "$WORK/configure.log" "configuring tests/package/consumer against the unpacked heptapod-dev" \
  "$cmake" -S "$src/tests/package/consumer" -B "$consumer" -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_PREFIX_PATH="$root/usr" -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF \
  -DCMAKE_FIND_USE_SYSTEM_PACKAGE_REGISTRY=OFF ${CXX:+-DCMAKE_CXX_COMPILER="$CXX"}
found=$(sed -n 's/^heptapod_DIR:[A-Z]*=//p' "$consumer/CMakeCache.txt")
[[ "$found" == "$root/usr/lib/cmake/heptapod" ]] || fail "the consumer found heptapod in '$found', not in the unpacked heptapod-dev"
bounded 600 "$WORK/build.log" "building tests/package/consumer against heptapod-dev" \
  nice -n 15 "$cmake" --build "$consumer" -j2
s=${TEST_SENTENCES[0]}
printf '%s\n' "$s" >"$WORK/input.txt"
bounded 120 "$WORK/translate.log" "heptapod translate" \
  "$heptapod" translate -m "$model" -i "$WORK/input.txt" -o "$WORK/expected.txt"
bounded 120 "$WORK/consumer.log" "the consumer built on heptapod-dev" \
  sh -c '"$0" "$1" "$2" >"$3"' "$consumer/consumer" "$model" "$s" "$WORK/actual.txt"
expect_same_translation "the consumer built on heptapod-dev" "$WORK/expected.txt" "$WORK/actual.txt"
note "the consumer built on the unpacked heptapod-dev translates as heptapod does"
note "PASS"
