// Resize: Y has X's type and rank. Resized dims come from a constant `sizes` (as given, or,
// with opset 18's keep_aspect_ratio_policy, one common scale rounded half up) or a constant
// `scales` (floor(in * scale), as the kernel computes in double); other dims are X's.
// Inputs: opset 10 (X, scales); opset 11+ (X, roi, scales, sizes). Opset 18 adds `axes`.
#include <cmath>
#include <limits>

#include "ops/op_rule.h"
#include "ops/shape_rule_util.h"

namespace onyx::ops {
namespace {

// A constant input with at least one value (what the kernel counts as given).
const Tensor* given_constant(const InferenceContext& ctx, int i) {
  if (!ctx.has_input(i)) return nullptr;
  const Tensor* t = ctx.constant_input(i);
  return t && t->numel() > 0 ? t : nullptr;
}

// True when input i is present and may hold values (not a constant empty tensor).
bool maybe_given(const InferenceContext& ctx, int i) {
  if (!ctx.has_input(i)) return false;
  const Tensor* t = ctx.constant_input(i);
  return !t || t->numel() > 0;
}

Status infer_resize(InferenceContext& ctx) {
  const DataType elem = ctx.input_elem_type(0);
  const SymbolicShape x = ctx.input_shape(0);
  if (!x.has_rank) {
    ctx.set_output(0, elem, {});
    return Status::Ok();
  }
  const int64_t rank = int64_t(x.dims.size());
  SymbolicShape out = x;
  std::vector<int64_t> axes;
  if (ctx.opset() >= 18 && ctx.has_attr("axes")) {
    for (int64_t a : ctx.attr_ints("axes")) {
      if (a < -rank || a >= rank) return invalid_model("axis ", a, " is out of range for rank ", rank);
      axes.push_back(a < 0 ? a + rank : a);
    }
  } else {
    for (int64_t d = 0; d < rank; ++d) axes.push_back(d);
  }
  const bool legacy = ctx.opset() < 11;
  const int scales_index = legacy ? 1 : 2;
  const Tensor* sizes = legacy ? nullptr : given_constant(ctx, 3);
  const Tensor* scales = given_constant(ctx, scales_index);
  const bool sizes_maybe = !legacy && maybe_given(ctx, 3);
  const size_t k = axes.size();
  auto unknown_axes = [&]() {
    for (int64_t a : axes) out.dims[size_t(a)] = Dim{};
  };

  if (sizes && !maybe_given(ctx, scales_index) && size_t(sizes->numel()) == k && sizes->rank() == 1) {
    const std::string keep = ctx.opset() >= 18 ? ctx.attr_string("keep_aspect_ratio_policy", "stretch") : "stretch";
    if (keep == "stretch") {
      for (size_t i = 0; i < k; ++i) out.dims[size_t(axes[i])] = Dim{sizes->get_int64(int64_t(i)), ""};
    } else {
      // One scale for all resized axes: the smallest (not_larger) / largest (not_smaller) ratio.
      const bool not_larger = keep == "not_larger";
      double scale = not_larger ? std::numeric_limits<double>::infinity() : 0;
      bool known = true;
      for (size_t i = 0; i < k; ++i) {
        const Dim& in = x.dims[size_t(axes[i])];
        if (!in.value) known = false;
        else if (*in.value != 0) {
          const double r = double(sizes->get_int64(int64_t(i))) / double(*in.value);
          scale = not_larger ? std::min(scale, r) : std::max(scale, r);
        }
      }
      if (!known || !(scale > 0) || !std::isfinite(scale)) {
        unknown_axes();
      } else {
        for (int64_t a : axes) out.dims[size_t(a)] = dim_from_double(std::floor(scale * double(*x.dims[size_t(a)].value) + 0.5));
      }
    }
  } else if (scales && !sizes_maybe && size_t(scales->numel()) == k && scales->rank() == 1) {
    for (size_t i = 0; i < k; ++i) {
      const double s = scales->get_double(int64_t(i));
      Dim& d = out.dims[size_t(axes[i])];
      if (s == 1.0) continue;  // floor(in * 1) = in, symbols included
      d = d.value && s > 0 && std::isfinite(s) ? dim_from_double(std::floor(double(*d.value) * s)) : Dim{};
    }
  } else {
    unknown_axes();
  }
  ctx.set_output(0, elem, std::move(out));
  return Status::Ok();
}

}  // namespace
ONYX_REGISTER_OP_RULE("", "Resize", 10, 1000, infer_resize);
}  // namespace onyx::ops
