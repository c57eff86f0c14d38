// shape_folding (basic): shape queries answered by static inference become initializers:
// Shape(x) when every dim it reports is known, Size(x) when every dim is, and Gather(Shape(x),
// idx) with constant indices when the picked dims are known (torch's x.size(i) on a tensor
// with some symbolic dims); see shape_query.h. Folding these lets constant_folding collapse
// the Shape -> Gather -> Unsqueeze -> Concat -> Reshape chains exporters write. x itself
// stays (other readers, or dead_node_elimination). constant_folding's walk folds the same
// queries with types it propagates as it goes; this pass is the one-step form.
#include "optimizer/pass.h"
#include "optimizer/simplify/shape_query.h"

namespace onyx::optimizer {
namespace {

class ShapeFolding final : public RulePass {
 public:
  std::string name() const override { return "shape_folding"; }
  std::optional<Patch> match(const GraphIndex& g, size_t i, const PassContext&) const override {
    const ir::Node& n = g.node(i);
    std::optional<Tensor> value = fold_shape_query(
        n, [&](const std::string& v) { return g.type(v); }, [&](const std::string& v) { return g.constant(v); },
        [&](const std::string& v) -> const ir::Node* {
          auto p = g.producer(v);
          return p ? &g.node(*p) : nullptr;
        });
    if (!value) return std::nullopt;
    Patch p;
    p.remove_nodes = {i};
    p.add_initializers.emplace_back(n.outputs[0], std::move(*value));
    return p;
  }
};

}  // namespace

ONYX_REGISTER_PASS(Phase::kSimplify, 20, ShapeFolding);

}  // namespace onyx::optimizer
