// Elementwise unary kernels: apply a function to every element of input 0 and write output 0
// with the same shape.
//
//   return unary_map<ONYX_FLOAT_TYPES>(ctx, [](auto x) { return std::sin(x); });
//
// fn receives each element as compute_t<T> (float for the 16-bit floats) and returns a value
// converted back to T (unary_map) or to the fixed output type Out (unary_map_to<Out, ...>).
// fn must be pure: it may run on several threads at once.
#pragma once
#include <cstdint>
#include <type_traits>

#include "core/parallel.h"
#include "kernels/dispatch.h"
#include "kernels/kernel.h"

namespace onyx {

// Input 0 as a tensor, or INVALID_ARGUMENT when it is missing or not a tensor.
inline Result<const Tensor*> unary_input(const KernelContext& ctx) {
  if (!ctx.has_input(0) || !ctx.input_value(0).is_tensor())
    return invalid_argument("input 0 must be a tensor, got ", ctx.input_value(0).describe());
  return &ctx.input(0);
}

namespace detail {
inline constexpr int64_t kUnaryGrain = 16384;

template <typename In, typename Out, typename F>
void unary_loop(const Tensor& x, Tensor& y, const F& fn) {
  const In* in = x.data<In>();
  Out* out = y.data<Out>();
  parallel_for(x.numel(), kUnaryGrain, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i)
      out[i] = static_cast<Out>(fn(static_cast<compute_t<In>>(in[i])));
  });
}
}  // namespace detail

// y = fn(x) elementwise, y of x's dtype; types outside Ts give NOT_IMPLEMENTED.
template <typename... Ts, typename F>
Status unary_map(KernelContext& ctx, const F& fn) {
  ONYX_ASSIGN_OR_RETURN(const Tensor* x, unary_input(ctx));
  ONYX_ASSIGN_OR_RETURN(Tensor* y, ctx.allocate_output_uninitialized(0, x->dtype(), x->shape()));
  return dispatch<Ts...>(x->dtype(), [&]<typename T>() -> Status {
    detail::unary_loop<T, T>(*x, *y, fn);
    return Status::Ok();
  });
}

// y = fn(x) elementwise, y of dtype Out (e.g. bool for predicates).
template <typename Out, typename... Ts, typename F>
Status unary_map_to(KernelContext& ctx, const F& fn) {
  ONYX_ASSIGN_OR_RETURN(const Tensor* x, unary_input(ctx));
  ONYX_ASSIGN_OR_RETURN(Tensor* y, ctx.allocate_output_uninitialized(0, data_type_of<Out>, x->shape()));
  return dispatch<Ts...>(x->dtype(), [&]<typename T>() -> Status {
    detail::unary_loop<T, Out>(*x, *y, fn);
    return Status::Ok();
  });
}

// -x for any arithmetic type without signed-overflow UB (wraps for the most negative integer).
template <typename T>
T wrapping_neg(T x) {
  if constexpr (std::is_integral_v<T> && std::is_signed_v<T>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(U(0) - static_cast<U>(x)));
  } else {
    return -x;
  }
}

}  // namespace onyx
