// Tile(X, repeats): dX = dY seen as [r0, d0, r1, d1, ...] summed over the repeats' dims. The
// repeats must be a constant input and X's rank static; X's dims may be dynamic.
#include "training/gradient_rule.h"

namespace onyx::training {
namespace {

Status tile_gradient(GradientContext& ctx) {
  if (!ctx.needs_grad[0] || ctx.output_grads[0].empty()) return Status::Ok();
  GradientEmitter& e = ctx.emit;
  const Tensor* repeats = e.initializer(ctx.input(1));
  if (!repeats || repeats->dtype() != DataType::kInt64)
    return not_implemented("Tile's gradient needs its repeats to be a constant (an int64 initializer)");
  const SymbolicShape& x = e.type_of(ctx.input(0)).shape;
  const int64_t rank = int64_t(repeats->numel());
  if (!x.has_rank || int64_t(x.dims.size()) != rank)
    return not_implemented("Tile's gradient needs the input's rank known statically and equal to the repeats' count");
  if (rank == 0) {
    ctx.input_grads[0] = ctx.output_grads[0];
    return Status::Ok();
  }
  if (e.opset() < 10) return not_implemented("Tile's gradient before opset 10 (the model's opset is ", e.opset(), ")");
  const std::string dims = e.op("Shape", {ctx.input(0)});
  std::vector<std::string> target;
  std::vector<int64_t> summed;
  for (int64_t i = 0; i < rank; ++i) {
    target.push_back(e.int64s({repeats->data<int64_t>()[i]}));
    target.push_back(e.op("Slice", {dims, e.int64s({i}), e.int64s({i + 1})}));
    summed.push_back(2 * i);
  }
  const std::string split = e.op("Reshape", {ctx.output_grads[0], e.op("Concat", target, {{"axis", GradientEmitter::int_attr("axis", 0)}})});
  ctx.input_grads[0] = e.reduce_sum(split, summed, false);
  return Status::Ok();
}

}  // namespace
ONYX_REGISTER_GRADIENT("", "Tile", tile_gradient);
}  // namespace onyx::training
