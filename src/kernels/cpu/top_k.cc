// TopK: the K largest (largest=1) or smallest elements along 'axis', with their int64
// indices. K is an attribute before opset 10 and a one-element input from 10. Results are
// always sorted; ties go to the lower index. NaN counts as larger than any number.
#include <algorithm>
#include <numeric>

#include "kernels/broadcast.h"
#include "kernels/dispatch.h"
#include "kernels/kernel.h"
#include "kernels/shape_util.h"

namespace onyx {
namespace {

class TopKKernel final : public Kernel {
 public:
  Status prepare(const KernelInfo& info) override {
    axis_ = info.attr_int("axis", -1);
    largest_ = info.attr_int("largest", 1) != 0;
    k_from_input_ = info.opset() >= 10;
    if (!k_from_input_) {
      if (!info.has_attr("k")) return invalid_model("TopK needs a 'k' attribute before opset 10");
      k_attr_ = info.attr_int("k", 0);
    }
    return Status::Ok();
  }

  Status compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    ONYX_ASSIGN_OR_RETURN(const int64_t axis, normalize_axis(axis_, x.rank()));
    int64_t k = k_attr_;
    if (k_from_input_) {
      ONYX_ASSIGN_OR_RETURN(k, read_int_scalar(ctx.input(1), "K"));
    }
    const int64_t n = x.dim(axis);
    if (k < 0 || k > n)
      return invalid_argument("TopK: K=", k, " is out of range for axis ", axis, " of ", x.describe());
    Shape out_shape = x.shape();
    out_shape[size_t(axis)] = k;
    ONYX_ASSIGN_OR_RETURN(Tensor* values, ctx.allocate_output(0, x.dtype(), out_shape));
    if (ctx.num_outputs() < 2) return invalid_argument("TopK needs two outputs");
    ONYX_ASSIGN_OR_RETURN(Tensor* indices, ctx.allocate_output(1, DataType::kInt64, out_shape));
    if (values->numel() == 0) return Status::Ok();
    int64_t outer = 1;
    for (int64_t d = 0; d < axis; ++d) outer *= x.dim(d);
    int64_t inner = 1;
    for (int64_t d = axis + 1; d < x.rank(); ++d) inner *= x.dim(d);

    return dispatch<ONYX_NUMERIC_TYPES>(x.dtype(), [&]<typename T>() -> Status {
      using C = compute_t<T>;
      const T* in = x.data<T>();
      T* out_v = values->data<T>();
      int64_t* out_i = indices->data<int64_t>();
      std::vector<C> vals(static_cast<size_t>(n));
      std::vector<int64_t> order(static_cast<size_t>(n));
      const bool largest = largest_;
      auto before = [&](int64_t a, int64_t b) {
        const C va = vals[size_t(a)], vb = vals[size_t(b)];
        if (largest ? nan_last_less(vb, va) : nan_last_less(va, vb)) return true;
        if (largest ? nan_last_less(va, vb) : nan_last_less(vb, va)) return false;
        return a < b;
      };
      for (int64_t o = 0; o < outer; ++o)
        for (int64_t j = 0; j < inner; ++j) {
          const int64_t base = o * n * inner + j;
          for (int64_t i = 0; i < n; ++i) vals[size_t(i)] = C(in[base + i * inner]);
          std::iota(order.begin(), order.end(), int64_t(0));
          std::partial_sort(order.begin(), order.begin() + k, order.end(), before);
          const int64_t out_base = o * k * inner + j;
          for (int64_t i = 0; i < k; ++i) {
            out_v[out_base + i * inner] = in[base + order[size_t(i)] * inner];
            out_i[out_base + i * inner] = order[size_t(i)];
          }
        }
      return Status::Ok();
    });
  }

 private:
  int64_t axis_ = -1;
  bool largest_ = true;
  bool k_from_input_ = true;
  int64_t k_attr_ = 0;
};

}  // namespace

ONYX_REGISTER_KERNEL("", "TopK", 1, kLatestOpset, TopKKernel);

}  // namespace onyx
