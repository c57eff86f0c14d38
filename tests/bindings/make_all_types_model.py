#!/usr/bin/python3
"""Writes tests/bindings/all_types.onnx, the model the language-binding tests (tests/rust,
tests/java, tests/go) run through ORT's bindings on onyx's libonnxruntime.so.1.

For every tensor element type a binding can hand over, one input and one output, each of
shape [N, 3] (N a dim_param; the string output is [N, 6], so a binding's dynamic shapes are exercised):

    in_<type>  ->  out_<type>
    numeric types (float32, float64, float16, int8, int16, int32, int64, uint8, uint16,
                   uint32, uint64): out = in + in        (so a binding that hands over the
                   wrong bytes or the wrong type sees a wrong answer, not an echo)
    bool:          out = Not(in)
    string:        out = Concat(in, in) along axis 1, shape [N, 6]
"""
import os

from onnx import TensorProto, helper

NUMERIC = {
    "float32": TensorProto.FLOAT, "float64": TensorProto.DOUBLE, "float16": TensorProto.FLOAT16,
    "int8": TensorProto.INT8, "int16": TensorProto.INT16, "int32": TensorProto.INT32,
    "int64": TensorProto.INT64, "uint8": TensorProto.UINT8, "uint16": TensorProto.UINT16,
    "uint32": TensorProto.UINT32, "uint64": TensorProto.UINT64,
}

inputs, outputs, nodes, inits = [], [], [], []
for name, elem in NUMERIC.items():
    inputs.append(helper.make_tensor_value_info(f"in_{name}", elem, ["N", 3]))
    outputs.append(helper.make_tensor_value_info(f"out_{name}", elem, ["N", 3]))
    nodes.append(helper.make_node("Add", [f"in_{name}", f"in_{name}"], [f"out_{name}"]))
inputs.append(helper.make_tensor_value_info("in_bool", TensorProto.BOOL, ["N", 3]))
outputs.append(helper.make_tensor_value_info("out_bool", TensorProto.BOOL, ["N", 3]))
nodes.append(helper.make_node("Not", ["in_bool"], ["out_bool"]))
inputs.append(helper.make_tensor_value_info("in_string", TensorProto.STRING, ["N", 3]))
outputs.append(helper.make_tensor_value_info("out_string", TensorProto.STRING, ["N", 6]))
nodes.append(helper.make_node("Concat", ["in_string", "in_string"], ["out_string"], axis=1))

graph = helper.make_graph(nodes, "all_types", inputs, outputs, inits)
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
model.ir_version = 8
with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "all_types.onnx"), "wb") as f:
    f.write(model.SerializeToString())
