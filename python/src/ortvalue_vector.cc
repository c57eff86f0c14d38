// OrtValueVector (what ONNX Runtime's C-level run_with_ort_values returns) and the DLPack
// helper is_dlpack_uint8_tensor.
#include <pybind11/stl.h>

#include "binding.h"
#include "dlpack.h"

namespace onyx::python {

void register_ortvalue_vector(py::module_& m) {
  using Vec = PyOrtValueVector;
  py::class_<Vec>(m, "OrtValueVector", "A list of OrtValues, as run_with_ort_values returns them.")
      .def(py::init<>())
      .def("reserve", [](Vec& v, size_t n) { v.values.reserve(n); }, py::arg("n"))
      .def("push_back", [](Vec& v, const PyOrtValue& x) { v.values.push_back(x); }, py::arg("ortvalue"))
      .def("__len__", [](const Vec& v) { return v.values.size(); })
      .def(
          "__getitem__",
          [](const Vec& v, int64_t i) {
            const int64_t n = int64_t(v.values.size());
            if (i < 0) i += n;
            if (i < 0 || i >= n) throw py::index_error("OrtValueVector index out of range");
            return v.values[size_t(i)];
          },
          py::arg("index"))
      .def(
          "__iter__", [](const Vec& v) { return py::make_iterator(v.values.begin(), v.values.end()); },
          py::keep_alive<0, 1>())
      .def(
          "element_type_at",
          [](const Vec& v, size_t i) {
            if (i >= v.values.size()) throw py::index_error("OrtValueVector index out of range");
            return py::cast(v.values[i]).attr("element_type")();
          },
          py::arg("index"), "The ONNX element type number of the value at `index`.")
      .def(
          "dlpack_at",
          [](const Vec& v, size_t i) {
            if (i >= v.values.size()) throw py::index_error("OrtValueVector index out of range");
            return py::cast(v.values[i]).attr("to_dlpack")();
          },
          py::arg("index"), "A DLPack capsule over the tensor at `index`, without a copy.")
      .def("to_dlpacks", [](const Vec& v) {
        py::list out;
        for (const PyOrtValue& x : v.values) out.append(py::cast(x).attr("to_dlpack")());
        return out;
      });

  m.def(
      "is_dlpack_uint8_tensor",
      [](py::capsule capsule) {
        const char* name = PyCapsule_GetName(capsule.ptr());
        if (!name || (std::string(name) != dlpack::kCapsuleName && std::string(name) != dlpack::kUsedCapsuleName))
          throw py::type_error("is_dlpack_uint8_tensor takes a DLPack capsule");
        auto* t = static_cast<dlpack::ManagedTensor*>(PyCapsule_GetPointer(capsule.ptr(), name));
        if (!t) throw py::error_already_set();
        return t->dl_tensor.dtype.code == dlpack::kUInt && t->dl_tensor.dtype.bits == 8;
      },
      py::arg("capsule"), "Whether the DLPack capsule holds uint8 elements (how a bool tensor travels).");
}

}  // namespace onyx::python
