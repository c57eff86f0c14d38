// ai.onnx.ml Scaler: Y float = (X - offset) * scale per feature (the last axis); offset and
// scale each hold one value for every feature, or one for all. float32 X is computed in
// float32 (as ONNX Runtime does), other types through double.
#include <algorithm>

#include "core/parallel.h"
#include "kernels/kernel.h"

namespace onyx {
namespace {

class ScalerKernel final : public Kernel {
 public:
  Status prepare(const KernelInfo& info) override {
    offset_ = info.attr_floats("offset");
    scale_ = info.attr_floats("scale");
    if (offset_.empty()) offset_ = {0.f};
    if (scale_.empty()) scale_ = {1.f};
    return Status::Ok();
  }

  Status compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    const DataType t = x.dtype();
    if (t != DataType::kFloat && t != DataType::kDouble && t != DataType::kInt64 && t != DataType::kInt32)
      return not_implemented("Scaler: X of type ", data_type_name(t), " (float, double, int64 or int32 only)");
    const int64_t c = x.rank() == 0 ? 1 : x.dim(x.rank() - 1);
    for (const auto* v : {&offset_, &scale_})
      if (v->size() != 1 && int64_t(v->size()) != c)
        return invalid_argument("Scaler: offset and scale need 1 or ", c, " values (X is ", x.describe(), "), got ",
                                offset_.size(), " and ", scale_.size());
    ONYX_ASSIGN_OR_RETURN(Tensor * y, ctx.allocate_output_uninitialized(0, DataType::kFloat, x.shape()));
    if (t == DataType::kFloat && c > 0) {
      std::vector<float> offset(static_cast<size_t>(c)), scale(static_cast<size_t>(c));
      for (int64_t k = 0; k < c; ++k) {
        offset[size_t(k)] = offset_.size() == 1 ? offset_[0] : offset_[size_t(k)];
        scale[size_t(k)] = scale_.size() == 1 ? scale_[0] : scale_[size_t(k)];
      }
      const float* in = x.data<float>();
      float* out = y->data<float>();
      parallel_for(x.numel() / c, std::max<int64_t>(1, 16384 / c), [&](int64_t begin, int64_t end) {
        for (int64_t r = begin; r < end; ++r)
          for (int64_t k = 0; k < c; ++k) out[r * c + k] = (in[r * c + k] - offset[size_t(k)]) * scale[size_t(k)];
      });
      return Status::Ok();
    }
    for (int64_t i = 0; i < x.numel(); ++i) {
      const size_t k = size_t(c ? i % c : 0);
      const float o = offset_.size() == 1 ? offset_[0] : offset_[k];
      const float s = scale_.size() == 1 ? scale_[0] : scale_[k];
      y->data<float>()[i] = float((x.get_double(i) - o) * s);
    }
    return Status::Ok();
  }

 private:
  std::vector<float> offset_, scale_;
};

}  // namespace

ONYX_REGISTER_KERNEL("ai.onnx.ml", "Scaler", 1, kLatestOpset, ScalerKernel);

}  // namespace onyx
