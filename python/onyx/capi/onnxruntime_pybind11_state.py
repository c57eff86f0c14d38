"""The native module's API under ONNX Runtime's name: the C-level classes, the module functions
and the exception classes (Fail, InvalidArgument, NoSuchFile, NoModel, EngineError,
RuntimeException, InvalidProtobuf, ModelLoaded, NotImplemented, InvalidGraph, EPFail)."""
from onyx._onyx import *  # noqa: F401,F403
from onyx._onyx import __version__  # noqa: F401
from onyx._onyx import _built_providers, _make_training_models, _why_provider_cannot_run  # noqa: F401,E402
from onyx._onyx import (_CheckpointState, _generate_artifacts, _LinearLRScheduler, _Module,  # noqa: F401,E402
                        _Optimizer)
