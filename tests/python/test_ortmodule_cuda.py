"""ORTModule on a CUDA GPU: a module whose parameters and batches are on the GPU trains through
onyx's CUDA provider step for step as PyTorch does on the same GPU; tensors cross between torch
and onyx through DLPack without copies, both ways; moving the module exports it again.
Skipped without a CUDA build of onyx, a GPU and a CUDA build of PyTorch."""
import copy
import os
import sys

import numpy as np
import pytest

torch = pytest.importorskip("torch")
import onyx  # noqa: E402
from onyx.training.ortmodule import ORTModule, ORTModuleExportError  # noqa: E402

pytestmark = pytest.mark.skipif(
    not torch.cuda.is_available() or "CUDAExecutionProvider" not in onyx.get_available_providers(),
    reason="needs a CUDA GPU, PyTorch built with CUDA and onyx's CUDA provider")

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bench"))
from training_models import Encoder, Mlp, TinyCnn  # noqa: E402

GPU = torch.device("cuda", 0)


@pytest.fixture(autouse=True)
def exact_float32_products():
    """PyTorch may multiply float32 in TF32 on the GPU if told to; onyx never does."""
    saved = torch.backends.cuda.matmul.allow_tf32, torch.backends.cudnn.allow_tf32
    torch.backends.cuda.matmul.allow_tf32 = torch.backends.cudnn.allow_tf32 = False
    yield
    torch.backends.cuda.matmul.allow_tf32, torch.backends.cudnn.allow_tf32 = saved


def twins_on_gpu(make):
    torch.manual_seed(0)
    theirs = make().to(GPU)
    ours = copy.deepcopy(theirs)
    return theirs, ours, ORTModule(ours)


def train_both(theirs, ours, wrapped, data, steps, lr):
    """(their losses, our losses, largest gradient gap relative to the gradient's scale)."""
    opts = [torch.optim.AdamW(m.parameters(), lr=lr, eps=1e-6, weight_decay=0.0) for m in (theirs, ours)]
    a, b, gap = [], [], 0.0
    for step in range(steps):
        x, y = data[step % len(data)]
        for module, opt, losses in ((theirs, opts[0], a), (wrapped, opts[1], b)):
            opt.zero_grad()
            loss = torch.nn.functional.cross_entropy(module(x), y)
            loss.backward()
            losses.append(float(loss))
        for (name, p), q in zip(theirs.named_parameters(), ours.parameters()):
            assert (p.grad is None) == (q.grad is None), name
            if q.grad is not None:
                assert q.grad.device == GPU, f"{name}'s gradient came back on {q.grad.device}"
                gap = max(gap, float((p.grad - q.grad).abs().max() / (p.grad.abs().max() + 1e-12)))
        for opt in opts:
            opt.step()
    return np.array(a), np.array(b), gap


def test_an_mlp_on_the_gpu_trains_as_pytorch_does_there():
    theirs, ours, wrapped = twins_on_gpu(lambda: Mlp([20, 16, 16, 4]))
    g = torch.Generator().manual_seed(1)
    data = [(torch.randn(8, 20, generator=g).to(GPU), torch.randint(0, 4, (8,), generator=g).to(GPU))
            for _ in range(4)]
    a, b, gap = train_both(theirs, ours, wrapped, data, 100, 1e-2)
    np.testing.assert_allclose(b, a, rtol=1e-4)
    assert gap < 1e-4
    assert b[-1] < 0.5 * b[0], "the loss falls"
    for p, q in zip(theirs.parameters(), ours.parameters()):
        assert q.device == GPU
        np.testing.assert_allclose(q.detach().cpu().numpy(), p.detach().cpu().numpy(), rtol=1e-3, atol=1e-5)
    assert wrapped.export_count == 1


def test_a_bert_like_encoder_on_the_gpu_trains_as_pytorch_does_there():
    theirs, ours, wrapped = twins_on_gpu(lambda: Encoder(vocab=30, seq=6, hidden=16, heads=2, layers=2, classes=3))
    g = np.random.default_rng(5)
    data = [(torch.from_numpy(g.integers(0, 30, (4, 6))).to(GPU), torch.from_numpy(g.integers(0, 3, 4)).to(GPU))
            for _ in range(3)]
    a, b, gap = train_both(theirs, ours, wrapped, data, 30, 5e-3)
    np.testing.assert_allclose(b, a, rtol=1e-4)
    assert gap < 1e-3


def test_batch_norm_on_the_gpu_keeps_running_statistics_as_pytorch_does():
    theirs, ours, wrapped = twins_on_gpu(TinyCnn)
    g = torch.Generator().manual_seed(3)
    data = [(torch.randn(4, 3, 16, 16, generator=g).to(GPU), torch.randint(0, 5, (4,), generator=g).to(GPU))
            for _ in range(3)]
    a, b, _ = train_both(theirs, ours, wrapped, data, 10, 3e-3)
    np.testing.assert_allclose(b, a, rtol=1e-4)
    for (name, p), q in zip(theirs.named_buffers(), ours.buffers()):
        if "running" in name:
            assert q.device == GPU
            np.testing.assert_allclose(q.cpu().numpy(), p.cpu().numpy(), rtol=1e-5, atol=1e-6)


def test_tensors_cross_to_onyx_and_back_without_copies():
    from onyx.training.ortmodule import _to_onyx, _to_torch

    t = torch.arange(12, dtype=torch.float32, device=GPU).reshape(3, 4)
    v = _to_onyx(t)
    assert v.device_name().lower() == "cuda"
    assert v.data_ptr() == t.data_ptr(), "the feed is the torch tensor's own memory"
    back = _to_torch(v)
    assert back.device == GPU and back.data_ptr() == t.data_ptr()

    # An output onyx made on the GPU reaches torch on the GPU.
    theirs, ours, wrapped = twins_on_gpu(lambda: Mlp([6, 5, 3]))
    x = torch.randn(2, 6, device=GPU)
    out = wrapped(x)
    assert out.device == GPU
    np.testing.assert_allclose(out.detach().cpu().numpy(), theirs(x).detach().cpu().numpy(), rtol=1e-5, atol=1e-6)


def test_moving_the_module_to_the_gpu_exports_it_again_and_gives_the_same_outputs():
    torch.manual_seed(0)
    net = Mlp([6, 5, 3])
    wrapped = ORTModule(net)
    x = torch.randn(4, 6)
    on_cpu = wrapped(x).detach()
    net.to(GPU)
    on_gpu = wrapped(x.to(GPU)).detach()
    assert wrapped.export_count == 2
    assert on_gpu.device == GPU
    np.testing.assert_allclose(on_gpu.cpu().numpy(), on_cpu.numpy(), rtol=1e-5, atol=1e-6)
    net.to("cpu")  # back where it was: the CPU graphs are kept, not exported again
    np.testing.assert_allclose(wrapped(x).detach().numpy(), on_cpu.numpy(), rtol=0)
    assert wrapped.export_count == 2, wrapped.export_reasons


def test_parameters_and_inputs_on_different_devices_are_refused_naming_the_module():
    torch.manual_seed(0)
    wrapped = ORTModule(Mlp([6, 5, 3]).to(GPU))
    with pytest.raises(ORTModuleExportError, match="Mlp"):
        wrapped(torch.randn(4, 6))  # the batch left on the CPU
