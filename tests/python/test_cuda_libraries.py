"""A process that imports onyx and runs on the CPU must not map the CUDA runtime, cuBLAS(Lt)
or cuDNN: the runtime is linked statically and opens the driver at its first call, and the
CUDA provider opens the libraries on first use (src/providers/cuda/cuda_libraries.h). Linked
directly, cuBLASLt alone added ~150 MB of resident memory to every `import onyx`."""
import os
import subprocess
import sys
import textwrap

PROBE = textwrap.dedent(
    """
    import numpy as np
    import onnx
    from onnx import helper, TensorProto
    import onyx

    graph = helper.make_graph(
        [helper.make_node("MatMul", ["a", "b"], ["c"])], "g",
        [helper.make_tensor_value_info("a", TensorProto.FLOAT, [2, 3]),
         helper.make_tensor_value_info("b", TensorProto.FLOAT, [3, 4])],
        [helper.make_tensor_value_info("c", TensorProto.FLOAT, [2, 4])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    session = onyx.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    a = np.ones((2, 3), np.float32)
    b = np.ones((3, 4), np.float32)
    assert (session.run(None, {"a": a, "b": b})[0] == 3).all()
    onyx.get_available_providers()
    maps = open("/proc/self/maps").read()
    print(",".join(name for name in ("libcudart.so", "libcublas.so", "libcublasLt.so", "libcudnn") if name in maps) or "none")
    """
)


def test_cpu_work_does_not_open_the_cuda_libraries():
    env = dict(os.environ)
    result = subprocess.run([sys.executable, "-c", PROBE], env=env, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "none", result.stdout
