"""ORTModule runs custom torch.autograd.Functions (those without their own `symbolic`) through
onyx's bridge: each call is one ai.onyx.torch PythonOp node whose gradient is the Function's
own backward (PythonOpGrad), so training matches PyTorch's step for step even where that
backward is not the derivative of the forward. Contexts the calls keep never outlive their
step. Needs PyTorch; skipped without it."""
import copy
import gc

import numpy as np
import pytest

torch = pytest.importorskip("torch")
from onyx.training.ortmodule import ORTModule, _custom_function  # noqa: E402


class ClampWithSlope(torch.autograd.Function):
    """clamp(x * scale, -1, 1) forward; backward as if unclamped, times (1 + tanh(x) / 10): a
    straight-through estimator, not the forward's derivative (which is 0 where it clamps)."""

    @staticmethod
    def forward(ctx, x, scale):
        ctx.save_for_backward(x)
        ctx.scale = scale
        return torch.clamp(x * scale, -1, 1)

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g * ctx.scale * (1 + 0.1 * torch.tanh(x)), None


class GatedPair(torch.autograd.Function):
    """Two outputs from a float input, a float buffer that needs no gradient and an int64 index
    tensor; the backward scales the second output's gradient by `weight` (a constant)."""

    @staticmethod
    def forward(ctx, x, gate, index, weight):
        ctx.save_for_backward(gate, index)
        ctx.weight = weight
        return x * gate, x.index_select(-1, index)

    @staticmethod
    def backward(ctx, g_scaled, g_picked):
        gate, index = ctx.saved_tensors
        g = g_scaled * gate
        if g_picked is not None:
            g = g.index_add(-1, index, g_picked * ctx.weight)
        return g, None, None, None


class WithFunctions(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.a = torch.nn.Linear(6, 8)
        self.b = torch.nn.Linear(8 + 3, 8)
        self.head = torch.nn.Linear(8, 4)
        self.register_buffer("gate", torch.linspace(0.5, 1.5, 8))
        self.register_buffer("index", torch.tensor([0, 5, 7]))

    def forward(self, x):
        h = ClampWithSlope.apply(self.a(x), 3.0)
        scaled, picked = GatedPair.apply(h, self.gate, self.index, 0.25)
        h = ClampWithSlope.apply(self.b(torch.cat([scaled, picked], dim=-1)), 2.0)  # a second call site
        return self.head(h)


def twins():
    torch.manual_seed(0)
    theirs = WithFunctions()
    ours = copy.deepcopy(theirs)
    return theirs, ours, ORTModule(ours)


def test_custom_functions_train_step_for_step_as_in_pytorch():
    theirs, ours, wrapped = twins()
    g = torch.Generator().manual_seed(1)
    data = [(torch.randn(16, 6, generator=g) * 2, torch.randint(0, 4, (16,), generator=g)) for _ in range(4)]
    opt_theirs = torch.optim.AdamW(theirs.parameters(), lr=1e-2)
    opt_ours = torch.optim.AdamW(ours.parameters(), lr=1e-2)
    clamped = 0
    for step in range(100):
        x, y = data[step % 4]
        losses = []
        for module, opt in ((theirs, opt_theirs), (wrapped, opt_ours)):
            opt.zero_grad()
            loss = torch.nn.functional.cross_entropy(module(x), y)
            loss.backward()
            losses.append(float(loss))
        np.testing.assert_allclose(losses[1], losses[0], rtol=1e-4)
        for (name, p), q in zip(theirs.named_parameters(), ours.parameters()):
            np.testing.assert_allclose(q.grad.numpy(), p.grad.numpy(), rtol=1e-4, atol=1e-6, err_msg=name)
        opt_theirs.step()
        opt_ours.step()
        assert _custom_function.context_count() == 0
        with torch.no_grad():
            clamped += int((theirs.a(x).abs() * 3.0 > 1).sum())
    # The clamp saturates often, so differentiating the forward instead would have differed.
    assert clamped > 1000
    assert wrapped.export_count == 1


def test_inference_and_eval_keep_no_contexts():
    theirs, _, wrapped = twins()
    x = torch.randn(5, 6)
    with torch.no_grad():
        np.testing.assert_allclose(wrapped(x).numpy(), theirs(x).numpy(), rtol=1e-5, atol=1e-6)
    wrapped.eval()
    theirs.eval()
    np.testing.assert_allclose(wrapped(x).detach().numpy(), theirs(x).detach().numpy(), rtol=1e-5, atol=1e-6)
    assert _custom_function.context_count() == 0


def test_a_forward_without_backward_releases_its_contexts():
    _, _, wrapped = twins()
    out = wrapped(torch.randn(4, 6))
    assert _custom_function.context_count() == 3  # three call sites, each keeping one for its backward
    del out
    gc.collect()
    assert _custom_function.context_count() == 0


class FailsOnOddBatches(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        if x.shape[0] % 2:
            raise ValueError("odd batch sizes are not handled")
        return x * 2

    @staticmethod
    def backward(ctx, g):
        return g * 2


def test_an_exception_in_the_function_names_it():
    class Net(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = torch.nn.Linear(3, 3)

        def forward(self, x):
            return FailsOnOddBatches.apply(self.lin(x))

    wrapped = ORTModule(Net())
    wrapped(torch.randn(2, 3)).sum().backward()  # exported with an even batch; dims stay dynamic
    with pytest.raises(Exception, match="FailsOnOddBatches.*odd batch sizes are not handled"):
        wrapped(torch.randn(3, 3))
    assert wrapped.export_count == 1
    gc.collect()
    assert _custom_function.context_count() == 0


def test_a_python_op_outside_its_process_is_refused_with_a_clear_error():
    from onnx import TensorProto, helper

    import onyx

    def model(func_key):
        node = helper.make_node("PythonOp", ["x"], ["ctx", "y"], domain="ai.onyx.torch", func_key=func_key,
                                training=0, output_types=[1], output_ranks=[1])
        node.attribute.append(helper.make_attribute("name", "Elsewhere"))
        graph = helper.make_graph([node], "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])],
                                  [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])])
        made = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17),
                                                       helper.make_opsetid("ai.onyx.torch", 1)])
        made.ir_version = 8  # onnx 1.23's helper writes IR 14, which onyx does not read yet (issue 44)
        return made.SerializeToString()

    session = onyx.InferenceSession(model(10**9))
    with pytest.raises(Exception, match="Elsewhere.*no custom torch.autograd.Function is registered under func_key"):
        session.run(None, {"x": np.zeros(2, np.float32)})
    with pytest.raises(Exception, match="no func_key"):
        onyx.InferenceSession(model(-1))


class RoundedCopy(torch.autograd.Function):
    """Two outputs, the second marked non-differentiable (a rounded copy the module still uses)."""

    @staticmethod
    def forward(ctx, x):
        rounded = torch.round(x * 4) / 4
        ctx.mark_non_differentiable(rounded)
        return x * 3, rounded

    @staticmethod
    def backward(ctx, g, _):
        return g * 3


def test_a_non_differentiable_output_gives_no_gradient():
    class Net(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = torch.nn.Linear(3, 3)

        def forward(self, x):
            scaled, rounded = RoundedCopy.apply(self.lin(x))
            return scaled.sum() + (rounded * x).sum()

    torch.manual_seed(0)
    theirs = Net()
    ours = copy.deepcopy(theirs)
    x = torch.randn(4, 3)
    theirs(x).backward()
    ORTModule(ours)(x).backward()
    for p, q in zip(theirs.parameters(), ours.parameters()):
        np.testing.assert_allclose(q.grad.numpy(), p.grad.numpy(), rtol=1e-5, atol=1e-6)
    gc.collect()
    assert _custom_function.context_count() == 0


def test_exporting_again_reuses_the_recorded_calls():
    _, _, wrapped = twins()
    wrapped(torch.randn(4, 6)).sum().backward()
    recorded = len(_custom_function._calls)
    wrapped(torch.randn(4, 6, dtype=torch.float64).float().unsqueeze(0))  # another rank: exported again
    with torch.no_grad():
        wrapped(torch.randn(4, 6))  # and for inference
    assert wrapped.export_count == 3 and len(_custom_function._calls) == recorded
