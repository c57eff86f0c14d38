#!/usr/bin/env python3
"""Generates stripes.onnx, onyx's default demo model, and three sample images.

A tiny hand-built image classifier: two 3x3 Sobel filters measure vertical and horizontal
edges in an 8x8 grey image, their average magnitudes feed a linear layer, and Softmax gives
the probabilities of three classes: vertical stripes, horizontal stripes, flat. Every weight
is chosen by hand, so the answer can be checked by eye.

    /usr/bin/python3 models/make_stripes.py   # writes models/stripes.onnx and models/*.npy
"""
import os

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))


def build():
    sobel_x = np.array([[-1, 0, 1], [-2, 0, 2], [-1, 0, 1]], np.float32)  # responds to vertical edges
    sobel_y = sobel_x.T.copy()                                              # responds to horizontal edges
    filters = np.stack([sobel_x, sobel_y])[:, None, :, :]                   # [2, 1, 3, 3]
    # logits = edges @ W + b: vertical = gx - gy, horizontal = gy - gx, flat = 1 - gx - gy.
    weights = np.array([[4, -4, -4], [-4, 4, -4]], np.float32)
    bias = np.array([0, 0, 2], np.float32)
    nodes = [
        helper.make_node("Conv", ["image", "sobel"], ["edges"], name="sobel"),
        helper.make_node("Abs", ["edges"], ["magnitude"], name="magnitude"),
        helper.make_node("GlobalAveragePool", ["magnitude"], ["pooled"], name="pool"),
        helper.make_node("Flatten", ["pooled"], ["features"], name="flatten"),
        helper.make_node("Gemm", ["features", "weights", "bias"], ["logits"], name="classify"),
        helper.make_node("Softmax", ["logits"], ["probabilities"], name="softmax", axis=1),
    ]
    graph = helper.make_graph(
        nodes, "stripes",
        [helper.make_tensor_value_info("image", TensorProto.FLOAT, ["batch", 1, 8, 8])],
        [helper.make_tensor_value_info("probabilities", TensorProto.FLOAT, ["batch", 3])],
        initializer=[numpy_helper.from_array(filters, "sobel"), numpy_helper.from_array(weights, "weights"),
                     numpy_helper.from_array(bias, "bias")],
        doc_string="probabilities of [vertical stripes, horizontal stripes, flat] for an 8x8 grey image")
    model = helper.make_model(graph, producer_name="onyx/models/make_stripes.py",
                              opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    return model


def images():
    vertical = np.tile(np.array([0, 0, 1, 1] * 2, np.float32), (8, 1))
    return {"vertical": vertical, "horizontal": vertical.T.copy(), "flat": np.full((8, 8), 0.5, np.float32)}


if __name__ == "__main__":
    onnx.save(build(), os.path.join(HERE, "stripes.onnx"))
    for name, img in images().items():
        np.save(os.path.join(HERE, f"{name}.npy"), img.reshape(1, 1, 8, 8))
    print("wrote stripes.onnx and vertical.npy, horizontal.npy, flat.npy in", HERE)
