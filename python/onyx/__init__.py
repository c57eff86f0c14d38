"""onyx: an ONNX inference runtime with onnxruntime's Python API.

Switching is one line: ``import onyx as onnxruntime``. InferenceSession, SessionOptions,
RunOptions, the enums, the module functions and the exception classes have onnxruntime's names,
arguments and defaults; see ``help(onyx.InferenceSession)`` for what onyx does differently.
"""
import os as _os

# The intra-op pool is OpenMP's (libgomp), which reads its waiting policy when it is loaded:
# unless the user chose one, pool threads spin briefly and then sleep instead of holding a core.
if "OMP_WAIT_POLICY" not in _os.environ and "GOMP_SPINCOUNT" not in _os.environ:
    _os.environ["GOMP_SPINCOUNT"] = "20000"

from onyx.capi.onnxruntime_pybind11_state import (  # noqa: E402,F401
    EngineError,
    EPFail,
    ExecutionMode,
    ExecutionOrder,
    Fail,
    GraphOptimizationLevel,
    InvalidArgument,
    InvalidGraph,
    InvalidProtobuf,
    ModelLoaded,
    NoModel,
    NoSuchFile,
    NotImplemented,
    RunOptions,
    RuntimeException,
    SessionOptions,
    __version__,
    disable_telemetry_events,
    enable_telemetry_events,
    get_all_providers,
    get_available_providers,
    get_build_info,
    get_device,
    get_version_string,
    OrtValue,
    set_default_logger_callback,
    set_default_logger_severity,
    set_seed,
    set_default_logger_verbosity,
)
from onyx.capi.onnxruntime_inference_collection import (  # noqa: E402,F401
    InferenceSession,
    IOBinding,
    ModelMetadata,
    NodeArg,
)
from onyx.capi.onnxruntime_pybind11_state import OrtValueVector  # noqa: E402,F401
from onyx.capi.devices import (  # noqa: E402,F401
    OrtAllocatorType,
    OrtArenaCfg,
    OrtDevice,
    OrtDeviceMemoryType,
    OrtDeviceVendorId,
    OrtMemoryInfo,
    OrtMemoryInfoDeviceType,
    OrtMemType,
    OrtSparseFormat,
    SparseTensor,
    create_and_register_allocator,
    create_and_register_allocator_v2,
)
from onyx.capi.lora import AdapterFormat, LoraAdapter  # noqa: E402,F401
from onyx import capi  # noqa: E402,F401
from onyx._native import ort_library_path  # noqa: E402,F401  (onyx's own: where libonnxruntime.so.1 is)
