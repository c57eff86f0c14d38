// The head split and merge around attention cores, shared by attention_fusion (the explicit
// MatMul / Softmax form) and onnx_attention_fusion (ai.onnx Attention in its 4-D form): proofs
// that a Reshape turns [B, S, N*H] into [B, S, N, H] (or back), and the Transposes between.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "optimizer/fusions/fusion_util.h"
#include "optimizer/fusions/shape_trace.h"

namespace onyx::optimizer {

// True when shape element `e` of a Reshape (allowzero off when `copy_zero`) at position `axis`
// provably gives dim `axis` of one of `values`.
inline bool keeps_dim(const GraphIndex& g, const ShapeElem& e, int64_t axis, const std::vector<std::string>& values,
                      bool copy_zero) {
  for (const auto& v : values) {
    if (e.of == v && e.axis == axis) return true;
    if (e.value && *e.value == 0 && copy_zero) return true;
    const Dim* want = static_dim(g, v, axis);
    if (e.value && *e.value > 0 && want && want->value && *want->value == *e.value) return true;
    if (!e.of.empty() && same_dim(static_dim(g, e.of, e.axis), want)) return true;
  }
  return false;
}

// True when a 0 in Reshape `reshape`'s shape copies the input's dim (allowzero absent or 0).
inline bool copies_zero(const ir::Node& reshape) {
  const ir::Attribute* a = reshape.attribute("allowzero");
  return !a || a->i == 0;
}

// (N, H) when Reshape node `r` provably turns its rank-3 input [B, S, N*H] into [B, S, N, H].
inline std::optional<std::pair<int64_t, int64_t>> split_heads(const GraphIndex& g, const ir::Node& r) {
  if (!is_op(r, "Reshape") || r.inputs.size() != 2 || g.rank(r.inputs[0]) != 3) return std::nullopt;
  const auto last = g.last_dim(r.inputs[0]);
  auto e = shape_elements(g, r.inputs[1]);
  if (!last || !e || e->size() != 4 || !(*e)[2].value || !(*e)[3].value) return std::nullopt;
  const int64_t n = *(*e)[2].value, h = *(*e)[3].value;
  if (n <= 0 || h <= 0 || n * h != *last) return std::nullopt;
  const std::vector<std::string> x = {r.inputs[0]};
  if (!keeps_dim(g, (*e)[0], 0, x, copies_zero(r)) || !keeps_dim(g, (*e)[1], 1, x, copies_zero(r))) return std::nullopt;
  return std::make_pair(n, h);
}

// True when Reshape node `merge` provably turns [B, S, N, H] (its input, the heads moved back
// after the sequence) into [B, S, width], dims 0 and 1 taken from its input or from one of
// `same_as` (values known to share them, like the attention's query).
inline bool merges_heads(const GraphIndex& g, const ir::Node& merge, int64_t width,
                         const std::vector<std::string>& same_as) {
  if (!is_op(merge, "Reshape") || merge.inputs.size() != 2 || merge.outputs.size() != 1) return false;
  auto e = shape_elements(g, merge.inputs[1]);
  std::vector<std::string> sources = same_as;
  sources.insert(sources.begin(), merge.inputs[0]);
  return e && e->size() == 3 && (*e)[2].value && (*(*e)[2].value == width || *(*e)[2].value == -1) &&
         keeps_dim(g, (*e)[0], 0, sources, copies_zero(merge)) && keeps_dim(g, (*e)[1], 1, sources, copies_zero(merge));
}

inline bool is_transpose(const ir::Node& n, std::vector<int64_t> perm) {
  const ir::Attribute* p = n.attribute("perm");
  return is_op(n, "Transpose") && n.inputs.size() == 1 && p && p->ints == perm;
}

}  // namespace onyx::optimizer
