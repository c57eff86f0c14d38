// CenterCropPad: input 0's type and rank; along 'axes' (default all) the lengths in input 1
// when it is constant (unknown otherwise), the other dims unchanged.
#include "ops/op_rule.h"
#include "ops/shape_rule_util.h"

namespace onyx::ops {
namespace {

Status infer_center_crop_pad(InferenceContext& ctx) {
  const DataType elem = ctx.input_elem_type(0);
  SymbolicShape out = ctx.input_shape(0);
  if (!out.has_rank) {
    ctx.set_output(0, elem, {});
    return Status::Ok();
  }
  const int64_t rank = int64_t(out.dims.size());
  std::vector<int64_t> axes = ctx.attr_ints("axes");
  if (!ctx.has_attr("axes"))
    for (int64_t d = 0; d < rank; ++d) axes.push_back(d);
  if (!normalize_axes(axes, rank)) return invalid_model("CenterCropPad: 'axes' out of range or repeated for rank ", rank);
  const std::optional<std::vector<int64_t>> lengths = constant_ints(ctx, 1);
  if (lengths && lengths->size() != axes.size())
    return invalid_model("CenterCropPad: ", lengths->size(), " lengths for ", axes.size(), " axes");
  for (size_t k = 0; k < axes.size(); ++k)
    out.dims[size_t(axes[k])] = lengths && (*lengths)[k] >= 0 ? known_dim((*lengths)[k]) : Dim{};
  ctx.set_output(0, elem, std::move(out));
  return Status::Ok();
}

}  // namespace

ONYX_REGISTER_OP_RULE("", "CenterCropPad", 18, 1000, infer_center_crop_pad);

}  // namespace onyx::ops
