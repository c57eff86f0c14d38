#include "ops/loss_shape.h"

namespace onyx::ops {

Status infer_loss_output(InferenceContext& ctx) {
  const DataType elem = ctx.input_elem_type(0);
  const std::string reduction = ctx.attr_string("reduction", "mean");
  if (reduction == "sum" || reduction == "mean") {
    ctx.set_output(0, elem, known_shape({}));
    return Status::Ok();
  }
  if (reduction != "none") {
    ctx.set_output(0, elem, {});
    return invalid_model("reduction must be 'none', 'sum' or 'mean', got '", reduction, "'");
  }
  SymbolicShape out = ctx.input_shape(1);
  const SymbolicShape in = ctx.input_shape(0);
  if (in.has_rank && in.dims.size() >= 2) {
    // The target's dims are the input's without C (dim 1).
    SymbolicShape from_input = in;
    from_input.dims.erase(from_input.dims.begin() + 1);
    if (!out.has_rank) {
      out = from_input;
    } else if (out.dims.size() == from_input.dims.size()) {
      for (size_t d = 0; d < out.dims.size(); ++d)
        if (!out.dims[d].value && out.dims[d].symbol.empty()) out.dims[d] = from_input.dims[d];
    }
  }
  ctx.set_output(0, elem, std::move(out));
  return Status::Ok();
}

}  // namespace onyx::ops
