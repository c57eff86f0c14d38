#!/usr/bin/python3
"""ORTModule against PyTorch eager, side by side in one run (issue 25): the same training loop
(CrossEntropy, torch.optim.AdamW with onnxruntime's defaults, lr 1e-3, fixed synthetic batches,
dropout off) on the module itself and on ORTModule(module):

    /usr/bin/python3 bench/ortmodule_compare.py [--models mlp,bert,gpt2,resnet18] [--threads 1,2]
        [--steps 20] [--warmup 3] [--rss-steps 0] [--fused-adam] [--device cpu|cuda]

Each side's figure is its best configuration of the same loop: AdamW with foreach off and on
(the multi-tensor form), each also with glibc keeping freed heap (MALLOC_TRIM_THRESHOLD_ 1 GiB,
MALLOC_MMAP_THRESHOLD_ 32 MiB: what ORTModule sets for its own process) and, at 2 threads or
more, with OMP_WAIT_POLICY=PASSIVE; the fastest is shown, with the configuration that gave it.
--fused-adam gives ORTModule's loop
onyx.training.optim.FusedAdam in ADAMW_TORCH mode (the same update, one native pass) instead of
torch's AdamW: one changed line in the user's loop.

Each configuration runs in a fresh process, so its peak RSS (VmHWM) is its own; both import
torch. OMP_NUM_THREADS is set to the thread count for both (Debian's torch otherwise lets
OpenBLAS use every core for its products even after torch.set_num_threads(1)). Prints the
median step (forward + backward + optimizer step), the peak RSS, and the largest relative loss
difference over the steps. --rss-steps N also runs N more ORTModule
steps and prints the RSS after the warm-up and at the end (flat memory). Models as in
bench/training_compare.py; both runtimes flush denormals (PyTorch: torch.set_flush_denormal).

--device cuda puts the module and its batches on the GPU (ORTModule then runs onyx's CUDA
provider); a step is timed to torch.cuda.synchronize(), and each side runs AdamW with foreach
off and on only (the host allocator and OpenMP settings do not apply).
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def rss_mb(field="VmRSS"):
    with open("/proc/self/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith(field)) / 1024


def worker(name, kind, threads, steps, warmup, rss_steps, device):
    import numpy as np
    import torch

    sys.path.insert(0, HERE)
    import training_models

    torch.set_num_threads(threads)
    torch.set_flush_denormal(True)
    torch.manual_seed(0)
    net, _, batch_of = training_models.MODELS[name]()
    net.to(device).train()
    g = np.random.default_rng(1)
    data = [tuple(torch.from_numpy(a).to(device) for a in batch_of(g)) for _ in range(4)]
    wait = torch.cuda.synchronize if device == "cuda" else (lambda: None)
    module = net
    if kind.startswith("ortmodule"):
        from onyx.training.ortmodule import ORTModule

        module = ORTModule(net)
    if kind == "ortmodule-fused":  # onyx's FusedAdam in torch's AdamW mode: the same update in one native pass
        from onyx.training.optim import AdamWMode, FusedAdam

        opt = FusedAdam(net.parameters(), lr=1e-3, betas=(0.9, 0.999), eps=1e-6, weight_decay=0.0,
                        adam_w_mode=AdamWMode.ADAMW_TORCH)
    else:  # *-foreach: PyTorch's multi-tensor AdamW, sometimes its faster form
        opt = torch.optim.AdamW(net.parameters(), lr=1e-3, betas=(0.9, 0.999), eps=1e-6, weight_decay=0.0,
                                foreach=kind.endswith("-foreach"))
    times, losses, rss = [], [], {}

    def step(s):
        x, y = data[s % len(data)]
        t = time.perf_counter()
        opt.zero_grad()
        loss = torch.nn.functional.cross_entropy(module(x), y)
        loss.backward()
        opt.step()
        wait()
        times.append(time.perf_counter() - t)
        losses.append(float(loss))

    for s in range(warmup + steps):
        step(s)
    if rss_steps:
        rss["after_warmup"] = rss_mb()
        for s in range(rss_steps):
            step(s)
        rss["after_more"] = rss_mb()
    print(json.dumps({"median_ms": statistics.median(times[warmup:warmup + steps]) * 1e3,
                      "losses": losses[:warmup + steps], "rss_mb": rss_mb("VmHWM"), "rss": rss,
                      "exports": getattr(module, "export_count", 0)}))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--models", default="mlp,bert")
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--steps", type=int, default=20)
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--rss-steps", type=int, default=0)
    ap.add_argument("--fused-adam", action="store_true",
                    help="ORTModule's loop uses onyx.training.optim.FusedAdam (ADAMW_TORCH) instead of torch's AdamW")
    ap.add_argument("--device", default="cpu", choices=["cpu", "cuda"])
    ap.add_argument("--worker", nargs=3, help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.worker:
        worker(a.worker[0], a.worker[1], int(a.worker[2]), a.steps, a.warmup, a.rss_steps, a.device)
        return
    print(f"CrossEntropy + torch.optim.AdamW (each side: the faster of foreach off and on)"
          f"{', ORTModule with FusedAdam' if a.fused_adam else ''}, median of {a.steps} steps after {a.warmup}, "
          f"on {a.device}")
    print("| model | threads | PyTorch eager | ORTModule | ORTModule / PyTorch | peak RSS PyTorch | peak RSS ORTModule "
          "| largest loss difference | RSS after warm-up -> after more steps |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for name in a.models.split(","):
        for threads in [int(t) for t in a.threads.split(",")]:
            res = {}
            # Each side's best over the same configurations of the one loop: AdamW with foreach
            # off and on and, with 2 threads or more (OpenMP's workers spin by default), also
            # OMP_WAIT_POLICY=PASSIVE (the training issue's figures). --fused-adam: ORTModule
            # runs FusedAdam only.
            ours = ["ortmodule-fused"] if a.fused_adam else ["ortmodule", "ortmodule-foreach"]
            kinds = ["torch", "torch-foreach"] + ours
            # Each also with glibc told to keep freed heap (what ORTModule sets for its process,
            # here by environment for both sides): without it a step's freed memory at the
            # heap's top may go back to the system and fault in again the next step.
            keep_heap = {"MALLOC_TRIM_THRESHOLD_": str(1 << 30), "MALLOC_MMAP_THRESHOLD_": str(32 << 20)}
            configs = [(k, {}) for k in kinds] + [(k, dict(keep_heap)) for k in kinds if a.device == "cpu"]
            if threads > 1 and a.device == "cpu":
                configs += [(k, dict(e, OMP_WAIT_POLICY="PASSIVE")) for k, e in list(configs)]
            for worker_kind, extra in configs:
                kind = "ortmodule" if worker_kind.startswith("ortmodule") else "torch"
                env = dict(os.environ, OMP_NUM_THREADS=str(threads), **extra)
                cmd = [sys.executable, __file__, "--steps", str(a.steps), "--warmup", str(a.warmup), "--device", a.device,
                       "--rss-steps", str(a.rss_steps if kind == "ortmodule" else 0), "--worker", name, worker_kind,
                       str(threads)]
                out = subprocess.run(cmd, capture_output=True, text=True, env=env)
                if out.returncode != 0:
                    sys.exit(f"{name} {kind} worker failed:\n{out.stderr[-3000:]}")
                r = json.loads(out.stdout.strip().splitlines()[-1])
                r["note"] = " (" + ", ".join((["PASSIVE"] if "OMP_WAIT_POLICY" in extra else []) +
                                             (["heap kept"] if "MALLOC_TRIM_THRESHOLD_" in extra else []) +
                                             (["foreach"] if worker_kind.endswith("-foreach") else [])) + ")"
                r["note"] = "" if r["note"] == " ()" else r["note"]
                if kind not in res or r["median_ms"] < res[kind]["median_ms"]:
                    res[kind] = r
            t, o = res["torch"], res["ortmodule"]
            rel = max(abs(x - y) / max(abs(y), 1e-12) for x, y in zip(o["losses"], t["losses"]))
            flat = (f"{o['rss']['after_warmup']:.0f} -> {o['rss']['after_more']:.0f} MB ({a.rss_steps} steps)"
                    if o["rss"] else "")
            print(f"| {name} | {threads} | {t['median_ms']:.2f} ms{t['note']} | {o['median_ms']:.2f} ms{o['note']} | "
                  f"{o['median_ms'] / t['median_ms']:.2f} | {t['rss_mb']:.0f} MB | {o['rss_mb']:.0f} MB | "
                  f"{rel:.1e} | {flat} |", flush=True)


if __name__ == "__main__":
    main()
