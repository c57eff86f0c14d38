// Pad: adds pads[d] elements before and pads[d + n] after each dim (negative pads crop).
// Modes: constant (the fill value), edge (repeat the border), reflect (mirror without the
// border), wrap (periodic). Pads and value are attributes before opset 11 ('paddings' at
// opset 1) and inputs after; opset 18 adds the optional 'axes' input.
#include <algorithm>

#include "kernels/dispatch.h"
#include "kernels/element_copy.h"
#include "kernels/kernel.h"
#include "kernels/shape_util.h"

namespace onyx {
namespace {

enum class PadMode { kConstant, kEdge, kReflect, kWrap };

class PadKernel final : public Kernel {
 public:
  Status prepare(const KernelInfo& info) override {
    legacy_ = info.opset() < 11;
    const std::string mode = info.attr_string("mode", "constant");
    if (mode == "constant") mode_ = PadMode::kConstant;
    else if (mode == "edge") mode_ = PadMode::kEdge;
    else if (mode == "reflect") mode_ = PadMode::kReflect;
    else if (mode == "wrap") mode_ = PadMode::kWrap;
    else return invalid_model("Pad: unknown mode '", mode, "'");
    if (legacy_) {
      const char* name = info.opset() < 2 ? "paddings" : "pads";
      if (!info.has_attr(name)) return invalid_model("Pad needs a '", name, "' attribute before opset 11");
      pads_attr_ = info.attr_ints(name);
      value_attr_ = info.attr_float("value", 0.0f);
    }
    return Status::Ok();
  }

  Status compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    const int64_t rank = x.rank();
    std::vector<int64_t> pads(size_t(2 * rank), 0);
    ONYX_RETURN_IF_ERROR(read_pads(ctx, rank, pads));

    Shape out_shape(size_t(rank), 0);
    for (int64_t d = 0; d < rank; ++d) {
      const int64_t n = x.dim(d);
      int64_t& out = out_shape[size_t(d)];
      if (__builtin_add_overflow(n, pads[size_t(d)], &out) || __builtin_add_overflow(out, pads[size_t(d + rank)], &out) ||
          out < 0)
        return invalid_argument("Pad: pads ", shape_to_string(pads), " do not fit ", x.describe());
      if (n == 0 && out > 0 && mode_ != PadMode::kConstant)
        return invalid_argument("Pad: cannot pad an empty dim in this mode");
    }
    ONYX_ASSIGN_OR_RETURN(Tensor* y, ctx.allocate_output(0, x.dtype(), out_shape));
    if (y->numel() == 0) return Status::Ok();
    // Source index along each dim for each output index; -1 where the fill value goes.
    std::vector<std::vector<int64_t>> maps(static_cast<size_t>(rank));
    for (int64_t d = 0; d < rank; ++d) {
      auto& map = maps[size_t(d)];
      map.resize(size_t(out_shape[size_t(d)]));
      for (size_t o = 0; o < map.size(); ++o) map[o] = source_index(__int128(o) - pads[size_t(d)], x.dim(d));
    }
    ONYX_ASSIGN_OR_RETURN(Tensor fill, fill_value(ctx, x.dtype()));
    if (is_packed_type(x.dtype())) {  // padded as one code a byte (element_copy.h)
      Tensor codes(DataType::kUInt8, out_shape);
      ONYX_RETURN_IF_ERROR(pad_elements(unpack_codes(x), unpack_codes(fill), maps, codes));
      pack_codes(codes, *y);
      return Status::Ok();
    }
    return pad_elements(x, fill, maps, *y);
  }

 private:
  // y[i] = x[maps[0][i_0], ..., maps[r-1][i_r-1]], or the one element of `fill` where a map is
  // -1. y has x's dtype (not packed) and shape [maps[d].size()].
  static Status pad_elements(const Tensor& x, const Tensor& fill, const std::vector<std::vector<int64_t>>& maps,
                             Tensor& y) {
    const int64_t rank = x.rank();
    const Shape& out_shape = y.shape();
    if (rank == 0) {
      copy_elements(x, 0, y, 0, 1);
      return Status::Ok();
    }

    const std::vector<int64_t> strides = shape_strides(x.shape());
    return dispatch_by_size(x.dtype(), [&]<typename U>() -> Status {
      const U* in = x.data<U>();
      U* out = y.data<U>();
      const U value = *fill.data<U>();
      const int64_t inner = out_shape.back();
      const std::vector<int64_t>& inner_map = maps.back();
      const int64_t inner_stride = strides.back();
      std::vector<int64_t> idx(size_t(rank), 0);
      for (int64_t row = 0, rows = y.numel() / inner; row < rows; ++row) {
        int64_t base = 0;
        bool filled = false;
        for (int64_t d = 0; d + 1 < rank; ++d) {
          const int64_t s = maps[size_t(d)][size_t(idx[size_t(d)])];
          if (s < 0) filled = true;
          else base += s * strides[size_t(d)];
        }
        U* dst = out + row * inner;
        for (int64_t i = 0; i < inner; ++i) {
          const int64_t s = inner_map[size_t(i)];
          dst[i] = (filled || s < 0) ? value : in[base + s * inner_stride];
        }
        for (int64_t d = rank - 2; d >= 0; --d) {
          if (++idx[size_t(d)] < out_shape[size_t(d)]) break;
          idx[size_t(d)] = 0;
        }
      }
      return Status::Ok();
    });
  }

  // Fills pads ([begins..., ends...] over all dims) from the attribute or inputs 1 and 3.
  Status read_pads(const KernelContext& ctx, int64_t rank, std::vector<int64_t>& pads) const {
    std::vector<int64_t> given = pads_attr_;
    std::vector<int64_t> axes;
    if (!legacy_) {
      ONYX_ASSIGN_OR_RETURN(given, read_int_list(ctx.input(1), "pads"));
    }
    if (!legacy_ && ctx.has_input(3)) {
      ONYX_ASSIGN_OR_RETURN(axes, read_int_list(ctx.input(3), "axes"));
      ONYX_ASSIGN_OR_RETURN(axes, normalize_axes(std::move(axes), rank));
    } else {
      for (int64_t d = 0; d < rank; ++d) axes.push_back(d);
    }
    const size_t k = axes.size();
    if (given.size() != 2 * k)
      return invalid_argument("Pad: pads has ", given.size(), " entries, expected ", 2 * k);
    for (size_t i = 0; i < k; ++i) {
      pads[size_t(axes[i])] = given[i];
      pads[size_t(axes[i] + rank)] = given[i + k];
    }
    return Status::Ok();
  }

  // The source index for position i (may be outside [0, n)) of a dim of size n > 0 or -1.
  int64_t source_index(__int128 i, int64_t n) const {
    if (i >= 0 && i < n) return int64_t(i);
    switch (mode_) {
      case PadMode::kConstant: return -1;
      case PadMode::kEdge: return i < 0 ? 0 : n - 1;
      case PadMode::kWrap: return int64_t(((i % n) + n) % n);
      case PadMode::kReflect: {
        if (n == 1) return 0;
        const int64_t period = 2 * (n - 1);
        const int64_t m = int64_t(((i % period) + period) % period);
        return m < n ? m : period - m;
      }
    }
    return -1;
  }

  // A one-element tensor of `dtype` holding the constant fill (zero by default).
  Result<Tensor> fill_value(const KernelContext& ctx, DataType dtype) const {
    ONYX_ASSIGN_OR_RETURN(Tensor fill, Tensor::create(dtype, {}));
    if (!legacy_ && ctx.has_input(2) && ctx.input(2).numel() > 0) {
      const Tensor& v = ctx.input(2);
      if (v.dtype() != dtype)
        return invalid_argument("Pad: constant_value ", v.describe(), " does not match the data type");
      copy_elements(v, 0, fill, 0, 1);
    } else if (legacy_ && value_attr_ != 0.0f) {
      ONYX_RETURN_IF_ERROR(dispatch<ONYX_FLOAT_TYPES>(dtype, [&]<typename T>() -> Status {
        *fill.data<T>() = static_cast<T>(value_attr_);
        return Status::Ok();
      }));
    }
    return fill;
  }

  bool legacy_ = false;
  PadMode mode_ = PadMode::kConstant;
  std::vector<int64_t> pads_attr_;
  float value_attr_ = 0.0f;
};

}  // namespace

ONYX_REGISTER_KERNEL("", "Pad", 1, kLatestOpset, PadKernel);

}  // namespace onyx
