#!/usr/bin/python3
"""Writes tests/capi/zipmap.onnx for c_api_zipmap_test.c: ai.onnx.ml ZipMap over the class
labels 3, 1, 7 (not in order, so the test sees the keys come back ascending, as ORT's maps do):

    p     float32 [N, 3]  ->  maps = ZipMap(p)   seq(map(int64, float32))
"""
import os

from onnx import TensorProto, TypeProto, helper, save

map_type = TypeProto()  # onnx 1.12's helper has no map maker
map_type.map_type.key_type = TensorProto.INT64
map_type.map_type.value_type.CopyFrom(helper.make_tensor_type_proto(TensorProto.FLOAT, []))
graph = helper.make_graph(
    [helper.make_node("ZipMap", ["p"], ["maps"], domain="ai.onnx.ml", classlabels_int64s=[3, 1, 7])], "zipmap",
    [helper.make_tensor_value_info("p", TensorProto.FLOAT, ["N", 3])],
    [helper.make_value_info("maps", helper.make_sequence_type_proto(map_type))])
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("ai.onnx.ml", 1)],
                          producer_name="onyx tests/capi/make_zipmap_model.py")
model.ir_version = 8
save(model, os.path.join(os.path.dirname(os.path.abspath(__file__)), "zipmap.onnx"))
