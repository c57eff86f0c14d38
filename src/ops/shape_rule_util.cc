#include "ops/shape_rule_util.h"

#include <cstdlib>
#include <set>

namespace onyx::ops {

std::optional<std::vector<int64_t>> constant_ints(const InferenceContext& ctx, int i) {
  if (!ctx.has_input(i)) return std::nullopt;
  const Tensor* t = ctx.constant_input(i);
  if (!t || !is_integer_type(t->dtype()) || t->rank() > 1) return std::nullopt;
  return t->to_int64_vector();
}

std::optional<int64_t> known_length(const InferenceContext& ctx, int i) {
  if (!ctx.has_input(i)) return std::nullopt;
  SymbolicShape s = ctx.input_shape(i);
  if (!s.has_rank) return std::nullopt;
  if (s.dims.empty()) return 1;
  // A length is a count of axes or dims here: past any real rank it says nothing.
  if (s.dims.size() == 1 && s.dims[0].value && *s.dims[0].value >= 0 && *s.dims[0].value <= kMaxStaticRank)
    return *s.dims[0].value;
  return std::nullopt;
}

bool normalize_axis(int64_t& axis, int64_t rank) {
  if (axis < -rank || axis >= rank) return false;
  if (axis < 0) axis += rank;
  return true;
}

bool normalize_axes(std::vector<int64_t>& axes, int64_t rank) {
  std::set<int64_t> seen;
  for (int64_t& a : axes)
    if (!normalize_axis(a, rank) || !seen.insert(a).second) return false;
  return true;
}

Dim known_dim(int64_t v) { return Dim{v, ""}; }

Dim dim_from_double(double v) {
  if (!(v >= 0 && v <= double(int64_t(1) << 62))) return Dim{};
  return known_dim(int64_t(v));
}

bool dim_is(const Dim& d, int64_t v) { return d.value && *d.value == v; }

Dim dim_product(const std::vector<Dim>& dims, size_t begin, size_t end) {
  int64_t product = 1;
  const Dim* other = nullptr;  // the one dim not known to be a value
  for (size_t i = begin; i < end && i < dims.size(); ++i) {
    const Dim& d = dims[i];
    if (d.value) {
      if (*d.value != 0 && product > INT64_MAX / *d.value) return Dim{};
      product *= *d.value;
    } else if (other) {
      return Dim{};
    } else {
      other = &d;
    }
  }
  if (!other) return known_dim(product);
  return product == 1 ? *other : Dim{};
}

Dim dim_times(const Dim& d, int64_t factor) {
  if (factor == 1) return d;
  if (factor == 0) return known_dim(0);
  int64_t product = 0;
  if (d.value && !__builtin_mul_overflow(*d.value, factor, &product)) return known_dim(product);
  return Dim{};
}

Dim dim_divided(const Dim& d, int64_t divisor) {
  if (divisor == 1) return d;
  if (d.value && divisor != 0 && *d.value % divisor == 0) return known_dim(*d.value / divisor);
  return Dim{};
}

Dim dim_plus(const Dim& d, int64_t add) {
  if (add == 0) return d;
  int64_t sum = 0;
  if (d.value && !__builtin_add_overflow(*d.value, add, &sum)) return known_dim(sum);
  return Dim{};
}

Dim dim_merge(const Dim& a, const Dim& b) {
  if (a.value) return a;
  if (b.value) return b;
  if (!a.symbol.empty()) return a;
  return b;
}

}  // namespace onyx::ops
