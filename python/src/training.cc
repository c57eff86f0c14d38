// The native half of onyx.training: the C++ training API (training/checkpoint.h,
// training/module.h, training/artifacts.h) as _CheckpointState, _Module, _Optimizer,
// _LinearLRScheduler and _generate_artifacts; onyx/training/api.py and artifacts.py give them
// onnxruntime's names and call forms.
#include <pybind11/stl.h>

#include "binding.h"
#include "kernels/adam_update.h"
#include "onnx/loader.h"
#include "onnx/writer.h"
#include "training/artifacts.h"
#include "training/module.h"
#include "training/module_graphs.h"
#include "training/training_graph.h"

namespace onyx::python {
namespace {

using training::CheckpointState;
using StatePtr = std::shared_ptr<CheckpointState>;

void release_buffer_ref(void* p) { delete static_cast<std::shared_ptr<Buffer>*>(p); }

// A writable numpy array over the tensor's own memory (kept alive by the array): what a step
// writes into the tensor shows through it, and what is written into it reaches the step.
py::object view_of(const Tensor& t) {
  if (!t.defined()) return py::none();
  std::vector<py::ssize_t> shape(t.shape().begin(), t.shape().end());
  if (t.numel() == 0 || !t.buffer()) return py::array(numpy_dtype(t.dtype()), shape);
  py::capsule base(new std::shared_ptr<Buffer>(t.buffer()), release_buffer_ref);
  return py::array(numpy_dtype(t.dtype()), shape, {}, const_cast<void*>(t.raw_data()), base);
}

training::TrainingParameter& parameter(CheckpointState& s, const std::string& name) {
  training::TrainingParameter* p = s.find(name);
  if (!p) throw py::key_error("the checkpoint has no parameter '" + name + "'");
  return *p;
}

template <typename T> T value_or_raise(Result<T> r, Phase phase) {
  if (!r.ok()) raise_status(r.status(), phase);
  return std::move(*r);
}

void check(const Status& s, Phase phase) {
  if (!s.ok()) raise_status(s, phase);
}

std::vector<Value> feeds_of(const py::sequence& inputs, const std::vector<ir::ValueInfo>& declared) {
  std::vector<Value> values;
  for (size_t i = 0; i < size_t(py::len(inputs)) && i < declared.size(); ++i)
    values.push_back(value_from_python(inputs[i], declared[i]));
  if (size_t(py::len(inputs)) != declared.size()) {
    std::string names;
    for (const ir::ValueInfo& d : declared) names += (names.empty() ? "" : ", ") + d.name;
    throw py::value_error("Module takes " + std::to_string(declared.size()) + " inputs (" + names + "), got " +
                          std::to_string(py::len(inputs)));
  }
  return values;
}

py::list outputs_to_python(const std::vector<Value>& values) {
  py::list out;
  for (const Value& v : values) out.append(value_to_python(v, true));
  return out;
}

void register_state(py::module_& m) {
  py::class_<CheckpointState, StatePtr>(m, "_CheckpointState")
      .def_static("load", [](const std::string& path) {
        Result<CheckpointState> r = training::load_checkpoint(path);
        return std::make_shared<CheckpointState>(value_or_raise(std::move(r), Phase::kLoad));
      })
      .def("save",
           [](const CheckpointState& s, const std::string& path, bool include_optimizer_state) {
             // Serialized with the GIL held (other Python threads may change the state), written
             // without it.
             Result<std::string> bytes = training::serialize_checkpoint(s, include_optimizer_state);
             if (!bytes.ok()) raise_status(bytes.status(), Phase::kRun);
             Status st;
             {
               py::gil_scoped_release release;
               st = training::write_file_atomically(path, *bytes);
             }
             check(st, Phase::kRun);
           })
      .def("names", [](const CheckpointState& s) {
        std::vector<std::string> names;
        for (const auto& p : s.parameters) names.push_back(p.name);
        return names;
      })
      .def("has", [](const CheckpointState& s, const std::string& n) { return s.find(n) != nullptr; })
      .def("data", [](CheckpointState& s, const std::string& n) { return view_of(parameter(s, n).data); })
      .def("grad", [](CheckpointState& s, const std::string& n) { return view_of(parameter(s, n).grad); })
      .def("requires_grad", [](CheckpointState& s, const std::string& n) { return parameter(s, n).requires_grad; })
      .def_property_readonly("nominal", [](const CheckpointState& s) { return s.nominal; })
      .def_property_readonly("step", [](const CheckpointState& s) { return s.optimizer.step; })
      .def_property_readonly("optimizer", [](const CheckpointState& s) { return s.optimizer.kind; })
      .def("property_names", [](const CheckpointState& s) {
        std::vector<std::string> names;
        for (const auto& [k, _] : s.properties) names.push_back(k);
        return names;
      })
      .def("get_property",
           [](const CheckpointState& s, const std::string& k) -> py::object {
             auto it = s.properties.find(k);
             if (it == s.properties.end()) throw py::key_error(k);
             return std::visit([](const auto& v) { return py::object(py::cast(v)); }, it->second);
           })
      .def("set_property",
           [](CheckpointState& s, const std::string& k, py::handle v) {
             // bool is an int to Python; ONNX Runtime keeps it as one too.
             if (py::isinstance<py::int_>(v)) {
               s.properties[k] = v.cast<int64_t>();
             } else if (py::isinstance<py::float_>(v)) {
               s.properties[k] = v.cast<double>();
             } else if (py::isinstance<py::str>(v)) {
               s.properties[k] = v.cast<std::string>();
             } else {
               raise(OrtError::kInvalidArgument, "checkpoint property '" + k + "': only int, float and str values are kept");
             }
           })
      .def("del_property", [](CheckpointState& s, const std::string& k) {
        if (!s.properties.erase(k)) throw py::key_error(k);
      });
}

void register_module(py::module_& m) {
  using training::Module;
  py::class_<Module>(m, "_Module")
      .def(py::init([](const std::string& train, StatePtr state, const std::string& eval, py::object session_options) {
             SessionOptions options;
             if (!session_options.is_none()) options = session_options.cast<const PySessionOptions&>().resolved();
             // With the GIL held: creation sets the shared state's gradients, which other
             // Python threads may be reading.
             return value_or_raise(Module::create(train, std::move(state), eval, options), Phase::kLoad);
           }),
           py::arg("train_model"), py::arg("state"), py::arg("eval_model"), py::arg("session_options"))
      .def("train_step",
           [](Module& mod, const py::sequence& inputs) {
             std::vector<Value> feeds = feeds_of(inputs, mod.input_infos(true));
             Result<std::vector<Value>> r = Status(StatusCode::kInternal, "not run");
             {
               py::gil_scoped_release release;
               r = mod.train_step(feeds);
             }
             return outputs_to_python(value_or_raise(std::move(r), Phase::kRun));
           })
      .def("eval_step",
           [](const Module& mod, const py::sequence& inputs) {
             std::vector<Value> feeds = feeds_of(inputs, mod.input_infos(false));
             Result<std::vector<Value>> r = Status(StatusCode::kInternal, "not run");
             {
               py::gil_scoped_release release;
               r = mod.eval_step(feeds);
             }
             return outputs_to_python(value_or_raise(std::move(r), Phase::kRun));
           })
      .def("lazy_reset_grad", &Module::lazy_reset_grad)
      .def("input_names", [](const Module& mod, bool training) { return mod.input_names(training); })
      .def("output_names", [](const Module& mod) { return mod.output_names(); })
      .def("has_eval_model", &Module::has_eval_model)
      .def("trainable", [](const Module& mod) { return mod.trainable_parameters(); })
      .def("parameters_size", &Module::parameters_size)
      .def("contiguous_parameters",
           [](const Module& mod, bool trainable_only) {
             return value_to_python(Value(value_or_raise(mod.contiguous_parameters(trainable_only), Phase::kRun)), true);
           })
      .def("copy_buffer_to_parameters",
           [](Module& mod, py::handle buffer, bool trainable_only) {
             const Tensor t = tensor_from_python(buffer, DataType::kFloat, "buffer");
             check(mod.copy_buffer_to_parameters(t, trainable_only), Phase::kRun);
           })
      .def("export_model_for_inferencing",
           [](const Module& mod, const std::string& path, const std::vector<std::string>& outputs) {
             check(mod.export_model_for_inferencing(path, outputs), Phase::kRun);
           });
  py::class_<training::Optimizer>(m, "_Optimizer")
      .def(py::init([](const std::string& path, Module& mod) {
             return value_or_raise(training::Optimizer::create(path, mod), Phase::kLoad);
           }),
           py::keep_alive<1, 3>())
      .def("step",
           [](training::Optimizer& o) {
             Status st;
             {
               py::gil_scoped_release release;
               st = o.step();
             }
             check(st, Phase::kRun);
           })
      .def_property("learning_rate", &training::Optimizer::learning_rate, &training::Optimizer::set_learning_rate);
  py::class_<training::LinearLRScheduler>(m, "_LinearLRScheduler")
      .def(py::init([](training::Optimizer& o, int64_t warmup, int64_t total, double lr) {
             return value_or_raise(training::LinearLRScheduler::create(o, warmup, total, lr), Phase::kRun);
           }),
           py::keep_alive<1, 2>())
      .def("step", &training::LinearLRScheduler::step);
}

// A float32, C-contiguous numpy array of `count` elements (any shape) for FusedAdam, writable
// unless `read_only`; its pointer.
float* adam_buffer(const py::array& a, int64_t count, bool read_only, const char* what) {
  if (a.dtype().kind() != 'f' || a.itemsize() != 4 || !(a.flags() & py::array::c_style) ||
      (!read_only && !a.writeable()) || int64_t(a.size()) != count)
    throw py::value_error(std::string("FusedAdam: ") + what + " must be a contiguous float32 array of the parameter's " +
                          std::to_string(count) + " elements" + (read_only ? "" : ", writable"));
  return static_cast<float*>(const_cast<void*>(a.data()));
}

}  // namespace

void register_training(py::module_& m) {
  m.def(
      "_fused_adam_step",
      [](std::vector<py::array> params, std::vector<py::array> grads, std::vector<py::array> exp_avgs,
         std::vector<py::array> exp_avg_sqs, std::vector<int64_t> steps, double lr, double beta1, double beta2,
         double eps, double weight_decay, bool bias_correction, int mode) {
        const size_t n = params.size();
        if (grads.size() != n || exp_avgs.size() != n || exp_avg_sqs.size() != n || steps.size() != n)
          throw py::value_error("FusedAdam: params, grads, exp_avgs, exp_avg_sqs and steps differ in length");
        if (mode < 0 || mode > 2) throw py::value_error("FusedAdam: adam_w_mode must be 0, 1 or 2");
        AdamHyper h{lr, beta1, beta2, eps, weight_decay, bias_correction, AdamMode(mode)};
        std::vector<AdamTensor> tensors(n);
        for (size_t i = 0; i < n; ++i) {
          const int64_t count = int64_t(params[i].size());
          if (steps[i] < 1) throw py::value_error("FusedAdam: a step count below 1");
          tensors[i] = AdamTensor{adam_buffer(params[i], count, false, "a parameter"),
                                  adam_buffer(grads[i], count, true, "a gradient"),
                                  adam_buffer(exp_avgs[i], count, false, "exp_avg"),
                                  adam_buffer(exp_avg_sqs[i], count, false, "exp_avg_sq"), count, steps[i]};
        }
        py::gil_scoped_release unlocked;
        fused_adam_step(h, tensors);
      },
      py::arg("params"), py::arg("grads"), py::arg("exp_avgs"), py::arg("exp_avg_sqs"), py::arg("steps"),
      py::arg("lr"), py::arg("beta1"), py::arg("beta2"), py::arg("eps"), py::arg("weight_decay"),
      py::arg("bias_correction"), py::arg("mode"),
      "One Adam step of every parameter in place (kernels/adam_update.h), for onyx.training.optim.FusedAdam.");
  register_state(m);
  register_module(m);
  m.def(
      "_generate_artifacts",
      [](py::bytes model, std::optional<std::vector<std::string>> requires_grad, std::vector<std::string> frozen,
         const std::string& loss, const std::string& optimizer, std::string directory, std::string prefix,
         std::vector<std::string> additional_outputs, std::string loss_input, std::map<std::string, double> config,
         bool nominal) {
        training::ArtifactsSpec spec;
        spec.loss = value_or_raise(training::loss_kind_named(loss), Phase::kLoad);
        if (!optimizer.empty()) spec.optimizer = value_or_raise(training::optimizer_kind_named(optimizer), Phase::kLoad);
        spec.requires_grad = std::move(requires_grad);
        spec.frozen = std::move(frozen);
        spec.directory = std::move(directory);
        spec.prefix = std::move(prefix);
        spec.additional_outputs = std::move(additional_outputs);
        spec.loss_input = std::move(loss_input);
        spec.optimizer_config = std::move(config);
        spec.nominal_checkpoint = nominal;
        const std::string bytes = model;
        Result<std::vector<std::string>> written = Status(StatusCode::kInternal, "not made");
        {
          py::gil_scoped_release release;
          auto forward = onnx_format::load_model_bytes(bytes.data(), bytes.size(), "");
          written = forward.ok() ? training::generate_artifacts(*forward, spec) : Result<std::vector<std::string>>(forward.take_status());
        }
        return value_or_raise(std::move(written), Phase::kLoad);
      },
      py::arg("model"), py::arg("requires_grad"), py::arg("frozen"), py::arg("loss"), py::arg("optimizer"),
      py::arg("directory"), py::arg("prefix"), py::arg("additional_outputs"), py::arg("loss_input"),
      py::arg("optimizer_config"), py::arg("nominal_checkpoint"),
      "Writes the training artifacts (training/artifacts.h); returns the paths written.");
  m.def(
      "_make_training_models",
      [](py::bytes model, std::vector<std::string> requires_grad, std::vector<std::string> frozen, std::string loss,
         std::vector<std::string> additional_outputs) {
        const std::string bytes = model;
        Result<training::TrainingModels> made = Status(StatusCode::kInternal, "not built");
        Result<std::string> train = Status(StatusCode::kInternal, "not built"), eval = train;
        {
          py::gil_scoped_release release;
          auto forward = onnx_format::load_model_bytes(bytes.data(), bytes.size(), "");
          if (!forward.ok()) {
            made = forward.take_status();
          } else {
            made = training::make_training_models(
                *forward, training::TrainingSpec{std::move(requires_grad), std::move(frozen), std::move(loss),
                                                 std::move(additional_outputs)});
          }
          if (made.ok()) {
            train = onnx_format::serialize_model(made->training);
            eval = onnx_format::serialize_model(made->eval);
          }
        }
        if (!made.ok()) raise_status(made.status(), Phase::kLoad);
        if (!train.ok()) raise_status(train.status(), Phase::kLoad);
        if (!eval.ok()) raise_status(eval.status(), Phase::kLoad);
        return py::make_tuple(py::bytes(*train), py::bytes(*eval), made->parameters);
      },
      py::arg("model"), py::arg("requires_grad"), py::arg("frozen"), py::arg("loss"),
      py::arg("additional_outputs") = std::vector<std::string>{},
      "(training model bytes, eval model bytes, parameter names) from a forward model ending in a scalar loss.");
  m.def(
      "_make_module_graphs",
      [](py::bytes model, std::vector<std::string> inputs_requiring_grad, std::vector<std::string> trainable,
         std::vector<std::string> frozen, py::dict buffers) {
        std::map<std::string, Tensor> buffer_values;
        for (auto [name, value] : buffers) {
          const std::string key = py::str(name);
          buffer_values.emplace(key, tensor_from_numpy(value, key));
        }
        const std::string bytes = model;
        Result<training::ModuleGraphs> made = Status(StatusCode::kInternal, "not built");
        Result<std::string> forward = Status(StatusCode::kInternal, "not built"), backward = forward;
        {
          py::gil_scoped_release release;
          auto exported = onnx_format::load_model_bytes(bytes.data(), bytes.size(), "");
          if (!exported.ok()) {
            made = exported.take_status();
          } else {
            made = training::make_module_graphs(
                *exported, training::ModuleGraphSpec{std::move(inputs_requiring_grad), std::move(trainable),
                                                     std::move(frozen), std::move(buffer_values)});
          }
          if (made.ok()) {
            forward = onnx_format::serialize_model(made->forward);
            backward = onnx_format::serialize_model(made->backward);
          }
        }
        if (!made.ok()) raise_status(made.status(), Phase::kLoad);
        if (!forward.ok()) raise_status(forward.status(), Phase::kLoad);
        if (!backward.ok()) raise_status(backward.status(), Phase::kLoad);
        py::dict out;
        out["forward"] = py::bytes(*forward);
        out["backward"] = py::bytes(*backward);
        out["forward_inputs"] = made->forward_inputs;
        out["inputs_requiring_grad"] = made->inputs_requiring_grad;
        out["trainable"] = made->trainable;
        out["frozen"] = made->frozen;
        out["running_statistics"] = made->running_statistics;
        out["outputs"] = made->outputs;
        out["stashed"] = made->stashed;
        out["backward_forward_inputs"] = made->backward_forward_inputs;
        out["output_grads"] = made->output_grads;
        out["gradients"] = made->gradients;
        return out;
      },
      py::arg("model"), py::arg("inputs_requiring_grad"), py::arg("trainable"), py::arg("frozen"),
      py::arg("buffers") = py::dict(),
      "ORTModule's forward and backward graphs (training/module_graphs.h) and their interface; `buffers` "
      "(name -> value) become initializers where the export made them graph inputs.");
}

}  // namespace onyx::python
