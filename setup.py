"""Builds onyx with CMake and packages it as a wheel:

    pip install .            # any venv, CPython >= 3.10, a C++20 compiler and onyx's C++
                             # dependencies (scripts/setup.sh installs them on Debian)
    pip install .[test]      # and the test dependencies (requirements/test.txt)

The wheel holds the onyx package (python/onyx), its extension module onyx._onyx, the `onyx`
command (onyx/bin/onyx, started by the `onyx` console script) and ONNX Runtime's C ABI
(onyx/lib/libonnxruntime.so.1, for ORT's language bindings; onyx.ort_library_path() names it).

The CMake build folder is $ONYX_BUILD_DIR; else <checkout>/build when it is configured for a
Python with this interpreter's extension suffix (scripts/build.sh's, so that only the packaged
targets are relinked); else <checkout>/build-wheel-<suffix>, configured here with the tests off.
The CUDA provider follows $ONYX_CUDA as scripts/build.sh does (AUTO: only where a toolkit is
installed). $CMAKE_BUILD_PARALLEL_LEVEL sets the jobs.
"""
import functools
import os
import re
import shutil
import stat
import subprocess
import sys
import sysconfig
from pathlib import Path

from setuptools import Extension, find_packages, setup
from setuptools.command.build_ext import build_ext

ROOT = Path(__file__).resolve().parent
SUFFIX = sysconfig.get_config_var("EXT_SUFFIX")


def version():
    text = (ROOT / "CMakeLists.txt").read_text()
    return re.search(r"project\(onyx VERSION ([0-9.]+)", text).group(1)


def cached_python(cache_text):
    found = re.search(r"^Python3_EXECUTABLE:FILEPATH=(.*)$", cache_text, re.M)
    return found.group(1) if found else None


@functools.lru_cache(maxsize=None)  # called for setup()'s options and again by the build
def build_dir():
    if os.environ.get("ONYX_BUILD_DIR"):
        return Path(os.environ["ONYX_BUILD_DIR"]).resolve()
    default = ROOT / "build"
    cache = default / "CMakeCache.txt"
    if cache.exists():
        python = cached_python(cache.read_text(errors="replace"))
        if python and os.path.exists(python):
            theirs = subprocess.run([python, "-c", "import sysconfig; print(sysconfig.get_config_var('EXT_SUFFIX'))"],
                                    capture_output=True, text=True).stdout.strip()
            if theirs == SUFFIX:
                return default
    return ROOT / f"build-wheel{SUFFIX.rsplit('.', 1)[0]}"


class CMakeBuild(build_ext):
    def build_extension(self, ext):
        build = build_dir()
        cache = build / "CMakeCache.txt"
        cached = cache.read_text(errors="replace") if cache.exists() else ""
        if not cached:
            args = ["cmake", "-S", str(ROOT), "-B", str(build), "-DCMAKE_BUILD_TYPE=Release", "-DONYX_TESTS=OFF",
                    "-DONYX_PYTHON=ON", "-DONYX_CAPI=ON", f"-DPython3_EXECUTABLE={sys.executable}",
                    f"-DONYX_CUDA={os.environ.get('ONYX_CUDA', 'AUTO')}"]
            if shutil.which("ninja"):
                args += ["-G", "Ninja"]
            try:
                import pybind11  # the build requirement from PyPI, in an isolated build
                args.append(f"-Dpybind11_DIR={pybind11.get_cmake_dir()}")
            except ImportError:
                pass  # Debian's pybind11-dev
            subprocess.check_call(args)
        elif "ONYX_PYTHON:BOOL=ON" not in cached or "ONYX_CAPI:BOOL=ON" not in cached:
            # An existing build folder (scripts/build.sh's) is reconfigured only to add what the
            # wheel holds; its other settings (pybind11, CUDA, tests) stay.
            subprocess.check_call(["cmake", "-S", str(ROOT), "-B", str(build), "-DONYX_PYTHON=ON", "-DONYX_CAPI=ON"])
        jobs = os.environ.get("CMAKE_BUILD_PARALLEL_LEVEL", str(os.cpu_count() or 1))
        subprocess.check_call(["cmake", "--build", str(build), "--target", "_onyx", "onyx", "onnxruntime", "-j", jobs])
        built = build / "python" / "onyx" / f"_onyx{SUFFIX}"
        if not built.exists():
            found = [p.name for p in (build / "python" / "onyx").glob("_onyx*")]
            raise RuntimeError(f"{built} was not built (found {found}): {build} is configured for another "
                               "Python; set ONYX_BUILD_DIR to a fresh directory")
        target = Path(self.get_ext_fullpath(ext.name))
        package = target.parent
        package.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(built, target)
        for source, dest in [(build / "onyx", package / "bin" / "onyx"),
                             (build / "libonnxruntime.so.1", package / "lib" / "libonnxruntime.so.1")]:
            dest.parent.mkdir(exist_ok=True)
            shutil.copyfile(source.resolve(), dest)
            dest.chmod(dest.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)


setup(
    version=version(),
    packages=find_packages("python"),
    package_dir={"": "python"},
    ext_modules=[Extension("onyx._onyx", sources=[])],
    cmdclass={"build_ext": CMakeBuild},
    options={"build": {"build_base": str(build_dir() / "setuptools")}},
)
