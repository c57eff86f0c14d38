// com.microsoft Tokenizer: string Y. X non-empty of rank 1 or 2: X's shape + [the most tokens
// of any element, plus 2 with 'mark', or 0 when no element has a token]; X empty: [0] for [C],
// [N, 0] for [N, C]. So the rank is known only when X's dims are: all positive (rank + 1) or one
// of them 0 (rank as X's).
#include "ops/op_rule.h"

namespace onyx::ops {
namespace {
Status infer_tokenizer(InferenceContext& ctx) {
  const SymbolicShape x = ctx.input_shape(0);
  bool all_positive = x.has_rank, some_zero = false;
  for (const Dim& d : x.dims) {
    all_positive = all_positive && d.is_known() && *d.value > 0;
    some_zero = some_zero || (d.is_known() && *d.value == 0);
  }
  SymbolicShape y;  // unknown rank unless decided below
  if (x.has_rank && some_zero && x.dims.size() <= 2) {
    y = x;
    y.dims.back() = Dim{};
    y.dims.back().value = 0;
  } else if (all_positive) {
    y = x;
    y.dims.push_back(Dim{});
  }
  ctx.set_output(0, DataType::kString, std::move(y));
  return Status::Ok();
}
}  // namespace

ONYX_REGISTER_OP_RULE("com.microsoft", "Tokenizer", 1, 1000, infer_tokenizer);
}  // namespace onyx::ops
