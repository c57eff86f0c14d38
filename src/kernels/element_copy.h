// Type-agnostic element movement for data-movement kernels (Transpose, Slice, Expand, Tile,
// DepthToSpace, ...): elements are moved as opaque words of the dtype's size, or as
// std::string for string tensors, so one code path serves every element type. Contiguous
// runs are copied with copy_elements from tensor_pieces.h.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "core/status.h"
#include "core/tensor.h"
#include "kernels/tensor_pieces.h"  // copy_elements

namespace onyx {

// An opaque 16-byte element (complex128).
struct Word16 {
  uint64_t lo, hi;
};

// Calls fn.template operator()<U>() where U is an opaque element type of the dtype's size
// (uint8_t, uint16_t, uint32_t, uint64_t, Word16) or std::string for kString.
template <typename F>
Status dispatch_by_size(DataType dtype, F&& fn) {
  if (dtype == DataType::kString) return fn.template operator()<std::string>();
  if (dtype != DataType::kUndefined) {
    switch (data_type_size(dtype)) {
      case 1: return fn.template operator()<uint8_t>();
      case 2: return fn.template operator()<uint16_t>();
      case 4: return fn.template operator()<uint32_t>();
      case 8: return fn.template operator()<uint64_t>();
      case 16: return fn.template operator()<Word16>();
      default: break;
    }
  }
  return not_implemented("no kernel for element type ", data_type_name(dtype));
}

// The packed sub-byte types (int4, uint4, int2, uint2, float4e2m1: is_packed_type) hold two or
// four elements a byte, which no opaque word addresses: kernels move them as one uint8 code
// per element. unpack_codes gives a uint8 tensor of `packed`'s shape; pack_codes writes the
// codes' low bits into `packed` (the same number of elements), the spare bits of its last
// byte 0.
Tensor unpack_codes(const Tensor& packed);
void pack_codes(const Tensor& codes, Tensor& packed);

// Fills dst row-major over `shape` (shape_size(shape) == dst.numel()) with
//   dst[i_0, ..., i_k] = src[src_offset + sum_d i_d * src_strides[d]].
// Strides are in elements and may be zero (broadcast) or negative (reversal); every
// addressed element must lie inside src. dst must have src's dtype; packed types are moved as
// codes (above).
Status strided_copy(const Tensor& src, int64_t src_offset, const std::vector<int64_t>& src_strides,
                    const Shape& shape, Tensor& dst);

}  // namespace onyx
