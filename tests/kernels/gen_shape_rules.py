#!/usr/bin/python3
"""Cases for the static type/shape rules (src/ops), derived from ONNX backend suite cases
(Debian's libonnx-testdata) for shape and data-movement ops. `onyx test` checks every node
output against its op's rule, and the rules take other paths when inputs are constant or
dims are symbolic, which the suite's cases (all inputs fed, all dims fixed) never reach:

  NAME_c  inputs after the first become initializers (ConstantOfShape/Range: all of them)
  NAME_s  as _c, and the remaining inputs' dims become symbols; the graph outputs lose their
          declared dims, so nothing but the rules supplies them

Expected outputs are the suite's own. Usage: gen_shape_rules.py OUT_DIR."""
import glob
import os
import sys

import onnx

from kcase import Writer

SUITE = "/usr/share/libonnx-testdata/data/node"
CASES = """
compress_0 compress_default_axis concat_1d_axis_0 concat_3d_axis_negative_2 constant constant_pad edge_pad reflect_pad
constantofshape_float_ones constantofshape_int_shape_zero cumsum_1d_reverse_exclusive cumsum_2d_negative_axis
depthtospace_crd_mode depthtospace_dcr_mode det_nd expand_dim_changed expand_dim_unchanged
eyelike_populate_off_main_diagonal eyelike_with_dtype flatten_axis0 flatten_negative_axis3 gather_2d_indices
gather_negative_indices gather_elements_negative_indices gathernd_example_int32_batch_dim1 globalaveragepool globalmaxpool
maxunpool_export_with_output_shape nonzero_example onehot_negative_indices onehot_with_negative_axis
range_float_type_positive_delta range_int32_type_negative_delta reshape_allowzero_reordered reshape_negative_extended_dims
reshape_reduced_dims reshape_zero_and_negative_dim reversesequence_batch reversesequence_time
scatter_elements_with_negative_indices scatter_with_axis scatternd_multiply shape_clip_start shape_start_1_end_negative_1
size_example slice_default_axes slice_neg_steps slice_negative_axes slice_start_out_of_bounds spacetodepth
split_equal_parts_default_axis split_variable_parts_2d split_zero_size_splits squeeze_negative_axes tile_precomputed
top_k_negative_axis top_k_smallest transpose_all_permutations_4 transpose_default tril_out_neg tril_zero triu_one_row
triu_square_neg unique_not_sorted_without_axis unique_sorted_with_axis_3d unsqueeze_negative_axes unsqueeze_unsorted_axes
""".split()

if not os.path.isdir(SUITE):
    sys.exit(f"gen_shape_rules.py: {SUITE} is missing (Debian package libonnx-testdata)")
w = Writer()
for base in CASES:
    src = os.path.join(SUITE, "test_" + base)
    m = onnx.load(os.path.join(src, "model.onnx"))
    data = os.path.join(src, "test_data_set_0")
    ins = sorted(glob.glob(data + "/input_*.pb"), key=lambda p: int(p.rsplit("_", 1)[1][:-3]))
    outs = sorted(glob.glob(data + "/output_*.pb"), key=lambda p: int(p.rsplit("_", 1)[1][:-3]))
    inits = {i.name for i in m.graph.initializer}
    fed = [i for i in m.graph.input if i.name not in inits]
    assert len(ins) == len(fed), base
    first_const = 0 if {n.op_type for n in m.graph.node} & {"ConstantOfShape", "Range"} else 1
    for variant in ("c", "s"):
        mm = onnx.ModelProto()
        mm.CopyFrom(m)
        for k in range(first_const, len(fed)):
            t = onnx.TensorProto()
            with open(ins[k], "rb") as f:
                t.ParseFromString(f.read())
            t.name = fed[k].name
            mm.graph.initializer.append(t)
        keep = [gi for gi in mm.graph.input if gi.name not in {fed[k].name for k in range(first_const, len(fed))}]
        del mm.graph.input[:]
        mm.graph.input.extend(keep)
        if variant == "s":
            if not keep:
                continue  # nothing left to make symbolic
            for gi in mm.graph.input:
                for j, dim in enumerate(gi.type.tensor_type.shape.dim):
                    dim.dim_param = f"s{j}"
            for o in mm.graph.output:
                o.type.tensor_type.ClearField("shape")
        w.copy_case(f"{base}_{variant}", mm, ins[:first_const], outs)
w.done()
