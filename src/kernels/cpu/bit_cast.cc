// BitCast (opset 26): y holds x's bytes reinterpreted as the element type 'to' (a
// TensorProto.DataType code), same shape; the bit widths must match. Elements are read as
// little-endian bytes, which is how onyx stores them on every host it builds for.
//
// Types: every non-string type onyx's DataType has (bool, the integers of 2 to 64 bits, the
// float8 formats, float4e2m1, float16, bfloat16, float, double, complex64, complex128); the
// packed ones (4 and 2 bits) keep their packed bytes, so int4 <-> uint4 <-> float4e2m1 and
// int2 <-> uint2 are byte copies too. A 'to' code onyx does not know is NOT_IMPLEMENTED
// naming it; string is not allowed by the spec and is refused as well. Reading bytes as bool requires each byte to be 0 or 1 (any
// other byte would not be a valid bool): INVALID_ARGUMENT otherwise.
#include <cstdint>
#include <cstring>
#include <string>

#include "kernels/unary.h"

namespace onyx {
namespace {

// True for the element types BitCast can reinterpret (all but string and undefined).
bool bit_castable(DataType t) { return t != DataType::kString && t != DataType::kUndefined; }

// ONNX's name for a TensorProto.DataType code onyx may not know, for messages.
std::string onnx_type_code_name(int64_t code) {
  static const char* const kNames[] = {
      "UNDEFINED", "FLOAT", "UINT8", "INT8", "UINT16", "INT16", "INT32", "INT64", "STRING", "BOOL",
      "FLOAT16", "DOUBLE", "UINT32", "UINT64", "COMPLEX64", "COMPLEX128", "BFLOAT16",
      "FLOAT8E4M3FN", "FLOAT8E4M3FNUZ", "FLOAT8E5M2", "FLOAT8E5M2FNUZ", "UINT4", "INT4",
      "FLOAT4E2M1", "FLOAT8E8M0", "UINT2", "INT2"};
  if (code >= 0 && code < int64_t(sizeof(kNames) / sizeof(kNames[0]))) return kNames[code];
  return "code " + std::to_string(code);
}

class BitCastKernel final : public Kernel {
 public:
  Status prepare(const KernelInfo& info) override {
    const ir::Attribute* to = info.attr("to");
    if (to == nullptr || to->type != ir::Attribute::Type::kInt)
      return invalid_model("BitCast: attribute 'to' (an int TensorProto.DataType code) is required");
    if (to->i == int64_t(DataType::kString)) return invalid_model("BitCast: 'to' cannot be string");
    if (to->i <= 0 || !is_valid_data_type(int(to->i)) || !bit_castable(DataType(int(to->i))))
      return not_implemented("BitCast to ", onnx_type_code_name(to->i), " is not supported");
    to_ = DataType(int(to->i));
    return Status::Ok();
  }

  Status compute(KernelContext& ctx) const override {
    ONYX_ASSIGN_OR_RETURN(const Tensor* x, unary_input(ctx));
    if (x->dtype() == DataType::kString) return invalid_argument("BitCast: the input cannot be a string tensor");
    if (!bit_castable(x->dtype()))
      return not_implemented("BitCast from ", data_type_name(x->dtype()), " is not supported");
    if (data_type_bits(x->dtype()) != data_type_bits(to_))
      return invalid_argument("BitCast: ", data_type_name(x->dtype()), " (", data_type_bits(x->dtype()),
                              " bits) and ", data_type_name(to_), " (", data_type_bits(to_), " bits) differ in width");
    const size_t bytes = x->nbytes();
    if (to_ == DataType::kBool && x->dtype() != DataType::kBool) {
      const uint8_t* p = static_cast<const uint8_t*>(x->raw_data());
      for (size_t i = 0; i < bytes; ++i)
        if (p[i] > 1)
          return invalid_argument("BitCast to bool: byte ", int(p[i]), " at element ", i, " is neither 0 nor 1");
    }
    ONYX_ASSIGN_OR_RETURN(Tensor* y, ctx.allocate_output_uninitialized(0, to_, x->shape()));
    if (bytes > 0) std::memcpy(y->raw_data(), x->raw_data(), bytes);
    return Status::Ok();
  }

 private:
  DataType to_ = DataType::kUndefined;
};

}  // namespace

ONYX_REGISTER_KERNEL("", "BitCast", 26, kLatestOpset, BitCastKernel);

}  // namespace onyx
