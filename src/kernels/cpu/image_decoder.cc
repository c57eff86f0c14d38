// ImageDecoder (opset 20): one encoded image (uint8 [N]: BMP, JPEG, JPEG 2000, PNG, PNM,
// TIFF or WebP, told apart by its magic bytes) -> uint8 [H, W, C] pixels, C = 3 for
// pixel_format RGB / BGR, 1 for Grayscale. Grey is Pillow's ITU-R 601 luma in 16-bit fixed
// point, (19595 R + 38470 G + 7471 B + 2^15) >> 16 (exact for grey sources, whose R = G = B).
// The decoders (kernels/image_codec.h) refuse malformed input with INVALID_ARGUMENT and
// formats built without their library with NOT_IMPLEMENTED.
#include "kernels/image_codec.h"
#include "kernels/kernel.h"

namespace onyx {
namespace {

enum class PixelFormat { kRgb, kBgr, kGrayscale };

class ImageDecoderKernel final : public Kernel {
 public:
  Status prepare(const KernelInfo& info) override {
    const std::string format = info.attr_string("pixel_format", "RGB");
    if (format == "RGB") format_ = PixelFormat::kRgb;
    else if (format == "BGR") format_ = PixelFormat::kBgr;
    else if (format == "Grayscale") format_ = PixelFormat::kGrayscale;
    else return invalid_model("ImageDecoder pixel_format must be RGB, BGR or Grayscale, got '", format, "'");
    return Status::Ok();
  }

  Status compute(KernelContext& ctx) const override {
    const Tensor& encoded = ctx.input(0);
    if (!encoded.defined() || encoded.dtype() != DataType::kUInt8 || encoded.rank() != 1)
      return invalid_argument("ImageDecoder input must be a 1-D uint8 tensor, got ", encoded.describe());
    image::RgbImage decoded;
    ONYX_RETURN_IF_ERROR(image::decode_image(encoded.data<uint8_t>(), size_t(encoded.numel()), &decoded));
    const int64_t channels = format_ == PixelFormat::kGrayscale ? 1 : 3;
    ONYX_ASSIGN_OR_RETURN(Tensor* y, ctx.allocate_output_uninitialized(
                                         0, DataType::kUInt8, Shape{decoded.height, decoded.width, channels}));
    uint8_t* out = y->data<uint8_t>();
    const uint8_t* rgb = decoded.pixels.data();
    const size_t pixels = size_t(decoded.height * decoded.width);
    for (size_t i = 0; i < pixels; ++i, rgb += 3) {
      switch (format_) {
        case PixelFormat::kRgb: out[i * 3] = rgb[0], out[i * 3 + 1] = rgb[1], out[i * 3 + 2] = rgb[2]; break;
        case PixelFormat::kBgr: out[i * 3] = rgb[2], out[i * 3 + 1] = rgb[1], out[i * 3 + 2] = rgb[0]; break;
        case PixelFormat::kGrayscale:
          out[i] = uint8_t((19595u * rgb[0] + 38470u * rgb[1] + 7471u * rgb[2] + 0x8000u) >> 16);
          break;
      }
    }
    return Status::Ok();
  }

 private:
  PixelFormat format_ = PixelFormat::kRgb;
};

}  // namespace

ONYX_REGISTER_KERNEL("", "ImageDecoder", 20, kLatestOpset, ImageDecoderKernel);

}  // namespace onyx
