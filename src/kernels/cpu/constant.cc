// Constant: outputs the tensor given by exactly one of the attributes value, value_float(s),
// value_int(s) or value_string(s). sparse_value is not supported. The output shares the
// attribute's data.
#include "kernels/kernel.h"

namespace onyx {
namespace {

class ConstantKernel final : public Kernel {
 public:
  Status prepare(const KernelInfo& info) override {
    const ir::Node& node = info.node();
    if (node.attributes.size() != 1)
      return invalid_model("Constant needs exactly one value attribute, got ", node.attributes.size());
    const ir::Attribute& a = node.attributes.begin()->second;
    const std::string& name = a.name.empty() ? node.attributes.begin()->first : a.name;
    if (name == "value") {
      if (!a.t.defined()) return invalid_model("Constant: 'value' holds no tensor");
      value_ = a.t;
    } else if (name == "value_float") {
      value_ = Tensor::scalar<float>(a.f);
    } else if (name == "value_int") {
      value_ = Tensor::scalar<int64_t>(a.i);
    } else if (name == "value_string") {
      value_ = Tensor::scalar<std::string>(a.s);
    } else if (name == "value_floats") {
      value_ = Tensor(DataType::kFloat, {int64_t(a.floats.size())});
      for (size_t i = 0; i < a.floats.size(); ++i) value_.data<float>()[i] = a.floats[i];
    } else if (name == "value_ints") {
      value_ = Tensor(DataType::kInt64, {int64_t(a.ints.size())});
      for (size_t i = 0; i < a.ints.size(); ++i) value_.data<int64_t>()[i] = a.ints[i];
    } else if (name == "value_strings") {
      value_ = Tensor(DataType::kString, {int64_t(a.strings.size())});
      for (size_t i = 0; i < a.strings.size(); ++i) value_.data<std::string>()[i] = a.strings[i];
    } else if (name == "sparse_value") {
      return not_implemented("Constant: sparse_value is not supported");
    } else {
      return invalid_model("Constant: unknown attribute '", name, "'");
    }
    return Status::Ok();
  }

  Status compute(KernelContext& ctx) const override {
    ctx.set_output(0, Value(value_));
    return Status::Ok();
  }

 private:
  Tensor value_;
};

}  // namespace

ONYX_REGISTER_KERNEL("", "Constant", 1, kLatestOpset, ConstantKernel);

}  // namespace onyx
