"""What ORTModule's export writes differently from torch.onnx's own symbolics, registered only
while it exports (`exporting`):

- prim::PythonOp, a custom torch.autograd.Function without its own symbolic: one
  ai.onyx.torch PythonOp node (_custom_function);
- aten::embedding with a padding_idx, in training: the Gather's rows looked up at padding_idx
  pass through ai.onyx.training StopGradient (a Where picking between the same values), so
  that, as in PyTorch, those lookups add nothing to the weight's gradient while the weight's
  other uses (a tied output projection) still do. torch.onnx's own symbolic drops padding_idx;
- aten::layer_norm without weight or bias (elementwise_affine=False): ones and zeros in their
  place, where torch.onnx's own symbolic writes an empty scale that ONNX does not allow.
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


class _State:
    training = False


_state = _State()
_REGISTERED = (("prim::PythonOp", _custom_function.symbolic), ("aten::embedding", _embedding),
               ("aten::layer_norm", _layer_norm))


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
