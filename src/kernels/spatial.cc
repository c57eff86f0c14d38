#include "kernels/spatial.h"

namespace onyx {
namespace {

constexpr int64_t kMaxWindowAttr = int64_t(1) << 31;

Status check_range(const char* name, const std::vector<int64_t>& v, int64_t min) {
  for (int64_t x : v) {
    if (x < min || x >= kMaxWindowAttr)
      return invalid_model("attribute '", name, "' has value ", x, " (must be at least ", min, ")");
  }
  return Status::Ok();
}

}  // namespace

Status parse_window_attrs(const KernelInfo& info, WindowAttrs* attrs) {
  attrs->kernel_shape = info.attr_ints("kernel_shape");
  attrs->strides = info.attr_ints("strides");
  attrs->dilations = info.attr_ints("dilations");
  attrs->pads = info.attr_ints("pads");
  attrs->ceil_mode = info.attr_int("ceil_mode", 0) != 0;
  ONYX_RETURN_IF_ERROR(check_range("kernel_shape", attrs->kernel_shape, 1));
  ONYX_RETURN_IF_ERROR(check_range("strides", attrs->strides, 1));
  ONYX_RETURN_IF_ERROR(check_range("dilations", attrs->dilations, 1));
  ONYX_RETURN_IF_ERROR(check_range("pads", attrs->pads, 0));
  if (attrs->pads.size() % 2 != 0) return invalid_model("attribute 'pads' has odd length ", attrs->pads.size());
  const std::string auto_pad = info.attr_string("auto_pad", "NOTSET");
  if (auto_pad == "NOTSET") {
    attrs->auto_pad = AutoPad::kNotSet;
  } else if (auto_pad == "SAME_UPPER") {
    attrs->auto_pad = AutoPad::kSameUpper;
  } else if (auto_pad == "SAME_LOWER") {
    attrs->auto_pad = AutoPad::kSameLower;
  } else if (auto_pad == "VALID") {
    attrs->auto_pad = AutoPad::kValid;
  } else {
    return invalid_model("unknown auto_pad '", auto_pad, "'");
  }
  return Status::Ok();
}

Result<WindowGeometry> resolve_window(const WindowAttrs& attrs, const Shape& in, const std::vector<int64_t>& kernel) {
  const size_t r = in.size();
  auto check_len = [&](const char* name, size_t len, size_t want) -> Status {
    if (len != 0 && len != want)
      return invalid_argument("attribute '", name, "' has ", len, " values but the input has ", r, " spatial dims");
    return Status::Ok();
  };
  ONYX_RETURN_IF_ERROR(check_len("kernel_shape", kernel.size(), r));
  ONYX_RETURN_IF_ERROR(check_len("strides", attrs.strides.size(), r));
  ONYX_RETURN_IF_ERROR(check_len("dilations", attrs.dilations.size(), r));
  ONYX_RETURN_IF_ERROR(check_len("pads", attrs.pads.size(), 2 * r));
  if (kernel.size() != r) return invalid_argument("kernel has ", kernel.size(), " dims, input has ", r);

  WindowGeometry g;
  g.in = in;
  g.kernel = kernel;
  g.strides = attrs.strides.empty() ? std::vector<int64_t>(r, 1) : attrs.strides;
  g.dilations = attrs.dilations.empty() ? std::vector<int64_t>(r, 1) : attrs.dilations;
  g.pad_begin.assign(r, 0);
  g.pad_end.assign(r, 0);
  g.out.assign(r, 0);
  for (size_t d = 0; d < r; ++d) {
    if (kernel[d] < 1 || kernel[d] >= kMaxWindowAttr)
      return invalid_argument("kernel size ", kernel[d], " is out of range");
    const int64_t s = g.strides[d];
    const int64_t ek = (kernel[d] - 1) * g.dilations[d] + 1;
    if (attrs.auto_pad == AutoPad::kSameUpper || attrs.auto_pad == AutoPad::kSameLower) {
      g.out[d] = spatial_detail::ceil_div(in[d], s);
      const int64_t total = std::max<int64_t>(0, (g.out[d] - 1) * s + ek - in[d]);
      g.pad_begin[d] = attrs.auto_pad == AutoPad::kSameUpper ? total / 2 : total - total / 2;
      g.pad_end[d] = total - g.pad_begin[d];
      continue;
    }
    if (attrs.auto_pad == AutoPad::kNotSet && !attrs.pads.empty()) {
      g.pad_begin[d] = attrs.pads[d];
      g.pad_end[d] = attrs.pads[d + r];
    }
    const int64_t span = in[d] + g.pad_begin[d] + g.pad_end[d] - ek;
    if (span < 0)
      return invalid_argument("spatial dim ", d, " of size ", in[d], " (padded ", in[d] + g.pad_begin[d] + g.pad_end[d],
                              ") is smaller than the dilated kernel ", ek);
    if (attrs.ceil_mode && attrs.auto_pad == AutoPad::kNotSet) {
      g.out[d] = spatial_detail::ceil_div(span, s) + 1;
      if ((g.out[d] - 1) * s >= in[d] + g.pad_begin[d]) --g.out[d];
    } else {
      g.out[d] = span / s + 1;
    }
  }
  return g;
}

}  // namespace onyx
