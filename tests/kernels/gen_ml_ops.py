#!/usr/bin/python3
"""Kernel cases for the ai.onnx.ml operators other than the tree ensembles: LinearClassifier,
LinearRegressor, Scaler, Normalizer, LabelEncoder (v1, v2, v4), ZipMap, SVMClassifier,
SVMRegressor, OneHotEncoder, Imputer, Binarizer, ArrayFeatureExtractor, FeatureVectorizer,
DictVectorizer, CastMap and CategoryMapper. Expected outputs come from the numpy references
below, written from the ONNX-ML spec (and, where the spec is silent, ONNX Runtime's documented
behaviour: binary LinearClassifier scores [1 - s, s], CastMap's "%f" strings).

Usage: gen_ml_ops.py OUT_DIR (see kcase.py for the layout)."""
import numpy as np
from onnx import TensorProto as TP, numpy_helper

import ml_more_cases
from kcase import Writer

w = Writer()
rng = np.random.default_rng(4242)
ML = "ai.onnx.ml"
f32 = lambda a: np.asarray(a, np.float32)
S = lambda *a: np.array(a, dtype=object)


def ml_case(name, op, inputs, outputs, version=1, **attrs):
    w.case(name, op, inputs, outputs, domain=ML, extra_opsets=[(ML, version)], **attrs)


def ml_bad(name, op, inputs, outputs, error, version=1, **attrs):
    w.bad(name, op, inputs, outputs, error, domain=ML, extra_opsets=[(ML, version)], **attrs)


# ---- post transforms, as the spec defines them ----
def logistic(v):
    return 1 / (1 + np.exp(-v))


def softmax(v):
    e = np.exp(v - v.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def softmax_zero(v):
    out = np.empty_like(v)
    for r in range(v.shape[0]):
        row = v[r]
        top = row.max()
        e = np.where(np.abs(row) > 1e-7, np.exp(row - top), row * np.exp(-top))
        out[r] = 0.5 if e.sum() == 0 else e / e.sum()
    return out


def probit(p):
    # sqrt(2) erfinv(2p - 1), erfinv by Winitzki's approximation with a = 0.147
    x = 2 * p - 1
    ln = np.log((1 - x) * (1 + x))
    t = 2 / (np.pi * 0.147) + ln / 2
    return np.sqrt(2) * np.sign(x) * np.sqrt(np.sqrt(t * t - ln / 0.147) - t)


POST = {"NONE": lambda v: v, "LOGISTIC": logistic, "SOFTMAX": softmax, "SOFTMAX_ZERO": softmax_zero, "PROBIT": probit}

# ---- LinearClassifier ----
x = rng.uniform(-2, 2, (6, 4)).astype(np.float32)
for classes in (3, 4):
    coef = rng.uniform(-1, 1, (classes, 4)).astype(np.float32)
    inter = rng.uniform(-0.5, 0.5, classes).astype(np.float32)
    for pt in ("NONE", "LOGISTIC", "SOFTMAX", "SOFTMAX_ZERO"):
        scores = POST[pt](x.astype(np.float64) @ coef.T.astype(np.float64) + inter)
        labels = np.argmax(scores, axis=1)
        ints = [10 * i + 3 for i in range(classes)]
        ml_case(f"linear_classifier_{classes}_{pt.lower()}_ints", "LinearClassifier", [("X", x)],
                [("Y", np.array(ints, np.int64)[labels]), ("Z", f32(scores))],
                coefficients=coef.ravel().tolist(), intercepts=inter.tolist(), classlabels_ints=ints, post_transform=pt)
    names = [f"c{i}" for i in range(classes)]
    scores = x.astype(np.float64) @ coef.T + inter
    for dt in (np.float64, np.int64, np.int32):
        xi = (x * 3).astype(dt)
        s = xi.astype(np.float64) @ coef.T.astype(np.float64) + inter
        ml_case(f"linear_classifier_{classes}_strings_{np.dtype(dt).name}", "LinearClassifier", [("X", xi)],
                [("Y", S(*names)[np.argmax(s, axis=1)]), ("Z", f32(s))],
                coefficients=coef.ravel().tolist(), intercepts=inter.tolist(), classlabels_strings=names)
coef = rng.uniform(-1, 1, 4).astype(np.float32)
for pt in ("NONE", "LOGISTIC"):
    s = x.astype(np.float64) @ coef + 0.25
    p = logistic(s) if pt == "LOGISTIC" else s
    ml_case(f"linear_classifier_binary_{pt.lower()}", "LinearClassifier", [("X", x)],
            [("Y", np.where(s > 0, 7, 3).astype(np.int64)), ("Z", f32(np.stack([1 - p, p], axis=1)))],
            coefficients=coef.tolist(), intercepts=[0.25], classlabels_ints=[3, 7], post_transform=pt)
ml_case("linear_classifier_one_row_1d", "LinearClassifier", [("X", x[0])],
        [("Y", S("yes" if x[0] @ coef > 0 else "no")), ("Z", f32([[1 - x[0] @ coef, x[0] @ coef]]))],
        coefficients=coef.tolist(), intercepts=[0.0], classlabels_strings=["no", "yes"])
ml_bad("linear_classifier_bad_coefficients", "LinearClassifier", [("X", x)], [("Y", TP.INT64), ("Z", TP.FLOAT)],
       "INVALID_MODEL", coefficients=[1.0] * 7, intercepts=[0, 0, 0], classlabels_ints=[1, 2, 3])
ml_bad("linear_classifier_bad_labels", "LinearClassifier", [("X", x)], [("Y", TP.INT64), ("Z", TP.FLOAT)],
       "INVALID_MODEL", coefficients=[1.0] * 8, intercepts=[0, 0], classlabels_ints=[1, 2, 3])
ml_bad("linear_classifier_both_labels", "LinearClassifier", [("X", x)], [("Y", TP.INT64), ("Z", TP.FLOAT)],
       "only one of", coefficients=[1.0] * 8, intercepts=[0, 0], classlabels_ints=[1, 2], classlabels_strings=["a", "b"])
ml_bad("linear_classifier_bad_post_transform", "LinearClassifier", [("X", x)], [("Y", TP.INT64), ("Z", TP.FLOAT)],
       "post_transform", coefficients=[1.0] * 8, intercepts=[0, 0], classlabels_ints=[1, 2], post_transform="RELU")
ml_bad("linear_classifier_wrong_features", "LinearClassifier", [("X", x[:, :3])], [("Y", TP.INT64), ("Z", TP.FLOAT)],
       "features", coefficients=[1.0] * 8, intercepts=[0, 0], classlabels_ints=[1, 2])

# ---- LinearRegressor ----
for targets in (1, 3):
    coef = rng.uniform(-1, 1, (targets, 4)).astype(np.float32)
    inter = rng.uniform(-1, 1, targets).astype(np.float32)
    for pt in ("NONE", "LOGISTIC", "SOFTMAX"):
        y = POST[pt](x.astype(np.float64) @ coef.T + inter)
        ml_case(f"linear_regressor_{targets}_{pt.lower()}", "LinearRegressor", [("X", x)], [("Y", f32(y))],
                coefficients=coef.ravel().tolist(), intercepts=inter.tolist(), targets=targets, post_transform=pt)
ml_case("linear_regressor_no_intercepts_int64", "LinearRegressor", [("X", np.arange(8, dtype=np.int64).reshape(2, 4))],
        [("Y", f32(np.arange(8).reshape(2, 4) @ np.array([1, -1, 2, 0.5])).reshape(2, 1))], coefficients=[1, -1, 2, 0.5])
ml_bad("linear_regressor_bad_targets", "LinearRegressor", [("X", x)], [("Y", TP.FLOAT)], "INVALID_MODEL",
       coefficients=[1.0] * 8, targets=3)
ml_bad("linear_regressor_bad_intercepts", "LinearRegressor", [("X", x)], [("Y", TP.FLOAT)], "INVALID_MODEL",
       coefficients=[1.0] * 8, intercepts=[1.0], targets=2)

# ---- Scaler ----
offset, scale = rng.uniform(-1, 1, 4).astype(np.float32), rng.uniform(0.5, 2, 4).astype(np.float32)
for dt in (np.float32, np.float64, np.int64, np.int32):
    xi = (x * 4).astype(dt)
    ml_case(f"scaler_{np.dtype(dt).name}", "Scaler", [("X", xi)],
            [("Y", f32((xi.astype(np.float64) - offset) * scale))], offset=offset.tolist(), scale=scale.tolist())
ml_case("scaler_scalar_attrs", "Scaler", [("X", x)], [("Y", f32((x - np.float32(0.5)) * np.float32(2)))], offset=[0.5], scale=[2.0])
ml_case("scaler_scale_only_1d", "Scaler", [("X", x[0])], [("Y", f32(x[0] * scale))], scale=scale.tolist())
ml_bad("scaler_bad_lengths", "Scaler", [("X", x)], [("Y", TP.FLOAT)], "offset and scale", offset=[1.0, 2.0], scale=[1.0])

# ---- Normalizer ----
xn = np.concatenate([x, np.zeros((1, 4), np.float32)])
norms = {"MAX": lambda v: np.abs(v).max(axis=1, keepdims=True), "L1": lambda v: np.abs(v).sum(axis=1, keepdims=True),
         "L2": lambda v: np.sqrt((v * v).sum(axis=1, keepdims=True))}
for norm, fn in norms.items():
    for dt in (np.float32, np.float64, np.int64):
        xi = (xn * 3).astype(dt)
        d = xi.astype(np.float64)
        n = fn(d)
        ml_case(f"normalizer_{norm.lower()}_{np.dtype(dt).name}", "Normalizer", [("X", xi)],
                [("Y", f32(np.where(n == 0, d, d / np.where(n == 0, 1, n))))], norm=norm)
ml_case("normalizer_l2_1d", "Normalizer", [("X", x[1])], [("Y", f32(x[1] / np.sqrt((x[1].astype(np.float64) ** 2).sum())))],
        norm="L2")
ml_bad("normalizer_bad_norm", "Normalizer", [("X", x)], [("Y", TP.FLOAT)], "norm must be", norm="L3")

# ---- LabelEncoder ----
xs = S("a", "b", "zz", "c", "a")
ml_case("label_encoder_v1_string_to_int", "LabelEncoder", [("X", xs)], [("Y", np.array([0, 1, 42, 2, 0], np.int64))],
        classes_strings=["a", "b", "c"], default_int64=42)
ml_case("label_encoder_v1_int_to_string", "LabelEncoder", [("X", np.array([[2, 0], [5, 1]], np.int64))],
        [("Y", np.array([["c", "a"], ["_Unused", "b"]], dtype=object))], classes_strings=["a", "b", "c"])
KEYS = {"floats": ([1.5, -2.0, 3.25], np.float32), "int64s": ([7, -1, 30], np.int64), "strings": (["x", "y", "z"], object)}
VALS = {"floats": ([0.5, 10.0, -4.0], np.float32), "int64s": ([100, 200, 300], np.int64), "strings": (["P", "Q", "R"], object)}
DEFAULTS = {"floats": ("default_float", 9.5), "int64s": ("default_int64", -9), "strings": ("default_string", "none")}
BUILTIN = {"floats": -0.0, "int64s": -1, "strings": "_Unused"}
MISS = {"floats": 8.0, "int64s": 5, "strings": "w"}
for version in (2, 4):
    for kname, (keys, kt) in KEYS.items():
        for vname, (vals, vt) in VALS.items():
            xin = np.array([keys[2], MISS[kname], keys[0], keys[1]], dtype=kt)
            for with_default in (False, True):
                dname, dval = DEFAULTS[vname]
                fallback = dval if with_default else BUILTIN[vname]
                y = np.array([vals[2], fallback, vals[0], vals[1]], dtype=vt)
                attrs = {f"keys_{kname}": keys, f"values_{vname}": vals}
                if with_default:
                    attrs[dname] = dval
                ml_case(f"label_encoder_v{version}_{kname}_{vname}{'_default' if with_default else ''}", "LabelEncoder",
                        [("X", xin)], [("Y", y)], version=version, **attrs)
# v4 tensor attributes: double and int32 / int16 keys and values, default_tensor
TENSOR_TYPES = [(np.float64, [0.25, 1e10, -3.5]), (np.int32, [4, -8, 16]), (np.int16, [1, 2, 3]), (np.int64, [9, 8, 7]),
                (object, ["k0", "k1", "k2"])]
for kt, keys in TENSOR_TYPES:
    for vt, vals in TENSOR_TYPES:
        if kt is vt:
            continue
        kt_name, vt_name = np.dtype(kt).name, np.dtype(vt).name
        k = np.array(keys, dtype=kt)
        v = np.array(vals, dtype=vt)
        miss = np.array(["nope"] if kt is object else [123], dtype=kt)
        xin = np.concatenate([k[::-1], miss]).reshape(2, 2)
        default = np.array(["dflt"] if vt is object else [55], dtype=vt)
        attrs = {"keys_tensor": numpy_helper.from_array(k), "values_tensor": numpy_helper.from_array(v),
                 "default_tensor": numpy_helper.from_array(default)}
        ml_case(f"label_encoder_v4_tensor_{kt_name}_{vt_name}", "LabelEncoder", [("X", xin)],
                [("Y", np.concatenate([v[::-1], default]).reshape(2, 2))], version=4, **attrs)
k = np.array([1.0, np.nan, 2.0], np.float64)
ml_case("label_encoder_v4_nan_key", "LabelEncoder", [("X", np.array([np.nan, 2.0, 3.0], np.float64))],
        [("Y", np.array([20, 30, -1], np.int64))], version=4, keys_tensor=numpy_helper.from_array(k),
        values_tensor=numpy_helper.from_array(np.array([10, 20, 30], np.int64)))
ml_case("label_encoder_v4_values_tensor_only_default", "LabelEncoder", [("X", S("a", "q"))],
        [("Y", np.array([1.5, -0.0], np.float64))], version=4, keys_strings=["a", "b"],
        values_tensor=numpy_helper.from_array(np.array([1.5, 2.5], np.float64)))
ml_bad("label_encoder_bad_lengths", "LabelEncoder", [("X", S("a"))], [("Y", TP.INT64)], "INVALID_MODEL", version=2,
       keys_strings=["a", "b"], values_int64s=[1])
ml_bad("label_encoder_two_key_lists", "LabelEncoder", [("X", S("a"))], [("Y", TP.INT64)], "INVALID_MODEL", version=2,
       keys_strings=["a"], keys_int64s=[1], values_int64s=[1])
ml_bad("label_encoder_no_values", "LabelEncoder", [("X", S("a"))], [("Y", TP.INT64)], "INVALID_MODEL", version=2,
       keys_strings=["a"])
ml_bad("label_encoder_bad_default_tensor", "LabelEncoder", [("X", S("a"))], [("Y", TP.INT64)], "default_tensor",
       version=4, keys_strings=["a"], values_int64s=[1],
       default_tensor=numpy_helper.from_array(np.array([1.0], np.float32)))
ml_bad("label_encoder_wrong_input_type", "LabelEncoder", [("X", np.array([1], np.int64))], [("Y", TP.INT64)],
       "keys are", version=2, keys_strings=["a"], values_int64s=[1])

ml_more_cases.write(w, rng, ml_case, ml_bad, POST)
w.done()
