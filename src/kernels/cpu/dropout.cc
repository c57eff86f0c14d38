// Dropout. In inference the output is the input (shared) and the mask all true. Training
// mode (opset >= 12: the training_mode input; opset < 7: is_test=0) keeps each element
// with probability 1 - ratio, scaling kept elements by 1 / (1 - ratio); the random mask
// comes from a generator seeded with 'seed' when given. The mask is bool from opset 10 and
// of the data type (1 = kept) before.
#include <random>

#include "kernels/dispatch.h"
#include "kernels/kernel.h"

namespace onyx {
namespace {

class DropoutKernel final : public Kernel {
 public:
  Status prepare(const KernelInfo& info) override {
    opset_ = info.opset();
    ratio_attr_ = info.attr_float("ratio", 0.5f);
    legacy_training_ = opset_ < 7 && info.attr_int("is_test", 0) == 0;
    has_seed_ = info.has_attr("seed");
    seed_ = info.attr_int("seed", 0);
    return Status::Ok();
  }

  Status compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    bool training = legacy_training_;
    double ratio = ratio_attr_;
    if (opset_ >= 12) {
      ratio = 0.5;
      if (ctx.has_input(1)) {
        const Tensor& r = ctx.input(1);
        if (r.numel() != 1 || !is_float_type(r.dtype()))
          return invalid_argument("Dropout: ratio must be a float scalar, got ", r.describe());
        ratio = r.get_double(0);
      }
      if (ctx.has_input(2)) {
        const Tensor& t = ctx.input(2);
        if (t.numel() != 1 || t.dtype() != DataType::kBool)
          return invalid_argument("Dropout: training_mode must be a bool scalar, got ", t.describe());
        training = *t.data<bool>();
      }
    }
    if (training && !(ratio >= 0.0 && ratio < 1.0))
      return invalid_argument("Dropout: ratio ", ratio, " is outside [0, 1)");
    const DataType mask_type = opset_ >= 10 ? DataType::kBool : x.dtype();

    if (!training || ratio == 0.0) {
      ctx.set_output(0, Value(x));
      if (!ctx.output_requested(1)) return Status::Ok();
      ONYX_ASSIGN_OR_RETURN(Tensor* mask, ctx.allocate_output(1, mask_type, x.shape()));
      return dispatch<ONYX_FLOAT_TYPES, bool>(mask_type, [&]<typename M>() -> Status {
        for (int64_t i = 0; i < mask->numel(); ++i) mask->data<M>()[i] = static_cast<M>(1);
        return Status::Ok();
      });
    }

    ONYX_ASSIGN_OR_RETURN(Tensor* y, ctx.allocate_output(0, x.dtype(), x.shape()));
    Tensor* mask = nullptr;
    if (ctx.output_requested(1)) {
      ONYX_ASSIGN_OR_RETURN(mask, ctx.allocate_output(1, mask_type, x.shape()));
    }
    std::mt19937_64 gen(has_seed_ ? uint64_t(seed_) : uint64_t(std::random_device{}()));
    std::uniform_real_distribution<double> uniform(0.0, 1.0);
    const double scale = 1.0 / (1.0 - ratio);
    return dispatch<ONYX_FLOAT_TYPES>(x.dtype(), [&]<typename T>() -> Status {
      using C = compute_t<T>;
      const T* in = x.data<T>();
      T* out = y->data<T>();
      for (int64_t i = 0; i < x.numel(); ++i) {
        const bool keep = uniform(gen) >= ratio;
        out[i] = static_cast<T>(keep ? C(double(C(in[i])) * scale) : C(0));
        if (!mask) continue;
        if (mask_type == DataType::kBool) mask->data<bool>()[i] = keep;
        else mask->data<T>()[i] = static_cast<T>(keep ? 1.0f : 0.0f);
      }
      return Status::Ok();
    });
  }

 private:
  int64_t opset_ = 0;
  float ratio_attr_ = 0.5f;
  bool legacy_training_ = false;
  bool has_seed_ = false;
  int64_t seed_ = 0;
};

}  // namespace

ONYX_REGISTER_KERNEL("", "Dropout", 1, kLatestOpset, DropoutKernel);

}  // namespace onyx
