#!/usr/bin/env bash
# Leaves a virtual environment with PyPI's test dependencies (requirements/test-lock.txt:
# onnxruntime 1.30.0 as the in-process reference, current onnx with ml_dtypes, the converters)
# and prints its folder. It is made with CPython from PATH (3.10 or newer, not Debian's: the
# Debian-based .venv of scripts/venv.sh keeps Debian's numpy/onnx/torch for the older tests),
# outside the repository, at $ONYX_TEST_VENV, else ~/.cache/onyx/test-venv-<hash of the lock>;
# a complete one is reused, so a second run downloads nothing. onyx itself is not installed in
# it: tests put <build>/python on PYTHONPATH (the module is built for the same CPython 3.11 ABI).
#
#     scripts/test_venv.sh            # make it (or find it), print its folder
#     scripts/test_venv.sh --relock   # resolve requirements/test.txt anew into test-lock.txt
set -euo pipefail
cd "$(dirname "$0")/.."
lock=requirements/test-lock.txt
python=${ONYX_TEST_PYTHON:-$(command -v python3.11 || command -v python3)}
if [ "${1:-}" = --relock ]; then
  tmp=$(mktemp -d)
  "$python" -m venv "$tmp/v"
  "$tmp/v/bin/pip" install -q --disable-pip-version-check -r requirements/test.txt
  { echo "# requirements/test.txt with every dependency pinned: written by scripts/test_venv.sh --relock"
    echo "# ($("$tmp/v/bin/python" -V), $(date -u +%Y-%m-%d)); scripts/test_venv.sh installs this."
    "$tmp/v/bin/pip" freeze --all | grep -v '^pip=='; } > "$lock"
  rm -rf "$tmp"
  echo "$lock"
  exit 0
fi
hash=$({ "$python" -c 'import sys; print(sys.version)'; grep -v '^#' "$lock"; } | sha256sum | cut -c1-12)
venv=${ONYX_TEST_VENV:-$HOME/.cache/onyx/test-venv-$hash}
if [ ! -f "$venv/.onyx-complete" ]; then
  echo "test_venv: installing requirements/test-lock.txt into $venv" >&2
  rm -rf "$venv"
  [ -n "${ONYX_TEST_VENV:-}" ] || rm -rf "$HOME"/.cache/onyx/test-venv-*  # older locks' venvs
  "$python" -m venv "$venv"
  "$venv/bin/pip" install -q --disable-pip-version-check --no-deps -r "$lock" >&2
  "$venv/bin/python" -c 'import onnxruntime, onnx, numpy, pytest' >&2
  touch "$venv/.onyx-complete"
fi
echo "$venv"
