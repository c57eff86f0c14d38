"""The bridge that runs custom torch.autograd.Functions inside ORTModule's graphs.

At export, a Function without its own `symbolic` becomes one ai.onyx.torch PythonOp node (the
exporter would otherwise differentiate its forward and drop its backward): `symbolic` records
the Function, its calling convention and its constant arguments under a func_key, and the
element types and ranks of its outputs. onyx's gradient builder answers the node with one
PythonOpGrad (src/training/gradients/python_op.cc). At run, the PythonOp and PythonOpGrad
kernels of onyx._onyx (python/src/python_op*.cc) call `_run_forward` and `_run_backward`:

- `_run_forward` applies the Function to copies of its tensor inputs (floating ones requiring
  grad when the graph trains), keeps the inputs and outputs under a fresh context id while
  autograd holds the Function's ctx, and returns the id and the outputs;
- `_run_backward` runs autograd back from those outputs with the gradients onyx gives, through
  the Function's own backward, and returns the inputs' gradients.

A context lives as long as the ORTModule call that made it keeps its saved values (after its
last backward, or until its graph is dropped): `collecting()` gathers the ids a forward run
makes into a `Contexts`, which the caller releases with those values. The Function runs on the CPU
on copies of its inputs, whichever device the module is on.
"""
import contextlib
import itertools
import threading

import numpy as np
import torch

DOMAIN = "ai.onyx.torch"

# torch's scalar type names (Value.type().scalarType()) as ONNX element type numbers.
_ONNX_TYPES = {"Float": 1, "Byte": 2, "Char": 3, "Short": 5, "Int": 6, "Long": 7, "Bool": 9, "Half": 10,
               "Double": 11, "BFloat16": 16}


class _Call:
    """What a PythonOp's func_key names: the Function, and how to rebuild its arguments from
    the node's tensor inputs ('d' in the calling convention) and the recorded constants ('c')."""

    def __init__(self, function, cconv, constants):
        self.function, self.cconv, self.constants = function, cconv, constants
        self.name = f"{function.__module__}.{function.__qualname__}"

    def same(self, function, cconv, constants):
        """Whether this is the call recorded for (function, cconv, constants): the same objects
        (constants compared by identity, or by value where they are plain numbers and strings)."""
        if self.function is not function or self.cconv != cconv or len(self.constants) != len(constants):
            return False
        plain = (int, float, bool, str, type(None))
        return all(a is b or (type(a) in plain and type(a) is type(b) and a == b)
                   for a, b in zip(self.constants, constants))

    def arguments(self, tensors):
        tensors, constants = iter(tensors), iter(self.constants)
        return [next(tensors) if kind == "d" else next(constants) for kind in self.cconv]


_calls = []  # func_key -> _Call; exported graphs hold the keys, and re-exports reuse them
_contexts = {}  # context id -> (the Function's input tensors, its outputs)
_ids = itertools.count(1)
_lock = threading.Lock()
_local = threading.local()  # .made: ids of the forward run in progress; .training: the export's mode


def context_count():
    """How many calls' contexts are held (for tests: none should outlive its step)."""
    return len(_contexts)


def training_export(training):
    """Sets whether the PythonOp nodes of the export in progress keep a context for a backward
    (gradients will be asked for)."""
    _local.training = training


def symbolic(g, *args, **_):
    """torch.onnx's symbolic for prim::PythonOp (registered by _symbolics.exporting)."""
    node = g.original_node
    apply = node.pyobj()
    function = getattr(apply, "__self__", None)
    if not (isinstance(function, type) and issubclass(function, torch.autograd.Function)):
        raise RuntimeError(f"ORTModule cannot export the Python operator {node.pyname()}: it is not a "
                           f"torch.autograd.Function")
    cconv = node.cconv()
    tensors = [a for kind, a in zip(cconv, args) if kind == "d"]
    constants = [a for kind, a in zip(cconv, args) if kind == "c"]
    outputs = list(node.outputs())
    types, ranks = [], []
    for o in outputs:
        t = o.type()
        scalar = t.scalarType() if isinstance(t, torch._C.TensorType) else None
        if scalar not in _ONNX_TYPES:
            raise RuntimeError(f"ORTModule cannot export the custom torch.autograd.Function {function.__qualname__}: "
                               f"an output of type {t} is not a tensor onyx can hold")
        types.append(_ONNX_TYPES[scalar])
        rank = t.dim()
        ranks.append(-1 if rank is None else rank)
    with _lock:  # a call site exported again (each re-export) reuses its key
        key = next((k for k, c in enumerate(_calls) if c.same(function, cconv, constants)), None)
        if key is None:
            key = len(_calls)
            _calls.append(_Call(function, cconv, constants))
    made = g.op(f"{DOMAIN}::PythonOp", *tensors, outputs=1 + len(outputs), func_key_i=key,
                name_s=_calls[key].name, training_i=int(getattr(_local, "training", False)),
                output_types_i=types, output_ranks_i=ranks)
    for value, traced in zip(made[1:], outputs):
        value.setType(traced.type())
    return made[1] if len(outputs) == 1 else tuple(made[1:])


class Contexts:
    """The contexts one forward run made; they go with release() (when the ORTModule call's
    saved values go: after its last backward, or with its graph) or with this object."""

    def __init__(self):
        self.ids = []

    def release(self):
        for i in self.ids:
            _contexts.pop(i, None)
        self.ids = []

    def __del__(self):
        self.release()


@contextlib.contextmanager
def collecting():
    """Gathers the ids of the contexts the PythonOp nodes of one forward run make (on this
    thread: the session runs its nodes on the caller's thread)."""
    made, before = Contexts(), getattr(_local, "made", None)
    _local.made = made.ids
    try:
        yield made
    finally:
        _local.made = before


def _to_torch(array, onnx_type):
    if onnx_type == _ONNX_TYPES["BFloat16"]:  # numpy holds its bits as uint16, which torch cannot read
        return torch.from_numpy(array.view(np.int16)).view(torch.bfloat16)
    return torch.from_numpy(array)


def _to_numpy(t):
    t = t.detach().cpu().contiguous()
    return t.view(torch.int16).numpy().view(np.uint16) if t.dtype == torch.bfloat16 else t.numpy()


def _run_forward(key, training, inputs, types):
    if not 0 <= key < len(_calls):
        raise RuntimeError(f"no custom torch.autograd.Function is registered under func_key {key} in this process: "
                           f"PythonOp nodes run only in the process whose ORTModule exported them")
    call = _calls[key]
    tensors = [None if a is None else _to_torch(a, t) for a, t in zip(inputs, types)]
    if training:
        tensors = [t.requires_grad_() if t is not None and t.is_floating_point() else t for t in tensors]
    with torch.enable_grad() if training else torch.no_grad():
        result = call.function.apply(*call.arguments(tensors))
    outputs = result if isinstance(result, tuple) else (result,)
    for i, o in enumerate(outputs):
        if not isinstance(o, torch.Tensor):
            raise TypeError(f"{call.name} returned {type(o).__name__} as output {i}, not a tensor")
    context = 0
    if training:  # kept even when no output requires grad: the backward then gives zeros
        context = next(_ids)
        _contexts[context] = (tensors, outputs)
        made = getattr(_local, "made", None)
        if made is not None:
            made.append(context)
    return context, [_to_numpy(o) for o in outputs]


def _run_backward(context, grads, types, input_indices):
    entry = _contexts.get(context)
    if entry is None:
        raise RuntimeError("this call's context is gone: its ORTModule call's saved values were released, or it was "
                           "not recorded")
    tensors, outputs = entry
    wanted = [tensors[i] for i in input_indices]
    pairs = [(o, _to_torch(g, t)) for o, g, t in zip(outputs, grads, types) if g is not None and o.requires_grad]
    found = [None] * len(wanted)
    if pairs:
        # Kept for another backward (retain_graph=True on the ORTModule call): the context goes
        # with that call's saved values.
        found = torch.autograd.grad([o for o, _ in pairs], wanted, [g for _, g in pairs], allow_unused=True,
                                    retain_graph=True)
    return [_to_numpy(g if g is not None else torch.zeros_like(w)) for g, w in zip(found, wanted)]
