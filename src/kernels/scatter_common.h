// Shared by Scatter, ScatterElements and ScatterND: the 'reduction' attribute and the loop
// that writes update blocks into the output.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "core/status.h"
#include "core/tensor.h"

namespace onyx {

enum class ScatterReduction { kNone, kAdd, kMul, kMax, kMin };

// Parses 'reduction': "none" always, "add"/"mul" from opset 16, "max"/"min" from opset 18.
Result<ScatterReduction> parse_scatter_reduction(const std::string& name, int64_t opset);

// For each i, combines updates[i * block + j] into out[offsets[i] + j] (j < block) with
// `reduction`, in order (so with kNone the last write to an element wins). updates and out
// share a dtype; offsets must be valid. Reductions need a numeric dtype.
Status scatter_blocks(const Tensor& updates, const std::vector<int64_t>& offsets, int64_t block,
                      ScatterReduction reduction, Tensor& out);

// ScatterElements (and the deprecated Scatter): out = data, then for every position p of
// indices, out[p with p[axis] = indices[p]] combined with updates[p]. indices and updates
// share a shape of data's rank, no larger than data off the axis. out is allocated with
// data's dtype and shape. Negative indices count from the end; out-of-range ones are rejected.
Status scatter_elements(const Tensor& data, const Tensor& indices, const Tensor& updates, int64_t axis,
                        ScatterReduction reduction, Tensor& out);

}  // namespace onyx
