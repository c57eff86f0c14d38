"""ai.onnx.ml tree ensembles: onyx against onnxruntime on three converted models, at batch 1
and 10,000 rows, 1 and 2 threads.

Data: make_classification(20000, n_features=32, n_informative=20, random_state=0).
Models: GradientBoostingClassifier (500 trees, depth 8, fit on 5,000 rows), RandomForestClassifier
(100 trees, depth 12, fit on 10,000), XGBClassifier (500 trees, depth 8, hist, fit on 5,000);
converted with skl2onnx / onnxmltools, ZipMap off. Models are cached in --work (training GB
takes minutes).

Timing: for each (model, batch, threads) the two runtimes take turns, --rounds times: onyx by
`onyx bench --json` (its median over --runs: the C++ run call), ORT in this process twice: its
Python run() wall time, and its own profiler's model_run durations (the C++ run, no Python
binding costs: the like-for-like figure, used for the ratio). The figure per runtime is the
median of its round medians. (The onyx Python module of a build against Debian's pybind11
cannot read the venv's numpy 2 arrays, hence the CLI.) Also checks that both
give the same labels and probabilities on the batch.

Run in the test venv (scikit-learn, skl2onnx, onnxmltools, xgboost, onnxruntime 1.30):
    $(scripts/test_venv.sh)/bin/python bench/ml_trees_compare.py [--onyx build/onyx]
"""
import argparse
import json
import os
import statistics
import subprocess
import tempfile
import time

import numpy as np
import onnx
import onnxruntime

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def build_models(work):
    from sklearn.datasets import make_classification
    x, y = make_classification(20000, n_features=32, n_informative=20, random_state=0)
    x = x.astype(np.float32)
    paths = {}
    specs = [("gb500_d8", 5000), ("rf100_d12", 10000), ("xgb500_d8", 5000)]
    for name, fit_rows in specs:
        path = os.path.join(work, name + ".onnx")
        paths[name] = path
        if os.path.exists(path):
            continue
        t0 = time.time()
        if name.startswith("gb"):
            from sklearn.ensemble import GradientBoostingClassifier
            model = GradientBoostingClassifier(n_estimators=500, max_depth=8, random_state=0).fit(x[:fit_rows], y[:fit_rows])
        elif name.startswith("rf"):
            from sklearn.ensemble import RandomForestClassifier
            model = RandomForestClassifier(n_estimators=100, max_depth=12, random_state=0, n_jobs=2).fit(x[:fit_rows], y[:fit_rows])
        else:
            import xgboost
            model = xgboost.XGBClassifier(n_estimators=500, max_depth=8, tree_method="hist", random_state=0,
                                          n_jobs=2).fit(x[:fit_rows], y[:fit_rows])
        if name.startswith("xgb"):
            from onnxmltools import convert_xgboost
            from onnxmltools.convert.common.data_types import FloatTensorType
            onx = convert_xgboost(model, initial_types=[("X", FloatTensorType([None, 32]))], target_opset=15)
        else:
            from skl2onnx import convert_sklearn
            from skl2onnx.common.data_types import FloatTensorType
            onx = convert_sklearn(model, initial_types=[("X", FloatTensorType([None, 32]))],
                                  options={id(model): {"zipmap": False}}, target_opset={"": 17, "ai.onnx.ml": 3})
        onnx.save(onx, path)
        print(f"trained and converted {name} in {time.time() - t0:.0f} s", flush=True)
    return paths, x


def ort_median(sess, feed, runs, warmup):
    for _ in range(warmup):
        sess.run(None, feed)
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        sess.run(None, feed)
        times.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(times)


def ort_profiled_median(path, threads, feed, runs, warmup, work):
    """ORT's own time per run (its profiler's model_run events), without Python's binding costs."""
    opts = onnxruntime.SessionOptions()
    opts.intra_op_num_threads = threads
    opts.inter_op_num_threads = 1
    opts.enable_profiling = True
    opts.profile_file_prefix = os.path.join(work, "ort_profile")
    sess = onnxruntime.InferenceSession(path, opts, providers=["CPUExecutionProvider"])
    for _ in range(warmup + runs):
        sess.run(None, feed)
    trace = sess.end_profiling()
    events = [e for e in json.load(open(trace)) if e.get("name") == "model_run"]
    os.remove(trace)
    return statistics.median(e["dur"] / 1e3 for e in events[warmup:])


def onyx_median(onyx, model, inputs_dir, threads, runs, warmup):
    with tempfile.NamedTemporaryFile(suffix=".json") as out:
        subprocess.run([onyx, "bench", model, "--threads", str(threads), "--runs", str(runs), "--warmup", str(warmup),
                        "--inputs-dir", inputs_dir, "--json", out.name], check=True, capture_output=True)
        return json.load(open(out.name))["median_ms"]


def onyx_outputs(onyx, model, inputs_dir):
    with tempfile.TemporaryDirectory() as out:
        subprocess.run([onyx, "run", model, "--inputs-dir", inputs_dir, "--outputs-dir", out], check=True,
                       capture_output=True)
        m = onnx.load(model, load_external_data=False)
        return [np.load(os.path.join(out, o.name + ".npy"), allow_pickle=True) for o in m.graph.output]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--onyx", default=os.path.join(ROOT, "build", "onyx"))
    ap.add_argument("--work", default="/tmp/onyx_ml_trees_bench")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--batches", default="1,10000")
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--models", default="gb500_d8,rf100_d12,xgb500_d8")
    args = ap.parse_args()
    os.makedirs(args.work, exist_ok=True)
    paths, x = build_models(args.work)
    rows = []
    for name in args.models.split(","):
        path = paths[name]
        for batch in [int(b) for b in args.batches.split(",")]:
            xb = np.ascontiguousarray(x[10000:10000 + batch] if batch <= 10000 else x[:batch])
            inputs_dir = os.path.join(args.work, f"in_{batch}")
            os.makedirs(inputs_dir, exist_ok=True)
            np.save(os.path.join(inputs_dir, "X.npy"), xb)
            ours = onyx_outputs(args.onyx, path, inputs_dir)
            check = onnxruntime.InferenceSession(path, providers=["CPUExecutionProvider"]).run(None, {"X": xb})
            labels_equal = float(np.mean(ours[0] == check[0]))
            prob_diff = float(np.max(np.abs(ours[1] - check[1]))) if batch else 0.0
            runs = 200 if batch == 1 else 10
            warmup = 20 if batch == 1 else 2
            for threads in [int(t) for t in args.threads.split(",")]:
                opts = onnxruntime.SessionOptions()
                opts.intra_op_num_threads = threads
                opts.inter_op_num_threads = 1
                sess = onnxruntime.InferenceSession(path, opts, providers=["CPUExecutionProvider"])
                o_times, r_times, p_times = [], [], []
                for _ in range(args.rounds):
                    o_times.append(onyx_median(args.onyx, path, inputs_dir, threads, runs, warmup))
                    r_times.append(ort_median(sess, {"X": xb}, runs, warmup))
                    p_times.append(ort_profiled_median(path, threads, {"X": xb}, runs, warmup, args.work))
                o, r, p = statistics.median(o_times), statistics.median(r_times), statistics.median(p_times)
                row = dict(model=name, batch=batch, threads=threads, onyx_ms=o, ort_python_ms=r, ort_internal_ms=p,
                           ort_internal_over_onyx=p / o, onyx_rounds=o_times, ort_python_rounds=r_times,
                           ort_internal_rounds=p_times, labels_equal=labels_equal, max_prob_diff=prob_diff)
                rows.append(row)
                print(f"{name:10s} batch {batch:5d} threads {threads}: onyx {o:9.3f} ms  ORT {p:9.3f} ms "
                      f"(python {r:9.3f})  ORT/onyx {p / o:5.2f}x  (rounds onyx {['%.3f' % t for t in o_times]}, "
                      f"ORT {['%.3f' % t for t in p_times]}; labels equal {labels_equal:.4f}, "
                      f"max |dp| {prob_diff:.2e})", flush=True)
    with open(os.path.join(args.work, "results.json"), "w") as f:
        json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main()
