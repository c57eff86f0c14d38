"""onyx.training: onnxruntime's on-device training API (onnxruntime.training.artifacts and
onnxruntime.training.api) over onyx's gradient builder. Needs the onnx package."""
from onyx.training import api, artifacts  # noqa: F401
