"""What ORTModule's export writes differently from torch.onnx's own symbolics, registered only
while it exports (`exporting`):

- prim::PythonOp, a custom torch.autograd.Function without its own symbolic: one
  ai.onyx.torch PythonOp node (_custom_function);
- aten::embedding with a padding_idx, in training: the Gather's rows looked up at padding_idx
  pass through ai.onyx.training StopGradient (a Where picking between the same values), so
  that, as in PyTorch, those lookups add nothing to the weight's gradient while the weight's
  other uses (a tied output projection) still do. torch.onnx's own symbolic drops padding_idx;
- aten::layer_norm without weight or bias (elementwise_affine=False): ones and zeros in their
  place, where torch.onnx's own symbolic writes an empty scale that ONNX does not allow;
- losses and ops torch.onnx (1.13, opset 17) cannot export, as ordinary ops: mse_loss, l1_loss,
  smooth_l1_loss, huber_loss (a loss computed inside the module), expm1, cross entropy with
  label smoothing, and the hyperbolic functions (ONNX has them; torch.onnx 1.13 does not map them).
"""
import contextlib
import warnings

import torch
from torch.onnx import register_custom_op_symbolic, symbolic_helper, unregister_custom_op_symbolic

from onyx.training.ortmodule import _custom_function

TRAINING_DOMAIN = "ai.onyx.training"
OPSET = 17  # the export's opset: a custom symbolic takes precedence from the version it is registered at
CUSTOM_OPSETS = {_custom_function.DOMAIN: 1, TRAINING_DOMAIN: 1}


@symbolic_helper.parse_args("v", "v", "i", "b", "b")
def _embedding(g, weight, indices, padding_idx, scale_grad_by_freq, sparse):
    if scale_grad_by_freq:
        raise RuntimeError("ORTModule cannot export an embedding with scale_grad_by_freq=True: onyx computes "
                           "unscaled gradients")
    looked_up = g.op("Gather", weight, indices)
    if padding_idx is None or padding_idx < 0 or not _state.training:
        return looked_up
    pad = g.op("Constant", value_t=torch.tensor(padding_idx, dtype=torch.int64))
    at_pad = g.op("Unsqueeze", g.op("Equal", indices, pad), g.op("Constant", value_t=torch.tensor([-1])))
    held = g.op(f"{TRAINING_DOMAIN}::StopGradient", looked_up)
    held.setType(looked_up.type())
    return g.op("Where", at_pad, held, looked_up)


_TORCH_TYPES = {"Float": torch.float32, "Double": torch.float64, "Half": torch.float16, "BFloat16": torch.bfloat16}


@symbolic_helper.parse_args("v", "is", "v", "v", "f", "none")
def _layer_norm(g, x, normalized_shape, weight, bias, eps, cudnn_enable):
    # A layer norm without affine parameters: ONNX's LayerNormalization needs a scale, so it
    # gets ones (and zeros for the bias), of the normalised dims and the input's type.
    dtype = _TORCH_TYPES.get(x.type().scalarType() if isinstance(x.type(), torch._C.TensorType) else None,
                             torch.float32)
    if symbolic_helper._is_none(weight):
        weight = g.op("Constant", value_t=torch.ones(normalized_shape, dtype=dtype))
    if symbolic_helper._is_none(bias):
        bias = g.op("Constant", value_t=torch.zeros(normalized_shape, dtype=dtype))
    return g.op("LayerNormalization", x, weight, bias, epsilon_f=eps, axis_i=-len(normalized_shape))


def _reduced(g, loss, reduction):
    # torch's reduction enum: 0 none, 1 mean, 2 sum (over every element).
    if reduction == 1:
        return g.op("ReduceMean", loss, keepdims_i=0)
    if reduction == 2:
        return g.op("ReduceSum", loss, keepdims_i=0)
    return loss


@symbolic_helper.parse_args("v", "v", "i")
def _mse_loss(g, x, target, reduction):
    diff = g.op("Sub", x, target)
    return _reduced(g, g.op("Mul", diff, diff), reduction)


@symbolic_helper.parse_args("v", "v", "i")
def _l1_loss(g, x, target, reduction):
    return _reduced(g, g.op("Abs", g.op("Sub", x, target)), reduction)


def _piecewise_quadratic(g, x, target, threshold, scale_linear):
    # |d| < threshold: 0.5 d^2 / (threshold or 1 for huber); else linear. Both losses share it.
    d = g.op("Sub", x, target)
    a = g.op("Abs", d)
    t = g.op("Constant", value_t=torch.tensor(threshold, dtype=torch.float32))
    t = g.op("CastLike", t, x)
    half = g.op("CastLike", g.op("Constant", value_t=torch.tensor(0.5)), x)
    quadratic = g.op("Mul", half, g.op("Mul", d, d))
    if scale_linear:  # huber: delta * (|d| - delta / 2)
        linear = g.op("Mul", t, g.op("Sub", a, g.op("Mul", half, t)))
    else:  # smooth L1: quadratic / beta, |d| - beta / 2
        quadratic = g.op("Div", quadratic, t)
        linear = g.op("Sub", a, g.op("Mul", half, t))
    return g.op("Where", g.op("Less", a, t), quadratic, linear)


@symbolic_helper.parse_args("v", "v", "i", "f")
def _smooth_l1_loss(g, x, target, reduction, beta):
    if beta == 0:
        return _l1_loss(g, x, target, reduction)
    return _reduced(g, _piecewise_quadratic(g, x, target, beta, False), reduction)


@symbolic_helper.parse_args("v", "v", "i", "f")
def _huber_loss(g, x, target, reduction, delta):
    return _reduced(g, _piecewise_quadratic(g, x, target, delta, True), reduction)


def _cross_entropy_loss(g, x, target, weight, reduction, ignore_index, label_smoothing):
    # torch.onnx refuses label smoothing; without it, ONNX's own SoftmaxCrossEntropyLoss. With it
    # (no class weights): (1 - e) NLL + e * mean over classes of -log_softmax, the ignored targets
    # left out of both terms and of the mean's count, as PyTorch computes it.
    mode = ["none", "mean", "sum"][symbolic_helper._maybe_get_const(reduction, "i")]
    ignore = symbolic_helper._maybe_get_const(ignore_index, "i")
    smoothing = symbolic_helper._maybe_get_const(label_smoothing, "f") or 0.0
    weighted = not weight.node().mustBeNone()
    if smoothing <= 0.0:
        inputs = [x, target] + ([weight] if weighted else [])
        return g.op("SoftmaxCrossEntropyLoss", *inputs, reduction_s=mode, ignore_index_i=ignore)
    if weighted:
        raise RuntimeError("ORTModule cannot export cross entropy with both class weights and label smoothing")
    log_p = g.op("LogSoftmax", x, axis_i=1)
    nll = g.op("NegativeLogLikelihoodLoss", log_p, target, reduction_s="none", ignore_index_i=ignore)
    kept = g.op("CastLike", g.op("Not", g.op("Equal", target, g.op("Constant", value_t=torch.tensor(ignore)))), x)
    smooth = g.op("Mul", g.op("Neg", g.op("ReduceMean", log_p, axes_i=[1], keepdims_i=0)), kept)

    def scalar(v):
        return g.op("CastLike", g.op("Constant", value_t=torch.tensor(v)), x)
    per = g.op("Add", g.op("Mul", scalar(1.0 - smoothing), nll), g.op("Mul", scalar(smoothing), smooth))
    if mode == "none":
        return per
    total = g.op("ReduceSum", per, keepdims_i=0)
    return total if mode == "sum" else g.op("Div", total, g.op("ReduceSum", kept, keepdims_i=0))


def _expm1(g, x):
    return g.op("Sub", g.op("Exp", x), g.op("CastLike", g.op("Constant", value_t=torch.tensor(1.0)), x))


def _unary(onnx_op):
    return lambda g, x: g.op(onnx_op, x)


class _State:
    training = False


_state = _State()
_REGISTERED = (("prim::PythonOp", _custom_function.symbolic), ("aten::embedding", _embedding),
               ("aten::layer_norm", _layer_norm), ("aten::mse_loss", _mse_loss), ("aten::l1_loss", _l1_loss),
               ("aten::smooth_l1_loss", _smooth_l1_loss), ("aten::huber_loss", _huber_loss), ("aten::expm1", _expm1),
               ("aten::cross_entropy_loss", _cross_entropy_loss), ("aten::sinh", _unary("Sinh")),
               ("aten::cosh", _unary("Cosh")), ("aten::asinh", _unary("Asinh")), ("aten::acosh", _unary("Acosh")),
               ("aten::atanh", _unary("Atanh")))


@contextlib.contextmanager
def exporting(training):
    """While torch.onnx.export runs: ORTModule's symbolics, for a graph whose gradients will be
    asked for when `training`."""
    for name, fn in _REGISTERED:
        register_custom_op_symbolic(name, fn, OPSET)
    _state.training = training
    _custom_function.training_export(training)
    try:
        with warnings.catch_warnings():  # torch cannot infer the shapes of onyx's ops; onyx's rules do
            warnings.filterwarnings("ignore", message="The shape inference of ai.onyx")
            yield
    finally:
        _state.training = False
        _custom_function.training_export(False)
        for name, _ in _REGISTERED:
            unregister_custom_op_symbolic(name, OPSET)
