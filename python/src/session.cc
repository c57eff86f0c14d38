// The C-level InferenceSession (onyx.capi.onnxruntime_pybind11_state.InferenceSession):
// loads a model, checks feeds with ORT's messages, runs with the GIL released.
#include <pybind11/stl.h>

#include <unordered_map>

#include "binding.h"

namespace onyx::python {
namespace {

class PySession {
 public:
  // `model` is a path (str) when `is_path`, else the serialized ModelProto (bytes).
  PySession(const PySessionOptions& options, py::handle model, bool is_path) : options_(options) {
    const SessionOptions core = options.resolved();
    Result<std::unique_ptr<Session>> loaded = Status(StatusCode::kInternal, "not loaded");
    if (is_path) {
      const std::string path = model.cast<std::string>();
      py::gil_scoped_release release;
      loaded = Session::load_file(path, core);
    } else {
      char* data = nullptr;
      Py_ssize_t size = 0;
      if (!PyBytes_Check(model.ptr()) || PyBytes_AsStringAndSize(model.ptr(), &data, &size) != 0)
        throw py::type_error("the model must be a path or bytes");
      py::gil_scoped_release release;  // the caller's bytes object stays referenced meanwhile
      loaded = Session::load_bytes(data, size_t(size), core);
    }
    if (!loaded.ok()) raise_status(loaded.status(), Phase::kLoad);
    session_ = std::move(loaded).value();
    const auto& inputs = session_->inputs();
    for (size_t i = 0; i < inputs.size(); ++i) input_index_[inputs[i].name] = i;
    const auto& outputs = session_->outputs();
    for (size_t i = 0; i < outputs.size(); ++i) output_index_[outputs[i].name] = i;
  }

  py::list run(py::object output_names, py::dict input_feed, py::object /*run_options*/) const {
    const auto& inputs = session_->inputs();
    std::vector<std::pair<std::string, Value>> feeds;
    feeds.reserve(input_feed.size());
    std::vector<char> fed(inputs.size(), 0);
    for (auto [key, value] : input_feed) {
      std::string name = key.cast<std::string>();
      auto it = input_index_.find(name);
      if (it == input_index_.end())
        raise(OrtError::kInvalidArgument, "Invalid input name: " + name + " (inputs: " + names(false) + ")");
      fed[it->second] = 1;
      feeds.emplace_back(std::move(name), value_from_python(value, inputs[it->second]));
    }
    std::vector<std::string> missing;
    for (size_t i = 0; i < inputs.size(); ++i)
      if (!fed[i] && inputs[i].type.kind != ir::TypeInfo::Kind::kOptional &&
          !session_->input_has_default(inputs[i].name))
        missing.push_back(inputs[i].name);
    if (!missing.empty()) {
      // ORT raises ValueError here (from its Python layer), with this message.
      std::string given;
      for (const auto& [name, value] : feeds) given += (given.empty() ? "'" : ", '") + name + "'";
      std::string need;
      for (const auto& name : missing) need += (need.empty() ? "'" : ", '") + name + "'";
      throw py::value_error("Required inputs ([" + need + "]) are missing from input feed ([" + given + "]).");
    }
    std::vector<std::string> wanted;
    if (!output_names.is_none()) {
      for (py::handle h : output_names) {
        std::string name = h.cast<std::string>();
        if (!output_index_.count(name))
          raise(OrtError::kInvalidArgument, "Invalid output name: " + name + " (outputs: " + names(true) + ")");
        wanted.push_back(std::move(name));
      }
    }
    Result<std::vector<Value>> result = [&] {
      py::gil_scoped_release release;
      return session_->run(feeds, wanted);
    }();
    if (!result.ok()) raise_status(result.status(), Phase::kRun);
    const std::vector<Value>& values = result.value();
    py::list out(values.size());
    // `feeds` is still alive here, so an output that passes an input through shares its
    // buffer with the feed and is copied, never handed back as a view of the caller's array.
    for (size_t i = 0; i < values.size(); ++i) out[i] = value_to_python(values[i], true);
    return out;
  }

  // (name, type string, shape) per graph input the caller must feed (`overridable`: those
  // with an initializer default instead), per output.
  py::list input_args(bool overridable) const {
    py::list out;
    for (const auto& vi : session_->inputs())
      if (session_->input_has_default(vi.name) == overridable) out.append(arg(vi));
    return out;
  }
  py::list output_args() const {
    py::list out;
    for (const auto& vi : session_->outputs()) out.append(arg(vi));
    return out;
  }

  py::dict modelmeta() const {
    const ir::Model& m = session_->model();
    py::dict d;
    d["producer_name"] = m.producer_name;
    d["graph_name"] = m.graph.name;
    d["domain"] = m.domain;
    d["description"] = m.doc;
    d["graph_description"] = "";
    d["version"] = m.model_version;
    d["custom_metadata_map"] = m.metadata;
    return d;
  }

  const PySessionOptions& options() const { return options_; }

  std::string end_profiling() {
    Result<std::string> file = [&] {
      py::gil_scoped_release release;  // writes the file
      return session_->end_profiling();
    }();
    if (!file.ok()) raise_status(file.status(), Phase::kRun);
    return file.value();
  }

 private:
  static py::tuple arg(const ir::ValueInfo& vi) {
    return py::make_tuple(vi.name, type_string(vi.type), shape_list(vi.type));
  }

  std::string names(bool outputs) const {
    std::string s;
    for (const auto& vi : outputs ? session_->outputs() : session_->inputs())
      if (outputs || !session_->input_has_default(vi.name)) s += (s.empty() ? "" : ", ") + vi.name;
    return s;
  }

  PySessionOptions options_;
  std::unique_ptr<Session> session_;
  std::unordered_map<std::string, size_t> input_index_, output_index_;
};

}  // namespace

void register_session(py::module_& m) {
  py::class_<PySession>(m, "InferenceSession")
      .def(py::init<const PySessionOptions&, py::handle, bool>(), py::arg("sess_options"), py::arg("model"),
           py::arg("is_path"))
      .def("run", &PySession::run, py::arg("output_names"), py::arg("input_feed"), py::arg("run_options") = py::none())
      .def_property_readonly("inputs_meta", [](const PySession& s) { return s.input_args(false); })
      .def_property_readonly("overridable_initializers", [](const PySession& s) { return s.input_args(true); })
      .def_property_readonly("outputs_meta", &PySession::output_args)
      .def_property_readonly("model_meta", &PySession::modelmeta)
      .def("end_profiling", &PySession::end_profiling)
      .def_property_readonly("session_options", [](const PySession& s) { return PySessionOptions(s.options()); });
}

}  // namespace onyx::python
