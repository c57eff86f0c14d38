#include "kernels/cuda/cuda_kernel.h"

namespace onyx {

Status CudaKernel::prepare(const KernelInfo& info) {
  provider_ = dynamic_cast<const CudaProvider*>(info.provider());
  if (!provider_)
    return error(StatusCode::kInternal, "CUDA kernel for ", info.node().label(), " was not placed on the CUDA provider");
  return prepare_cuda(info);
}

Status CudaKernel::check_launch(const char* what) {
  const cudaError_t e = cudaGetLastError();
  if (e == cudaSuccess) return Status::Ok();
  return runtime_error("CUDA kernel ", what, " failed to launch: ", cudaGetErrorName(e), " (", cudaGetErrorString(e), ")");
}

std::string refuse_unless(const KernelQuery& q, std::initializer_list<DataType> allowed,
                          std::initializer_list<int> inputs) {
  auto check = [&](size_t i) -> std::string {
    if (i >= q.input_types.size() || q.input_types[i] == DataType::kUndefined) return "";
    for (DataType t : allowed)
      if (q.input_types[i] == t) return "";
    std::string names;
    for (DataType t : allowed) names += (names.empty() ? "" : " or ") + std::string(data_type_name(t));
    return "takes " + names + ", not " + data_type_name(q.input_types[i]) + " (input " + std::to_string(i) + ")";
  };
  if (inputs.size() == 0) {
    for (size_t i = 0; i < q.input_types.size(); ++i)
      if (std::string why = check(i); !why.empty()) return why;
    return "";
  }
  for (int i : inputs)
    if (std::string why = check(size_t(i)); !why.empty()) return why;
  return "";
}

Status expect_float_or_half(const Tensor& t, const char* op, int input) {
  if (t.dtype() == DataType::kFloat || t.dtype() == DataType::kFloat16) return Status::Ok();
  return not_implemented("CUDA ", op, " takes float32 or float16, not ", data_type_name(t.dtype()), " (input ", input, ")");
}

}  // namespace onyx
