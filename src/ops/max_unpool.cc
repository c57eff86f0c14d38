// MaxUnpool: X's element type. The shape is the constant output_shape input 2 when given;
// otherwise [N, C, (D_i - 1) * stride_i - pad_begin_i - pad_end_i + kernel_i, ...].
// A non-constant output_shape leaves only the rank known.
#include "ops/op_rule.h"
#include "ops/shape_rule_util.h"

namespace onyx::ops {
namespace {

Status infer_max_unpool(InferenceContext& ctx) {
  const DataType elem = ctx.input_elem_type(0);
  const SymbolicShape in = ctx.input_shape(0);
  if (ctx.has_input(2)) {
    if (std::optional<std::vector<int64_t>> shape = constant_ints(ctx, 2)) {
      ctx.set_output(0, elem, known_shape(*shape));
    } else {
      ctx.set_output(0, elem, in.has_rank ? unknown_dims(int64_t(in.dims.size())) : SymbolicShape{});
    }
    return Status::Ok();
  }
  if (!in.has_rank) {
    ctx.set_output(0, elem, {});
    return Status::Ok();
  }
  const size_t rank = in.dims.size();
  if (rank < 3) return invalid_model("MaxUnpool: X must have rank 3 or more, got ", rank);
  const size_t r = rank - 2;
  const std::vector<int64_t> kernel = ctx.attr_ints("kernel_shape"), strides = ctx.attr_ints("strides"),
                             pads = ctx.attr_ints("pads");
  if (kernel.size() != r || (!strides.empty() && strides.size() != r) || (!pads.empty() && pads.size() != 2 * r))
    return invalid_model("MaxUnpool: kernel_shape, strides and pads do not match ", r, " spatial dims");
  SymbolicShape out = in;
  for (size_t d = 0; d < r; ++d) {
    Dim& o = out.dims[d + 2];
    const int64_t s = strides.empty() ? 1 : strides[d];
    // Hostile kernel_shape and pads may be near INT64_MAX: summed in 128 bits, and a length
    // outside [0, 2^62] is left unknown (the kernel rejects it at run).
    const __int128 p = pads.empty() ? 0 : __int128(pads[d]) + pads[d + r];
    if (!o.value || *o.value < 1 || s < 1 || s > (int64_t(1) << 30) || *o.value > (int64_t(1) << 30)) {
      o = Dim{};
      continue;
    }
    const __int128 len = __int128(*o.value - 1) * s + kernel[d] - p;
    o = len >= 0 && len <= (__int128(1) << 62) ? known_dim(int64_t(len)) : Dim{};
  }
  ctx.set_output(0, elem, std::move(out));
  return Status::Ok();
}

}  // namespace

ONYX_REGISTER_OP_RULE("", "MaxUnpool", 1, 1000, infer_max_unpool);

}  // namespace onyx::ops
