"""InferenceSession, NodeArg and ModelMetadata with onnxruntime's signatures and behaviour."""
import collections
import json
import os
import threading
import warnings

from onyx.capi import onnxruntime_pybind11_state as C


class NodeArg:
    """A graph input or output: name, type string ('tensor(float)', 'seq(tensor(int64))',
    'optional(tensor(float))') and shape (ints, strings for symbolic dims, None for unknown
    dims; [] when the shape is unknown or the value is not a tensor)."""

    __slots__ = ("name", "type", "shape")

    def __init__(self, name, type, shape):  # noqa: A002 (ORT's attribute name)
        self.name = name
        self.type = type
        self.shape = shape

    def __str__(self):
        return f"NodeArg(name={self.name!r}, type={self.type!r}, shape={self.shape!r})"

    __repr__ = __str__


class ModelMetadata:
    """The model's metadata: producer_name, graph_name, domain, description (the model's
    doc_string), graph_description, version (model_version) and custom_metadata_map."""

    def __init__(self, producer_name="", graph_name="", domain="", description="", graph_description="",
                 version=0, custom_metadata_map=None):
        self.producer_name = producer_name
        self.graph_name = graph_name
        self.domain = domain
        self.description = description
        self.graph_description = graph_description
        self.version = version
        self.custom_metadata_map = dict(custom_metadata_map or {})

    def __repr__(self):
        return (f"ModelMetadata(producer_name={self.producer_name!r}, graph_name={self.graph_name!r}, "
                f"domain={self.domain!r}, version={self.version!r})")


def check_and_normalize_provider_args(providers, provider_options, available_provider_names):
    """Validates providers / provider_options as onnxruntime does and returns (names, options):
    names in order, each options dict with str keys and values. Unknown names warn."""
    if providers is None:
        if provider_options is not None:
            raise ValueError("'provider_options' requires 'providers' to be set.")
        return [], []
    if not isinstance(providers, (list, tuple)):
        raise ValueError("'providers' should be a list or tuple of provider names or (name, options) pairs.")
    if provider_options is not None and not isinstance(provider_options, (list, tuple)):
        raise ValueError("'provider_options' should be a list or tuple of dicts.")
    by_name = collections.OrderedDict()

    def add(name, options):
        if name not in available_provider_names:
            warnings.warn(f"Specified provider '{name}' is not in available provider names."
                          f"Available providers: '{', '.join(available_provider_names)}'")
        if name in by_name:
            warnings.warn(f"Duplicate provider '{name}' encountered, ignoring.")
            return
        by_name[name] = {str(k): str(v) for k, v in options.items()}

    if provider_options is not None:
        if len(providers) != len(provider_options):
            raise ValueError("'providers' and 'provider_options' should be the same length if both are given.")
        if not all(isinstance(p, str) for p in providers):
            raise ValueError("Only string values for 'providers' are supported if 'provider_options' is given.")
        if not all(isinstance(o, dict) for o in provider_options):
            raise ValueError("'provider_options' values must be dicts.")
        for name, options in zip(providers, provider_options):
            add(name, options)
    else:
        for p in providers:
            if isinstance(p, str):
                add(p, {})
            elif isinstance(p, tuple) and len(p) == 2 and isinstance(p[0], str) and isinstance(p[1], dict):
                add(p[0], p[1])
            else:
                raise ValueError("'providers' values must be either strings or (string, dict) tuples.")
    return list(by_name.keys()), list(by_name.values())


def _options_from_ort_config(options, text):
    """A copy of `options` with the "session_options" of ONNX Runtime's ort_config metadata
    (JSON: {"session_options": {"intra_op_num_threads": 2, "graph_optimization_level": 99,
    ...}}) applied; keys onyx has no option for warn."""
    import copy

    try:
        config = json.loads(text).get("session_options", {})
    except (ValueError, AttributeError) as e:
        raise C.InvalidGraph(f"the model's ort_config metadata is not ONNX Runtime's JSON: {e}") from None
    out = copy.copy(options)
    enums = {"graph_optimization_level": C.GraphOptimizationLevel, "execution_mode": C.ExecutionMode,
             "execution_order": C.ExecutionOrder}
    for key, value in config.items():
        if key in enums:
            matches = [m for m in enums[key].__members__.values() if int(m) == int(value)]
            if not matches:
                raise C.InvalidGraph(f"ort_config: {key} = {value!r} is not one of ONNX Runtime's values")
            setattr(out, key, matches[0])
        elif hasattr(out, key) and not key.startswith("_") and not callable(getattr(out, key)):
            current = getattr(out, key)
            setattr(out, key, type(current)(value) if isinstance(current, (bool, int, float, str)) else value)
        else:
            warnings.warn(f"ort_config: session option '{key}' is not one onyx has; ignored")
    return out


class _EpAssignedNode:
    __slots__ = ("name", "op_type", "domain")

    def __init__(self, name, op_type, domain):
        self.name, self.op_type, self.domain = name, op_type, domain

    def __repr__(self):
        return f"EpAssignedNode(name={self.name!r}, op_type={self.op_type!r}, domain={self.domain!r})"


class _EpAssignment:
    def __init__(self, ep_name):
        self.ep_name = ep_name
        self._nodes = []

    def get_nodes(self):
        return list(self._nodes)

    def __repr__(self):
        return f"EpAssignment(ep_name={self.ep_name!r}, nodes={len(self._nodes)})"


class InferenceSession:
    """Loads an ONNX model (a path or the serialized bytes) and runs it, as
    onnxruntime.InferenceSession. `providers` in priority order: 'CUDAExecutionProvider'
    (in a build with CUDA) and 'CPUExecutionProvider', which takes the nodes the others do
    not. Asking for CUDA where it cannot run (no device, or a build without it) raises; other
    providers onyx does not have warn and are left out, as ONNX Runtime does."""

    def __init__(self, path_or_bytes, sess_options=None, providers=None, provider_options=None, **kwargs):
        # kwargs as ORT reads them: disabled_optimizers (an iterable of pass names, onyx's
        # "gelu_fusion" or ORT's "GeluFusion"; a name no pass has raises), and
        # read_config_from_model (or the environment's ORT_LOAD_CONFIG_FROM_MODEL=1): session
        # options from the model's "ort_config" metadata (ORT's JSON) override the caller's.
        if isinstance(path_or_bytes, (str, os.PathLike)):
            self._model_path = os.fspath(path_or_bytes)
            self._model_bytes = None
        elif isinstance(path_or_bytes, (bytes, bytearray, memoryview)):
            self._model_path = None
            self._model_bytes = bytes(path_or_bytes)
        else:
            raise TypeError(f"Unable to load from type '{type(path_or_bytes)}'")
        if sess_options is not None and not isinstance(sess_options, C.SessionOptions):
            raise TypeError(f"sess_options must be an onyx.SessionOptions, got {type(sess_options).__name__}")
        self._sess_options_initial = sess_options
        disabled = kwargs.get("disabled_optimizers") or []
        self._disabled_optimizers = sorted([disabled] if isinstance(disabled, str) else disabled)
        self._enable_fallback = True
        self._read_config_from_model = bool(kwargs.get("read_config_from_model",
                                                       os.environ.get("ORT_LOAD_CONFIG_FROM_MODEL") == "1"))
        self._create_inference_session(providers, provider_options)

    def _create_inference_session(self, providers, provider_options):
        built = C._built_providers()
        known = set(C.get_all_providers()) | set(built)
        with warnings.catch_warnings():  # an unknown name is refused below, with its own message
            warnings.filterwarnings("ignore", message="Specified provider .* is not in available provider names")
            providers, provider_options = check_and_normalize_provider_args(providers, provider_options, sorted(known))
        options = self._sess_options_initial if self._sess_options_initial is not None else C.SessionOptions()
        try:
            strict = options.get_session_config_entry("session.disable_cpu_ep_fallback") == "1"
        except RuntimeError:  # not set
            strict = False
        # A priority list. A name no runtime has is refused; a provider ONNX Runtime has and
        # this build does not, or one this build has that cannot run here, is left out with
        # one warning saying why, and the providers after it (the CPU at least) take its nodes.
        # With session.disable_cpu_ep_fallback = 1 the session refuses instead.
        chosen = []
        for name, opts in zip(providers, provider_options):
            if name not in known:
                raise C.Fail(f"Unknown Provider Type: {name} (onyx knows {', '.join(C.get_all_providers())})")
            if name not in built:
                why = "this build of onyx does not have it"
            else:
                why = C._why_provider_cannot_run(name)
            if why and not strict:
                warnings.warn(f"Specified provider '{name}' cannot run here ({why}); "
                              f"the providers after it take its nodes.")
                continue
            chosen.append((name, opts))
        def load(opts):
            model, is_path = (self._model_path, True) if self._model_path is not None else (self._model_bytes, False)
            return C.InferenceSession(opts, model, is_path, chosen, self._disabled_optimizers)

        sess = load(options)
        if self._read_config_from_model and "ort_config" in sess.model_meta["custom_metadata_map"]:
            from_model = _options_from_ort_config(options, sess.model_meta["custom_metadata_map"]["ort_config"])
            del sess
            sess = load(from_model)
        self._sess = sess
        self._sess_options = sess.session_options
        self._inputs_meta = [NodeArg(*a) for a in sess.inputs_meta]
        self._outputs_meta = [NodeArg(*a) for a in sess.outputs_meta]
        self._overridable_initializers = [NodeArg(*a) for a in sess.overridable_initializers]
        self._model_meta = ModelMetadata(**sess.model_meta)
        given = dict(chosen)
        self._providers = list(sess.providers)
        self._provider_options = {name: given.get(name, {}) for name in self._providers}

    def run(self, output_names, input_feed, run_options=None):
        """Runs the model. output_names: the outputs wanted, in order (None or []: all);
        input_feed: {input name: numpy array (or list of arrays for a sequence, dict for a map,
        None for an absent optional)}. Returns a list of numpy arrays / lists / dicts / None.
        run_options: a RunOptions (terminate, only_execute_path_to_fetches, ...)."""
        if isinstance(run_options, C.RunOptions) and run_options._active_adapters:
            input_feed = self._with_adapters(input_feed, run_options._active_adapters)
        return self._sess.run(output_names, input_feed, run_options)

    def _with_adapters(self, input_feed, adapters):
        """The feeds with each active adapter's parameters as the overridable initializers of
        the same names (later adapters win; a name given in input_feed wins over both)."""
        overridable = {a.name for a in self._overridable_initializers}
        feeds = {}
        for adapter in adapters:
            for name, value in adapter.parameters().items():
                if name not in overridable:
                    raise C.InvalidArgument(f"adapter parameter '{name}' is not an overridable initializer of this "
                                            f"model (it has: {', '.join(sorted(overridable)) or 'none'})")
                feeds[name] = value
        feeds.update(input_feed)
        return feeds

    def run_with_ort_values(self, output_names, input_dict_ort_values, run_options=None):
        """As run(), with OrtValue feeds ({name: OrtValue}); returns a list of OrtValue. Nothing
        is converted to or from numpy."""
        return list(self._sess.run_with_ort_values(input_dict_ort_values, output_names, run_options))

    def run_async(self, output_names, input_feed, callback, user_data, run_options=None):
        """As run(), on a thread of its own: returns at once and calls
        callback(outputs, user_data, err) when the run ends, with the outputs as run() returns
        them and err '' (or, on failure, outputs None and err the error's text)."""
        def work():
            try:
                outputs = self._sess.run(output_names, input_feed, run_options)
            except Exception as e:  # noqa: BLE001 - handed to the callback, as ORT does
                callback(None, user_data, str(e) or type(e).__name__)
                return
            callback(outputs, user_data, "")

        threading.Thread(target=work, name="onyx-run-async", daemon=True).start()

    def get_output_shapes(self, input_shapes):
        """onyx extension: the output shapes static inference derives for these input shapes
        ({input name: shape}; inputs left out keep their declared dims), as {output name:
        shape} with ints, strings for symbolic dims and None where the size depends on the
        data (NonZero, ...): what to pre-allocate before IOBinding.bind_output with a buffer."""
        return self._sess.output_types_for({k: [int(d) for d in v] for k, v in input_shapes.items()})

    def io_binding(self):
        """An IOBinding for this session."""
        return IOBinding(self)

    def run_with_iobinding(self, iobinding, run_options=None):
        """Runs with the binding's inputs, writing its bound outputs (IOBinding.get_outputs())."""
        iobinding._iobinding.run(run_options)

    def get_input_memory_infos(self):
        """Where each input (get_inputs() order) is expected: onyx takes feeds in host memory
        and moves them to the device that reads them (an IOBinding may bind them there)."""
        from onyx.capi.devices import OrtAllocatorType, OrtMemoryInfo, OrtMemType

        return [OrtMemoryInfo("Cpu", OrtAllocatorType.ORT_DEVICE_ALLOCATOR, 0, OrtMemType.DEFAULT)
                for _ in self._inputs_meta]

    def get_output_memory_infos(self):
        """Where run() returns each output: host memory (an IOBinding may bind them on a device)."""
        from onyx.capi.devices import OrtAllocatorType, OrtMemoryInfo, OrtMemType

        return [OrtMemoryInfo("Cpu", OrtAllocatorType.ORT_DEVICE_ALLOCATOR, 0, OrtMemType.DEFAULT)
                for _ in self._outputs_meta]

    def get_input_epdevices(self):
        """The execution-provider device each input is expected on, one entry per input: None,
        as onyx takes feeds in host memory (see get_input_memory_infos)."""
        return [None for _ in self._inputs_meta]

    def get_provider_graph_assignment_info(self):
        """Which provider runs which nodes, in execution order: one assignment per node (onyx's
        providers run node by node, as ORT's kernel-based ones do), each with ep_name and
        get_nodes() (nodes with name, op_type and domain); copies between devices are left
        out. As in ONNX Runtime, the session config entry
        session.record_ep_graph_assignment_info must be "1"."""
        try:
            recorded = self._sess_options.get_session_config_entry("session.record_ep_graph_assignment_info") == "1"
        except RuntimeError:
            recorded = False
        if not recorded:
            raise C.Fail("Session configuration entry 'session.record_ep_graph_assignment_info' must be set to \"1\" "
                         "to get the provider graph assignment info")
        out = []
        for label, op, provider, _why, is_copy in self._sess.placement:
            if is_copy:
                continue
            domain, _, op_type = op.rpartition(":")
            name = label[1:label.index("' (")] if label.startswith("'") and "' (" in label else ""
            out.append(_EpAssignment(provider))
            out[-1]._nodes.append(_EpAssignedNode(name, op_type, domain))
        return out

    def get_session_options(self):
        """A copy of the SessionOptions the session was created with."""
        return self._sess_options

    def get_inputs(self):
        """The inputs the caller feeds (NodeArg list); inputs with initializer defaults are in
        get_overridable_initializers()."""
        return self._inputs_meta

    def get_outputs(self):
        return self._outputs_meta

    def get_overridable_initializers(self):
        return self._overridable_initializers

    def get_modelmeta(self):
        return self._model_meta

    def get_providers(self):
        return self._providers

    def get_provider_options(self):
        return self._provider_options

    def set_providers(self, providers=None, provider_options=None):
        """Re-creates the session for the given providers."""
        self._create_inference_session(providers, provider_options)

    def disable_fallback(self):
        self._enable_fallback = False

    def enable_fallback(self):
        self._enable_fallback = True

    def end_profiling(self):
        """Writes the profile (SessionOptions.enable_profiling) and returns its file name,
        a Chrome-trace JSON; '' when profiling is off."""
        return self._sess.end_profiling()

    def get_profiling_start_time_ns(self):
        return 0


OrtValue = C.OrtValue


class IOBinding:
    """Inputs and outputs bound to a session once and reused across runs, as
    onnxruntime.IOBinding. An output bound to a buffer (bind_output with buffer_ptr, or
    bind_ortvalue_output) is written in place; one bound by device only is allocated by onyx
    with the shape the run produces. onyx computes on the CPU: device_type must be 'cpu'."""

    def __init__(self, session):
        self._iobinding = C.SessionIOBinding(session._sess)

    def bind_cpu_input(self, name, arr_on_cpu):
        """Binds a numpy array (used without a copy while bound: keep it unchanged)."""
        self._iobinding.bind_input(name, arr_on_cpu)

    def bind_input(self, name, device_type, device_id, element_type, shape, buffer_ptr):
        """Binds caller memory at buffer_ptr (an int address) as a tensor of element_type
        (a numpy type) and shape; the memory must stay alive while bound."""
        self._iobinding.bind_input_ptr(name, device_type, device_id, element_type, list(shape), buffer_ptr)

    def bind_ortvalue_input(self, name, ortvalue):
        self._iobinding.bind_input(name, ortvalue)

    def synchronize_inputs(self):
        """Waits for the default stream of each device an input is bound on (where PyTorch
        writes unless told otherwise). OrtValues onyx places on a device are complete when
        made, and DLPack imports wait already; call this after writing a bound GPU buffer
        by other means (a torch tensor bound by its data_ptr) and before the run."""
        self._iobinding.synchronize_inputs()

    def bind_output(self, name, device_type="cpu", device_id=0, element_type=None, shape=None, buffer_ptr=None):
        """Binds output `name`: to caller memory (element_type, shape and buffer_ptr all given),
        or, with buffer_ptr None, to a device, where onyx allocates it with the shape the run
        produces."""
        if buffer_ptr is None:
            self._iobinding.bind_output_device(name, device_type, device_id)
            return
        if element_type is None or shape is None:
            raise ValueError("bind_output with buffer_ptr needs element_type and shape")
        self._iobinding.bind_output_ptr(name, device_type, device_id, element_type, list(shape), buffer_ptr)

    def bind_ortvalue_output(self, name, ortvalue):
        """Binds output `name` to a tensor OrtValue, which the run fills in place."""
        self._iobinding.bind_ortvalue_output(name, ortvalue)

    def synchronize_outputs(self):
        """Nothing to wait for: a run waits for its devices before it returns (unless the run
        config entry disable_synchronize_execution_providers is "1")."""

    def get_outputs(self):
        """The outputs of the last run, in bind order, as OrtValue."""
        return self._iobinding.get_outputs()

    def get_outputs_as_ortvaluevector(self):
        return self._iobinding.get_outputs()

    def copy_outputs_to_cpu(self):
        """The outputs of the last run as numpy arrays (copies)."""
        return self._iobinding.copy_outputs_to_cpu()

    def clear_binding_inputs(self):
        self._iobinding.clear_binding_inputs()

    def clear_binding_outputs(self):
        self._iobinding.clear_binding_outputs()
