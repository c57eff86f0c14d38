"""com.microsoft MatMulNBits through a session, against numpy with the weights dequantised as the
layout says: one row (the streaming kernels), a prompt of rows (W dequantised in tiles, several of
them over N = 600, split over the threads), accuracy_level 4 (rows of A quantised to int8: within
the rounding of A; a prompt's A and W in bfloat16 where the CPU has it: within their rounding), a
bias, and float16 A."""
import numpy as np
import pytest
from onnx import TensorProto, helper, numpy_helper

import onyx as ort

K, N, BLOCK = 64, 600, 32


def weights(seed=0):
    rng = np.random.default_rng(seed)
    blocks = K // BLOCK
    codes = rng.integers(0, 16, size=(N, blocks, BLOCK), dtype=np.uint8)
    packed = (codes[:, :, 0::2] | (codes[:, :, 1::2] << 4)).astype(np.uint8)  # even k low nibble
    scales = rng.uniform(0.01, 0.1, size=(N * blocks,)).astype(np.float32)
    zeros = rng.integers(0, 16, size=(N, blocks), dtype=np.uint8)
    zp = (zeros[:, 0::2] | (zeros[:, 1::2] << 4)).astype(np.uint8).reshape(-1)
    w = (codes.astype(np.float32) - zeros[:, :, None]) * scales.reshape(N, blocks)[:, :, None]
    return packed, scales, zp, w.reshape(N, K)


def session(accuracy_level, dtype=np.float32, bias=None, threads=0):
    packed, scales, zp, w = weights()
    elem = TensorProto.FLOAT if dtype == np.float32 else TensorProto.FLOAT16
    inits = [numpy_helper.from_array(packed, "B"), numpy_helper.from_array(scales.astype(dtype), "scales"),
             numpy_helper.from_array(zp, "zp")]
    ins = ["A", "B", "scales", "zp"]
    if bias is not None:
        inits.append(numpy_helper.from_array(bias.astype(dtype), "bias"))
        ins += ["", "bias"]
    node = helper.make_node("MatMulNBits", ins, ["Y"], domain="com.microsoft", K=K, N=N, bits=4, block_size=BLOCK,
                            accuracy_level=accuracy_level)
    g = helper.make_graph([node], "g", [helper.make_tensor_value_info("A", elem, ["rows", K])],
                          [helper.make_tensor_value_info("Y", elem, ["rows", N])], inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("com.microsoft", 1)])
    m.ir_version = 8
    so = ort.SessionOptions()
    so.intra_op_num_threads = threads
    return ort.InferenceSession(m.SerializeToString(), so), w


@pytest.mark.parametrize("rows", [1, 3, 5, 40])
@pytest.mark.parametrize("threads", [1, 2])
def test_float_sums_match_the_dequantised_product(rows, threads):
    s, w = session(0, threads=threads)
    a = np.random.default_rng(rows).uniform(-1, 1, size=(rows, K)).astype(np.float32)
    y = s.run(None, {"A": a})[0]
    np.testing.assert_allclose(y, a @ w.T, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("rows", [1, 2])
def test_accuracy_level_4_is_within_the_rounding_of_a(rows):
    s, w = session(4)
    a = np.random.default_rng(7).uniform(-1, 1, size=(rows, K)).astype(np.float32)
    y = s.run(None, {"A": a})[0]
    # each a moves by at most half a step of max|a| / 127 per block
    bound = (np.abs(w).sum(axis=1) / 254.0)[None, :] + 1e-5
    assert np.all(np.abs(y - a @ w.T) <= bound)


@pytest.mark.parametrize("threads", [1, 2])
def test_accuracy_level_4_prompts_are_within_the_bf16_rounding_of_a_and_w(threads):
    # a prompt (more rows than the streaming kernels take): with native bf16 products A and the
    # dequantised W are rounded to bfloat16 (8 significant bits each); float32 elsewhere
    s, w = session(4, threads=threads)
    a = np.random.default_rng(11).uniform(-1, 1, size=(40, K)).astype(np.float32)
    y = s.run(None, {"A": a})[0]
    bound = (np.abs(a) @ np.abs(w).T) * 2.0 ** -7 + 1e-5
    assert np.all(np.abs(y - a @ w.T) <= bound)


def test_bias_and_float16():
    bias = np.linspace(-1, 1, N).astype(np.float32)
    s, w = session(0, dtype=np.float16, bias=bias)
    a = np.random.default_rng(3).uniform(-1, 1, size=(5, K)).astype(np.float16)
    y = s.run(None, {"A": a})[0]
    assert y.dtype == np.float16
    np.testing.assert_allclose(y.astype(np.float32), a.astype(np.float32) @ w.T + bias, rtol=2e-2, atol=2e-2)
