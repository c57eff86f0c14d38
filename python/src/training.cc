// The native half of onyx.training: the training and eval models built from a forward model
// that ends in a loss (src/training/training_graph.h), for onyx.training.artifacts.
#include <pybind11/stl.h>

#include "binding.h"
#include "onnx/loader.h"
#include "onnx/writer.h"
#include "training/training_graph.h"

namespace onyx::python {

void register_training(py::module_& m) {
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
}

}  // namespace onyx::python
