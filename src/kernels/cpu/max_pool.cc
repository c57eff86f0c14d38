// MaxPool: the maximum over each window of X (N, C, D1..Dn); padding never wins. The optional
// Indices output (opset 8+) holds the flat index of each maximum in X, counting the N and C
// offsets, in row-major order (storage_order 0) or with the spatial dims in column-major order
// (storage_order 1). The first maximum in window order wins ties. A window lying wholly in
// the padding gives the lowest value (-inf for floats) and index -1.
// float32 without Indices and with unit dilations runs through oneDNN's pooling.
#include <limits>
#include <vector>

#include "kernels/dispatch.h"
#include "kernels/kernel.h"
#include "kernels/onednn_pool.h"
#include "kernels/pool_common.h"

namespace onyx {
namespace {

class MaxPoolKernel final : public Kernel {
 public:
  Status prepare(const KernelInfo& info) override {
    ONYX_RETURN_IF_ERROR(parse_pool_attrs(info, &attrs_));
    const int64_t order = info.attr_int("storage_order", 0);
    if (order != 0 && order != 1) return invalid_model("storage_order must be 0 or 1, got ", order);
    column_major_ = order == 1;
    return Status::Ok();
  }

  Status compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    ONYX_ASSIGN_OR_RETURN(WindowGeometry g, resolve_pool(attrs_, x.shape()));
    Shape y_shape{x.dim(0), x.dim(1)};
    y_shape.insert(y_shape.end(), g.out.begin(), g.out.end());
    if (onednn::MaxPool::supports(x.dtype()) && !ctx.output_requested(1) && onednn::MaxPool::supports(g) &&
        pool_work_bounded(g, x.dim(0) * x.dim(1)) && shape_size(y_shape) > 0) {
      ONYX_ASSIGN_OR_RETURN(Tensor* y, ctx.allocate_output_uninitialized(0, x.dtype(), y_shape));
      return fast_.run(x.shape(), g, x.dtype(), x.raw_data(), y->raw_data());
    }
    ONYX_ASSIGN_OR_RETURN(Tensor* y, ctx.allocate_output(0, x.dtype(), y_shape));
    int64_t* indices = nullptr;
    if (ctx.output_requested(1)) {
      ONYX_ASSIGN_OR_RETURN(Tensor* ind, ctx.allocate_output(1, DataType::kInt64, y_shape));
      indices = ind->data<int64_t>();
    }
    if (y->numel() == 0) return Status::Ok();
    const PoolWindows windows(g);
    const std::vector<int64_t> row_strides = shape_strides(g.in);
    std::vector<int64_t> col_strides(g.rank(), 1);
    for (size_t d = 1; d < g.rank(); ++d) col_strides[d] = col_strides[d - 1] * g.in[d - 1];
    // The storage-order offset of a row-major in-plane offset.
    auto stored_offset = [&](int64_t off) {
      if (!column_major_) return off;
      int64_t result = 0;
      for (size_t d = 0; d < g.rank(); ++d) {
        result += off / row_strides[d] * col_strides[d];
        off %= row_strides[d];
      }
      return result;
    };
    return dispatch<ONYX_FLOAT_TYPES, int8_t, uint8_t>(x.dtype(), [&]<typename T>() -> Status {
      using CT = compute_t<T>;
      constexpr CT kLowest = std::numeric_limits<CT>::has_infinity ? -std::numeric_limits<CT>::infinity()
                                                                   : std::numeric_limits<CT>::lowest();
      const int64_t planes = x.dim(0) * x.dim(1), in_size = g.in_size(), out_size = g.out_size();
      const T* in = x.data<T>();
      T* out = y->data<T>();
      PoolStopPoll poll(ctx);
      for (int64_t o = 0; o < out_size; ++o) {
        ONYX_RETURN_IF_ERROR(poll.add(planes * (1 + windows.valid_count(o))));
        for (int64_t p = 0; p < planes; ++p) {
          const T* plane = in + p * in_size;
          CT best = kLowest;
          int64_t best_at = -1;
          windows.for_each_tap(o, [&](int64_t i) {
            const CT v = static_cast<CT>(plane[i]);
            if (best_at < 0 || v > best) {
              best = v;
              best_at = i;
            }
          });
          out[p * out_size + o] = static_cast<T>(best);
          if (indices) indices[p * out_size + o] = best_at < 0 ? -1 : p * in_size + stored_offset(best_at);
        }
      }
      return Status::Ok();
    });
  }

 private:
  WindowAttrs attrs_;
  bool column_major_ = false;
  onednn::MaxPool fast_{false};
};

}  // namespace

ONYX_REGISTER_KERNEL("", "MaxPool", 1, kLatestOpset, MaxPoolKernel);

}  // namespace onyx
