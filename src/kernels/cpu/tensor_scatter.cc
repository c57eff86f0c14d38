// TensorScatter (ai.onnx, since 24): a KV-cache update. present_cache is past_cache with, for
// every index prefix p = (b, d1, ..., d_{axis-1}) and every s < sequence_length,
//   present[p, w(b) + s, ...] = update[p, s, ...]
// where w(b) = write_indices[b] (0 for every b when write_indices is omitted).
//   inputs:  past_cache (B, D1, ..., max_sequence_length, ..., Dn), any element type;
//            update, the same shape except sequence_length <= max_sequence_length along axis;
//            write_indices (optional), int64 (B,).
//   attributes: axis (-2; not 0, the batch dim), mode ("linear": w(b) >= 0 and
//            w(b) + sequence_length <= max_sequence_length, else an error; "circular": the
//            cache row is (w(b) + s) mod max_sequence_length, numpy's modulo for negatives).
// The output may be written over past_cache's buffer (in_place_outputs), the usual way to
// keep a cache without copying it every step.
#include <string>
#include <vector>

#include "kernels/broadcast.h"
#include "kernels/kernel.h"
#include "kernels/tensor_pieces.h"

namespace onyx {
namespace {

class TensorScatterKernel final : public Kernel {
 public:
  Status prepare(const KernelInfo& info) override {
    axis_ = info.attr_int("axis", -2);
    const std::string mode = info.attr_string("mode", "linear");
    if (mode != "linear" && mode != "circular")
      return invalid_argument("TensorScatter: mode '", mode, "' is not 'linear' or 'circular'");
    circular_ = mode == "circular";
    return Status::Ok();
  }

  std::vector<std::pair<int, int>> in_place_outputs() const override { return {{0, 0}}; }

  Status compute(KernelContext& ctx) const override {
    const Tensor& past = ctx.input(0);
    const Tensor& update = ctx.input(1);
    if (past.rank() < 2) return invalid_argument("TensorScatter: past_cache must have rank >= 2, got ", past.describe());
    ONYX_ASSIGN_OR_RETURN(int64_t axis, normalize_axis(axis_, past.rank()));
    if (axis == 0) return invalid_argument("TensorScatter: axis may not be 0 (the batch dim)");
    if (update.dtype() != past.dtype() || update.rank() != past.rank())
      return invalid_argument("TensorScatter: update ", update.describe(), " must have past_cache's type and rank (",
                              past.describe(), ")");
    for (int64_t d = 0; d < past.rank(); ++d)
      if (d == axis ? update.dim(d) > past.dim(d) : update.dim(d) != past.dim(d))
        return invalid_argument("TensorScatter: update ", update.describe(), " does not fit past_cache ",
                                past.describe(), " (dim ", d, ")");
    const int64_t batch = past.dim(0);
    const int64_t max_seq = past.dim(axis), seq = update.dim(axis);
    std::vector<int64_t> starts(size_t(batch), 0);
    if (ctx.has_input(2)) {
      const Tensor& wi = ctx.input(2);
      if (wi.dtype() != DataType::kInt64 || wi.shape() != Shape{batch})
        return invalid_argument("TensorScatter: write_indices must be int64 (", batch, "), got ", wi.describe());
      for (int64_t b = 0; b < batch; ++b) {
        int64_t w = wi.data<int64_t>()[b];
        if (circular_) {
          if (max_seq > 0) w = ((w % max_seq) + max_seq) % max_seq;
        } else if (w < 0 || w > max_seq - seq) {
          return invalid_argument("TensorScatter: write index ", w, " of batch ", b, " plus the update's ", seq,
                                  " rows passes max_sequence_length ", max_seq, " (mode linear)");
        }
        starts[size_t(b)] = w;
      }
    }
    ONYX_ASSIGN_OR_RETURN(Tensor* out, ctx.allocate_output_uninitialized(0, past.dtype(), past.shape()));
    if (out->raw_data() != past.raw_data() && past.numel() > 0) copy_elements(past, 0, *out, 0, past.numel());
    if (update.numel() == 0) return Status::Ok();
    int64_t inner = 1, outer = 1;
    for (int64_t d = axis + 1; d < past.rank(); ++d) inner *= past.dim(d);
    for (int64_t d = 0; d < axis; ++d) outer *= past.dim(d);
    const int64_t per_batch = outer / batch;
    for (int64_t p = 0; p < outer; ++p) {
      const int64_t w = starts[size_t(p / per_batch)];
      const int64_t dst = p * max_seq, src = p * seq;
      if (!circular_ || w + seq <= max_seq) {
        copy_elements(update, src * inner, *out, (dst + w) * inner, seq * inner);
      } else {  // wraps: the rows up to the end, then the rest from row 0
        const int64_t first = max_seq - w;
        copy_elements(update, src * inner, *out, (dst + w) * inner, first * inner);
        copy_elements(update, (src + first) * inner, *out, dst * inner, (seq - first) * inner);
      }
    }
    return Status::Ok();
  }

 private:
  int64_t axis_ = -2;
  bool circular_ = false;
};

}  // namespace

ONYX_REGISTER_KERNEL("", "TensorScatter", 24, kLatestOpset, TensorScatterKernel);

}  // namespace onyx
