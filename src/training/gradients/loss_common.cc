#include "training/gradients/loss_common.h"

namespace onyx::training {

std::string unsqueeze_axis(GradientEmitter& e, const std::string& x, int64_t axis) {
  return e.unsqueeze(x, {axis});
}

Result<std::string> nll_log_prob_gradient(GradientContext& ctx, const std::string& scores, const std::string& dloss) {
  GradientEmitter& e = ctx.emit;
  const ir::Node& n = ctx.node;
  const DataType ft = ctx.elem_type(scores);
  const DataType lt = ctx.elem_type(n.inputs.at(1));
  if (lt != DataType::kInt64 && lt != DataType::kInt32)
    return not_implemented(n.op_type, "'s gradient needs int32 or int64 labels with a static type");
  const ir::Attribute* red = n.attribute("reduction");
  const std::string reduction = red ? red->s : "mean";
  if (reduction != "mean" && reduction != "sum" && reduction != "none")
    return invalid_argument(n.op_type, " reduction '", reduction, "'");

  // Labels made safe to index with, and the mask of the counted elements.
  std::string labels = n.inputs[1];
  std::string counted;  // bool, "" when every element counts
  if (const ir::Attribute* ii = n.attribute("ignore_index")) {
    ONYX_ASSIGN_OR_RETURN(std::string ignored, e.scalar(lt, double(ii->i)));
    ONYX_ASSIGN_OR_RETURN(std::string zero, e.scalar(lt, 0.0));
    counted = e.op("Not", {e.op("Equal", {labels, ignored})});
    labels = e.op("Where", {counted, labels, zero});
  }
  // Per-element weight: the class weight of its label, or 1; 0 where ignored.
  std::string w;
  if (n.inputs.size() > 2 && !n.inputs[2].empty()) {
    w = e.op("Gather", {n.inputs[2], labels});
  } else {
    ir::Attribute value;
    value.name = "value";
    value.type = ir::Attribute::Type::kTensor;
    ONYX_ASSIGN_OR_RETURN(value.t, Tensor::create(ft, Shape{1}));
    switch (ft) {
      case DataType::kFloat: value.t.data<float>()[0] = 1.f; break;
      case DataType::kDouble: value.t.data<double>()[0] = 1.0; break;
      default: return not_implemented(n.op_type, "'s gradient in ", data_type_name(ft));
    }
    w = e.op("ConstantOfShape", {e.op("Shape", {labels})}, {{"value", value}});
  }
  if (!counted.empty()) {
    ONYX_ASSIGN_OR_RETURN(std::string zero, e.scalar(ft, 0.0));
    w = e.op("Where", {counted, w, zero});
  }
  std::string coef = e.op("Neg", {e.op("Mul", {w, dloss})});
  if (reduction == "mean") {
    const SymbolicShape& ls = e.type_of(n.inputs[1]).shape;
    if (!ls.has_rank) return not_implemented(n.op_type, "'s gradient needs the labels' rank known statically");
    std::vector<int64_t> all;
    for (size_t i = 0; i < ls.dims.size(); ++i) all.push_back(int64_t(i));
    coef = e.op("Div", {coef, e.reduce_sum(w, all, false)});
  }
  // One-hot of the labels along the class axis 1, in the scores' type.
  const std::string depth = e.op("Gather", {e.op("Shape", {scores}), e.int64s({1})});
  Tensor off_on(ft, Shape{2});  // [off, on] = [0, 1]; ft is float or double (checked above)
  if (ft == DataType::kFloat) off_on.data<float>()[1] = 1.f;
  else off_on.data<double>()[1] = 1.0;
  const std::string values = e.constant(std::move(off_on), "one_hot_values");
  const std::string onehot = e.op("OneHot", {labels, depth, values}, {{"axis", GradientEmitter::int_attr("axis", 1)}});
  return e.op("Mul", {onehot, unsqueeze_axis(e, coef, 1)});
}

}  // namespace onyx::training
