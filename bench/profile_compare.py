#!/usr/bin/python3
"""Where the time goes, onyx beside ONNX Runtime: both profilers on one benchmark model.

    /usr/bin/python3 bench/profile_compare.py MODEL [--threads 1] [--runs 50] [--warmup 5]
        [--batch 1] [--seq 128] [--onyx build/onyx] [--top 15]

MODEL is a name from bench/compare.py (its models in bench/models/, its deterministic inputs).
Runs `onyx bench --profile` and `node bench/run_ort.js --profile` once each and prints, per
tool, the per-run time summed by operator type (each node's median over the timed runs), the
total node time against the median latency (the rest is framework time between nodes), and
the slowest nodes. Profiling adds its own cost, so the latencies here are not the comparison's
figures (bench/compare.py gives those); the split between operator types is what this is for.
"""
import argparse
import collections
import json
import os
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import compare  # noqa: E402  (the models and their inputs)


def node_medians(events, warmup_and_first):
    """(name, op) -> median duration in us over the timed runs (the first runs dropped)."""
    by_node = collections.defaultdict(list)
    for e in events:
        by_node[(e["name"], e["op"])].append(e["dur"])
    return {k: statistics.median(v[warmup_and_first:] or v) for k, v in by_node.items()}


def onyx_events(trace):
    return [{"name": e["name"], "op": e["args"].get("op_name", "?"), "dur": e["dur"]}
            for e in (trace if isinstance(trace, list) else trace["traceEvents"]) if e.get("cat") == "Node"]


def ort_events(trace):
    events = trace if isinstance(trace, list) else trace.get("traceEvents", [])
    out = []
    for e in events:
        if e.get("cat") != "Node" or not e.get("name", "").endswith("_kernel_time"):
            continue
        out.append({"name": e["name"][:-len("_kernel_time")], "op": e.get("args", {}).get("op_name", "?"),
                    "dur": e["dur"]})
    return out


def report(tool, medians, latency_ms, top):
    total_us = sum(medians.values())
    by_op = collections.Counter()
    count = collections.Counter()
    for (_, op), us in medians.items():
        by_op[op] += us
        count[op] += 1
    print(f"\n{tool}: median latency {latency_ms:.3f} ms, node time {total_us / 1000:.3f} ms "
          f"({len(medians)} nodes), between nodes {latency_ms - total_us / 1000:.3f} ms")
    print("| op | nodes | ms per run | share |\n| --- | --- | --- | --- |")
    for op, us in by_op.most_common():
        print(f"| {op} | {count[op]} | {us / 1000:.3f} | {100 * us / total_us:.1f}% |")
    print(f"slowest {top} nodes (us): " + ", ".join(
        f"{name} [{op}] {us:.0f}" for (name, op), us in sorted(medians.items(), key=lambda kv: -kv[1])[:top]))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("model", choices=sorted(compare.MODELS))
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--runs", type=int, default=50)
    ap.add_argument("--warmup", type=int, default=5)
    ap.add_argument("--batch", type=int, default=1)
    ap.add_argument("--seq", type=int, default=128)
    ap.add_argument("--onyx", default=os.path.join(compare.ROOT, "build", "onyx"))
    ap.add_argument("--top", type=int, default=15)
    a = ap.parse_args()

    model = os.path.join(HERE, "models", a.model + ".onnx")
    if not os.path.exists(model):
        sys.exit(f"{model} is missing: run /usr/bin/python3 bench/make_models.py first")
    work = tempfile.mkdtemp(prefix="onyx-profile-")
    inputs = os.path.join(work, "inputs")
    compare.make_inputs(a.model, a.batch, a.seq, inputs)
    common = ["--threads", str(a.threads), "--runs", str(a.runs), "--warmup", str(a.warmup), "--inputs-dir", inputs]

    onyx_json, onyx_trace = os.path.join(work, "onyx.json"), os.path.join(work, "onyx_trace.json")
    subprocess.run([a.onyx, "bench", model, *common, "--json", onyx_json, "--profile", onyx_trace],
                   check=True, stdout=subprocess.DEVNULL)
    ort_json = os.path.join(work, "ort.json")
    subprocess.run(["node", os.path.join(HERE, "run_ort.js"), model, *common, "--json", ort_json,
                    "--profile", os.path.join(work, "ort_trace")], check=True, stdout=subprocess.DEVNULL, cwd=work)
    ort_result = json.load(open(ort_json))
    ort_trace = ort_result.get("profile_file")
    if not ort_trace:
        sys.exit("onnxruntime-node wrote no profile (no endProfiling in this version)")

    skip = a.warmup + 1  # the first run and the warm-up runs
    with open(onyx_trace) as f:
        onyx_medians = node_medians(onyx_events(json.load(f)), skip)
    with open(os.path.join(work, ort_trace) if not os.path.isabs(ort_trace) else ort_trace) as f:
        ort_medians = node_medians(ort_events(json.load(f)), skip)
    print(f"{a.model}, batch {a.batch}, {a.threads} thread(s), {a.runs} timed runs; traces in {work}")
    report("onyx", onyx_medians, json.load(open(onyx_json))["median_ms"], a.top)
    report("ORT", ort_medians, ort_result["median_ms"], a.top)


if __name__ == "__main__":
    main()
