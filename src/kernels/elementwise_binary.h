// Shared machinery for elementwise kernels with broadcasting: binary arithmetic, comparisons,
// logical ops, variadic folds (Max, Min, Sum, Mean), Where, Pow, PRelu.
//
// for_each_run() walks the broadcast output in contiguous runs (dims of size 1 dropped,
// mergeable dims coalesced), so inner loops see each input with stride 0 or 1.
//
// Integer semantics shared by these kernels (no UB for any input):
//   - Add, Sub, Mul wrap modulo 2^bits, as two's complement hardware does;
//   - x / 0 == 0 and x % 0 == 0 (as numpy); INT_MIN / -1 == INT_MIN and INT_MIN % -1 == 0.
#pragma once
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <vector>

#include "core/parallel.h"
#include "kernels/broadcast.h"
#include "kernels/dispatch.h"
#include "kernels/kernel.h"

namespace onyx {

// ---- Shapes --------------------------------------------------------------------------------

// How a binary op broadcasts B against A. From opset 7 on: numpy (multidirectional) rules.
// Before opset 7 the ops carried 'broadcast' and 'axis' attributes: with broadcast=0 the shapes
// must be equal; with broadcast=1, B's dims match (or are 1 against) a contiguous run of A's
// dims starting at 'axis' (default: aligned with A's trailing dims), and the output has A's shape.
class BinaryBroadcast {
 public:
  // Reads the legacy attributes when info.opset() < 7.
  Status parse(const KernelInfo& info);
  // The output shape, and the shape B is read as (same rank as `out`, or B's own shape).
  Status resolve(const Shape& a, const Shape& b, Shape& out, Shape& b_view) const;

 private:
  bool legacy_ = false;
  bool broadcast_ = false;
  bool has_axis_ = false;
  int64_t axis_ = 0;
};

// Checks that inputs [0, n) are present tensors; `optional_from` onwards may be absent.
Status check_tensor_inputs(const KernelContext& ctx, int n, int optional_from = -1);
// Checks that every present input in [0, ctx.num_inputs()) has the dtype of input 0.
Status check_same_dtype(const KernelContext& ctx);

// Calls fn(out_begin, count, offsets, strides) for disjoint runs covering the broadcast output
// `out`: element out_begin + j (j < count) reads input k at offsets[k] + j * strides[k].
// Runs may be visited from several threads (parallel_for); fn must only write its own range.
template <size_t K, typename F>
void for_each_run(const Shape& out, const std::array<Shape, K>& inputs, F&& fn) {
  const int64_t n = shape_size(out);
  if (n <= 0) return;
  std::array<std::vector<int64_t>, K> full;
  for (size_t k = 0; k < K; ++k) full[k] = broadcast_strides(inputs[k], out);
  // Drop size-1 dims, then merge dim d into d+1 when every input is contiguous across them.
  std::vector<int64_t> dims;
  std::array<std::vector<int64_t>, K> strides;
  for (size_t d = 0; d < out.size(); ++d) {
    if (out[d] == 1) continue;
    dims.push_back(out[d]);
    for (size_t k = 0; k < K; ++k) strides[k].push_back(full[k][d]);
  }
  if (dims.empty()) {
    dims.push_back(1);
    for (size_t k = 0; k < K; ++k) strides[k].push_back(1);
  }
  for (size_t d = dims.size() - 1; d > 0; --d) {
    bool merge = true;
    for (size_t k = 0; k < K; ++k) merge = merge && strides[k][d - 1] == strides[k][d] * dims[d];
    if (!merge) continue;
    dims[d - 1] *= dims[d];
    dims.erase(dims.begin() + std::ptrdiff_t(d));
    for (size_t k = 0; k < K; ++k) {
      strides[k][d - 1] = strides[k][d];
      strides[k].erase(strides[k].begin() + std::ptrdiff_t(d));
    }
  }
  const size_t rank = dims.size();
  const int64_t inner = dims.back();
  std::array<int64_t, K> inner_strides;
  for (size_t k = 0; k < K; ++k) inner_strides[k] = strides[k].back();

  parallel_for(n, int64_t(1) << 15, [&](int64_t begin, int64_t end) {
    std::vector<int64_t> idx(rank);
    int64_t rest = begin;
    for (size_t d = rank; d-- > 0;) {
      idx[d] = rest % dims[d];
      rest /= dims[d];
    }
    std::array<int64_t, K> off;
    for (int64_t pos = begin; pos < end;) {
      for (size_t k = 0; k < K; ++k) {
        off[k] = 0;
        for (size_t d = 0; d < rank; ++d) off[k] += idx[d] * strides[k][d];
      }
      const int64_t count = std::min(end - pos, inner - idx[rank - 1]);
      fn(pos, count, off.data(), inner_strides.data());
      pos += count;
      idx[rank - 1] = 0;
      for (size_t d = rank - 1; d-- > 0;) {
        if (++idx[d] < dims[d]) break;
        idx[d] = 0;
      }
    }
  });
}

// ---- Element helpers -----------------------------------------------------------------------

// An element as its compute type (float for the 16-bit floats; a reference otherwise).
template <typename T>
decltype(auto) to_compute(const T& v) {
  if constexpr (std::is_same_v<compute_t<T>, T>) {
    return (v);
  } else {
    return static_cast<compute_t<T>>(v);
  }
}

// Unsigned type at least as wide as int that T's arithmetic promotes to: wrapping math on it
// has no overflow UB, and converting back to T is modular (C++20).
template <typename T>
using wrap_t = std::make_unsigned_t<decltype(T{} + T{})>;

template <typename T>
inline constexpr bool is_int_v = std::is_integral_v<T> && !std::is_same_v<T, bool>;

// a + b, a - b, a * b on compute values; integers wrap modulo 2^bits.
template <typename T>
T wrap_add(T a, T b) {
  if constexpr (is_int_v<T>) {
    return T(wrap_t<T>(a) + wrap_t<T>(b));
  } else {
    return a + b;
  }
}
template <typename T>
T wrap_sub(T a, T b) {
  if constexpr (is_int_v<T>) {
    return T(wrap_t<T>(a) - wrap_t<T>(b));
  } else {
    return a - b;
  }
}
template <typename T>
T wrap_mul(T a, T b) {
  if constexpr (is_int_v<T>) {
    return T(wrap_t<T>(a) * wrap_t<T>(b));
  } else {
    return a * b;
  }
}

// Truncating integer division and remainder, defined for every input (see the header comment).
template <typename T>
T safe_div(T a, T b) {
  if (b == 0) return T(0);
  if constexpr (std::is_signed_v<T>) {
    if (b == T(-1)) return T(wrap_t<T>(0) - wrap_t<T>(a));
  }
  return T(a / b);
}
template <typename T>
T safe_rem(T a, T b) {
  if (b == 0) return T(0);
  if constexpr (std::is_signed_v<T>) {
    if (b == T(-1)) return T(0);
  }
  return T(a % b);
}

// double -> integer, saturating; NaN gives 0.
template <typename I>
I saturate_cast(double v) {
  if (std::isnan(v)) return I(0);
  if (v <= double(std::numeric_limits<I>::lowest())) return std::numeric_limits<I>::lowest();
  if (v >= double(std::numeric_limits<I>::max())) return std::numeric_limits<I>::max();
  return I(v);
}

// ---- Loops ---------------------------------------------------------------------------------

// o[i] = fn(a[..], b[..]) over the broadcast of a_shape and b_shape into o_shape; fn takes and
// returns compute values (converted with to_compute / static_cast<O>).
template <typename A, typename B, typename O, typename F>
void binary_loop(const A* a, const Shape& a_shape, const B* b, const Shape& b_shape, O* o,
                 const Shape& o_shape, F&& fn) {
  auto run = [&](int64_t begin, int64_t n, const int64_t* off, const int64_t* st) {
    const A* pa = a + off[0];
    const B* pb = b + off[1];
    O* po = o + begin;
    if (st[0] == 1 && st[1] == 1) {
      for (int64_t i = 0; i < n; ++i) po[i] = static_cast<O>(fn(to_compute(pa[i]), to_compute(pb[i])));
    } else if (st[1] == 0) {
      const auto bv = to_compute(pb[0]);
      for (int64_t i = 0; i < n; ++i) po[i] = static_cast<O>(fn(to_compute(pa[i * st[0]]), bv));
    } else if (st[0] == 0) {
      const auto av = to_compute(pa[0]);
      for (int64_t i = 0; i < n; ++i) po[i] = static_cast<O>(fn(av, to_compute(pb[i * st[1]])));
    } else {
      for (int64_t i = 0; i < n; ++i)
        po[i] = static_cast<O>(fn(to_compute(pa[i * st[0]]), to_compute(pb[i * st[1]])));
    }
  };
  for_each_run<2>(o_shape, {a_shape, b_shape}, run);
}

// A two-input kernel body: inputs of one dtype among Ts, output of that dtype or bool.
// fn is a generic lambda called as fn.template operator()<T>(x, y) on compute values.
template <bool kBoolOutput, typename... Ts, typename F>
Status compute_binary(KernelContext& ctx, const BinaryBroadcast& bc, F&& fn) {
  ONYX_RETURN_IF_ERROR(check_tensor_inputs(ctx, 2));
  ONYX_RETURN_IF_ERROR(check_same_dtype(ctx));
  const Tensor& a = ctx.input(0);
  const Tensor& b = ctx.input(1);
  Shape out_shape, b_view;
  ONYX_RETURN_IF_ERROR(bc.resolve(a.shape(), b.shape(), out_shape, b_view));
  const DataType out_type = kBoolOutput ? DataType::kBool : a.dtype();
  return dispatch<Ts...>(a.dtype(), [&]<typename T>() -> Status {
    using O = std::conditional_t<kBoolOutput, bool, T>;
    ONYX_ASSIGN_OR_RETURN(Tensor* out, ctx.allocate_output_uninitialized(0, out_type, out_shape));
    binary_loop(a.data<T>(), a.shape(), b.data<T>(), b_view, out->data<O>(), out_shape,
                [&](const auto& x, const auto& y) { return fn.template operator()<T>(x, y); });
    return Status::Ok();
  });
}

// Max, Min, Sum, Mean: folds fn over all inputs (one dtype among Ts, numpy broadcasting), then
// calls finish.template operator()<T>(out_data, numel).
template <typename... Ts, typename F, typename G>
Status compute_variadic(KernelContext& ctx, F&& fn, G&& finish) {
  if (ctx.num_inputs() < 1) return invalid_argument("expected at least one input");
  ONYX_RETURN_IF_ERROR(check_tensor_inputs(ctx, ctx.num_inputs()));
  ONYX_RETURN_IF_ERROR(check_same_dtype(ctx));
  std::vector<Shape> shapes;
  for (int i = 0; i < ctx.num_inputs(); ++i) shapes.push_back(ctx.input(i).shape());
  ONYX_ASSIGN_OR_RETURN(Shape out_shape, broadcast_shapes(shapes));
  const Tensor& first = ctx.input(0);
  return dispatch<Ts...>(first.dtype(), [&]<typename T>() -> Status {
    ONYX_ASSIGN_OR_RETURN(Tensor* out, ctx.allocate_output_uninitialized(0, first.dtype(), out_shape));
    T* po = out->data<T>();
    binary_loop(po, out_shape, first.data<T>(), first.shape(), po, out_shape,
                [](const auto&, const auto& y) { return y; });
    for (int i = 1; i < ctx.num_inputs(); ++i) {
      const Tensor& in = ctx.input(i);
      binary_loop(po, out_shape, in.data<T>(), in.shape(), po, out_shape,
                  [&](const auto& x, const auto& y) { return fn.template operator()<T>(x, y); });
    }
    finish.template operator()<T>(po, out->numel());
    return Status::Ok();
  });
}

// Max / Min of two compute values; NaN propagates (as numpy's maximum / minimum).
template <typename C>
C max_propagate_nan(C x, C y) {
  if constexpr (std::is_floating_point_v<C>) {
    if (std::isnan(x) || std::isnan(y)) return std::isnan(x) ? x : y;
  }
  return x < y ? y : x;
}
template <typename C>
C min_propagate_nan(C x, C y) {
  if constexpr (std::is_floating_point_v<C>) {
    if (std::isnan(x) || std::isnan(y)) return std::isnan(x) ? x : y;
  }
  return y < x ? y : x;
}

}  // namespace onyx
