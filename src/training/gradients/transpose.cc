// Transpose(perm): dX = Transpose(dY, inverse of perm) (perm absent: the dims reversed).
#include "training/gradient_rule.h"

namespace onyx::training {
namespace {

Status transpose_gradient(GradientContext& ctx) {
  if (!ctx.needs_grad[0] || ctx.output_grads[0].empty()) return Status::Ok();
  std::vector<int64_t> perm;
  if (const ir::Attribute* p = ctx.node.attribute("perm")) {
    perm = p->ints;
  } else {
    const SymbolicShape& x = ctx.emit.type_of(ctx.input(0)).shape;
    if (!x.has_rank) return not_implemented("Transpose's gradient without perm needs the input's rank");
    for (size_t i = x.dims.size(); i-- > 0;) perm.push_back(int64_t(i));
  }
  std::vector<int64_t> inverse(perm.size(), -1);
  for (size_t i = 0; i < perm.size(); ++i) {
    if (perm[i] < 0 || perm[i] >= int64_t(perm.size()) || inverse[size_t(perm[i])] != -1)
      return invalid_argument("Transpose perm is not a permutation");
    inverse[size_t(perm[i])] = int64_t(i);
  }
  ctx.input_grads[0] = ctx.emit.op("Transpose", {ctx.output_grads[0]},
                                   {{"perm", GradientEmitter::ints_attr("perm", inverse)}});
  return Status::Ok();
}

}  // namespace
ONYX_REGISTER_GRADIENT("", "Transpose", transpose_gradient);
}  // namespace onyx::training
