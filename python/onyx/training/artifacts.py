"""onnxruntime.training.artifacts for onyx: generate_artifacts writes the training, eval and
optimizer models and the checkpoint that onyx.training.api trains with.

    from onyx.training import artifacts
    artifacts.generate_artifacts(model, requires_grad=["fc1.weight", ...], frozen_params=[...],
                                 loss=artifacts.LossType.CrossEntropyLoss,
                                 optimizer=artifacts.OptimType.AdamW, artifact_directory="out")

The loss is appended to the model's first output (or `loss_input_names`): MSELoss and L1Loss
(mean, against a graph input "target" of the output's type and shape), CrossEntropyLoss (mean
SoftmaxCrossEntropyLoss against int64 "labels"), BCEWithLogitsLoss (mean, against "target").
The gradient graph is built by onyx's gradient builder (src/training); the optimizer model
computes PyTorch's update: AdamW through onyx's fused ai.onyx.training AdamW kernel (decoupled
weight decay, bias correction, scalars in float64), SGD as p - lr * g.
"""
import enum
import json
import os

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from onyx.capi import onnxruntime_pybind11_state as C
from onyx.training import checkpoint as _checkpoint


class LossType(enum.Enum):
    MSELoss = 1
    CrossEntropyLoss = 2
    BCEWithLogitsLoss = 3
    L1Loss = 4


class OptimType(enum.Enum):
    AdamW = 1
    SGD = 2


# onnxruntime's AdamW defaults (not PyTorch's: eps 1e-8 and weight decay 1e-2 there).
ADAMW_DEFAULTS = {"beta1": 0.9, "beta2": 0.999, "epsilon": 1e-6, "weight_decay": 0.0}
LOSS_OUTPUT = "loss"


def _append_loss(model, loss, loss_input_names):
    """The model with `loss` appended, its output named "loss"; the target input added."""
    m = onnx.ModelProto()
    m.CopyFrom(model)
    g = m.graph
    outputs = {o.name: o for o in g.output}
    names = list(loss_input_names or [g.output[0].name])
    if len(names) != 1 or names[0] not in outputs:
        raise C.InvalidArgument(f"generate_artifacts: the loss takes one graph output, got {names}")
    out = outputs[names[0]]
    if loss == LossType.CrossEntropyLoss:
        dims = list(out.type.tensor_type.shape.dim)  # scores [N, C, d1...] -> labels [N, d1...]
        labels = helper.make_tensor_value_info("labels", TensorProto.INT64, None)
        for d in dims[:1] + dims[2:]:
            labels.type.tensor_type.shape.dim.add().CopyFrom(d)
        if not dims:
            raise C.InvalidArgument(f"generate_artifacts: CrossEntropyLoss needs the rank of '{out.name}'")
        g.input.append(labels)
        g.node.append(helper.make_node("SoftmaxCrossEntropyLoss", [out.name, "labels"], [LOSS_OUTPUT],
                                       reduction="mean", name="onyx_loss"))
    else:
        target = onnx.ValueInfoProto()
        target.CopyFrom(out)
        target.name = "target"
        g.input.append(target)
        if loss == LossType.MSELoss:
            g.node.extend([helper.make_node("Sub", [out.name, "target"], ["onyx_loss/diff"]),
                           helper.make_node("Mul", ["onyx_loss/diff", "onyx_loss/diff"], ["onyx_loss/sq"]),
                           helper.make_node("ReduceMean", ["onyx_loss/sq"], [LOSS_OUTPUT], keepdims=0)])
        elif loss == LossType.L1Loss:
            g.node.extend([helper.make_node("Sub", [out.name, "target"], ["onyx_loss/diff"]),
                           helper.make_node("Abs", ["onyx_loss/diff"], ["onyx_loss/abs"]),
                           helper.make_node("ReduceMean", ["onyx_loss/abs"], [LOSS_OUTPUT], keepdims=0)])
        elif loss == LossType.BCEWithLogitsLoss:  # softplus(x) - x * t, stable for large |x|
            g.node.extend([helper.make_node("Softplus", [out.name], ["onyx_loss/softplus"]),
                           helper.make_node("Mul", [out.name, "target"], ["onyx_loss/xt"]),
                           helper.make_node("Sub", ["onyx_loss/softplus", "onyx_loss/xt"], ["onyx_loss/each"]),
                           helper.make_node("ReduceMean", ["onyx_loss/each"], [LOSS_OUTPUT], keepdims=0)])
        else:
            raise C.InvalidArgument(f"generate_artifacts: unknown loss {loss!r}")
    del g.output[:]
    g.output.append(helper.make_tensor_value_info(LOSS_OUTPUT, out.type.tensor_type.elem_type, []))
    return m


def optimizer_model(params, optimizer, config):
    """The optimizer model over `params` ({name: numpy array}): inputs learning_rate (float
    scalar), step (int64 scalar, the step being taken, from 1), then per parameter p: p,
    p.gradient (and for AdamW p.exp_avg, p.exp_avg_sq); outputs p.updated (and
    p.exp_avg.updated, p.exp_avg_sq.updated)."""
    nodes, inputs, outputs = [], [], []
    f32 = TensorProto.FLOAT
    inputs += [helper.make_tensor_value_info("learning_rate", f32, []), helper.make_tensor_value_info("step", TensorProto.INT64, [])]

    def node(op, ins, out, **attrs):
        nodes.append(helper.make_node(op, ins, [out], **attrs))
        return out

    for p, value in params.items():
        if value.dtype != np.float32:
            raise C.NotImplemented(f"generate_artifacts: optimizer for {value.dtype} parameter '{p}' (float32 only)")
        shape = list(value.shape)
        inputs += [helper.make_tensor_value_info(p, f32, shape), helper.make_tensor_value_info(p + ".gradient", f32, shape)]
        if optimizer == OptimType.SGD:
            node("Sub", [p, node("Mul", [p + ".gradient", "learning_rate"], p + "/step")], p + ".updated")
            outputs.append(helper.make_tensor_value_info(p + ".updated", f32, shape))
            continue
        # onyx's fused AdamW kernel (ai.onyx.training): PyTorch's update in one pass.
        inputs += [helper.make_tensor_value_info(p + ".exp_avg", f32, shape),
                   helper.make_tensor_value_info(p + ".exp_avg_sq", f32, shape)]
        nodes.append(helper.make_node(
            "AdamW", ["learning_rate", "step", p, p + ".gradient", p + ".exp_avg", p + ".exp_avg_sq"],
            [p + ".updated", p + ".exp_avg.updated", p + ".exp_avg_sq.updated"], domain="ai.onyx.training",
            beta1=config["beta1"], beta2=config["beta2"], epsilon=config["epsilon"], weight_decay=config["weight_decay"]))
        outputs += [helper.make_tensor_value_info(n, f32, shape)
                    for n in (p + ".updated", p + ".exp_avg.updated", p + ".exp_avg_sq.updated")]
    graph = helper.make_graph(nodes, "onyx_optimizer", inputs, outputs)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("ai.onyx.training", 1)],
                              producer_name="onyx.training")
    model.ir_version = 8
    helper.set_model_props(model, {"onyx.optimizer": optimizer.name, "onyx.optimizer.config": json.dumps(config)})
    return model


def generate_artifacts(model, requires_grad=None, frozen_params=None, loss=None, optimizer=None,
                       artifact_directory=None, prefix="", additional_output_names=None, loss_input_names=None,
                       optimizer_config=None, **kwargs):
    """Writes <prefix>training_model.onnx, eval_model.onnx, optimizer_model.onnx (when
    `optimizer` is given) and checkpoint into artifact_directory (default: the current
    folder). `model`: an onnx.ModelProto or a path. requires_grad defaults to every floating
    initializer not in frozen_params. optimizer_config overrides ADAMW_DEFAULTS (AdamW)."""
    if isinstance(model, (str, os.PathLike)):
        model = onnx.load(os.fspath(model))
    if not isinstance(model, onnx.ModelProto):
        raise TypeError("generate_artifacts takes an onnx.ModelProto or a path")
    if loss is None:
        raise C.InvalidArgument("generate_artifacts: a loss (LossType) is needed")
    for key in kwargs:
        if key not in ("ort_format", "custom_op_library", "nominal_checkpoint"):
            raise TypeError(f"generate_artifacts() got an unexpected keyword argument '{key}'")
    if kwargs.get("ort_format"):
        raise C.NotImplemented("generate_artifacts: ort_format (ONNX Runtime's flatbuffer model format)")
    if kwargs.get("custom_op_library"):
        raise C.NotImplemented("generate_artifacts: custom_op_library (onyx loads no ONNX Runtime custom-op libraries)")
    frozen = list(frozen_params or [])
    floating = [i.name for i in model.graph.initializer
                if i.data_type in (TensorProto.FLOAT, TensorProto.DOUBLE, TensorProto.FLOAT16)]
    trainable = list(requires_grad) if requires_grad is not None else [n for n in floating if n not in frozen]
    with_loss = _append_loss(model, loss, loss_input_names)
    train_bytes, eval_bytes, parameters = C._make_training_models(
        with_loss.SerializeToString(), trainable, frozen, LOSS_OUTPUT, list(additional_output_names or []))
    directory = artifact_directory or os.getcwd()
    os.makedirs(directory, exist_ok=True)
    path = lambda name: os.path.join(directory, prefix + name)  # noqa: E731
    _write(path("training_model.onnx"), train_bytes)
    _write(path("eval_model.onnx"), eval_bytes)
    values = {i.name: numpy_helper.to_array(i) for i in model.graph.initializer if i.name in parameters}
    config = dict(ADAMW_DEFAULTS, **(optimizer_config or {}))
    if optimizer is not None:
        opt = optimizer_model({p: values[p] for p in trainable}, optimizer, config)
        _write(path("optimizer_model.onnx"), opt.SerializeToString())
    state = _checkpoint.CheckpointData(
        parameters={p: values[p] for p in parameters}, requires_grad={p: p in trainable for p in parameters},
        optimizer=optimizer.name if optimizer is not None else "", optimizer_config=config)
    _checkpoint.write(state, path("checkpoint"))
    if kwargs.get("nominal_checkpoint"):  # names, dtypes and shapes only (the values come later)
        state.nominal = True
        _checkpoint.write(state, path("nominal_checkpoint"))


def _write(path, data):
    tmp = path + ".tmp"
    with open(tmp, "wb") as f:
        f.write(data)
    os.replace(tmp, path)
