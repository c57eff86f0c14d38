// fast_gelu_fusion (extended): the tanh form of GELU,
//   0.5 * x * (1 + Tanh(sqrt(2/pi) * (x + 0.044715 * x^3)))
// with x^3 as Pow(x, 3) or x * x * x, every Mul and Add operand order, and the outer product
// of x, 0.5 and (1 + tanh) in any grouping, becomes one com.microsoft FastGelu(x). Every
// intermediate must have that single reader; x must be float32, float16 or double.
#include "optimizer/fusions/fusion_util.h"
#include "optimizer/pass.h"

namespace onyx::optimizer {
namespace {

constexpr double kSqrt2OverPi = 0.79788456080286535588;
constexpr double kCubic = 0.044715;

// The nodes computing x^3 into `cube`: Pow(x, 3), Mul(Mul(x, x), x) or Mul(x, Mul(x, x)).
std::optional<std::vector<size_t>> match_cube(const GraphIndex& g, const std::string& cube, const std::string& x) {
  auto c = g.producer(cube);
  if (!c || !g.single_use(cube)) return std::nullopt;
  const ir::Node& n = g.node(*c);
  if (is_op(n, "Pow") && n.inputs.size() == 2 && n.inputs[0] == x) {
    const std::optional<double> e = g.scalar(n.inputs[1]);
    const Tensor* t = g.constant(n.inputs[1]);
    if (!t || t->numel() != 1) return std::nullopt;
    const double exponent = e ? *e : double(t->get_int64(0));
    const auto x_rank = g.rank(x);
    if (exponent != 3.0 || (t->rank() > 0 && !(x_rank && t->rank() <= *x_rank))) return std::nullopt;
    return std::vector<size_t>{*c};
  }
  if (!is_op(n, "Mul") || n.inputs.size() != 2) return std::nullopt;
  const int k = n.inputs[0] == x ? 1 : n.inputs[1] == x ? 0 : -1;
  if (k < 0) return std::nullopt;
  const std::string& sq = n.inputs[size_t(k)];
  auto s = g.producer(sq);
  if (!s || !g.single_use(sq) || !is_op(g.node(*s), "Mul") || g.node(*s).inputs.size() != 2 ||
      g.node(*s).inputs[0] != x || g.node(*s).inputs[1] != x)
    return std::nullopt;
  return std::vector<size_t>{*s, *c};
}

class FastGeluFusion final : public RulePass {
 public:
  std::string name() const override { return "fast_gelu_fusion"; }
  std::optional<Patch> match(const GraphIndex& g, size_t i, const PassContext&) const override {
    const ir::Node& tanh = g.node(i);
    if (!is_op(tanh, "Tanh") || tanh.inputs.size() != 1 || tanh.outputs.size() != 1) return std::nullopt;
    // sqrt(2/pi) * inner
    const std::string& scaled = tanh.inputs[0];
    auto m2 = g.producer(scaled);
    if (!m2 || !g.single_use(scaled) || !is_op(g.node(*m2), "Mul") || g.node(*m2).inputs.size() != 2) return std::nullopt;
    const ir::Node& mul2 = g.node(*m2);
    const int ks = g.scalar(mul2.inputs[1]) ? 1 : 0;
    const std::string& inner = mul2.inputs[size_t(1 - ks)];
    // inner = x + 0.044715 * x^3
    auto a1 = g.producer(inner);
    if (!a1 || !g.single_use(inner) || !is_op(g.node(*a1), "Add") || g.node(*a1).inputs.size() != 2) return std::nullopt;
    const ir::Node& add1 = g.node(*a1);
    for (int k = 0; k < 2; ++k) {
      const std::string& x = add1.inputs[size_t(k)];
      const std::string& term = add1.inputs[size_t(1 - k)];
      const auto x_rank = g.rank(x);
      if (!fusable_float(g.elem_type(x)) || !is_scalar_near(g, mul2.inputs[size_t(ks)], kSqrt2OverPi, x_rank)) continue;
      auto m1 = g.producer(term);
      if (!m1 || !g.single_use(term) || !is_op(g.node(*m1), "Mul") || g.node(*m1).inputs.size() != 2) continue;
      const ir::Node& mul1 = g.node(*m1);
      const int kc = is_scalar_near(g, mul1.inputs[1], kCubic, x_rank) ? 1 : 0;
      if (!is_scalar_near(g, mul1.inputs[size_t(kc)], kCubic, x_rank)) continue;
      auto cube = match_cube(g, mul1.inputs[size_t(1 - kc)], x);
      if (!cube) continue;
      // 1 + tanh, then the half product with x
      auto add2 = sole_consumer(g, tanh.outputs[0]);
      if (!add2 || !is_op(g.node(*add2), "Add") || g.node(*add2).outputs.size() != 1) return std::nullopt;
      auto one = other_input(g.node(*add2), tanh.outputs[0]);
      if (!one || !is_scalar_near(g, *one, 1.0, x_rank)) return std::nullopt;
      auto product = match_half_product(g, g.node(*add2).outputs[0], x);
      if (!product) return std::nullopt;

      Patch p;
      p.remove_nodes = {*m2, *a1, *m1, i, *add2};
      p.remove_nodes.insert(p.remove_nodes.end(), cube->begin(), cube->end());
      p.remove_nodes.insert(p.remove_nodes.end(), product->nodes.begin(), product->nodes.end());
      ir::Node fused;
      fused.name = g.fresh_name(tanh.name.empty() ? "FastGelu" : tanh.name + "_fast_gelu");
      fused.op_type = "FastGelu";
      fused.domain = kMicrosoftDomain;
      fused.inputs = {x};
      fused.outputs = {product->output};
      p.add_nodes.push_back(std::move(fused));
      p.opset_imports[kMicrosoftDomain] = 1;
      return p;
    }
    return std::nullopt;
  }
};

}  // namespace

ONYX_REGISTER_PASS(Phase::kFuse, 11, FastGeluFusion);

}  // namespace onyx::optimizer
