"""onyx.training.optim.FusedAdam: each of onnxruntime's three modes takes the step its reference
takes (torch.optim.AdamW, transformers' AdamW written out in float64, torch.optim.Adam's L2
weight decay), on the native path (float32 CPU) and on the torch path (float64, non-contiguous);
parameters without a gradient skip a step and keep their own step count; zero_grad sets None
unless told not to; bad hyperparameters are refused; ORTModule with FusedAdam trains as PyTorch
with AdamW. Needs PyTorch; skipped without it."""
import copy
import os
import sys

import numpy as np
import pytest

torch = pytest.importorskip("torch")
from onyx.training.optim import AdamWMode, FusedAdam  # noqa: E402

LR, BETAS, EPS, WD = 1e-2, (0.9, 0.99), 1e-6, 0.05


def params(dtype=torch.float32, transposed=False):
    torch.manual_seed(1)
    ps = [torch.nn.Parameter(torch.randn(37, 5, dtype=dtype)), torch.nn.Parameter(torch.randn(70001, dtype=dtype))]
    if transposed:  # a non-contiguous parameter
        ps.append(torch.nn.Parameter(torch.randn(6, 4, dtype=dtype).t()))
    return ps


def run(opt_ps, opt, steps=8, seed=2):
    gen = torch.Generator().manual_seed(seed)
    for _ in range(steps):
        for p in opt_ps:
            p.grad = torch.randn(p.shape, generator=gen, dtype=p.dtype)
        opt.step()
    return [p.detach().clone() for p in opt_ps]


def transformers_reference(ps, steps=8, seed=2):
    """transformers' AdamW in float64: eps on the uncorrected root, weight decay after the step."""
    gen = torch.Generator().manual_seed(seed)
    xs = [p.detach().double().clone() for p in ps]
    ms = [torch.zeros_like(x) for x in xs]
    vs = [torch.zeros_like(x) for x in xs]
    for t in range(1, steps + 1):
        for x, m, v, p in zip(xs, ms, vs, ps):
            g = torch.randn(p.shape, generator=gen, dtype=p.dtype).double()
            m.mul_(BETAS[0]).add_((1 - BETAS[0]) * g)
            v.mul_(BETAS[1]).add_((1 - BETAS[1]) * g * g)
            step_size = LR * (1 - BETAS[1] ** t) ** 0.5 / (1 - BETAS[0] ** t)
            x.sub_(step_size * m / (v.sqrt() + EPS))
            x.sub_(LR * WD * x)
    return xs


def close(a, b, rtol):
    for x, y in zip(a, b):
        np.testing.assert_allclose(x.double().numpy(), y.double().numpy(), rtol=rtol, atol=rtol * 1e-2)


@pytest.mark.parametrize("dtype,transposed", [(torch.float32, False), (torch.float64, True)])
def test_adamw_torch_mode_is_torch_adamw(dtype, transposed):
    ours, theirs = params(dtype, transposed), params(dtype, transposed)
    got = run(ours, FusedAdam(ours, lr=LR, betas=BETAS, eps=EPS, weight_decay=WD, adam_w_mode=AdamWMode.ADAMW_TORCH))
    want = run(theirs, torch.optim.AdamW(theirs, lr=LR, betas=BETAS, eps=EPS, weight_decay=WD))
    close(got, want, 1e-5 if dtype == torch.float32 else 1e-12)


@pytest.mark.parametrize("dtype,transposed", [(torch.float32, False), (torch.float64, True)])
def test_l2_mode_is_torch_adam_with_weight_decay(dtype, transposed):
    ours, theirs = params(dtype, transposed), params(dtype, transposed)
    got = run(ours, FusedAdam(ours, lr=LR, betas=BETAS, eps=EPS, weight_decay=WD,
                              adam_w_mode=AdamWMode.ADAM_L2_REGULARIZATION))
    want = run(theirs, torch.optim.Adam(theirs, lr=LR, betas=BETAS, eps=EPS, weight_decay=WD))
    close(got, want, 1e-5 if dtype == torch.float32 else 1e-12)


@pytest.mark.parametrize("dtype,transposed", [(torch.float32, False), (torch.float64, True)])
def test_transformers_mode_is_transformers_adamw(dtype, transposed):
    ours = params(dtype, transposed)
    want = transformers_reference(params(dtype, transposed))
    got = run(ours, FusedAdam(ours, lr=LR, betas=BETAS, eps=EPS, weight_decay=WD))  # the default mode
    close(got, want, 1e-5 if dtype == torch.float32 else 1e-12)


def test_a_parameter_without_a_gradient_skips_the_step_and_keeps_its_count():
    a, b = torch.nn.Parameter(torch.ones(4)), torch.nn.Parameter(torch.ones(4))
    opt = FusedAdam([a, b], lr=0.1, adam_w_mode=AdamWMode.ADAMW_TORCH)
    a.grad = torch.ones(4)
    opt.step()
    assert torch.equal(b.detach(), torch.ones(4)) and "step" not in opt.state[b]
    b.grad = torch.ones(4)
    opt.step()
    assert opt.state[a]["step"] == 2 and opt.state[b]["step"] == 1
    # b's first step equals a's first step: lr * 1 / (1 + eps) off 1
    np.testing.assert_allclose(b.detach().numpy(), np.full(4, 1 - 0.1 / (1 + 1e-6), np.float32), rtol=1e-6)


def test_zero_grad_sets_none_unless_told_not_to():
    p = torch.nn.Parameter(torch.ones(3))
    p.grad = torch.ones(3)
    FusedAdam([p]).zero_grad()
    assert p.grad is None
    p.grad = torch.ones(3)
    FusedAdam([p], set_grad_none=False).zero_grad()
    assert p.grad is not None and torch.equal(p.grad, torch.zeros(3))


@pytest.mark.parametrize("kwargs", [dict(lr=-1.0), dict(betas=(1.0, 0.9)), dict(eps=-1.0), dict(weight_decay=-0.1)])
def test_bad_hyperparameters_are_refused(kwargs):
    with pytest.raises(ValueError):
        FusedAdam([torch.nn.Parameter(torch.ones(2))], **kwargs)


def test_ortmodule_with_fused_adam_trains_as_pytorch_with_adamw():
    from onyx.training.ortmodule import ORTModule

    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bench"))
    from training_models import Mlp

    torch.manual_seed(0)
    theirs = Mlp([64, 32, 10])
    ours = ORTModule(copy.deepcopy(theirs))
    opt_t = torch.optim.AdamW(theirs.parameters(), lr=1e-3, eps=1e-6, weight_decay=0.01)
    opt_o = FusedAdam(ours.parameters(), lr=1e-3, eps=1e-6, weight_decay=0.01, adam_w_mode=AdamWMode.ADAMW_TORCH)
    gen = torch.Generator().manual_seed(3)
    for step in range(20):
        x = torch.randn(16, 64, generator=gen)
        y = torch.randint(0, 10, (16,), generator=gen)
        losses = []
        for model, opt in ((theirs, opt_t), (ours, opt_o)):
            opt.zero_grad()
            loss = torch.nn.functional.cross_entropy(model(x), y)
            loss.backward()
            opt.step()
            losses.append(loss.item())
        assert abs(losses[0] - losses[1]) <= 1e-4 * abs(losses[0]), (step, losses)
