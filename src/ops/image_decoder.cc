// ImageDecoder: uint8 encoded bytes [N] -> uint8 [H, W, C], H and W data-dependent, C = 1
// for pixel_format "Grayscale" and 3 for "RGB" / "BGR" (the default RGB).
#include "ops/op_rule.h"

namespace onyx::ops {
namespace {
Status infer_image_decoder(InferenceContext& ctx) {
  SymbolicShape out = unknown_dims(3);
  const std::string format = ctx.attr_string("pixel_format", "RGB");
  if (format == "Grayscale") out.dims[2].value = 1;
  else if (format == "RGB" || format == "BGR") out.dims[2].value = 3;
  ctx.set_output(0, DataType::kUInt8, std::move(out));
  return Status::Ok();
}
}  // namespace
ONYX_REGISTER_OP_RULE("", "ImageDecoder", 20, 1000, infer_image_decoder);
}  // namespace onyx::ops
