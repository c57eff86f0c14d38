#!/usr/bin/python3
"""libonnxruntime.so.1 exports OrtGetApiBase under the version node VERS_1.30.0 and nothing
else of onyx's (what onnxruntime-node's binding imports; a library under any other version
name fails its `require`). Usage: check_exports.py LIBRARY"""
import subprocess
import sys

lib = sys.argv[1]
out = subprocess.run(["nm", "-D", "--defined-only", lib], capture_output=True, text=True, check=True).stdout
symbols = [line.split()[-1] for line in out.splitlines() if line.strip()]
ours = [s for s in symbols if not s.startswith("VERS_")]
if ours != ["OrtGetApiBase@@VERS_1.30.0"]:
    sys.exit(f"{lib} exports {ours}, expected only OrtGetApiBase@@VERS_1.30.0")
print("exports: OrtGetApiBase@@VERS_1.30.0")
