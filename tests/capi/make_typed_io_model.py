#!/usr/bin/python3
"""Writes tests/capi/typed_io.onnx, whose inputs and outputs carry every kind of ONNX type the
C API describes (c_api_types_test.c reads their type information):

    x     float32 [N, 3]                 (N a dim_param)
    s     seq(float32[?])                -> joined = SequenceInsert(s, x)   seq(float32)
    o     optional(float32[2])           -> has = OptionalHasElement(o)     bool []
    m     seq(map(int64, float32[]))     (read by nothing: no onyx kernel makes or takes maps)
"""
import os

from onnx import TensorProto, TypeProto, helper

seq_f32 = helper.make_sequence_type_proto(helper.make_tensor_type_proto(TensorProto.FLOAT, None))
opt_f32 = helper.make_optional_type_proto(helper.make_tensor_type_proto(TensorProto.FLOAT, [2]))
map_type = TypeProto()  # onnx 1.13's helper has no map maker
map_type.map_type.key_type = TensorProto.INT64
map_type.map_type.value_type.CopyFrom(helper.make_tensor_type_proto(TensorProto.FLOAT, []))
seq_map = helper.make_sequence_type_proto(map_type)
nodes = [
    helper.make_node("SequenceInsert", ["s", "x"], ["joined"]),
    helper.make_node("OptionalHasElement", ["o"], ["has"]),
]
graph = helper.make_graph(
    nodes, "typed_io",
    [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 3]),
     helper.make_value_info("s", seq_f32),
     helper.make_value_info("o", opt_f32),
     helper.make_value_info("m", seq_map)],
    [helper.make_value_info("joined", seq_f32),
     helper.make_tensor_value_info("has", TensorProto.BOOL, [])])
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
model.ir_version = 8
with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "typed_io.onnx"), "wb") as f:
    f.write(model.SerializeToString())
