"""onyx next to onnxruntime 1.30.0, the reference, in one process (PyPI's wheel in the test venv
of scripts/test_venv.sh; onyx from the build's python folder on PYTHONPATH). Run by the ctest
`python_vs_ort`: <venv>/bin/python -m pytest tests/python_ort."""
import os

import pytest

import onnxruntime
import onyx

REFERENCE_VERSION = "1.30.0"


def pytest_configure(config):
    # A reference of another version would make every comparison here mean something else.
    if onnxruntime.__version__ != REFERENCE_VERSION:
        raise pytest.UsageError(f"tests/python_ort compare with onnxruntime {REFERENCE_VERSION}, "
                                f"found {onnxruntime.__version__} ({onnxruntime.__file__})")
    if "site-packages" in onyx.__file__ and not os.environ.get("ONYX_TEST_INSTALLED"):
        raise pytest.UsageError(f"onyx comes from {onyx.__file__}, not from a build folder")


@pytest.fixture(params=["onnxruntime", "onyx"])
def rt(request):
    """Each test that takes `rt` runs once with either module, written once as ORT users write."""
    return onnxruntime if request.param == "onnxruntime" else onyx
