// SessionIOBinding (onnxruntime's C-level IOBinding): the Python face of onyx::IoBinding.
// The pure-Python onyx.IOBinding (onnxruntime_inference_collection.py) wraps it with ORT's
// method names and arguments.
#include <pybind11/stl.h>

#include <algorithm>

#include "binding.h"

namespace onyx::python {
namespace {

// Caller memory at `buffer_ptr` as a tensor; the caller keeps it alive while it is bound.
Tensor borrowed(const std::string& name, py::handle element_type, const std::vector<int64_t>& shape,
                uintptr_t buffer_ptr, Device device) {
  const DataType t = element_type_arg(element_type, "'" + name + "'");
  if (t == DataType::kString) raise(OrtError::kInvalidArgument, "'" + name + "': string tensors cannot be bound by pointer");
  int64_t numel = 1;
  for (int64_t d : shape) {
    if (d < 0 || (d != 0 && numel > (int64_t(1) << 48) / d))
      raise(OrtError::kInvalidArgument, "'" + name + "': invalid shape for a bound buffer");
    numel *= d;
  }
  if (numel > 0 && buffer_ptr == 0) raise(OrtError::kInvalidArgument, "'" + name + "': buffer_ptr is null");
  auto tensor = Tensor::borrow(t, Shape(shape.begin(), shape.end()), reinterpret_cast<void*>(buffer_ptr),
                               data_type_bytes(t, numel), device);
  if (!tensor.ok()) raise_status(tensor.status(), Phase::kRun);
  return std::move(tensor).value();
}

void check(const Status& s) {
  if (!s.ok()) raise_status(s, Phase::kRun);
}

class PyIoBinding {
 public:
  explicit PyIoBinding(const PySession& session) : session_(session), binding_(session.session()) {}

  // `value`: an OrtValue, or a numpy array (anything numpy.asarray takes), used without a copy.
  void bind_input(const std::string& name, py::handle value) {
    const ir::ValueInfo& vi = session_.input(name);
    if (py::isinstance<PyOrtValue>(value)) check(binding_.bind_input(name, value.cast<const PyOrtValue&>().value));
    else check(binding_.bind_input(name, value_from_python(value, vi)));
  }
  void bind_input_ptr(const std::string& name, const std::string& device_type, int device_id, py::handle element_type,
                      const std::vector<int64_t>& shape, uintptr_t buffer_ptr) {
    const Device device = device_arg(device_type, device_id, "input '" + name + "'");
    session_.input(name);
    check(binding_.bind_input(name, Value(borrowed(name, element_type, shape, buffer_ptr, device))));
  }
  void bind_output_device(const std::string& name, const std::string& device_type, int device_id) {
    check(binding_.bind_output(name, device_arg(device_type, device_id, "output '" + name + "'")));
  }
  void bind_output_ptr(const std::string& name, const std::string& device_type, int device_id, py::handle element_type,
                       const std::vector<int64_t>& shape, uintptr_t buffer_ptr) {
    const Device device = device_arg(device_type, device_id, "output '" + name + "'");
    check(binding_.bind_output(name, borrowed(name, element_type, shape, buffer_ptr, device)));
  }
  void bind_ortvalue_output(const std::string& name, const PyOrtValue& v) {
    if (!v.value.is_tensor())
      raise(OrtError::kInvalidArgument, "output '" + name + "': only a tensor OrtValue can receive an output, got " +
                                            v.value.describe());
    check(binding_.bind_output(name, v.value.tensor()));
  }

  void run(py::object run_options) {
    const RunOptions& ro = run_options_of(run_options);
    Status st;
    {
      py::gil_scoped_release release;
      st = session_.session().run(binding_, ro);
    }
    check(st);
  }

  py::list outputs() const {
    py::list out;
    for (const Value& v : binding_.outputs()) out.append(py::cast(PyOrtValue{v}));
    return out;
  }
  py::list copy_outputs_to_cpu() const {
    py::list out;
    for (const Value& v : binding_.outputs()) out.append(value_to_python(v, false));
    return out;
  }
  std::vector<std::string> output_names() const {
    std::vector<std::string> names;
    for (const auto& b : binding_.bound_outputs()) names.push_back(b.name);
    return names;
  }
  // Waits for the default stream of every device an input is bound on, where PyTorch (by
  // default) writes: ORT's IOBinding.synchronize_inputs.
  void synchronize_inputs() const {
    std::vector<Device> devices;
    for (const auto& [name, value] : binding_.inputs())
      if (value.is_tensor() && !value.tensor().device().is_cpu() &&
          std::find(devices.begin(), devices.end(), value.tensor().device()) == devices.end())
        devices.push_back(value.tensor().device());
    for (const Device& d : devices) {
      ExecutionProvider& provider = device_provider(d, "synchronize_inputs");
      Status st;
      {
        py::gil_scoped_release release;
        st = provider.synchronize_default_stream();
      }
      check(st);
    }
  }
  void clear_inputs() { binding_.clear_inputs(); }
  void clear_outputs() { binding_.clear_outputs(); }

 private:
  const PySession& session_;
  IoBinding binding_;
};

}  // namespace

void register_io_binding(py::module_& m) {
  py::class_<PyIoBinding>(m, "SessionIOBinding")
      .def(py::init<const PySession&>(), py::arg("session"), py::keep_alive<1, 2>())
      .def("bind_input", &PyIoBinding::bind_input, py::arg("name"), py::arg("value"))
      .def("bind_input_ptr", &PyIoBinding::bind_input_ptr, py::arg("name"), py::arg("device_type"),
           py::arg("device_id"), py::arg("element_type"), py::arg("shape"), py::arg("buffer_ptr"))
      .def("bind_output_device", &PyIoBinding::bind_output_device, py::arg("name"), py::arg("device_type"),
           py::arg("device_id"))
      .def("bind_output_ptr", &PyIoBinding::bind_output_ptr, py::arg("name"), py::arg("device_type"),
           py::arg("device_id"), py::arg("element_type"), py::arg("shape"), py::arg("buffer_ptr"))
      .def("bind_ortvalue_output", &PyIoBinding::bind_ortvalue_output, py::arg("name"), py::arg("ortvalue"))
      .def("run", &PyIoBinding::run, py::arg("run_options") = py::none())
      .def("get_outputs", &PyIoBinding::outputs)
      .def("copy_outputs_to_cpu", &PyIoBinding::copy_outputs_to_cpu)
      .def("get_output_names", &PyIoBinding::output_names)
      .def("synchronize_inputs", &PyIoBinding::synchronize_inputs)
      .def("clear_binding_inputs", &PyIoBinding::clear_inputs)
      .def("clear_binding_outputs", &PyIoBinding::clear_outputs);
}

}  // namespace onyx::python
