#!/bin/bash
# The ctest java_binding: ORT's Java binding (com.microsoft.onnxruntime:onnxruntime from Maven
# Central, unmodified) on onyx's libonnxruntime.so.1, through the JUnit test in tests/java.
#
#     tests/java/run.sh LIBDIR STRIPES ALL_TYPES BUILD_DIR
#
# LIBDIR holds onyx's libonnxruntime.so.1; STRIPES is models/stripes.onnx; ALL_TYPES is
# tests/bindings/all_types.onnx; Maven writes under BUILD_DIR/java-target (nothing is written in
# the source tree). Maven runs offline when ~/.m2 already holds what the project needs, and goes
# online once, to fill it, when it does not. Exits non-zero when the build or a test fails;
# Surefire's "Tests run: N, Failures: N, ..." lines are printed.
#
# ONYX_JAVA_USE_JAR_LIBRARY=1 runs the same test on the library inside the binding's jar (ORT's
# own) instead: a check that the test tells the two apart (its maps check then fails).
set -u
if [ $# -ne 4 ]; then
  echo "usage: $0 LIBDIR STRIPES ALL_TYPES BUILD_DIR" >&2
  exit 2
fi
here=$(cd "$(dirname "$0")" && pwd)
libdir=$(realpath "$1")
stripes=$(realpath "$2")
all_types=$(realpath "$3")
mkdir -p "$4"
target=$(realpath "$4")/java-target
for f in "$libdir/libonnxruntime.so.1" "$stripes" "$all_types"; do
  if [ ! -f "$f" ]; then
    echo "$0: $f does not exist" >&2
    exit 2
  fi
done
for tool in mvn java; do
  if ! command -v "$tool" >/dev/null; then
    echo "$0: $tool is not installed" >&2
    exit 2
  fi
done

args=(-B -ntp -f "$here/pom.xml"
      "-Donyx.libdir=$libdir" "-Donyx.stripes=$stripes" "-Donyx.all_types=$all_types"
      "-Donyx.java.build=$target")
if [ "${ONYX_JAVA_USE_JAR_LIBRARY:-0}" = 1 ]; then
  args+=("-Donyx.native.arg=-Donyx.jar_library=1")
fi

log=$(mktemp)
trap 'rm -f "$log"' EXIT
# Offline first; a run that stops only for want of an artifact not yet in ~/.m2 goes online.
mvn -o "${args[@]}" test 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
if [ "$status" -ne 0 ] && grep -qE "offline mode|has not been downloaded from it before|Cannot access .* in offline mode" "$log" \
   && ! grep -q "Tests run:" "$log"; then
  echo "$0: ~/.m2 lacks what the project needs; running Maven online once to fill it"
  mvn "${args[@]}" test
  status=$?
fi
exit "$status"
