// Pattern helpers shared by the fusion passes.
#pragma once
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "optimizer/graph_index.h"

namespace onyx::optimizer {

inline constexpr const char* kMicrosoftDomain = "com.microsoft";

inline bool is_op(const ir::Node& n, const char* op) { return n.op_type == op && n.domain.empty(); }

// True when |v - target| <= rel * |target|.
inline bool near(double v, double target, double rel = 1e-3) { return std::abs(v - target) <= rel * std::abs(target); }

// True when `name` is a one-element float constant near `target` whose rank cannot widen a
// value of rank `x_rank` it is combined with (rank 0, or at most x_rank when that is known).
inline bool is_scalar_near(const GraphIndex& g, const std::string& name, double target,
                           std::optional<int64_t> x_rank, double rel = 1e-3) {
  const std::optional<double> v = g.scalar(name);
  if (!v || !near(*v, target, rel)) return false;
  const int64_t r = g.constant(name)->rank();
  return r == 0 || (x_rank && r <= *x_rank);
}

// The single node reading `name` when `name` has a single use (GraphIndex::single_use).
inline std::optional<size_t> sole_consumer(const GraphIndex& g, const std::string& name) {
  if (!g.single_use(name)) return std::nullopt;
  return g.consumers(name).front();
}

// For a binary node reading `name` (once), the other input; nullopt otherwise.
inline std::optional<std::string> other_input(const ir::Node& n, const std::string& name) {
  if (n.inputs.size() != 2) return std::nullopt;
  if (n.inputs[0] == name && n.inputs[1] != name) return n.inputs[1];
  if (n.inputs[1] == name && n.inputs[0] != name) return n.inputs[0];
  return std::nullopt;
}

// y = x * a * 0.5 written with two Muls in any order, where `a` (single use) is the
// "(1 + erf(...))" or "(1 + tanh(...))" factor of a GELU:
//   Mul(Mul(x, a), 0.5)    Mul(Mul(x, 0.5), a)    Mul(x, Mul(a, 0.5))
// (each Mul's operands in either order). `nodes` are the Muls; `output` is y.
struct HalfProduct {
  std::vector<size_t> nodes;
  std::string output;
};

inline std::optional<HalfProduct> match_half_product(const GraphIndex& g, const std::string& a, const std::string& x) {
  const auto x_rank = g.rank(x);
  auto m1 = sole_consumer(g, a);
  if (!m1 || !is_op(g.node(*m1), "Mul")) return std::nullopt;
  const ir::Node& n1 = g.node(*m1);
  auto o = other_input(n1, a);
  if (!o || n1.outputs.size() != 1) return std::nullopt;
  const std::string& p = n1.outputs[0];
  if (*o == x || is_scalar_near(g, *o, 0.5, x_rank)) {  // Mul(x, a) or Mul(a, 0.5), then the last factor
    auto m2 = sole_consumer(g, p);
    if (!m2 || !is_op(g.node(*m2), "Mul") || g.node(*m2).outputs.size() != 1) return std::nullopt;
    auto last = other_input(g.node(*m2), p);
    if (!last) return std::nullopt;
    const bool ok = *o == x ? is_scalar_near(g, *last, 0.5, x_rank) : *last == x;
    if (!ok) return std::nullopt;
    return HalfProduct{{*m1, *m2}, g.node(*m2).outputs[0]};
  }
  // Mul(Mul(x, 0.5), a)
  auto m0 = g.producer(*o);
  if (!m0 || !is_op(g.node(*m0), "Mul") || !g.single_use(*o)) return std::nullopt;
  auto half = other_input(g.node(*m0), x);
  if (!half || !is_scalar_near(g, *half, 0.5, x_rank)) return std::nullopt;
  return HalfProduct{{*m0, *m1}, p};
}

// True for the element types the fused com.microsoft kernels compute.
inline bool fusable_float(DataType t) {
  return t == DataType::kFloat || t == DataType::kFloat16 || t == DataType::kDouble;
}

}  // namespace onyx::optimizer
