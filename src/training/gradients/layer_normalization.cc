// LayerNormalization (opset 17; normalised over the dims from `axis` on): with
// xhat = (X - mean) * inv_std and G = dY * scale,
//   dX = inv_std * (G - mean(G) - xhat * mean(G * xhat)) (means over the normalised dims),
//   dScale = dY * xhat and dBias = dY, each summed to its input's shape.
// float32 with Scale (and B) of exactly the normalised dims' static shape: all three from onyx's
// fused LayerNormalizationGrad kernel (ai.onyx.training, two passes). Otherwise plain ops,
// with mean and inv_std recomputed from X (the node's optional outputs need not exist).
#include "training/gradient_rule.h"

namespace onyx::training {
namespace {

// Whether `param` has statically exactly X's dims from `axis` on.
bool fits_normalised_dims(GradientEmitter& e, const SymbolicShape& xs, int64_t axis, const std::string& param) {
  const SymbolicShape& ps = e.type_of(param).shape;
  if (!ps.has_rank || ps.dims.size() != xs.dims.size() - size_t(axis)) return false;
  for (size_t i = 0; i < ps.dims.size(); ++i) {
    const Dim& want = xs.dims[size_t(axis) + i];
    if (!ps.dims[i].value || !want.value || *ps.dims[i].value != *want.value) return false;
  }
  return true;
}

Status layer_norm_gradient(GradientContext& ctx) {
  const std::string& dy = ctx.output_grads[0];
  if (dy.empty()) return Status::Ok();
  GradientEmitter& e = ctx.emit;
  const std::string& x = ctx.input(0);
  const SymbolicShape& xs = e.type_of(x).shape;
  if (!xs.has_rank) return not_implemented("LayerNormalization's gradient needs the input's rank known statically");
  const int64_t rank = int64_t(xs.dims.size());
  const ir::Attribute* a = ctx.node.attribute("axis");
  int64_t axis = a ? a->i : -1;
  if (axis < 0) axis += rank;
  if (axis < 0 || axis >= rank) return invalid_argument("LayerNormalization axis out of range");
  std::vector<int64_t> axes;
  for (int64_t i = axis; i < rank; ++i) axes.push_back(i);
  const ir::Attribute* eps_attr = ctx.node.attribute("epsilon");
  const DataType t = ctx.elem_type(x);
  if (t == DataType::kFloat && fits_normalised_dims(e, xs, axis, ctx.input(1)) &&
      (ctx.node.inputs.size() < 3 || ctx.node.inputs[2].empty() || fits_normalised_dims(e, xs, axis, ctx.input(2)))) {
    const std::vector<std::string> grads = e.node(
        "LayerNormalizationGrad", {dy, x, ctx.input(1)},
        {{"axis", GradientEmitter::int_attr("axis", axis)},
         {"epsilon", GradientEmitter::float_attr("epsilon", eps_attr ? eps_attr->f : 1e-5f)}},
        3, "ai.onyx.training");
    for (size_t i = 0; i < 3 && i < ctx.node.inputs.size(); ++i)
      if (ctx.needs_grad[i]) ctx.input_grads[i] = grads[i];
    return Status::Ok();
  }
  auto reduce_mean = [&](const std::string& v) {
    if (e.opset() >= 18) return e.op("ReduceMean", {v, e.int64s(axes)});
    return e.op("ReduceMean", {v}, {{"axes", GradientEmitter::ints_attr("axes", axes)}});
  };
  const std::string centred = e.op("Sub", {x, reduce_mean(x)});
  ONYX_ASSIGN_OR_RETURN(std::string eps, e.scalar(t, eps_attr ? eps_attr->f : 1e-5));
  ONYX_ASSIGN_OR_RETURN(std::string one, e.scalar(t, 1.0));
  const std::string inv_std =
      e.op("Div", {one, e.op("Sqrt", {e.op("Add", {reduce_mean(e.op("Mul", {centred, centred})), eps})})});
  const std::string xhat = e.op("Mul", {centred, inv_std});
  if (ctx.needs_grad[0]) {
    const std::string g = e.op("Mul", {dy, ctx.input(1)});
    const std::string inner = e.op("Sub", {e.op("Sub", {g, reduce_mean(g)}), e.op("Mul", {xhat, reduce_mean(e.op("Mul", {g, xhat}))})});
    ctx.input_grads[0] = e.op("Mul", {inv_std, inner});
  }
  if (ctx.needs_grad.size() > 1 && ctx.needs_grad[1]) {
    ONYX_ASSIGN_OR_RETURN(ctx.input_grads[1], e.sum_to_shape_of(e.op("Mul", {dy, xhat}), ctx.output(0), ctx.input(1)));
  }
  if (ctx.node.inputs.size() > 2 && ctx.needs_grad[2]) {
    ONYX_ASSIGN_OR_RETURN(ctx.input_grads[2], e.sum_to_shape_of(dy, ctx.output(0), ctx.input(2)));
  }
  return Status::Ok();
}

}  // namespace
ONYX_REGISTER_GRADIENT("", "LayerNormalization", layer_norm_gradient);
}  // namespace onyx::training
