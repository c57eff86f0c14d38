"""ORTModule's graph transitions, in one component: a state machine that decides when the
module must be exported again and turns an export into the graphs onyx runs.

    re-export check -> export -> post-export check -> post-export processing -> graphs

Re-export check: the module is exported again when the input schema changes (number, types,
ranks, requires_grad and nesting of the inputs, constants among them), when a parameter's
requires_grad changes, when the module's parameters are replaced (another tensor object under
a name, or names added or removed; a buffer replaced), when train/eval or torch.no_grad
switches (eval uses an inference graph without gradients; the graphs of the last few modes are
kept, so switching back does not export again), when one submodule's train/eval mode switches
(each is exported in its own mode: a frozen batch norm in eval stays frozen), and when the
parameters move to another device. Values a graph holds as constants (buffers not updated by
the graph; the weights an eval export folds in) are watched through torch's version counters:
changed in place since the export (load_state_dict, an optimizer step before an eval call),
the graph is stale and the module is exported again; a buffer written with the same values
(DistributedDataParallel's broadcast) is not a change. Changes of dims alone never re-export:
every dim is dynamic in the export.

Device: the graphs run where the module's parameters, buffers and tensor inputs are, all on one
device: on the CPU, or on a CUDA GPU through onyx's CUDA provider (nodes it has no kernel for
run on the CPU, with the copies placed by the session).
Each export logs its reason on the "onyx.ortmodule" logger and is counted (`exports`,
`reasons`)."""
import enum
import inspect
import io
import logging
import os

import torch

from onyx.training.ortmodule import _custom_function, _io, _symbolics

LOG = logging.getLogger("onyx.ortmodule")


class State(enum.Enum):
    REEXPORT_CHECK = "re-export check"
    EXPORT = "export"
    POST_EXPORT_CHECK = "post-export check"
    POST_EXPORT_PROCESSING = "post-export processing"
    READY = "ready"


class ORTModuleExportError(RuntimeError):
    """The module could not be exported (the exporter's message, naming the module)."""


# torch 2.9 and later export through torch.export (dynamo=True) unless told otherwise (seen with
# torch 2.11: it refuses dynamic_axes and has no training mode). ORTModule needs the tracing
# exporter: dynamo=False where torch.onnx.export takes that argument; before, it is the only one.
_EXPORT_PARAMETERS = inspect.signature(torch.onnx.export).parameters
_TRACING_EXPORTER = {"dynamo": False} if "dynamo" in _EXPORT_PARAMETERS else {}
# torch 2.1 and later inline a custom autograd.Function's forward unless told not to; ORTModule
# keeps it whole as a PythonOp (_custom_function), so that its own backward runs.
if "autograd_inlining" in _EXPORT_PARAMETERS:
    _TRACING_EXPORTER["autograd_inlining"] = False


def _device_of(module_name, tensors):
    """The one device of the module's parameters, buffers and tensor inputs (the CPU if none)."""
    devices = sorted({str(t.device) for t in tensors})
    if len(devices) > 1:
        raise ORTModuleExportError(f"ORTModule cannot run {module_name}: its parameters, buffers and inputs are on "
                                   f"several devices ({', '.join(devices)}); move them to one")
    device = torch.device(devices[0]) if devices else torch.device("cpu")
    if device.type == "cuda":
        import onyx

        if "CUDAExecutionProvider" not in onyx.get_available_providers():
            raise ORTModuleExportError(f"ORTModule cannot run {module_name} on {device}: this onyx was built without "
                                       f"the CUDA provider, or finds no usable CUDA device")
        if device.index is None:
            device = torch.device("cuda", torch.cuda.current_device())
    elif device.type != "cpu":
        raise ORTModuleExportError(f"ORTModule cannot run {module_name} on {device}: onyx runs on the CPU and CUDA")
    return device


def _autocast_state():
    """torch.autocast's state, which the export traces its casts under: () when off. torch 2.4
    and later take the device type (and deprecate the per-device functions)."""
    state = ()
    for device in ("cpu", "cuda"):
        if hasattr(torch, "get_autocast_dtype"):
            enabled, dtype = torch.is_autocast_enabled(device), lambda: torch.get_autocast_dtype(device)  # noqa: E731
        elif device == "cpu":
            enabled, dtype = torch.is_autocast_cpu_enabled(), torch.get_autocast_cpu_dtype
        else:
            enabled, dtype = torch.is_autocast_enabled(), torch.get_autocast_gpu_dtype
        if enabled:
            state += ((device, str(dtype())),)
    return state


class _FlatModule(torch.nn.Module):
    """The wrapped module with flat tensor inputs and outputs, as the exporter needs it."""

    def __init__(self, module, schema):
        super().__init__()
        self.module = module
        self.schema = schema
        self.output_schema = None
        self.training = module.training  # the exporter puts this mode back on the whole tree afterwards

    def forward(self, *tensors):
        args, kwargs = _io.unflatten(self.schema, tensors)
        out = self.module(*args, **kwargs)
        self.output_schema, flat = _io.flatten(out)
        return tuple(flat)


class Graphs:
    """What one export became: the sessions and the names that connect them to torch."""

    def __init__(self, made, output_schema, input_names, param_of, buffer_of, session_options, device):
        import onyx

        self.output_schema = output_schema
        self.forward_inputs = list(made["forward_inputs"])
        self.input_index = {name: i for i, name in enumerate(input_names)}  # export input name -> flat index
        self.trainable = list(made["trainable"])
        self.frozen = list(made["frozen"])
        self.running_statistics = list(made["running_statistics"])
        self.outputs = list(made["outputs"])
        self.stashed = list(made["stashed"])
        self.backward_forward_inputs = list(made["backward_forward_inputs"])
        self.output_grads = list(made["output_grads"])
        self.gradients = list(made["gradients"])
        self.inputs_requiring_grad = list(made["inputs_requiring_grad"])
        self.param_of = param_of
        self.buffer_of = buffer_of
        # Each training-mode batch norm's step counter (num_batches_tracked), which PyTorch
        # counts up by one a step next to the running statistics the graph updates.
        counters = {name.rsplit(".", 1)[0] + ".num_batches_tracked" for name in self.running_statistics}
        self.batch_counters = [buffer_of[name] for name in sorted(counters) if name in buffer_of]
        # The parameters and buffers the graphs may hold as constants (every one not fed at each
        # call; an eval export folds weights), with their version counters now: any in-place
        # change since (an optimizer step, load_state_dict) makes these graphs stale.
        # A buffer keeps a copy, so that a write of the same values (DistributedDataParallel
        # broadcasts the buffers before every forward) is told apart from a change.
        fed = set(self.forward_inputs) | set(self.running_statistics)
        counted = {id(c) for c in self.batch_counters}
        self.baked = [[kind, name, t, t._version, t.detach().clone() if kind == "buffer" else None]
                      for kind, tensors in (("parameter", param_of), ("buffer", buffer_of))
                      for name, t in tensors.items() if name not in fed and id(t) not in counted]
        self.device = device
        providers = ["CPUExecutionProvider"]
        if device.type == "cuda":
            providers.insert(0, ("CUDAExecutionProvider", {"device_id": str(device.index)}))
        self.forward = onyx.InferenceSession(made["forward"], session_options, providers=providers)
        self.backward = (onyx.InferenceSession(made["backward"], session_options, providers=providers)
                         if self.gradients else None)
        self.forward_output_names = [o.name for o in self.forward.get_outputs()]

    def stale(self):
        """Why values these graphs hold as constants no longer match the module's, or None."""
        for entry in self.baked:
            kind, name, t, version, copy = entry
            if t._version != version:
                if copy is not None and torch.equal(t, copy):
                    entry[3] = t._version
                    continue
                return f"{kind} '{name.removeprefix('module.')}' changed since the export that holds its values"
        return None


class GraphTransitionManager:
    def __init__(self, module, debug_options=None):
        self.module = module
        self.debug = debug_options
        self.state = State.REEXPORT_CHECK
        self.exports = 0
        self.reasons = []
        self._key = None
        self._graphs = None
        self._cache = {}  # key -> Graphs, the last few modes (train, eval, no_grad) kept

    # -- re-export check ----------------------------------------------------------------
    def _parameter_key(self):
        return (tuple((name, id(p), bool(p.requires_grad), str(p.device)) for name, p in self.module.named_parameters()),
                tuple((name, id(b)) for name, b in self.module.named_buffers()))

    def _reexport_reason(self, schema):
        # Each submodule's own mode too: a frozen batch norm in eval inside a training module is
        # exported as it runs in PyTorch, and switching one alone exports again.
        modes = tuple((name, m.training) for name, m in self.module.named_modules())
        autocast = _autocast_state()
        key = (schema, self._parameter_key(), bool(self.module.training), torch.is_grad_enabled(), modes, autocast)
        if self._key is None:
            return key, "first call"
        old_schema, old_params, old_training, old_grad, old_modes, old_autocast = self._key
        if old_autocast != autocast:
            return key, f"autocast switched to {autocast or 'off'}"
        if old_training != key[2]:
            return key, "the module switched to " + ("training" if key[2] else "eval") + " mode"
        if old_modes != modes:
            changed = next((n for (n, a), (_, b) in zip(old_modes, modes) if a != b), None)
            return key, (f"submodule '{changed}' switched to {'training' if dict(modes)[changed] else 'eval'} mode"
                         if changed is not None and len(old_modes) == len(modes) else "the submodules changed")
        if old_grad != key[3]:
            return key, "gradients were switched " + ("on" if key[3] else "off (torch.no_grad)")
        if old_schema != schema:
            return key, _io.describe_change(old_schema, schema)
        if old_params[1] != key[1][1]:
            old, new = dict(old_params[1]), dict(key[1][1])
            if set(old) != set(new):
                return key, "buffers were added or removed"
            return key, f"buffer '{next(n for n in new if old[n] != new[n])}' was replaced"
        if old_params != key[1]:
            old = {n: rest for n, *rest in old_params[0]}
            new = {n: rest for n, *rest in key[1][0]}
            if set(old) != set(new):
                return key, "parameters were added or removed"
            for n in new:
                if old[n][0] != new[n][0]:
                    return key, f"parameter '{n}' was replaced"
                if old[n][1] != new[n][1]:
                    return key, f"requires_grad of parameter '{n}' changed to {new[n][1]}"
                if old[n][2] != new[n][2]:
                    return key, f"parameter '{n}' moved to {new[n][2]}"
        return key, None

    def graphs_for(self, schema, tensors):
        """The graphs for this call, exporting again when the re-export check says so."""
        self.state = State.REEXPORT_CHECK
        key, reason = self._reexport_reason(schema)
        if reason is None:
            reason = self._graphs.stale()
            if reason is None:
                self.state = State.READY
                return self._graphs
        elif key in self._cache:  # back to a mode seen before (train <-> eval, no_grad): no export
            stale = self._cache[key].stale()
            if stale is None:
                self._key, self._graphs = key, self._cache[key]
                self.state = State.READY
                return self._graphs
            reason = f"{reason}, and its graphs are stale: {stale}"
        LOG.info("ORTModule: exporting %s (%s)", type(self.module).__name__, reason)
        self.state = State.EXPORT
        flat = _FlatModule(self.module, schema)
        # A training export leaves the weights out (see _export_traced); an eval export keeps
        # them, since the exporter folds BatchNormalization into Conv from their values. Should a
        # weightless export still read values computed from the weights, it is made again with them.
        graphs = None
        for with_params in ((False, True) if self.module.training else (True,)):
            exported, input_names = self._export(flat, tensors, with_params)
            self.state = State.POST_EXPORT_CHECK
            self._check_export(exported)
            self.state = State.POST_EXPORT_PROCESSING
            graphs = self._process(flat, exported, input_names, tensors)
            if graphs is not None:
                break
        self.exports += 1
        self.reasons.append(reason)
        self._key, self._graphs = key, graphs
        self._cache.pop(key, None)  # graphs made again for a mode kept before (stale constants) replace it
        if len(self._cache) >= 4:
            self._cache.pop(next(iter(self._cache)))
        self._cache[key] = graphs
        self.state = State.READY
        return graphs

    # -- export -------------------------------------------------------------------------
    def _custom_functions(self, flat, tensors):
        """Names of the custom torch.autograd.Functions with their own `symbolic` that a training
        forward goes through: the exporter writes their ONNX form and onyx would differentiate
        that, not run their backward (a straight-through estimator, say), so onyx refuses them
        rather than train with another gradient. Functions without one run through the bridge.
        torch.utils.checkpoint's reentrant form (a Function the tracer cannot follow) is refused
        here too, with the way out."""
        found = set()
        try:
            with torch.enable_grad():
                outputs = flat(*[t.detach().requires_grad_(t.requires_grad) for t in tensors])
        except Exception as e:  # noqa: BLE001 - reported with the module's name
            raise ORTModuleExportError(f"ORTModule cannot export {type(self.module).__name__}: {e}") from e
        stack = [o.grad_fn for o in outputs if isinstance(o, torch.Tensor) and o.grad_fn is not None]
        seen = set()
        while stack:
            fn = stack.pop()
            if fn is None or id(fn) in seen:
                continue
            seen.add(id(fn))
            if isinstance(fn, torch.autograd.function.BackwardCFunction):
                function = getattr(fn, "_forward_cls", None)
                if function is not None and function.__module__ == "torch.utils.checkpoint":
                    raise ORTModuleExportError(
                        f"ORTModule cannot export {type(self.module).__name__}: it calls torch.utils.checkpoint in its "
                        f"reentrant form ({function.__name__}), which torch.onnx cannot trace; pass use_reentrant=False "
                        f"(the gradients are the same)")
                if function is None or hasattr(function, "symbolic"):
                    found.add(type(fn).__name__.removesuffix("Backward"))
            stack.extend(next_fn for next_fn, _ in fn.next_functions)
        return sorted(found)

    def _check_training_forward(self, flat, tensors, saved):
        """Refuses, naming the module, what a training export would silently change: a batch
        norm's cumulative average, sparse embedding gradients, a custom Function with its own
        symbolic, and a buffer the forward updates in place other than the statistics of a
        training-mode batch norm (the export drops the update). Runs the forward once in torch;
        `saved` holds the buffers' values from before."""
        name = type(self.module).__name__
        norms = [(n, m) for n, m in flat.named_modules()
                 if isinstance(m, torch.nn.modules.batchnorm._BatchNorm) and m.training and m.track_running_stats]
        cumulative = [n.removeprefix("module.") for n, m in norms if m.momentum is None]
        if cumulative:
            # Its factor, 1 / num_batches_tracked, changes every step; the export would fix the
            # first one into the graph.
            raise ORTModuleExportError(
                f"ORTModule cannot run {name}: batch norm {', '.join(repr(n) for n in cumulative)} keeps a "
                f"cumulative average (momentum=None); give it a momentum")
        sparse = [n.removeprefix("module.") for n, m in flat.named_modules()
                  if isinstance(m, (torch.nn.Embedding, torch.nn.EmbeddingBag)) and m.sparse]
        if sparse:
            raise ORTModuleExportError(
                f"ORTModule cannot run {name}: embedding {', '.join(repr(n) for n in sparse)} asks for sparse "
                f"gradients (sparse=True); onyx computes dense ones")
        custom = self._custom_functions(flat, tensors)
        if custom:
            raise ORTModuleExportError(
                f"ORTModule cannot run {name}: it calls the custom torch.autograd.Function {', '.join(custom)}, "
                f"which defines its own symbolic: the export would write that ONNX form and onyx would differentiate "
                f"it instead of running the Function's backward (remove the symbolic to run the Function itself)")
        kept = {f"{n}.{b}" for n, _ in norms for b in ("running_mean", "running_var", "num_batches_tracked")}
        updated = [n.removeprefix("module.") for n, b in flat.named_buffers()
                   if n in saved and n not in kept and not torch.equal(b, saved[n])]
        if updated:
            raise ORTModuleExportError(
                f"ORTModule cannot run {name}: its forward updates buffer {', '.join(repr(n) for n in updated)} in "
                f"place, which the export cannot keep (onyx's graph updates only training batch norms' statistics)")

    def _export(self, flat, tensors, with_params):
        input_names = [f"input_{i}" for i in range(len(tensors))]
        # Running the module (the check below, and the exporter's trace) updates its buffers as
        # a training step would (batch norm's statistics): they are put back afterwards.
        saved = {name: b.detach().clone() for name, b in flat.named_buffers()}
        # The exporter sets one mode on every submodule and, after, the flat module's on all of
        # them: each submodule's own mode is put back too (an eval call must leave the module in
        # eval; a frozen submodule in eval stays so).
        modes = [(m, m.training) for m in flat.modules()]
        try:
            if self.module.training:
                self._check_training_forward(flat, tensors, saved)
            return self._export_traced(flat, tensors, input_names, with_params)
        finally:
            with torch.no_grad():
                for name, b in flat.named_buffers():
                    if name in saved:
                        b.copy_(saved[name])
            for m, mode in modes:
                m.training = mode

    def _export_traced(self, flat, tensors, input_names, with_params):
        dynamic = {name: {d: f"{name}_dim{d}" for d in range(t.dim())} for name, t in zip(input_names, tensors)}
        # Submodules in different modes (a frozen batch norm in eval inside a training module)
        # are traced each in its own (PRESERVE); TRAINING and EVAL would set one on all of them.
        training = [m.training for m in self.module.modules()]
        mode = (torch.onnx.TrainingMode.TRAINING if all(training) else
                torch.onnx.TrainingMode.EVAL if not any(training) else torch.onnx.TrainingMode.PRESERVE)
        f = io.BytesIO()
        try:
            # Without the weights, parameters and buffers are graph inputs and the exporter never
            # serialises the parameters (a 0.5 GB model: ~1.9 GB less at the export's peak);
            # _process hands the buffers' values back as initializers.
            with _symbolics.exporting(self.module.training and torch.is_grad_enabled()):
                torch.onnx.export(flat, tuple(t.detach() for t in tensors), f, input_names=input_names,
                                  dynamic_axes=dynamic, opset_version=_symbolics.OPSET, training=mode, do_constant_folding=False,
                                  export_params=with_params, custom_opsets=_symbolics.CUSTOM_OPSETS,
                                  **_TRACING_EXPORTER)
        except Exception as e:  # noqa: BLE001 - reported with the module's name
            name = type(self.module).__name__
            text = str(e)
            if "Python operator" in text or "PythonOp" in text or "autograd.Function" in text:
                raise ORTModuleExportError(
                    f"ORTModule cannot export {name}: the exporter could not trace a custom torch.autograd.Function "
                    f"or Python operator it calls (it said: {text})") from e
            raise ORTModuleExportError(f"ORTModule cannot export {name}: {text}") from e
        if flat.output_schema is None:
            raise ORTModuleExportError(f"ORTModule cannot export {type(self.module).__name__}: it was never called")
        if self.debug is not None and self.debug.save_onnx:
            self._save("exported", f.getvalue())
        return f.getvalue(), input_names

    # -- post-export check --------------------------------------------------------------
    def _check_export(self, exported):
        # A Python operator left as it was (prim::PythonOp: not a custom autograd.Function the
        # bridge took) has no onyx kernel: say so now, not at run.
        if b"PythonOp" in exported:
            import onnx

            model = onnx.load_from_string(exported)
            ops = sorted({f"{n.domain}::{n.op_type}" for n in model.graph.node
                          if (n.op_type == "PythonOp" and n.domain != _custom_function.DOMAIN) or n.domain == "prim"})
            if ops:
                raise ORTModuleExportError(f"ORTModule cannot run {type(self.module).__name__}: its export holds "
                                           f"{', '.join(ops)} (a Python operator onyx has no kernel for)")

    # -- post-export processing: the model info handed to the gradient builder ----------------
    def _process(self, flat, exported, input_names, tensors):
        import onyx
        from onyx import OrtValue, _onyx

        params = dict(flat.named_parameters())
        buffers = dict(flat.named_buffers())
        training = self.module.training and torch.is_grad_enabled()
        trainable = [n for n, p in params.items() if p.requires_grad] if training else []
        frozen = [n for n in params if n not in trainable]
        needs_grad = [name for name, t in zip(input_names, tensors)
                      if training and t.requires_grad and t.is_floating_point()]
        # The buffers' values as the export would have written them (copies: the graphs keep them;
        # torch's DLPack has no bool, numpy has no bfloat16).
        values = {name: b.detach().cpu().numpy().copy() if b.dtype == torch.bool
                  else OrtValue.from_dlpack(b.detach().cpu().clone().contiguous()) for name, b in buffers.items()}
        device = _device_of(type(self.module).__name__, list(params.values()) + list(buffers.values()) + list(tensors))
        try:
            made = _onyx._make_module_graphs(exported, needs_grad, trainable, frozen, values)
        except Exception as e:  # noqa: BLE001 - reported with the module's name
            raise ORTModuleExportError(f"ORTModule cannot build the graphs of {type(self.module).__name__}: {e}") from e
        if any(n not in input_names and n not in params and n not in buffers for n in made["forward_inputs"]):
            return None  # a graph input that is none of these: a value the exporter computed from the weights
        if self.debug is not None and self.debug.save_onnx:
            self._save("forward", made["forward"])
            self._save("backward", made["backward"])
        so = onyx.SessionOptions()
        so.intra_op_num_threads = torch.get_num_threads()
        so.add_session_config_entry("session.set_denormal_as_zero", "1")
        return Graphs(made, flat.output_schema, input_names, params, buffers, so, device)

    def _save(self, what, data):
        prefix = self.debug.onnx_prefix or type(self.module).__name__
        path = os.path.join(self.debug.save_path or ".", f"{prefix}_{self.exports}_{what}.onnx")
        with open(path, "wb") as f:
            f.write(data)
        LOG.info("ORTModule: saved %s", path)
