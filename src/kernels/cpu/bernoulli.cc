// Bernoulli: 1 with probability p (the input element), else 0, in type 'dtype' (default the
// input's type); reproducible for a given 'seed'.
#include "core/parallel.h"
#include "kernels/dispatch.h"
#include "kernels/random_common.h"

namespace onyx {
namespace {

class BernoulliKernel final : public Kernel {
 public:
  Status prepare(const KernelInfo& info) override {
    seed_ = random::parse_seed(info);
    if (info.has_attr("dtype")) {
      const int64_t code = info.attr_int("dtype", 0);
      if (!is_valid_data_type(int(code)) || code > int64_t(DataType::kBFloat16) ||
          !(is_float_type(DataType(code)) || is_integer_type(DataType(code)) || DataType(code) == DataType::kBool))
        return invalid_model("dtype must be a numeric or bool type, got ", code);
      dtype_ = DataType(code);
    }
    return Status::Ok();
  }

  Status compute(KernelContext& ctx) const override {
    const Tensor& p = ctx.input(0);
    if (!p.defined()) return invalid_argument("Bernoulli needs a tensor input");
    const DataType out_type = dtype_ == DataType::kUndefined ? p.dtype() : dtype_;
    ONYX_ASSIGN_OR_RETURN(Tensor* y, ctx.allocate_output(0, out_type, p.shape()));
    const uint64_t key = random::run_key(seed_);
    return dispatch<ONYX_FLOAT_TYPES>(p.dtype(), [&]<typename P>() -> Status {
      const P* prob = p.data<P>();
      return dispatch<ONYX_NUMERIC_TYPES, bool>(out_type, [&]<typename T>() -> Status {
        T* out = y->data<T>();
        parallel_for(p.numel(), 4096, [&](int64_t begin, int64_t end) {
          for (int64_t i = begin; i < end; ++i) {
            const bool one = random::uniform(key, uint64_t(i)) < double(compute_t<P>(prob[i]));
            out[i] = static_cast<T>(static_cast<compute_t<T>>(one ? 1 : 0));
          }
        });
        return Status::Ok();
      });
    });
  }

 private:
  random::Seed seed_;
  DataType dtype_ = DataType::kUndefined;
};

}  // namespace

ONYX_REGISTER_KERNEL("", "Bernoulli", 15, kLatestOpset, BernoulliKernel);

}  // namespace onyx
