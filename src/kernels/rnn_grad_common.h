// What the recurrent gradient kernels of ai.onyx.training share (LSTMGrad, GRUGrad, RNNGrad):
// the optional output-gradient inputs, the input-side sums of one step of the walk back through
// time, and writing the gradients out in their forward inputs' shapes. Canonical layout 0
// (rnn_common.h).
#pragma once
#include <initializer_list>
#include <string>
#include <vector>

#include "kernels/gemm.h"
#include "kernels/rnn_common.h"

namespace onyx::rnn {

// The logistic function, overflow-free for both signs (as the forward kernels' Sigmoid).
template <typename C>
C sigmoid(C x) {
  return x >= C(0) ? C(1) / (C(1) + std::exp(-x)) : std::exp(x) / (C(1) + std::exp(x));
}

// Calls run.template operator()<C>() for X's type, float32 or float64; NOT_IMPLEMENTED naming
// `op` for any other.
template <typename F>
Status dispatch_float_or_double(const KernelContext& ctx, const char* op, F&& run) {
  const DataType t = ctx.input(0).defined() ? ctx.input(0).dtype() : DataType::kUndefined;
  if (t == DataType::kFloat) return run.template operator()<float>();
  if (t == DataType::kDouble) return run.template operator()<double>();
  return not_implemented(op, " for ", data_type_name(t), " (float32 and float64 only)");
}

// Input i of a gradient kernel (dY, dY_h, dY_c): null when omitted, else checked to hold n
// elements of X's type.
template <typename C>
Result<const C*> optional_gradient(const KernelContext& ctx, int i, int64_t n, const char* op) {
  if (!ctx.has_input(i)) return static_cast<const C*>(nullptr);
  const Tensor& g = ctx.input(i);
  if (g.dtype() != ctx.input(0).dtype() || g.numel() != n)
    return invalid_argument(op, ": input ", i, " is ", g.describe(), ", expected ", n, " elements of ",
                            data_type_name(ctx.input(0).dtype()));
  return g.data<C>();
}

// One step of the walk back through time, direction `reverse`, for the `width` pre-activation
// gradients `da` [batch, width] (rows past their sequence length zero) and the inputs those
// rows read, `rows_x` [batch, input] (zero rows likewise):
//   dw [width, input] += da^T rows_x;  dwb [width] += the sum of da's rows;
//   dx[t_b, b] += (da w)[b] for every row b inside its length (w [width, input]).
// `scratch` holds at least batch * input values.
template <typename C>
void input_side_gradients(const Inputs<C>& in, bool reverse, int64_t step, int64_t width, const C* da,
                          const C* rows_x, const C* w, C* dw, C* dwb, std::vector<C>& dx, std::vector<C>& scratch) {
  const int64_t batch = in.batch, input = in.input;
  gemm<C>(true, false, width, input, batch, C(1), da, width, rows_x, input, C(1), dw, input);
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t q = 0; q < width; ++q) dwb[q] += da[b * width + q];
  gemm<C>(false, false, batch, input, width, C(1), da, width, w, input, C(0), scratch.data(), input);
  for (int64_t b = 0; b < batch; ++b) {
    const int64_t t = time_index(reverse, step, in.seq_lens[size_t(b)]);
    if (t < 0) continue;
    C* dxr = dx.data() + size_t((t * batch + b) * input);
    for (int64_t q = 0; q < input; ++q) dxr[q] += scratch[size_t(b * input + q)];
  }
}

// The state gradient after a step: rows inside their length take `back` (their gradient
// through R), the others keep theirs (the state passed through them unchanged).
template <typename C>
void take_state_gradient(const Inputs<C>& in, bool reverse, int64_t step, const C* back, C* dh) {
  for (int64_t b = 0; b < in.batch; ++b) {
    if (time_index(reverse, step, in.seq_lens[size_t(b)]) < 0) continue;
    std::copy_n(back + b * in.hidden, in.hidden, dh + b * in.hidden);
  }
}

// One gradient output: its index, its values (canonical layout), the forward input it is the
// gradient of, and its shape should that input be omitted.
template <typename C>
struct GradientOutput {
  int index;
  const std::vector<C>* values;
  int source;
  Shape shape_if_omitted;
};

// Writes the requested outputs, each in its forward input's shape and X's type.
template <typename C>
Status write_gradients(KernelContext& ctx, const char* op, std::initializer_list<GradientOutput<C>> outputs) {
  for (const GradientOutput<C>& o : outputs) {
    if (!ctx.output_requested(o.index)) continue;
    const Shape shape = ctx.has_input(o.source) ? ctx.input(o.source).shape() : o.shape_if_omitted;
    ONYX_ASSIGN_OR_RETURN(Tensor * out, ctx.allocate_output_uninitialized(o.index, ctx.input(0).dtype(), shape));
    if (out->numel() != int64_t(o.values->size()))
      return Status(StatusCode::kInternal, std::string(op) + ": output " + std::to_string(o.index) + " size mismatch");
    std::copy(o.values->begin(), o.values->end(), out->data<C>());
  }
  return Status::Ok();
}

}  // namespace onyx::rnn
