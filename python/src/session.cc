// The C-level InferenceSession (onyx.capi.onnxruntime_pybind11_state.InferenceSession):
// loads a model, checks feeds with ORT's messages, runs with the GIL released.
#include <pybind11/stl.h>

#include <unordered_map>

#include "binding.h"
#include "providers/execution_provider.h"

namespace onyx::python {

const RunOptions& run_options_of(py::handle obj) {
  static const RunOptions kDefault;
  if (obj.is_none()) return kDefault;
  if (!py::isinstance<PyRunOptions>(obj))
    throw py::type_error("run_options must be an onyx.RunOptions, got " +
                         py::str(py::type::of(obj).attr("__name__")).cast<std::string>());
  return obj.cast<const PyRunOptions&>().core;
}

PySession::PySession(const PySessionOptions& options, py::handle model, bool is_path,
                     const std::vector<std::pair<std::string, std::map<std::string, std::string>>>& providers,
                     const std::vector<std::string>& disabled_optimizers)
    : options_(options) {
  SessionOptions core = options.resolved();
  core.disabled_optimizers.insert(disabled_optimizers.begin(), disabled_optimizers.end());
  for (const auto& [name, provider_options] : providers) core.append_provider(name, provider_options);
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
  flush_log_messages();
  if (!loaded.ok()) raise_status(loaded.status(), Phase::kLoad);
  session_ = std::move(loaded).value();
  const auto& inputs = session_->inputs();
  for (size_t i = 0; i < inputs.size(); ++i) input_index_[inputs[i].name] = i;
  const auto& outputs = session_->outputs();
  for (size_t i = 0; i < outputs.size(); ++i) output_index_[outputs[i].name] = i;
}

const ir::ValueInfo& PySession::input(const std::string& name) const {
  auto it = input_index_.find(name);
  if (it == input_index_.end())
    raise(OrtError::kInvalidArgument, "Invalid input name: " + name + " (inputs: " + names(false) + ")");
  return session_->inputs()[it->second];
}

std::vector<std::string> PySession::output_names(py::object names_obj) const {
  std::vector<std::string> wanted;
  if (names_obj.is_none()) return wanted;
  for (py::handle h : names_obj) {
    std::string name = h.cast<std::string>();
    if (!output_index_.count(name))
      raise(OrtError::kInvalidArgument, "Invalid output name: " + name + " (outputs: " + names(true) + ")");
    wanted.push_back(std::move(name));
  }
  return wanted;
}

namespace {

// Raises ORT's ValueError when a required input is not among the feed's names. Called before
// any feed is converted, as ORT's Python layer checks this first: a feed under a name the model
// lacks, with the model's input missing, is this ValueError, not the unknown name's error.
void check_required(const Session& session, const py::dict& input_feed) {
  std::vector<std::string> fed_names;
  for (auto item : input_feed) fed_names.push_back(py::str(item.first).cast<std::string>());
  std::vector<std::string> missing;
  for (const auto& vi : session.inputs()) {
    if (vi.type.kind == ir::TypeInfo::Kind::kOptional || session.input_has_default(vi.name)) continue;
    bool fed = false;
    for (const auto& f : fed_names) fed = fed || f == vi.name;
    if (!fed) missing.push_back(vi.name);
  }
  if (missing.empty()) return;
  // ORT raises ValueError here (from its Python layer), with this message.
  std::string given;
  for (const auto& name : fed_names) given += (given.empty() ? "'" : ", '") + name + "'";
  std::string need;
  for (const auto& name : missing) need += (need.empty() ? "'" : ", '") + name + "'";
  throw py::value_error("Required inputs ([" + need + "]) are missing from input feed ([" + given + "]).");
}

}  // namespace

std::vector<Value> PySession::run_checked(const std::vector<std::pair<std::string, Value>>& feeds,
                                          py::object output_names_obj, py::object run_options) const {
  const RunOptions& ro = run_options_of(run_options);
  const std::vector<std::string> wanted = output_names(output_names_obj);
  Result<std::vector<Value>> result = [&] {
    py::gil_scoped_release release;
    return session_->run(feeds, wanted, ro);
  }();
  if (!result.ok()) raise_status(result.status(), Phase::kRun);
  return std::move(result).value();
}

py::list PySession::run(py::object output_names_obj, py::dict input_feed, py::object run_options) const {
  check_required(*session_, input_feed);
  std::vector<std::pair<std::string, Value>> feeds;
  feeds.reserve(input_feed.size());
  for (auto [key, value] : input_feed) {
    std::string name = key.cast<std::string>();
    const ir::ValueInfo& vi = input(name);
    feeds.emplace_back(std::move(name), value_from_python(value, vi));
  }
  const std::vector<Value> values = run_checked(feeds, output_names_obj, run_options);
  flush_log_messages();
  py::list out(values.size());
  // `feeds` is still alive here, so an output that passes an input through shares its
  // buffer with the feed and is copied, never handed back as a view of the caller's array.
  for (size_t i = 0; i < values.size(); ++i) out[i] = value_to_python(values[i], true);
  return out;
}

PyOrtValueVector PySession::run_with_ort_values(py::dict input_feed, py::object output_names_obj,
                                                py::object run_options) const {
  check_required(*session_, input_feed);
  std::vector<std::pair<std::string, Value>> feeds;
  feeds.reserve(input_feed.size());
  for (auto [key, value] : input_feed) {
    std::string name = key.cast<std::string>();
    input(name);
    if (!py::isinstance<PyOrtValue>(value))
      throw py::type_error("input '" + name + "': run_with_ort_values takes OrtValue feeds, got " +
                           py::str(py::type::of(value).attr("__name__")).cast<std::string>());
    const PyOrtValue& ov = value.cast<const PyOrtValue&>();
    if (ov.sparse)
      raise(OrtError::kNotImplemented, "input '" + name + "': a sparse tensor feed; onyx's graphs take dense tensors "
                                       "(SparseTensor.to_dense() gives one)");
    feeds.emplace_back(std::move(name), ov.value);
  }
  PyOrtValueVector out;
  for (Value& v : run_checked(feeds, output_names_obj, run_options)) out.values.push_back(PyOrtValue{std::move(v)});
  return out;
}

py::list PySession::input_args(bool overridable) const {
  py::list out;
  for (const auto& vi : session_->inputs())
    if (session_->input_has_default(vi.name) == overridable)
      out.append(py::make_tuple(vi.name, type_string(vi.type), shape_list(vi.type)));
  return out;
}

py::list PySession::output_args() const {
  py::list out;
  for (const auto& vi : session_->outputs()) out.append(py::make_tuple(vi.name, type_string(vi.type), shape_list(vi.type)));
  return out;
}

py::dict PySession::modelmeta() const {
  const ir::Model& m = session_->model();
  py::dict d;
  d["producer_name"] = m.producer_name;
  d["graph_name"] = m.graph.name;
  d["domain"] = m.domain;
  d["description"] = m.doc;
  d["graph_description"] = m.graph.doc;
  d["version"] = m.model_version;
  d["custom_metadata_map"] = m.metadata;
  return d;
}

std::string PySession::end_profiling() {
  Result<std::string> file = [&] {
    py::gil_scoped_release release;  // writes the file
    return session_->end_profiling();
  }();
  if (!file.ok()) raise_status(file.status(), Phase::kRun);
  return file.value();
}

std::string PySession::names(bool outputs) const {
  std::string s;
  for (const auto& vi : outputs ? session_->outputs() : session_->inputs())
    if (outputs || !session_->input_has_default(vi.name)) s += (s.empty() ? "" : ", ") + vi.name;
  return s;
}

void register_session(py::module_& m) {
  py::class_<PySession>(m, "InferenceSession")
      .def(py::init<const PySessionOptions&, py::handle, bool,
                    const std::vector<std::pair<std::string, std::map<std::string, std::string>>>&,
                    const std::vector<std::string>&>(),
           py::arg("sess_options"), py::arg("model"), py::arg("is_path"),
           py::arg("providers") = std::vector<std::pair<std::string, std::map<std::string, std::string>>>{},
           py::arg("disabled_optimizers") = std::vector<std::string>{})
      .def_property_readonly("providers",
                             [](const PySession& s) {
                               std::vector<std::string> out;
                               for (const std::string& n : s.session().provider_names())
                                 out.push_back(ProviderRegistry::global().ort_name(n));
                               return out;
                             })
      .def("run", &PySession::run, py::arg("output_names"), py::arg("input_feed"), py::arg("run_options") = py::none())
      // ONNX Runtime's C-level order: feeds, then output names.
      .def("run_with_ort_values", &PySession::run_with_ort_values, py::arg("input_dict_ort_values"),
           py::arg("output_names"), py::arg("run_options") = py::none())
      .def_property_readonly("inputs_meta", [](const PySession& s) { return s.input_args(false); })
      .def_property_readonly("overridable_initializers", [](const PySession& s) { return s.input_args(true); })
      .def_property_readonly("outputs_meta", &PySession::output_args)
      .def_property_readonly("model_meta", &PySession::modelmeta)
      .def(
          "output_types_for",
          [](const PySession& s, const std::map<std::string, std::vector<int64_t>>& shapes) {
            std::vector<std::pair<std::string, Shape>> in;
            for (const auto& [name, dims] : shapes) in.emplace_back(name, Shape(dims.begin(), dims.end()));
            auto types = s.session().output_types_for(in);
            if (!types.ok()) raise_status(types.status(), Phase::kRun);
            py::dict out;
            for (size_t i = 0; i < types->size(); ++i) out[py::str(s.session().outputs()[i].name)] = shape_list((*types)[i]);
            return out;
          },
          py::arg("input_shapes"))
      .def_property_readonly(
          "placement",
          [](const PySession& s) {
            py::list out;
            for (const NodePlacement& p : s.session().placement())
              out.append(py::make_tuple(p.node, p.op, ProviderRegistry::global().ort_name(p.provider), p.reason,
                                        p.is_copy));
            return out;
          },
          "Where each node of the main graph runs: (label, op, provider, why not an earlier one, is a copy).")
      .def("end_profiling", &PySession::end_profiling)
      .def_property_readonly("session_options", [](const PySession& s) { return PySessionOptions(s.options()); });
}

}  // namespace onyx::python
