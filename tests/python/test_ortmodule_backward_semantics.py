"""ORTModule's backward keeps PyTorch's rules: with retain_graph=True a second backward gives
PyTorch's gradients (custom Functions included), without it torch's own error; a backward that
asks for a differentiable gradient (create_graph=True) is refused rather than given a constant
one; torch.autocast is part of what the graphs are made for; activation checkpointing trains in
its non-reentrant form and the reentrant one, which torch.onnx cannot trace, is refused with the
way out. Needs PyTorch."""
import copy

import numpy as np
import pytest

torch = pytest.importorskip("torch")
from onyx.training.ortmodule import ORTModule, ORTModuleExportError, _custom_function  # noqa: E402


class Doubled(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x * 2

    @staticmethod
    def backward(ctx, g):
        return g * 3  # not the forward's derivative, so the test sees which one ran


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.a = torch.nn.Linear(4, 8)
        self.b = torch.nn.Linear(8, 2)

    def forward(self, x):
        return self.b(Doubled.apply(torch.nn.functional.gelu(self.a(x))))


def pair():
    torch.manual_seed(0)
    theirs = Net()
    ours = copy.deepcopy(theirs)
    return theirs, ours, ORTModule(ours)


def test_retain_graph_gives_a_second_backward_and_its_absence_torchs_error():
    theirs, ours, wrapped = pair()
    x = torch.randn(3, 4)
    for module in (theirs, wrapped):
        loss = module(x).pow(2).sum()
        loss.backward(retain_graph=True)
        loss.backward()
    for p, q in zip(theirs.parameters(), ours.parameters()):
        np.testing.assert_allclose(q.grad.numpy(), p.grad.numpy(), rtol=1e-5, atol=1e-6)
    del loss
    assert _custom_function.context_count() == 0
    loss = wrapped(x).sum()
    loss.backward()
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        loss.backward()


def test_create_graph_is_refused():
    _, _, wrapped = pair()
    x = torch.randn(3, 4, requires_grad=True)
    with pytest.raises(RuntimeError, match="create_graph=True"):
        torch.autograd.grad(wrapped(x).sum(), x, create_graph=True)


def test_autocast_is_part_of_the_graphs_key():
    theirs, _, wrapped = pair()
    x = torch.randn(3, 4)
    with torch.no_grad():
        wrapped(x)
        with torch.autocast("cpu", dtype=torch.bfloat16):
            ours, expected = wrapped(x), theirs(x)
        assert ours.dtype == expected.dtype == torch.bfloat16
        np.testing.assert_allclose(ours.float().numpy(), expected.float().numpy(), rtol=2e-2, atol=2e-2)
        assert wrapped(x).dtype == torch.float32
    assert wrapped.export_count == 2 and "autocast" in wrapped.export_reasons[1]
    with torch.autocast("cpu", dtype=torch.bfloat16), pytest.raises(ORTModuleExportError, match="Net.*bfloat16"):
        wrapped(x)  # training in bfloat16: onyx has no bfloat16 gradients, and says so naming the module


def test_activation_checkpointing_without_reentrance_trains_and_the_reentrant_form_is_refused():
    from torch.utils.checkpoint import checkpoint

    class Checkpointed(torch.nn.Module):
        def __init__(self, reentrant):
            super().__init__()
            self.reentrant = reentrant
            self.a = torch.nn.Linear(6, 8)
            self.block = torch.nn.Sequential(torch.nn.Linear(8, 8), torch.nn.GELU(), torch.nn.Linear(8, 8))

        def forward(self, x):
            return checkpoint(self.block, self.a(x), use_reentrant=self.reentrant)

    torch.manual_seed(0)
    theirs = Checkpointed(False)
    ours = copy.deepcopy(theirs)
    x = torch.randn(4, 6)
    theirs(x).pow(2).sum().backward()
    ORTModule(ours)(x).pow(2).sum().backward()
    for p, q in zip(theirs.parameters(), ours.parameters()):
        np.testing.assert_allclose(q.grad.numpy(), p.grad.numpy(), rtol=1e-5, atol=1e-6)
    with pytest.raises(ORTModuleExportError, match="Checkpointed.*reentrant.*use_reentrant=False"):
        ORTModule(Checkpointed(True))(x)
