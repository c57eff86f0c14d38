// WebP (libwebp), JPEG 2000 (OpenJPEG) and TIFF (libtiff) decoding for ImageDecoder. None of
// these libraries longjmps: each reports failure by return value, and their messages go to
// per-call handlers (never to stderr). Built without a library (ONYX_WITH_LIBWEBP,
// ONYX_WITH_OPENJPEG, ONYX_WITH_LIBTIFF unset), that format is NOT_IMPLEMENTED.
#include "kernels/image_codec.h"

#include <algorithm>
#include <cstring>
#include <memory>

#if ONYX_WITH_LIBWEBP
#include <webp/decode.h>
#endif
#if ONYX_WITH_OPENJPEG
#include <openjpeg.h>
#endif
#if ONYX_WITH_LIBTIFF
#include <tiffio.h>
#endif

namespace onyx::image {

#if ONYX_WITH_LIBWEBP
// libwebp's defaults (fancy upsampling of the chroma), the first frame of an animation.
Status decode_webp(const uint8_t* data, size_t size, RgbImage* out) {
  WebPBitstreamFeatures features;
  if (WebPGetFeatures(data, size, &features) != VP8_STATUS_OK)
    return invalid_argument("ImageDecoder: WebP header is malformed or truncated");
  if (features.has_animation) return not_implemented("ImageDecoder: animated WebP is not supported");
  ONYX_RETURN_IF_ERROR(allocate_rgb("WebP", features.height, features.width, out));
  if (!WebPDecodeRGBInto(data, size, out->pixels.data(), out->pixels.size(), features.width * 3))
    return invalid_argument("ImageDecoder: WebP is malformed or truncated");
  return Status::Ok();
}
#else
Status decode_webp(const uint8_t*, size_t, RgbImage*) {
  return not_implemented("ImageDecoder: WebP decoding is not built in (libwebp was not found when onyx was built)");
}
#endif

#if ONYX_WITH_OPENJPEG
namespace {

struct MemoryStream {
  const uint8_t* data;
  size_t size;
  size_t pos;
};

OPJ_SIZE_T jp2_read(void* buffer, OPJ_SIZE_T count, void* user) {
  auto* s = static_cast<MemoryStream*>(user);
  if (s->pos >= s->size) return OPJ_SIZE_T(-1);
  const size_t n = std::min(count, s->size - s->pos);
  std::memcpy(buffer, s->data + s->pos, n);
  s->pos += n;
  return n;
}
OPJ_OFF_T jp2_skip(OPJ_OFF_T count, void* user) {
  auto* s = static_cast<MemoryStream*>(user);
  if (count < 0) return -1;
  const size_t n = std::min(size_t(count), s->size - s->pos);
  s->pos += n;
  return OPJ_OFF_T(n);
}
OPJ_BOOL jp2_seek(OPJ_OFF_T to, void* user) {
  auto* s = static_cast<MemoryStream*>(user);
  if (to < 0 || size_t(to) > s->size) return OPJ_FALSE;
  s->pos = size_t(to);
  return OPJ_TRUE;
}
void jp2_error(const char* message, void* user) {
  auto* text = static_cast<std::string*>(user);
  if (text->empty()) text->assign(message, strnlen(message, 200));
  while (!text->empty() && text->back() == '\n') text->pop_back();
}
void jp2_quiet(const char*, void*) {}

struct CodecCloser { void operator()(opj_codec_t* c) const { opj_destroy_codec(c); } };
struct StreamCloser { void operator()(opj_stream_t* s) const { opj_stream_destroy(s); } };
struct ImageCloser { void operator()(opj_image_t* i) const { opj_image_destroy(i); } };

// One sample reduced to 8 bits: signed samples offset to unsigned, wider ones shifted down,
// narrower ones scaled up to 0..255.
uint8_t to_8_bits(OPJ_INT32 v, const opj_image_comp_t& c) {
  int64_t value = c.sgnd ? int64_t(v) + (int64_t(1) << (c.prec - 1)) : int64_t(v);
  const int64_t max = (int64_t(1) << c.prec) - 1;
  value = std::clamp<int64_t>(value, 0, max);
  if (c.prec > 8) return uint8_t(value >> (c.prec - 8));
  if (c.prec == 8) return uint8_t(value);
  return uint8_t((value * 255 + max / 2) / max);
}

}  // namespace

// The JP2 container or a raw J2K codestream; grey (+ alpha) or RGB (+ alpha) at full
// resolution per component; sYCC and subsampled components are NOT_IMPLEMENTED.
Status decode_jpeg2000(const uint8_t* data, size_t size, RgbImage* out) {
  const bool raw = size >= 4 && data[0] == 0xff && data[1] == 0x4f;
  std::unique_ptr<opj_codec_t, CodecCloser> codec(opj_create_decompress(raw ? OPJ_CODEC_J2K : OPJ_CODEC_JP2));
  if (!codec) return invalid_argument("ImageDecoder: JPEG 2000 decoder could not start");
  std::string message;
  opj_set_error_handler(codec.get(), jp2_error, &message);
  opj_set_warning_handler(codec.get(), jp2_quiet, nullptr);
  opj_set_info_handler(codec.get(), jp2_quiet, nullptr);
  opj_dparameters_t parameters;
  opj_set_default_decoder_parameters(&parameters);
  if (!opj_setup_decoder(codec.get(), &parameters)) return invalid_argument("ImageDecoder: JPEG 2000 decoder setup failed");
  MemoryStream memory{data, size, 0};
  std::unique_ptr<opj_stream_t, StreamCloser> stream(opj_stream_create(64 * 1024, OPJ_TRUE));
  if (!stream) return invalid_argument("ImageDecoder: JPEG 2000 stream could not start");
  opj_stream_set_user_data(stream.get(), &memory, nullptr);
  opj_stream_set_user_data_length(stream.get(), size);
  opj_stream_set_read_function(stream.get(), jp2_read);
  opj_stream_set_skip_function(stream.get(), jp2_skip);
  opj_stream_set_seek_function(stream.get(), jp2_seek);
  opj_image_t* header = nullptr;
  if (!opj_read_header(stream.get(), codec.get(), &header)) {
    opj_image_destroy(header);
    return invalid_argument("ImageDecoder: JPEG 2000 header is malformed or truncated: ", message);
  }
  std::unique_ptr<opj_image_t, ImageCloser> image(header);
  const int64_t width = int64_t(image->x1) - image->x0, height = int64_t(image->y1) - image->y0;
  ONYX_RETURN_IF_ERROR(allocate_rgb("JPEG 2000", height, width, out));
  if (image->numcomps < 1 || image->numcomps > 4)
    return not_implemented("ImageDecoder: JPEG 2000 with ", image->numcomps, " components is not supported");
  if (image->color_space == OPJ_CLRSPC_SYCC || image->color_space == OPJ_CLRSPC_EYCC ||
      image->color_space == OPJ_CLRSPC_CMYK)
    return not_implemented("ImageDecoder: JPEG 2000 colour space ", int(image->color_space), " is not supported");
  if (!opj_decode(codec.get(), stream.get(), image.get()) || !opj_end_decompress(codec.get(), stream.get()))
    return invalid_argument("ImageDecoder: JPEG 2000 is malformed or truncated: ", message);
  const uint32_t colour_components = image->numcomps >= 3 ? 3 : 1;
  for (uint32_t c = 0; c < colour_components; ++c) {
    const opj_image_comp_t& comp = image->comps[c];
    if (!comp.data) return invalid_argument("ImageDecoder: JPEG 2000 component ", c, " has no data");
    if (comp.dx != 1 || comp.dy != 1 || int64_t(comp.w) != width || int64_t(comp.h) != height)
      return not_implemented("ImageDecoder: JPEG 2000 with subsampled components is not supported");
    if (comp.prec < 1 || comp.prec > 31)
      return invalid_argument("ImageDecoder: JPEG 2000 component precision ", comp.prec);
  }
  const size_t pixels = size_t(width * height);
  for (size_t i = 0; i < pixels; ++i)
    for (uint32_t k = 0; k < 3; ++k) {
      const opj_image_comp_t& comp = image->comps[colour_components == 3 ? k : 0];
      out->pixels[i * 3 + k] = to_8_bits(comp.data[i], comp);
    }
  return Status::Ok();
}
#else
Status decode_jpeg2000(const uint8_t*, size_t, RgbImage*) {
  return not_implemented("ImageDecoder: JPEG 2000 decoding is not built in (OpenJPEG was not found when onyx was built)");
}
#endif

#if ONYX_WITH_LIBTIFF
namespace {

struct TiffMemory {
  const uint8_t* data;
  size_t size;
  size_t pos;
  std::string message;
};

tmsize_t tiff_read(thandle_t h, void* buffer, tmsize_t count) {
  auto* m = static_cast<TiffMemory*>(h);
  if (count < 0 || m->pos >= m->size) return 0;
  const size_t n = std::min(size_t(count), m->size - m->pos);
  std::memcpy(buffer, m->data + m->pos, n);
  m->pos += n;
  return tmsize_t(n);
}
tmsize_t tiff_write(thandle_t, void*, tmsize_t) { return -1; }
toff_t tiff_seek(thandle_t h, toff_t offset, int whence) {
  auto* m = static_cast<TiffMemory*>(h);
  uint64_t base = whence == SEEK_CUR ? m->pos : whence == SEEK_END ? m->size : 0;
  if (offset > UINT64_MAX - base) return toff_t(-1);
  m->pos = size_t(std::min<uint64_t>(base + offset, m->size));
  return m->pos;
}
int tiff_close(thandle_t) { return 0; }
toff_t tiff_size(thandle_t h) { return static_cast<TiffMemory*>(h)->size; }
int tiff_no_map(thandle_t, void**, toff_t*) { return 0; }
void tiff_no_unmap(thandle_t, void*, toff_t) {}
int tiff_error(TIFF*, void* user, const char* module, const char* format, va_list args) {
  auto* m = static_cast<TiffMemory*>(user);
  if (m->message.empty()) {
    char text[256];
    std::vsnprintf(text, sizeof text, format, args);
    m->message = std::string(module ? module : "") + ": " + text;
  }
  return 1;
}
int tiff_warning(TIFF*, void*, const char*, const char*, va_list) { return 1; }

struct TiffCloser { void operator()(TIFF* t) const { TIFFClose(t); } };
struct OptionsFree { void operator()(TIFFOpenOptions* o) const { TIFFOpenOptionsFree(o); } };

}  // namespace

// The first image of the file, through libtiff's RGBA interface (any photometric
// interpretation and compression libtiff handles), alpha dropped.
Status decode_tiff(const uint8_t* data, size_t size, RgbImage* out) {
  TiffMemory memory{data, size, 0, {}};
  std::unique_ptr<TIFFOpenOptions, OptionsFree> options(TIFFOpenOptionsAlloc());
  if (!options) return invalid_argument("ImageDecoder: TIFF decoder could not start");
  TIFFOpenOptionsSetErrorHandlerExtR(options.get(), tiff_error, &memory);
  TIFFOpenOptionsSetWarningHandlerExtR(options.get(), tiff_warning, &memory);
  TIFFOpenOptionsSetMaxSingleMemAlloc(options.get(), tmsize_t(kMaxImagePixels) * 4 + (tmsize_t(1) << 20));
  std::unique_ptr<TIFF, TiffCloser> tiff(TIFFClientOpenExt("image", "rm", &memory, tiff_read, tiff_write, tiff_seek,
                                                           tiff_close, tiff_size, tiff_no_map, tiff_no_unmap,
                                                           options.get()));
  if (!tiff) return invalid_argument("ImageDecoder: TIFF header is malformed or truncated: ", memory.message);
  uint32_t width = 0, height = 0;
  if (!TIFFGetField(tiff.get(), TIFFTAG_IMAGEWIDTH, &width) || !TIFFGetField(tiff.get(), TIFFTAG_IMAGELENGTH, &height))
    return invalid_argument("ImageDecoder: TIFF has no image size");
  ONYX_RETURN_IF_ERROR(allocate_rgb("TIFF", height, width, out));
  char reason[1024];
  if (!TIFFRGBAImageOK(tiff.get(), reason))
    return not_implemented("ImageDecoder: TIFF layout is not supported: ", reason);
  std::vector<uint32_t> raster(size_t(width) * height);
  if (!TIFFReadRGBAImageOriented(tiff.get(), width, height, raster.data(), ORIENTATION_TOPLEFT, 1) ||
      !memory.message.empty())
    return invalid_argument("ImageDecoder: TIFF is malformed or truncated: ", memory.message);
  for (size_t i = 0; i < raster.size(); ++i) {
    out->pixels[i * 3] = uint8_t(TIFFGetR(raster[i]));
    out->pixels[i * 3 + 1] = uint8_t(TIFFGetG(raster[i]));
    out->pixels[i * 3 + 2] = uint8_t(TIFFGetB(raster[i]));
  }
  return Status::Ok();
}
#else
Status decode_tiff(const uint8_t*, size_t, RgbImage*) {
  return not_implemented("ImageDecoder: TIFF decoding is not built in (libtiff was not found when onyx was built)");
}
#endif

}  // namespace onyx::image
