// Reshape: input 0's element type; the shape from input 1 (opset >= 5, when constant) or the
// 'shape' attribute (opset < 5). A 0 copies the input's dim (an empty dim with allowzero=1,
// opset >= 14); a -1 is solved from the input's size, also when the input has symbolic dims
// that cancel out (e.g. [batch,3,4] to [0,-1] gives [batch,12]). With a non-constant shape of
// known length the rank is known.
#include <map>

#include "ops/op_rule.h"
#include "ops/shape_rule_util.h"

namespace onyx::ops {
namespace {

// Size of a shape as (known product, multiset of symbols); false when a dim is unknown and
// unnamed or the product overflows.
bool size_of(const std::vector<Dim>& dims, int64_t* product, std::map<std::string, int>* symbols) {
  *product = 1;
  for (const Dim& d : dims) {
    if (d.value) {
      if (*d.value < 0 || (*d.value != 0 && *product > INT64_MAX / *d.value)) return false;
      *product *= *d.value;
    } else if (!d.symbol.empty()) {
      ++(*symbols)[d.symbol];
    } else {
      return false;
    }
  }
  return true;
}

// The -1 dim: input size divided by the size of the other output dims.
Dim solve_inferred(const SymbolicShape& in, const std::vector<Dim>& others) {
  if (!in.has_rank) return Dim{};
  int64_t in_product = 1, out_product = 1;
  std::map<std::string, int> in_symbols, out_symbols;
  if (!size_of(in.dims, &in_product, &in_symbols) || !size_of(others, &out_product, &out_symbols)) return Dim{};
  for (const auto& [symbol, count] : out_symbols) {
    auto it = in_symbols.find(symbol);
    if (it == in_symbols.end() || it->second < count) return Dim{};
    if ((it->second -= count) == 0) in_symbols.erase(it);
  }
  if (out_product == 0) return Dim{};
  if (in_symbols.empty()) {
    if (in_product % out_product != 0) return Dim{};
    return known_dim(in_product / out_product);
  }
  if (in_symbols.size() == 1 && in_symbols.begin()->second == 1 && in_product == out_product)
    return Dim{std::nullopt, in_symbols.begin()->first};
  return Dim{};
}

Status infer_reshape(InferenceContext& ctx) {
  const DataType elem = ctx.input_elem_type(0);
  std::optional<std::vector<int64_t>> spec;
  if (ctx.opset() < 5) {
    if (ctx.has_attr("shape")) spec = ctx.attr_ints("shape");
  } else {
    spec = constant_ints(ctx, 1);
  }
  if (!spec) {
    std::optional<int64_t> n = ctx.opset() < 5 ? std::nullopt : known_length(ctx, 1);
    ctx.set_output(0, elem, n ? unknown_dims(*n) : SymbolicShape{});
    return Status::Ok();
  }
  const bool allowzero = ctx.opset() >= 14 && ctx.attr_int("allowzero", 0) != 0;
  const SymbolicShape in = ctx.input_shape(0);
  if (spec->size() > size_t(kMaxStaticRank)) {  // unknown_dims would have no dims to fill
    ctx.set_output(0, elem, {});
    return Status::Ok();
  }
  SymbolicShape out = unknown_dims(int64_t(spec->size()));
  int64_t infer_at = -1;
  for (size_t i = 0; i < spec->size(); ++i) {
    const int64_t v = (*spec)[i];
    if (v == -1) {
      if (infer_at >= 0) return invalid_model("Reshape: shape has more than one -1");
      infer_at = int64_t(i);
    } else if (v < -1) {
      return invalid_model("Reshape: invalid dim ", v, " in the shape");
    } else if (v == 0 && !allowzero) {
      if (in.has_rank) {
        if (i >= in.dims.size()) return invalid_model("Reshape: shape copies dim ", i, " of a rank-", in.dims.size(), " input");
        out.dims[i] = in.dims[i];
      }
    } else {
      out.dims[i] = known_dim(v);
    }
  }
  if (infer_at >= 0) {
    std::vector<Dim> others = out.dims;
    others.erase(others.begin() + infer_at);
    out.dims[size_t(infer_at)] = solve_inferred(in, others);
  }
  ctx.set_output(0, elem, std::move(out));
  return Status::Ok();
}

}  // namespace

ONYX_REGISTER_OP_RULE("", "Reshape", 1, 1000, infer_reshape);

}  // namespace onyx::ops
