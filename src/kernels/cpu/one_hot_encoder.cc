// ai.onnx.ml OneHotEncoder: Y float [*X.shape, K] with a 1 at the position of each element's
// category among the K of cats_int64s or cats_strings (numeric X is matched against
// cats_int64s, truncated to int64; string X against cats_strings). An element in no category
// gives an all-zero row when zeros = 1 (the default), INVALID_ARGUMENT when zeros = 0.
#include <cmath>
#include <unordered_map>

#include "kernels/kernel.h"

namespace onyx {
namespace {

class OneHotEncoderKernel final : public Kernel {
 public:
  Status prepare(const KernelInfo& info) override {
    const std::vector<int64_t> ints = info.attr_ints("cats_int64s");
    const std::vector<std::string> strings = info.attr_strings("cats_strings");
    if (ints.empty() == strings.empty())
      return invalid_model("OneHotEncoder needs exactly one of cats_int64s and cats_strings");
    for (size_t i = 0; i < ints.size(); ++i) int_index_.emplace(ints[i], int64_t(i));
    for (size_t i = 0; i < strings.size(); ++i) string_index_.emplace(strings[i], int64_t(i));
    count_ = int64_t(ints.size() + strings.size());
    zeros_ = info.attr_int("zeros", 1) != 0;
    return Status::Ok();
  }

  Status compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    const DataType t = x.dtype();
    const bool strings = t == DataType::kString;
    if (!strings && t != DataType::kInt64 && t != DataType::kInt32 && t != DataType::kFloat && t != DataType::kDouble)
      return not_implemented("OneHotEncoder: X of type ", data_type_name(t));
    if (strings ? string_index_.empty() : int_index_.empty())
      return invalid_argument("OneHotEncoder: ", x.describe(), " input needs ", strings ? "cats_strings" : "cats_int64s");
    Shape shape = x.shape();
    shape.push_back(count_);
    ONYX_ASSIGN_OR_RETURN(Tensor * y, ctx.allocate_output(0, DataType::kFloat, shape));
    for (int64_t i = 0; i < x.numel(); ++i) {
      int64_t at = -1;
      if (strings) {
        auto it = string_index_.find(x.data<std::string>()[i]);
        if (it != string_index_.end()) at = it->second;
      } else {
        const bool integral = t == DataType::kInt64 || t == DataType::kInt32;
        const double d = integral ? 0.0 : x.get_double(i);
        if (integral || (d > -9.2e18 && d < 9.2e18)) {  // NaN and values past int64 are in no category
          auto it = int_index_.find(integral ? x.get_int64(i) : int64_t(d));
          if (it != int_index_.end()) at = it->second;
        }
      }
      if (at >= 0) y->data<float>()[i * count_ + at] = 1.f;
      else if (!zeros_) return invalid_argument("OneHotEncoder: element ", i, " is in no category and zeros is 0");
    }
    return Status::Ok();
  }

 private:
  std::unordered_map<int64_t, int64_t> int_index_;
  std::unordered_map<std::string, int64_t> string_index_;
  int64_t count_ = 0;
  bool zeros_ = true;
};

}  // namespace

ONYX_REGISTER_KERNEL("ai.onnx.ml", "OneHotEncoder", 1, kLatestOpset, OneHotEncoderKernel);

}  // namespace onyx
