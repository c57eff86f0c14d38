#!/usr/bin/env bash
# Benchmark set-up (not needed by CI or the tests): Debian's torch + torchvision to generate
# the models (bench/make_models.py), and ONNX Runtime 1.30 for node (bench/run_ort.js).
# Idempotent: a second run only checks. Run as root (or with sudo) for apt-get.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
PY=/usr/bin/python3
SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO=sudo; fi

# 1. torch + torchvision (Debian 12: torch 1.13, torchvision 0.14) for /usr/bin/python3.
if ! $PY -c 'import torch, torchvision' 2>/dev/null; then
  export DEBIAN_FRONTEND=noninteractive
  if ! $SUDO apt-get install -y python3-torch python3-torchvision; then
    $SUDO apt-get update
    $SUDO apt-get install -y python3-torch python3-torchvision
  fi
fi
$PY -c 'import torch, torchvision; print("torch", torch.__version__, "torchvision", torchvision.__version__)'
# torch.onnx.export needs the onnx package (Debian's python3-onnx; the project's set-up installs it).
$PY -c 'import onnx' 2>/dev/null || $SUDO apt-get install -y python3-onnx

# 2. onnxruntime-node 1.30.0, without its postinstall (which downloads GPU binaries): the npm
#    package already bundles bin/napi-v*/linux/x64/libonnxruntime.so for the CPU provider.
cd "$here/ort-node"
want=1.30.0
have="$(node -p 'require("./node_modules/onnxruntime-node/package.json").version' 2>/dev/null || true)"
if [ "$have" != "$want" ]; then
  npm install --ignore-scripts --no-audit --no-fund "onnxruntime-node@$want"
fi
# require() loads the native binding (onnxruntime_binding.node -> libonnxruntime.so.1); a session
# on the repository's demo model proves the library runs.
node -e '
  const ort = require("onnxruntime-node");
  const v = require("onnxruntime-node/package.json").version;
  (async () => {
    const s = await ort.InferenceSession.create(process.argv[1], { intraOpNumThreads: 1 });
    const x = new ort.Tensor("float32", new Float32Array(64), [1, 1, 8, 8]);
    const out = await s.run({ [s.inputNames[0]]: x });
    console.log("onnxruntime-node", v, "loads and runs (" + s.outputNames.map(n => n + " " + JSON.stringify(out[n].dims)).join(", ") + ")");
  })().catch(e => { console.error(e); process.exit(1); });
' "$here/../models/stripes.onnx"
echo "bench set-up OK"
