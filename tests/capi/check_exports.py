#!/usr/bin/python3
"""libonnxruntime.so.1 exports ORT's two entry points and nothing else of onyx's: OrtGetApiBase
and OrtSessionOptionsAppendExecutionProvider_CPU, each under the version node VERS_1.30.0 (the
default, what onnxruntime-node 1.30's binding imports; a library under any other version name
fails its `require`) and under VERS_1.29.0 (what the Java binding 1.29 on Maven Central imports).
Usage: check_exports.py LIBRARY"""
import subprocess
import sys

EXPECTED = sorted(f"{name}{at}{version}" for name in ("OrtGetApiBase", "OrtSessionOptionsAppendExecutionProvider_CPU")
                  for at, version in (("@@", "VERS_1.30.0"), ("@", "VERS_1.29.0")))
lib = sys.argv[1]
out = subprocess.run(["nm", "-D", "--defined-only", lib], capture_output=True, text=True, check=True).stdout
symbols = [line.split()[-1] for line in out.splitlines() if line.strip()]
ours = sorted(s for s in symbols if not s.startswith("VERS_"))
if ours != EXPECTED:
    sys.exit(f"{lib} exports {ours}, expected only {EXPECTED}")
print("exports: " + ", ".join(EXPECTED))
