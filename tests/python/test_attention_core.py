"""onyx's training attention (ai.onyx.training AttentionCore and AttentionCoreGrad) against
the same attention written out in float64 numpy, for query and key lengths and value widths
that differ and for the packed query | key | value form, at 1 and 2 threads; and the training
graph's fusion: an encoder's attention (and the Split of its projection) becomes AttentionCore
in the forward graph and AttentionCoreGrad in the backward, while a causal decoder's (which
AttentionCore does not cover) stays as exported."""
import os
import sys

import numpy as np
import pytest
from onnx import TensorProto, helper

import onyx

F = TensorProto.FLOAT


def session(op, inputs, outputs, threads, heads, scale):
    node = helper.make_node(op, list(inputs), outputs, domain="ai.onyx.training", num_heads=heads, scale=scale)
    graph = helper.make_graph([node], "g", [helper.make_tensor_value_info(k, F, list(v.shape)) for k, v in inputs.items()],
                              [helper.make_tensor_value_info(o, F, None) for o in outputs])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("ai.onyx.training", 1)])
    model.ir_version = 8
    so = onyx.SessionOptions()
    so.intra_op_num_threads = threads
    return onyx.InferenceSession(model.SerializeToString(), so)


def reference(q, k, v, dy, heads, scale):
    b, s, d = q.shape
    l, dv = k.shape[1], v.shape[2]
    h, hv = d // heads, dv // heads
    qh = q.reshape(b, s, heads, h).transpose(0, 2, 1, 3)
    kh = k.reshape(b, l, heads, h).transpose(0, 2, 1, 3)
    vh = v.reshape(b, l, heads, hv).transpose(0, 2, 1, 3)
    scores = scale * qh @ kh.transpose(0, 1, 3, 2)
    e = np.exp(scores - scores.max(axis=-1, keepdims=True))
    p = e / e.sum(axis=-1, keepdims=True)
    y = (p @ vh).transpose(0, 2, 1, 3).reshape(b, s, dv)
    dyh = dy.reshape(b, s, heads, hv).transpose(0, 2, 1, 3)
    dp = dyh @ vh.transpose(0, 1, 3, 2)
    g = p * (dp - (dp * p).sum(axis=-1, keepdims=True)) * scale
    merge = lambda t, n: t.transpose(0, 2, 1, 3).reshape(b, n, -1)  # noqa: E731
    return y, p, merge(g @ kh, s), merge(g.transpose(0, 1, 3, 2) @ qh, l), merge(p.transpose(0, 1, 3, 2) @ dyh, l)


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("b,s,l,heads,h,hv", [(2, 3, 5, 2, 4, 3), (1, 7, 7, 3, 8, 8)])
def test_forward_and_gradient_match_float64(threads, b, s, l, heads, h, hv):
    g = np.random.default_rng(s * 10 + l)
    q = g.standard_normal((b, s, heads * h)).astype(np.float32)
    k = g.standard_normal((b, l, heads * h)).astype(np.float32)
    v = g.standard_normal((b, l, heads * hv)).astype(np.float32)
    dy = g.standard_normal((b, s, heads * hv)).astype(np.float32)
    scale = 1 / np.sqrt(h)
    y, p = session("AttentionCore", {"q": q, "k": k, "v": v}, ["y", "probs"], threads, heads, scale).run(
        None, {"q": q, "k": k, "v": v})
    grads = session("AttentionCoreGrad", {"dy": dy, "q": q, "k": k, "v": v, "probs": p}, ["dq", "dk", "dv"], threads,
                    heads, scale).run(None, {"dy": dy, "q": q, "k": k, "v": v, "probs": p})
    want = reference(*(t.astype(np.float64) for t in (q, k, v, dy)), heads, scale)
    for name, got, w in zip(("y", "probs", "dq", "dk", "dv"), [y, p] + grads, want):
        assert got.shape == w.shape, name
        np.testing.assert_allclose(got, w, rtol=1e-5, atol=1e-5, err_msg=name)


@pytest.mark.parametrize("threads", [1, 2])
def test_the_packed_form_matches_float64(threads):
    heads, h, b, s = 2, 4, 2, 5
    g = np.random.default_rng(11)
    qkv = g.standard_normal((b, s, 3 * heads * h)).astype(np.float32)
    dy = g.standard_normal((b, s, heads * h)).astype(np.float32)
    scale = 0.3
    y, p = session("AttentionCore", {"qkv": qkv}, ["y", "probs"], threads, heads, scale).run(None, {"qkv": qkv})
    (dqkv,) = session("AttentionCoreGrad", {"dy": dy, "qkv": qkv, "probs": p}, ["dqkv"], threads, heads, scale).run(
        None, {"dy": dy, "qkv": qkv, "probs": p})
    q, k, v = np.split(qkv.astype(np.float64), 3, axis=-1)
    want = reference(q, k, v, dy.astype(np.float64), heads, scale)
    np.testing.assert_allclose(y, want[0], rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(p, want[1], rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(dqkv, np.concatenate(want[2:], axis=-1), rtol=1e-5, atol=1e-5)


def test_mismatched_shapes_are_refused():
    q = np.zeros((1, 2, 4), np.float32)
    k = np.zeros((1, 3, 6), np.float32)
    with pytest.raises(Exception, match="AttentionCore"):
        session("AttentionCore", {"q": q, "k": k, "v": k}, ["y", "probs"], 1, 2, 0.5).run(None, {"q": q, "k": k, "v": k})


def test_the_training_graphs_use_it_for_an_encoder_but_not_for_a_causal_decoder(tmp_path):
    torch = pytest.importorskip("torch")
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "bench"))
    import onnx
    from onyx.training.ortmodule import DebugOptions, ORTModule
    from training_models import Decoder, Encoder

    def ops_of(net, ids, prefix):
        wrapped = ORTModule(net, DebugOptions(save_onnx=True, onnx_prefix=prefix, save_path=str(tmp_path)))
        wrapped(torch.from_numpy(ids)).sum().backward()
        return [{n.op_type for n in onnx.load(str(tmp_path / f"{prefix}_0_{w}.onnx")).graph.node}
                for w in ("forward", "backward")]

    torch.manual_seed(0)
    ids = np.random.default_rng(0).integers(0, 20, (2, 6)).astype(np.int64)
    forward, backward = ops_of(Encoder(vocab=20, seq=6, hidden=16, heads=2, layers=1, classes=3), ids, "enc")
    assert "AttentionCore" in forward and not {"Softmax", "Transpose", "Split"} & forward
    assert "AttentionCoreGrad" in backward and "SoftmaxGrad" not in backward
    forward, backward = ops_of(Decoder(vocab=20, seq=6, hidden=12, heads=3, layers=1), ids, "dec")
    assert "AttentionCore" not in forward and "Softmax" in forward
