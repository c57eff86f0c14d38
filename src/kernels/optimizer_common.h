// Shared by the ai.onnx.preview.training optimizers (Adagrad, Adam, Momentum): inputs are
// R (scalar learning rate), T (scalar int64 update count), then `groups` runs of n tensors
// (X_1..X_n, G_1..G_n, ...); outputs are `out_groups` runs of n tensors shaped like X_i.
#pragma once
#include <vector>

#include "kernels/dispatch.h"
#include "kernels/kernel.h"

namespace onyx::optimizer {

// Checks the inputs, reads R and T, and applies update = make_update(r, t) to every element
// of every tensor: update(in, out) maps in[g], group g's input value, to out[g], output
// group g's new value. Writes each output that the node requests.
template <typename MakeUpdate>
Status run(KernelContext& ctx, int groups, int out_groups, MakeUpdate&& make_update) {
  const int num_inputs = ctx.num_inputs();
  if (num_inputs < 2 + groups || (num_inputs - 2) % groups != 0)
    return invalid_argument("expected R, T and ", groups, " groups of equally many tensors, got ", num_inputs,
                            " inputs");
  const int n = (num_inputs - 2) / groups;
  if (ctx.num_outputs() > out_groups * n)
    return invalid_argument("expected at most ", out_groups * n, " outputs, got ", ctx.num_outputs());
  const Tensor& r_t = ctx.input(0);
  const Tensor& t_t = ctx.input(1);
  if (!r_t.defined() || r_t.numel() != 1 || (r_t.dtype() != DataType::kFloat && r_t.dtype() != DataType::kDouble))
    return invalid_argument("R must be a float or double scalar, got ", r_t.describe());
  if (!t_t.defined() || t_t.numel() != 1 || t_t.dtype() != DataType::kInt64)
    return invalid_argument("T must be an int64 scalar, got ", t_t.describe());
  const auto update = make_update(r_t.get_double(0), t_t.get_int64(0));
  for (int i = 0; i < n; ++i) {
    const Tensor& x = ctx.input(2 + i);
    std::vector<const Tensor*> ins(static_cast<size_t>(groups));
    for (int g = 0; g < groups; ++g) {
      ins[size_t(g)] = &ctx.input(2 + g * n + i);
      const Tensor& in = *ins[size_t(g)];
      if (!in.defined() || in.dtype() != x.dtype() || in.shape() != x.shape())
        return invalid_argument("input ", 2 + g * n + i, " must match X_", i + 1, " (", x.describe(), "), got ",
                                in.describe());
    }
    std::vector<Tensor*> outs(static_cast<size_t>(out_groups), nullptr);
    for (int g = 0; g < out_groups; ++g) {
      if (!ctx.output_requested(g * n + i)) continue;
      ONYX_ASSIGN_OR_RETURN(outs[size_t(g)], ctx.allocate_output(g * n + i, x.dtype(), x.shape()));
    }
    const Status status = dispatch<float, double>(x.dtype(), [&]<typename T>() -> Status {
      std::vector<double> in_v(static_cast<size_t>(groups)), out_v(static_cast<size_t>(out_groups));
      for (int64_t e = 0; e < x.numel(); ++e) {
        for (int g = 0; g < groups; ++g) in_v[size_t(g)] = double(ins[size_t(g)]->data<T>()[e]);
        update(in_v.data(), out_v.data());
        for (int g = 0; g < out_groups; ++g)
          if (outs[size_t(g)]) outs[size_t(g)]->data<T>()[e] = static_cast<T>(out_v[size_t(g)]);
      }
      return Status::Ok();
    });
    if (!status.ok()) return status;
  }
  return Status::Ok();
}

}  // namespace onyx::optimizer
