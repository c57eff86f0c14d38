// matmul_transpose_fusion (fuse phase, after the attention fusions): what attention left
// unfused, such as a decoder's attention over its key/value cache, multiplies by
// Transpose(present_key, perm (0, 1, 3, 2)) and divides the scores by sqrt(d). The Transpose
// folds into the product as com.microsoft FusedMatMul's transB (oneDNN reads K in place), and a
// scalar constant Div or Mul after a product folds into its alpha; the rewrites are the training
// graph's (training/transpose_folding.h, training/product_scale_folding.h) without the
// onyx-only bias fusion, so the optimised model stays readable by ONNX Runtime.
// Models with subgraphs are left alone (a body may read a Transpose's output by name).
#include "optimizer/pass.h"
#include "training/product_scale_folding.h"
#include "training/transpose_folding.h"

namespace onyx::optimizer {
namespace {

bool has_subgraphs(const ir::Graph& g) {
  for (const ir::Node& n : g.nodes)
    for (const auto& [name, a] : n.attributes)
      if (a.type == ir::Attribute::Type::kGraph || a.type == ir::Attribute::Type::kGraphs) return true;
  return false;
}

class MatMulTransposeFusion final : public Pass {
 public:
  std::string name() const override { return "matmul_transpose_fusion"; }
  Result<bool> run(PassContext& ctx) const override {
    if (has_subgraphs(ctx.model.graph)) return false;
    const bool folded = training::fold_transposes_into_products(ctx.model, /*fold_biases=*/false);
    const bool scaled = training::fold_scales_into_products(ctx.model);
    return folded || scaled;
  }
};

}  // namespace

ONYX_REGISTER_PASS(Phase::kFuse, 60, MatMulTransposeFusion);

}  // namespace onyx::optimizer
