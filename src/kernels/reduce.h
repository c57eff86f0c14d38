// Shared machinery for the Reduce* family (ReduceSum, ReduceMax, ...) and ArgMax/ArgMin.
//
// A ReducePlan describes one reduction of a tensor over a set of axes: dims of size 1 are
// dropped and adjacent dims of the same kind (kept / reduced) merged, so that visiting the
// elements reduced into one output element is a short odometer over a few strided dims.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <vector>

#include "core/parallel.h"
#include "kernels/dispatch.h"
#include "kernels/kernel.h"

namespace onyx {

struct ReducePlan {
  Shape out_shape;           // keepdims applied
  int64_t out_count = 0;     // elements in the output
  int64_t reduce_count = 0;  // input elements folded into each output (0: empty reduction)
  std::vector<int64_t> kept_dims, kept_strides;  // merged kept dims and their input strides
  std::vector<int64_t> red_dims, red_strides;    // merged reduced dims and their input strides
};

// Plans the reduction of `in` over `axes` (may be negative; empty means all axes).
// Duplicate or out-of-range axes are INVALID_ARGUMENT.
Result<ReducePlan> make_reduce_plan(const Shape& in, const std::vector<int64_t>& axes, bool keepdims);

// Walks the input offsets reduced into one output element. Holds per-thread scratch.
class ReduceCursor {
 public:
  explicit ReduceCursor(const ReducePlan& plan) : p_(plan), idx_(plan.red_dims.size(), 0) {}

  // Input offset of the first element reduced into output element `o`.
  int64_t base(int64_t o) const {
    int64_t off = 0;
    for (size_t k = p_.kept_dims.size(); k-- > 0;) {
      off += (o % p_.kept_dims[k]) * p_.kept_strides[k];
      o /= p_.kept_dims[k];
    }
    return off;
  }

  // Calls f(offset) for every input element reduced into the output whose base is `base`,
  // in row-major order of the reduced dims.
  template <typename F>
  void visit(int64_t base, F&& f) {
    if (p_.reduce_count == 0) return;
    const size_t r = p_.red_dims.size();
    if (r == 0) {
      f(base);
      return;
    }
    const int64_t n = p_.red_dims[r - 1], s = p_.red_strides[r - 1];
    std::fill(idx_.begin(), idx_.end(), 0);
    int64_t off = base;
    while (true) {
      for (int64_t i = 0; i < n; ++i) f(off + i * s);
      // Advance the odometer over the outer reduced dims 0..r-2.
      size_t d = r - 1;
      while (true) {
        if (d == 0) return;
        --d;
        if (++idx_[d] < p_.red_dims[d]) {
          off += p_.red_strides[d];
          break;
        }
        off -= p_.red_strides[d] * (p_.red_dims[d] - 1);
        idx_[d] = 0;
      }
    }
  }

 private:
  const ReducePlan& p_;
  std::vector<int64_t> idx_;
};

// out[o] = finish(acc) where acc starts at `init` and step(acc, x) folds in every input element
// reduced into o. Runs output elements in parallel.
template <typename T, typename Acc, typename Step, typename Finish>
void fold_reduce(const ReducePlan& plan, const Tensor& x, Tensor& y, Acc init, Step step, Finish finish) {
  const T* in = x.data<T>();
  T* out = y.data<T>();
  const int64_t grain = std::max<int64_t>(1, 32768 / std::max<int64_t>(plan.reduce_count, 1));
  parallel_for(plan.out_count, grain, [&](int64_t begin, int64_t end) {
    ReduceCursor cur(plan);
    for (int64_t o = begin; o < end; ++o) {
      Acc acc = init;
      cur.visit(cur.base(o), [&](int64_t off) { step(acc, in[off]); });
      out[o] = finish(acc);
    }
  });
}

// Float sums whose last kept dim is contiguous in the input (stride 1; e.g. a global average
// pool over NHWC, the sum of a [rows, cols] matrix over rows): the same double sums, in the
// same order, as fold_reduce with `a += v` and `finish = float(a / divisor)`, computed for a
// run of neighbouring outputs at once so the inner loop vectorises. Returns false, having
// written nothing, when the plan is not of that form (or the run is too short to gain).
bool sum_contiguous_kept_float(const ReducePlan& plan, const float* in, float* out, double divisor);

// Converts a double result to T. Integers truncate toward zero and saturate (NaN gives 0),
// so that non-finite results (log of 0, an empty max) never convert out of range.
template <typename T>
T saturate_from_double(double v) {
  if constexpr (std::is_integral_v<T>) {
    if (std::isnan(v)) return T(0);
    if (v <= double(std::numeric_limits<T>::lowest())) return std::numeric_limits<T>::lowest();
    if (v >= double(std::numeric_limits<T>::max())) return std::numeric_limits<T>::max();
    return static_cast<T>(v);
  } else {
    return static_cast<T>(static_cast<compute_t<T>>(v));
  }
}

// The axis attributes of a Reduce* node: keepdims, noop_with_empty_axes and the axes, an
// attribute before `axes_input_since` (13 for ReduceSum, 18 for the others) and the optional
// input 1 (read on the host) from then on. Shared by the CPU and CUDA kernels.
struct ReduceAxes {
  bool keepdims = true;
  bool noop_with_empty_axes = false;
  bool from_input = false;
  std::vector<int64_t> attribute;

  static ReduceAxes parse(const KernelInfo& info, int axes_input_since);
  // The axes of this run (empty: all, or none when noop() says so); INVALID_ARGUMENT for a
  // malformed axes input.
  Result<std::vector<int64_t>> resolve(const KernelContext& ctx) const;
  // True when `axes` (from resolve) leave the input as it is.
  bool noop(const std::vector<int64_t>& axes) const { return axes.empty() && noop_with_empty_axes; }
};

// Base of the Reduce* kernels: parses axes (attribute, or the optional second input from
// axes_input_since()), keepdims and noop_with_empty_axes, handles the no-op case, allocates
// the output and calls reduce().
class ReduceKernel : public Kernel {
 public:
  Status prepare(const KernelInfo& info) override;
  Status compute(KernelContext& ctx) const override;

 protected:
  // First opset in which `axes` is an input rather than an attribute.
  virtual int axes_input_since() const { return 18; }
  // Fills y (shape plan.out_shape, dtype of x) with the reduction of x.
  virtual Status reduce(const ReducePlan& plan, const Tensor& x, Tensor& y) const = 0;

 private:
  ReduceAxes axes_;
};

// ArgMax (kMax) / ArgMin: the int64 index of the first (or, with select_last_index, the last)
// extreme element along `axis`. NaN counts as the extreme, as in numpy.
template <bool kMax>
class ArgReduceKernel final : public Kernel {
 public:
  Status prepare(const KernelInfo& info) override {
    axis_ = info.attr_int("axis", 0);
    keepdims_ = info.attr_int("keepdims", 1) != 0;
    select_last_ = info.attr_int("select_last_index", 0) != 0;
    return Status::Ok();
  }

  Status compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    ONYX_ASSIGN_OR_RETURN(const int64_t axis, normalize_axis_arg(x.rank()));
    const int64_t n = x.dim(axis);
    if (n == 0) return invalid_argument("cannot take ", kMax ? "ArgMax" : "ArgMin", " over an empty axis ", axis);
    Shape out_shape;
    int64_t outer = 1, inner = 1;
    for (int64_t d = 0; d < x.rank(); ++d) {
      if (d < axis) outer *= x.dim(d);
      if (d > axis) inner *= x.dim(d);
      if (d != axis) out_shape.push_back(x.dim(d));
      else if (keepdims_) out_shape.push_back(1);
    }
    ONYX_ASSIGN_OR_RETURN(Tensor* y, ctx.allocate_output(0, DataType::kInt64, out_shape));
    if (y->numel() == 0) return Status::Ok();
    return dispatch<ONYX_NUMERIC_TYPES, bool>(x.dtype(), [&]<typename T>() -> Status {
      const T* in = x.data<T>();
      int64_t* out = y->data<int64_t>();
      parallel_for(outer, std::max<int64_t>(1, 32768 / std::max<int64_t>(n * inner, 1)), [&](int64_t b, int64_t e) {
        for (int64_t o = b; o < e; ++o) {
          for (int64_t i = 0; i < inner; ++i) {
            const T* p = in + o * n * inner + i;
            compute_t<T> best = static_cast<compute_t<T>>(p[0]);
            int64_t best_k = 0;
            for (int64_t k = 1; k < n; ++k) {
              const compute_t<T> v = static_cast<compute_t<T>>(p[k * inner]);
              if (better(v, best) || (select_last_ && same(v, best))) {
                best = v;
                best_k = k;
              }
            }
            out[o * inner + i] = best_k;
          }
        }
      });
      return Status::Ok();
    });
  }

 private:
  Result<int64_t> normalize_axis_arg(int64_t rank) const {
    if (axis_ < -rank || axis_ >= rank || rank == 0)
      return invalid_argument("axis ", axis_, " is out of range for rank ", rank);
    return axis_ < 0 ? axis_ + rank : axis_;
  }
  template <typename C>
  static bool is_nan(C v) {
    if constexpr (std::is_floating_point_v<C>) return std::isnan(v);
    else return false;
  }
  // v strictly beats best; a NaN beats everything but an earlier NaN.
  template <typename C>
  static bool better(C v, C best) {
    if (is_nan(best)) return false;
    if (is_nan(v)) return true;
    return kMax ? v > best : v < best;
  }
  template <typename C>
  static bool same(C v, C best) {
    return v == best || (is_nan(v) && is_nan(best));
  }

  int64_t axis_ = 0;
  bool keepdims_ = true;
  bool select_last_ = false;
};

}  // namespace onyx
