#include "ops/matmul_shape.h"

namespace onyx::ops {

Result<SymbolicShape> matmul_output_shape(const SymbolicShape& a, const SymbolicShape& b) {
  if (!a.has_rank || !b.has_rank) return SymbolicShape{};
  if (a.dims.empty() || b.dims.empty()) return invalid_model("matmul operands must have rank 1 or more");
  const bool a_vec = a.dims.size() == 1, b_vec = b.dims.size() == 1;
  const Dim& ka = a.dims.back();
  const Dim& kb = b_vec ? b.dims[0] : b.dims[b.dims.size() - 2];
  if (ka.value && kb.value && *ka.value != *kb.value)
    return invalid_model("matmul inner dims ", *ka.value, " and ", *kb.value, " differ");
  SymbolicShape a_batch, b_batch;
  a_batch.has_rank = b_batch.has_rank = true;
  if (!a_vec) a_batch.dims.assign(a.dims.begin(), a.dims.end() - 2);
  if (!b_vec) b_batch.dims.assign(b.dims.begin(), b.dims.end() - 2);
  auto batch = broadcast_symbolic({a_batch, b_batch});
  if (!batch.ok()) return batch.take_status();
  SymbolicShape out = std::move(batch).value();
  if (!out.has_rank) return SymbolicShape{};  // batch ranks past kMaxStaticRank
  if (!a_vec) out.dims.push_back(a.dims[a.dims.size() - 2]);
  if (!b_vec) out.dims.push_back(b.dims.back());
  return out;
}

Status infer_matmul_like(InferenceContext& ctx, int a_index, int b_index, DataType elem) {
  auto shape = matmul_output_shape(ctx.input_shape(a_index), ctx.input_shape(b_index));
  if (!shape.ok()) {
    ctx.set_output(0, elem, {});
    return shape.take_status();
  }
  ctx.set_output(0, elem, std::move(shape).value());
  return Status::Ok();
}

}  // namespace onyx::ops
