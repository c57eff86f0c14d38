#!/usr/bin/python3
"""Kernel cases for control flow (If, Loop, Scan) and sequence/optional ops.

Usage: gen_control_flow.py OUT_DIR (see kcase.py for the layout)."""
import numpy as np
from onnx import TensorProto as TP
from onnx import helper as h
from onnx import numpy_helper as nh

from kcase import Writer, model, value_info

w = Writer()
F, I64, B = TP.FLOAT, TP.INT64, TP.BOOL
N = h.make_node
vi = h.make_tensor_value_info
seq_vi = lambda name, elem: h.make_value_info(name, h.make_sequence_type_proto(h.make_tensor_type_proto(elem, None)))
const = lambda name, v: N("Constant", [], [name], value=nh.from_array(np.asarray(v)))
f32 = lambda *a: np.array(a, np.float32)

# ---- Scan (opset 9+ form): input axis 1 reversed, output stacked on the last axis.
body = h.make_graph([N("Add", ["s", "x"], ["s2"]), N("Identity", ["s2"], ["y"])], "body",
                    [vi("s", F, [2]), vi("x", F, [2])], [vi("s2", F, [2]), vi("y", F, [2])])
S0, X = f32(1, 2), np.arange(6, dtype=np.float32).reshape(2, 3)
s, ys = S0.copy(), []
for t in range(3):
    s = s + X[:, 2 - t]
    ys.append(s.copy())
m = model([N("Scan", ["S0", "X"], ["SF", "Y"], body=body, num_scan_inputs=1, scan_input_axes=[1], scan_input_directions=[1],
             scan_output_axes=[-1], scan_output_directions=[1])],
          [vi("S0", F, [2]), vi("X", F, [2, 3])], [vi("SF", F, None), vi("Y", F, None)], opset=11)
w.model_case("scan11_axes_and_directions", m, [S0, X], [s, np.stack(ys[::-1], axis=-1)])

# ---- Scan-8 (batched, sequence_lens, reverse). Scan outputs past a sequence's length are
# undefined, so the case checks the final states and the scan output of the full-length row.
body = h.make_graph([N("Add", ["s", "x"], ["s2"]), N("Identity", ["s2"], ["y"])], "body",
                    [vi("s", F, [2]), vi("x", F, [2])], [vi("s2", F, [2]), vi("y", F, [2])])
L, S0, X = np.array([2, 3], np.int64), f32([1, 2], [3, 4]), np.arange(12, dtype=np.float32).reshape(2, 3, 2)
SF, Y1 = np.zeros((2, 2), np.float32), np.zeros((3, 2), np.float32)
for b in range(2):
    s = S0[b].copy()
    for t in range(L[b]):
        s = s + X[b, L[b] - 1 - t]
        if b == 1:
            Y1[t] = s
    SF[b] = s
m = model([N("Scan", ["L", "S0", "X"], ["SF", "Y"], body=body, num_scan_inputs=1, directions=[1]),
           N("Slice", ["Y"], ["Y1"], starts=[1], ends=[2], axes=[0])],
          [vi("L", I64, [2]), vi("S0", F, [2, 2]), vi("X", F, [2, 3, 2])], [vi("SF", F, None), vi("Y1", F, None)], opset=8)
w.model_case("scan8_sequence_lens_reverse", m, [L, S0, X], [SF, Y1[None]])

# ---- Loop: trip count only (0 and 3 iterations) with a scan output; condition only;
# a body reading an outer-scope value.
body = h.make_graph([N("Identity", ["c"], ["c2"]), N("Add", ["v", "v"], ["v2"]), N("Identity", ["v2"], ["sc"])], "body",
                    [vi("i", I64, []), vi("c", B, []), vi("v", F, [2])], [vi("c2", B, []), vi("v2", F, [2]), vi("sc", F, [2])])
m = model([N("Loop", ["M", "", "V"], ["VF", "SC"], body=body)], [vi("M", I64, []), vi("V", F, [2])],
          [vi("VF", F, None), vi("SC", F, None)], opset=13)
V = f32(1, 2)
w.model_case("loop_zero_iterations", m, [np.array(0, np.int64), V], [V, np.zeros((0, 2), np.float32)])
w.model_case("loop_three_iterations", m, [np.array(3, np.int64), V], [V * 8, np.stack([V * 2, V * 4, V * 8])])
body = h.make_graph([const("four", np.array(4, np.int64)), N("Less", ["i", "four"], ["c2"]), N("Add", ["v", "v"], ["v2"])], "body",
                    [vi("i", I64, []), vi("c", B, []), vi("v", F, [2])], [vi("c2", B, []), vi("v2", F, [2])])
m = model([N("Loop", ["", "C", "V"], ["VF"], body=body)], [vi("C", B, []), vi("V", F, [2])], [vi("VF", F, None)], opset=13)
w.model_case("loop_condition_only", m, [np.array(True), V], [V * 32])
w.model_case("loop_condition_false_at_start", m, [np.array(False), V], [V])
body = h.make_graph([N("Mul", ["v", "outer"], ["v2"]), N("Cast", ["i"], ["fi"], to=F), N("Add", ["v2", "fi"], ["sc"]),
                     N("Identity", ["c"], ["c2"])], "body",
                    [vi("i", I64, []), vi("c", B, []), vi("v", F, [2])], [vi("c2", B, []), vi("v2", F, [2]), vi("sc", F, [2])])
m = model([N("Loop", ["M", "C", "V"], ["VF", "SC"], body=body)], [vi("M", I64, []), vi("C", B, []), vi("V", F, [2]), vi("outer", F, [2])],
          [vi("VF", F, None), vi("SC", F, None)], opset=13)
outer, v, scs = f32(2, -1), V.copy(), []
for i in range(4):
    v = v * outer
    scs.append(v + i)
w.model_case("loop_outer_scope_value", m, [np.array(4, np.int64), np.array(True), V, outer], [v, np.stack(scs)])

# ---- If: branches with different output shapes; a branch reading outer-scope values.
then_g = h.make_graph([N("Add", ["a", "b"], ["r"])], "then", [], [vi("r", F, None)])
else_g = h.make_graph([N("Concat", ["a", "b"], ["r"], axis=0)], "else", [], [vi("r", F, None)])
m = model([N("If", ["c"], ["y"], then_branch=then_g, else_branch=else_g)], [vi("c", B, None), vi("a", F, [3]), vi("b", F, [3])],
          [vi("y", F, None)], opset=16)
a, b = f32(1, 2, 3), f32(10, 20, 30)
w.model_case("if_then_branch", m, [np.array(True), a, b], [a + b])
w.model_case("if_else_branch_other_shape", m, [np.array([False]), a, b], [np.concatenate([a, b])])
w.model_bad("if_condition_two_elements", m, [np.array([True, False]), a, b], "one-element")

# ---- Sequences: SplitToSequence variants, ConcatFromSequence, insert/erase/at, SequenceMap.


def split_concat(name, split, axis, keepdims, cat_axis, new_axis, n, expected, X, elem=F):
    nodes, ins = [], ["X"]
    if split is not None:
        nodes.append(const("sp", split))
        ins.append("sp")
    nodes += [N("SplitToSequence", ins, ["seq"], axis=axis, keepdims=keepdims), N("SequenceLength", ["seq"], ["n"]),
              N("ConcatFromSequence", ["seq"], ["Y"], axis=cat_axis, new_axis=new_axis)]
    m = model(nodes, [vi("X", elem, list(X.shape))], [vi("n", I64, None), vi("Y", elem, None)], opset=12)
    w.model_case(name, m, [X], [np.array(n, np.int64), expected])


X = np.arange(10, dtype=np.float32).reshape(2, 5)
split_concat("split_scalar_uneven_chunks", np.array(2, np.int64), 1, 1, 1, 0, 3, X, X)
split_concat("split_list_negative_axis", np.array([1, 4], np.int32), -1, 1, -1, 0, 2, X, X)
split_concat("split_no_keepdims_stack_last", None, 1, 0, -1, 1, 5, np.stack([X[:, i] for i in range(5)], axis=-1), X)
split_concat("split_keepdims_stack_first", None, 0, 1, 0, 1, 2, np.stack([X[i:i + 1] for i in range(2)]), X)
XS = np.array([["a", "b", "c"], ["d", "e", "f"]], dtype=object)
split_concat("split_strings_stack", None, 1, 0, 0, 1, 3, np.stack([XS[:, i] for i in range(3)]), XS, elem=TP.STRING)

nodes = [N("SplitToSequence", ["X"], ["seq"], axis=0), const("m1", np.array(-1, np.int64)), const("z", np.array(0, np.int32)),
         N("SequenceInsert", ["seq", "T", "m1"], ["s1"]), N("SequenceErase", ["s1", "z"], ["s2"]), N("SequenceAt", ["s2", "m1"], ["last"])]
m = model(nodes, [vi("X", F, [3, 2]), vi("T", F, [1, 2])], [vi("last", F, None), seq_vi("s2", F)], opset=12)
X, T = np.arange(6, dtype=np.float32).reshape(3, 2), f32([9, 9])
# insert at -1 puts T before the last item: [x0, x1, T, x2]; erase 0: [x1, T, x2]
w.model_case("sequence_insert_erase_at_negative", m, [X, T], [X[2:3], [X[1:2], T, X[2:3]]])

nodes = [N("SequenceConstruct", ["a", "b", "c"], ["seq"]), N("SequenceInsert", ["seq", "a"], ["s1"]), N("SequenceLength", ["s1"], ["n"]),
         N("ConcatFromSequence", ["s1"], ["y"], axis=1)]
a, b, c = (np.random.default_rng(606).standard_normal((2, k)).astype(np.float32) for k in (1, 3, 2))
m = model(nodes, [value_info("a", a), value_info("b", b), value_info("c", c)], [vi("n", I64, None), vi("y", F, None)], opset=12)
w.model_case("sequence_construct_append_concat", m, [a, b, c], [np.array(4, np.int64), np.concatenate([a, b, c, a], axis=1)])

body = h.make_graph([N("ReduceSum", ["t"], ["s"], keepdims=0), N("Mul", ["t", "k"], ["u"])], "body",
                    [vi("t", F, None), vi("k", F, [])], [vi("s", F, None), vi("u", F, None)])
nodes = [N("SplitToSequence", ["X", "sp"], ["seq"], axis=0), N("SequenceMap", ["seq", "k"], ["sums", "scaled"], body=body)]
X = np.arange(12, dtype=np.float32).reshape(6, 2)
m = model(nodes, [vi("X", F, [6, 2]), vi("sp", I64, [3]), vi("k", F, [])], [seq_vi("sums", F), seq_vi("scaled", F)], opset=17)
parts = [X[0:1], X[1:3], X[3:6]]
w.model_case("sequence_map_two_outputs", m, [X, np.array([1, 2, 3], np.int64), np.array(0.5, np.float32)],
             [[np.array(p.sum(), np.float32) for p in parts], [p * 0.5 for p in parts]])

# ---- Optional.
nodes = [N("Optional", ["x"], ["o"]), N("OptionalHasElement", ["o"], ["has"]), N("OptionalGetElement", ["o"], ["y"]),
         N("Optional", [], ["e"], type=h.make_tensor_type_proto(F, None)), N("OptionalHasElement", ["e"], ["has_e"])]
m = model(nodes, [vi("x", F, [2])], [vi("has", B, None), vi("y", F, None), vi("has_e", B, None)], opset=15)
w.model_case("optional_wrap_and_empty", m, [f32(1, 2)], [np.array(True), f32(1, 2), np.array(False)])
nodes = [N("Optional", [], ["e"], type=h.make_tensor_type_proto(F, None)), N("OptionalGetElement", ["e"], ["y"])]
w.model_bad("optional_get_element_of_empty", model(nodes, [vi("x", F, [1])], [vi("y", F, None)], opset=15), [f32(0)], "empty")

# ---- Bad sequence input.
X = np.arange(6, dtype=np.float32).reshape(3, 2)
nodes = [N("SplitToSequence", ["X"], ["seq"], axis=0), const("p", np.array(7, np.int64)), N("SequenceAt", ["seq", "p"], ["y"])]
w.model_bad("sequence_at_out_of_range", model(nodes, [vi("X", F, [3, 2])], [vi("y", F, None)], opset=12), [X], "out of range")
nodes = [const("sp", np.array([2, 2], np.int64)), N("SplitToSequence", ["X", "sp"], ["seq"], axis=0), N("SequenceLength", ["seq"], ["n"])]
w.model_bad("split_to_sequence_bad_sum", model(nodes, [vi("X", F, [3, 2])], [vi("n", I64, None)], opset=12), [X], "does not add up")
nodes = [N("SequenceEmpty", [], ["seq"]), N("ConcatFromSequence", ["seq"], ["Y"], axis=0), N("Add", ["Y", "X"], ["Z"])]
w.model_bad("concat_from_empty_sequence", model(nodes, [vi("X", F, [3, 2])], [vi("Z", F, None)], opset=12), [X], "empty")
nodes = [N("SplitToSequence", ["X"], ["seq"], axis=0), const("p", np.array(-5, np.int64)), N("SequenceErase", ["seq", "p"], ["s2"]),
         N("SequenceLength", ["s2"], ["n"])]
w.model_bad("sequence_erase_out_of_range", model(nodes, [vi("X", F, [3, 2])], [vi("n", I64, None)], opset=12), [X], "out of range")
w.done()
