#!/usr/bin/env bash
# install_consumer.sh BUILD_DIR SOURCE_DIR [MODEL]: the installed library works for a program outside the tree.
#   1. `cmake --install BUILD_DIR` into a temporary prefix, and the layout is checked: bin/heptapod, every
#      library in $HEPTAPOD_LIBRARIES (libheptapod_<name>.a), the CMake package, and every public header of
#      src/heptapod (all .h but kernels/naive/ and kernels/isa/) byte for byte, no test-only header;
#   2. tests/package/consumer/ (find_package(heptapod) + heptapod::heptapod, nothing else) is configured against
#      that prefix alone and built, with one extra source that includes every installed header;
#   3. its translation of each test sentence is byte-exact `heptapod translate`'s (the build tree's binary),
#      with MODEL (from the package.model fixture) or a model trained here;
#   4. with $HEPTAPOD_SCAN_ISA set (tests/isa/scan_isa.sh), the consumer's linked binary keeps every
#      instruction beyond the baseline inside the ISA namespaces, as the tree's binary does: the exported
#      link order (baseline ISA build first) is the tree's.
# Environment: CMAKE (default cmake), CXX (the compiler to build the consumer with), HEPTAPOD_LIBRARIES,
# HEPTAPOD_SCAN_ISA, KEEP_TMP=1 (keep the temporary directory).
set -euo pipefail
NAME=install_consumer
if (($# < 2 || $# > 3)); then
  echo "usage: $0 BUILD_DIR SOURCE_DIR [MODEL]" >&2
  exit 2
fi
build=$(cd "$1" && pwd)
src=$(cd "$2" && pwd)
source "$src/tests/package/common.sh"
cmake=${CMAKE:-cmake}
heptapod=$build/apps/heptapod
[[ -x "$heptapod" ]] || fail "no built binary $heptapod"

# 1. Install and check the layout.
prefix=$WORK/prefix
bounded 300 "$WORK/install.log" "cmake --install" "$cmake" --install "$build" --prefix "$prefix"
[[ -x "$prefix/bin/heptapod" ]] || fail "cmake --install left no executable bin/heptapod"
for lib in ${HEPTAPOD_LIBRARIES:-}; do
  [[ -f "$prefix/lib/lib$lib.a" ]] || fail "cmake --install left no lib/lib$lib.a"
done
for f in heptapodConfig.cmake heptapodConfigVersion.cmake heptapodTargets.cmake; do
  [[ -f "$prefix/lib/cmake/heptapod/$f" ]] || fail "cmake --install left no lib/cmake/heptapod/$f"
done
headers=0
while IFS= read -r h; do
  rel=${h#"$src/src/"}
  [[ -f "$prefix/include/$rel" ]] || fail "public header $rel is not installed (include/$rel)"
  cmp -s "$h" "$prefix/include/$rel" || fail "installed include/$rel differs from src/$rel"
  headers=$((headers + 1))
done < <(find "$src/src/heptapod" -name '*.h' -not -path '*/kernels/naive/*' -not -path '*/kernels/isa/*' | sort)
((headers > 0)) || fail "found no public headers under $src/src/heptapod"
stray=$(cd "$prefix/include" && find . -type f \( -path '*/kernels/naive/*' -o -path '*/kernels/isa/*' -o -not -name '*.h' \))
[[ -z "$stray" ]] || fail "installed files that are not public headers: $stray"
installed=$(cd "$prefix/include" && find . -name '*.h' | wc -l)
((installed == headers)) || fail "$installed headers installed, $headers public headers in src/heptapod"
note "installed: bin/heptapod, ${HEPTAPOD_LIBRARIES:+$(wc -w <<<"$HEPTAPOD_LIBRARIES") libraries, }$headers headers, lib/cmake/heptapod"

# 2. Configure and build the consumer against the prefix alone: no package registry, and the package must be
#    found in the prefix (not in /usr, where a heptapod-dev package may be installed).
all_headers=$WORK/all_headers.cpp
(cd "$prefix/include" && find heptapod -name '*.h' | sort | sed 's/.*/#include "&"/') >"$all_headers"
consumer=$WORK/consumer-build
bounded 300 "$WORK/configure.log" "configuring tests/package/consumer against the installed prefix" \
  "$cmake" -S "$src/tests/package/consumer" -B "$consumer" -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF \
  -DCMAKE_FIND_USE_SYSTEM_PACKAGE_REGISTRY=OFF ${CXX:+-DCMAKE_CXX_COMPILER="$CXX"} \
  -DHEPTAPOD_HEADERS_CPP="$all_headers"
found=$(sed -n 's/^heptapod_DIR:[A-Z]*=//p' "$consumer/CMakeCache.txt")
[[ "$found" == "$prefix/lib/cmake/heptapod" ]] || fail "the consumer found heptapod in '$found', not in the prefix"
bounded 600 "$WORK/build.log" "building tests/package/consumer" nice -n 15 "$cmake" --build "$consumer" -j2
[[ -x "$consumer/consumer" ]] || fail "the consumer build made no consumer binary"
note "consumer built against $prefix (every installed header compiles)"

# 3. The same translations as the build tree's heptapod translate.
model=$(test_model "$heptapod" "$src" "${3:-}")
for s in "${TEST_SENTENCES[@]}"; do
  printf '%s\n' "$s" >"$WORK/input.txt"
  bounded 120 "$WORK/translate.log" "heptapod translate" \
    "$heptapod" translate -m "$model" -i "$WORK/input.txt" -o "$WORK/expected.txt"
  bounded 120 "$WORK/consumer.log" "the consumer" \
    sh -c '"$0" "$1" "$2" >"$3"' "$consumer/consumer" "$model" "$s" "$WORK/actual.txt"
  expect_same_translation "the consumer" "$WORK/expected.txt" "$WORK/actual.txt"
  note "'$s' => '$(cat "$WORK/actual.txt")' (both)"
done

# 4. The consumer's link order.
if [[ -n "${HEPTAPOD_SCAN_ISA:-}" ]]; then
  bounded 300 "$WORK/scan.log" "scan_isa.sh on the consumer binary (ISA code outside its namespaces)" \
    "$HEPTAPOD_SCAN_ISA" "$consumer/consumer"
  note "$(tail -n 1 "$WORK/scan.log")"
fi
note "PASS"
