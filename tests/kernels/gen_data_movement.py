#!/usr/bin/python3
"""Kernel cases for shape and data-movement ops: Slice, Reshape, (Un)Squeeze, Split, Concat,
Gather*, Scatter*, Expand, Tile, Pad, TopK, Unique, Range, EyeLike, OneHot, Trilu, Compress,
NonZero, SpaceToDepth, ReverseSequence, CumSum, Det, Dropout, Flatten, ConstantOfShape, Constant;
legacy opset forms and extreme attribute values.

Usage: gen_data_movement.py OUT_DIR (see kcase.py for the layout)."""
import numpy as np
from onnx import TensorProto as TP
from onnx import numpy_helper

from kcase import Writer

w = Writer()
f, i64 = np.float32, np.int64
I64_MAX, I64_MIN = np.iinfo(np.int64).max, np.iinfo(np.int64).min
a64 = lambda *v: np.array(v, i64)
x = np.arange(24, dtype=f).reshape(2, 3, 4)
s = np.array([["a", "bb", "c"], ["d", "e", "ff"]], dtype=object)

# Slice: negative steps with clamped bounds, extreme steps, empty result, opset 1 attributes.
w.case("slice_negative_steps", "Slice", [("x", x), ("s", a64(-1, 10)), ("e", a64(-100, 0)), ("a", a64(2, 1)), ("st", a64(-2, -1))],
       [("y", x[:, 10:0:-1, -1:-100:-2])], opset=13)
w.case("slice_step_int64_max", "Slice", [("x", x), ("s", a64(0)), ("e", a64(I64_MAX)), ("a", a64(2)), ("st", a64(I64_MAX))],
       [("y", x[:, :, 0:1])], opset=13)
w.case("slice_step_int64_min", "Slice", [("x", x), ("s", a64(-1)), ("e", a64(I64_MIN)), ("a", a64(2)), ("st", a64(I64_MIN))],
       [("y", x[:, :, 3:4])], opset=13)
w.case("slice_empty", "Slice", [("x", x), ("s", a64(2)), ("e", a64(1))], [("y", x[2:1])], opset=13)
w.case("slice_opset1_attrs", "Slice", [("x", x)], [("y", x[:, 1:3, :-1])], opset=1, starts=[1, 0], ends=[3, -1], axes=[1, 2])
w.bad("slice_step_zero", "Slice", [("x", x), ("s", a64(0)), ("e", a64(1)), ("a", a64(0)), ("st", a64(0))], [("y", TP.FLOAT)], "step 0",
      opset=13)

# Reshape / Squeeze / Unsqueeze / Flatten.
w.case("reshape_opset1_attr", "Reshape", [("x", x)], [("y", x.reshape(6, 4))], opset=1, shape=[6, -1])
w.case("reshape_allowzero_empty", "Reshape", [("x", np.zeros((0, 3), f)), ("s", a64(3, 0))], [("y", np.zeros((3, 0), f))],
       opset=14, allowzero=1)
w.case("reshape_copy_dim_and_infer", "Reshape", [("x", x), ("s", a64(0, -1))], [("y", x.reshape(2, 12))], opset=13)
w.bad("reshape_two_minus_one", "Reshape", [("x", x), ("s", a64(-1, -1))], [("y", TP.FLOAT)], "more than one -1", opset=13)
w.bad("reshape_zero_copies_missing_dim", "Reshape", [("x", x), ("s", a64(0, 0, 0, 0))], [("y", TP.FLOAT)], "copies dim 3", opset=13)
w.bad("reshape_too_large", "Reshape", [("x", x), ("s", a64(2**62, 4, -1))], [("y", TP.FLOAT)], "too large", opset=13)
w.case("squeeze_opset1_attr", "Squeeze", [("x", x.reshape(2, 1, 3, 1, 4))], [("y", x.reshape(2, 3, 1, 4))], opset=1, axes=[1])
w.case("squeeze_all_ones", "Squeeze", [("x", x.reshape(2, 1, 3, 1, 4))], [("y", x)], opset=13)
w.bad("squeeze_dim_not_one", "Squeeze", [("x", x), ("a", a64(1))], [("y", TP.FLOAT)], "is not 1", opset=13)
w.case("unsqueeze11_negative_axis", "Unsqueeze", [("x", x)], [("y", x.reshape(1, 2, 3, 4, 1))], opset=11, axes=[0, -1])
w.bad("unsqueeze_repeated_axis", "Unsqueeze", [("x", x), ("a", a64(1, 1))], [("y", TP.FLOAT)], "repeated", opset=13)
w.case("flatten_axis_equals_rank", "Flatten", [("x", x)], [("y", x.reshape(24, 1))], opset=13, axis=3)
w.case("flatten_axis0", "Flatten", [("x", x)], [("y", x.reshape(1, 24))], opset=13, axis=0)

# Split / Concat.
w.case("split_opset2_attr", "Split", [("x", x)], [("a", x[:, :, :1]), ("b", x[:, :, 1:])], opset=2, axis=2, split=[1, 3])
w.case("split_opset1_input", "Split", [("x", x), ("s", a64(2, 1))], [("a", x[:, :2]), ("b", x[:, 2:])], opset=1, axis=1)
w.case("split18_num_outputs_uneven", "Split", [("x", np.arange(7, dtype=f))],
       [("a", np.arange(3, dtype=f)), ("b", np.arange(3, 6, dtype=f)), ("c", np.arange(6, 7, dtype=f))], opset=18, num_outputs=3)
w.bad("split_negative_piece", "Split", [("x", x), ("s", a64(5, -2))], [("a", TP.FLOAT), ("b", TP.FLOAT)], "piece size", opset=13, axis=1)
w.case("concat_strings", "Concat", [("x", s), ("z", s)], [("y", np.concatenate([s, s], 1))], opset=13, axis=1)
w.case("concat_with_empty", "Concat", [("x", x), ("z", np.zeros((2, 0, 4), f))], [("y", x)], opset=13, axis=1)
w.bad("concat_shape_mismatch", "Concat", [("x", x), ("z", x[:1, :2])], [("y", TP.FLOAT)], "does not match", opset=13, axis=0)
w.case("transpose_strings", "Transpose", [("x", s)], [("y", s.T)], opset=13)
w.case("transpose_4d_perm", "Transpose", [("x", x.reshape(2, 3, 2, 2))], [("y", x.reshape(2, 3, 2, 2).transpose(2, 0, 3, 1))],
       opset=13, perm=[2, 0, 3, 1])
# Batched 2-D transposes (the tiled path): tile edges, 2/4/8-byte elements, a strided outer dim.
g = np.random.default_rng(77)
nchw = g.standard_normal((2, 3, 37, 41)).astype(f)
nhwc = g.standard_normal((2, 37, 41, 35)).astype(np.float16)
w.case("transpose_nchw_to_nhwc", "Transpose", [("x", nchw)], [("y", nchw.transpose(0, 2, 3, 1))], opset=13, perm=[0, 2, 3, 1])
w.case("transpose_nhwc_to_nchw_f16", "Transpose", [("x", nhwc)], [("y", nhwc.transpose(0, 3, 1, 2))], opset=13,
       perm=[0, 3, 1, 2])
m = np.arange(33 * 70, dtype=i64).reshape(33, 70)
w.case("transpose_2d_int64", "Transpose", [("x", m)], [("y", m.T)], opset=13)
t5 = g.standard_normal((3, 4, 5, 6, 40)).astype(f)
w.case("transpose_5d_inner_swap", "Transpose", [("x", t5)], [("y", t5.transpose(2, 0, 1, 4, 3))], opset=13,
       perm=[2, 0, 1, 4, 3])
w.bad("transpose_bad_perm", "Transpose", [("x", x)], [("y", TP.FLOAT)], "not a permutation", opset=13, perm=[0, 0, 1])

# Gather family: negative indices, scalar index, batch_dims; out-of-range indices are errors.
w.case("gather_axis1_negative_index", "Gather", [("x", x), ("i", a64([2, -1], [0, 1]))], [("y", np.take(x, [[2, 2], [0, 1]], axis=1))],
       opset=13, axis=1)
w.case("gather_scalar_index", "Gather", [("x", x), ("i", np.array(1, i64))], [("y", x[1])], opset=13)
w.case("gather_int32_indices_strings", "Gather", [("x", s), ("i", np.array([2, 0, -3], np.int32))], [("y", s[:, [2, 0, 0]])],
       opset=13, axis=1)
w.bad("gather_index_out_of_range", "Gather", [("x", x), ("i", a64(3))], [("y", TP.FLOAT)], "out of range", opset=13, axis=1)
idx = np.random.default_rng(707).integers(-4, 4, (2, 2, 4))
w.case("gather_elements_axis2_negative", "GatherElements", [("x", x), ("i", idx)], [("y", np.take_along_axis(x[:, :2], idx % 4, axis=2))],
       opset=13, axis=2)
w.bad("gather_elements_index_out_of_range", "GatherElements", [("x", x), ("i", np.full((2, 3, 4), 5, i64))], [("y", TP.FLOAT)],
      "out of range", opset=13, axis=2)
w.bad("gather_elements_rank_mismatch", "GatherElements", [("x", x), ("i", np.zeros((2, 3), i64))], [("y", TP.FLOAT)], "rank", opset=13)
ind = a64([[1], [2]], [[0], [1]])
w.case("gathernd_batch_dims1", "GatherND", [("x", x), ("i", ind)], [("y", np.stack([x[b][ind[b, :, 0]] for b in range(2)]))],
       opset=13, batch_dims=1)
w.bad("gathernd_index_out_of_range", "GatherND", [("x", x), ("i", a64([5, 0]))], [("y", TP.FLOAT)], "out of range", opset=13)

# Scatter family with reductions (duplicates are well defined for add/min/max).
d2, ind2, up = np.arange(8, dtype=f), a64([1], [1], [5]), np.array([10, -3, 1], f)
e = d2.copy()
e[1], e[5] = 10, 5
w.case("scatternd18_max_duplicates", "ScatterND", [("x", d2), ("i", ind2), ("u", up)], [("y", e)], opset=18, reduction="max")
e = d2.copy()
e[1], e[5] = 1 + 10 - 3, 6
w.case("scatternd16_add_duplicates", "ScatterND", [("x", d2), ("i", ind2), ("u", up)], [("y", e)], opset=16, reduction="add")
e = x.copy()
e[0, 0, 0] = -5
w.case("scatter_elements18_min_negative_index", "ScatterElements", [("x", x), ("i", a64([[0, -1]])), ("u", np.array([[[-5, 100]]], f))],
       [("y", e)], opset=18, axis=2, reduction="min")
e = x.copy()
e[1, [2, 0], :] = -1
w.case("scatter_opset9", "Scatter", [("x", x[1]), ("i", a64([2] * 4, [0] * 4)), ("u", np.full((2, 4), -1, f))], [("y", e[1])], opset=9)
w.bad("scatternd_index_out_of_range", "ScatterND", [("x", x), ("i", a64([0, -4])), ("u", np.zeros((1, 4), f))], [("y", TP.FLOAT)],
      "out of range", opset=13)

# Expand / Tile.
w.case("expand_strings", "Expand", [("x", s[:, :1].copy()), ("sh", a64(2, 1, 4))], [("y", np.broadcast_to(s[:, :1], (2, 2, 4)).copy())],
       opset=13)
w.bad("expand_not_broadcastable", "Expand", [("x", x), ("s", a64(5, 4))], [("y", TP.FLOAT)], "cannot be broadcast", opset=13)
w.case("tile_opset6", "Tile", [("x", x), ("r", a64(2, 1, 3))], [("y", np.tile(x, (2, 1, 3)))], opset=6)
w.case("tile_zero_repeat", "Tile", [("x", x), ("r", a64(2, 0, 3))], [("y", np.tile(x, (2, 0, 3)))], opset=13)
w.bad("tile_negative_repeat", "Tile", [("x", x), ("r", a64(2, -1, 1))], [("y", TP.FLOAT)], "negative repeat", opset=13)
w.bad("tile_huge_output", "Tile", [("x", x), ("r", a64(2**40, 2**40, 1))], [("y", TP.FLOAT)], "invalid tensor shape", opset=13)


def wrap_pad(a, pads):
    """Wrap padding as on a torus: output index j reads input index (j - begin) mod size."""
    r = a.ndim
    for ax in range(r):
        n = a.shape[ax]
        a = np.take(a, np.arange(-pads[ax], n + pads[ax + r]) % n, axis=ax)
    return a


w.case("pad_opset2_reflect", "Pad", [("x", x)], [("y", np.pad(x, ((0, 0), (2, 1), (3, 3)), "reflect"))], opset=2,
       pads=[0, 2, 3, 0, 1, 3], mode="reflect")
w.case("pad_opset1_paddings_value", "Pad", [("x", x)], [("y", np.pad(x, ((1, 0), (0, 0), (0, 2)), constant_values=1.5))], opset=1,
       paddings=[1, 0, 0, 0, 0, 2], value=1.5)
w.case("pad_negative_crops", "Pad", [("x", x), ("p", a64(0, -1, 2, 0, 0, -1)), ("v", np.array(7, f))],
       [("y", np.pad(x[:, 1:, :-1], ((0, 0), (0, 0), (2, 0)), constant_values=7))], opset=13)
w.case("pad_edge_wider_than_input", "Pad", [("x", x), ("p", a64(0, 0, 5, 0, 0, 6))], [("y", np.pad(x, ((0, 0), (0, 0), (5, 6)), "edge"))],
       opset=13, mode="edge")
w.case("pad18_axes", "Pad", [("x", x), ("p", a64(1, 2, 0, 1)), ("v", None), ("ax", a64(2, 0))], [("y", np.pad(x, ((2, 1), (0, 0), (1, 0))))],
       opset=18)
w.case("pad19_wrap_wider_than_input", "Pad", [("x", x), ("p", a64(0, 0, 2, 0, 1, 5))], [("y", wrap_pad(x, [0, 0, 2, 0, 1, 5]))],
       opset=19, mode="wrap")
w.case("pad_int64_constant", "Pad", [("x", x.astype(i64)), ("p", a64(1, 0, 0, 0, 0, 1)), ("v", np.array(-9, i64))],
       [("y", np.pad(x.astype(i64), ((1, 0), (0, 0), (0, 1)), constant_values=-9))], opset=13)
w.bad("pad_int64_max", "Pad", [("x", x), ("p", a64(0, 0, I64_MAX, 0, 0, I64_MAX))], [("y", TP.FLOAT)], "do not fit", opset=13)
w.bad("pad_int64_min", "Pad", [("x", x), ("p", a64(0, 0, I64_MIN, 0, 0, 0))], [("y", TP.FLOAT)], "do not fit", opset=13)

# TopK (ties: the lower index first), Unique (first-occurrence order when unsorted).
t = np.array([[3, 1, 3, 2, 1]], f)
w.case("topk_opset1_attr_k", "TopK", [("x", np.array([[3, 1, 4, 2, 0]], f))], [("v", np.array([[4, 3]], f)), ("i", a64([2, 0]))],
       opset=1, k=2)
w.case("topk11_smallest_ties", "TopK", [("x", t), ("k", a64(3))], [("v", np.array([[1, 1, 2]], f)), ("i", a64([1, 4, 3]))],
       opset=11, largest=0)
w.case("topk11_largest_ties", "TopK", [("x", t), ("k", a64(4))], [("v", np.array([[3, 3, 2, 1]], f)), ("i", a64([0, 2, 3, 1]))], opset=11)
w.case("topk11_axis0_int32", "TopK", [("x", x.astype(np.int32)), ("k", a64(1))], [("v", x[1:].astype(np.int32)), ("i", np.ones((1, 3, 4), i64))],
       opset=11, axis=0)
w.bad("topk_k_too_large", "TopK", [("x", x), ("k", a64(9))], [("v", TP.FLOAT), ("i", TP.INT64)], "out of range", opset=11)
u = np.array([[1, 0, 0], [1, 0, 0], [2, 3, 4], [0, 0, 0], [2, 3, 4]], f)
w.case("unique_unsorted_axis0", "Unique", [("x", u)],
       [("y", u[[0, 2, 3]]), ("i", a64(0, 2, 3)), ("inv", a64(0, 0, 1, 2, 1)), ("c", a64(2, 2, 1))], opset=11, axis=0, sorted=0)
w.case("unique_strings_sorted", "Unique", [("x", np.array(["b", "a", "b", "c"], dtype=object))],
       [("y", np.array(["a", "b", "c"], dtype=object)), ("i", a64(1, 0, 3)), ("inv", a64(1, 0, 1, 2)), ("c", a64(1, 2, 1))], opset=11)

# Generators: Shape, Range, EyeLike, OneHot, ConstantOfShape, Constant.
w.case("shape15_start_end_negative", "Shape", [("x", x)], [("y", a64(3))], opset=15, start=-2, end=-1)
w.case("range_int_negative_step", "Range", [("a", np.array(10, i64)), ("b", np.array(-3, i64)), ("c", np.array(-4, i64))],
       [("y", np.arange(10, -3, -4, dtype=i64))], opset=11)
w.case("range_empty", "Range", [("a", np.array(1.0, f)), ("b", np.array(0.5, f)), ("c", np.array(0.25, f))], [("y", np.zeros(0, f))],
       opset=11)
w.bad("range_too_many_elements", "Range", [("a", np.array(-2**62, i64)), ("b", np.array(2**62, i64)), ("c", np.array(1, i64))],
      [("y", TP.INT64)], "too many elements", opset=11)
w.bad("range_infinite_limit", "Range", [("a", np.array(0, f)), ("b", np.array(np.inf, f)), ("c", np.array(1, f))], [("y", TP.FLOAT)],
      "too many elements", opset=11)
w.case("eyelike_k_beyond_columns", "EyeLike", [("x", np.zeros((3, 4), f))], [("y", np.zeros((3, 4), f))], opset=9, k=100)
w.case("eyelike_negative_k_int64", "EyeLike", [("x", np.zeros((4, 3), i64))], [("y", np.eye(4, 3, -2, dtype=i64))], opset=9, k=-2)
oi = np.array([[1.0, -1.0], [7.0, 0.0]], f)
oh = np.zeros((3, 2, 2), i64)
for p in range(2):
    for q in range(2):
        k = int(oi[p, q])
        if -3 <= k < 3:  # indices outside [-depth, depth-1] give an all-off row
            oh[k % 3, p, q] = 5
w.case("onehot_axis0_float_indices", "OneHot", [("i", oi), ("d", np.array(3, f)), ("v", a64(0, 5))], [("y", oh)], opset=11, axis=0)
w.bad("onehot_depth_nan", "OneHot", [("i", a64(1)), ("d", np.array(np.nan, f)), ("v", np.array([0, 1], f))], [("y", TP.FLOAT)],
      "invalid depth", opset=11)
w.case("constant_of_shape_int32", "ConstantOfShape", [("s", a64(2, 2))], [("y", np.full((2, 2), 7, np.int32))], opset=9,
       value=numpy_helper.from_array(np.array([7], np.int32)))
w.case("constant_of_shape_empty_shape", "ConstantOfShape", [("s", np.zeros(0, i64))], [("y", np.array(0, f))], opset=9)
w.bad("constant_of_shape_huge", "ConstantOfShape", [("s", a64(2**40, 2**40))], [("y", TP.FLOAT)], "invalid tensor shape", opset=9)
w.case("constant_value_ints", "Constant", [], [("y", a64(1, 2, 3))], opset=13, value_ints=[1, 2, 3])
w.case("constant_value_float", "Constant", [], [("y", np.array(2.5, f))], opset=13, value_float=2.5)
w.case("constant_value_strings", "Constant", [], [("y", np.array(["a", "bc"], dtype=object))], opset=13, value_strings=["a", "bc"])

# Trilu with extreme k, Compress, NonZero, SpaceToDepth/DepthToSpace, ReverseSequence, CumSum, Det.
w.case("triu_k_int64_max", "Trilu", [("x", x), ("k", np.array(I64_MAX, i64))], [("y", np.zeros_like(x))], opset=14)
w.case("tril_k_int64_min", "Trilu", [("x", x), ("k", np.array(I64_MIN, i64))], [("y", np.zeros_like(x))], opset=14, upper=0)
w.case("triu_k_int64_min", "Trilu", [("x", x), ("k", np.array(I64_MIN, i64))], [("y", x)], opset=14)
w.case("compress_short_condition", "Compress", [("x", x), ("c", np.array([False, True]))], [("y", x[:, 1:2])], opset=11, axis=1)
w.case("compress_flattened", "Compress", [("x", x), ("c", np.arange(24) % 5 == 0)], [("y", x.ravel()[np.arange(24) % 5 == 0])], opset=11)
w.bad("compress_condition_too_long", "Compress", [("x", x), ("c", np.array([1, 0, 0, 1], bool))], [("y", TP.FLOAT)], "selects past",
      opset=11, axis=1)
nz = np.array([[0, 1, 0], [2, 0, 3]], i64)
w.case("nonzero_int64", "NonZero", [("x", nz)], [("y", np.array(np.nonzero(nz), i64))], opset=13)
xx = np.arange(2 * 2 * 4 * 6, dtype=f).reshape(2, 2, 4, 6)
s2d = xx.reshape(2, 2, 2, 2, 3, 2).transpose(0, 3, 5, 1, 2, 4).reshape(2, 8, 2, 3)
w.case("space_to_depth", "SpaceToDepth", [("x", xx)], [("y", s2d)], opset=13, blocksize=2)
w.case("depth_to_space_dcr_inverse", "DepthToSpace", [("x", s2d)], [("y", xx)], opset=13, blocksize=2)
w.case("depth_to_space_crd", "DepthToSpace", [("x", xx.reshape(1, 8, 2, 6))],
       [("y", xx.reshape(1, 2, 2, 2, 2, 6).transpose(0, 1, 4, 2, 5, 3).reshape(1, 2, 4, 12))], opset=13, blocksize=2, mode="CRD")
w.bad("depth_to_space_huge_blocksize", "DepthToSpace", [("x", x.reshape(1, 2, 3, 4))], [("y", TP.FLOAT)], "divisible", opset=13,
      blocksize=3037000500)
rs, lens = np.arange(12, dtype=f).reshape(3, 4), a64(4, 1, 2)
ers = rs.copy()
ers[0], ers[2, :2] = rs[0, ::-1], rs[2, 1::-1]
w.case("reverse_sequence_batch_axis0", "ReverseSequence", [("x", rs), ("l", lens)], [("y", ers)], opset=10, batch_axis=0, time_axis=1)
w.bad("reverse_sequence_length_too_long", "ReverseSequence", [("x", x), ("l", a64(9, 1, 1))], [("y", TP.FLOAT)], "out of range", opset=10)
cs = np.array([[1, 2, 3], [4, 5, 6]], np.int32)
w.case("cumsum_int_exclusive_reverse", "CumSum", [("x", cs), ("a", np.array(1, np.int32))], [("y", np.array([[5, 3, 0], [11, 6, 0]], np.int32))],
       opset=14, exclusive=1, reverse=1)
w.case("cumsum_f64_axis0", "CumSum", [("x", x.astype(np.float64)), ("a", np.array(0, i64))], [("y", np.cumsum(x.astype(np.float64), axis=0))],
       opset=14)
m = np.array([[[1, 2, 3], [4, 5, 6], [7, 8, 10]], [[1, 2, 3], [2, 4, 6], [0, 0, 1]], [[0, 1, 0], [1, 0, 0], [0, 0, 1]]], f)
w.case("det_3x3_batch", "Det", [("x", m)], [("y", np.array([-3, 0, -1], f))], opset=11)

# Dropout in inference (opset 7, output only) and training with ratio 0.
w.case("dropout7_inference", "Dropout", [("x", x)], [("y", x)], opset=7, ratio=0.3)
w.case("dropout13_training_ratio0", "Dropout", [("x", x), ("r", np.array(0.0, f)), ("t", np.array(True))],
       [("y", x), ("m", np.ones(x.shape, bool))], opset=13, seed=3)
w.done()
