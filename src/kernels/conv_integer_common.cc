#include "kernels/conv_integer_common.h"

#include "kernels/conv_common.h"
#include "kernels/dispatch.h"

namespace onyx {
namespace {

// x minus its zero point as wrapping uint64; the zero point is per tensor, or per slice of
// `per` elements when it holds `slices` values.
Result<std::vector<uint64_t>> minus_zero_point(const Tensor& x, const Tensor& zp, int64_t slices, const char* name) {
  const bool per_slice = zp.defined() && zp.numel() != 1;
  if (zp.defined() && (zp.dtype() != x.dtype() || (per_slice && (zp.rank() != 1 || zp.dim(0) != slices))))
    return invalid_argument(name, " ", zp.describe(), " must be a scalar", slices > 1 ? " or 1-D per channel" : "",
                            " of the type of its operand ", x.describe());
  const int64_t per = slices > 0 ? x.numel() / slices : 0;
  std::vector<uint64_t> out(size_t(x.numel()));
  Status st = dispatch<uint8_t, int8_t>(x.dtype(), [&]<typename Q>() -> Status {
    const Q* in = x.data<Q>();
    const Q* z = zp.defined() ? zp.data<Q>() : nullptr;
    for (int64_t i = 0; i < x.numel(); ++i)
      out[size_t(i)] = uint64_t(int64_t(in[i]) - (z ? int64_t(z[per_slice ? i / per : 0]) : 0));
    return Status::Ok();
  });
  if (!st.ok()) return st;
  return out;
}

}  // namespace

Result<IntegerConvResult> integer_conv(const WindowAttrs& attrs, int64_t group, const Tensor& x, const Tensor& x_zp,
                                       const Tensor& w, const Tensor& w_zp) {
  IntegerConvResult r;
  ONYX_ASSIGN_OR_RETURN(r.geometry, resolve_conv(attrs, group, x.shape(), w.shape()));
  const int64_t batch = x.dim(0), channels = x.dim(1), maps = w.dim(0);
  ONYX_ASSIGN_OR_RETURN(std::vector<uint64_t> xc, minus_zero_point(x, x_zp, 1, "x_zero_point"));
  ONYX_ASSIGN_OR_RETURN(std::vector<uint64_t> wc, minus_zero_point(w, w_zp, maps, "w_zero_point"));
  r.y_shape = {batch, maps};
  r.y_shape.insert(r.y_shape.end(), r.geometry.out.begin(), r.geometry.out.end());
  const int64_t n = shape_size(r.y_shape);
  if (n < 0) return invalid_argument("output shape ", shape_to_string(r.y_shape), " overflows");
  r.acc.assign(size_t(n), 0);
  if (n > 0) conv_gemm<uint64_t>(xc.data(), wc.data(), r.acc.data(), batch, channels, maps, group, r.geometry);
  return r;
}

}  // namespace onyx
