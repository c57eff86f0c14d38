"""Losses computed inside an ORTModule-wrapped module give PyTorch's values and gradients,
including forms torch.onnx (1.13) cannot export, which ORTModule writes itself: cross entropy
with label smoothing (with ignore_index, every reduction), mse, l1, smooth l1 and huber.
Needs PyTorch; skipped without it."""
import copy

import numpy as np
import pytest

torch = pytest.importorskip("torch")
F = torch.nn.functional
from onyx.training.ortmodule import ORTModule, ORTModuleExportError  # noqa: E402

LOSSES = {
    "cross entropy, label smoothing": lambda out, y: F.cross_entropy(out, y, label_smoothing=0.1),
    "... with ignore_index": lambda out, y: F.cross_entropy(out, y, label_smoothing=0.2, ignore_index=0),
    "... summed": lambda out, y: F.cross_entropy(out, y, label_smoothing=0.1, reduction="sum"),
    "... per sample": lambda out, y: F.cross_entropy(out, y, label_smoothing=0.1, reduction="none"),
    "cross entropy with class weights": lambda out, y: F.cross_entropy(out, y, weight=torch.arange(6.) + 1),
    "mse": lambda out, y: F.mse_loss(out, F.one_hot(y, 6).float()),
    "l1, summed": lambda out, y: F.l1_loss(out, F.one_hot(y, 6).float(), reduction="sum"),
    "smooth l1": lambda out, y: F.smooth_l1_loss(out, F.one_hot(y, 6).float(), beta=0.5),
    "huber": lambda out, y: F.huber_loss(out, F.one_hot(y, 6).float(), delta=0.7),
}


class WithLoss(torch.nn.Module):
    def __init__(self, loss):
        super().__init__()
        self.lin, self.loss = torch.nn.Linear(5, 6), loss

    def forward(self, x, y):
        return self.loss(self.lin(x), y)


@pytest.mark.parametrize("name", list(LOSSES))
def test_loss_inside_the_module(name):
    torch.manual_seed(0)
    theirs = WithLoss(LOSSES[name])
    ours = copy.deepcopy(theirs)
    wrapped = ORTModule(ours)
    x, y = torch.randn(7, 5), torch.tensor([1, 0, 5, 2, 0, 3, 4])
    expected, got = theirs(x, y), wrapped(x, y)
    np.testing.assert_allclose(got.detach().numpy(), expected.detach().numpy(), rtol=1e-5, atol=1e-6)
    weights = torch.randn(expected.shape)
    (expected * weights).sum().backward()
    (got * weights).sum().backward()
    for p, q in zip(theirs.parameters(), ours.parameters()):
        np.testing.assert_allclose(q.grad.numpy(), p.grad.numpy(), rtol=1e-5, atol=1e-6)


def test_label_smoothing_with_class_weights_is_refused():
    module = WithLoss(lambda out, y: F.cross_entropy(out, y, weight=torch.ones(6), label_smoothing=0.1))
    with pytest.raises(ORTModuleExportError, match="class weights and label smoothing"):
        ORTModule(module)(torch.randn(3, 5), torch.tensor([1, 2, 3]))
