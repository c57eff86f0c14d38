"""Builds onyx._onyx with CMake and packages python/onyx around it.

    pip install --no-build-isolation --no-deps /path/to/onyx

The CMake build directory is $ONYX_BUILD_DIR, else <checkout>/build: an existing build there
(scripts/build.sh) is reused, so only the module is (re)built. A fresh directory is configured
for the installing interpreter with the tests off. $CMAKE_BUILD_PARALLEL_LEVEL sets the jobs.
"""
import os
import re
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = Path(__file__).resolve().parent


def version():
    text = (ROOT / "CMakeLists.txt").read_text()
    return re.search(r"project\(onyx VERSION ([0-9.]+)", text).group(1)


class CMakeBuild(build_ext):
    def build_extension(self, ext):
        build_dir = Path(os.environ.get("ONYX_BUILD_DIR", ROOT / "build")).resolve()
        cache = build_dir / "CMakeCache.txt"
        if not cache.exists():
            args = ["cmake", "-S", str(ROOT), "-B", str(build_dir), "-DCMAKE_BUILD_TYPE=Release",
                    "-DONYX_TESTS=OFF", "-DONYX_PYTHON=ON", f"-DPython3_EXECUTABLE={sys.executable}"]
            if shutil.which("ninja"):
                args += ["-G", "Ninja"]
            subprocess.check_call(args)
        elif "ONYX_PYTHON:BOOL=ON" not in cache.read_text(errors="replace"):
            subprocess.check_call(["cmake", "-S", str(ROOT), "-B", str(build_dir), "-DONYX_PYTHON=ON"])
        jobs = os.environ.get("CMAKE_BUILD_PARALLEL_LEVEL", str(os.cpu_count() or 1))
        subprocess.check_call(["cmake", "--build", str(build_dir), "--target", "_onyx", "-j", jobs])
        suffix = sysconfig.get_config_var("EXT_SUFFIX")
        built = build_dir / "python" / "onyx" / f"_onyx{suffix}"
        if not built.exists():
            found = [p.name for p in (build_dir / "python" / "onyx").glob("_onyx*")]
            raise RuntimeError(f"{built} was not built (found {found}): {build_dir} is configured for another "
                               "Python; set ONYX_BUILD_DIR to a fresh directory")
        target = Path(self.get_ext_fullpath(ext.name))
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(built, target)


setup(
    version=version(),
    packages=["onyx", "onyx.capi"],
    package_dir={"": "python"},
    ext_modules=[Extension("onyx._onyx", sources=[])],
    cmdclass={"build_ext": CMakeBuild},
    options={"build": {"build_base": str(Path(os.environ.get("ONYX_BUILD_DIR", ROOT / "build")) / "setuptools")}},
)
