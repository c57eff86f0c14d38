"""onyx.capi: the layout of onnxruntime.capi (onnxruntime_pybind11_state, _pybind_state,
onnxruntime_inference_collection), so that code importing those modules by name keeps working."""
