// Upsample (opsets 7-9): Y has X's type and rank; each dim is floor(in * scale), the scales
// being the attribute (opset 7) or the constant second input (opset 9).
#include <cmath>

#include "ops/op_rule.h"
#include "ops/shape_rule_util.h"

namespace onyx::ops {
namespace {

Status infer_upsample(InferenceContext& ctx) {
  const DataType elem = ctx.input_elem_type(0);
  const SymbolicShape x = ctx.input_shape(0);
  if (!x.has_rank) {
    ctx.set_output(0, elem, {});
    return Status::Ok();
  }
  std::vector<double> scales;
  bool known = true;
  if (ctx.opset() < 9) {
    if (const ir::Attribute* a = ctx.node().attribute("scales"))
      for (float s : a->floats) scales.push_back(double(s));
  } else if (const Tensor* t = ctx.constant_input(1)) {
    for (int64_t i = 0; i < t->numel(); ++i) scales.push_back(t->get_double(i));
  } else {
    known = false;
  }
  SymbolicShape out = x;
  for (size_t d = 0; d < out.dims.size(); ++d) {
    if (!known || scales.size() != out.dims.size()) {
      out.dims[d] = Dim{};
      continue;
    }
    const double s = scales[d];
    if (s == 1.0) continue;
    Dim& dim = out.dims[d];
    dim = dim.value && s > 0 && std::isfinite(s) ? dim_from_double(std::floor(double(*dim.value) * s)) : Dim{};
  }
  ctx.set_output(0, elem, std::move(out));
  return Status::Ok();
}

}  // namespace
ONYX_REGISTER_OP_RULE("", "Upsample", 1, 1000, infer_upsample);
}  // namespace onyx::ops
