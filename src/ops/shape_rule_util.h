// Helpers shared by the shape and data-movement rules (Reshape, Slice, Gather, Pad, ...):
// reading constant shape-like inputs, normalizing axes and combining dims.
#pragma once
#include <cstdint>
#include <optional>
#include <vector>

#include "ops/op_rule.h"

namespace onyx::ops {

// The values of input i as int64 when it is a constant integer tensor; nullopt otherwise
// (omitted, not known at load, or not of an integer type).
std::optional<std::vector<int64_t>> constant_ints(const InferenceContext& ctx, int i);

// The length of input i when it is 1-D with a known length (a shape-like input whose values
// are unknown but whose count is), or a scalar (1); nullopt otherwise, and for a length past
// kMaxStaticRank (such inputs hold axes or dims).
std::optional<int64_t> known_length(const InferenceContext& ctx, int i);

// Maps axis from [-rank, rank) to [0, rank); false when out of range.
bool normalize_axis(int64_t& axis, int64_t rank);
// Normalizes every axis; false when one is out of range or repeats.
bool normalize_axes(std::vector<int64_t>& axes, int64_t rank);

Dim known_dim(int64_t v);
// A dim computed in floating point (a resize length): known when v is finite and in
// [0, 2^62], unknown otherwise, so that no out-of-range double is ever cast to int64.
Dim dim_from_double(double v);
// True when the dim is known to be exactly v.
bool dim_is(const Dim& d, int64_t v);

// Product of dims[begin, end): a value when all are known, the single remaining dim when all
// others are known 1, unknown otherwise.
Dim dim_product(const std::vector<Dim>& dims, size_t begin, size_t end);

// d * factor, d / divisor (only when it divides evenly), d + add: a value when d is known,
// d itself when the operation is the identity, unknown otherwise (and unknown when the
// result would overflow int64).
Dim dim_times(const Dim& d, int64_t factor);
Dim dim_divided(const Dim& d, int64_t divisor);
Dim dim_plus(const Dim& d, int64_t add);

// Two dims that must be equal: the known (or named) one of them; unknown when neither says.
Dim dim_merge(const Dim& a, const Dim& b);

}  // namespace onyx::ops
