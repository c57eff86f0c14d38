// ai.onnx.ml ZipMap: each row of X float ([C] = one row, or [N, C]) becomes a map from the
// C class labels (classlabels_int64s or classlabels_strings) to that row's values; Z is the
// sequence of the N maps. Each map holds its keys in ascending order (strings bytewise), one
// entry per distinct label, the last column of a repeated label winning: ONNX Runtime's maps
// are ordered maps, and scripts that read `list(d.values())` rely on that order.
#include <algorithm>
#include <numeric>

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
    const size_t labels = ints_.empty() ? strings_.size() : ints_.size();
    auto less = [&](size_t a, size_t b) { return ints_.empty() ? strings_[a] < strings_[b] : ints_[a] < ints_[b]; };
    std::vector<size_t> order(labels);
    std::iota(order.begin(), order.end(), size_t(0));
    std::stable_sort(order.begin(), order.end(), less);
    for (size_t k = 0; k < labels; ++k)  // of equal labels (adjacent, in column order) keep the last
      if (k + 1 == labels || less(order[k], order[k + 1])) columns_.push_back(order[k]);
    return Status::Ok();
  }

  Status compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    if (x.dtype() != DataType::kFloat) return invalid_argument("ZipMap: X must be float, got ", x.describe());
    if (x.rank() != 1 && x.rank() != 2) return invalid_argument("ZipMap: X must be [C] or [N, C], got ", x.describe());
    const int64_t labels = int64_t(ints_.empty() ? strings_.size() : ints_.size());
    const int64_t n = x.rank() == 1 ? 1 : x.dim(0), c = x.dim(x.rank() - 1);
    if (c != labels) return invalid_argument("ZipMap: X has ", c, " columns for ", labels, " class labels");
    const int64_t entries = int64_t(columns_.size());
    Tensor keys;
    if (ints_.empty()) {
      ONYX_ASSIGN_OR_RETURN(keys, Tensor::create(DataType::kString, {entries}));
      for (int64_t k = 0; k < entries; ++k) keys.data<std::string>()[k] = strings_[columns_[size_t(k)]];
    } else {
      ONYX_ASSIGN_OR_RETURN(keys, Tensor::create(DataType::kInt64, {entries}));
      for (int64_t k = 0; k < entries; ++k) keys.data<int64_t>()[k] = ints_[columns_[size_t(k)]];
    }
    std::vector<Value> maps;
    maps.reserve(size_t(n));
    for (int64_t r = 0; r < n; ++r) {
      ONYX_ASSIGN_OR_RETURN(Tensor values, Tensor::create(DataType::kFloat, {entries}));
      for (int64_t k = 0; k < entries; ++k) values.data<float>()[k] = x.data<float>()[r * c + int64_t(columns_[size_t(k)])];
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
  std::vector<size_t> columns_;  // X's column for each map entry, in the entries' (key) order
};

}  // namespace

ONYX_REGISTER_KERNEL("ai.onnx.ml", "ZipMap", 1, kLatestOpset, ZipMapKernel);

}  // namespace onyx
