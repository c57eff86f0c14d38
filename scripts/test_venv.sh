#!/usr/bin/env bash
# Leaves a virtual environment with PyPI's test dependencies (requirements/test-lock.txt:
# onnxruntime 1.30.0 as the in-process reference, current onnx with ml_dtypes, the converters,
# pybind11) and prints its folder. It is made with CPython from PATH (3.10 or newer, not Debian's:
# the Debian-based .venv of scripts/venv.sh keeps Debian's numpy/onnx/torch for the older tests),
# outside the repository, at $ONYX_TEST_VENV, else ~/.cache/onyx/test-venv-<hash of the lock>;
# a complete one is reused, so a second run downloads nothing. onyx itself is not installed in
# it: tests put <build>/python on PYTHONPATH (the module is built for the same CPython 3.11 ABI).
#
#     scripts/test_venv.sh            # make it (or find it), print its folder
#     scripts/test_venv.sh --torch    # the same plus torch 2.x (requirements/torch-lock.txt, ~3 GB
#                                     # with NVIDIA's libraries): ~/.cache/onyx/torch-venv-<hash>
#     scripts/test_venv.sh --relock   # resolve requirements/test.txt and torch.txt anew into the locks
set -euo pipefail
cd "$(dirname "$0")/.."
lock=requirements/test-lock.txt
python=${ONYX_TEST_PYTHON:-$(command -v python3.11 || command -v python3)}
if [ "${1:-}" = --relock ]; then
  tmp=$(mktemp -d)
  "$python" -m venv "$tmp/v"
  "$tmp/v/bin/pip" install -q --disable-pip-version-check -r requirements/test.txt
  stamp="($("$tmp/v/bin/python" -V), $(date -u +%Y-%m-%d))"
  { echo "# requirements/test.txt with every dependency pinned: written by scripts/test_venv.sh --relock"
    echo "# $stamp; scripts/test_venv.sh installs this."
    "$tmp/v/bin/pip" freeze --all | grep -v '^pip=='; } > "$lock"
  "$tmp/v/bin/pip" install -q --disable-pip-version-check -c "$lock" -r requirements/torch.txt
  { echo "# requirements/torch.txt with every dependency pinned, beyond test-lock.txt: written by"
    echo "# scripts/test_venv.sh --relock $stamp; scripts/test_venv.sh --torch installs this."
    "$tmp/v/bin/pip" freeze --all | grep -v '^pip==' | grep -vxFf <(grep -v '^#' "$lock"); } > requirements/torch-lock.txt
  rm -rf "$tmp"
  echo "$lock requirements/torch-lock.txt"
  exit 0
fi
kind=test
locks=("$lock")
if [ "${1:-}" = --torch ]; then
  kind=torch
  locks+=(requirements/torch-lock.txt)
fi
hash=$({ "$python" -c 'import sys; print(sys.version)'; grep -hv '^#' "${locks[@]}"; } | sha256sum | cut -c1-12)
default=$HOME/.cache/onyx/$kind-venv-$hash
if [ "$kind" = test ]; then venv=${ONYX_TEST_VENV:-$default}; else venv=${ONYX_TORCH_VENV:-$default}; fi
if [ ! -f "$venv/.onyx-complete" ]; then
  echo "test_venv: installing ${locks[*]} into $venv" >&2
  rm -rf "$venv"
  case $venv in "$HOME"/.cache/onyx/*) rm -rf "$HOME/.cache/onyx/$kind-venv-"* ;; esac  # older locks' venvs
  "$python" -m venv "$venv"
  for l in "${locks[@]}"; do
    "$venv/bin/pip" install -q --disable-pip-version-check --no-deps -r "$l" >&2
  done
  "$venv/bin/python" -c 'import onnxruntime, onnx, numpy, pytest' >&2
  [ "$kind" = test ] || "$venv/bin/python" -c 'import torch' >&2
  touch "$venv/.onyx-complete"
fi
echo "$venv"
