// What the elementwise one-input gradient rules share (the trigonometric and hyperbolic
// functions, Softsign, ThresholdedRelu ...): nothing to do unless X needs a gradient and one
// flows into Y; otherwise dX is what `derivative` emits from X, Y, dY and X's element type.
#pragma once
#include <functional>

#include "training/gradient_rule.h"

namespace onyx::training {

using UnaryDerivative = std::function<Result<std::string>(GradientEmitter& e, const std::string& x,
                                                          const std::string& y, const std::string& dy, DataType t)>;

inline Status unary_gradient(GradientContext& ctx, const UnaryDerivative& derivative) {
  if (!ctx.needs_grad[0] || ctx.output_grads[0].empty()) return Status::Ok();
  ONYX_ASSIGN_OR_RETURN(ctx.input_grads[0], derivative(ctx.emit, ctx.input(0), ctx.output(0), ctx.output_grads[0],
                                                       ctx.elem_type(ctx.input(0))));
  return Status::Ok();
}

// 1 in type t, for the derivatives that need it.
inline Result<std::string> one_of(GradientEmitter& e, DataType t) { return e.scalar(t, 1.0); }

}  // namespace onyx::training
