// SequenceEmpty: an empty sequence whose element type is the 'dtype' attribute (float default).
#include "kernels/kernel.h"

namespace onyx {
namespace {

class SequenceEmptyKernel final : public Kernel {
 public:
  Status prepare(const KernelInfo& info) override {
    const int64_t code = info.attr_int("dtype", int64_t(DataType::kFloat));
    if (code <= 0 || code > 1000 || !is_valid_data_type(int(code)))
      return invalid_model("SequenceEmpty: unsupported dtype ", code);
    dtype_ = DataType(int(code));
    return Status::Ok();
  }

  Status compute(KernelContext& ctx) const override {
    ctx.set_output(0, Value::sequence({}, dtype_));
    return Status::Ok();
  }

 private:
  DataType dtype_ = DataType::kFloat;
};

}  // namespace

ONYX_REGISTER_KERNEL("", "SequenceEmpty", 11, kLatestOpset, SequenceEmptyKernel);

}  // namespace onyx
