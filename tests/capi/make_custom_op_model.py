#!/usr/bin/python3
"""Writes the models the custom-op tests run (ops of domain onyx.test from
tests/capi/custom_op_library.c): tests/capi/custom_ops.onnx

    z = ScaledAdd(x, y, alpha=0.5)            x, y float32 [2, 3]
    joined = Join(z, x, tag="join")           float32 [12]
    ints = Join(n, n, n)                      n int64 [2] -> [6]

and tests/capi/custom_op_fails.onnx, y = Join(x, fail=1) (x float32 [2]), whose run fails with
the op's own status.
"""
import os

from onnx import TensorProto, helper

nodes = [
    helper.make_node("ScaledAdd", ["x", "y"], ["z"], name="scaled_add", domain="onyx.test", alpha=0.5),
    helper.make_node("Join", ["z", "x"], ["joined"], name="join", domain="onyx.test", tag="join"),
    helper.make_node("Join", ["n", "n", "n"], ["ints"], name="join_ints", domain="onyx.test"),
]
graph = helper.make_graph(
    nodes, "custom_ops",
    [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3]),
     helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3]),
     helper.make_tensor_value_info("n", TensorProto.INT64, [2])],
    [helper.make_tensor_value_info("z", TensorProto.FLOAT, [2, 3]),
     helper.make_tensor_value_info("joined", TensorProto.FLOAT, [12]),
     helper.make_tensor_value_info("ints", TensorProto.INT64, [6])])
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("onyx.test", 1)])
model.ir_version = 8
HERE = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(HERE, "custom_ops.onnx"), "wb") as f:
    f.write(model.SerializeToString())

failing = helper.make_model(
    helper.make_graph([helper.make_node("Join", ["x"], ["y"], name="failing", domain="onyx.test", fail=1)], "fails",
                      [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])],
                      [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])]),
    opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("onyx.test", 1)])
failing.ir_version = 8
with open(os.path.join(HERE, "custom_op_fails.onnx"), "wb") as f:
    f.write(failing.SerializeToString())
