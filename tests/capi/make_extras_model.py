#!/usr/bin/python3
"""Writes tests/capi/extras_custom_op.onnx, the model c_api_extras_test.c runs with a custom op
it defines itself (domain onyx.extras):

    y = Labels(x, labels=["alpha", "", "gamma"], scale=2)     x, y float32 [3]; y = x * scale
"""
import os

from onnx import TensorProto, helper

node = helper.make_node("Labels", ["x"], ["y"], name="labels", domain="onyx.extras",
                        labels=["alpha", "", "gamma"], scale=2)
graph = helper.make_graph([node], "extras",
                          [helper.make_tensor_value_info("x", TensorProto.FLOAT, [3])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [3])])
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("onyx.extras", 1)])
model.ir_version = 8
HERE = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(HERE, "extras_custom_op.onnx"), "wb") as f:
    f.write(model.SerializeToString())
