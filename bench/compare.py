#!/usr/bin/python3
"""Side-by-side comparison of onyx with ONNX Runtime 1.30 (onnxruntime-node, or with
--ort-runner python the onnxruntime wheel in the test venv; CPU) on the
benchmark models of bench/make_models.py.

    /usr/bin/python3 bench/compare.py [--models resnet50,bert_base] [--threads 1,2]
        [--runs N] [--warmup N] [--rounds 3] [--batch 1] [--seq 128] [--onyx build/onyx]
        [--ort-only] [--no-diff] [--table-out bench/RESULTS.md]

For each model it writes deterministic inputs as <input_name>.npy, then
  1. (unless --no-diff) runs each tool once with an outputs dir and compares the outputs with
     numpy: ORT through `node bench/run_ort.js ... --outputs-dir`, onyx through
     `onyx run MODEL --input NAME=FILE.npy... --outputs-dir DIR`;
  2. for each thread count, ROUNDS rounds in which ORT and onyx run as separate processes one
     after the other on the same inputs (the order swaps every round), each process timing
     WARMUP + RUNS runs: `node bench/run_ort.js MODEL --threads N --runs R --warmup W
     --inputs-dir DIR --json FILE` and `onyx bench MODEL --threads N --runs R --warmup W
     --inputs-dir DIR --json FILE`. A tool's figure is the median over rounds of its per-process
     figure (median latency, create time, peak RSS, ...).
It prints a markdown table (see bench/README.md for the columns); --table-out appends it, with
the date, the machine and the exact command line, to a file (bench/RESULTS.md).

When the onyx binary has no `bench` subcommand, or a bench process fails, onyx's figures are
"n/a" and ORT's are still measured and printed. The binary is copied into the work dir first,
so a rebuild during a long comparison does not mix two binaries.
"""
import argparse
import datetime
import json
import os
import platform
import shlex
import shutil
import statistics
import subprocess
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

# name -> inputs: (input name, kind); kinds: image, ids:<vocab>, mask, token_type
MODELS = {
    "resnet50": {"inputs": [("input", "image")], "runs": 10, "warmup": 2},
    "mobilenet_v2": {"inputs": [("input", "image")], "runs": 50, "warmup": 5},
    "bert_base": {"inputs": [("input_ids", "ids:30522"), ("attention_mask", "mask"),
                             ("token_type_ids", "token_type")], "runs": 10, "warmup": 2, "seq": True},
    "gpt2_small": {"inputs": [("input_ids", "ids:50257")], "runs": 10, "warmup": 2, "seq": True},
    # bench/make_gpt2_dynamo.py: the same GPT-2 through torch's dynamo exporter, fed the same inputs
    "gpt2_small_dynamo": {"inputs": [("input_ids", "ids:50257")], "runs": 10, "warmup": 2, "seq": True,
                          "inputs_like": "gpt2_small"},
}
FIGURES = ["create_ms", "first_run_ms", "min_ms", "median_ms", "p90_ms", "peak_rss_mb"]


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def make_inputs(model, batch, seq, dirpath):
    """Writes <input_name>.npy for MODEL into DIRPATH; the same arguments give the same bytes."""
    os.makedirs(dirpath, exist_ok=True)
    # A model with "inputs_like" takes that model's inputs; the others' seeds stay as they were.
    like = MODELS[model].get("inputs_like", model)
    rng = np.random.default_rng(sorted(k for k in MODELS if "inputs_like" not in MODELS[k]).index(like) * 1000 +
                                batch * 10000 + seq)
    for name, kind in MODELS[model]["inputs"]:
        if kind == "image":
            a = rng.standard_normal((batch, 3, 224, 224), dtype=np.float32)
        elif kind.startswith("ids:"):
            a = rng.integers(0, int(kind[4:]), size=(batch, seq), dtype=np.int64)
        elif kind == "mask":  # the last ~1/8 of the positions are padding, to exercise the masking
            a = np.ones((batch, seq), dtype=np.int64)
            a[:, seq - max(1, seq // 8):] = 0
        elif kind == "token_type":  # a sentence pair: first half 0, second half 1
            a = np.zeros((batch, seq), dtype=np.int64)
            a[:, seq // 2:] = 1
        else:
            raise ValueError(kind)
        np.save(os.path.join(dirpath, name + ".npy"), a)


def run_proc(cmd, timeout):
    """Runs CMD; returns (ok, wall_s, detail) where detail is the last stderr/stdout line on failure."""
    t0 = time.time()
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return False, time.time() - t0, f"timed out after {timeout} s"
    wall = time.time() - t0
    if p.returncode != 0:
        lines = [l for l in (p.stderr + "\n" + p.stdout).splitlines() if l.strip()]
        tail = " | ".join(lines[-3:]) if lines else ""
        return False, wall, f"exit {p.returncode}: {tail}"
    return True, wall, p.stdout


def read_json(path):
    with open(path) as f:
        return json.load(f)


class Tools:
    def __init__(self, a, work):
        self.a = a
        self.node = shutil.which("node") or "node"
        self.run_ort = os.path.join(HERE, "run_ort.js")
        self.onyx = None
        self.onyx_bench = False
        self.onyx_note = ""
        if a.ort_only:
            self.onyx_note = "--ort-only"
            return
        src = a.onyx if os.path.isabs(a.onyx) else os.path.join(os.getcwd(), a.onyx)
        if not os.path.exists(src):
            self.onyx_note = f"{a.onyx} not found"
            return
        self.onyx = os.path.join(work, "onyx-snapshot")
        shutil.copy2(src, self.onyx + ".tmp")
        os.replace(self.onyx + ".tmp", self.onyx)
        self.onyx_stamp = datetime.datetime.fromtimestamp(os.path.getmtime(src)).isoformat(timespec="seconds")
        p = subprocess.run([self.onyx, "--help"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        self.onyx_bench = "onyx bench" in p.stdout
        if not self.onyx_bench:
            self.onyx_note = f"{a.onyx} has no `bench` subcommand"

    def ort_cmd(self, model, threads, runs, warmup, inputs, json_path, outputs=None):
        runner = [self.node, self.run_ort]
        if self.a.ort_runner == "python":
            runner = [self.a.ort_python, os.path.join(HERE, "run_ort.py")]
        cmd = runner + [model, "--threads", str(threads), "--runs", str(runs),
               "--warmup", str(warmup), "--inputs-dir", inputs, "--json", json_path]
        return cmd + (["--outputs-dir", outputs] if outputs else [])

    def onyx_bench_cmd(self, model, threads, runs, warmup, inputs, json_path):
        return [self.onyx, "bench", model, "--threads", str(threads), "--runs", str(runs),
                "--warmup", str(warmup), "--inputs-dir", inputs, "--json", json_path] + self.a.onyx_arg

    def onyx_run_cmd(self, model, inputs, outputs, input_names):
        # --input NAME=FILE.npy works whether or not `run --inputs-dir` reads <name>.npy files.
        cmd = [self.onyx, "run", model, "--outputs-dir", outputs] + self.a.onyx_arg
        for n in input_names:
            cmd += ["--input", f"{n}={os.path.join(inputs, n + '.npy')}"]
        return cmd


def output_names(model_path):
    import onnx
    m = onnx.load(model_path, load_external_data=False)
    return [o.name for o in m.graph.output]


def load_output(dirpath, name, k):
    for f in (name + ".npy", f"output_{k}.npy"):  # onyx run writes output_K.npy today
        p = os.path.join(dirpath, f)
        if os.path.exists(p):
            return np.load(p)
    raise FileNotFoundError(f"neither {name}.npy nor output_{k}.npy in {dirpath}")


def diff(model_path, ort_dir, onyx_dir):
    """(max abs diff, max rel diff, note) over all outputs; rel = abs diff / max |ORT value|."""
    max_abs = max_rel = 0.0
    for k, name in enumerate(output_names(model_path)):
        ref = load_output(ort_dir, name, k)
        got = load_output(onyx_dir, name, k)
        if ref.shape != got.shape:
            return None, None, f"{name}: shape {list(got.shape)} vs ORT {list(ref.shape)}"
        if ref.dtype.kind in "fc" and not np.isfinite(got).all() and np.isfinite(ref).all():
            return None, None, f"{name}: onyx output has NaN/Inf"
        d = np.abs(got.astype(np.float64) - ref.astype(np.float64))
        scale = float(np.abs(ref).max()) if ref.size else 0.0
        m = float(d.max()) if d.size else 0.0
        max_abs = max(max_abs, m)
        max_rel = max(max_rel, m / scale if scale > 0 else (0.0 if m == 0 else float("inf")))
    return max_abs, max_rel, ""


def fmt(x, digits=1):
    if x is None:
        return "n/a"
    if isinstance(x, str):
        return x
    return f"{x:.{digits}f}"


def fmt_e(x):
    return "n/a" if x is None else f"{x:.1e}"


def ratio(a, b):
    return None if a is None or b is None or b == 0 else a / b


def median_fig(results, key):
    vals = [r[key] for r in results if r.get(key) is not None]
    return statistics.median(vals) if vals else None


def machine(a=None):
    cpu = ""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    try:
        ort = read_json(os.path.join(HERE, "ort-node", "node_modules", "onnxruntime-node", "package.json"))["version"]
    except OSError:
        ort = "?"
    if a is not None and a.ort_runner == "python":
        version = subprocess.run([a.ort_python, "-c", "import onnxruntime; print(onnxruntime.__version__)"],
                                 capture_output=True, text=True).stdout.strip() or "?"
        return f"{cpu or platform.processor()}, {os.cpu_count()} logical CPUs; onnxruntime {version} (Python wheel)"
    return f"{cpu or platform.processor()}, {os.cpu_count()} logical CPUs; onnxruntime-node {ort}"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--models", default="resnet50,mobilenet_v2,bert_base,gpt2_small",
                    help="comma-separated (default: the four of make_models.py; also gpt2_small_dynamo)")
    ap.add_argument("--models-dir", default=os.path.join(HERE, "models"))
    ap.add_argument("--threads", default="1,2", help="comma-separated thread counts (default 1,2)")
    ap.add_argument("--runs", type=int, help="timed runs per process (default: 50 mobilenet_v2, 10 others)")
    ap.add_argument("--warmup", type=int, help="untimed runs per process first (default: 5 mobilenet_v2, 2 others)")
    ap.add_argument("--rounds", type=int, default=3, help="alternating ORT/onyx process pairs (default 3)")
    ap.add_argument("--batch", type=int, default=1)
    ap.add_argument("--seq", type=int, default=128, help="sequence length for bert_base and gpt2_small")
    ap.add_argument("--onyx", default=os.path.join("build", "onyx"), help="onyx binary (default build/onyx)")
    ap.add_argument("--onyx-arg", action="append", default=[],
                    help="an extra argument for onyx bench and onyx run (repeatable), e.g. --onyx-arg=--bf16-gemm")
    ap.add_argument("--ort-only", action="store_true", help="measure ONNX Runtime alone")
    ap.add_argument("--ort-runner", choices=["node", "python"], default="node",
                    help="ORT through onnxruntime-node (bench/run_ort.js) or the Python wheel (bench/run_ort.py)")
    ap.add_argument("--ort-python", default=None,
                    help="the Python with the onnxruntime wheel for --ort-runner python (default: the test venv's, "
                         "scripts/test_venv.sh)")
    ap.add_argument("--no-diff", action="store_true", help="skip the output comparison")
    ap.add_argument("--timeout", type=int, default=1800, help="seconds allowed to one process (default 1800)")
    ap.add_argument("--work-dir", default=os.path.join(HERE, "work"), help="inputs, outputs, JSON (default bench/work)")
    ap.add_argument("--table-out", help="append the table, the date and the command line to this file")
    a = ap.parse_args()
    if a.ort_runner == "python" and not a.ort_python:
        venv = subprocess.run([os.path.join(ROOT, "scripts", "test_venv.sh")], capture_output=True, text=True,
                              check=True).stdout.strip()
        a.ort_python = os.path.join(venv, "bin", "python")

    models = [m.strip() for m in a.models.split(",") if m.strip()]
    for m in models:
        if m not in MODELS:
            sys.exit(f"unknown model '{m}' (known: {', '.join(MODELS)})")
    threads = [int(t) for t in a.threads.split(",") if t.strip()]
    os.makedirs(a.work_dir, exist_ok=True)
    tools = Tools(a, a.work_dir)
    if tools.onyx_note:
        log(f"onyx timings: n/a ({tools.onyx_note})")
    command = "/usr/bin/python3 " + " ".join(shlex.quote(x) for x in sys.argv)

    rows, details, problems = [], [], []
    for m in models:
        spec = MODELS[m]
        model_path = os.path.join(a.models_dir, m + ".onnx")
        if not os.path.exists(model_path):
            maker = "make_gpt2_dynamo.py" if m == "gpt2_small_dynamo" else "make_models.py"
            sys.exit(f"{model_path} is missing: run bench/{maker} first")
        seq = a.seq if spec.get("seq") else None
        tag = f"{m}_b{a.batch}" + (f"_s{seq}" if seq else "")
        label = m + (f" b{a.batch}" if a.batch != 1 else "") + (f" seq{seq}" if seq else "")
        label += "".join(" onyx " + x for x in a.onyx_arg)
        base = os.path.join(a.work_dir, tag)
        inputs = os.path.join(base, "inputs")
        make_inputs(m, a.batch, seq or 0, inputs)
        runs = a.runs if a.runs is not None else spec["runs"]
        warmup = a.warmup if a.warmup is not None else spec["warmup"]

        # 1. outputs, once per tool
        max_abs = max_rel = None
        diff_note = ""
        if not a.no_diff and tools.onyx:
            ort_out, onyx_out = os.path.join(base, "out_ort"), os.path.join(base, "out_onyx")
            for d in (ort_out, onyx_out):
                shutil.rmtree(d, ignore_errors=True)
            ok, wall, detail = run_proc(tools.ort_cmd(model_path, threads[0], 1, 0, inputs,
                                                      os.path.join(base, "ort_outputs.json"), ort_out), a.timeout)
            if not ok:
                problems.append(f"{label}: ORT run with outputs failed: {detail}")
                diff_note = "ORT failed"
            else:
                names = [n for n, _ in spec["inputs"]]
                log(f"{label}: onyx run ...")
                ok, wall, detail = run_proc(tools.onyx_run_cmd(model_path, inputs, onyx_out, names), a.timeout)
                if not ok:
                    problems.append(f"{label}: onyx run failed after {wall:.1f} s: {detail}")
                    diff_note = "onyx run failed"
                else:
                    log(f"{label}: onyx run took {wall:.1f} s (one process: load + one run + writing outputs)")
                    try:
                        max_abs, max_rel, diff_note = diff(model_path, ort_out, onyx_out)
                    except (OSError, ValueError) as e:
                        diff_note = f"no outputs ({e})"
                    if diff_note:
                        problems.append(f"{label}: {diff_note}")

        # 2. timings, alternating
        for t in threads:
            res = {"ort": [], "onyx": []}
            onyx_fail = None
            for r in range(a.rounds):
                order = ["ort", "onyx"] if r % 2 == 0 else ["onyx", "ort"]
                for tool in order:
                    if tool == "onyx" and (not tools.onyx_bench or onyx_fail):
                        continue
                    jp = os.path.join(base, f"{tool}_t{t}_r{r}.json")
                    if os.path.exists(jp):
                        os.remove(jp)
                    cmd = (tools.ort_cmd(model_path, t, runs, warmup, inputs, jp) if tool == "ort"
                           else tools.onyx_bench_cmd(model_path, t, runs, warmup, inputs, jp))
                    ok, wall, detail = run_proc(cmd, a.timeout)
                    if ok:
                        try:
                            res[tool].append(read_json(jp))
                        except (OSError, ValueError) as e:
                            ok, detail = False, f"no JSON in {jp}: {e}"
                    if not ok:
                        problems.append(f"{label} threads {t}: {tool} failed: {detail}")
                        if tool == "onyx":
                            onyx_fail = detail
                        continue
                    j = res[tool][-1]
                    log(f"{label} threads {t} round {r + 1}/{a.rounds}: {tool:4s} median {j['median_ms']:.2f} ms "
                        f"(min {j['min_ms']:.2f}, p90 {j['p90_ms']:.2f}), create {j['create_ms']:.0f} ms, "
                        f"peak RSS {j['peak_rss_mb']:.0f} MB, process {wall:.1f} s")
            ort = {k: median_fig(res["ort"], k) for k in FIGURES}
            ony = {k: median_fig(res["onyx"], k) for k in FIGURES}
            rows.append([label, str(t), fmt(ort["median_ms"], 2), fmt(ony["median_ms"], 2),
                         fmt(ratio(ony["median_ms"], ort["median_ms"]), 2),
                         fmt(ratio(ony["create_ms"], ort["create_ms"]), 2),
                         fmt(ratio(ony["peak_rss_mb"], ort["peak_rss_mb"]), 2),
                         fmt_e(max_abs) if not diff_note else diff_note, fmt_e(max_rel) if not diff_note else "n/a"])
            for tool, f, n in (("ORT", ort, len(res["ort"])), ("onyx", ony, len(res["onyx"]))):
                if tool == "onyx" and not n:
                    continue
                details.append([label, str(t), tool, fmt(f["min_ms"], 2), fmt(f["median_ms"], 2), fmt(f["p90_ms"], 2),
                                fmt(f["first_run_ms"], 1), fmt(f["create_ms"], 0), fmt(f["peak_rss_mb"], 0),
                                f"{n}x({warmup}+{runs})"])

    def table(header, body):
        out = ["| " + " | ".join(header) + " |", "|" + "|".join(" --- " for _ in header) + "|"]
        out += ["| " + " | ".join(row) + " |" for row in body]
        return "\n".join(out)

    text = []
    if not a.ort_only:
        text.append(table(["model", "threads", "ORT median ms", "onyx median ms", "onyx/ORT", "create onyx/ORT",
                           "RSS onyx/ORT", "max abs diff", "max rel diff"], rows))
        text.append("")
    text.append(table(["model", "threads", "tool", "min ms", "median ms", "p90 ms", "first run ms", "create ms",
                       "peak RSS MB", "processes x (warmup+runs)"], details))
    notes = []
    if tools.onyx_note:
        notes.append(f"onyx timings n/a: {tools.onyx_note}.")
    notes += problems
    if notes:
        text.append("")
        text += [f"- {n}" for n in notes]
    body = "\n".join(text)
    print(body)
    if a.table_out:
        stamp = datetime.datetime.now().astimezone().isoformat(timespec="seconds")
        head = [f"## {stamp}", "", f"`{command}`", "", f"Machine: {machine(a)}."]
        if tools.onyx:
            head.append(f"onyx: {a.onyx} built {tools.onyx_stamp}.")
        with open(a.table_out, "a") as f:
            f.write("\n".join(head) + "\n\n" + body + "\n\n")
        log(f"appended to {a.table_out}")


if __name__ == "__main__":
    main()
