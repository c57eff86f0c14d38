#!/usr/bin/python3
"""Training step time and peak RSS, onyx (onyx.training.api) against PyTorch eager, side by side
in one run (issue 23): the MLP 784-512-512-10 at batch 64 with CrossEntropy and AdamW
(onnxruntime's defaults given to both), on fixed synthetic batches.

    /usr/bin/python3 bench/training_compare.py [--threads 1,2] [--steps 60] [--warmup 10]

Each configuration runs in a fresh process (so peak RSS is its own): PyTorch with
torch.set_num_threads(N), onyx with intra_op_num_threads N; the step is forward + backward +
optimizer step (+ lazy_reset_grad / zero_grad). Prints medians and the losses' largest
relative difference over the timed steps (both start from the same weights and data).
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

SIZES = [784, 512, 512, 10]
BATCH = 64


def make_net():
    import torch

    torch.manual_seed(0)
    layers = []
    for i, (a, b) in enumerate(zip(SIZES[:-1], SIZES[1:])):
        layers.append(torch.nn.Linear(a, b))
        if i + 1 < len(SIZES) - 1:
            layers.append(torch.nn.ReLU())
    return torch.nn.Sequential(*layers)


def make_artifacts(work):
    """Exports the MLP (the workers' weights: same seed) and writes onyx's artifacts."""
    import onnx
    import torch
    from onyx.training import artifacts

    net = make_net()
    model_path = os.path.join(work, "mlp.onnx")
    torch.onnx.export(net, (torch.zeros(2, SIZES[0]),), model_path, input_names=["input"], output_names=["output"],
                      opset_version=17, training=torch.onnx.TrainingMode.TRAINING, do_constant_folding=False,
                      dynamic_axes={"input": {0: "batch"}, "output": {0: "batch"}})
    artifacts.generate_artifacts(onnx.load(model_path), requires_grad=[n for n, _ in net.named_parameters()],
                                 loss=artifacts.LossType.CrossEntropyLoss, optimizer=artifacts.OptimType.AdamW,
                                 artifact_directory=work)


def worker(kind, threads, steps, warmup, work):
    import numpy as np

    g = np.random.default_rng(1)
    batches = [(g.standard_normal((BATCH, SIZES[0])).astype(np.float32), g.integers(0, SIZES[-1], BATCH).astype(np.int64))
               for _ in range(4)]
    times, losses = [], []
    if kind == "torch":
        import torch

        torch.set_num_threads(threads)
        net = make_net()
        opt = torch.optim.AdamW(net.parameters(), lr=1e-3, betas=(0.9, 0.999), eps=1e-6, weight_decay=0.0)
        loss_fn = torch.nn.CrossEntropyLoss()
        data = [(torch.from_numpy(x), torch.from_numpy(y)) for x, y in batches]
        for s in range(warmup + steps):
            x, y = data[s % len(data)]
            t = time.perf_counter()
            opt.zero_grad()
            loss = loss_fn(net(x), y)
            loss.backward()
            opt.step()
            times.append(time.perf_counter() - t)
            losses.append(float(loss))
    else:  # no torch in this process: its RSS is onyx's own
        import onyx
        from onyx.training import api
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


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--steps", type=int, default=60)
    ap.add_argument("--warmup", type=int, default=10)
    ap.add_argument("--worker", nargs=2, help=argparse.SUPPRESS)
    ap.add_argument("--work", help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.worker:
        worker(a.worker[0], int(a.worker[1]), a.steps, a.warmup, a.work)
        return
    work_dir = tempfile.TemporaryDirectory()
    make_artifacts(work_dir.name)
    print(f"MLP {'-'.join(map(str, SIZES))}, batch {BATCH}, CrossEntropy + AdamW, median of {a.steps} steps after {a.warmup}")
    print("| threads | PyTorch eager | onyx | onyx / PyTorch | peak RSS PyTorch | peak RSS onyx | max rel loss diff |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for threads in [int(t) for t in a.threads.split(",")]:
        res = {}
        for kind in ("torch", "onyx"):
            env = dict(os.environ, OMP_NUM_THREADS=str(threads))
            out = subprocess.run([sys.executable, __file__, "--steps", str(a.steps), "--warmup", str(a.warmup),
                                  "--work", work_dir.name, "--worker", kind, str(threads)],
                                 capture_output=True, text=True, env=env)
            if out.returncode != 0:
                sys.exit(f"{kind} worker failed:\n{out.stderr[-3000:]}")
            res[kind] = json.loads(out.stdout.strip().splitlines()[-1])
        t, o = res["torch"], res["onyx"]
        rel = [abs(x - y) / max(abs(y), 1e-12) for x, y in zip(o["losses"], t["losses"])]
        diff = max(rel)
        print(f"relative loss differences, timed steps 1, 10, 30, last: {rel[0]:.1e} {rel[min(9, len(rel) - 1)]:.1e} "
              f"{rel[min(29, len(rel) - 1)]:.1e} {rel[-1]:.1e}", file=sys.stderr)
        print(f"| {threads} | {t['median_ms']:.2f} ms | {o['median_ms']:.2f} ms | {o['median_ms'] / t['median_ms']:.2f} "
              f"| {t['rss_mb']:.0f} MB | {o['rss_mb']:.0f} MB | {diff:.1e} |", flush=True)


if __name__ == "__main__":
    main()
