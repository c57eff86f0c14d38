// DepthToSpace(blocksize b): in DCR mode dX = SpaceToDepth(dY, b), its exact inverse; in CRD
// mode (PyTorch's pixel_shuffle) dY [N, C, H*b, W*b] is seen as [N, C, H, b, W, b], transposed to
// [N, C, b, b, H, W] and reshaped to X's shape.
#include "training/gradient_rule.h"

namespace onyx::training {
namespace {

Status depth_to_space_gradient(GradientContext& ctx) {
  if (!ctx.needs_grad[0] || ctx.output_grads[0].empty()) return Status::Ok();
  GradientEmitter& e = ctx.emit;
  const ir::Attribute* block = ctx.node.attribute("blocksize");
  if (!block || block->i <= 0) return invalid_argument("DepthToSpace needs a positive blocksize");
  const int64_t b = block->i;
  const ir::Attribute* mode = ctx.node.attribute("mode");
  const std::string& dy = ctx.output_grads[0];
  if (!mode || mode->s == "DCR") {
    ctx.input_grads[0] = e.op("SpaceToDepth", {dy}, {{"blocksize", GradientEmitter::int_attr("blocksize", b)}});
    return Status::Ok();
  }
  if (mode->s != "CRD") return invalid_argument("DepthToSpace mode '", mode->s, "'");
  if (e.opset() < 10) return not_implemented("DepthToSpace's gradient in CRD mode before opset 10 (Slice)");
  const std::string s = e.op("Shape", {dy});
  auto dim_over_b = [&](int64_t i) {
    return e.op("Div", {e.op("Slice", {s, e.int64s({i}), e.int64s({i + 1})}), e.int64s({b})});
  };
  const std::string six = e.op("Concat", {e.op("Slice", {s, e.int64s({0}), e.int64s({2})}), dim_over_b(2),
                                          e.int64s({b}), dim_over_b(3), e.int64s({b})},
                               {{"axis", GradientEmitter::int_attr("axis", 0)}});
  const std::string moved = e.op("Transpose", {e.op("Reshape", {dy, six})},
                                 {{"perm", GradientEmitter::ints_attr("perm", {0, 1, 3, 5, 2, 4})}});
  ctx.input_grads[0] = e.op("Reshape", {moved, e.op("Shape", {ctx.input(0)})});
  return Status::Ok();
}

}  // namespace
ONYX_REGISTER_GRADIENT("", "DepthToSpace", depth_to_space_gradient);
}  // namespace onyx::training
