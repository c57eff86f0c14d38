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
  onyx::python::register_ortvalue_vector(m);
  onyx::python::register_logging(m);
  onyx::python::register_training(m);
  m.def("set_seed", [](int64_t seed) { onyx::random::set_default_seed(uint64_t(seed)); }, py::arg("seed"),
        "Seeds the random ops (RandomNormal, RandomUniform, their *Like forms, Bernoulli) that have no seed "
        "attribute: after set_seed(s) their runs draw the same sequence as after any other set_seed(s).");

  m.attr("__version__") = ONYX_VERSION;
  m.def("get_version_string", [] { return std::string(ONYX_VERSION); });
#ifdef ONYX_WITH_CUDA
  m.def("get_build_info", [] { return std::string("onyx Build Info: version=" ONYX_VERSION ", providers=CUDA,CPU"); });
  m.def("get_device", [] { return std::string("GPU"); }, "'GPU' in a build with the CUDA provider, else 'CPU'.");
#else
  m.def("get_build_info", [] { return std::string("onyx Build Info: version=" ONYX_VERSION ", providers=CPU"); });
  m.def("get_device", [] { return std::string("CPU"); }, "'GPU' in a build with the CUDA provider, else 'CPU'.");
#endif
  // onyx sends nothing anywhere: there are no telemetry events to turn on or off.
  m.def("enable_telemetry_events", [] {}, "Accepted; onyx has no telemetry.");
  m.def("disable_telemetry_events", [] {}, "Accepted; onyx has no telemetry.");
  // onyx's choice: the providers that can run on this machine, not every one the build has
  // (ONNX Runtime lists what it was built with). A CUDA build without a usable GPU lists the
  // CPU only, so `providers=get_available_providers()` always makes a session, and scripts that
  // look for "CUDAExecutionProvider" here take their CPU path. `onyx providers` says why a
  // provider of the build cannot run.
  m.def("get_available_providers", [] { return onyx::ProviderRegistry::global().available_ort_names(); });
  m.def("_built_providers", [] { return onyx::ProviderRegistry::global().ort_names(); },
        "The providers of this build (ONNX Runtime's names, CPU last), whether or not they can run here.");
  m.def(
      "_why_provider_cannot_run",
      [](const std::string& name) {
        const onyx::Status s = onyx::ProviderRegistry::global().available(name);
        return s.ok() ? std::string() : s.message();
      },
      py::arg("name"), "'' when the provider can run here, else why not.");
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
