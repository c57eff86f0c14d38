// Unique: the distinct elements of the flattened input, or without 'axis' the distinct
// slices along 'axis'. Outputs: Y (sorted ascending when sorted=1, else in order of first
// occurrence), indices (first occurrence of each in the input), inverse_indices (the Y
// position of each input element or slice) and counts. Slices compare lexicographically;
// NaNs compare equal and sort last.
#include <algorithm>
#include <numeric>

#include "kernels/dispatch.h"
#include "kernels/element_copy.h"
#include "kernels/kernel.h"
#include "kernels/shape_util.h"

namespace onyx {
namespace {

class UniqueKernel final : public Kernel {
 public:
  Status prepare(const KernelInfo& info) override {
    sorted_ = info.attr_int("sorted", 1) != 0;
    has_axis_ = info.has_attr("axis");
    axis_ = info.attr_int("axis", 0);
    return Status::Ok();
  }

  Status compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    int64_t axis = 0, outer = 1, n = x.numel(), inner = 1;
    if (has_axis_) {
      axis = axis_;
      if (axis < -x.rank() || axis >= x.rank())
        return invalid_argument("Unique: axis ", axis_, " is out of range for ", x.describe());
      if (axis < 0) axis += x.rank();
      n = x.dim(axis);
      for (int64_t d = 0; d < axis; ++d) outer *= x.dim(d);
      for (int64_t d = axis + 1; d < x.rank(); ++d) inner *= x.dim(d);
    }

    // Item i is the slice {x[(o * n + i) * inner + j]}; order holds items sorted by value.
    std::vector<int64_t> order(static_cast<size_t>(n));
    std::iota(order.begin(), order.end(), int64_t(0));
    std::function<bool(int64_t, int64_t)> less;
    ONYX_RETURN_IF_ERROR((dispatch<ONYX_NUMERIC_TYPES, bool, std::string>(x.dtype(), [&]<typename T>() -> Status {
      const T* in = x.data<T>();
      less = [in, outer, n, inner](int64_t a, int64_t b) {
        for (int64_t o = 0; o < outer; ++o)
          for (int64_t j = 0; j < inner; ++j) {
            const auto va = compute_t<T>(in[(o * n + a) * inner + j]);
            const auto vb = compute_t<T>(in[(o * n + b) * inner + j]);
            if (nan_last_less(va, vb)) return true;
            if (nan_last_less(vb, va)) return false;
          }
        return false;
      };
      return Status::Ok();
    })));
    std::stable_sort(order.begin(), order.end(), less);

    // Groups of equal items, in sorted order; the first of each group is its first occurrence.
    std::vector<int64_t> first, counts, group_of(static_cast<size_t>(n));
    for (int64_t p = 0; p < n; ++p) {
      const int64_t i = order[size_t(p)];
      if (p == 0 || less(order[size_t(p - 1)], i)) {
        first.push_back(i);
        counts.push_back(0);
      }
      group_of[size_t(i)] = int64_t(first.size()) - 1;
      ++counts.back();
    }
    const int64_t u = int64_t(first.size());
    std::vector<int64_t> rank_of(static_cast<size_t>(u));  // output position of each group
    std::iota(rank_of.begin(), rank_of.end(), int64_t(0));
    if (!sorted_) {
      std::vector<int64_t> by_first(static_cast<size_t>(u));
      std::iota(by_first.begin(), by_first.end(), int64_t(0));
      std::sort(by_first.begin(), by_first.end(),
                [&](int64_t a, int64_t b) { return first[size_t(a)] < first[size_t(b)]; });
      for (int64_t p = 0; p < u; ++p) rank_of[size_t(by_first[size_t(p)])] = p;
    }

    Shape y_shape = {u};
    if (has_axis_) {
      y_shape = x.shape();
      y_shape[size_t(axis)] = u;
    }
    ONYX_ASSIGN_OR_RETURN(Tensor* y, ctx.allocate_output(0, x.dtype(), y_shape));
    for (int64_t g = 0; g < u; ++g)
      for (int64_t o = 0; o < outer; ++o)
        copy_elements(x, (o * n + first[size_t(g)]) * inner, *y, (o * u + rank_of[size_t(g)]) * inner, inner);
    if (ctx.output_requested(1)) {
      ONYX_ASSIGN_OR_RETURN(Tensor* indices, ctx.allocate_output(1, DataType::kInt64, {u}));
      for (int64_t g = 0; g < u; ++g) indices->data<int64_t>()[rank_of[size_t(g)]] = first[size_t(g)];
    }
    if (ctx.output_requested(2)) {
      ONYX_ASSIGN_OR_RETURN(Tensor* inverse, ctx.allocate_output(2, DataType::kInt64, {n}));
      for (int64_t i = 0; i < n; ++i) inverse->data<int64_t>()[i] = rank_of[size_t(group_of[size_t(i)])];
    }
    if (ctx.output_requested(3)) {
      ONYX_ASSIGN_OR_RETURN(Tensor* count_out, ctx.allocate_output(3, DataType::kInt64, {u}));
      for (int64_t g = 0; g < u; ++g) count_out->data<int64_t>()[rank_of[size_t(g)]] = counts[size_t(g)];
    }
    return Status::Ok();
  }

 private:
  bool sorted_ = true;
  bool has_axis_ = false;
  int64_t axis_ = 0;
};

}  // namespace

ONYX_REGISTER_KERNEL("", "Unique", 1, kLatestOpset, UniqueKernel);

}  // namespace onyx
