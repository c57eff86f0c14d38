#!/usr/bin/python3
"""Writes tests/capi/ops_custom_op.onnx, the model c_api_ops_test.c runs with a custom op it
defines itself (domain onyx.ops) that calls built-in ops through CreateOp/InvokeOp:

    y, z = AddLeaky(a, b)     a, b float32 [2,3]; y = LeakyRelu(a + b, alpha=0.5) [2,3];
                              z = Transpose(a, perm=[1,0]) [3,2]
"""
import os

from onnx import TensorProto, helper

node = helper.make_node("AddLeaky", ["a", "b"], ["y", "z"], name="add_leaky", domain="onyx.ops")
graph = helper.make_graph([node], "ops",
                          [helper.make_tensor_value_info("a", TensorProto.FLOAT, [2, 3]),
                           helper.make_tensor_value_info("b", TensorProto.FLOAT, [2, 3])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3]),
                           helper.make_tensor_value_info("z", TensorProto.FLOAT, [3, 2])])
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("onyx.ops", 1)])
model.ir_version = 8
HERE = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(HERE, "ops_custom_op.onnx"), "wb") as f:
    f.write(model.SerializeToString())
