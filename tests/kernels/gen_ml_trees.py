#!/usr/bin/python3
"""Kernel cases for the ai.onnx.ml tree ensembles: TreeEnsembleRegressor and
TreeEnsembleClassifier (ai.onnx.ml 1 and 3) and TreeEnsemble (ai.onnx.ml 5).

Expected outputs come from the small evaluator below, written from the op specs: a NaN feature
takes the branch nodes_missing_value_tracks_true names (whatever the mode); comparisons in the
input's precision (float32 for float, int32 and int64 inputs, float64 for double); sums in
float64; base values after the aggregate; the post transforms as the spec's reference defines
them (PROBIT by Winitzki's erfinv approximation). Binary classifiers (two labels, one class id
in the weights): score s for the second class, 1 - s (NONE, PROBIT) or -s for the first.
Untouched targets under MIN/MAX are 0.
"""
import math

import numpy as np
from onnx import TensorProto, helper

from kcase import Writer

ML = [("ai.onnx.ml", 3)]
ML5 = [("ai.onnx.ml", 5)]
rng = np.random.default_rng(20261202)
W = Writer()


# ---------- the reference ----------

def compare(mode, x, th, members=None):
    if mode == "BRANCH_LEQ": return x <= th
    if mode == "BRANCH_LT": return x < th
    if mode == "BRANCH_GTE": return x >= th
    if mode == "BRANCH_GT": return x > th
    if mode == "BRANCH_EQ": return x == th
    if mode == "BRANCH_NEQ": return x != th
    if mode == "BRANCH_MEMBER": return x in members
    raise ValueError(mode)


def walk(nodes, root, row, ctype):
    """nodes: list of dicts {mode, feature, th, t, f, miss, members}; t/f are indices (or
    ('leaf', j)); returns the reached leaf key."""
    cur = root
    while True:
        if isinstance(cur, tuple):
            return cur
        nd = nodes[cur]
        if nd["mode"] == "LEAF":
            return cur
        x = ctype(row[nd["feature"]])
        if np.isnan(x):
            go = bool(nd["miss"])
        else:
            members = None if nd.get("members") is None else {ctype(v) for v in nd["members"]}
            go = bool(compare(nd["mode"], x, ctype(nd["th"]), members))
        cur = nd["t"] if go else nd["f"]


def logistic(v):
    e = 1.0 / (1.0 + math.exp(-abs(v)))
    return 1.0 - e if v < 0 else e


def probit(p):
    x = 2 * p - 1
    sign = -1.0 if x < 0 else 1.0
    one = (1 - x) * (1 + x)
    if one == 0:
        return 0.0
    ln = math.log(one)
    u = 2 / (math.pi * 0.147) + 0.5 * ln
    return 1.41421356 * sign * math.sqrt(-u + math.sqrt(u * u - ln / 0.147))


def transform(name, row):
    row = np.array(row, np.float64)
    if name == "NONE":
        return row
    if name == "LOGISTIC":
        return np.array([logistic(v) for v in row])
    if name == "PROBIT":
        return np.array([probit(v) for v in row])
    top = row.max()
    if name == "SOFTMAX":
        e = np.exp(row - top)
        return e / e.sum()
    if name == "SOFTMAX_ZERO":
        e = np.array([math.exp(v - top) if abs(v) > 1e-7 else v * math.exp(-top) for v in row])
        return np.full_like(e, 0.5) if e.sum() == 0 else e / e.sum()
    raise ValueError(name)


def aggregate(contribs_per_tree, n_targets, agg, base):
    """contribs_per_tree: per tree a list of (target, weight)."""
    out = np.zeros(n_targets)
    seen = [False] * n_targets
    for contribs in contribs_per_tree:
        for t, w in contribs:
            if agg in ("SUM", "AVERAGE"):
                out[t] += w
            elif agg == "MIN":
                out[t] = w if not seen[t] else min(out[t], w)
            else:
                out[t] = w if not seen[t] else max(out[t], w)
            seen[t] = True
    if agg == "AVERAGE":
        out /= max(1, len(contribs_per_tree))
    if base is not None and len(base):
        out += np.asarray(base, np.float64)
    return out


def ctype_of(x):
    return np.float64 if x.dtype == np.float64 else np.float32


def legacy_scores(x, a, prefix, n_targets, agg="SUM"):
    """Raw scores [N, n_targets] of a legacy ensemble (attrs dict a)."""
    index = {(t, n): i for i, (t, n) in enumerate(zip(a["nodes_treeids"], a["nodes_nodeids"]))}
    ths = a.get("nodes_values_as_tensor", a.get("nodes_values"))
    miss = a.get("nodes_missing_value_tracks_true") or [0] * len(ths)
    nodes = []
    for i, tid in enumerate(a["nodes_treeids"]):
        nodes.append({"mode": a["nodes_modes"][i], "feature": a["nodes_featureids"][i], "th": ths[i],
                      "t": index.get((tid, a["nodes_truenodeids"][i])), "f": index.get((tid, a["nodes_falsenodeids"][i])),
                      "miss": miss[i]})
    roots = {}
    for i, tid in enumerate(a["nodes_treeids"]):
        roots.setdefault(tid, i)
    weights = a.get(prefix + "_weights_as_tensor", a.get(prefix + "_weights"))
    leaf = {}
    for k, (t, n) in enumerate(zip(a[prefix + "_treeids"], a[prefix + "_nodeids"])):
        leaf.setdefault(index[(t, n)], []).append((a[prefix + "_ids"][k], float(weights[k])))
    ct = ctype_of(x)
    rows = x.reshape(1, -1) if x.ndim == 1 else x
    out = []
    for row in rows:
        per_tree = [leaf.get(walk(nodes, roots[tid], row, ct), []) for tid in sorted(roots)]
        out.append(per_tree)
    return out


def legacy_attrs(trees, prefix, float_values=True):
    """trees: {tree_id: [(node_id, mode, feature, th, true_id, false_id, miss, [(target, w)...])]}
    -> the nodes_* and <prefix>_* attribute lists, in the order given."""
    a = {k: [] for k in ("nodes_treeids", "nodes_nodeids", "nodes_modes", "nodes_featureids", "nodes_values",
                         "nodes_truenodeids", "nodes_falsenodeids", "nodes_missing_value_tracks_true",
                         prefix + "_treeids", prefix + "_nodeids", prefix + "_ids", prefix + "_weights")}
    for tid, nodes in trees.items():
        for nid, mode, feat, th, t, f, miss, ws in nodes:
            a["nodes_treeids"].append(tid); a["nodes_nodeids"].append(nid); a["nodes_modes"].append(mode)
            a["nodes_featureids"].append(feat); a["nodes_values"].append(float(np.float32(th)) if float_values else th)
            a["nodes_truenodeids"].append(t); a["nodes_falsenodeids"].append(f)
            a["nodes_missing_value_tracks_true"].append(miss)
            for target, w in ws:
                a[prefix + "_treeids"].append(tid); a[prefix + "_nodeids"].append(nid)
                a[prefix + "_ids"].append(target); a[prefix + "_weights"].append(float(np.float32(w)))
    return a


def random_tree(depth, features, n_targets, modes=("BRANCH_LEQ",), weights_per_leaf=1, miss_p=0.0, leaf_p=0.15):
    """A random binary tree as a list of legacy node tuples, node ids 0.. in depth-first order."""
    nodes = []

    def build(d):
        nid = len(nodes)
        nodes.append(None)
        if d == depth or (d > 0 and rng.random() < leaf_p):
            targets = rng.choice(n_targets, size=min(weights_per_leaf, n_targets), replace=False)
            nodes[nid] = (nid, "LEAF", 0, 0.0, 0, 0, 0, [(int(t), float(rng.normal())) for t in targets])
            return nid
        mode = modes[rng.integers(len(modes))]
        th = float(np.round(rng.normal(), 1)) if mode in ("BRANCH_EQ", "BRANCH_NEQ") else float(rng.normal())
        feat = int(rng.integers(features))
        miss = int(rng.random() < miss_p)
        t = build(d + 1)
        f = build(d + 1)
        nodes[nid] = (nid, mode, feat, th, t, f, miss, [])
        return nid
    build(0)
    return nodes


def regressor_case(name, trees, x, n_targets=1, agg="SUM", post="NONE", base=None, opset=ML, as_tensor=False,
                   float_values=True, extra=None):
    a = legacy_attrs(trees, "target", float_values)
    ref_a = dict(a)
    if as_tensor:
        ref_a["nodes_values_as_tensor"] = a.pop("nodes_values")
        ref_a["target_weights_as_tensor"] = a.pop("target_weights")
        a["nodes_values_as_tensor"] = helper.make_tensor("v", TensorProto.DOUBLE, [len(ref_a["nodes_values_as_tensor"])],
                                                        ref_a["nodes_values_as_tensor"])
        a["target_weights_as_tensor"] = helper.make_tensor("w", TensorProto.DOUBLE, [len(ref_a["target_weights_as_tensor"])],
                                                          ref_a["target_weights_as_tensor"])
        if base is not None:
            a["base_values_as_tensor"] = helper.make_tensor("b", TensorProto.DOUBLE, [len(base)], base)
    elif base is not None:
        a["base_values"] = [float(np.float32(b)) for b in base]
        base = a["base_values"]
    if not ref_a["nodes_missing_value_tracks_true"] or not any(ref_a["nodes_missing_value_tracks_true"]):
        a.pop("nodes_missing_value_tracks_true")
    a.update(extra or {})
    per_row = legacy_scores(x, ref_a, "target", n_targets, agg)
    y = np.array([transform(post, aggregate(r, n_targets, agg, base)) for r in per_row], np.float32).reshape(-1, n_targets)
    W.case(name, "TreeEnsembleRegressor", [("X", x)], [("Y", y)], domain="ai.onnx.ml", extra_opsets=opset,
           n_targets=n_targets, aggregate_function=agg, post_transform=post, **a)


def classifier_case(name, trees, x, labels, post="NONE", base=None, opset=ML, as_tensor=False):
    a = legacy_attrs(trees, "class")
    ref_a = dict(a)
    if as_tensor:
        ref_a["class_weights_as_tensor"] = a.pop("class_weights")
        a["class_weights_as_tensor"] = helper.make_tensor("w", TensorProto.DOUBLE, [len(ref_a["class_weights_as_tensor"])],
                                                         ref_a["class_weights_as_tensor"])
        if base is not None:
            a["base_values_as_tensor"] = helper.make_tensor("b", TensorProto.DOUBLE, [len(base)], base)
    elif base is not None:
        a["base_values"] = [float(np.float32(b)) for b in base]
        base = a["base_values"]
    if not any(a["nodes_missing_value_tracks_true"]):
        a.pop("nodes_missing_value_tracks_true")
    classes = len(labels)
    ids = set(a["class_ids"])
    binary = classes == 2 and len(ids) == 1
    per_row = legacy_scores(x, ref_a, "class", classes)
    zs, ys = [], []
    for contribs in per_row:
        if binary:
            c = next(iter(ids))
            b = None if base is None else [base[0] if len(base) == 1 else base[c]]
            s = aggregate([[(0, w) for _, w in tree] for tree in contribs], 1, "SUM", b)[0]
            raw = np.array([1 - s if post in ("NONE", "PROBIT") else -s, s])
        else:
            b = None if base is None else (list(base) * classes if len(base) == 1 else base)
            raw = aggregate(contribs, classes, "SUM", b)
        z = transform(post, raw)
        pick = z if post == "SOFTMAX_ZERO" else raw
        ys.append(labels[int(np.argmax(pick))])
        zs.append(z)
    z = np.array(zs, np.float32).reshape(-1, classes)
    if isinstance(labels[0], str):
        y = np.array(ys, dtype=object)
        a["classlabels_strings"] = list(labels)
    else:
        y = np.array(ys, np.int64)
        a["classlabels_int64s"] = list(labels)
    W.case(name, "TreeEnsembleClassifier", [("X", x)], [("Y", y), ("Z", z)], domain="ai.onnx.ml", extra_opsets=opset,
           post_transform=post, **a)


def floats(rows, features, nan=0.0):
    x = rng.normal(size=(rows, features)).astype(np.float32)
    if nan:
        x[rng.random(x.shape) < nan] = np.nan
    return x


# A small hand-made tree: every mode once, two trees, ids not from zero, trees listed out of order.
HAND = {
    7: [(10, "BRANCH_LEQ", 0, 0.25, 11, 12, 0, []),
        (11, "BRANCH_GT", 1, -0.5, 13, 14, 1, []),
        (12, "LEAF", 0, 0, 0, 0, 0, [(0, 1.5), (1, -0.25)]),
        (13, "LEAF", 0, 0, 0, 0, 0, [(0, -2.0)]),
        (14, "BRANCH_NEQ", 2, 1.0, 15, 16, 0, []),
        (15, "LEAF", 0, 0, 0, 0, 0, [(1, 3.0)]),
        (16, "LEAF", 0, 0, 0, 0, 0, [(0, 0.5), (1, 0.5)])],
    2: [(0, "BRANCH_EQ", 2, 1.0, 1, 2, 1, []),
        (1, "LEAF", 0, 0, 0, 0, 0, [(1, 0.75)]),
        (2, "BRANCH_LT", 3, 0.0, 3, 4, 0, []),
        (3, "LEAF", 0, 0, 0, 0, 0, [(0, 0.125)]),
        (4, "BRANCH_GTE", 0, 1.0, 5, 6, 1, []),
        (5, "LEAF", 0, 0, 0, 0, 0, [(0, -1.0), (1, 1.0)]),
        (6, "LEAF", 0, 0, 0, 0, 0, [(1, -0.5)])],
    4: [(0, "LEAF", 0, 0, 0, 0, 0, [(0, 0.0625)])],  # a tree that is one leaf
}


def hand_x(dtype=np.float32, rows=40):
    x = np.round(rng.normal(size=(rows, 4)) * 2) / 2  # many exact hits of the thresholds
    x[rng.random(x.shape) < 0.15] = np.nan
    return x.astype(dtype)


def regressor_cases():
    x = hand_x()
    for agg in ("SUM", "AVERAGE", "MIN", "MAX"):
        regressor_case(f"regressor_hand_{agg.lower()}", HAND, x, n_targets=2, agg=agg, base=[0.5, -1.0])
    regressor_case("regressor_hand_untouched_target_min", HAND, x, n_targets=3, agg="MIN")
    for post in ("LOGISTIC", "SOFTMAX", "SOFTMAX_ZERO"):
        regressor_case(f"regressor_hand_{post.lower()}", HAND, x, n_targets=2, post=post)
    probit_trees = {0: [(0, "BRANCH_LEQ", 0, 0.0, 1, 2, 0, []), (1, "LEAF", 0, 0, 0, 0, 0, [(0, 0.2), (1, 0.7)]),
                        (2, "LEAF", 0, 0, 0, 0, 0, [(0, 0.9), (1, 0.05)])]}
    regressor_case("regressor_probit", probit_trees, floats(10, 2), n_targets=2, post="PROBIT")
    regressor_case("regressor_opset1", HAND, x, n_targets=2, opset=[("ai.onnx.ml", 1)])
    regressor_case("regressor_double_as_tensor", HAND, hand_x(np.float64), n_targets=2, base=[0.1, 0.2], as_tensor=True)
    # Double thresholds that float32 cannot hold: a double input compares in double.
    fine = {0: [(0, "BRANCH_LEQ", 0, 0.1, 1, 2, 0, []), (1, "LEAF", 0, 0, 0, 0, 0, [(0, 1.0)]),
                (2, "LEAF", 0, 0, 0, 0, 0, [(0, 2.0)])]}
    xd = np.array([[0.1], [0.1 + 1e-12], [float(np.float32(0.1))], [0.09999999]], np.float64)
    regressor_case("regressor_double_exact_threshold", fine, xd, as_tensor=True, float_values=False)
    # ... and a float input compares in float32 (the double threshold rounded).
    regressor_case("regressor_float_input_double_threshold", fine, xd.astype(np.float32), as_tensor=True,
                   float_values=False)
    xi = rng.integers(-3, 4, size=(30, 4))
    regressor_case("regressor_int64_input", HAND, xi.astype(np.int64), n_targets=2)
    regressor_case("regressor_int32_input", HAND, xi.astype(np.int32), n_targets=2)
    regressor_case("regressor_one_row_1d", HAND, hand_x(rows=1)[0], n_targets=2)
    regressor_case("regressor_empty_batch", HAND, np.zeros((0, 4), np.float32), n_targets=2)
    # Larger random ensembles: blocks of rows and trees, lanes over rows and over trees.
    big = {t: random_tree(6, 12, 1, modes=("BRANCH_LEQ",), miss_p=0.3) for t in range(60)}
    for rows in (1, 5, 300):
        regressor_case(f"regressor_random_leq_{rows}_rows", big, floats(rows, 12, nan=0.05))
    mixed = {t: random_tree(5, 8, 3, modes=("BRANCH_LEQ", "BRANCH_LT", "BRANCH_GTE", "BRANCH_GT", "BRANCH_EQ",
                                            "BRANCH_NEQ"), weights_per_leaf=2, miss_p=0.5) for t in range(25)}
    xm = np.round(floats(150, 8, nan=0.1), 1)
    regressor_case("regressor_random_mixed_modes", mixed, xm, n_targets=3, agg="AVERAGE", base=[1, 2, 3])
    lt = {t: random_tree(7, 10, 2, modes=("BRANCH_LT",), miss_p=0.5) for t in range(40)}
    regressor_case("regressor_random_lt_max", lt, floats(70, 10, nan=0.1), n_targets=2, agg="MAX")


def classifier_cases():
    x = hand_x()
    classifier_case("classifier_int_labels", HAND, x, [3, 9])  # two class ids used: not the binary form
    classifier_case("classifier_string_labels_softmax", HAND, x, ["cat", "dog"], post="SOFTMAX")
    three = {t: random_tree(4, 6, 3, weights_per_leaf=3) for t in range(10)}
    for post in ("NONE", "SOFTMAX", "LOGISTIC", "SOFTMAX_ZERO"):
        classifier_case(f"classifier_3_classes_{post.lower()}", three, floats(60, 6), [0, 1, 2], post=post,
                        base=[0.1, -0.2, 0.05])
    classifier_case("classifier_3_classes_opset1", three, floats(20, 6), [5, 6, 7], opset=[("ai.onnx.ml", 1)])
    classifier_case("classifier_as_tensor_double", three, floats(20, 6).astype(np.float64), ["a", "b", "c"],
                    base=[0.5, 0.25, 0.0], as_tensor=True)
    # Binary, one class id in the weights (GradientBoosting, XGBoost, LightGBM as converted).
    gb = {t: random_tree(3, 5, 1, miss_p=0.3) for t in range(12)}
    for post in ("LOGISTIC", "NONE", "SOFTMAX", "SOFTMAX_ZERO"):
        classifier_case(f"classifier_binary_{post.lower()}", gb, floats(50, 5, nan=0.1), [0, 1], post=post, base=[0.3])
    classifier_case("classifier_binary_strings_two_bases", gb, floats(30, 5), ["no", "yes"], post="LOGISTIC",
                    base=[0.2, 0.0])
    positive = {0: [(0, "BRANCH_LEQ", 0, 0.0, 1, 2, 0, []), (1, "LEAF", 0, 0, 0, 0, 0, [(0, 0.3)]),
                    (2, "LEAF", 0, 0, 0, 0, 0, [(0, 0.8)])]}
    classifier_case("classifier_binary_probit", positive, floats(10, 1), [0, 1], post="PROBIT")
    tie = {0: [(0, "LEAF", 0, 0, 0, 0, 0, [(0, 1.0), (1, 1.0), (2, 0.5)])]}
    classifier_case("classifier_tie_first_class", tie, floats(3, 1), [4, 2, 8])
    many = {t: random_tree(6, 20, 5, weights_per_leaf=5, miss_p=0.2) for t in range(30)}
    for rows in (1, 3, 200):
        classifier_case(f"classifier_random_{rows}_rows", many, floats(rows, 20, nan=0.05), list(range(5)), post="SOFTMAX")


POSTS = ["NONE", "SOFTMAX", "LOGISTIC", "SOFTMAX_ZERO", "PROBIT"]  # TreeEnsemble's numbering
AGGS = ["AVERAGE", "SUM", "MIN", "MAX"]
MODES5 = {"BRANCH_LEQ": 0, "BRANCH_LT": 1, "BRANCH_GTE": 2, "BRANCH_GT": 3, "BRANCH_EQ": 4, "BRANCH_NEQ": 5,
          "BRANCH_MEMBER": 6}


def v5_attrs(trees, dtype=np.float32):
    """Legacy-form trees (one weight per leaf; BRANCH_MEMBER nodes carry their member list as
    th) -> TreeEnsemble attributes and the nodes list walk() reads."""
    feats, splits, modes, tids, fids, tleaf, fleaf, miss = [], [], [], [], [], [], [], []
    leaf_t, leaf_w, roots, members, ref = [], [], [], [], []
    for nodes in trees.values():
        by_id = {nd[0]: nd for nd in nodes}
        where = {}
        for nd in nodes:  # interior first, then leaves, each in listed order
            if nd[1] != "LEAF":
                where[nd[0]] = ("node", len(feats))
                feats.append(nd[2]); modes.append(MODES5[nd[1]]); miss.append(nd[6])
                splits.append(np.nan if nd[1] == "BRANCH_MEMBER" else nd[3])
                tids.append(0); fids.append(0); tleaf.append(0); fleaf.append(0)
                ref.append({"mode": nd[1], "feature": nd[2], "th": nd[3], "miss": nd[6],
                            "members": nd[3] if nd[1] == "BRANCH_MEMBER" else None})
                if nd[1] == "BRANCH_MEMBER":
                    members.extend(list(nd[3]) + [np.nan])
        for nd in nodes:
            if nd[1] == "LEAF":
                where[nd[0]] = ("leaf", len(leaf_t))
                (t, w), = nd[7]
                leaf_t.append(t); leaf_w.append(w)
        for nd in nodes:
            if nd[1] == "LEAF":
                continue
            i = where[nd[0]][1]
            for slot, child, leafs, ids in (("t", nd[4], tleaf, tids), ("f", nd[5], fleaf, fids)):
                kind, j = where[by_id[child][0]]
                leafs[i] = int(kind == "leaf"); ids[i] = j
                ref[i][slot] = ("leaf", j) if kind == "leaf" else j
        root = where[nodes[0][0]]
        if root[0] == "leaf":  # a one-leaf tree: a node whose both branches are that leaf
            i = len(feats)
            feats.append(0); modes.append(0); miss.append(0); splits.append(0.0)
            tids.append(root[1]); fids.append(root[1]); tleaf.append(1); fleaf.append(1)
            ref.append({"mode": "BRANCH_LEQ", "feature": 0, "th": 0.0, "miss": 0, "t": ("leaf", root[1]),
                        "f": ("leaf", root[1])})
            roots.append(i)
        else:
            roots.append(root[1])
    onnx_type = {np.float32: TensorProto.FLOAT, np.float64: TensorProto.DOUBLE, np.float16: TensorProto.FLOAT16}[dtype]

    def tensor(name, values, t=onnx_type, np_type=dtype):
        return helper.make_tensor(name, t, [len(values)], np.asarray(values, np_type).tolist())
    a = dict(nodes_featureids=feats, nodes_splits=tensor("s", splits),
             nodes_modes=helper.make_tensor("m", TensorProto.UINT8, [len(modes)], modes),
             nodes_truenodeids=tids, nodes_falsenodeids=fids, nodes_trueleafs=tleaf, nodes_falseleafs=fleaf,
             nodes_missing_value_tracks_true=miss, leaf_targetids=leaf_t, leaf_weights=tensor("w", leaf_w),
             tree_roots=roots)
    if members:
        a["membership_values"] = tensor("mv", members)
    return a, ref, leaf_t, [float(dtype(w)) for w in leaf_w]


def ensemble_case(name, trees, x, n_targets=1, agg=1, post=0):
    a, ref, leaf_t, leaf_w = v5_attrs(trees, x.dtype.type)
    ct = ctype_of(x)
    ys = []
    for row in x:
        per_tree = []
        for r in a["tree_roots"]:
            kind, j = walk(ref, r, row, ct)
            per_tree.append([(leaf_t[j], leaf_w[j])])
        ys.append(transform(POSTS[post], aggregate(per_tree, n_targets, AGGS[agg], None)))
    y = np.array(ys, x.dtype).reshape(-1, n_targets)
    W.case(name, "TreeEnsemble", [("X", x)], [("Y", y)], domain="ai.onnx.ml", extra_opsets=ML5,
           n_targets=n_targets, aggregate_function=agg, post_transform=post, **a)


HAND5 = {
    0: [(0, "BRANCH_MEMBER", 0, [1.0, 2.5, 0.0], 1, 2, 0, []),
        (1, "LEAF", 0, 0, 0, 0, 0, [(0, 10.0)]),
        (2, "BRANCH_LEQ", 1, 0.5, 3, 4, 1, []),
        (3, "BRANCH_MEMBER", 2, [-1.0], 5, 6, 1, []),
        (4, "LEAF", 0, 0, 0, 0, 0, [(1, -3.0)]),
        (5, "LEAF", 0, 0, 0, 0, 0, [(1, 0.5)]),
        (6, "BRANCH_NEQ", 3, 0.0, 7, 8, 0, []),
        (7, "LEAF", 0, 0, 0, 0, 0, [(0, 1.25)]),
        (8, "LEAF", 0, 0, 0, 0, 0, [(2, 2.0)])],
    1: [(0, "BRANCH_GT", 0, 1.0, 1, 2, 0, []),
        (1, "BRANCH_EQ", 1, 0.5, 3, 4, 1, []),
        (2, "LEAF", 0, 0, 0, 0, 0, [(2, -0.75)]),
        (3, "LEAF", 0, 0, 0, 0, 0, [(0, 0.25)]),
        (4, "BRANCH_LT", 2, 0.0, 5, 6, 0, []),
        (5, "LEAF", 0, 0, 0, 0, 0, [(1, 1.5)]),
        (6, "BRANCH_GTE", 3, -0.5, 7, 8, 1, []),
        (7, "LEAF", 0, 0, 0, 0, 0, [(0, -1.0)]),
        (8, "LEAF", 0, 0, 0, 0, 0, [(2, 4.0)])],
    2: [(0, "LEAF", 0, 0, 0, 0, 0, [(1, 0.125)])],
}


def ensemble_cases():
    x = hand_x()
    x[::3, 0] = rng.choice([1.0, 2.5, 0.0], size=x[::3, 0].shape)
    x[1::4, 2] = -1.0
    for agg in range(4):
        ensemble_case(f"tree_ensemble_hand_{AGGS[agg].lower()}", HAND5, x, n_targets=3, agg=agg)
    for post in (1, 2, 3):
        ensemble_case(f"tree_ensemble_hand_{POSTS[post].lower()}", HAND5, x, n_targets=3, post=post)
    ensemble_case("tree_ensemble_hand_double", HAND5, x.astype(np.float64), n_targets=3)
    ensemble_case("tree_ensemble_hand_float16", HAND5, x.astype(np.float16), n_targets=3)
    # One target with LOGISTIC and SOFTMAX: the spec transforms it (ORT 1.30 does not).
    one = {t: random_tree(4, 6, 1, modes=("BRANCH_LEQ", "BRANCH_LT"), miss_p=0.3) for t in range(8)}
    for post in (1, 2):
        ensemble_case(f"tree_ensemble_single_target_{POSTS[post].lower()}", one, floats(20, 6, nan=0.1), post=post)
    probit_trees = {0: [(0, "BRANCH_LEQ", 0, 0.0, 1, 2, 0, []), (1, "LEAF", 0, 0, 0, 0, 0, [(0, 0.2)]),
                        (2, "LEAF", 0, 0, 0, 0, 0, [(0, 0.9)])]}
    ensemble_case("tree_ensemble_probit", probit_trees, floats(10, 1), post=4)
    big = {t: random_tree(7, 16, 4, modes=("BRANCH_LEQ",), miss_p=0.3) for t in range(50)}
    for rows in (1, 6, 250):
        ensemble_case(f"tree_ensemble_random_{rows}_rows", big, floats(rows, 16, nan=0.05), n_targets=4)


# ---------- bad models ----------

def bad_cases():
    x = floats(4, 4)
    good = legacy_attrs({0: [(0, "BRANCH_LEQ", 0, 0.0, 1, 2, 0, []), (1, "LEAF", 0, 0, 0, 0, 0, [(0, 1.0)]),
                             (2, "LEAF", 0, 0, 0, 0, 0, [(0, 2.0)])]}, "target")

    def reg_bad(name, error, x=x, **changes):
        a = dict(good, **changes)
        W.bad(name, "TreeEnsembleRegressor", [("X", x)], [("Y", TensorProto.FLOAT)], error, domain="ai.onnx.ml",
              extra_opsets=ML, n_targets=1, **a)
    reg_bad("regressor_child_missing", "which is not a node of that tree", nodes_truenodeids=[5, 0, 0])
    reg_bad("regressor_weight_points_nowhere", "which is not a node of the ensemble", target_nodeids=[1, 9])
    reg_bad("regressor_weight_on_interior_node", "which is not a leaf", target_nodeids=[1, 0])
    reg_bad("regressor_lengths_differ", "nodes_featureids has 2 entries", nodes_featureids=[0, 0])
    reg_bad("regressor_weight_lengths_differ", "must match", target_ids=[0])
    reg_bad("regressor_duplicate_node", "appears twice", nodes_nodeids=[0, 1, 1])
    reg_bad("regressor_cycle", "has a cycle", nodes_modes=["BRANCH_LEQ", "BRANCH_LEQ", "LEAF"],
            nodes_truenodeids=[1, 0, 0], nodes_falsenodeids=[2, 2, 0], target_nodeids=[2, 2])
    reg_bad("regressor_target_out_of_range", "outside [0, 1)", target_ids=[0, 1])
    reg_bad("regressor_unknown_mode", "unknown nodes_modes entry", nodes_modes=["BRANCH_XX", "LEAF", "LEAF"])
    reg_bad("regressor_negative_feature", "feature id -1", nodes_featureids=[-1, 0, 0])
    reg_bad("regressor_unknown_aggregate", "unknown aggregate_function", aggregate_function="MEDIAN")
    reg_bad("regressor_base_values_length", "base values for 1 targets", base_values=[1.0, 2.0])
    reg_bad("regressor_too_few_features", "the trees read feature 3", x=floats(2, 3), nodes_featureids=[3, 0, 0])
    reg_bad("regressor_rank3_input", "takes X of shape [N, F]", x=floats(4, 4).reshape(2, 2, 4))
    cls = legacy_attrs({0: [(0, "BRANCH_LEQ", 0, 0.0, 1, 2, 0, []), (1, "LEAF", 0, 0, 0, 0, 0, [(0, 1.0)]),
                            (2, "LEAF", 0, 0, 0, 0, 0, [(1, 2.0)])]}, "class")

    def cls_bad(name, error, **changes):
        a = dict(cls, **changes)
        W.bad(name, "TreeEnsembleClassifier", [("X", x)], [("Y", TensorProto.INT64), ("Z", TensorProto.FLOAT)], error,
              domain="ai.onnx.ml", extra_opsets=ML, **a)
    cls_bad("classifier_no_labels", "exactly one of classlabels_int64s and classlabels_strings")
    cls_bad("classifier_both_labels", "exactly one of", classlabels_int64s=[0, 1], classlabels_strings=["a", "b"])
    cls_bad("classifier_class_id_out_of_range", "class id 2 is outside [0, 2)", classlabels_int64s=[0, 1], class_ids=[0, 2])
    cls_bad("classifier_single_label", "single class label", classlabels_int64s=[1])
    cls_bad("classifier_unknown_post_transform", "unknown post_transform", classlabels_int64s=[0, 1], post_transform="RELU")

    a5, _, _, _ = v5_attrs({0: [(0, "BRANCH_LEQ", 0, 0.0, 1, 2, 0, []), (1, "LEAF", 0, 0, 0, 0, 0, [(0, 1.0)]),
                                (2, "BRANCH_MEMBER", 1, [1.0], 3, 4, 0, []), (3, "LEAF", 0, 0, 0, 0, 0, [(0, 2.0)]),
                                (4, "LEAF", 0, 0, 0, 0, 0, [(0, 3.0)])]})

    def ens_bad(name, error, **changes):
        a = dict(a5, **changes)
        a.setdefault("n_targets", 1)
        if a["n_targets"] is None:
            del a["n_targets"]
        W.bad(name, "TreeEnsemble", [("X", x)], [("Y", TensorProto.FLOAT)], error, domain="ai.onnx.ml",
              extra_opsets=ML5, **a)
    ens_bad("tree_ensemble_leaf_out_of_range", "is not a leaf index", nodes_truenodeids=[7, 0])
    ens_bad("tree_ensemble_node_out_of_range", "is not a node index", nodes_falseleafs=[0, 1], nodes_falsenodeids=[5, 1])
    ens_bad("tree_ensemble_root_out_of_range", "tree root 4", tree_roots=[4])
    ens_bad("tree_ensemble_cycle", "has a cycle", nodes_falseleafs=[0, 0], nodes_falsenodeids=[1, 0])
    ens_bad("tree_ensemble_target_out_of_range", "outside [0, 1)", leaf_targetids=[0, 0, 1])
    ens_bad("tree_ensemble_no_member_sets", "fewer sets", membership_values=helper.make_tensor("mv", TensorProto.FLOAT, [0], []))
    ens_bad("tree_ensemble_extra_member_sets", "more sets",
            membership_values=helper.make_tensor("mv", TensorProto.FLOAT, [4], [1.0, np.nan, 2.0, np.nan]))
    ens_bad("tree_ensemble_bad_mode", "is not a mode", nodes_modes=helper.make_tensor("m", TensorProto.UINT8, [2], [0, 9]))
    ens_bad("tree_ensemble_lengths_differ", "nodes_trueleafs has 1 entries", nodes_trueleafs=[0])
    ens_bad("tree_ensemble_no_n_targets", "n_targets attribute is required", n_targets=None)
    ens_bad("tree_ensemble_bad_aggregate", "aggregate_function 7", aggregate_function=7)
    W.bad("tree_ensemble_int64_input", "TreeEnsemble", [("X", np.zeros((2, 4), np.int64))], [("Y", TensorProto.INT64)],
          "takes X of float, double or float16", domain="ai.onnx.ml", extra_opsets=ML5, n_targets=1, **a5)


regressor_cases()
classifier_cases()
ensemble_cases()
bad_cases()
W.done()
