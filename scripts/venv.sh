#!/usr/bin/env bash
# Leaves a virtual environment at .venv with onyx installed in it, without network:
# Debian's /usr/bin/python3 with --system-site-packages (so Debian's numpy and onnx are
# visible), and an onyx.pth naming the build's Python package folder (<build>/python, where
# the build links python/onyx and puts the extension module). Idempotent.
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=$(realpath "${ONYX_BUILD_DIR:-build}")
if ! ls "$build_dir"/python/onyx/_onyx*.so >/dev/null 2>&1; then
  echo "venv: $build_dir has no Python module (configure with -DONYX_PYTHON=ON and build)" >&2
  exit 1
fi
[ -x .venv/bin/python ] || /usr/bin/python3 -m venv --system-site-packages .venv
site=$(.venv/bin/python -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
echo "$build_dir/python" > "$site/onyx.pth"
