#!/usr/bin/env python3
"""Runs ONNX backend-suite cases through the Python API (onyx.InferenceSession) and compares
with the expected outputs (rtol 1e-3, atol 1e-5, as `onyx test`).

    PYTHONPATH=build/python /usr/bin/python3 tests/python/backend_cases.py            # the default handful
    PYTHONPATH=build/python /usr/bin/python3 tests/python/backend_cases.py node/test_relu ...

Prints a verdict per case and exits non-zero when any fails.
"""
import glob
import os
import sys

import numpy as np
import onnx
from onnx import numpy_helper

import onyx

DATA = "/usr/share/libonnx-testdata/data"

# Tensors, strings, float16, sequences, optionals, control flow, a converted PyTorch model.
DEFAULT_CASES = [
    "node/test_relu",
    "node/test_add_bcast",
    "node/test_matmul_2d",
    "node/test_conv_with_strides_padding",
    "node/test_cast_FLOAT_to_FLOAT16",
    "node/test_cast_FLOAT_to_STRING",
    "node/test_strnormalizer_export_monday_casesensintive_lower",
    "node/test_identity_sequence",
    "node/test_sequence_insert_at_back",
    "node/test_identity_opt",
    "node/test_optional_has_element_empty",
    "node/test_optional_get_element_sequence",
    "node/test_if_opt",
    "node/test_loop11",
    "node/test_unique_sorted_with_axis",
    "node/test_resize_upsample_scales_linear",
    "simple/test_sequence_model1",
    "pytorch-converted/test_Conv2d",
]


def read_value(path, type_proto):
    """A test-data .pb as the Python API takes and returns it: array, list or None."""
    with open(path, "rb") as f:
        data = f.read()
    kind = type_proto.WhichOneof("value")
    if kind == "sequence_type":
        proto = onnx.SequenceProto()
        proto.ParseFromString(data)
        return numpy_helper.to_list(proto)
    if kind == "optional_type":
        proto = onnx.OptionalProto()
        proto.ParseFromString(data)
        return numpy_helper.to_optional(proto)
    proto = onnx.TensorProto()
    proto.ParseFromString(data)
    return numpy_helper.to_array(proto)


def compare(got, want, where):
    """Raises AssertionError naming `where` when got differs from want."""
    if want is None or got is None:
        assert got is None and want is None, f"{where}: got {type(got).__name__}, want {type(want).__name__}"
        return
    if isinstance(want, list):
        assert isinstance(got, list), f"{where}: got {type(got).__name__}, want a list"
        assert len(got) == len(want), f"{where}: {len(got)} items, want {len(want)}"
        for i, (g, w) in enumerate(zip(got, want)):
            compare(g, w, f"{where}[{i}]")
        return
    assert isinstance(got, np.ndarray), f"{where}: got {type(got).__name__}, want an array"
    assert got.shape == want.shape, f"{where}: shape {got.shape}, want {want.shape}"
    if want.dtype == object:
        want = np.vectorize(lambda s: s.decode() if isinstance(s, bytes) else s, otypes=[object])(want)
        assert got.dtype == object and got.tolist() == want.tolist(), f"{where}: {got!r} != {want!r}"
        return
    assert got.dtype == want.dtype, f"{where}: dtype {got.dtype}, want {want.dtype}"
    if np.issubdtype(want.dtype, np.inexact):
        np.testing.assert_allclose(got, want, rtol=1e-3, atol=1e-5, equal_nan=True, err_msg=where)
    else:
        np.testing.assert_array_equal(got, want, err_msg=where)


def run_case(case):
    """Runs every test_data_set of `case` (a folder under DATA, or a path); raises on a mismatch."""
    path = case if os.path.isabs(case) else os.path.join(DATA, case)
    model = onnx.load(os.path.join(path, "model.onnx"), load_external_data=False)
    initializers = {t.name for t in model.graph.initializer}
    inputs = [i for i in model.graph.input if i.name not in initializers]
    sess = onyx.InferenceSession(os.path.join(path, "model.onnx"))
    assert [a.name for a in sess.get_inputs()] == [i.name for i in inputs]
    sets = sorted(glob.glob(os.path.join(path, "test_data_set_*")))
    assert sets, f"{case}: no test_data_set_*"
    for data_set in sets:
        feeds = {}
        for k, vi in enumerate(inputs):
            file = os.path.join(data_set, f"input_{k}.pb")
            if os.path.exists(file):
                feeds[vi.name] = read_value(file, vi.type)
        outputs = sess.run(None, feeds)
        for k, vi in enumerate(model.graph.output):
            want = read_value(os.path.join(data_set, f"output_{k}.pb"), vi.type)
            compare(outputs[k], want, f"{case} {os.path.basename(data_set)} output '{vi.name}'")


def main(argv):
    cases = argv or DEFAULT_CASES
    failed = 0
    for case in cases:
        try:
            run_case(case)
            print(f"PASS {case}")
        except Exception as e:  # noqa: BLE001 (a verdict per case)
            failed += 1
            print(f"FAIL {case}: {type(e).__name__}: {e}")
    print(f"{len(cases) - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
