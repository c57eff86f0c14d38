"""Every generated kernel case (tests/kernels/gen_*.py, pass cases) run by onyx and by
onnxruntime 1.30 in this process, on the case's inputs: outputs must agree with each other, and
ORT's with the case's numpy reference, so a reference that is wrong in the same way as onyx is
caught by the third opinion.

The cases are the ones ctest's kernel_cases test wrote ($ONYX_KERNEL_CASES, the fixture this
test requires). Cases ORT cannot run (an op or type it lacks, a contrib op onyx alone has) are
counted and listed, not failed; KNOWN_DIFFERENCES lists the cases where ORT and onyx disagree
and why; an entry that no longer differs fails too, so the list stays true.
"""
import glob
import os

import numpy as np
import onnx
import pytest
from onnx import numpy_helper

import onnxruntime
import onyx

CASES = os.environ.get("ONYX_KERNEL_CASES", "")
RTOL, ATOL = 1e-3, 1e-5  # onyx test's tolerances for the backend suite

# case id (generator/case) -> why ORT 1.30 and onyx (with the numpy reference) differ there.
KNOWN_DIFFERENCES = {
}


def case_dirs():
    if not CASES or not os.path.isdir(CASES):
        return []
    return sorted(glob.glob(os.path.join(CASES, "*", "pass", "*")))


def case_id(path):
    return f"{os.path.basename(os.path.dirname(os.path.dirname(path)))}/{os.path.basename(path)}"


def read_value(path):
    data = open(path, "rb").read()
    tensor = onnx.TensorProto()
    try:
        tensor.ParseFromString(data)
        if tensor.data_type:
            return numpy_helper.to_array(tensor)
    except Exception:
        pass
    seq = onnx.SequenceProto()
    seq.ParseFromString(data)
    return [numpy_helper.to_array(t) for t in seq.tensor_values]


def load_case(path):
    model = onnx.load(os.path.join(path, "model.onnx"))
    data = os.path.join(path, "test_data_set_0")
    inputs = {}
    for k, info in enumerate(model.graph.input):
        file = os.path.join(data, f"input_{k}.pb")
        if os.path.exists(file):
            inputs[info.name] = read_value(file)
    expected = [read_value(os.path.join(data, f"output_{k}.pb")) for k in range(len(model.graph.output))
                if os.path.exists(os.path.join(data, f"output_{k}.pb"))]
    return model, inputs, expected


def close(a, b):
    if isinstance(a, list) or isinstance(b, list):
        return isinstance(a, list) and isinstance(b, list) and len(a) == len(b) and all(map(close, a, b))
    a, b = np.asarray(a), np.asarray(b)
    if a.shape != b.shape:
        return False
    if a.dtype == object or b.dtype == object:
        return a.tolist() == b.tolist()
    if a.dtype.kind in "fc" or b.dtype.kind in "fc":
        return np.allclose(a.astype(np.float64), b.astype(np.float64), rtol=RTOL, atol=ATOL, equal_nan=True)
    return np.array_equal(a, b)


def run(module, model_path, inputs):
    options = module.SessionOptions()
    options.intra_op_num_threads = 1
    session = module.InferenceSession(model_path, options, providers=["CPUExecutionProvider"])
    return session.run(None, inputs)


def compare(path):
    """'ort-cannot: ...', 'agree', or a description of the difference."""
    model, inputs, expected = load_case(path)
    model_path = os.path.join(path, "model.onnx")
    try:
        ort_out = run(onnxruntime, model_path, inputs)
    except Exception as e:  # ORT lacks the op, the type or the contrib op
        return "ort-cannot: " + str(e).splitlines()[0][:160]
    onyx_out = run(onyx, model_path, inputs)
    problems = []
    for k, (o, r) in enumerate(zip(onyx_out, ort_out)):
        if not close(o, r):
            problems.append(f"output {k}: onyx and ORT differ")
        if k < len(expected) and not close(r, expected[k]):
            problems.append(f"output {k}: ORT differs from the numpy reference")
    return "; ".join(problems) or "agree"


ALL = case_dirs()


def test_cases_were_generated():
    assert ALL, f"no kernel cases under {CASES!r} (ctest runs kernel_cases first; set ONYX_KERNEL_CASES)"


@pytest.mark.parametrize("path", ALL, ids=[case_id(p) for p in ALL])
def test_case_against_ort(path, request):
    verdict = compare(path)
    request.node.user_properties.append(("verdict", verdict))
    cid = case_id(path)
    if verdict.startswith("ort-cannot"):
        pytest.skip(verdict)
    if cid in KNOWN_DIFFERENCES:
        assert verdict != "agree", f"{cid} now agrees with ORT: remove it from KNOWN_DIFFERENCES"
    else:
        assert verdict == "agree", verdict
