#!/usr/bin/python3
"""How far apart float32 training runs drift, to read the loss-equality figures by: the same
AdamW loop (onnxruntime's defaults, lr 1e-3, fixed synthetic batches, the models of
bench/training_models.py), or plain SGD (lr 1e-3) with --optim sgd, in PyTorch float32,
PyTorch float64 and onyx (float32), for N steps; prints the relative loss difference of each
pair at a few steps, then how far the parameters end apart (the largest, over the parameter
tensors, of max |a - b| / max |b|):

    PYTHONPATH=build/python /usr/bin/python3 bench/training_drift.py [--models mlp,bert] [--steps 100]
        [--optim adamw|sgd]

If onyx-vs-PyTorch (both float32) drifts about as much as PyTorch float32 drifts from PyTorch
float64, the difference is float32 rounding amplified by training, not a wrong gradient.
"""
import argparse
import os
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)


def torch_optimizer(net, optim):
    import torch

    if optim == "sgd":
        return torch.optim.SGD(net.parameters(), lr=1e-3)
    return torch.optim.AdamW(net.parameters(), lr=1e-3, betas=(0.9, 0.999), eps=1e-6, weight_decay=0.0)


def torch_losses(name, batches, steps, dtype, perturb=0.0, exact_loss=None, optim="adamw", params=None):
    """The loop's losses. `perturb`: scale every starting weight by (1 + perturb * N(0, 1)), a
    float32-rounding-sized nudge to measure how much the trajectory itself amplifies rounding.
    `exact_loss`: a list that receives each step's loss recomputed in float64 from the same
    (float32) weights, to separate the loss's own rounding from the trajectory's. `params`: a
    dict that receives the final parameters by name (float64 numpy arrays)."""
    import copy

    import torch
    import training_models

    torch.manual_seed(0)
    torch.set_flush_denormal(True)
    net, _, _ = training_models.MODELS[name]()
    net = net.to(dtype)
    if perturb:
        g = torch.Generator().manual_seed(7)
        with torch.no_grad():
            for p in net.parameters():
                p.mul_(1 + perturb * torch.randn(p.shape, generator=g, dtype=dtype))
    net.train()
    opt = torch_optimizer(net, optim)
    losses = []
    for s in range(steps):
        x, y = batches[s % len(batches)]
        x = torch.from_numpy(x)
        if x.is_floating_point():
            x = x.to(dtype)
        if exact_loss is not None:
            wide = copy.deepcopy(net).to(torch.float64)  # same weights, same batch-norm statistics
            wide_x = x.to(torch.float64) if x.is_floating_point() else x
            with torch.no_grad():
                exact_loss.append(float(torch.nn.functional.cross_entropy(wide(wide_x), torch.from_numpy(y))))
        opt.zero_grad()
        loss = torch.nn.functional.cross_entropy(net(x), torch.from_numpy(y))
        loss.backward()
        opt.step()
        losses.append(float(loss))
    if params is not None:
        params.update({n: p.detach().to(torch.float64).numpy() for n, p in net.named_parameters()})
    return np.array(losses)


def onyx_losses(work, batches, steps, params=None):
    from onyx.training import api

    state = api.CheckpointState.load_checkpoint(os.path.join(work, "checkpoint"))
    module = api.Module(os.path.join(work, "training_model.onnx"), state)
    opt = api.Optimizer(os.path.join(work, "optimizer_model.onnx"), module)
    losses = []
    for s in range(steps):
        x, y = batches[s % len(batches)]
        losses.append(float(module(x, y)))
        opt.step()
        module.lazy_reset_grad()
    if params is not None:
        params.update({n: np.asarray(p.data, np.float64) for n, p in state.parameters})
    return np.array(losses)


def parameter_gap(ours, theirs):
    """max over the parameter tensors both name of max |a - b| / max |b|, and how many."""
    common = sorted(set(ours) & set(theirs))
    gaps = [np.abs(ours[n] - theirs[n]).max() / max(np.abs(theirs[n]).max(), 1e-30) for n in common]
    return (max(gaps) if gaps else float("nan")), len(common)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--models", default="mlp,bert")
    ap.add_argument("--steps", type=int, default=100)
    ap.add_argument("--optim", choices=("adamw", "sgd"), default="adamw")
    ap.add_argument("--explain", action="store_true",
                    help="add two PyTorch-only rows: float64 from a start nudged by 6e-8 (how much the "
                    "trajectory amplifies one rounding), and float32 weights with the loss taken in float64 "
                    "(how much of the float32 gap is the loss value's own rounding)")
    a = ap.parse_args()
    import torch
    import training_compare
    import training_models

    marks = sorted({s for s in (1, 10, 25, 50, a.steps) if s <= a.steps})
    print("| model | pair | " + " | ".join(f"step {s}" for s in marks) + " |")
    print("| --- | --- |" + " --- |" * len(marks))
    for name in a.models.split(","):
        with tempfile.TemporaryDirectory() as work:
            training_compare.make_artifacts(name, work, a.optim)
            torch.manual_seed(0)
            _, _, batch_of = training_models.MODELS[name]()
            g = np.random.default_rng(1)
            batches = [batch_of(g) for _ in range(4)]
            p32, p64, pours = {}, {}, {}
            t32 = torch_losses(name, batches, a.steps, torch.float32, optim=a.optim, params=p32)
            t64 = torch_losses(name, batches, a.steps, torch.float64, optim=a.optim, params=p64)
            ours = onyx_losses(work, batches, a.steps, params=pours)
            rows = [("onyx vs PyTorch, float32", ours, t32), ("PyTorch float32 vs float64", t32, t64),
                    ("onyx vs PyTorch float64", ours, t64)]
            if a.explain:
                nudged = torch_losses(name, batches, a.steps, torch.float64, perturb=6e-8, optim=a.optim)
                exact = []
                torch_losses(name, batches, a.steps, torch.float32, exact_loss=exact, optim=a.optim)
                exact = np.array(exact)
                rows += [("PyTorch float64, start nudged by 6e-8, vs float64", nudged, t64),
                         ("PyTorch float32 weights, loss in float64, vs float64", exact, t64),
                         ("onyx vs PyTorch float32 weights, loss in float64", ours, exact)]
        for label, x, y in rows:
            rel = np.abs(x - y) / np.maximum(np.abs(y), 1e-12)
            print(f"| {name} | {label} | " + " | ".join(f"{rel[s - 1]:.1e}" for s in marks) + " |", flush=True)
        for label, x, y in (("onyx vs PyTorch float32", pours, p32), ("PyTorch float32 vs float64", p32, p64),
                            ("onyx vs PyTorch float64", pours, p64)):
            gap, count = parameter_gap(x, y)
            print(f"parameters after {a.steps} {a.optim} steps, {name}, {label}: {gap:.1e} ({count} tensors)")


if __name__ == "__main__":
    main()
