// QLinearMatMul: quantised numpy.matmul. With acc = (a - a_zero_point) x (b - b_zero_point)
// in integers, y = saturate(round_half_even(acc * a_scale * b_scale / y_scale) + y_zero_point).
// a_scale / a_zero_point are per tensor or per row of a ([M]); b's per tensor or per column
// ([N]); y's per tensor. The output type is y_zero_point's.
#include <cmath>
#include <vector>

#include "kernels/dispatch.h"
#include "kernels/kernel.h"
#include "kernels/matmul_common.h"
#include "kernels/quantize.h"

namespace onyx {
namespace {

// The scale values of `s`: one, or `n` (per row / column).
Result<std::vector<float>> read_scales(const Tensor& s, int64_t n, const char* name) {
  if (!s.defined() || !is_float_type(s.dtype()) || !(s.numel() == 1 || (s.rank() == 1 && s.dim(0) == n)))
    return invalid_argument(name, " must be a float scalar or hold ", n, " values, got ",
                            s.defined() ? s.describe() : std::string("nothing"));
  std::vector<float> v(size_t(s.numel()));
  for (int64_t i = 0; i < s.numel(); ++i) v[size_t(i)] = float(s.get_double(i));
  return v;
}

class QLinearMatMulKernel final : public Kernel {
 public:
  Status compute(KernelContext& ctx) const override {
    const Tensor& a = ctx.input(0);
    const Tensor& b = ctx.input(3);
    const Tensor& y_zp = ctx.input(7);
    ONYX_ASSIGN_OR_RETURN(MatMulPlan plan, plan_matmul(a.shape(), b.shape()));
    ONYX_ASSIGN_OR_RETURN(std::vector<float> a_scale, read_scales(ctx.input(1), plan.m, "a_scale"));
    ONYX_ASSIGN_OR_RETURN(std::vector<float> b_scale, read_scales(ctx.input(4), plan.n, "b_scale"));
    ONYX_ASSIGN_OR_RETURN(std::vector<float> y_scale, read_scales(ctx.input(6), 1, "y_scale"));
    if (!y_zp.defined() || y_zp.numel() != 1)
      return invalid_argument("y_zero_point must be a scalar, got ", y_zp.defined() ? y_zp.describe() : "nothing");
    ONYX_ASSIGN_OR_RETURN(std::vector<uint64_t> ac, subtract_zero_point(a, ctx.input(2), true));
    ONYX_ASSIGN_OR_RETURN(std::vector<uint64_t> bc, subtract_zero_point(b, ctx.input(5), false));
    ONYX_ASSIGN_OR_RETURN(Tensor* y, ctx.allocate_output(0, y_zp.dtype(), plan.out));
    if (y->numel() == 0) return Status::Ok();
    std::vector<uint64_t> acc(size_t(y->numel()));
    batched_matmul<uint64_t>(plan, ac.data(), bc.data(), acc.data());
    const float zp = float(y_zp.get_double(0));
    return dispatch<uint8_t, int8_t>(y_zp.dtype(), [&]<typename Q>() -> Status {
      Q* out = y->data<Q>();
      for (int64_t i = 0; i < y->numel(); ++i) {
        const int64_t row = (i / plan.n) % plan.m, col = i % plan.n;
        const float multiplier = a_scale[a_scale.size() == 1 ? 0 : size_t(row)] *
                                 b_scale[b_scale.size() == 1 ? 0 : size_t(col)] / y_scale[0];
        const float v = float(static_cast<int32_t>(acc[size_t(i)])) * multiplier;
        out[i] = saturate_round<Q>(std::nearbyint(v) + zp);
      }
      return Status::Ok();
    });
  }
};

}  // namespace

ONYX_REGISTER_KERNEL("", "QLinearMatMul", 10, kLatestOpset, QLinearMatMulKernel);

}  // namespace onyx
