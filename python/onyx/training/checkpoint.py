"""onyx's training checkpoint file: an ONNX ModelProto without nodes whose initializers hold the
parameters ("param/<name>") and, when saved, the optimizer's state ("exp_avg/<name>",
"exp_avg_sq/<name>"), and whose metadata_props hold the rest (format version, which
parameters train, the optimizer, its configuration and step, the user's properties) as JSON.
Written to a temporary file and renamed, so a crash mid-save leaves the old file whole; read
with every field checked, so a truncated or hostile file is an error, never a crash.
"""
import dataclasses
import json
import os
import warnings

import numpy as np
import onnx
from onnx import helper, numpy_helper

from onyx.capi import onnxruntime_pybind11_state as C

FORMAT = "onyx.checkpoint.1"


@dataclasses.dataclass
class CheckpointData:
    parameters: dict  # name -> numpy array, in the training model's order
    requires_grad: dict  # name -> bool
    optimizer: str = ""  # "AdamW", "SGD" or ""
    optimizer_config: dict = dataclasses.field(default_factory=dict)
    step: int = 0
    exp_avg: dict = dataclasses.field(default_factory=dict)  # name -> numpy array (AdamW)
    exp_avg_sq: dict = dataclasses.field(default_factory=dict)
    properties: dict = dataclasses.field(default_factory=dict)  # name -> int, float or str
    # A nominal checkpoint holds the parameters' names, dtypes and shapes but not their values
    # (ONNX Runtime's nominal_checkpoint): a Module over it refuses to run until
    # copy_buffer_to_parameters has loaded them.
    nominal: bool = False


def write(data, path, include_optimizer_state=True):
    inits = [] if data.nominal else [numpy_helper.from_array(np.ascontiguousarray(v), "param/" + k)
                                     for k, v in data.parameters.items()]
    if include_optimizer_state:
        inits += [numpy_helper.from_array(np.ascontiguousarray(v), "exp_avg/" + k) for k, v in data.exp_avg.items()]
        inits += [numpy_helper.from_array(np.ascontiguousarray(v), "exp_avg_sq/" + k) for k, v in data.exp_avg_sq.items()]
    model = helper.make_model(helper.make_graph([], "onyx_checkpoint", [], [], inits), producer_name="onyx.training")
    model.ir_version = 8
    meta = {"format": FORMAT, "order": json.dumps(list(data.parameters)), "requires_grad": json.dumps(data.requires_grad),
            "optimizer": data.optimizer, "optimizer.config": json.dumps(data.optimizer_config),
            "optimizer.step": str(data.step if include_optimizer_state else 0),
            "properties": json.dumps(data.properties)}
    if data.nominal:
        meta["nominal"] = json.dumps({k: [str(v.dtype), list(v.shape)] for k, v in data.parameters.items()})
    helper.set_model_props(model, meta)
    tmp = f"{path}.tmp{os.getpid()}"
    with open(tmp, "wb") as f:
        f.write(model.SerializeToString())
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


def read(path):
    try:
        with open(path, "rb") as f:
            raw = f.read()
    except OSError as e:
        raise C.NoSuchFile(f"checkpoint '{path}': {e.strerror}") from None
    model = onnx.ModelProto()
    try:
        with warnings.catch_warnings():  # protobuf warns, and keeps what it read, on a stray end-group tag
            warnings.simplefilter("error")
            model.ParseFromString(raw)
    except Exception as e:  # noqa: BLE001 - protobuf's DecodeError, that warning, and friends
        raise C.InvalidProtobuf(f"checkpoint '{path}' is not an onyx checkpoint (it does not parse: {e})") from None
    meta = {p.key: p.value for p in model.metadata_props}
    if meta.get("format") != FORMAT:
        raise C.InvalidProtobuf(f"checkpoint '{path}' is not an onyx checkpoint (format {meta.get('format')!r})")
    try:
        order = json.loads(meta["order"])
        requires_grad = json.loads(meta["requires_grad"])
        config = json.loads(meta.get("optimizer.config", "{}"))
        properties = json.loads(meta.get("properties", "{}"))
        step = int(meta.get("optimizer.step", "0"))
    except (KeyError, ValueError, TypeError) as e:
        raise C.InvalidProtobuf(f"checkpoint '{path}': damaged metadata ({e})") from None
    if (not isinstance(order, list) or not all(isinstance(n, str) for n in order) or not isinstance(requires_grad, dict)
            or not isinstance(properties, dict) or not isinstance(config, dict) or step < 0):
        raise C.InvalidProtobuf(f"checkpoint '{path}': damaged metadata")
    tensors = {}
    for t in model.graph.initializer:
        try:
            tensors[t.name] = numpy_helper.to_array(t).copy()
        except Exception as e:  # noqa: BLE001 - a tensor whose data does not match its dims
            raise C.InvalidProtobuf(f"checkpoint '{path}': tensor '{t.name}' is damaged ({e})") from None
    data = CheckpointData(parameters={}, requires_grad={}, optimizer=meta.get("optimizer", ""),
                          optimizer_config=config, step=step, properties=properties)
    if "nominal" in meta:
        try:
            layout = json.loads(meta["nominal"])
            for name in order:
                dtype, shape = layout[name]
                if not all(isinstance(d, int) and 0 <= d < 2**31 for d in shape) or np.prod(shape, dtype=np.float64) > 2**31:
                    raise ValueError(f"shape {shape}")
                tensors["param/" + name] = np.zeros(shape, np.dtype(dtype))
        except (KeyError, ValueError, TypeError) as e:
            raise C.InvalidProtobuf(f"checkpoint '{path}': damaged nominal layout ({e})") from None
        data.nominal = True
    for name in order:
        if "param/" + name not in tensors:
            raise C.InvalidProtobuf(f"checkpoint '{path}': parameter '{name}' is listed but not stored")
        data.parameters[name] = tensors["param/" + name]
        data.requires_grad[name] = bool(requires_grad.get(name, False))
        for kind, into in (("exp_avg/", data.exp_avg), ("exp_avg_sq/", data.exp_avg_sq)):
            if kind + name in tensors:
                if tensors[kind + name].shape != data.parameters[name].shape:
                    raise C.InvalidProtobuf(f"checkpoint '{path}': {kind}{name} does not have its parameter's shape")
                into[name] = tensors[kind + name]
    return data
