// ai.onnx.ml ZipMap: each row of X float ([C] = one row, or [N, C]) becomes a map from the
// C class labels (classlabels_int64s or classlabels_strings) to that row's values; Z is the
// sequence of the N maps.
#include "kernels/kernel.h"

namespace onyx {
namespace {

class ZipMapKernel final : public Kernel {
 public:
  Status prepare(const KernelInfo& info) override {
    ints_ = info.attr_ints("classlabels_int64s");
    strings_ = info.attr_strings("classlabels_strings");
    if (ints_.empty() == strings_.empty())
      return invalid_model("ZipMap needs exactly one of classlabels_int64s and classlabels_strings");
    return Status::Ok();
  }

  Status compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    if (x.dtype() != DataType::kFloat) return invalid_argument("ZipMap: X must be float, got ", x.describe());
    if (x.rank() != 1 && x.rank() != 2) return invalid_argument("ZipMap: X must be [C] or [N, C], got ", x.describe());
    const int64_t labels = int64_t(ints_.empty() ? strings_.size() : ints_.size());
    const int64_t n = x.rank() == 1 ? 1 : x.dim(0), c = x.dim(x.rank() - 1);
    if (c != labels) return invalid_argument("ZipMap: X has ", c, " columns for ", labels, " class labels");
    Tensor keys;
    if (ints_.empty()) {
      ONYX_ASSIGN_OR_RETURN(keys, Tensor::create(DataType::kString, {c}));
      for (int64_t k = 0; k < c; ++k) keys.data<std::string>()[k] = strings_[size_t(k)];
    } else {
      ONYX_ASSIGN_OR_RETURN(keys, Tensor::create(DataType::kInt64, {c}));
      for (int64_t k = 0; k < c; ++k) keys.data<int64_t>()[k] = ints_[size_t(k)];
    }
    std::vector<Value> maps;
    maps.reserve(size_t(n));
    for (int64_t r = 0; r < n; ++r) {
      ONYX_ASSIGN_OR_RETURN(Tensor values, Tensor::create(DataType::kFloat, {c}));
      for (int64_t k = 0; k < c; ++k) values.data<float>()[k] = x.data<float>()[r * c + k];
      ONYX_ASSIGN_OR_RETURN(Value m, Value::map(keys, std::move(values)));  // the keys are shared
      maps.push_back(std::move(m));
    }
    ONYX_ASSIGN_OR_RETURN(Value z, Value::map_sequence(std::move(maps), keys.dtype(), DataType::kFloat));
    ctx.set_output(0, std::move(z));
    return Status::Ok();
  }

 private:
  std::vector<int64_t> ints_;
  std::vector<std::string> strings_;
};

}  // namespace

ONYX_REGISTER_KERNEL("ai.onnx.ml", "ZipMap", 1, kLatestOpset, ZipMapKernel);

}  // namespace onyx
