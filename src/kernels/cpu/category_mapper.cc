// ai.onnx.ml CategoryMapper: cats_strings[i] <-> cats_int64s[i]. String X becomes int64 (the
// matching cats_int64s entry, else default_int64 = -1); int64 X becomes string (the
// matching cats_strings entry, else default_string = "_Unused"). Y has X's shape.
#include <unordered_map>

#include "kernels/kernel.h"

namespace onyx {
namespace {

class CategoryMapperKernel final : public Kernel {
 public:
  Status prepare(const KernelInfo& info) override {
    const std::vector<int64_t> ints = info.attr_ints("cats_int64s");
    const std::vector<std::string> strings = info.attr_strings("cats_strings");
    if (ints.size() != strings.size())
      return invalid_model("CategoryMapper: ", ints.size(), " cats_int64s for ", strings.size(), " cats_strings");
    for (size_t i = 0; i < ints.size(); ++i) {
      to_int_.emplace(strings[i], ints[i]);
      to_string_.emplace(ints[i], strings[i]);
    }
    default_int_ = info.attr_int("default_int64", -1);
    default_string_ = info.attr_string("default_string", "_Unused");
    return Status::Ok();
  }

  Status compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    if (x.dtype() == DataType::kString) {
      ONYX_ASSIGN_OR_RETURN(Tensor * y, ctx.allocate_output(0, DataType::kInt64, x.shape()));
      for (int64_t i = 0; i < x.numel(); ++i) {
        auto it = to_int_.find(x.data<std::string>()[i]);
        y->data<int64_t>()[i] = it == to_int_.end() ? default_int_ : it->second;
      }
      return Status::Ok();
    }
    if (x.dtype() != DataType::kInt64)
      return invalid_argument("CategoryMapper: X must be string or int64, got ", x.describe());
    ONYX_ASSIGN_OR_RETURN(Tensor * y, ctx.allocate_output(0, DataType::kString, x.shape()));
    for (int64_t i = 0; i < x.numel(); ++i) {
      auto it = to_string_.find(x.data<int64_t>()[i]);
      y->data<std::string>()[i] = it == to_string_.end() ? default_string_ : it->second;
    }
    return Status::Ok();
  }

 private:
  std::unordered_map<std::string, int64_t> to_int_;
  std::unordered_map<int64_t, std::string> to_string_;
  int64_t default_int_ = -1;
  std::string default_string_;
};

}  // namespace

ONYX_REGISTER_KERNEL("ai.onnx.ml", "CategoryMapper", 1, kLatestOpset, CategoryMapperKernel);

}  // namespace onyx
