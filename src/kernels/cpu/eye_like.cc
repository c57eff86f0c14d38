// EyeLike: a 2-D tensor shaped like the input with ones on diagonal k (j - i == k) and zeros
// elsewhere; dtype from the 'dtype' attribute, else the input's.
#include "kernels/dispatch.h"
#include "kernels/kernel.h"

namespace onyx {
namespace {

class EyeLikeKernel final : public Kernel {
 public:
  Status prepare(const KernelInfo& info) override {
    k_ = info.attr_int("k", 0);
    if (info.has_attr("dtype")) {
      const int64_t code = info.attr_int("dtype", 0);
      if (!is_valid_data_type(int(code)) || code == 0) return invalid_model("EyeLike: invalid dtype ", code);
      dtype_ = DataType(code);
    }
    return Status::Ok();
  }

  Status compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    if (x.rank() != 2) return invalid_argument("EyeLike: the input must be 2-D, got ", x.describe());
    const DataType dtype = dtype_ == DataType::kUndefined ? x.dtype() : dtype_;
    ONYX_ASSIGN_OR_RETURN(Tensor* y, ctx.allocate_output(0, dtype, x.shape()));
    const int64_t rows = x.dim(0), cols = x.dim(1);
    return dispatch<ONYX_NUMERIC_TYPES, bool>(dtype, [&]<typename T>() -> Status {
      T* out = y->data<T>();
      for (int64_t i = 0; i < rows; ++i) {
        // j = i + k, computed without overflow.
        if (k_ >= cols || k_ <= -rows) break;
        const int64_t j = i + k_;
        if (j >= 0 && j < cols) out[i * cols + j] = static_cast<T>(1);
      }
      return Status::Ok();
    });
  }

 private:
  int64_t k_ = 0;
  DataType dtype_ = DataType::kUndefined;
};

}  // namespace

ONYX_REGISTER_KERNEL("", "EyeLike", 1, kLatestOpset, EyeLikeKernel);

}  // namespace onyx
