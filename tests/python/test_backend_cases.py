"""A handful of ONNX backend-suite cases through the Python API (see backend_cases.py)."""
import os

import pytest

import backend_cases


@pytest.mark.parametrize("case", backend_cases.DEFAULT_CASES)
def test_backend_case(case):
    if not os.path.exists(os.path.join(backend_cases.DATA, case, "model.onnx")):
        pytest.skip(f"{case} is not installed")
    backend_cases.run_case(case)


def test_script_main(capsys):
    assert backend_cases.main(["node/test_relu"]) == 0
    assert "1 passed, 0 failed" in capsys.readouterr().out
