"""Shared helpers for the kernel case generators in tests/kernels/.

A generator is run as `gen_X.py OUT_DIR`. It writes ONNX test cases in the backend suite's
layout (model.onnx + test_data_set_0/{input,output}_K.pb):

  OUT_DIR/pass/NAME/  cases onyx must pass; expected outputs come from numpy code in the
                      generator, never from onyx or from another runtime.
  OUT_DIR/bad/NAME/   bad input onyx must refuse cleanly: inputs only (no expected outputs) and
                      expected_error.txt holding a substring of the error onyx must report.

Every generator seeds its own numpy generator, so the cases are the same on every run.
"""
import os
import shutil
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

NP_TO_ONNX = {
    np.dtype(np.float32): TensorProto.FLOAT, np.dtype(np.float64): TensorProto.DOUBLE,
    np.dtype(np.float16): TensorProto.FLOAT16, np.dtype(np.int8): TensorProto.INT8,
    np.dtype(np.int16): TensorProto.INT16, np.dtype(np.int32): TensorProto.INT32,
    np.dtype(np.int64): TensorProto.INT64, np.dtype(np.uint8): TensorProto.UINT8,
    np.dtype(np.uint16): TensorProto.UINT16, np.dtype(np.uint32): TensorProto.UINT32,
    np.dtype(np.uint64): TensorProto.UINT64, np.dtype(np.bool_): TensorProto.BOOL,
    np.dtype(object): TensorProto.STRING,
}


def elem_type(a):
    return NP_TO_ONNX[np.asarray(a).dtype]


def to_proto(value, name=""):
    """A numpy array becomes a TensorProto, a list of arrays a SequenceProto."""
    if isinstance(value, list):
        seq = onnx.SequenceProto(name=name, elem_type=onnx.SequenceProto.TENSOR)
        seq.tensor_values.extend(numpy_helper.from_array(np.asarray(v)) for v in value)
        return seq
    return numpy_helper.from_array(np.asarray(value), name)


def value_info(name, value, shape=True):
    """Graph input/output declaration matching a value (dims pinned unless shape=False)."""
    if isinstance(value, list):
        item = value[0] if value else np.zeros(0, np.float32)
        t = helper.make_tensor_type_proto(elem_type(item), None)
        return helper.make_value_info(name, helper.make_sequence_type_proto(t))
    a = np.asarray(value)
    return helper.make_tensor_value_info(name, elem_type(a), list(a.shape) if shape else None)


def model(nodes, inputs, outputs, opset=17, initializers=(), extra_opsets=(), ir_version=8):
    """inputs/outputs: lists of ValueInfoProto."""
    g = helper.make_graph(nodes, "g", inputs, outputs, initializer=list(initializers))
    ops = [helper.make_opsetid("", opset)] + [helper.make_opsetid(d, v) for d, v in extra_opsets]
    m = helper.make_model(g, opset_imports=ops)
    m.ir_version = ir_version
    return m


class Writer:
    """Writes the cases of one generator under OUT_DIR (the only command-line argument)."""

    def __init__(self):
        if len(sys.argv) != 2:
            sys.exit(f"usage: {os.path.basename(sys.argv[0])} OUT_DIR")
        self.root = sys.argv[1]
        for sub in ("pass", "bad"):
            shutil.rmtree(os.path.join(self.root, sub), ignore_errors=True)
            os.makedirs(os.path.join(self.root, sub))
        self.names = set()
        self.counts = {"pass": 0, "bad": 0}

    def _dir(self, kind, name):
        if name in self.names:
            raise ValueError(f"duplicate case name {name}")
        self.names.add(name)
        self.counts[kind] += 1
        d = os.path.join(self.root, kind, name)
        os.makedirs(os.path.join(d, "test_data_set_0"))
        return d

    @staticmethod
    def _write(d, m, feeds, expected):
        onnx.save(m, os.path.join(d, "model.onnx"))
        for k, v in enumerate(feeds):
            with open(os.path.join(d, "test_data_set_0", f"input_{k}.pb"), "wb") as f:
                f.write(to_proto(v).SerializeToString())
        for k, v in enumerate(expected):
            with open(os.path.join(d, "test_data_set_0", f"output_{k}.pb"), "wb") as f:
                f.write(to_proto(v).SerializeToString())

    def model_case(self, name, m, feeds, expected):
        """A whole model; feeds/expected in graph input/output order."""
        self._write(self._dir("pass", name), m, feeds, expected)

    def copy_case(self, name, m, input_files, output_files):
        """A whole model whose test data already exist as .pb files (copied as they are)."""
        d = self._dir("pass", name)
        onnx.save(m, os.path.join(d, "model.onnx"))
        for prefix, files in (("input", input_files), ("output", output_files)):
            for k, src in enumerate(files):
                shutil.copyfile(src, os.path.join(d, "test_data_set_0", f"{prefix}_{k}.pb"))

    def model_bad(self, name, m, feeds, error):
        d = self._dir("bad", name)
        self._write(d, m, feeds, [])
        with open(os.path.join(d, "expected_error.txt"), "w") as f:
            f.write(error + "\n")

    @staticmethod
    def _node_model(op, inputs, outputs, opset, attrs, domain="", extra_opsets=(), out_shapes=True):
        in_names = [n if v is not None else "" for n, v in inputs]
        while in_names and in_names[-1] == "":
            in_names.pop()
        node = helper.make_node(op, in_names, [n for n, _ in outputs], domain=domain, **attrs)
        gin = [value_info(n, v) for n, v in inputs if v is not None]
        gout = []
        for n, v in outputs:
            if isinstance(v, int):  # bad case: only the element type is known
                gout.append(helper.make_tensor_value_info(n, v, None))
            else:
                gout.append(value_info(n, v, out_shapes))
        return model([node], gin, gout, opset=opset, extra_opsets=extra_opsets)

    def case(self, name, op, inputs, outputs, opset=17, out_shapes=True, extra_opsets=(), domain="", **attrs):
        """One node. inputs: [(name, array | list | None for an omitted optional input)];
        outputs: [(name, expected array | list)]."""
        m = self._node_model(op, inputs, outputs, opset, attrs, domain, extra_opsets, out_shapes)
        self.model_case(name, m, [v for _, v in inputs if v is not None], [v for _, v in outputs])

    def bad(self, name, op, inputs, outputs, error, opset=17, extra_opsets=(), domain="", **attrs):
        """One node that must fail. outputs: [(name, TensorProto element type)]."""
        m = self._node_model(op, inputs, outputs, opset, attrs, domain, extra_opsets)
        self.model_bad(name, m, [v for _, v in inputs if v is not None], error)

    def done(self):
        print(f"{os.path.basename(sys.argv[0])}: {self.counts['pass']} cases, {self.counts['bad']} bad cases")
