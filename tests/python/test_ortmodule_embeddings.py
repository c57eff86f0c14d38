"""Embeddings under ORTModule as PyTorch trains them: lookups at padding_idx add nothing to the
weight's gradient, while the weight's other uses (an output projection tied to it) still do;
sparse gradients and scale_grad_by_freq, which onyx does not compute, are refused by name.
Needs PyTorch; skipped without it."""
import copy

import numpy as np
import pytest

torch = pytest.importorskip("torch")
from onyx.training.ortmodule import ORTModule, ORTModuleExportError  # noqa: E402


class TiedWithPadding(torch.nn.Module):
    """Token embeddings with padding_idx 0, a hidden layer, and logits through the same weight."""

    def __init__(self, vocab=12, width=6):
        super().__init__()
        self.tok = torch.nn.Embedding(vocab, width, padding_idx=0)
        self.mix = torch.nn.Linear(width, width)

    def forward(self, ids):
        h = torch.tanh(self.mix(self.tok(ids)))
        return h @ self.tok.weight.t()


def test_padding_lookups_add_no_gradient_and_tied_uses_still_do():
    torch.manual_seed(0)
    theirs = TiedWithPadding()
    ours = copy.deepcopy(theirs)
    wrapped = ORTModule(ours)
    ids = torch.tensor([[0, 3, 5, 0, 7], [2, 0, 0, 9, 11]])
    target = torch.randint(0, 12, (10,))
    opt_theirs, opt_ours = (torch.optim.SGD(m.parameters(), lr=0.1) for m in (theirs, ours))
    for _ in range(20):
        for module, opt in ((theirs, opt_theirs), (wrapped, opt_ours)):
            opt.zero_grad()
            torch.nn.functional.cross_entropy(module(ids).reshape(10, -1), target).backward()
        for (name, p), q in zip(theirs.named_parameters(), ours.parameters()):
            np.testing.assert_allclose(q.grad.numpy(), p.grad.numpy(), rtol=1e-5, atol=1e-6, err_msg=name)
        opt_theirs.step()
        opt_ours.step()
    # Row 0's gradient is the tied projection's alone, not zero: padding did not silence the row.
    assert float(ours.tok.weight.grad[0].abs().max()) > 0


def test_an_untied_padding_row_keeps_its_value():
    torch.manual_seed(0)
    net = torch.nn.Sequential(torch.nn.Embedding(8, 4, padding_idx=2), torch.nn.Flatten(), torch.nn.Linear(12, 3))
    wrapped = ORTModule(net)
    opt = torch.optim.SGD(net.parameters(), lr=0.5)
    before = net[0].weight[2].detach().clone()
    for _ in range(5):
        opt.zero_grad()
        wrapped(torch.tensor([[2, 1, 2], [2, 5, 7]])).pow(2).sum().backward()
        opt.step()
    assert torch.equal(net[0].weight[2], before)


@pytest.mark.parametrize("kwargs, message", [({"sparse": True}, "sparse=True"),
                                             ({"scale_grad_by_freq": True}, "scale_grad_by_freq=True")])
def test_gradients_onyx_does_not_compute_are_refused(kwargs, message):
    net = torch.nn.Sequential(torch.nn.Embedding(8, 4, **kwargs), torch.nn.Flatten(), torch.nn.Linear(12, 3))
    with pytest.raises(ORTModuleExportError, match=f"Sequential.*{message}"):
        ORTModule(net)(torch.tensor([[1, 2, 3]]))
