"""ORTModule follows changes to the module's state that its graphs hold as constants: buffers
loaded or written between calls, and the weights an eval export folds in, which every training
step changes. A graph holding stale values is exported again, with the reason; a write of the
same values is not a change. Needs PyTorch; skipped without it."""
import copy

import numpy as np
import pytest

torch = pytest.importorskip("torch")
from onyx.training.ortmodule import ORTModule  # noqa: E402


def conv_net():
    torch.manual_seed(0)
    return torch.nn.Sequential(torch.nn.Conv2d(3, 4, 3), torch.nn.BatchNorm2d(4), torch.nn.ReLU(),
                               torch.nn.Flatten(), torch.nn.Linear(4 * 36, 3))


def test_a_checkpoint_loaded_after_the_first_call_is_used():
    net = conv_net()
    net[1].eval()  # a frozen batch norm: its statistics are constants of the training graph
    wrapped = ORTModule(net)
    x = torch.randn(2, 3, 8, 8)
    wrapped(x)
    checkpoint = copy.deepcopy(net)
    checkpoint[1].running_mean.uniform_(-1, 1)
    checkpoint[1].running_var.uniform_(0.5, 2)
    net.load_state_dict(checkpoint.state_dict())
    np.testing.assert_allclose(wrapped(x).detach().numpy(), checkpoint(x).detach().numpy(), rtol=1e-5, atol=1e-5)
    assert wrapped.export_count == 2
    assert wrapped.export_reasons[1].startswith("buffer '1.running_")
    net[1].running_mean.copy_(net[1].running_mean.clone())  # the same values written: no change
    wrapped(x)
    assert wrapped.export_count == 2


def test_evaluation_between_training_epochs_sees_the_trained_weights():
    net = conv_net()
    wrapped = ORTModule(net)
    opt = torch.optim.SGD(net.parameters(), lr=1e-2)
    g = torch.Generator().manual_seed(1)
    x, y = torch.randn(4, 3, 8, 8, generator=g), torch.randint(0, 3, (4,), generator=g)
    for epoch in range(3):
        wrapped.train()
        for _ in range(2):
            opt.zero_grad()
            torch.nn.functional.cross_entropy(wrapped(x), y).backward()
            opt.step()
        wrapped.eval()
        with torch.no_grad():
            np.testing.assert_allclose(wrapped(x).numpy(), net(x).numpy(), rtol=1e-4, atol=1e-5)
            np.testing.assert_allclose(wrapped(x).numpy(), net(x).numpy(), rtol=1e-4, atol=1e-5)
    # One training export, and an eval export for each epoch (the weights it folds changed);
    # the training graph, whose weights are fed, never went stale.
    assert wrapped.export_count == 4
    assert all("changed since the export" in r for r in wrapped.export_reasons[2:])
