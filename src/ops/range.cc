// Range: start's element type; 1-D of max(ceil((limit - start) / delta), 0) elements when
// all three inputs are constant, else of unknown length.
#include <cmath>

#include "ops/op_rule.h"

namespace onyx::ops {
namespace {

// The element count for constant scalars start, limit, delta; -1 when it cannot be told.
int64_t range_count(const Tensor& start, const Tensor& limit, const Tensor& delta) {
  if (start.numel() != 1 || limit.numel() != 1 || delta.numel() != 1) return -1;
  if (start.dtype() != limit.dtype() || start.dtype() != delta.dtype()) return -1;
  const DataType t = start.dtype();
  if (is_integer_type(t) && t != DataType::kUInt64) {
    const __int128 span = __int128(limit.get_int64(0)) - __int128(start.get_int64(0));
    const __int128 d = delta.get_int64(0);
    if (d == 0 || span == 0 || (span > 0) != (d > 0)) return d == 0 ? -1 : 0;
    const __int128 count = span / d + (span % d != 0 ? 1 : 0);
    return count > (__int128(1) << 40) ? -1 : int64_t(count);
  }
  if (is_float_type(t)) {
    const double d = delta.get_double(0);
    if (d == 0) return -1;
    const double count = std::ceil((limit.get_double(0) - start.get_double(0)) / d);
    if (std::isnan(count) || count > double(int64_t(1) << 40)) return -1;
    return count > 0 ? int64_t(count) : 0;
  }
  return -1;
}

Status infer_range(InferenceContext& ctx) {
  DataType elem = ctx.input_elem_type(0);
  const Tensor* start = ctx.constant_input(0);
  const Tensor* limit = ctx.constant_input(1);
  const Tensor* delta = ctx.constant_input(2);
  if (elem == DataType::kUndefined && start) elem = start->dtype();
  const int64_t n = start && limit && delta ? range_count(*start, *limit, *delta) : -1;
  SymbolicShape out = unknown_dims(1);
  if (n >= 0) out.dims[0] = Dim{n, ""};
  ctx.set_output(0, elem, std::move(out));
  return Status::Ok();
}

}  // namespace

ONYX_REGISTER_OP_RULE("", "Range", 1, 1000, infer_range);

}  // namespace onyx::ops
