#!/usr/bin/python3
"""Training step time and peak RSS, onyx (onyx.training.api) against PyTorch eager, side by side
in one run (issue 23), on fixed synthetic batches with CrossEntropy and AdamW (onnxruntime's
defaults given to both: betas 0.9/0.999, eps 1e-6, no weight decay, lr 1e-3):

    /usr/bin/python3 bench/training_compare.py [--models mlp,bert,resnet18,gpt2] [--threads 1,2]
        [--steps 60] [--warmup 10]

Models (bench/training_models.py): mlp 784-512-512-10 batch 64; bert a BERT-like encoder
(4 layers, hidden 256, 4 heads, seq 128, batch 8); resnet18 torchvision's (10 classes, 64x64,
batch 8, batch norm in training mode); gpt2 a GPT-2-small-like decoder (12 layers, hidden 768,
seq 128, batch 1, LM loss). The parent exports each model and writes onyx's artifacts; each
configuration then runs in a fresh process (the onyx one without torch), so its peak RSS
(VmHWM) is its own. A step is forward + backward + optimizer step (+ lazy_reset_grad /
zero_grad). Prints medians and how the two runs' losses drift apart.

Both flush floating-point denormals to zero, PyTorch's best configuration here
(torch.set_flush_denormal(True); onyx's training Modules always do): GPT-2's softmax tails
reach denormals within a few steps, and arithmetic on them is up to a hundred times slower.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def make_artifacts(name, work, optim="adamw"):
    """Exports the model (the workers' weights: same seed) and writes onyx's artifacts (AdamW,
    or SGD with optim="sgd")."""
    import onnx
    import torch

    sys.path.insert(0, HERE)
    import training_models
    from onyx.training import artifacts

    torch.manual_seed(0)
    net, example, _ = training_models.MODELS[name]()
    path = os.path.join(work, "model.onnx")
    training_models.export(net, example, path)
    artifacts.generate_artifacts(onnx.load(path), requires_grad=[n for n, _ in net.named_parameters()],
                                 loss=artifacts.LossType.CrossEntropyLoss,
                                 optimizer=artifacts.OptimType.SGD if optim == "sgd" else artifacts.OptimType.AdamW,
                                 artifact_directory=work)


def worker(name, kind, threads, steps, warmup, work):
    import numpy as np

    g = np.random.default_rng(1)
    times, losses = [], []
    if kind == "torch":
        import torch

        sys.path.insert(0, HERE)
        import training_models

        torch.set_num_threads(threads)
        torch.set_flush_denormal(True)
        torch.manual_seed(0)
        net, _, batch_of = training_models.MODELS[name]()
        net.train()
        batches = [batch_of(g) for _ in range(4)]
        opt = torch.optim.AdamW(net.parameters(), lr=1e-3, betas=(0.9, 0.999), eps=1e-6, weight_decay=0.0)
        data = [(torch.from_numpy(x), torch.from_numpy(y)) for x, y in batches]
        for s in range(warmup + steps):
            x, y = data[s % len(data)]
            t = time.perf_counter()
            opt.zero_grad()
            loss = torch.nn.functional.cross_entropy(net(x), y)
            loss.backward()
            opt.step()
            times.append(time.perf_counter() - t)
            losses.append(float(loss))
    else:  # no torch in this process: its RSS is onyx's own
        import onyx
        from onyx.training import api

        with open(os.path.join(work, "batches.json")) as f:
            spec = json.load(f)
        batches = [tuple(np.load(os.path.join(work, f"{k}_{i}.npy")) for k in ("x", "y")) for i in range(spec["n"])]
        so = onyx.SessionOptions()
        so.intra_op_num_threads = threads
        state = api.CheckpointState.load_checkpoint(os.path.join(work, "checkpoint"))
        module = api.Module(os.path.join(work, "training_model.onnx"), state, session_options=so)
        opt = api.Optimizer(os.path.join(work, "optimizer_model.onnx"), module)
        for s in range(warmup + steps):
            x, y = batches[s % len(batches)]
            t = time.perf_counter()
            loss = module(x, y)
            opt.step()
            module.lazy_reset_grad()
            times.append(time.perf_counter() - t)
            losses.append(float(loss))
    # VmHWM, not ru_maxrss: Linux carries ru_maxrss across exec, so a child started from a
    # process that had imported torch would report that process's peak.
    with open("/proc/self/status") as f:
        rss_mb = next(int(line.split()[1]) for line in f if line.startswith("VmHWM")) / 1024
    print(json.dumps({"median_ms": statistics.median(times[warmup:]) * 1e3, "losses": losses[warmup:], "rss_mb": rss_mb}))


def save_batches(name, work):
    """The torch worker's batches, for the onyx worker (same generator, same order)."""
    import numpy as np

    sys.path.insert(0, HERE)
    import torch
    import training_models

    torch.manual_seed(0)
    _, _, batch_of = training_models.MODELS[name]()
    g = np.random.default_rng(1)
    for i in range(4):
        x, y = batch_of(g)
        np.save(os.path.join(work, f"x_{i}.npy"), x)
        np.save(os.path.join(work, f"y_{i}.npy"), y)
    with open(os.path.join(work, "batches.json"), "w") as f:
        json.dump({"n": 4}, f)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--models", default="mlp")
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--steps", type=int, default=60)
    ap.add_argument("--warmup", type=int, default=10)
    ap.add_argument("--worker", nargs=3, help=argparse.SUPPRESS)
    ap.add_argument("--work", help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.worker:
        worker(a.worker[0], a.worker[1], int(a.worker[2]), a.steps, a.warmup, a.work)
        return
    print(f"CrossEntropy + AdamW, median of {a.steps} steps after {a.warmup}")
    print("| model | threads | PyTorch eager | onyx | onyx / PyTorch | peak RSS PyTorch | peak RSS onyx "
          "| loss drift (first / last timed step) |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for name in a.models.split(","):
        work = tempfile.TemporaryDirectory()
        make_artifacts(name, work.name)
        save_batches(name, work.name)
        for threads in [int(t) for t in a.threads.split(",")]:
            res = {}
            for kind in ("torch", "onyx"):
                env = dict(os.environ, OMP_NUM_THREADS=str(threads))
                out = subprocess.run([sys.executable, __file__, "--steps", str(a.steps), "--warmup", str(a.warmup),
                                      "--work", work.name, "--worker", name, kind, str(threads)],
                                     capture_output=True, text=True, env=env)
                if out.returncode != 0:
                    sys.exit(f"{name} {kind} worker failed:\n{out.stderr[-3000:]}")
                res[kind] = json.loads(out.stdout.strip().splitlines()[-1])
            t, o = res["torch"], res["onyx"]
            rel = [abs(x - y) / max(abs(y), 1e-12) for x, y in zip(o["losses"], t["losses"])]
            print(f"| {name} | {threads} | {t['median_ms']:.2f} ms | {o['median_ms']:.2f} ms | "
                  f"{o['median_ms'] / t['median_ms']:.2f} | {t['rss_mb']:.0f} MB | {o['rss_mb']:.0f} MB | "
                  f"{rel[0]:.1e} / {rel[-1]:.1e} |", flush=True)


if __name__ == "__main__":
    main()
