// Shapes. At run time a shape is a list of concrete dims (Shape). In the IR a dim may be
// unknown or symbolic (Dim), e.g. "batch".
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace onyx {

using Shape = std::vector<int64_t>;

// Number of elements; 1 for a scalar (rank 0). Returns -1 on overflow or a negative dim.
int64_t shape_size(const Shape& shape);
// "[2,3,4]"
std::string shape_to_string(const Shape& shape);
// Row-major strides in elements.
std::vector<int64_t> shape_strides(const Shape& shape);

// One dim of a static shape: a value, a symbol, or unknown.
struct Dim {
  std::optional<int64_t> value;
  std::string symbol;  // dim_param; empty when unnamed
  std::string denotation;  // TensorShapeProto.Dimension.denotation ("DATA_BATCH", ...); empty when none
  bool is_known() const { return value.has_value(); }
  std::string to_string() const;
};

// A static (possibly partial) shape: unknown rank when !has_rank.
struct SymbolicShape {
  bool has_rank = false;
  std::vector<Dim> dims;
  std::string to_string() const;  // "[batch,3,224,224]" or "?"
};

}  // namespace onyx
