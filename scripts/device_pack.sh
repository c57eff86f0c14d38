#!/usr/bin/env bash
# Packs what scripts/device_check.sh needs on a GPU machine that has none of onyx's build
# dependencies (this workplace's device machines): the CUDA build's `onyx` and `onyx_tests`
# (stripped), the shared libraries they load beside the system's and CUDA's own, and the
# generated kernel cases (pass cases only). Writes .devcarry/bundle.tar.xz (ignored by git).
# Run after scripts/build.sh, on the machine that built it.
# With ONYX_DEVICE_PYTHON (an interpreter here of the device's Python version, with its C headers)
# and ONYX_DEVICE_PYBIND11 (the device's pybind11 include folder), the bundle also holds onyx's
# Python package built for that Python (scripts/device_python_ext.py), for device_check.sh's
# ortmodule step.
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${ONYX_BUILD_DIR:-build}
stage=.devcarry/stage
rm -rf "$stage" && mkdir -p "$stage/bin" "$stage/lib" "$stage/compat"
cp "$build_dir/onyx" "$build_dir/tests/onyx_tests" "$stage/bin/"
strip "$stage"/bin/*
# Libraries: the C runtime and CUDA's (cudart, cuBLAS, cuDNN) come from the GPU machine;
# libstdc++ and libgcc_s go to compat/, used only if the machine's own are older.
for b in "$build_dir/onyx" "$build_dir/tests/onyx_tests"; do ldd "$b"; done | awk '/=> \//{print $1" "$3}' | sort -u |
  while read -r name path; do
    case $name in
      libc.so*|libm.so*|libpthread.so*|libdl.so*|librt.so*|ld-linux*|libcuda.so*|libcudart*|libcublas*|libcudnn*) ;;
      libstdc++*|libgcc_s*) cp -L "$path" "$stage/compat/$name" ;;
      *) cp -L "$path" "$stage/lib/$name" ;;
    esac
  done
# Kernel cases made here (Debian's numpy and onnx), run there with --pregenerated.
for g in tests/kernels/gen_*.py; do
  name=$(basename "$g" .py); name=${name#gen_}
  /usr/bin/python3 "$g" "$stage/kernel_cases/$name" >/dev/null
  rm -rf "$stage/kernel_cases/$name/bad"
done
if [ -n "${ONYX_DEVICE_PYTHON:-}" ]; then
  /usr/bin/python3 scripts/device_python_ext.py "$build_dir" "$ONYX_DEVICE_PYTHON" .devcarry/pyext ${ONYX_DEVICE_PYBIND11:-} >/dev/null
  mkdir -p "$stage/python" && cp -r .devcarry/pyext/onyx "$stage/python/"
  find "$stage/python" -name __pycache__ -prune -exec rm -rf {} +
fi
pwd > "$stage/src_root"  # the absolute paths compiled into onyx_tests start here
tar -C .devcarry -cJf .devcarry/bundle.tar.xz stage
du -h .devcarry/bundle.tar.xz
