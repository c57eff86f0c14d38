#!/usr/bin/python3
"""onyx's CUDA provider against PyTorch on the same GPU (issue 6): the four benchmark models,
float32 and float16, batch 1 and 8, same weights and inputs.

    /usr/bin/python3 bench/gpu_compare.py [--models resnet50,mobilenet_v2,bert_base,gpt2_small]
        [--batches 1,8] [--dtypes fp32,fp16] [--seq 128] [--runs 50] [--warmup 10]
        [--onyx build/onyx] [--work bench/work/gpu] [--no-compile] [--table-out FILE]

For the machine with the GPU (needs torch with CUDA, and onyx built with ONYX_CUDA). Per model:
  1. the PyTorch module is built exactly as bench/make_models.py builds it (same seed, so the
     same weights as bench/models/NAME.onnx, which is exported if missing); float16 is
     `module.half()` for PyTorch and `onyx optimize --level 2 --float16 --for-provider cuda` for
     onyx (fused first: the attention fusion does not match a graph already in float16);
  2. the inputs of each batch are saved as <input>.npy (ids in the vocabulary, masks of ones);
  3. PyTorch eager, and torch.compile unless --no-compile (its compilation is not timed), run
     under inference_mode with the inputs already on the GPU; each timed run ends with
     torch.cuda.synchronize(); the figure is the median;
  4. onyx: `onyx bench M --provider cuda --device-io` (floating inputs uploaded once, outputs kept on the
     GPU, the device awaited per run; median), `onyx run --placement` for the nodes left on the
     CPU, and `onyx run --outputs-dir` for the outputs, compared with PyTorch's eager outputs
     (max abs difference over the largest reference magnitude); then the same bench with
     `--provider-option enable_cuda_graph=1` (every input on the GPU, runs replayed as a CUDA
     graph after the first two), or why onyx refused to record the model.
The table gives the medians, onyx / eager (issue 6's target: <= 0.8 for BERT and GPT-2 in
float16), the CPU fallbacks and the difference.

A second table gives the host memory of loading each model onto the GPU from external data
(`onyx optimize --level 0 --external-data`): the peak RSS of `onyx bench --provider cuda
--runs 1` on it, less that of the same command on a one-node model (the CUDA context and
libraries), against the size of the weights file. The weights reach the GPU through 8 MB
pinned chunks and the mapped pages are dropped after upload; weights the optimiser rewrites
on the host first (Conv + BatchNormalization folding) are held whole until uploaded.
"""
import argparse
import datetime
import json
import os
import re
import statistics
import subprocess
import sys
import time

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import make_models  # noqa: E402  (the model definitions and their seed)


def run(cmd, timeout=1800):
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    if p.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} exited {p.returncode}:\n{p.stdout[-2000:]}{p.stderr[-2000:]}")
    return p.stdout


def build_module(name):
    torch.manual_seed(make_models.SEED)
    module, args, input_names, output_names, _ = make_models.models()[name]()
    return module.eval(), input_names, output_names


def make_inputs(name, input_names, batch, seq, dtype):
    """Deterministic inputs of one batch as {name: numpy array}."""
    g = torch.Generator().manual_seed(1234 + batch)
    if name in ("resnet50", "mobilenet_v2"):
        x = torch.randn(batch, 3, 224, 224, generator=g)
        return {input_names[0]: x.to(dtype).numpy()}
    vocab = make_models.BertConfig.vocab_size if name == "bert_base" else make_models.GPT2Config.vocab_size
    ids = torch.randint(0, vocab, (batch, seq), generator=g)
    feeds = {"input_ids": ids.numpy()}
    if "attention_mask" in input_names:
        feeds["attention_mask"] = np.ones((batch, seq), np.int64)
    if "token_type_ids" in input_names:
        feeds["token_type_ids"] = np.zeros((batch, seq), np.int64)
    return feeds


def time_torch(fn, args, runs, warmup):
    with torch.inference_mode():
        for _ in range(warmup):
            fn(*args)
        torch.cuda.synchronize()
        times = []
        for _ in range(runs):
            t = time.perf_counter()
            out = fn(*args)
            torch.cuda.synchronize()
            times.append((time.perf_counter() - t) * 1e3)
    return statistics.median(times), out


def first_output(out):
    if isinstance(out, (tuple, list)):
        out = out[0]
    if isinstance(out, dict):
        out = next(iter(out.values()))
    return out.float().cpu().numpy()


def onyx_model(a, name, dtype):
    fp32 = os.path.join(HERE, "models", name + ".onnx")
    if not os.path.exists(fp32):
        run([sys.executable, os.path.join(HERE, "make_models.py"), "--models", name])
    if dtype == "fp32":
        return fp32
    fp16 = os.path.join(a.work, name + "_fp16.onnx")
    if not os.path.exists(fp16):
        run([a.onyx, "optimize", fp32, "-o", fp16, "--level", "2", "--float16", "--no-compare", "--for-provider", "cuda"])
    return fp16


def peak_rss_mb(a, model_path, label):
    json_path = os.path.join(a.work, label + "_rss.json")
    run([a.onyx, "bench", model_path, "--provider", "cuda", "--runs", "1", "--warmup", "0", "--json", json_path])
    with open(json_path) as f:
        return json.load(f)["peak_rss_mb"]


def load_rss_rows(a, names):
    """(model, weights MB, peak RSS MB, baseline MB, RSS above baseline MB) per model."""
    import onnx
    from onnx import helper, TensorProto
    tiny = os.path.join(a.work, "one_relu.onnx")
    graph = helper.make_graph([helper.make_node("Relu", ["x"], ["y"])], "one_relu",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [4])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8  # a newer onnx package writes its own (newer) IR version
    onnx.save(model, tiny)
    baseline = peak_rss_mb(a, tiny, "one_relu")
    rows = []
    for name in names:
        ext = os.path.join(a.work, name + "_ext.onnx")
        if not os.path.exists(ext):
            run([a.onyx, "optimize", onyx_model(a, name, "fp32"), "-o", ext, "--level", "0",
                 "--external-data", name + "_ext.bin"])
        weights = os.path.getsize(os.path.join(a.work, name + "_ext.bin")) / 2**20
        peak = peak_rss_mb(a, ext, name)
        rows.append((name, weights, peak, baseline, peak - baseline))
        print(f"{name}: weights {weights:.0f} MB, peak RSS {peak:.0f} MB, one-node baseline {baseline:.0f} MB", flush=True)
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--models", default="resnet50,mobilenet_v2,bert_base,gpt2_small")
    ap.add_argument("--batches", default="1,8")
    ap.add_argument("--dtypes", default="fp32,fp16")
    ap.add_argument("--seq", type=int, default=128)
    ap.add_argument("--runs", type=int, default=50)
    ap.add_argument("--warmup", type=int, default=10)
    ap.add_argument("--onyx", default=os.path.join(os.path.dirname(HERE), "build", "onyx"))
    ap.add_argument("--work", default=os.path.join(HERE, "work", "gpu"))
    ap.add_argument("--no-compile", action="store_true", help="skip torch.compile")
    ap.add_argument("--budget-s", type=float, default=0,
                    help="start no new model/dtype after this many seconds (0: no limit); the table says what was left")
    ap.add_argument("--table-out", help="append the markdown table (with date and command) to this file")
    a = ap.parse_args()
    if not torch.cuda.is_available():
        sys.exit("gpu_compare: PyTorch sees no CUDA device")
    # float32 in float32, as onyx computes it: PyTorch would otherwise run its convolutions in TF32.
    torch.backends.cudnn.allow_tf32 = False
    torch.backends.cuda.matmul.allow_tf32 = False
    probe = subprocess.run([a.onyx, "providers", "--require", "cuda"], capture_output=True, text=True)
    if probe.returncode != 0:
        sys.exit(f"gpu_compare: onyx cannot run CUDA here:\n{probe.stdout}{probe.stderr}")
    os.makedirs(a.work, exist_ok=True)
    device = torch.cuda.get_device_name(0)
    rows = []
    failures = []  # (model, dtype, first words of the error): one failure skips that model and dtype only
    started = time.monotonic()
    for name in [m for m in a.models.split(",") if m]:
        for dtype in [d for d in a.dtypes.split(",") if d]:
            if a.budget_s and time.monotonic() - started > a.budget_s:
                failures.append((name, dtype, f"not run: past --budget-s {a.budget_s:g}"))
                continue
            try:
                compare_one(a, name, dtype, rows)
            except Exception as e:  # noqa: BLE001 (reported in the table)
                failures.append((name, dtype, " ".join(str(e).split())[:300]))
                print(f"{name} {dtype}: FAILED: {e}", flush=True)
    write_table(a, device, rows, failures)


def compare_one(a, name, dtype, rows):
    """Times and checks one model in one dtype at every batch; appends a row per batch."""
    tdtype = torch.float16 if dtype == "fp16" else torch.float32
    module, input_names, _ = build_module(name)  # afresh: .to() converts in place
    gpu_module = module.to("cuda", dtype=tdtype)
    compiled = None
    if not a.no_compile:
        try:
            compiled = torch.compile(gpu_module)
        except Exception as e:  # noqa: BLE001 (reported in the table)
            compiled = e
    model_path = onyx_model(a, name, dtype)
    placement = run([a.onyx, "run", model_path, "--provider", "cuda", "--placement", "--random-inputs"])
    m = re.search(r"placement:(.*?)copy steps", placement)
    on_cpu = re.search(r"(\d+) nodes on CPU", placement)
    for batch in [int(b) for b in a.batches.split(",") if b]:
        feeds = make_inputs(name, input_names, batch, a.seq, tdtype)
        inputs_dir = os.path.join(a.work, f"{name}_{dtype}_b{batch}")
        os.makedirs(inputs_dir, exist_ok=True)
        for k, v in feeds.items():
            np.save(os.path.join(inputs_dir, k + ".npy"), v)
        args = [torch.from_numpy(feeds[k]).cuda() for k in input_names]
        eager_ms, eager_out = time_torch(gpu_module, args, a.runs, a.warmup)
        compile_ms = "n/a"
        if isinstance(compiled, Exception):
            compile_ms = f"failed ({type(compiled).__name__})"
        elif compiled is not None:
            try:
                compile_ms = f"{time_torch(compiled, args, a.runs, a.warmup)[0]:.2f}"
            except Exception as e:  # noqa: BLE001
                compile_ms = f"failed ({type(e).__name__})"
        json_path = os.path.join(inputs_dir, "onyx.json")
        run([a.onyx, "bench", model_path, "--provider", "cuda", "--device-io", "--runs", str(a.runs),
             "--warmup", str(a.warmup), "--inputs-dir", inputs_dir, "--json", json_path])
        with open(json_path) as f:
            onyx_ms = json.load(f)["median_ms"]
        graph_json = os.path.join(inputs_dir, "onyx_graph.json")
        graph = subprocess.run([a.onyx, "bench", model_path, "--provider", "cuda", "--provider-option",
                                "enable_cuda_graph=1", "--device-io", "--runs", str(a.runs), "--warmup",
                                str(max(a.warmup, 2)), "--inputs-dir", inputs_dir, "--json", graph_json],
                               capture_output=True, text=True, timeout=1800)
        if graph.returncode == 0:
            with open(graph_json) as f:
                graph_ms = f"{json.load(f)['median_ms']:.2f} ms"
        else:  # the first line of onyx's reason, e.g. a Gather reading its indices on the host
            reason = (graph.stderr.strip() or graph.stdout.strip()).splitlines()
            graph_ms = "refused: " + (reason[0][:120] if reason else f"exit {graph.returncode}")
        out_dir = os.path.join(inputs_dir, "outputs")
        run([a.onyx, "run", model_path, "--provider", "cuda", "--inputs-dir", inputs_dir, "--outputs-dir", out_dir])
        got = np.load(os.path.join(out_dir, "output_0.npy")).astype(np.float32)
        want = first_output(eager_out)
        diff = float(np.abs(got - want).max() / max(np.abs(want).max(), 1e-12)) if got.shape == want.shape \
            else float("nan")
        rows.append((name, dtype, batch, eager_ms, compile_ms, onyx_ms, onyx_ms / eager_ms,
                     on_cpu.group(1) if on_cpu else "0", m.group(1).strip(" ,") if m else "?", diff, graph_ms))
        print(f"{name} {dtype} b{batch}: eager {eager_ms:.2f} ms, compile {compile_ms}, onyx {onyx_ms:.2f} ms "
              f"({onyx_ms / eager_ms:.2f}x), CUDA graph {graph_ms}, CPU nodes {rows[-1][7]}, "
              f"max rel diff {diff:.2e}", flush=True)



def write_table(a, device, rows, failures):
    header = ("| model | dtype | batch | PyTorch eager | torch.compile | onyx CUDA | onyx / eager | onyx CUDA graph "
              "| nodes on CPU | placement | max diff / max ref |\n"
              "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n")
    table = header + "".join(
        f"| {r[0]} | {r[1]} | {r[2]} | {r[3]:.2f} ms | {r[4]} | {r[5]:.2f} ms | {r[6]:.2f} | {r[10]} | {r[7]} | {r[8]} "
        f"| {r[9]:.1e} |\n"
        for r in rows)
    if failures:
        table += "\nFailed or not run: " + "; ".join(f"{n} {d}: {e}" for n, d, e in failures) + "\n"
    try:
        rss = load_rss_rows(a, [m for m in a.models.split(",") if m and any(r[0] == m for r in rows)])
    except Exception as e:  # noqa: BLE001
        print(f"load RSS: FAILED: {e}", flush=True)
        rss = []
    table += ("\n| model | weights file | peak RSS, CUDA session | one-node CUDA session | above it | share of the weights |\n"
              "| --- | --- | --- | --- | --- | --- |\n") + "".join(
        f"| {r[0]} | {r[1]:.0f} MB | {r[2]:.0f} MB | {r[3]:.0f} MB | {r[4]:.0f} MB | {r[4] / r[1]:.2f} |\n" for r in rss)
    print(table)
    if a.table_out:
        with open(a.table_out, "a") as f:
            f.write(f"\n### onyx CUDA against PyTorch {torch.__version__} on {device}, "
                    f"{datetime.datetime.now():%Y-%m-%d %H:%M}\n\n`{' '.join(sys.argv)}`, seq {a.seq}, "
                    f"medians of {a.runs} runs after {a.warmup}\n\n{table}")


if __name__ == "__main__":
    main()
