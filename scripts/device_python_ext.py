#!/usr/bin/env python3
"""Builds onyx's Python extension for another CPython (a device machine's, say) from a finished
CMake build: the binding sources (python/src/*.cc) are compiled again against that
interpreter's headers with the build's own flags, and linked with the build's own objects and
libraries. Nothing else is rebuilt, so it takes a minute rather than a full build.

  device_python_ext.py BUILD_DIR PYTHON OUT_DIR [PYBIND11_INCLUDE]

writes OUT_DIR/onyx/ (the package's .py files and _onyx<EXT_SUFFIX of PYTHON>). PYTHON only has
to run here and to hold its C headers; the extension is for that version's ABI. PYBIND11_INCLUDE
(the include folder of the target machine's pybind11) replaces the system's pybind11 headers:
pybind11 before 2.12 reads numpy 1's descriptor layout, so an extension for numpy 2 needs newer
headers.
"""
import json
import os
import shlex
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor


def interpreter_facts(python):
    code = "import sysconfig; print(sysconfig.get_paths()['include']); print(sysconfig.get_config_var('EXT_SUFFIX'))"
    include, suffix = subprocess.check_output([python, "-c", code], text=True).split()
    if not os.path.exists(os.path.join(include, "Python.h")):
        sys.exit(f"{python} has no C headers under {include}")
    return include, suffix


def module_link_rule(build_dir):
    """The inputs and libraries of the _onyx module's link step, read from build.ninja."""
    lines = open(os.path.join(build_dir, "build.ninja")).read().split("\n")
    for i, line in enumerate(lines):
        if line.startswith("build python/onyx/_onyx.cpython-"):
            inputs = line.split(":", 1)[1].split(" | ")[0].split()[1:]
            variables = {}
            for extra in lines[i + 1:]:
                if not extra.startswith("  "):
                    break
                key, _, value = extra.strip().partition(" = ")
                variables[key] = value
            return inputs, variables
    sys.exit(f"no _onyx link rule in {build_dir}/build.ninja (configured without Python?)")


def main():
    if len(sys.argv) not in (4, 5):
        sys.exit(__doc__)
    build_dir, python, out_dir = os.path.abspath(sys.argv[1]), sys.argv[2], os.path.abspath(sys.argv[3])
    pybind11_include = os.path.abspath(sys.argv[4]) if len(sys.argv) == 5 else None
    include, suffix = interpreter_facts(python)
    obj_dir = os.path.join(out_dir, "objects")
    os.makedirs(obj_dir, exist_ok=True)

    commands = json.load(open(os.path.join(build_dir, "compile_commands.json")))
    binding = [c for c in commands if "/python/src/" in c["file"]]
    if not binding:
        sys.exit("compile_commands.json lists no python/src sources")
    replaced_objects = {}

    def compile_one(entry):
        args = shlex.split(entry["command"])
        for k, a in enumerate(args[:-1]):  # the build's Python headers -> PYTHON's
            if a == "-isystem" and os.path.basename(args[k + 1].rstrip("/")).startswith("python3"):
                args[k + 1] = include
        if pybind11_include:
            args[1:1] = ["-isystem", pybind11_include]
        out = args.index("-o") + 1
        built = os.path.relpath(os.path.join(entry["directory"], args[out]), build_dir)
        args[out] = os.path.join(obj_dir, os.path.basename(entry["file"]) + ".o")
        subprocess.run(args, cwd=entry["directory"], check=True)
        replaced_objects[built] = args[out]

    with ThreadPoolExecutor(os.cpu_count() or 2) as pool:
        list(pool.map(compile_one, binding))

    inputs, variables = module_link_rule(build_dir)
    objects = [replaced_objects.get(i, os.path.join(build_dir, i)) for i in inputs]
    package = os.path.join(out_dir, "onyx")
    shutil.rmtree(package, ignore_errors=True)
    source_package = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python", "onyx")
    shutil.copytree(source_package, package, ignore=shutil.ignore_patterns("__pycache__", "*.so"))
    target = os.path.join(package, "_onyx" + suffix)
    link = ["c++", "-fPIC", "-O3", "-shared", "-o", target] + objects
    link += shlex.split(variables.get("LINK_PATH", "")) + shlex.split(variables.get("LINK_LIBRARIES", ""))
    link += ["-fopenmp"]
    subprocess.run(link, cwd=build_dir, check=True)
    subprocess.run(["strip", "--strip-unneeded", target], check=True)
    print(target)


if __name__ == "__main__":
    main()
