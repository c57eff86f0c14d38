"""ai.onnx.ml tree ensembles from real libraries: small scikit-learn (RandomForest,
ExtraTrees, GradientBoosting), XGBoost and LightGBM models, binary and multi-class classifiers
and regressors, converted with skl2onnx / onnxmltools (ZipMap off), run by onyx and compared with
onnxruntime 1.30 and with the library's own predictions. Fixed seeds throughout.

onyx runs through its command line (`onyx run --inputs-dir --outputs-dir`), so this file needs
only the build's `onyx` binary: ONYX_BIN, or build/onyx of this checkout. Run in the test venv:
    $(scripts/test_venv.sh)/bin/python -m pytest tests/python_ort/test_ml_trees_vs_ort.py
(ctest's ml_trees_vs_ort). The library's predictions are compared loosely where the converted
model must differ: thresholds become float32, so a row lying between a float32 threshold and the
library's double one may take the other branch."""
import os
import subprocess
import tempfile

import numpy as np
import onnx
import pytest

import onnxruntime
import onyx

sklearn = pytest.importorskip("sklearn")
skl2onnx = pytest.importorskip("skl2onnx")
from sklearn.datasets import make_classification, make_regression  # noqa: E402
from sklearn.ensemble import (ExtraTreesClassifier, ExtraTreesRegressor, GradientBoostingClassifier,  # noqa: E402
                              GradientBoostingRegressor, RandomForestClassifier, RandomForestRegressor)
from skl2onnx import convert_sklearn  # noqa: E402
from skl2onnx.common.data_types import FloatTensorType  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ONYX = os.environ.get("ONYX_BIN", os.path.join(ROOT, "build", "onyx"))
FEATURES = 10


def onyx_run(model, x):
    """Outputs of `model` (ModelProto) on input x, by the onyx CLI, in graph output order."""
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "model.onnx")
        onnx.save(model, path)
        inputs, outputs = os.path.join(tmp, "in"), os.path.join(tmp, "out")
        os.makedirs(inputs)
        np.save(os.path.join(inputs, model.graph.input[0].name + ".npy"), x)
        proc = subprocess.run([ONYX, "run", path, "--inputs-dir", inputs, "--outputs-dir", outputs],
                              capture_output=True, text=True)
        assert proc.returncode == 0, proc.stderr + proc.stdout
        return [np.load(os.path.join(outputs, o.name + ".npy"), allow_pickle=True) for o in model.graph.output]


def ort_run(model, x):
    sess = onnxruntime.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    return sess.run(None, {sess.get_inputs()[0].name: x})


def data(classes=None, rows=400, nan_fraction=0.0, seed=0, targets=1):
    if classes:
        x, y = make_classification(rows, n_features=FEATURES, n_informative=6, n_classes=classes,
                                   random_state=seed)
    else:
        x, y = make_regression(rows, n_features=FEATURES, n_informative=6, n_targets=targets, random_state=seed)
    x = x.astype(np.float32)
    if nan_fraction:
        rng = np.random.default_rng(seed)
        x[rng.random(x.shape) < nan_fraction] = np.nan
    return x, y


def sk_onnx(model):
    return convert_sklearn(model, initial_types=[("X", FloatTensorType([None, FEATURES]))],
                           options={id(model): {"zipmap": False}} if hasattr(model, "classes_") else None,
                           target_opset={"": 17, "ai.onnx.ml": 3})


def check_classifier(onx, x, labels_lib, proba_lib, proba_atol=1e-4):
    ours = onyx_run(onx, x)
    ort = ort_run(onx, x)
    np.testing.assert_array_equal(ours[0], ort[0])
    np.testing.assert_allclose(ours[1], ort[1], rtol=1e-5, atol=1e-5)
    # Against the library: all but a few rows (float32 thresholds) agree.
    assert np.mean(ours[0] == labels_lib) >= 0.99
    close = np.all(np.abs(ours[1] - proba_lib) <= proba_atol + 1e-3 * np.abs(proba_lib), axis=1)
    assert np.mean(close) >= 0.98, np.max(np.abs(ours[1] - proba_lib))


def check_regressor(onx, x, pred_lib, atol=1e-3):
    ours = onyx_run(onx, x)[0]
    ort = ort_run(onx, x)[0]
    np.testing.assert_allclose(ours, ort, rtol=1e-5, atol=1e-4 * max(1.0, float(np.max(np.abs(ort)))))
    pred_lib = np.asarray(pred_lib, np.float64).reshape(ours.shape)
    close = np.abs(ours - pred_lib) <= atol * np.maximum(1.0, np.abs(pred_lib))
    assert np.mean(np.all(close, axis=1)) >= 0.98


@pytest.mark.parametrize("classes", [2, 3])
@pytest.mark.parametrize("kind", [RandomForestClassifier, ExtraTreesClassifier])
def test_forest_classifier(kind, classes):
    x, y = data(classes)
    model = kind(n_estimators=12, max_depth=7, random_state=0).fit(x, y)
    check_classifier(sk_onnx(model), x, model.predict(x), model.predict_proba(x))


@pytest.mark.parametrize("classes", [2, 4])
def test_gradient_boosting_classifier(classes):
    x, y = data(classes)
    model = GradientBoostingClassifier(n_estimators=20, max_depth=3, random_state=0).fit(x, y)
    check_classifier(sk_onnx(model), x, model.predict(x), model.predict_proba(x))


@pytest.mark.parametrize("kind", [RandomForestRegressor, ExtraTreesRegressor, GradientBoostingRegressor])
def test_sklearn_regressor(kind):
    x, y = data()
    model = kind(n_estimators=15, max_depth=6, random_state=0).fit(x, y)
    check_regressor(sk_onnx(model), x, model.predict(x))


def test_forest_regressor_multi_target():
    x, y = data(targets=3)
    model = RandomForestRegressor(n_estimators=8, max_depth=6, random_state=0).fit(x, y)
    check_regressor(sk_onnx(model), x, model.predict(x))


def test_forest_classifier_double_input():
    from skl2onnx.common.data_types import DoubleTensorType
    x, y = data(3)
    model = RandomForestClassifier(n_estimators=6, max_depth=5, random_state=0).fit(x, y)
    onx = convert_sklearn(model, initial_types=[("X", DoubleTensorType([None, FEATURES]))],
                          options={id(model): {"zipmap": False}}, target_opset={"": 17, "ai.onnx.ml": 3})
    x64 = x.astype(np.float64)
    ours, ort = onyx_run(onx, x64), ort_run(onx, x64)
    np.testing.assert_array_equal(ours[0], ort[0])
    np.testing.assert_allclose(ours[1], ort[1], rtol=1e-6, atol=1e-6)
    np.testing.assert_array_equal(ours[0], model.predict(x64))


def xgb_onnx(model):
    from onnxmltools import convert_xgboost
    from onnxmltools.convert.common.data_types import FloatTensorType as MlFloat
    return convert_xgboost(model, initial_types=[("X", MlFloat([None, FEATURES]))], target_opset=15)


def lgbm_onnx(model, zipmap=False):
    from onnxmltools import convert_lightgbm
    from onnxmltools.convert.common.data_types import FloatTensorType as MlFloat
    return convert_lightgbm(model, initial_types=[("X", MlFloat([None, FEATURES]))], target_opset=15, zipmap=zipmap)


@pytest.mark.parametrize("nan", [0.0, 0.1])
@pytest.mark.parametrize("classes", [2, 3])
def test_xgboost_classifier(classes, nan):
    xgboost = pytest.importorskip("xgboost")
    x, y = data(classes, nan_fraction=nan)
    model = xgboost.XGBClassifier(n_estimators=15, max_depth=4, tree_method="hist", random_state=0).fit(x, y)
    check_classifier(xgb_onnx(model), x, model.predict(x), model.predict_proba(x))


@pytest.mark.parametrize("nan", [0.0, 0.1])
def test_xgboost_regressor(nan):
    xgboost = pytest.importorskip("xgboost")
    x, y = data(nan_fraction=nan)
    model = xgboost.XGBRegressor(n_estimators=15, max_depth=4, tree_method="hist", random_state=0).fit(x, y)
    check_regressor(xgb_onnx(model), x, model.predict(x))


@pytest.mark.parametrize("nan", [0.0, 0.1])
@pytest.mark.parametrize("classes", [2, 3])
def test_lightgbm_classifier(classes, nan):
    lightgbm = pytest.importorskip("lightgbm")
    x, y = data(classes, nan_fraction=nan)
    model = lightgbm.LGBMClassifier(n_estimators=15, num_leaves=15, random_state=0, verbose=-1).fit(x, y)
    onx = lgbm_onnx(model)
    check_classifier(onx, x, model.predict(x), model.predict_proba(x))


@pytest.mark.parametrize("nan", [0.0, 0.1])
def test_lightgbm_regressor(nan):
    lightgbm = pytest.importorskip("lightgbm")
    x, y = data(nan_fraction=nan)
    model = lightgbm.LGBMRegressor(n_estimators=15, num_leaves=15, random_state=0, verbose=-1).fit(x, y)
    check_regressor(lgbm_onnx(model), x, model.predict(x))


def test_batch_one_and_empty():
    x, y = data(3)
    model = RandomForestClassifier(n_estimators=10, max_depth=6, random_state=0).fit(x, y)
    onx = sk_onnx(model)
    for rows in (x[:1], x[:7], x[:0]):
        ours, ort = onyx_run(onx, rows), ort_run(onx, rows)
        np.testing.assert_array_equal(ours[0], ort[0])
        np.testing.assert_allclose(ours[1], ort[1], rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("rows", [1, 3, 7])
def test_few_rows_of_a_large_ensemble_on_two_threads(rows):
    # Ensembles whose trees' depths sum to 2,500 or more split their trees between threads for a
    # few rows (under 8); the leaves are added in tree order, so the result equals one thread's
    # exactly.
    x, y = data(classes=3, rows=600, seed=4)
    model = GradientBoostingClassifier(n_estimators=150, max_depth=6, random_state=0).fit(x, y)
    onx = sk_onnx(model)
    assert sum(t.tree_.max_depth for t in model.estimators_.ravel()) >= 2500  # 450 trees of depth 6
    feed = x[:rows]
    results = []
    for threads in (1, 2):
        opts = onyx.SessionOptions()
        opts.intra_op_num_threads = threads
        sess = onyx.InferenceSession(onx.SerializeToString(), opts, providers=["CPUExecutionProvider"])
        results.append(sess.run(None, {"X": feed}))
    np.testing.assert_array_equal(results[0][0], results[1][0])
    np.testing.assert_array_equal(results[0][1], results[1][1])
    ort = ort_run(onx, feed)
    np.testing.assert_array_equal(results[1][0], ort[0])
    np.testing.assert_allclose(results[1][1], ort[1], rtol=1e-5, atol=1e-6)
