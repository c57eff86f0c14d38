// Values and shape descriptions beyond the basic members: sparseness, copies between tensors,
// symbolic dims set by the caller.
//
// Contracts:
// - IsSparseTensor: 1 for a sparse value (CreateSparseTensorAsOrtValue and its kin,
//   sparse_values.cc), 0 for every other value.
// - CopyTensors: host to host, with `env` required and no stream (onyx hands out no
//   OrtSyncStream). Every pair is checked first (counts, non-null tensors, equal element types
//   and shapes: INVALID_ARGUMENT; device memory on either side: NOT_IMPLEMENTED); then all are
//   copied, or none is.
// - SetSymbolicDimensions: the names of the dims, "" where a dim has none; a later SetDimensions
//   keeps them for the dims it keeps. Dims are not changed (ORT's rule: a named dim is still
//   whatever size SetDimensions gave it).
#include <cstring>

#include "capi/capi_internal.h"
#include "capi/generated/api_declarations.h"

namespace onyx::capi {

OrtStatus* ORT_API_CALL IsSparseTensor(const OrtValue* value, int* out) {
  ONYX_CAPI_REQUIRE(value, "IsSparseTensor");
  ONYX_CAPI_REQUIRE(out, "IsSparseTensor");
  *out = is_sparse(value) ? 1 : 0;
  return nullptr;
}

OrtStatus* ORT_API_CALL CopyTensors(const OrtEnv* env, const OrtValue* const* src_tensors,
                                    OrtValue* const* dst_tensors, OrtSyncStream* stream, size_t num_tensors) {
  return guarded("CopyTensors", [&]() -> OrtStatus* {
    ONYX_CAPI_REQUIRE(env, "CopyTensors");
    if (num_tensors && (!src_tensors || !dst_tensors))
      return make_status(ORT_INVALID_ARGUMENT, "CopyTensors: the source or destination array is null");
    if (stream)
      return make_status(ORT_INVALID_ARGUMENT, "CopyTensors: onyx hands out no OrtSyncStream; pass null to copy now");
    for (size_t i = 0; i < num_tensors; ++i) {
      const std::string at = "CopyTensors: pair " + std::to_string(i);
      const OrtValue* src = src_tensors[i];
      const OrtValue* dst = dst_tensors[i];
      if (!src || !dst) return make_status(ORT_INVALID_ARGUMENT, at + " has a null source or destination");
      if (!src->value.is_tensor() || !dst->value.is_tensor())
        return make_status(ORT_INVALID_ARGUMENT, at + ": " + src->value.describe() + " to " + dst->value.describe() +
                                                     " (both must be tensors)");
      const Tensor& from = src->value.tensor();
      const Tensor& to = dst->value.tensor();
      if (from.dtype() != to.dtype() || from.shape() != to.shape())
        return make_status(ORT_INVALID_ARGUMENT, at + ": " + from.describe() + " to " + to.describe() +
                                                     " (element types and shapes must match)");
      if (!from.device().is_cpu() || !to.device().is_cpu())
        return make_status(ORT_NOT_IMPLEMENTED, at + ": " + from.device().to_string() + " to " + to.device().to_string() +
                                                    " (onyx's CopyTensors copies host tensors only)");
      if (to.nbytes() && !to.raw_data())
        return make_status(ORT_INVALID_ARGUMENT, at + ": the destination has no memory");
    }
    for (size_t i = 0; i < num_tensors; ++i) {
      const Tensor& from = src_tensors[i]->value.tensor();
      Tensor& to = dst_tensors[i]->value.tensor();
      if (from.dtype() == DataType::kString) {
        for (int64_t k = 0; k < from.numel(); ++k) to.data<std::string>()[k] = from.data<std::string>()[k];
      } else if (from.nbytes() && from.raw_data() != to.raw_data()) {
        std::memmove(to.raw_data(), from.raw_data(), from.nbytes());
      }
    }
    return nullptr;
  });
}

OrtStatus* ORT_API_CALL SetSymbolicDimensions(OrtTensorTypeAndShapeInfo* info, const char** dim_params,
                                              size_t dim_params_length) {
  return guarded("SetSymbolicDimensions", [&]() -> OrtStatus* {
    ONYX_CAPI_REQUIRE(info, "SetSymbolicDimensions");
    if (dim_params_length && !dim_params)
      return make_status(ORT_INVALID_ARGUMENT, "SetSymbolicDimensions: dim_params is null");
    std::vector<std::string> names;
    for (size_t i = 0; i < dim_params_length; ++i) {
      if (!dim_params[i])
        return make_status(ORT_INVALID_ARGUMENT, "SetSymbolicDimensions: name " + std::to_string(i) +
                                                     " is null (use \"\" for a dim without one)");
      names.emplace_back(dim_params[i]);
    }
    if (names.size() < info->dims.size()) names.resize(info->dims.size());
    info->symbols = std::move(names);
    return nullptr;
  });
}

}  // namespace onyx::capi
