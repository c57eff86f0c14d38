"""onnxruntime.training.artifacts for onyx: generate_artifacts writes the training, eval and
optimizer models and the checkpoint that onyx.training.api trains with.

    from onyx.training import artifacts
    artifacts.generate_artifacts(model, requires_grad=["fc1.weight", ...], frozen_params=[...],
                                 loss=artifacts.LossType.CrossEntropyLoss,
                                 optimizer=artifacts.OptimType.AdamW, artifact_directory="out")

The loss is appended to the model's first output (or `loss_input_names`): MSELoss and L1Loss
(mean, against a graph input "target" of the output's type and shape), CrossEntropyLoss (mean
SoftmaxCrossEntropyLoss against int64 "labels"), BCEWithLogitsLoss (mean, against "target").
Everything is made by onyx's C++ training API (src/training/artifacts.h, also behind `onyx
train-artifacts`): the gradient graph by onyx's gradient builder; the optimizer model computes
PyTorch's update, AdamW through onyx's fused ai.onyx.training AdamW kernel (decoupled weight
decay, bias correction, scalars in float64), SGD as p - lr * g. Nothing is written when
making any part fails (the files are made in memory first).
"""
import enum
import os

import onnx
from onnx import TensorProto

from onyx.capi import onnxruntime_pybind11_state as C


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


def generate_artifacts(model, requires_grad=None, frozen_params=None, loss=None, optimizer=None,
                       artifact_directory=None, prefix="", additional_output_names=None, loss_input_names=None,
                       optimizer_config=None, **kwargs):
    """Writes <prefix>training_model.onnx, eval_model.onnx, optimizer_model.onnx (when
    `optimizer` is given) and checkpoint into artifact_directory (default: the current
    folder). `model`: an onnx.ModelProto or a path. requires_grad defaults to every floating
    initializer not in frozen_params and not a BatchNormalization's running statistics. optimizer_config overrides ADAMW_DEFAULTS (AdamW)."""
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
    if requires_grad is None:  # every floating initializer not frozen, in the file's order
        floating = (TensorProto.FLOAT, TensorProto.DOUBLE, TensorProto.FLOAT16)
        buffers = {name for n in model.graph.node if n.op_type == "BatchNormalization" and n.domain in ("", "ai.onnx")
                   for name in n.input[3:5]}  # running statistics: updated by the step, not trained
        requires_grad = [i.name for i in model.graph.initializer
                         if i.data_type in floating and i.name not in frozen and i.name not in buffers]
    names = list(loss_input_names or [])
    if len(names) > 1:
        raise C.InvalidArgument(f"generate_artifacts: the loss takes one graph output, got {names}")
    C._generate_artifacts(model.SerializeToString(), list(requires_grad), frozen, loss.name,
                          optimizer.name if optimizer is not None else "", os.fspath(artifact_directory or os.getcwd()),
                          prefix, list(additional_output_names or []), names[0] if names else "",
                          {k: float(v) for k, v in (optimizer_config or {}).items()}, bool(kwargs.get("nominal_checkpoint")))
