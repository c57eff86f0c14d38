#!/usr/bin/env bash
# The GPU checks, for a machine with an NVIDIA GPU, CUDA 13 and cuDNN 9 (from the system or
# from pip's nvidia-* packages) but none of onyx's build dependencies; run from the checkout
# root after carrying .devcarry/bundle.tar.xz (scripts/device_pack.sh) there:
#   1. the CUDA unit tests (onyx_tests --gtest_filter=*Cuda*),
#   2. the kernel cases with the CUDA provider first (tests/kernels/run_kernel_cases.py),
#   3. bench/gpu_compare.py against PyTorch on the same GPU (needs python3 with torch, numpy, onnx),
#   4. where the bundle holds the Python package (device_pack.sh with ONYX_DEVICE_PYTHON): ORTModule
#      on the GPU, tests/python/test_ortmodule_cuda.py and bench/ortmodule_compare.py --device cuda
#      (ORTMODULE_TIMEOUT; ORTMODULE_MODELS, default bert).
# Logs and tables go to $OUT (default /tmp/onyx_device_out). Each step has its own time limit;
# a failing step does not stop the next (UNIT_TIMEOUT, KERNELS_TIMEOUT, GPU_COMPARE_TIMEOUT in
# seconds). GPU_COMPARE_ARGS overrides the benchmark's arguments;
# ONYX_DEVICE_STEPS (default "unit kernels compare ortmodule") picks the steps.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/onyx_device_out}
mkdir -p "$OUT"
exec > >(tee "$OUT/log.txt") 2>&1
steps=${ONYX_DEVICE_STEPS:-unit kernels compare ortmodule}
stage=.devcarry/stage
[ -d "$stage" ] || tar -C .devcarry -xJf .devcarry/bundle.tar.xz
# onyx_tests holds absolute paths (its test data, the CLI) under the checkout it was built in.
src_root=$(cat "$stage/src_root")
if [ "$src_root" != "$PWD" ] && [ ! -e "$src_root" ]; then
  mkdir -p "$(dirname "$src_root")" && ln -s "$PWD" "$src_root"
fi
mkdir -p build && cp "$stage"/bin/* build/

libdirs="$PWD/$stage/lib"
for lib in libcudart.so.13 libcublas.so.13 libcublasLt.so.13 libcudnn.so.9; do
  found=$(find /usr/local/cuda* /usr/lib/x86_64-linux-gnu /opt -name "$lib" 2>/dev/null | head -1)
  echo "$lib: ${found:-not found}"
  [ -n "$found" ] && libdirs="$libdirs:$(dirname "$found")"
done
export ONYX_LIBDIRS=$libdirs
# A wrapper that gives onyx its libraries without changing those of python and torch.
cat > build/onyx-gpu <<WRAP
#!/usr/bin/env bash
export LD_LIBRARY_PATH="$libdirs\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH}"
exec "$PWD/build/onyx" "\$@"
WRAP
chmod +x build/onyx-gpu
if LD_LIBRARY_PATH=$libdirs build/onyx providers 2>&1 | grep -q GLIBCXX; then
  libdirs="$PWD/$stage/compat:$libdirs"
  sed -i "s|^export LD_LIBRARY_PATH=\"|export LD_LIBRARY_PATH=\"$PWD/$stage/compat:|" build/onyx-gpu
fi
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv
LD_LIBRARY_PATH=$libdirs ldd build/onyx | grep "not found"
build/onyx-gpu providers

for step in $steps; do
  start=$(date +%s)
  echo "=== $step"
  case $step in
    unit)
      LD_LIBRARY_PATH=$libdirs timeout "${UNIT_TIMEOUT:-300}" build/onyx_tests --gtest_filter="${ONYX_GTEST_FILTER:-*Cuda*}" \
        --gtest_output="xml:$OUT/cuda_unit.xml" ;;
    kernels)
      timeout "${KERNELS_TIMEOUT:-300}" python3 tests/kernels/run_kernel_cases.py --provider cuda --onyx build/onyx-gpu \
        --work "$stage/kernel_cases" --pregenerated --jobs 8 ${ONYX_KERNEL_GENERATORS:-} ;;
    compare)
      PYTHONUNBUFFERED=1 timeout "${GPU_COMPARE_TIMEOUT:-330}" python3 bench/gpu_compare.py --onyx build/onyx-gpu \
        --table-out "$OUT/gpu_table.md" ${GPU_COMPARE_ARGS:---no-compile --runs 20 --warmup 5} ;;
    ortmodule)
      if [ ! -d "$stage/python/onyx" ]; then echo "no Python package in the bundle (ONYX_DEVICE_PYTHON)"; continue; fi
      (export LD_LIBRARY_PATH=$libdirs PYTHONPATH=$PWD/$stage/python PYTHONUNBUFFERED=1
       timeout "${ORTMODULE_TIMEOUT:-240}" bash -c "python3 -m pytest -q -p no:cacheprovider tests/python/test_ortmodule_cuda.py &&
         python3 bench/ortmodule_compare.py --device cuda --models ${ORTMODULE_MODELS:-bert} --threads 1 --steps 20 --warmup 3") ;;
  esac
  echo "=== $step: exit $? after $(( $(date +%s) - start )) s"
done
