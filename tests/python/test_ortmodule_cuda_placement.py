"""Without a GPU: ORTModule's forward and backward graphs for the benchmark's MLP, BERT-like encoder
and GPT-2-like decoder, placed for CUDA from this build's kernels (`onyx optimize --for-provider
cuda`, which needs no device), leave on the CPU only small shape arithmetic (Shape, Equal, Not,
And, NonZero, Range, and integer ops) and, for the decoder's tied embedding,
GatherGrad's accumulating form. A gradient rule that starts emitting an op without a CUDA
kernel fails here before anyone reaches a GPU. Skipped in a build without CUDA."""
import os
import re
import subprocess
import sys

import numpy as np
import pytest

torch = pytest.importorskip("torch")
from onyx import _onyx  # noqa: E402
from onyx.training.ortmodule import DebugOptions, ORTModule  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bench"))
from training_models import Decoder, Encoder, Mlp  # noqa: E402

# The build folder holds python/onyx/_onyx*.so and the onyx CLI.
CLI = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(_onyx.__file__)))), "onyx")
SHAPE_ARITHMETIC = {"Shape", "Equal", "Not", "And", "NonZero", "Range"}
# Integer ops kept on the host (their inputs are host values), or refused by CUDA for their
# integer type (the decoder's position count, a Mul of two dims).
INTEGER_WORK = re.compile(r"integer arithmetic|not int(64|32) \(input")


def cuda_build():
    if not os.path.exists(CLI):
        return False
    out = subprocess.run([CLI, "providers"], capture_output=True, text=True, timeout=60)
    return "built without CUDA" not in out.stdout + out.stderr and "CUDA" in out.stdout + out.stderr


pytestmark = pytest.mark.skipif(not cuda_build(), reason="needs the onyx CLI of a CUDA build")


def left_on_cpu(path, tmp_path):
    """(op, reason) of each node the static placement for CUDA leaves on the CPU."""
    out = subprocess.run([CLI, "optimize", str(path), "-o", str(tmp_path / "placed.onnx"), "--for-provider", "cuda"],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    text = out.stdout + out.stderr
    assert "placement for CUDA" in text, text
    return re.findall(r"on the CPU: .*? \((\S+)\): (.*)", text)


def graphs_of(net, inputs, prefix, tmp_path):
    wrapped = ORTModule(net, DebugOptions(save_onnx=True, onnx_prefix=prefix, save_path=str(tmp_path)))
    wrapped(*inputs).float().sum().backward()
    return [tmp_path / f"{prefix}_0_{what}.onnx" for what in ("forward", "backward")]


@pytest.mark.parametrize("kind", ["mlp", "encoder", "decoder"])
def test_the_training_graphs_leave_only_shape_arithmetic_on_the_cpu(kind, tmp_path):
    torch.manual_seed(0)
    ids = torch.from_numpy(np.random.default_rng(0).integers(0, 30, (2, 6)))
    net, inputs = {
        "mlp": (Mlp([12, 10, 4]), (torch.randn(3, 12),)),
        "encoder": (Encoder(vocab=30, seq=6, hidden=16, heads=2, layers=2, classes=3), (ids,)),
        "decoder": (Decoder(vocab=30, seq=6, hidden=12, heads=3, layers=2), (ids,)),
    }[kind]
    allowed = {"ai.onyx.training:GatherGrad"} if kind == "decoder" else set()
    for path in graphs_of(net, inputs, kind, tmp_path):
        unexpected = [(op, why) for op, why in left_on_cpu(path, tmp_path)
                      if op not in SHAPE_ARITHMETIC | allowed and not INTEGER_WORK.search(why)]
        assert not unexpected, f"{path.name}: {unexpected}"
