#!/usr/bin/python3
"""Writes tests/capi/lora.onnx and tests/capi/lora.onnx_adapter, which c_api_lora_test.c runs.

The model is a LoRA-style linear layer:

    y = x @ W + (x @ lora_A) @ lora_B      x float32 [1, 4], W [4, 4] (W[i][j] = 4*i + j + 1)

lora_A [4, r] and lora_B [r, 4] are graph inputs with zero-size initializer defaults ([4, 0] and
[0, 4]), so that without an adapter the second term is zero. The adapter holds r = 2:

    lora_A = [[1, 0], [0, 1], [1, 0], [0, 1]]
    lora_B = [[1, 2, 3, 4], [0.5, 0, -1, 1]]

The adapter file is ORT's .onnx_adapter format (a FlatBuffers buffer with file identifier
"TORT"; see src/capi/lora_adapters.cc), written by the small FlatBuffers writer below (no
flatbuffers package needed): Adapter {format_version, adapter_version, model_version,
parameters: [Parameter {name, dims: [int64], data_type: int32, raw_data: [uint8]}]}.
"""
import os
import struct

from onnx import TensorProto, checker, helper

HERE = os.path.dirname(os.path.abspath(__file__))

W = [float(4 * i + j + 1) for i in range(4) for j in range(4)]
LORA_A = [1, 0, 0, 1, 1, 0, 0, 1]
LORA_B = [1, 2, 3, 4, 0.5, 0, -1, 1]


def write_model():
    nodes = [
        helper.make_node("MatMul", ["x", "W"], ["base"]),
        helper.make_node("MatMul", ["x", "lora_A"], ["xa"]),
        helper.make_node("MatMul", ["xa", "lora_B"], ["delta"]),
        helper.make_node("Add", ["base", "delta"], ["y"]),
    ]
    graph = helper.make_graph(
        nodes, "lora",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4]),
         helper.make_tensor_value_info("lora_A", TensorProto.FLOAT, [4, "r"]),
         helper.make_tensor_value_info("lora_B", TensorProto.FLOAT, ["r", 4])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 4])],
        initializer=[helper.make_tensor("W", TensorProto.FLOAT, [4, 4], W),
                     helper.make_tensor("lora_A", TensorProto.FLOAT, [4, 0], []),
                     helper.make_tensor("lora_B", TensorProto.FLOAT, [0, 4], [])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
    model.ir_version = 8
    checker.check_model(model)
    with open(os.path.join(HERE, "lora.onnx"), "wb") as f:
        f.write(model.SerializeToString())


class Writer:
    """A front-to-back FlatBuffers writer: tables before what they point to, so every uoffset is
    positive; little endian; scalars aligned to their size."""

    def __init__(self):
        self.buf = bytearray()

    def pad(self, n, extra=0):
        while (len(self.buf) + extra) % n:
            self.buf += b"\0"

    def put(self, fmt, *values):
        self.pad(struct.calcsize(fmt))
        at = len(self.buf)
        self.buf += struct.pack("<" + fmt, *values)
        return at

    def patch_offset(self, field_at, target):  # a uoffset: relative to its own position
        struct.pack_into("<I", self.buf, field_at, target - field_at)

    def vtable(self, field_sizes):
        """A vtable for a table holding the fields in order (each 4 bytes); returns its position."""
        self.pad(2)
        at = len(self.buf)
        offsets = [4 + 4 * i for i in range(len(field_sizes))]
        self.buf += struct.pack("<HH", 4 + 2 * len(offsets), 4 + 4 * len(offsets))
        self.buf += struct.pack("<%dH" % len(offsets), *offsets)
        return at

    def table(self, vtable_at, values):
        """A table of 4-byte fields (("i", v) scalars, ("o", None) offsets patched later);
        returns its position and each field's position."""
        self.pad(4)
        at = len(self.buf)
        self.buf += struct.pack("<i", at - vtable_at)  # soffset: vtable at table - soffset
        fields = []
        for kind, v in values:
            fields.append(len(self.buf))
            self.buf += struct.pack("<i" if kind == "i" else "<I", v if kind == "i" else 0)
        return at, fields

    def vector(self, item_fmt, items, elem_align):
        self.pad(max(4, elem_align), 4)  # the length, then items aligned to elem_align
        at = len(self.buf)
        self.buf += struct.pack("<I", len(items))
        self.buf += struct.pack("<%d%s" % (len(items), item_fmt), *items)
        return at

    def string(self, s):
        self.pad(4)
        at = len(self.buf)
        data = s.encode()
        self.buf += struct.pack("<I", len(data)) + data + b"\0"
        return at


def write_adapter():
    params = [("lora_A", [4, 2], LORA_A), ("lora_B", [2, 4], LORA_B)]
    w = Writer()
    w.put("I", 0)            # the root offset, patched below
    w.buf += b"TORT"         # the file identifier
    adapter_vt = w.vtable([4, 4, 4, 4])
    param_vt = w.vtable([4, 4, 4, 4])
    root, fields = w.table(adapter_vt, [("i", 1), ("i", 1), ("i", 1), ("o", None)])
    struct.pack_into("<I", w.buf, 0, root)
    vec = w.vector("I", [0] * len(params), 4)
    w.patch_offset(fields[3], vec)
    for k, (name, dims, values) in enumerate(params):
        table, pf = w.table(param_vt, [("o", None), ("o", None), ("i", TensorProto.FLOAT), ("o", None)])
        w.patch_offset(vec + 4 + 4 * k, table)
        w.patch_offset(pf[0], w.string(name))
        w.patch_offset(pf[1], w.vector("q", dims, 8))
        raw = struct.pack("<%df" % len(values), *values)
        w.patch_offset(pf[3], w.vector("B", list(raw), 4))
    with open(os.path.join(HERE, "lora.onnx_adapter"), "wb") as f:
        f.write(bytes(w.buf))


write_model()
write_adapter()
