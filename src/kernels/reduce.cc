#include "kernels/reduce.h"

#include "kernels/avx512_math.h"
#include "kernels/target_clones.h"

namespace onyx {

Result<ReducePlan> make_reduce_plan(const Shape& in, const std::vector<int64_t>& axes, bool keepdims) {
  const int64_t rank = int64_t(in.size());
  std::vector<bool> reduced(in.size(), axes.empty());
  for (int64_t a : axes) {
    if (a < -rank || a >= rank) return invalid_argument("reduction axis ", a, " is out of range for rank ", rank);
    const size_t d = size_t(a < 0 ? a + rank : a);
    if (reduced[d] && !axes.empty()) return invalid_argument("reduction axis ", a, " is repeated");
    reduced[d] = true;
  }
  ReducePlan p;
  p.out_count = 1;
  p.reduce_count = 1;
  const std::vector<int64_t> strides = shape_strides(in);
  bool last_reduced = false;  // kind of the last merged group (meaningless while both lists are empty)
  for (size_t d = 0; d < in.size(); ++d) {
    const int64_t n = in[d];
    if (reduced[d]) {
      p.reduce_count *= n;
      if (keepdims) p.out_shape.push_back(1);
    } else {
      p.out_count *= n;
      p.out_shape.push_back(n);
    }
    if (n == 1) continue;  // contributes nothing to either walk
    std::vector<int64_t>& dims = reduced[d] ? p.red_dims : p.kept_dims;
    std::vector<int64_t>& strs = reduced[d] ? p.red_strides : p.kept_strides;
    if (!dims.empty() && last_reduced == reduced[d]) {
      dims.back() *= n;  // row-major: the merged group keeps the inner stride
      strs.back() = strides[d];
    } else {
      dims.push_back(n);
      strs.push_back(strides[d]);
    }
    last_reduced = reduced[d];
  }
  return p;
}

namespace {

// acc[i] += row[i] for i < n, in double.
ONYX_TARGET_CLONES void accumulate_as_double(const float* row, double* acc, int64_t n) {
  for (int64_t i = 0; i < n; ++i) acc[i] += double(row[i]);
}

#if ONYX_HAVE_AVX512
// out[i] = float(sum over r < rows, in order, of double(in[r * stride + i]) / divisor) for i < n
// (n <= 64): the double sums kept in eight registers while the rows stream past.
ONYX_AVX512 void column_sums_avx512(const float* in, int64_t rows, int64_t stride, int64_t n, float* out, double divisor) {
  __m512d acc[8];
  for (auto& a : acc) a = _mm512_setzero_pd();
  __mmask16 mask[4];
  for (int q = 0; q < 4; ++q) mask[q] = avx512::first_lanes(std::max<int64_t>(0, n - 16 * q));
  for (int64_t r = 0; r < rows; ++r) {
    const float* row = in + r * stride;
#pragma GCC unroll 4
    for (int q = 0; q < 4; ++q) {
      const __m512 v = _mm512_maskz_loadu_ps(mask[q], row + 16 * q);
      acc[2 * q] = _mm512_add_pd(acc[2 * q], _mm512_cvtps_pd(_mm512_castps512_ps256(v)));
      acc[2 * q + 1] = _mm512_add_pd(acc[2 * q + 1], _mm512_cvtps_pd(_mm512_extractf32x8_ps(v, 1)));
    }
  }
  const __m512d d = _mm512_set1_pd(divisor);
  for (int q = 0; q < 4; ++q) {
    const __m256 lo = _mm512_cvtpd_ps(_mm512_div_pd(acc[2 * q], d)), hi = _mm512_cvtpd_ps(_mm512_div_pd(acc[2 * q + 1], d));
    _mm512_mask_storeu_ps(out + 16 * q, mask[q], _mm512_insertf32x8(_mm512_castps256_ps512(lo), hi, 1));
  }
}
#endif

}  // namespace

bool sum_contiguous_kept_float(const ReducePlan& plan, const float* in, float* out, double divisor) {
  if (plan.reduce_count == 0 || plan.kept_dims.empty() || plan.kept_strides.back() != 1) return false;
  const int64_t width = plan.kept_dims.back();
  if (width < 16) return false;
#if ONYX_HAVE_AVX512
  if (avx512::available() && plan.red_dims.size() == 1) {
    // One reduced run per output (a [rows, width] matrix per block): columns in runs of 64.
    const int64_t blocks = plan.out_count / width, runs = (width + 63) / 64;
    const int64_t rows = plan.red_dims[0], stride = plan.red_strides[0];
    parallel_for(blocks * runs, std::max<int64_t>(1, 16384 / (rows * 64)), [&](int64_t begin, int64_t end) {
      ReduceCursor cur(plan);
      for (int64_t t = begin; t < end; ++t) {
        const int64_t block = t / runs, first = (t % runs) * 64;
        column_sums_avx512(in + cur.base(block * width) + first, rows, stride, std::min<int64_t>(64, width - first),
                           out + block * width + first, divisor);
      }
    });
    return true;
  }
#endif
  constexpr int64_t kRun = 256;  // outputs summed together: their double sums fit in L1
  const int64_t blocks = plan.out_count / width, runs_per_block = (width + kRun - 1) / kRun;
  const int64_t grain = std::max<int64_t>(1, 32768 / (plan.reduce_count * kRun));
  parallel_for(blocks * runs_per_block, grain, [&](int64_t begin, int64_t end) {
    ReduceCursor cur(plan);
    double acc[kRun];
    for (int64_t t = begin; t < end; ++t) {
      const int64_t block = t / runs_per_block, first = (t % runs_per_block) * kRun;
      const int64_t n = std::min(kRun, width - first);
      std::fill(acc, acc + n, 0.0);
      // Output block * width + first + i reduces the elements at (offsets below) + i.
      cur.visit(cur.base(block * width) + first, [&](int64_t off) { accumulate_as_double(in + off, acc, n); });
      float* dst = out + block * width + first;
      for (int64_t i = 0; i < n; ++i) dst[i] = float(acc[i] / divisor);
    }
  });
  return true;
}

ReduceAxes ReduceAxes::parse(const KernelInfo& info, int axes_input_since) {
  ReduceAxes a;
  a.keepdims = info.attr_int("keepdims", 1) != 0;
  a.noop_with_empty_axes = info.attr_int("noop_with_empty_axes", 0) != 0;
  a.from_input = info.opset() >= axes_input_since;
  // Before axes_input_since the axes are an attribute; later models should not carry it, but
  // it is honoured when the input is absent.
  a.attribute = info.attr_ints("axes");
  return a;
}

Result<std::vector<int64_t>> ReduceAxes::resolve(const KernelContext& ctx) const {
  if (!from_input || !ctx.has_input(1)) return attribute;
  const Tensor& a = ctx.input(1);
  if (!a.defined() || !is_integer_type(a.dtype()) || a.rank() > 1)
    return invalid_argument("input 'axes' must be a 1-D integer tensor, got ", ctx.input_value(1).describe());
  return a.to_int64_vector();
}

Status ReduceKernel::prepare(const KernelInfo& info) {
  axes_ = ReduceAxes::parse(info, axes_input_since());
  return Status::Ok();
}

Status ReduceKernel::compute(KernelContext& ctx) const {
  const Tensor& x = ctx.input(0);
  if (!x.defined()) return invalid_argument("input 'data' is missing or not a tensor");
  ONYX_ASSIGN_OR_RETURN(const std::vector<int64_t> axes, axes_.resolve(ctx));
  if (axes_.noop(axes)) {
    ctx.set_output(0, x);
    return Status::Ok();
  }
  ONYX_ASSIGN_OR_RETURN(const ReducePlan plan, make_reduce_plan(x.shape(), axes, axes_.keepdims));
  ONYX_ASSIGN_OR_RETURN(Tensor* y, ctx.allocate_output(0, x.dtype(), plan.out_shape));
  return reduce(plan, x, *y);
}

}  // namespace onyx
