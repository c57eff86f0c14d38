"""Helpers for the onyx Python API tests: models built with onnx.helper, test-data paths."""
import os

import numpy as np
import pytest
from onnx import TensorProto, helper, numpy_helper

DATA = "/usr/share/libonnx-testdata/data"


def tensor_info(name, elem_type, shape):
    return helper.make_tensor_value_info(name, elem_type, shape)


def make_model(nodes, inputs, outputs, initializers=(), opset=17, ir_version=8, **model_fields):
    """A ModelProto's bytes from nodes and value infos; model_fields set ModelProto fields
    (producer_name, doc_string, model_version, domain) or metadata_props (a dict)."""
    graph = helper.make_graph(nodes, model_fields.pop("graph_name", "g"), inputs, outputs, list(initializers))
    metadata = model_fields.pop("metadata_props", None)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], **model_fields)
    model.ir_version = ir_version
    if metadata:
        helper.set_model_props(model, metadata)
    return model.SerializeToString()


def unary_model(op, elem_type, shape=None, **attrs):
    """x -> op -> y, both of elem_type."""
    return make_model([helper.make_node(op, ["x"], ["y"], **attrs)], [tensor_info("x", elem_type, shape)],
                      [tensor_info("y", elem_type, shape)])


def data_case(case):
    path = os.path.join(DATA, case)
    if not os.path.exists(os.path.join(path, "model.onnx")):
        pytest.skip(f"{path} is not installed")
    return path


@pytest.fixture
def add_model():
    """y = x + b, float [2,3] (b an initializer, overridable)."""
    b = np.arange(6, dtype=np.float32).reshape(2, 3)
    return make_model([helper.make_node("Add", ["x", "b"], ["y"])],
                      [tensor_info("x", TensorProto.FLOAT, [2, 3]), tensor_info("b", TensorProto.FLOAT, [2, 3])],
                      [tensor_info("y", TensorProto.FLOAT, [2, 3])],
                      [numpy_helper.from_array(b, "b")])
