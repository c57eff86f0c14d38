"""The second half of gen_ml_ops.py's cases (imported by it, not a generator itself): ZipMap,
SVMClassifier, SVMRegressor, OneHotEncoder, Imputer, Binarizer, ArrayFeatureExtractor,
FeatureVectorizer, DictVectorizer, CastMap and CategoryMapper, with numpy references from the
ONNX-ML spec."""
import os

import numpy as np
import onnx
from onnx import TensorProto as TP, helper, numpy_helper

from kcase import model, value_info

ML = "ai.onnx.ml"
f32 = lambda a: np.asarray(a, np.float32)
S = lambda *a: np.array(a, dtype=object)


def map_type(key, value):
    t = onnx.TypeProto()
    t.map_type.key_type = key
    t.map_type.value_type.CopyFrom(helper.make_tensor_type_proto(value, None))
    return t


def seq_type(elem):
    t = onnx.TypeProto()
    t.sequence_type.elem_type.CopyFrom(elem)
    return t


def map_proto(d, key, value):
    """A dict as a MapProto: int64 or string keys, scalar tensors of `value` type."""
    m = onnx.MapProto(key_type=key)
    if key == TP.STRING:
        m.string_keys.extend(k.encode() for k in d)
    else:
        m.keys.extend(d)
    m.values.elem_type = onnx.SequenceProto.TENSOR
    np_type = {TP.FLOAT: np.float32, TP.DOUBLE: np.float64, TP.INT64: np.int64, TP.STRING: object}[value]
    m.values.tensor_values.extend(numpy_helper.from_array(np.array(v, dtype=np_type)) for v in d.values())
    return m


def proto_case(w, name, m, inputs, outputs, error=None):
    """A case whose inputs / outputs are ready protos (maps, sequences of maps, tensors)."""
    d = w._dir("bad" if error else "pass", name)
    onnx.save(m, os.path.join(d, "model.onnx"))
    for prefix, protos in (("input", inputs), ("output", outputs)):
        for k, p in enumerate(protos):
            with open(os.path.join(d, "test_data_set_0", f"{prefix}_{k}.pb"), "wb") as f:
                f.write(p.SerializeToString())
    if error:
        with open(os.path.join(d, "expected_error.txt"), "w") as f:
            f.write(error + "\n")


def ml_model(node, inputs, outputs):
    return model([node], inputs, outputs, extra_opsets=[(ML, 1)])


def kernel_value(kind, gamma, coef0, degree, a, b):
    if kind == "LINEAR":
        return a @ b
    if kind == "POLY":
        return (gamma * (a @ b) + coef0) ** degree
    if kind == "RBF":
        return np.exp(-gamma * ((a - b) ** 2).sum())
    return np.tanh(gamma * (a @ b) + coef0)


def coupled(r, k):
    """Class probabilities from pairwise ones (Wu, Lin and Weng 2004, second method)."""
    Q = np.zeros((k, k))
    for t in range(k):
        for j in range(k):
            if j != t:
                Q[t, t] += r[j, t] ** 2
                Q[t, j] = -r[j, t] * r[t, j]
    p = np.full(k, 1.0 / k)
    for _ in range(max(100, k)):
        Qp = Q @ p
        pQp = p @ Qp
        if np.abs(Qp - pQp).max() < 0.005 / k:
            break
        for t in range(k):
            diff = (pQp - Qp[t]) / Q[t, t]
            p[t] += diff
            pQp = (pQp + diff * (diff * Q[t, t] + 2 * Qp[t])) / (1 + diff) ** 2
            Qp = (Qp + diff * Q[t]) / (1 + diff)
            p /= 1 + diff
    return p


def svc_reference(x, sv, per_class, coef, rho, kind, params, prob_a, prob_b, post, POST):
    k = len(per_class)
    starts = np.concatenate([[0], np.cumsum(per_class)[:-1]]).astype(int)
    V = sum(per_class)
    coef = np.asarray(coef, np.float64).reshape(k - 1, V)
    labels, rows = [], []
    for row in x.astype(np.float64):
        K = np.array([kernel_value(kind, *params, row, sv[v]) for v in range(V)])
        votes = np.zeros(k)
        d = []
        for i in range(k):
            for j in range(i + 1, k):
                si, sj = starts[i], starts[j]
                s = rho[len(d)] + coef[j - 1, si:si + per_class[i]] @ K[si:si + per_class[i]] + \
                    coef[i, sj:sj + per_class[j]] @ K[sj:sj + per_class[j]]
                votes[i if s > 0 else j] += 1
                d.append(s)
        best = int(np.argmax(votes))
        if prob_a:
            r = np.zeros((k, k))
            p = 0
            for i in range(k):
                for j in range(i + 1, k):
                    v = np.clip(1 / (1 + np.exp(d[p] * prob_a[p] + prob_b[p])), 1e-7, 1 - 1e-7)
                    r[i, j], r[j, i] = v, 1 - v
                    p += 1
            z = POST[post](coupled(r, k)[None])[0]
        elif k == 2:
            z = POST[post](np.array([[-d[0], d[0]]]))[0]
            if min(coef.ravel()) >= 0:
                best = 1
        else:
            z = POST[post](np.array([d]))[0]
        labels.append(best)
        rows.append(z)
    return np.array(labels), f32(rows)


def write(w, rng, ml_case, ml_bad, POST):
    x = rng.uniform(-2, 2, (5, 3)).astype(np.float32)
    # ---- ZipMap ----
    for key, labels in ((TP.INT64, [4, 9, 1]), (TP.STRING, ["a", "b", "c"])):
        attr = "classlabels_int64s" if key == TP.INT64 else "classlabels_strings"
        for rows in (x, x[0]):
            node = helper.make_node("ZipMap", ["X"], ["Z"], domain=ML, **{attr: labels})
            m = ml_model(node, [value_info("X", rows)], [helper.make_value_info("Z", seq_type(map_type(key, TP.FLOAT)))])
            seq = onnx.SequenceProto(elem_type=onnx.SequenceProto.MAP)
            seq.map_values.extend(map_proto(dict(zip(labels, r.tolist())), key, TP.FLOAT) for r in np.atleast_2d(rows))
            proto_case(w, f"zipmap_{'int64' if key == TP.INT64 else 'string'}_{rows.ndim}d", m,
                       [numpy_helper.from_array(rows)], [seq])
    ml_bad("zipmap_wrong_columns", "ZipMap", [("X", x[:, :2])], [("Z", TP.FLOAT)], "columns", classlabels_int64s=[1, 2, 3])
    ml_bad("zipmap_both_labels", "ZipMap", [("X", x)], [("Z", TP.FLOAT)], "INVALID_MODEL", classlabels_int64s=[1, 2, 3],
           classlabels_strings=["a", "b", "c"])

    # ---- SVMClassifier ----
    for kind, params in (("LINEAR", [0.0, 0.0, 0]), ("POLY", [0.3, 1.0, 2]), ("RBF", [0.5, 0.0, 0]),
                         ("SIGMOID", [0.2, -0.1, 0])):
        for per_class in ([2, 3], [2, 1, 2], [1, 2, 1, 2]):
            k, V = len(per_class), sum(per_class)
            sv = rng.uniform(-1.5, 1.5, (V, 3)).astype(np.float32)
            coef = rng.uniform(-1, 1, (k - 1) * V).astype(np.float32)
            rho = rng.uniform(-0.3, 0.3, k * (k - 1) // 2).astype(np.float32)
            attrs = dict(kernel_type=kind, kernel_params=params, support_vectors=sv.ravel().tolist(),
                         vectors_per_class=per_class, coefficients=coef.tolist(), rho=rho.tolist())
            ints = [5 * i + 1 for i in range(k)]
            for proba in (False, True):
                pa = rng.uniform(-3, -1, len(rho)).astype(np.float32).tolist() if proba else []
                pb = rng.uniform(-0.2, 0.2, len(rho)).astype(np.float32).tolist() if proba else []
                extra = dict(prob_a=pa, prob_b=pb) if proba else {}
                for post in ("NONE", "LOGISTIC", "SOFTMAX") if kind == "RBF" else ("NONE",):
                    lab, z = svc_reference(x, sv.astype(np.float64), per_class, coef, rho.astype(np.float64), kind,
                                           params, pa, pb, post, POST)
                    ml_case(f"svm_classifier_{kind.lower()}_{k}{'_proba' if proba else ''}_{post.lower()}", "SVMClassifier",
                            [("X", x)], [("Y", np.array(ints, np.int64)[lab]), ("Z", z)], classlabels_ints=ints,
                            post_transform=post, **attrs, **extra)
            names = [f"n{i}" for i in range(k)]
            lab, z = svc_reference(x, sv.astype(np.float64), per_class, coef, rho.astype(np.float64), kind, params, [], [],
                                   "NONE", POST)
            ml_case(f"svm_classifier_{kind.lower()}_{k}_strings_double", "SVMClassifier", [("X", x.astype(np.float64))],
                    [("Y", S(*names)[lab]), ("Z", z)], classlabels_strings=names, **attrs)
    # all-positive coefficients, two classes: the second label, as ONNX Runtime does
    sv = rng.uniform(-1, 1, (3, 3)).astype(np.float32)
    lab, z = svc_reference(x, sv.astype(np.float64), [1, 2], [0.5, 0.2, 0.1], [0.1], "RBF", [0.5, 0, 0], [], [], "NONE", POST)
    ml_case("svm_classifier_binary_positive_weights", "SVMClassifier", [("X", x)], [("Y", np.array([3, 8], np.int64)[lab]),
            ("Z", z)], classlabels_ints=[3, 8], kernel_type="RBF", kernel_params=[0.5, 0, 0],
            support_vectors=sv.ravel().tolist(), vectors_per_class=[1, 2], coefficients=[0.5, 0.2, 0.1], rho=[0.1])
    # linear mode: one coefficient row and one rho per class
    coef = rng.uniform(-1, 1, (3, 3)).astype(np.float32)
    rho = f32([0.1, -0.2, 0.3])
    for post in ("NONE", "SOFTMAX"):
        z = POST[post](x.astype(np.float64) @ coef.T.astype(np.float64) + rho)
        ml_case(f"svm_classifier_linear_mode_{post.lower()}", "SVMClassifier", [("X", x)],
                [("Y", np.array([0, 1, 2], np.int64)[np.argmax(z, axis=1)]), ("Z", f32(z))], classlabels_ints=[0, 1, 2],
                coefficients=coef.ravel().tolist(), rho=rho.tolist(), post_transform=post)
    sv_attrs = dict(kernel_type="RBF", support_vectors=[0.0] * 9, vectors_per_class=[1, 2], rho=[0.1])
    ml_bad("svm_classifier_bad_coefficients", "SVMClassifier", [("X", x)], [("Y", TP.INT64), ("Z", TP.FLOAT)],
           "INVALID_MODEL", classlabels_ints=[0, 1], coefficients=[1.0, 2.0], **sv_attrs)
    ml_bad("svm_classifier_bad_rho", "SVMClassifier", [("X", x)], [("Y", TP.INT64), ("Z", TP.FLOAT)], "INVALID_MODEL",
           classlabels_ints=[0, 1, 2], coefficients=[1.0] * 6, kernel_type="RBF", support_vectors=[0.0] * 9,
           vectors_per_class=[1, 1, 1], rho=[0.1])
    ml_bad("svm_classifier_bad_prob", "SVMClassifier", [("X", x)], [("Y", TP.INT64), ("Z", TP.FLOAT)], "prob_a",
           classlabels_ints=[0, 1], coefficients=[1.0] * 3, prob_a=[1.0, 2.0], prob_b=[0.0], **sv_attrs)
    ml_bad("svm_classifier_bad_kernel", "SVMClassifier", [("X", x)], [("Y", TP.INT64), ("Z", TP.FLOAT)], "kernel_type",
           classlabels_ints=[0, 1], coefficients=[1.0] * 3, **dict(sv_attrs, kernel_type="CUBIC"))
    ml_bad("svm_classifier_wrong_features", "SVMClassifier", [("X", x[:, :2])], [("Y", TP.INT64), ("Z", TP.FLOAT)],
           "features", classlabels_ints=[0, 1], coefficients=[1.0] * 3, **sv_attrs)
    ml_bad("svm_classifier_no_labels", "SVMClassifier", [("X", x)], [("Y", TP.INT64), ("Z", TP.FLOAT)], "INVALID_MODEL",
           coefficients=[1.0] * 3, **sv_attrs)

    # ---- SVMRegressor ----
    for kind, params in (("LINEAR", [0.0, 0.0, 0]), ("POLY", [0.3, 1.0, 3]), ("RBF", [0.5, 0.0, 0]),
                         ("SIGMOID", [0.2, -0.1, 0])):
        sv = rng.uniform(-1.5, 1.5, (4, 3)).astype(np.float32)
        coef = rng.uniform(-1, 1, 4).astype(np.float32)
        s = np.array([sum(coef[j] * kernel_value(kind, *params, r, sv[j].astype(np.float64)) for j in range(4)) + 0.2
                      for r in x.astype(np.float64)])
        for one_class, post in ((0, "NONE"), (0, "LOGISTIC"), (1, "NONE")):
            y = np.where(s > 0, 1.0, -1.0) if one_class else POST[post](s)
            ml_case(f"svm_regressor_{kind.lower()}_{'one_class' if one_class else post.lower()}", "SVMRegressor", [("X", x)],
                    [("Y", f32(y).reshape(-1, 1))], kernel_type=kind, kernel_params=params, support_vectors=sv.ravel().tolist(),
                    n_supports=4, coefficients=coef.tolist(), rho=[0.2], one_class=one_class, post_transform=post)
    ml_case("svm_regressor_linear_mode_int64", "SVMRegressor", [("X", np.array([[1, 2, 3], [-1, 0, 4]], np.int64))],
            [("Y", f32([[1 * 0.5 - 2 + 3 * 0.25 + 1], [-0.5 + 1 + 1]]))], coefficients=[0.5, -1.0, 0.25], rho=[1.0])
    ml_bad("svm_regressor_bad_supports", "SVMRegressor", [("X", x)], [("Y", TP.FLOAT)], "INVALID_MODEL",
           kernel_type="RBF", support_vectors=[0.0] * 7, n_supports=3, coefficients=[1.0] * 3, rho=[0.0])
    ml_bad("svm_regressor_bad_rho", "SVMRegressor", [("X", x)], [("Y", TP.FLOAT)], "rho", coefficients=[1.0] * 3, rho=[0.0, 1.0])

    # ---- OneHotEncoder ----
    cats = [3, 1, 7]
    xi = np.array([[1, 7, 2], [3, 3, 1]], np.int64)
    onehot = lambda v, c: np.array([[1.0 if a == b else 0.0 for b in c] for a in v.ravel()], np.float32).reshape(*v.shape, len(c))
    ml_case("one_hot_encoder_int64", "OneHotEncoder", [("X", xi)], [("Y", onehot(xi, cats))], cats_int64s=cats)
    ml_case("one_hot_encoder_int32_1d", "OneHotEncoder", [("X", xi[0].astype(np.int32))], [("Y", onehot(xi[0], cats))],
            cats_int64s=cats)
    ml_case("one_hot_encoder_double", "OneHotEncoder", [("X", xi.astype(np.float64))], [("Y", onehot(xi, cats))],
            cats_int64s=cats)
    xs = S("b", "a", "zz", "b")
    ml_case("one_hot_encoder_string", "OneHotEncoder", [("X", xs)], [("Y", onehot(xs, ["a", "b"]))], cats_strings=["a", "b"])
    ml_case("one_hot_encoder_zeros0_all_known", "OneHotEncoder", [("X", xs[:2])], [("Y", onehot(xs[:2], ["a", "b"]))],
            cats_strings=["a", "b"], zeros=0)
    ml_bad("one_hot_encoder_zeros0_unknown", "OneHotEncoder", [("X", xs)], [("Y", TP.FLOAT)], "no category",
           cats_strings=["a", "b"], zeros=0)
    ml_bad("one_hot_encoder_no_cats", "OneHotEncoder", [("X", xs)], [("Y", TP.FLOAT)], "INVALID_MODEL")

    # ---- Imputer ----
    xf = x.copy()
    xf[0, 1] = np.nan
    xf[3, 0] = np.nan
    xf[2, 2] = 0.0
    imp = f32([10, 20, 30])
    ml_case("imputer_nan_per_feature", "Imputer", [("X", xf)], [("Y", np.where(np.isnan(xf), imp, xf))],
            imputed_value_floats=imp.tolist(), replaced_value_float=float("nan"))
    ml_case("imputer_zero_one_value_double", "Imputer", [("X", xf.astype(np.float64))],
            [("Y", np.where(xf.astype(np.float64) == 0, 5.0, xf.astype(np.float64)))], imputed_value_floats=[5.0])
    xi = np.array([[1, -1, 3], [-1, 2, -1]], np.int64)
    ml_case("imputer_int64", "Imputer", [("X", xi)], [("Y", np.where(xi == -1, [7, 8, 9], xi))],
            imputed_value_int64s=[7, 8, 9], replaced_value_int64=-1)
    ml_case("imputer_int32", "Imputer", [("X", xi.astype(np.int32))], [("Y", np.where(xi == -1, 0, xi).astype(np.int32))],
            imputed_value_int64s=[0], replaced_value_int64=-1)
    ml_bad("imputer_bad_length", "Imputer", [("X", xf)], [("Y", TP.FLOAT)], "imputed values", imputed_value_floats=[1.0, 2.0])
    ml_bad("imputer_wrong_type", "Imputer", [("X", xi)], [("Y", TP.INT64)], "imputed_value_int64s", imputed_value_floats=[1.0])

    # ---- Binarizer ----
    for dt in (np.float32, np.float64, np.int64, np.int32):
        xb = (x * 3).astype(dt)
        ml_case(f"binarizer_{np.dtype(dt).name}", "Binarizer", [("X", xb)], [("Y", (xb > 0.5).astype(dt))], threshold=0.5)
    ml_case("binarizer_default_threshold", "Binarizer", [("X", x)], [("Y", (x > 0).astype(np.float32))])

    # ---- ArrayFeatureExtractor ----
    data = rng.uniform(-1, 1, (2, 3, 5)).astype(np.float32)
    for idx in (np.array([4, 0, 4], np.int64), np.array([[1, 3]], np.int64), np.array([2], np.int64)):
        flat = idx.ravel()
        ml_case(f"array_feature_extractor_3d_{len(flat)}", "ArrayFeatureExtractor", [("X", data), ("Y", idx)],
                [("Z", data[..., flat])])
    ml_case("array_feature_extractor_1d", "ArrayFeatureExtractor", [("X", data[0, 0]), ("Y", np.array([1, 2], np.int64))],
            [("Z", data[0, 0][[1, 2]].reshape(1, 2))])
    strs = np.array([["a", "b", "c"], ["d", "e", "f"]], dtype=object)
    ml_case("array_feature_extractor_string", "ArrayFeatureExtractor", [("X", strs), ("Y", np.array([2, 0], np.int64))],
            [("Z", strs[:, [2, 0]])])
    ml_case("array_feature_extractor_int64", "ArrayFeatureExtractor",
            [("X", np.arange(6, dtype=np.int64).reshape(2, 3)), ("Y", np.array([1], np.int64))],
            [("Z", np.arange(6, dtype=np.int64).reshape(2, 3)[:, [1]])])
    ml_bad("array_feature_extractor_out_of_range", "ArrayFeatureExtractor", [("X", data), ("Y", np.array([5], np.int64))],
           [("Z", TP.FLOAT)], "outside")

    # ---- FeatureVectorizer ----
    a = rng.uniform(-1, 1, (3, 2)).astype(np.float32)
    b = np.array([4, 5, 6], np.int64)
    c = rng.uniform(-1, 1, (3, 4)).astype(np.float64)
    y = np.concatenate([np.pad(a, ((0, 0), (0, 1))), b.reshape(3, 1).astype(np.float32), c[:, :2].astype(np.float32)], axis=1)
    ml_case("feature_vectorizer_pad_and_cut", "FeatureVectorizer", [("A", a), ("B", b), ("C", c)], [("Y", y)],
            inputdimensions=[3, 1, 2])
    ml_case("feature_vectorizer_one", "FeatureVectorizer", [("A", a)], [("Y", a)], inputdimensions=[2])
    ml_bad("feature_vectorizer_bad_dims", "FeatureVectorizer", [("A", a), ("B", b)], [("Y", TP.FLOAT)], "inputdimensions",
           inputdimensions=[2])
    ml_bad("feature_vectorizer_rows_differ", "FeatureVectorizer", [("A", a), ("B", b[:2])], [("Y", TP.FLOAT)], "rows",
           inputdimensions=[2, 1])

    # ---- DictVectorizer, CastMap (map inputs) ----
    for key, vocab, d in ((TP.STRING, ["a", "b", "c", "d"], {"c": 1.5, "a": -2.0, "q": 9.0}),
                          (TP.INT64, [10, 3, 7], {7: 0.5, 10: 4.0})):
        for value in (TP.FLOAT, TP.DOUBLE, TP.INT64, TP.STRING):
            np_type = {TP.FLOAT: np.float32, TP.DOUBLE: np.float64, TP.INT64: np.int64, TP.STRING: object}[value]
            dv = {k: (str(v) if value == TP.STRING else v) for k, v in d.items()}
            fill = "" if value == TP.STRING else 0
            y = np.array([[dv.get(v, fill) for v in vocab]], dtype=np_type)
            attr = "string_vocabulary" if key == TP.STRING else "int64_vocabulary"
            node = helper.make_node("DictVectorizer", ["X"], ["Y"], domain=ML, **{attr: vocab})
            m = ml_model(node, [helper.make_value_info("X", map_type(key, value))], [value_info("Y", y)])
            proto_case(w, f"dict_vectorizer_{'string' if key == TP.STRING else 'int64'}_{np.dtype(np_type).name}", m,
                       [map_proto(dv, key, value)], [numpy_helper.from_array(y)])
    node = helper.make_node("DictVectorizer", ["X"], ["Y"], domain=ML, int64_vocabulary=[1, 2])
    m = ml_model(node, [helper.make_value_info("X", map_type(TP.STRING, TP.FLOAT))], [helper.make_tensor_value_info("Y", TP.FLOAT, None)])
    proto_case(w, "dict_vectorizer_wrong_keys", m, [map_proto({"a": 1.0}, TP.STRING, TP.FLOAT)], [], error="vocabulary")

    src = {3: 1.5, 1: -2.75, 0: 0.25, 9: 4.0}
    for value, d in ((TP.FLOAT, src), (TP.STRING, {k: f"{v}" for k, v in src.items()})):
        for to, np_type in (("TO_FLOAT", np.float32), ("TO_STRING", object), ("TO_INT64", np.int64)):
            for form in ("DENSE", "SPARSE"):
                def cast(v):
                    f = float(v)
                    if to == "TO_FLOAT":
                        return f
                    if to == "TO_INT64":
                        return int(f)
                    return v if value == TP.STRING else "%f" % f
                if form == "DENSE":
                    row = [cast(d[k]) for k in sorted(d)]
                else:
                    row = [cast(d[k]) if k in d else ("0.f" if to == "TO_STRING" else 0) for k in range(5)]
                y = np.array([row], dtype=np_type)
                node = helper.make_node("CastMap", ["X"], ["Y"], domain=ML, cast_to=to, map_form=form, max_map=5)
                m = ml_model(node, [helper.make_value_info("X", map_type(TP.INT64, value))], [value_info("Y", y)])
                proto_case(w, f"cast_map_{'float' if value == TP.FLOAT else 'string'}_{to.lower()}_{form.lower()}", m,
                           [map_proto(d, TP.INT64, value)], [numpy_helper.from_array(y)])
    node = helper.make_node("CastMap", ["X"], ["Y"], domain=ML, cast_to="TO_INT64")
    m = ml_model(node, [helper.make_value_info("X", map_type(TP.INT64, TP.STRING))], [helper.make_tensor_value_info("Y", TP.INT64, None)])
    proto_case(w, "cast_map_not_a_number", m, [map_proto({1: "x1"}, TP.INT64, TP.STRING)], [], error="not an integer")
    ml_bad("cast_map_bad_cast_to", "CastMap", [("X", x)], [("Y", TP.FLOAT)], "cast_to", cast_to="TO_BOOL")

    # ---- CategoryMapper ----
    ml_case("category_mapper_string_to_int", "CategoryMapper", [("X", S("b", "x", "a"))], [("Y", np.array([20, 99, 10], np.int64))],
            cats_strings=["a", "b"], cats_int64s=[10, 20], default_int64=99)
    ml_case("category_mapper_int_to_string", "CategoryMapper", [("X", np.array([[20, 5], [10, 10]], np.int64))],
            [("Y", np.array([["b", "_Unused"], ["a", "a"]], dtype=object))], cats_strings=["a", "b"], cats_int64s=[10, 20])
    ml_bad("category_mapper_bad_lengths", "CategoryMapper", [("X", S("a"))], [("Y", TP.INT64)], "INVALID_MODEL",
           cats_strings=["a", "b"], cats_int64s=[1])
