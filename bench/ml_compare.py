"""ai.onnx.ml models: onyx against onnxruntime and against the library's own predict, in one
process, at batch 1 and 10,000 rows, 1 and 2 threads.

Data: make_classification(20000, n_features=32, n_informative=20, n_classes=2 or 4,
random_state=0) (make_regression for regressors); the "_nan" models have 20% of their entries
set to NaN, in fitting and in the batches. Models (fitted on rows 0..fit-1, converted with
skl2onnx / onnxmltools, ZipMap off, cached in --work since some take minutes to fit):
  trees  gb500_d8 (GradientBoostingClassifier 500 x depth 8), rf100_d12 (RandomForest 100 x 12),
         xgb500_d8 (XGBoost hist 500 x 8), lgbm500 (LightGBM 500 trees, 63 leaves),
         xgb300_nan (XGBoost 300 x 8 on data with NaN), lgbm300_nan (LightGBM 300 trees, 63
         leaves, on data with NaN). (skl2onnx 1.20 cannot convert HistGradientBoosting with
         missing values under onnx 1.23: it writes numpy bools into an ints attribute.)
  linear logreg4 (LogisticRegression, 4 classes), linreg (LinearRegression), linear_svc4
  svm    svc_rbf4 (SVC rbf, 4 classes, fit on 3,000 rows), svr_rbf (SVR, fit on 3,000)
  prep   scaler (StandardScaler), prep_pipeline (SimpleImputer -> StandardScaler -> Normalizer
         -> Binarizer, with NaN), onehot (OneHotEncoder over 32 integer-valued columns)

Timing: for each (model, batch, threads) onyx and ORT sessions are made with
intra_op_num_threads = threads; then --rounds times, in turn, each runtime's median over a
round of runs (about 0.3 s of runs, at least 5) and the library's own predict (threads given as
its n_jobs / nthread where it has one). A figure is the median of its round medians. Both
runtimes are called through their Python API on the same numpy array, so the binding's cost is
in both. Also checks that onyx's outputs equal ORT's (labels exactly, numbers to 1e-4).

Run in the test venv (scikit-learn, skl2onnx, onnxmltools, xgboost, lightgbm, onnxruntime):
    PYTHONPATH=build/python $(scripts/test_venv.sh)/bin/python bench/ml_compare.py [--models a,b]
"""
import argparse
import json
import os
import pickle
import statistics
import time

import numpy as np
import onnx
import onnxruntime

import onyx

onnxruntime.set_default_logger_severity(3)  # not its warnings about declared output shapes

N_FEATURES = 32


def data(kind, seed=0):
    from sklearn.datasets import make_classification, make_regression
    if kind == "regression":
        x, y = make_regression(20000, n_features=N_FEATURES, n_informative=20, noise=0.1, random_state=seed)
    elif kind == "onehot":
        rng = np.random.default_rng(seed)
        x = rng.integers(0, 12, size=(20000, N_FEATURES)).astype(np.float64)
        y = None
    else:
        n_classes = 4 if kind == "classes4" else 2
        x, y = make_classification(20000, n_features=N_FEATURES, n_informative=20, n_classes=n_classes,
                                   random_state=seed)
    x = x.astype(np.float32)
    if kind == "nan":
        rng = np.random.default_rng(1)
        x[rng.random(x.shape) < 0.2] = np.nan
    return x, y


def make_model(name):
    """(fitted estimator, data kind, rows fitted on, converter)."""
    from sklearn import ensemble, impute, linear_model, pipeline, preprocessing, svm
    if name == "gb500_d8":
        return ensemble.GradientBoostingClassifier(n_estimators=500, max_depth=8, random_state=0), "binary", 5000, "skl"
    if name == "rf100_d12":
        return ensemble.RandomForestClassifier(n_estimators=100, max_depth=12, random_state=0, n_jobs=2), "binary", 10000, "skl"
    if name in ("xgb500_d8", "xgb300_nan"):
        import xgboost
        n = 500 if name == "xgb500_d8" else 300
        return (xgboost.XGBClassifier(n_estimators=n, max_depth=8, tree_method="hist", random_state=0, n_jobs=2),
                "binary" if name == "xgb500_d8" else "nan", 5000, "xgb")
    if name in ("lgbm500", "lgbm300_nan"):
        import lightgbm
        n = 500 if name == "lgbm500" else 300
        return (lightgbm.LGBMClassifier(n_estimators=n, num_leaves=63, random_state=0, n_jobs=2, verbose=-1),
                "binary" if name == "lgbm500" else "nan", 5000, "lgbm")
    if name == "logreg4":
        return linear_model.LogisticRegression(max_iter=300), "classes4", 10000, "skl"
    if name == "linreg":
        return linear_model.LinearRegression(), "regression", 10000, "skl"
    if name == "linear_svc4":
        return svm.LinearSVC(max_iter=2000), "classes4", 10000, "skl"
    if name == "svc_rbf4":
        return svm.SVC(), "classes4", 3000, "skl"
    if name == "svr_rbf":
        return svm.SVR(), "regression", 3000, "skl"
    if name == "scaler":
        return preprocessing.StandardScaler(), "binary", 10000, "skl"
    if name == "prep_pipeline":
        return (pipeline.make_pipeline(impute.SimpleImputer(), preprocessing.StandardScaler(), preprocessing.Normalizer(),
                                       preprocessing.Binarizer(threshold=0.05)), "nan", 10000, "skl")
    if name == "onehot":
        return preprocessing.OneHotEncoder(sparse_output=False, handle_unknown="ignore"), "onehot", 10000, "skl"
    raise ValueError(f"unknown model {name}")


def convert(model, converter):
    if converter == "xgb":
        from onnxmltools import convert_xgboost
        from onnxmltools.convert.common.data_types import FloatTensorType
        return convert_xgboost(model, initial_types=[("X", FloatTensorType([None, N_FEATURES]))], target_opset=15)
    if converter == "lgbm":
        from onnxmltools import convert_lightgbm
        from onnxmltools.convert.common.data_types import FloatTensorType
        return convert_lightgbm(model, initial_types=[("X", FloatTensorType([None, N_FEATURES]))], target_opset=15,
                                zipmap=False)
    from skl2onnx import convert_sklearn
    from skl2onnx.common.data_types import FloatTensorType
    final = model.steps[-1][1] if hasattr(model, "steps") else model
    types = [("X", FloatTensorType([None, N_FEATURES]))]
    opsets = {"": 17, "ai.onnx.ml": 3}
    if hasattr(final, "classes_"):
        try:
            return convert_sklearn(model, initial_types=types, options={id(final): {"zipmap": False}}, target_opset=opsets)
        except NameError:  # a classifier without the option (LinearSVC): its scores stay a tensor
            pass
    return convert_sklearn(model, initial_types=types, target_opset=opsets)


def build(name, work):
    """The fitted estimator, the path of its ONNX file and its data."""
    path = os.path.join(work, name + ".onnx")
    pickled = os.path.join(work, name + ".pkl")
    model, kind, fit_rows, converter = make_model(name)
    x, y = data(kind)
    if os.path.exists(path) and os.path.exists(pickled):
        with open(pickled, "rb") as f:
            return pickle.load(f), path, x
    t0 = time.time()
    model.fit(x[:fit_rows]) if y is None else model.fit(x[:fit_rows], y[:fit_rows])
    onnx.save(convert(model, converter), path)
    with open(pickled, "wb") as f:
        pickle.dump(model, f)
    print(f"fitted and converted {name} in {time.time() - t0:.0f} s", flush=True)
    return model, path, x


def library_predict(model, threads):
    """The estimator's own prediction call, with `threads` where it takes a thread count."""
    final = model.steps[-1][1] if hasattr(model, "steps") else model
    for attr in ("n_jobs", "nthread"):
        if hasattr(final, attr) and getattr(final, attr) is not None:
            try:
                final.set_params(**{attr: threads})
            except ValueError:
                pass
    if hasattr(model, "predict_proba"):
        return model.predict_proba
    if hasattr(model, "predict"):
        return model.predict
    return model.transform


def round_median(call, budget_s=0.3, min_runs=5):
    t0 = time.perf_counter()
    call()
    first = time.perf_counter() - t0
    runs = max(min_runs, min(2000, int(budget_s / max(first, 1e-7))))
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        call()
        times.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(times)


def session(rt, path, threads):
    opts = rt.SessionOptions()
    opts.intra_op_num_threads = threads
    opts.inter_op_num_threads = 1
    return rt.InferenceSession(path, opts, providers=["CPUExecutionProvider"])


def compare_outputs(ours, ort):
    worst = 0.0
    for a, b in zip(ours, ort):
        a, b = np.asarray(a), np.asarray(b)
        if b.dtype.kind in "iuOUSb":
            if a.tolist() != b.tolist():
                return float("inf")
        else:
            worst = max(worst, float(np.max(np.abs(a.astype(np.float64) - b), initial=0.0)))
    return worst


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--work", default="/tmp/onyx_ml_bench")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--batches", default="1,10000")
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--models", default="gb500_d8,rf100_d12,xgb500_d8,lgbm500,xgb300_nan,lgbm300_nan,logreg4,linreg,"
                                        "linear_svc4,svc_rbf4,svr_rbf,scaler,prep_pipeline,onehot")
    ap.add_argument("--no-library", action="store_true", help="skip the library's own predict")
    args = ap.parse_args()
    os.makedirs(args.work, exist_ok=True)
    rows = []
    for name in args.models.split(","):
        model, path, x = build(name, args.work)
        for batch in [int(b) for b in args.batches.split(",")]:
            xb = np.ascontiguousarray(x[10000:10000 + batch])
            feed = {"X": xb}
            for threads in [int(t) for t in args.threads.split(",")]:
                ours_s, ort_s = session(onyx, path, threads), session(onnxruntime, path, threads)
                diff = compare_outputs(ours_s.run(None, feed), ort_s.run(None, feed))
                predict = None if args.no_library else library_predict(model, threads)
                o_t, r_t, l_t = [], [], []
                for _ in range(args.rounds):
                    o_t.append(round_median(lambda: ours_s.run(None, feed)))
                    r_t.append(round_median(lambda: ort_s.run(None, feed)))
                    if predict is not None:
                        l_t.append(round_median(lambda: predict(xb), budget_s=0.3, min_runs=3))
                o, r = statistics.median(o_t), statistics.median(r_t)
                lib = statistics.median(l_t) if l_t else float("nan")
                rows.append(dict(model=name, batch=batch, threads=threads, onyx_ms=o, ort_ms=r, library_ms=lib,
                                 ort_over_onyx=r / o, library_over_onyx=lib / o, max_abs_diff=diff,
                                 onyx_rounds=o_t, ort_rounds=r_t, library_rounds=l_t))
                print(f"{name:13s} batch {batch:5d} threads {threads}: onyx {o:9.4f} ms  ORT {r:9.4f} ms  "
                      f"library {lib:9.4f} ms  ORT/onyx {r / o:5.2f}x  library/onyx {lib / o:6.2f}x  "
                      f"max |onyx-ORT| {diff:.1e}", flush=True)
    with open(os.path.join(args.work, "results.json"), "w") as f:
        json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main()
