"""scikit-learn models converted by skl2onnx (ai.onnx.ml operators: LinearClassifier,
LinearRegressor, SVMClassifier, SVMRegressor, Scaler, Normalizer, OneHotEncoder, Imputer,
LabelEncoder, ArrayFeatureExtractor, ZipMap, ...) run through `onyx run` (the CLI, .pb inputs
and outputs), compared with onnxruntime 1.30 and with scikit-learn itself. Fixed seeds.

The onyx binary: $ONYX_BIN, else build/onyx in the checkout. Needs scikit-learn and skl2onnx
in the venv (skipped otherwise)."""
import os
import subprocess

import numpy as np
import onnx
import pytest
from onnx import numpy_helper

import onnxruntime

sklearn = pytest.importorskip("sklearn")
skl2onnx = pytest.importorskip("skl2onnx")
from skl2onnx import to_onnx  # noqa: E402
from sklearn.compose import ColumnTransformer  # noqa: E402
from sklearn.datasets import load_iris, make_classification, make_regression  # noqa: E402
from sklearn.impute import SimpleImputer  # noqa: E402
from sklearn.linear_model import LinearRegression, LogisticRegression  # noqa: E402
from sklearn.pipeline import make_pipeline  # noqa: E402
from sklearn.preprocessing import Normalizer, OneHotEncoder, StandardScaler, MinMaxScaler  # noqa: E402
from sklearn.svm import SVC, SVR, LinearSVC, LinearSVR  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ONYX = os.environ.get("ONYX_BIN", os.path.join(ROOT, "build", "onyx"))
OPSETS = {"": 17, "ai.onnx.ml": 3}

pytestmark = pytest.mark.skipif(not os.path.exists(ONYX), reason=f"no onyx CLI at {ONYX}")


def read_pb(path, declared):
    """An output file of `onyx run` as numpy (tensor) or a list of dicts (sequence of maps)."""
    data = open(path, "rb").read()
    if declared.HasField("sequence_type"):
        seq = onnx.SequenceProto()
        seq.ParseFromString(data)
        maps = []
        for m in seq.map_values:
            keys = [k.decode() for k in m.string_keys] if m.key_type == onnx.TensorProto.STRING else list(m.keys)
            maps.append({k: numpy_helper.to_array(v).item() for k, v in zip(keys, m.values.tensor_values)})
        return maps
    t = onnx.TensorProto()
    t.ParseFromString(data)
    return numpy_helper.to_array(t)


def run_onyx(model, feeds, tmp_path):
    path = tmp_path / "model.onnx"
    path.write_bytes(model.SerializeToString())
    args = [ONYX, "run", str(path), "--outputs-dir", str(tmp_path / "out")]
    for name, value in feeds.items():
        f = tmp_path / f"{name}.pb"
        f.write_bytes(numpy_helper.from_array(value, name).SerializeToString())
        args += ["--input", f"{name}={f}"]
    proc = subprocess.run(args, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr + proc.stdout
    return [read_pb(tmp_path / "out" / f"output_{k}.pb", o.type) for k, o in enumerate(model.graph.output)]


def run_ort(model, feeds):
    s = onnxruntime.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    return s.run(None, feeds)


def assert_same(ours, ort, rtol=1e-4, atol=1e-5):
    assert len(ours) == len(ort)
    for a, b in zip(ours, ort):
        if isinstance(b, list):  # ZipMap's maps
            assert len(a) == len(b)
            for ma, mb in zip(a, b):
                assert set(ma) == set(mb)
                for k in mb:
                    np.testing.assert_allclose(ma[k], mb[k], rtol=rtol, atol=atol)
        elif b.dtype == object:
            assert a.tolist() == b.tolist()
        else:
            np.testing.assert_allclose(a, b, rtol=rtol, atol=atol)


def classification(n_classes, seed=0):
    x, y = make_classification(n_samples=60, n_features=5, n_informative=4, n_redundant=0, n_classes=n_classes,
                               random_state=seed)
    return x.astype(np.float32), y


CLASSIFIERS = {
    "logreg": lambda: LogisticRegression(max_iter=500),
    "linear_svc": lambda: LinearSVC(max_iter=5000),
    "svc_rbf_proba": lambda: SVC(probability=True, random_state=0),
    "svc_poly": lambda: SVC(kernel="poly", degree=3),
    "svc_linear_proba": lambda: SVC(kernel="linear", probability=True, random_state=0),
    "svc_sigmoid": lambda: SVC(kernel="sigmoid", gamma=0.1),
    "scaled_logreg": lambda: make_pipeline(StandardScaler(), LogisticRegression(max_iter=500)),
    "normalized_svc": lambda: make_pipeline(Normalizer(norm="l2"), SVC(probability=True, random_state=0)),
    "minmax_svc_linear": lambda: make_pipeline(MinMaxScaler(), SVC(kernel="linear")),
}


@pytest.mark.parametrize("zipmap", [False, True])
@pytest.mark.parametrize("n_classes", [2, 3])
@pytest.mark.parametrize("name", sorted(CLASSIFIERS))
def test_classifier(name, n_classes, zipmap, tmp_path):
    x, y = classification(n_classes)
    clf = CLASSIFIERS[name]().fit(x, y)
    final = clf.steps[-1][1] if hasattr(clf, "steps") else clf
    if isinstance(final, LinearSVC):  # skl2onnx has no zipmap option for it: its scores stay a tensor
        if zipmap:
            pytest.skip("no ZipMap for LinearSVC")
        model = to_onnx(clf, x[:1], target_opset=OPSETS)
    else:
        model = to_onnx(clf, x[:1], target_opset=OPSETS, options={id(final): {"zipmap": zipmap}})
    ours = run_onyx(model, {"X": x}, tmp_path)
    assert_same(ours, run_ort(model, {"X": x}))
    np.testing.assert_array_equal(ours[0], clf.predict(x))
    if hasattr(clf, "predict_proba") and (not hasattr(clf, "probability") or clf.probability):
        proba = clf.predict_proba(x)
        got = np.array([[m[c] for c in sorted(m)] for m in ours[1]]) if zipmap else ours[1]
        np.testing.assert_allclose(got, proba, rtol=1e-3, atol=1e-4)


def test_string_labels_zipmap(tmp_path):
    x, y = classification(3, seed=3)
    labels = np.array(["cat", "dog", "eel"])[y]
    clf = LogisticRegression(max_iter=500).fit(x, labels)
    model = to_onnx(clf, x[:1], target_opset=OPSETS)
    ours = run_onyx(model, {"X": x}, tmp_path)
    assert_same(ours, run_ort(model, {"X": x}))
    assert ours[0].tolist() == clf.predict(x).tolist()


REGRESSORS = {
    "linreg": lambda: LinearRegression(),
    "linear_svr": lambda: LinearSVR(max_iter=5000, random_state=0),
    "svr_rbf": lambda: SVR(),
    "scaled_svr_poly": lambda: make_pipeline(StandardScaler(), SVR(kernel="poly", degree=2)),
}


@pytest.mark.parametrize("name", sorted(REGRESSORS))
def test_regressor(name, tmp_path):
    x, y = make_regression(n_samples=50, n_features=4, noise=0.5, random_state=1)
    x = x.astype(np.float32)
    reg = REGRESSORS[name]().fit(x, y)
    model = to_onnx(reg, x[:1], target_opset=OPSETS)
    ours = run_onyx(model, {"X": x}, tmp_path)
    assert_same(ours, run_ort(model, {"X": x}), rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(ours[0].ravel(), reg.predict(x), rtol=1e-3, atol=1e-3)


def test_imputer_one_hot_pipeline(tmp_path):
    rng = np.random.default_rng(7)
    num = rng.normal(size=(40, 3)).astype(np.float32)
    num[rng.random((40, 3)) < 0.2] = np.nan
    cat = rng.integers(0, 4, (40, 2)).astype(np.int64)
    x = np.concatenate([num, cat.astype(np.float32)], axis=1)
    y = (np.nan_to_num(num[:, 0]) + cat[:, 0] > 1.5).astype(int)
    pre = ColumnTransformer([("num", make_pipeline(SimpleImputer(strategy="mean"), StandardScaler()), [0, 1, 2]),
                             ("cat", OneHotEncoder(handle_unknown="ignore"), [3, 4])])
    clf = make_pipeline(pre, LogisticRegression(max_iter=500)).fit(x, y)
    model = to_onnx(clf, x[:1], target_opset=OPSETS, options={id(clf.steps[-1][1]): {"zipmap": False}})
    ours = run_onyx(model, {"X": x}, tmp_path)
    assert_same(ours, run_ort(model, {"X": x}))
    np.testing.assert_array_equal(ours[0], clf.predict(x))
    np.testing.assert_allclose(ours[1], clf.predict_proba(x), rtol=1e-3, atol=1e-4)


def test_iris_label_encoded_strings(tmp_path):
    data = load_iris()
    x = data.data.astype(np.float32)
    names = data.target_names[data.target]
    clf = make_pipeline(StandardScaler(), SVC(probability=True, random_state=0)).fit(x, names)
    for zipmap in (False, True):
        model = to_onnx(clf, x[:1], target_opset=OPSETS, options={id(clf.steps[-1][1]): {"zipmap": zipmap}})
        ours = run_onyx(model, {"X": x}, tmp_path)
        assert_same(ours, run_ort(model, {"X": x}))
        assert ours[0].tolist() == clf.predict(x).tolist()
