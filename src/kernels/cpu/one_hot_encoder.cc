// ai.onnx.ml OneHotEncoder: Y float [*X.shape, K] with a 1 at the position of each element's
// category among the K of cats_int64s or cats_strings (numeric X is matched against
// cats_int64s, truncated to int64; string X against cats_strings). An element in no category
// gives an all-zero row when zeros = 1 (the default), INVALID_ARGUMENT when zeros = 0.
// Integer categories spanning at most 65,536 values are looked up in a direct table.
#include <algorithm>
#include <atomic>
#include <cmath>
#include <unordered_map>
#include <vector>

#include "core/parallel.h"
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
    if (!ints.empty()) {
      const auto [lo, hi] = std::minmax_element(ints.begin(), ints.end());
      if (*hi - *lo < (int64_t(1) << 16)) {
        table_base_ = *lo;
        table_.assign(size_t(*hi - *lo + 1), -1);
        for (size_t i = ints.size(); i-- > 0;) table_[size_t(ints[i] - *lo)] = int32_t(i);  // the first of repeats
      }
    }
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
    ONYX_ASSIGN_OR_RETURN(Tensor * y, ctx.allocate_output_uninitialized(0, DataType::kFloat, shape));
    float* out = y->data<float>();
    std::atomic<int64_t> missing{-1};  // an element in no category (zeros = 0)
    parallel_for(x.numel(), 4096, [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) {
        const int64_t at = category_of(x, i);
        std::fill_n(out + i * count_, count_, 0.f);  // each row written once, zeros and all
        if (at >= 0) out[i * count_ + at] = 1.f;
        else if (!zeros_) missing.store(i);
      }
    });
    if (missing.load() >= 0)
      return invalid_argument("OneHotEncoder: element ", missing.load(), " is in no category and zeros is 0");
    return Status::Ok();
  }

 private:
  // The category index of element i of x, or -1.
  int64_t category_of(const Tensor& x, int64_t i) const {
    const DataType t = x.dtype();
    if (t == DataType::kString) {
      auto it = string_index_.find(x.data<std::string>()[i]);
      return it == string_index_.end() ? -1 : it->second;
    }
    int64_t v = 0;
    if (t == DataType::kInt64) {
      v = x.data<int64_t>()[i];
    } else if (t == DataType::kInt32) {
      v = x.data<int32_t>()[i];
    } else {
      const double d = t == DataType::kFloat ? double(x.data<float>()[i]) : x.data<double>()[i];
      if (!(d > -9.2e18 && d < 9.2e18)) return -1;  // NaN and values past int64 are in no category
      v = int64_t(d);
    }
    if (!table_.empty()) {
      const uint64_t offset = uint64_t(v) - uint64_t(table_base_);
      return offset < table_.size() ? table_[offset] : -1;
    }
    auto it = int_index_.find(v);
    return it == int_index_.end() ? -1 : it->second;
  }

  std::unordered_map<int64_t, int64_t> int_index_;
  std::unordered_map<std::string, int64_t> string_index_;
  std::vector<int32_t> table_;  // category index of table_base_ + k, or -1 (small integer ranges)
  int64_t table_base_ = 0;
  int64_t count_ = 0;
  bool zeros_ = true;
};

}  // namespace

ONYX_REGISTER_KERNEL("ai.onnx.ml", "OneHotEncoder", 1, kLatestOpset, OneHotEncoderKernel);

}  // namespace onyx
