"""onyx.training.ortmodule: ORTModule, onnxruntime's one-line wrapper that runs a
torch.nn.Module's forward and backward passes in onyx while the training loop stays PyTorch's.

    from onyx.training.ortmodule import ORTModule
    model = ORTModule(model)          # then train as before: optimizer, scheduler, clipping

The first call exports the module (torch.onnx.export, training mode, without its weights:
torch never serialises the parameters), builds its gradient graph with onyx's gradient
builder and splits it into a forward and a backward graph (src/training/module_graphs.h).
The forward graph runs inside a torch.autograd.Function; its backward() feeds the output
gradients to the backward graph and hands the gradients of the inputs and parameters back to
torch, which accumulates them into `.grad` as usual. Parameters are read from the module at
every call and tensors cross between torch and onyx through DLPack, without copies. When the
graphs must be rebuilt is _graph_transitions' business."""
import ctypes
import os
import weakref

import torch

from onyx.training.ortmodule import _custom_function, _io
from onyx.training.ortmodule._graph_transitions import (GraphTransitionManager, ORTModuleExportError,  # noqa: F401
                                                        State)

__all__ = ["ORTModule", "DebugOptions", "ORTModuleExportError", "LogLevel"]


class LogLevel:
    """onnxruntime's names; onyx logs re-exports on the "onyx.ortmodule" logger at INFO."""
    VERBOSE, INFO, WARNING, ERROR, FATAL = range(5)


class DebugOptions:
    """save_onnx: write the exported, forward and backward graphs of each export as
    <save_path>/<onnx_prefix>_<n>_{exported,forward,backward}.onnx. In training mode the
    exported graph holds no weights (its parameters and buffers are graph inputs)."""

    def __init__(self, log_level=LogLevel.WARNING, save_onnx=False, onnx_prefix="", save_path=None):
        if save_onnx and not onnx_prefix:
            raise ValueError("DebugOptions: save_onnx needs an onnx_prefix")
        self.log_level = log_level
        self.save_onnx = save_onnx
        self.onnx_prefix = onnx_prefix
        self.save_path = save_path


# What torch's CPU allocator (glibc) recycles without giving memory back to the system: a
# block up to its dynamic mmap threshold comes from the heap, and that threshold follows freed
# blocks up to 32 MiB on 64-bit systems (mallopt(3), DEFAULT_MMAP_THRESHOLD_MAX; larger blocks
# are mapped and unmapped every time); free memory at the heap's top is trimmed past twice the
# threshold, up to 64 MiB. Measured (bench/RESULTS.md, eleventh session): within these bounds a
# BERT-like step's gradients and torch's AdamW temporaries share memory without a page fault;
# past them (a GPT-2-small-like model's 340 MB of small gradients) every step faults them in again.
_HEAP_RECYCLED_BYTES = 32 << 20  # per gradient
_HEAP_KEPT_BYTES = 64 << 20  # all of one backward's

# glibc gives the free memory at its heap's top back to the system once it passes the trim
# threshold, and a training step that frees more than that at the top (its gradients, torch's
# optimizer temporaries) faults the same pages in again on the next step: thousands of page
# faults a step, tens of milliseconds, depending on where the step's blocks happen to lie
# (bench/RESULTS.md, twelfth session). So the first ORTModule fixes glibc's thresholds for the
# process: blocks up to 32 MiB from the heap (where the dynamic threshold ends anyway) and up to
# 1 GiB of free heap kept (M_TRIM_THRESHOLD), as a training loop wants. Left alone where the
# environment sets them (MALLOC_TRIM_THRESHOLD_, MALLOC_MMAP_THRESHOLD_, GLIBC_TUNABLES), with
# ONYX_ORTMODULE_KEEP_HEAP=0, and off glibc.
_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3
_KEPT_HEAP_BYTES = 1 << 30
_heap_kept = False


def _keep_heap():
    global _heap_kept
    if _heap_kept:
        return
    _heap_kept = True
    if os.environ.get("ONYX_ORTMODULE_KEEP_HEAP") == "0" or any(
            v in os.environ for v in ("MALLOC_TRIM_THRESHOLD_", "MALLOC_MMAP_THRESHOLD_", "GLIBC_TUNABLES")):
        return
    try:
        libc = ctypes.CDLL(None)
        if not hasattr(libc, "gnu_get_libc_version"):
            return
        libc.mallopt(_M_MMAP_THRESHOLD, _HEAP_RECYCLED_BYTES)
        libc.mallopt(_M_TRIM_THRESHOLD, _KEPT_HEAP_BYTES)
    except (OSError, AttributeError):
        pass


def _to_onyx(t):
    from onyx import OrtValue

    t = t.detach()
    if not t.is_contiguous():
        t = t.contiguous()
    return OrtValue.from_dlpack(t, is_bool_tensor=t.dtype == torch.bool)


def _to_torch(v):
    return torch.utils.dlpack.from_dlpack(v.to_dlpack())


def _run_on_device(session, feeds, output_names, device):
    """Runs `session` with every output left on the CUDA `device` (onyx allocates them there; the
    run waits for the device before it returns). Inputs are read where they are: DLPack imports
    wait for the producer's stream."""
    binding = session.io_binding()
    for name, v in feeds.items():
        binding.bind_ortvalue_input(name, v)
    for name in output_names:
        binding.bind_output(name, "cuda", device.index)
    session.run_with_iobinding(binding)
    return binding.get_outputs()


class _Saved:
    """What one forward call leaves for its backward: the stashed values, the fed inputs the
    backward graph reads, and the contexts of the custom Functions it ran."""

    def __init__(self, stashed, fed, contexts):
        self.stashed, self.fed, self.contexts = stashed, fed, contexts

    def release(self):
        self.stashed = self.fed = None
        self.contexts.release()


class _RunInOnyx(torch.autograd.Function):
    """forward(graphs, n_inputs, *inputs, *parameters): the module's flat outputs."""

    @staticmethod
    def forward(ctx, graphs, n_inputs, *tensors):
        feeds = {name: _to_onyx(t) for name, t in zip(graphs.feed_names, tensors)}
        with _custom_function.collecting() as contexts:  # custom autograd.Functions' contexts of this call
            if graphs.device.type == "cuda":
                results = _run_on_device(graphs.forward, feeds, graphs.forward_output_names, graphs.device)
            else:
                results = graphs.forward.run_with_ort_values(None, feeds)
        n_out, n_stats = len(graphs.outputs), len(graphs.running_statistics)
        outputs = [_to_torch(v) for v in results[:n_out]]
        with torch.no_grad():  # training-mode BatchNormalization's running statistics, as torch keeps them
            for name, v in zip(graphs.running_statistics, results[n_out:n_out + n_stats]):
                graphs.buffer_of[name].copy_(_to_torch(v))
            for counter in graphs.batch_counters:
                counter.add_(1)
        ctx.graphs = graphs
        # What the backward reads lives as long as torch keeps a saved tensor: freed when the
        # backward ends (kept for another with retain_graph=True), or when the graph is dropped.
        ctx.saved = _Saved(results[n_out + n_stats:], {name: feeds[name] for name in graphs.backward_forward_inputs},
                           contexts)
        # torch keeps a saved tensor's Python object alive as long as it keeps the tensor (it
        # holds the object for the graph), so the finalizer runs exactly when torch frees it.
        holder = torch.empty(0)
        ctx.save_for_backward(holder)
        weakref.finalize(holder, ctx.saved.release)
        ctx.output_shapes = [(o.shape, o.dtype) for o in outputs]
        ctx.n_tensors = len(tensors)
        ctx.mark_non_differentiable(*[o for o, g in zip(outputs, graphs.output_grads) if not g])
        return tuple(outputs)

    @staticmethod
    def backward(ctx, *grad_outputs):
        graphs = ctx.graphs
        if graphs.backward is None:
            return (None, None) + (None,) * ctx.n_tensors
        if torch.is_grad_enabled():
            raise RuntimeError("ORTModule's backward cannot be differentiated again (create_graph=True): onyx's "
                               "backward graph is not recorded by autograd")
        ctx.saved_tensors  # noqa: B018 - torch's own error for a second backward without retain_graph
        feeds = dict(zip(graphs.stashed, ctx.saved.stashed))
        feeds.update(ctx.saved.fed)
        for name, g, (shape, dtype) in zip(graphs.output_grads, grad_outputs, ctx.output_shapes):
            if name:
                feeds[name] = _to_onyx(g if g is not None else torch.zeros(shape, dtype=dtype, device=graphs.device))
        # Where a parameter's .grad exists already (torch 1.13's zero_grad() keeps it), autograd
        # adds the returned gradient into it and drops it. One of onyx's would then go back to the
        # backward session's arena, a second copy kept between steps; so, within what torch's
        # allocator recycles (_HEAP_*_BYTES), gradients are written into tensors of torch's, freed
        # and reused as eager PyTorch's own are (torch's AdamW temporaries take the same memory).
        # The rest stay in onyx's arena: mapped afresh by glibc, they would fault in every step.
        # A .grad that is None (a first step, set_to_none=True) takes onyx's tensor itself.
        sources = list(zip(graphs.inputs_requiring_grad + graphs.trainable, graphs.gradients))
        into, room = {}, _HEAP_KEPT_BYTES
        for x, name in (sources if graphs.device.type == "cpu" else ()):
            p = graphs.param_of.get(x)
            size = p.numel() * p.element_size() if p is not None else 0
            if p is not None and p.grad is not None and size <= min(room, _HEAP_RECYCLED_BYTES):
                into[name] = torch.empty(p.shape, dtype=p.dtype)
                room -= size
        if into:
            binding = graphs.backward.io_binding()
            for name, v in feeds.items():
                binding.bind_ortvalue_input(name, v)
            for name in graphs.gradients:
                if name in into:
                    binding.bind_ortvalue_output(name, _to_onyx(into[name]))
                else:
                    binding.bind_output(name, "cpu")
            graphs.backward.run_with_iobinding(binding)
            results = binding.get_outputs()
        elif graphs.device.type == "cuda":  # the gradients stay on the GPU, in onyx's device arena
            results = _run_on_device(graphs.backward, feeds, graphs.gradients, graphs.device)
        else:
            results = graphs.backward.run_with_ort_values(None, feeds)
        grads = [None] * ctx.n_tensors
        for (x, name), v in zip(sources, results):
            grads[graphs.position[x]] = into[name] if name in into else _to_torch(v)
        return (None, None) + tuple(grads)


class ORTModule(torch.nn.Module):
    """Wraps `module`: calling it runs the module's forward (and, through autograd, its
    backward) in onyx. Attributes and state_dict are the module's."""

    def __init__(self, module, debug_options=None):
        super().__init__()
        if isinstance(module, ORTModule):
            raise TypeError("ORTModule: the module is an ORTModule already")
        self._original_module = module
        self._transitions = GraphTransitionManager(module, debug_options)
        _keep_heap()

    @property
    def module(self):
        return self._original_module

    @property
    def export_count(self):
        """How many times the module has been exported (each with a reason in export_reasons)."""
        return self._transitions.exports

    @property
    def export_reasons(self):
        return list(self._transitions.reasons)

    def forward(self, *args, **kwargs):
        schema, inputs = _io.flatten((args, kwargs))
        graphs = self._transitions.graphs_for(schema, inputs)
        _prepare(graphs, len(inputs))
        tensors = [inputs[graphs.input_index[n]] for n in graphs.forward_inputs[:graphs.n_module_inputs]]
        tensors += [graphs.param_of[n] for n in graphs.trainable + graphs.frozen]
        tensors += [graphs.buffer_of[n] for n in graphs.running_statistics]
        outputs = _RunInOnyx.apply(graphs, len(inputs), *tensors)
        return _io.unflatten(graphs.output_schema, outputs)

    # The wrapped module's state, under its own names (as onnxruntime's ORTModule does).
    def state_dict(self, *args, **kwargs):
        return self._original_module.state_dict(*args, **kwargs)

    def load_state_dict(self, *args, **kwargs):
        return self._original_module.load_state_dict(*args, **kwargs)

    def named_parameters(self, *args, **kwargs):
        return self._original_module.named_parameters(*args, **kwargs)

    def parameters(self, *args, **kwargs):
        return self._original_module.parameters(*args, **kwargs)

    def named_buffers(self, *args, **kwargs):
        return self._original_module.named_buffers(*args, **kwargs)

    def buffers(self, *args, **kwargs):
        return self._original_module.buffers(*args, **kwargs)


def _prepare(graphs, n_inputs):
    """Per-Graphs lookups that forward() needs, made once."""
    if getattr(graphs, "feed_names", None) is not None:
        return
    fed_inputs = [n for n in graphs.forward_inputs if n in graphs.input_index]
    graphs.n_module_inputs = len(fed_inputs)
    graphs.feed_names = fed_inputs + graphs.trainable + graphs.frozen + graphs.running_statistics
    graphs.position = {name: i for i, name in enumerate(graphs.feed_names)}
