#include "training/gradients/reduce_common.h"

#include <algorithm>

namespace onyx::training {

Result<KeptReduction> kept_reduction(GradientContext& ctx) {
  GradientEmitter& e = ctx.emit;
  const SymbolicShape& x = e.type_of(ctx.input(0)).shape;
  if (!x.has_rank) return not_implemented(ctx.node.op_type, "'s gradient needs the input's rank known statically");
  KeptReduction r;
  r.rank = int64_t(x.dims.size());
  std::vector<int64_t> axes;
  bool axes_given = false;
  if (const ir::Attribute* a = ctx.node.attribute("axes")) {
    axes = a->ints;
    axes_given = true;
  } else if (ctx.node.inputs.size() > 1 && !ctx.node.inputs[1].empty()) {
    const Tensor* t = e.initializer(ctx.node.inputs[1]);
    if (!t || t->dtype() != DataType::kInt64)
      return not_implemented(ctx.node.op_type, "'s gradient needs its axes input to be a constant (an int64 "
                             "initializer), got '", ctx.node.inputs[1], "'");
    axes.assign(t->data<int64_t>(), t->data<int64_t>() + t->numel());
    axes_given = true;
  }
  const ir::Attribute* noop = ctx.node.attribute("noop_with_empty_axes");
  if ((!axes_given || axes.empty()) && noop && noop->i) {
    r.nothing = true;
    r.y = ctx.output(0);
    r.dy = ctx.output_grads[0];
    return r;
  }
  std::vector<bool> reduced(size_t(r.rank), !axes_given || axes.empty());
  for (int64_t a : axes) {
    if (a < -r.rank || a >= r.rank)
      return invalid_argument(ctx.node.op_type, " axis ", a, " out of range for rank ", r.rank);
    reduced[size_t(a < 0 ? a + r.rank : a)] = true;
  }
  for (int64_t i = 0; i < r.rank; ++i)
    if (reduced[size_t(i)]) r.axes.push_back(i);
  r.y = ctx.output(0);
  r.dy = ctx.output_grads[0];
  const ir::Attribute* keep = ctx.node.attribute("keepdims");
  if (keep && keep->i == 0 && !r.axes.empty()) {  // put the reduced dims back as 1
    r.y = e.unsqueeze(r.y, r.axes);
    r.dy = e.unsqueeze(r.dy, r.axes);
  }
  return r;
}

std::string reduce_over(GradientEmitter& e, const std::string& op, const std::string& x, const std::vector<int64_t>& axes,
                        bool keepdims) {
  const ir::Attribute keep = GradientEmitter::int_attr("keepdims", keepdims ? 1 : 0);
  return e.opset() >= 18 ? e.op(op, {x, e.int64s(axes)}, {{"keepdims", keep}})
                         : e.op(op, {x}, {{"axes", GradientEmitter::ints_attr("axes", axes)}, {"keepdims", keep}});
}

Status kept_reduction_gradient(GradientContext& ctx, const KeptDerivative& derivative) {
  if (!ctx.needs_grad[0] || ctx.output_grads[0].empty()) return Status::Ok();
  ONYX_ASSIGN_OR_RETURN(const KeptReduction r, kept_reduction(ctx));
  if (r.nothing) {
    ctx.input_grads[0] = ctx.output_grads[0];
    return Status::Ok();
  }
  ONYX_ASSIGN_OR_RETURN(ctx.input_grads[0], derivative(ctx.emit, r, ctx.input(0), ctx.elem_type(ctx.input(0))));
  return Status::Ok();
}

Status reduce_gradient(GradientContext& ctx, bool mean) {
  const SymbolicShape& x_shape = ctx.emit.type_of(ctx.input(0)).shape;
  const std::string& y = ctx.output(0);
  return kept_reduction_gradient(ctx, [&](GradientEmitter& e, const KeptReduction& r, const std::string& x,
                                          DataType t) -> Result<std::string> {
    std::string g = e.op("Expand", {r.dy, e.op("Shape", {x})});
    if (!mean) return g;
    double count = 1;
    bool known = true;
    for (int64_t i : r.axes) {
      known = known && x_shape.dims[size_t(i)].value.has_value();
      if (known) count *= double(*x_shape.dims[size_t(i)].value);
    }
    if (known) {
      ONYX_ASSIGN_OR_RETURN(std::string scale, e.scalar(t, count > 0 ? 1.0 / count : 0.0));
      return e.op("Mul", {g, scale});
    }
    // The count at run time: |Y| / |X| elements.
    auto as_t = [&](const std::string& v) { return e.op("Cast", {v}, {{"to", GradientEmitter::int_attr("to", int64_t(t))}}); };
    return e.op("Mul", {g, e.op("Div", {as_t(e.op("Size", {y})), as_t(e.op("Size", {x}))})});
  });
}

Status reduce_select_gradient(GradientContext& ctx) {
  return kept_reduction_gradient(ctx, [](GradientEmitter& e, const KeptReduction& r, const std::string& x,
                                         DataType t) -> Result<std::string> {
    const std::string chosen = e.op("Cast", {e.op("Equal", {x, r.y})}, {{"to", GradientEmitter::int_attr("to", int64_t(t))}});
    const std::string ties = e.reduce_sum(chosen, r.axes, true);
    return e.op("Mul", {e.op("Div", {r.dy, ties}), chosen});
  });
}

}  // namespace onyx::training
