// Devices as the Python API names them (ORT's device_type strings and ids), and the providers
// the module keeps for tensors made outside a session (OrtValue.ortvalue_from_numpy(a, "cuda")).
#include <algorithm>
#include <cctype>
#include <mutex>

#include "binding.h"

namespace onyx::python {

Device device_arg(const std::string& device_type, int device_id, const std::string& what) {
  std::string d = device_type;
  std::transform(d.begin(), d.end(), d.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  if (device_id < 0) raise(OrtError::kInvalidArgument, what + ": device_id " + std::to_string(device_id) + " is negative");
  if (d == "cpu") {
    if (device_id != 0)
      raise(OrtError::kInvalidArgument, what + ": the CPU device has id 0, got " + std::to_string(device_id));
    return Device{};
  }
  if (d == "cuda" || d == "gpu") {
    if (ProviderRegistry::global().canonical("CUDA").empty())
      raise(OrtError::kEPFail, what + ": device '" + device_type + "' is not available: this onyx build has no CUDA "
                                      "provider (built without the CUDA toolkit)");
    return Device{Device::Type::kCuda, device_id};
  }
  raise(OrtError::kEPFail, what + ": unknown device '" + device_type + "' (onyx knows 'cpu' and 'cuda')");
}

std::string device_type_name(const Device& d) { return d.type == Device::Type::kCuda ? "cuda" : "cpu"; }

Result<ExecutionProvider*> find_device_provider(const Device& device) {
  static std::mutex mu;
  static std::map<int, std::shared_ptr<ExecutionProvider>> cuda;  // by device id
  if (device.type != Device::Type::kCuda)
    return not_implemented("no provider for ", device.to_string(), " in the Python module");
  std::lock_guard<std::mutex> lock(mu);
  std::shared_ptr<ExecutionProvider>& p = cuda[device.index];
  if (!p) {
    ONYX_ASSIGN_OR_RETURN(p, ProviderRegistry::global().create("CUDA", {{"device_id", std::to_string(device.index)}}));
  }
  return p.get();
}

ExecutionProvider& device_provider(const Device& device, const std::string& what) {
  Result<ExecutionProvider*> p = find_device_provider(device);
  if (!p.ok()) raise(OrtError::kEPFail, what + ": " + p.status().message());
  return **p;
}

Tensor on_host(const Tensor& t, const std::string& what) {
  if (t.device().is_cpu()) return t;
  Tensor host(t.dtype(), t.shape());
  Status st;
  ExecutionProvider& provider = device_provider(t.device(), what);
  {
    py::gil_scoped_release release;
    st = provider.copy(t, host);
  }
  if (!st.ok()) raise_status(st, Phase::kRun);
  return host;
}

}  // namespace onyx::python
