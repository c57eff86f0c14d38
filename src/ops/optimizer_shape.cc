#include "ops/optimizer_shape.h"

namespace onyx::ops {

Status infer_optimizer(InferenceContext& ctx, int groups, const std::vector<int>& source_groups) {
  const int inputs = ctx.num_inputs();
  if (inputs < 2 + groups || (inputs - 2) % groups != 0) return Status::Ok();  // the kernel rejects it
  const int n = (inputs - 2) / groups;
  for (int o = 0; o < ctx.num_outputs(); ++o) {
    const size_t run = size_t(o / n);
    if (run >= source_groups.size()) break;
    if (const ir::TypeInfo* t = ctx.input_type(2 + source_groups[run] * n + o % n)) ctx.set_output_type(o, *t);
  }
  return Status::Ok();
}

}  // namespace onyx::ops
