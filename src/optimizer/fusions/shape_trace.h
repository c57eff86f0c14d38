// Tracing shape computations through the graph, for fusions that must prove what a computed
// shape, length or scale holds (attention_fusion): a shape tensor as the dims it copies, an
// integer as a linear expression of named dims, a float as a number.
#pragma once
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "optimizer/graph_index.h"

namespace onyx::optimizer {

// One element of a 1-D shape tensor: a known value and/or dim `axis` of value `of`.
struct ShapeElem {
  std::optional<int64_t> value;
  std::string of;
  int64_t axis = -1;
};

// The static dim `axis` of value `v`; null when its type, rank or that dim is unknown.
const Dim* static_dim(const GraphIndex& g, const std::string& v, int64_t axis);

// True when two static dims are provably equal: the same value or the same dim_param.
bool same_dim(const Dim* a, const Dim* b);

// The elements of the 1-D integer tensor `name` when they can be traced through constants,
// Shape, Gather (axis 0, constant indices), Unsqueeze of a scalar, Squeeze of one element,
// Slice (step 1), Concat and Cast. A scalar traces as one element.
std::optional<std::vector<ShapeElem>> shape_elements(const GraphIndex& g, const std::string& name, int depth = 0);

// An integer as constant + sum(coefficient * symbol), symbols being dims the caller names.
struct DimExpr {
  std::map<int, int64_t> terms;  // symbol -> non-zero coefficient
  int64_t constant = 0;
  bool operator==(const DimExpr& o) const { return terms == o.terms && constant == o.constant; }
};
// The symbol of dim `axis` of value `of`, or -1 when the caller does not name it.
using DimSymbol = std::function<int(const std::string& of, int64_t axis)>;

// The one-element integer `name` as a DimExpr: a traced shape element (its static value when
// known, else its symbol), or Add / Sub of two such. nullopt when it cannot be proven.
std::optional<DimExpr> dim_expr(const GraphIndex& g, const std::string& name, const DimSymbol& symbol, int depth = 0);

// The value of dim `axis` of value `of` when the caller knows it.
using DimValue = std::function<std::optional<int64_t>(const std::string& of, int64_t axis)>;

// The one-element number `name` when it is a constant or computed from dims the caller (or
// the static types) know: Cast, Squeeze/Unsqueeze, Sqrt, Pow, Mul, Div of such.
std::optional<double> scalar_value(const GraphIndex& g, const std::string& name, const DimValue& dim, int depth = 0);

}  // namespace onyx::optimizer
