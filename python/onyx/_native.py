"""Where onyx's native programs are: the `onyx` command and ONNX Runtime's C ABI library.

In an installed wheel both lie inside the package (onyx/bin/onyx, onyx/lib/libonnxruntime.so.1);
in a build tree (PYTHONPATH=<build>/python) they are the build's own (<build>/onyx,
<build>/libonnxruntime.so.1). The console script `onyx` is main() here.
"""
import os
import sys

_PACKAGE = os.path.dirname(os.path.abspath(__file__))
_BUILD = os.path.dirname(os.path.dirname(_PACKAGE))  # <build>/python/onyx -> <build>


def _find(in_package, in_build):
    for path in (os.path.join(_PACKAGE, *in_package), os.path.join(_BUILD, in_build)):
        if os.path.exists(path):
            return path
    raise FileNotFoundError(f"onyx: {os.path.join(*in_package)} is not in this installation ({_PACKAGE}) "
                            f"nor in a build folder ({_BUILD})")


def cli_path():
    """The `onyx` executable."""
    return _find(("bin", "onyx"), "onyx")


def ort_library_path():
    """onyx's libonnxruntime.so.1: point ORT's language bindings at it (ORT_DYLIB_PATH for the
    Rust crate, ort.SetSharedLibraryPath in Go, LD_LIBRARY_PATH for node and C programs)."""
    return _find(("lib", "libonnxruntime.so.1"), "libonnxruntime.so.1")


def main():
    """The `onyx` console script: runs the onyx command with this process's arguments."""
    path = cli_path()
    os.execv(path, [path] + sys.argv[1:])
