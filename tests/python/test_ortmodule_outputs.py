"""ORTModule's outputs as PyTorch gives them: one tensor returned twice (its gradient is the sum
of both uses), an input returned as it came, an integer output beside float ones, and
parameters the forward never reads, whose .grad stays None. Needs PyTorch; skipped without it."""
import copy

import numpy as np
import pytest

torch = pytest.importorskip("torch")
from onyx.training.ortmodule import ORTModule  # noqa: E402


class ManyOutputs(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.used = torch.nn.Linear(4, 4)
        self.unused = torch.nn.Linear(4, 4)

    def forward(self, x, z):
        y = self.used(x)
        return y, y, z, y.argmax(-1), x


def test_repeated_passed_through_and_integer_outputs_get_pytorchs_gradients():
    torch.manual_seed(0)
    theirs = ManyOutputs()
    ours = copy.deepcopy(theirs)
    wrapped = ORTModule(ours)
    x, z = torch.randn(3, 4), torch.randn(3, 4)
    leaves = [[t.clone().requires_grad_() for t in (x, z)] for _ in range(2)]
    results = []
    for module, (xi, zi) in zip((theirs, wrapped), leaves):
        outs = module(xi, zi)
        loss = outs[0].sum() + 2 * outs[1].pow(2).sum() + 3 * outs[2].sum() + outs[4].pow(2).sum()
        loss.backward()
        results.append(outs)
    for a, b in zip(*results):
        assert a.dtype == b.dtype and a.shape == b.shape
        np.testing.assert_allclose(b.detach().numpy(), a.detach().numpy(), rtol=1e-6)
    assert results[1][3].requires_grad is False
    for a, b in zip(*leaves):
        np.testing.assert_allclose(b.grad.numpy(), a.grad.numpy(), rtol=1e-5, atol=1e-6)
    for (name, p), q in zip(theirs.named_parameters(), ours.parameters()):
        assert (p.grad is None) == (q.grad is None), name
        if p.grad is not None:
            np.testing.assert_allclose(q.grad.numpy(), p.grad.numpy(), rtol=1e-5, atol=1e-6, err_msg=name)
    assert ours.unused.weight.grad is None
