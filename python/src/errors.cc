// ORT's exception classes and the mapping from onyx Status codes to them.
#include <array>

#include "binding.h"

namespace onyx::python {
namespace {

struct ErrorClass {
  OrtError kind;
  const char* class_name;
  const char* code_name;
};

constexpr std::array<ErrorClass, 11> kErrors = {{
    {OrtError::kFail, "Fail", "FAIL"},
    {OrtError::kInvalidArgument, "InvalidArgument", "INVALID_ARGUMENT"},
    {OrtError::kNoSuchFile, "NoSuchFile", "NO_SUCHFILE"},
    {OrtError::kNoModel, "NoModel", "NO_MODEL"},
    {OrtError::kEngineError, "EngineError", "ENGINE_ERROR"},
    {OrtError::kRuntimeException, "RuntimeException", "RUNTIME_EXCEPTION"},
    {OrtError::kInvalidProtobuf, "InvalidProtobuf", "INVALID_PROTOBUF"},
    {OrtError::kModelLoaded, "ModelLoaded", "MODEL_LOADED"},
    {OrtError::kNotImplemented, "NotImplemented", "NOT_IMPLEMENTED"},
    {OrtError::kInvalidGraph, "InvalidGraph", "INVALID_GRAPH"},
    {OrtError::kEPFail, "EPFail", "EP_FAIL"},
}};

// The class objects, created once at import and never freed (they live as long as the
// interpreter; freeing them at exit would race with module teardown).
std::array<PyObject*, 11> g_classes{};

const ErrorClass& entry(OrtError kind) { return kErrors[size_t(kind) - 1]; }

}  // namespace

void register_errors(py::module_& m) {
  for (const auto& e : kErrors) {
    // Named as ORT names them so that tracebacks and repr() read the same, under onyx.
    const std::string qualified = std::string("onyx.capi.onnxruntime_pybind11_state.") + e.class_name;
    // RuntimeError subclasses: `except Fail` works as with ONNX Runtime, and so does the
    // `except RuntimeError` that ORT's own C++ exceptions need.
    PyObject* cls = PyErr_NewException(qualified.c_str(), PyExc_RuntimeError, nullptr);
    if (!cls) throw py::error_already_set();
    g_classes[size_t(e.kind) - 1] = cls;
    m.attr(e.class_name) = py::handle(cls);
  }
}

void raise(OrtError kind, const std::string& message) {
  const ErrorClass& e = entry(kind);
  const std::string text =
      "[ONNXRuntimeError] : " + std::to_string(int(kind)) + " : " + e.code_name + " : " + message;
  PyErr_SetString(g_classes[size_t(kind) - 1], text.c_str());
  throw py::error_already_set();
}

OrtError classify(const Status& status, Phase phase) {
  const bool load = phase == Phase::kLoad;
  switch (status.code()) {
    case StatusCode::kOk:
    case StatusCode::kInternal:
    case StatusCode::kCancelled: return OrtError::kFail;  // ORT's terminate flag gives FAIL too
    case StatusCode::kInvalidArgument: return OrtError::kInvalidArgument;
    case StatusCode::kNotFound: return load ? OrtError::kNoSuchFile : OrtError::kInvalidArgument;
    case StatusCode::kNotImplemented: return OrtError::kNotImplemented;
    case StatusCode::kOutOfRange: return load ? OrtError::kInvalidGraph : OrtError::kInvalidArgument;
    case StatusCode::kRuntimeError: return OrtError::kRuntimeException;
    case StatusCode::kInvalidModel: {
      // Bytes that are not a ModelProto at all (the loader's parse step) are ORT's
      // INVALID_PROTOBUF; a parsed model that is wrong is INVALID_GRAPH.
      const std::string& msg = status.message();
      const bool unparsable = msg.rfind("cannot parse ", 0) == 0 || msg.rfind("empty model", 0) == 0 ||
                              msg.find("exceeds protobuf's") != std::string::npos;
      return unparsable ? OrtError::kInvalidProtobuf : OrtError::kInvalidGraph;
    }
  }
  return OrtError::kFail;
}

void raise_status(const Status& status, Phase phase) {
  std::string message = status.message();
  if (!status.context().empty()) {
    message += " (";
    for (size_t i = 0; i < status.context().size(); ++i) message += (i ? "; " : "") + status.context()[i];
    message += ")";
  }
  raise(classify(status, phase), message);
}

}  // namespace onyx::python
