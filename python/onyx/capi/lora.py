"""LoRA adapters in ONNX Runtime's adapter file format (".onnx_adapter"): AdapterFormat reads
and writes the files, LoraAdapter loads one for RunOptions.add_active_adapter.

The file is a FlatBuffer with the file identifier "TORT". Its root table (Adapter) has four
fields in this order: format_version (int32), adapter_version (int32), model_version (int32)
and parameters (a vector of Parameter tables). A Parameter has name (string), dims (vector of
int64), data_type (int32, ONNX's TensorProto numbering: 1 float, 7 int64, ...) and raw_data
(vector of bytes, the little-endian elements). This module reads and writes that layout
itself; it needs no flatbuffers package.

An active adapter's parameters are fed as the values of the model's overridable initializers
of the same names (ONNX Runtime's LoRA models declare them as graph inputs with initializer
defaults), viewing the adapter file's bytes without a copy.
"""
import struct

import numpy as np

from onyx.capi import onnxruntime_pybind11_state as C

_IDENTIFIER = b"TORT"
_FORMAT_VERSION = 1

# ONNX TensorProto element types and their numpy dtypes (strings cannot be adapter parameters).
_NUMPY_OF = {1: np.float32, 2: np.uint8, 3: np.int8, 4: np.uint16, 5: np.int16, 6: np.int32, 7: np.int64,
             9: np.bool_, 10: np.float16, 11: np.float64, 12: np.uint32, 13: np.uint64, 16: np.uint16}


class _Reader:
    """Reads tables, vectors and strings of a FlatBuffer, checking every offset against the
    buffer so that a truncated or hostile file raises InvalidProtobuf instead of reading past it."""

    def __init__(self, data):
        self.data = memoryview(data)

    def _check(self, pos, size, what):
        if pos < 0 or size < 0 or pos + size > len(self.data):
            raise C.InvalidProtobuf(f"adapter file: {what} at byte {pos} runs past the end ({len(self.data)} bytes)")

    def u32(self, pos):
        self._check(pos, 4, "a uint32")
        return struct.unpack_from("<I", self.data, pos)[0]

    def i32(self, pos):
        self._check(pos, 4, "an int32")
        return struct.unpack_from("<i", self.data, pos)[0]

    def field(self, table, index):
        """The absolute position of field `index` of the table at `table`, or None if absent."""
        vtable = table - self.i32(table)
        self._check(vtable, 4, "a vtable")
        vt_size = struct.unpack_from("<H", self.data, vtable)[0]
        if 4 + 2 * index + 2 > vt_size:
            return None
        self._check(vtable + 4 + 2 * index, 2, "a vtable entry")
        off = struct.unpack_from("<H", self.data, vtable + 4 + 2 * index)[0]
        return table + off if off else None

    def indirect(self, pos):
        return pos + self.u32(pos)

    def vector(self, pos, item_size):
        """(start, length) of the vector referenced at `pos`."""
        start = self.indirect(pos)
        n = self.u32(start)
        self._check(start + 4, n * item_size, "a vector")
        return start + 4, n


def _parse(data):
    """(adapter_version, model_version, {name: OrtValue}) of an adapter file's bytes; the
    values view `data` (keep it alive: the OrtValues hold it through numpy)."""
    r = _Reader(data)
    if len(data) < 8 or bytes(data[4:8]) != _IDENTIFIER:
        raise C.InvalidProtobuf("not an ONNX Runtime adapter file (no 'TORT' identifier)")
    root = r.indirect(0)
    versions = []
    for i in range(3):
        pos = r.field(root, i)
        versions.append(r.i32(pos) if pos is not None else 0)
    params = {}
    pos = r.field(root, 3)
    if pos is not None:
        start, n = r.vector(pos, 4)
        for k in range(n):
            table = r.indirect(start + 4 * k)
            name_pos = r.field(table, 0)
            if name_pos is None:
                raise C.InvalidProtobuf(f"adapter file: parameter {k} has no name")
            s, length = r.vector(name_pos, 1)
            try:
                name = bytes(r.data[s:s + length]).decode("utf-8")
            except UnicodeDecodeError:
                raise C.InvalidProtobuf(f"adapter file: parameter {k}'s name is not UTF-8") from None
            dims = []
            dims_pos = r.field(table, 1)
            if dims_pos is not None:
                s, length = r.vector(dims_pos, 8)
                dims = list(struct.unpack_from(f"<{length}q", r.data, s))
            type_pos = r.field(table, 2)
            elem = r.i32(type_pos) if type_pos is not None else 0
            if elem not in _NUMPY_OF:
                raise C.InvalidProtobuf(f"adapter file: parameter '{name}' has element type {elem}, "
                                        "which adapters cannot hold")
            raw_pos = r.field(table, 3)
            s, length = r.vector(raw_pos, 1) if raw_pos is not None else (0, 0)
            dtype = np.dtype(_NUMPY_OF[elem])
            count = 1
            for d in dims:  # Python ints: no overflow
                count *= d
            if any(d < 0 for d in dims) or count * dtype.itemsize != length:
                raise C.InvalidProtobuf(f"adapter file: parameter '{name}' of dims {dims} has {length} bytes of data")
            array = np.frombuffer(data, dtype=dtype, count=count, offset=s).reshape(dims)
            params[name] = C.OrtValue.ortvalue_from_numpy_with_onnx_type(array, elem)
    return versions[1], versions[2], params


def _pad(buf, alignment, before=0):
    """Pads `buf` with zeros until (len + before) is a multiple of `alignment`."""
    buf.extend(b"\0" * ((-(len(buf) + before)) % alignment))


def _serialize(adapter_version, model_version, params):
    """An adapter file's bytes. Laid out front to back, so every offset points forward."""
    out = bytearray()
    out += struct.pack("<I", 0) + _IDENTIFIER  # root offset, patched below
    fixups = []  # (position of a uoffset, key of its target)
    targets = {}
    vtable_size, table_size = 4 + 2 * 4, 4 + 4 * 4

    def table(fields):  # fields: four 4-byte values, each ("i", int) or ("ref", key)
        _pad(out, 4)
        pos = len(out)
        out.extend(struct.pack("<i", 0))  # soffset to the vtable, patched by the caller
        for kind, value in fields:
            if kind == "i":
                out.extend(struct.pack("<i", value))
            else:
                fixups.append((len(out), value))
                out.extend(b"\0\0\0\0")
        return pos

    def vtable():
        _pad(out, 2)
        pos = len(out)
        out.extend(struct.pack("<6H", vtable_size, table_size, 4, 8, 12, 16))
        return pos

    names = list(params)
    root = table([("i", _FORMAT_VERSION), ("i", adapter_version), ("i", model_version), ("ref", "params")])
    struct.pack_into("<I", out, 0, root)
    vt = vtable()
    struct.pack_into("<i", out, root, root - vt)
    _pad(out, 4)
    targets["params"] = len(out)
    out.extend(struct.pack("<I", len(names)))
    for k in range(len(names)):
        fixups.append((len(out), ("param", k)))
        out.extend(b"\0\0\0\0")
    for k, name in enumerate(names):
        value = params[name]
        if not value.is_tensor():
            raise C.InvalidArgument(f"adapter parameter '{name}' is not a tensor")
        elem = value.element_type()
        if elem not in _NUMPY_OF:
            raise C.InvalidArgument(f"adapter parameter '{name}' has element type {elem}, which adapters cannot hold")
        targets[("param", k)] = table([("ref", ("name", k)), ("ref", ("dims", k)), ("i", elem), ("ref", ("raw", k))])
        struct.pack_into("<i", out, targets[("param", k)], targets[("param", k)] - vt)
    for k, name in enumerate(names):
        value = params[name]
        encoded = name.encode("utf-8")
        _pad(out, 4)
        targets[("name", k)] = len(out)
        out.extend(struct.pack("<I", len(encoded)) + encoded + b"\0")
        dims = list(value.shape())
        _pad(out, 8, before=4)  # int64 elements 8-aligned
        targets[("dims", k)] = len(out)
        out.extend(struct.pack(f"<I{len(dims)}q", len(dims), *dims))
        raw = np.ascontiguousarray(value.numpy()).astype(np.dtype(_NUMPY_OF[value.element_type()]).newbyteorder("<"),
                                                         copy=False)
        data = raw.tobytes()
        _pad(out, 16, before=4)  # the elements 16-aligned, so readers may view them in place
        targets[("raw", k)] = len(out)
        out.extend(struct.pack("<I", len(data)) + data)
    for pos, key in fixups:
        struct.pack_into("<I", out, pos, targets[key] - pos)
    return bytes(out)


class AdapterFormat:
    """ONNX Runtime's AdapterFormat: versions and named parameters (OrtValues), written with
    export_adapter(path) and read back with AdapterFormat.read_adapter(path)."""

    def __init__(self):
        self._adapter_version = 0
        self._model_version = 0
        self._params = {}

    def set_adapter_version(self, version):
        self._adapter_version = int(version)

    def set_model_version(self, version):
        self._model_version = int(version)

    def set_parameters(self, params):
        """params: {name: OrtValue} (numpy arrays are taken too)."""
        self._params = {str(k): v if isinstance(v, C.OrtValue) else C.OrtValue.ortvalue_from_numpy(np.asarray(v))
                        for k, v in params.items()}

    def get_adapter_version(self):
        return self._adapter_version

    def get_model_version(self):
        return self._model_version

    def get_parameters(self):
        return dict(self._params)

    def export_adapter(self, file_path):
        data = _serialize(self._adapter_version, self._model_version, self._params)
        with open(file_path, "wb") as f:
            f.write(data)

    @staticmethod
    def read_adapter(file_path):
        with open(file_path, "rb") as f:
            data = f.read()
        out = AdapterFormat()
        out._adapter_version, out._model_version, out._params = _parse(data)
        return out


class LoraAdapter:
    """A LoRA adapter for RunOptions.add_active_adapter: Load(path) reads an adapter file (or
    LoadFromBytes(data) its bytes); a run with it active feeds each parameter as the value of
    the model's overridable initializer of that name."""

    def __init__(self):
        self._params = {}

    def Load(self, file_path):  # noqa: N802 (ONNX Runtime's name)
        with open(file_path, "rb") as f:
            self._params = _parse(f.read())[2]

    def LoadFromBytes(self, data):  # noqa: N802
        self._params = _parse(bytes(data))[2]

    def parameters(self):
        """{name: OrtValue}: what a run with this adapter active feeds."""
        return dict(self._params)
