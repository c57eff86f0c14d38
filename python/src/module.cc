// onyx._onyx: the extension module under the onyx package (ORT's onnxruntime_pybind11_state).
#include <pybind11/stl.h>

#include "binding.h"
#include "providers/execution_provider.h"
#include "kernels/random_common.h"

#ifndef ONYX_VERSION
#define ONYX_VERSION "0.0.0"
#endif

PYBIND11_MODULE(_onyx, m) {
  namespace py = pybind11;
  m.doc() = "onyx's native module: ONNX Runtime's onnxruntime_pybind11_state API over the onyx runtime.";
  onyx::python::init_values();
  onyx::python::register_errors(m);
  onyx::python::register_options(m);
  onyx::python::register_session(m);
  onyx::python::register_ortvalue(m);
  onyx::python::register_io_binding(m);
  m.def("set_seed", [](int64_t seed) { onyx::random::set_default_seed(uint64_t(seed)); }, py::arg("seed"),
        "Seeds the random ops (RandomNormal, RandomUniform, their *Like forms, Bernoulli) that have no seed "
        "attribute: after set_seed(s) their runs draw the same sequence as after any other set_seed(s).");

  m.attr("__version__") = ONYX_VERSION;
  m.def("get_version_string", [] { return std::string(ONYX_VERSION); });
#ifdef ONYX_WITH_CUDA
  m.def("get_build_info", [] { return std::string("onyx " ONYX_VERSION ", CPU, CUDA"); });
  m.def("get_device", [] { return std::string("GPU"); }, "'GPU' in a build with the CUDA provider, else 'CPU'.");
#else
  m.def("get_build_info", [] { return std::string("onyx " ONYX_VERSION ", CPU"); });
  m.def("get_device", [] { return std::string("CPU"); }, "'GPU' in a build with the CUDA provider, else 'CPU'.");
#endif
  // The providers this build has (as ONNX Runtime lists the ones it was built with, whether or
  // not a device is present: asking for CUDA without one is an error at session creation).
  m.def("get_available_providers", [] { return onyx::ProviderRegistry::global().ort_names(); });
  m.def("get_all_providers", [] {
    // ONNX Runtime's list, so that scripts probing for a provider by name find the name.
    return std::vector<std::string>{
        "TensorrtExecutionProvider", "CUDAExecutionProvider",   "MIGraphXExecutionProvider",
        "ROCMExecutionProvider",     "OpenVINOExecutionProvider", "DnnlExecutionProvider",
        "VitisAIExecutionProvider",  "QNNExecutionProvider",    "NnapiExecutionProvider",
        "VSINPUExecutionProvider",   "JsExecutionProvider",     "CoreMLExecutionProvider",
        "ArmNNExecutionProvider",    "ACLExecutionProvider",    "DmlExecutionProvider",
        "RknpuExecutionProvider",    "WebNNExecutionProvider",  "WebGpuExecutionProvider",
        "XnnpackExecutionProvider",  "CANNExecutionProvider",   "AzureExecutionProvider",
        "CPUExecutionProvider"};
  });
}
