// JPEG (libjpeg-turbo) and PNG (libpng) decoding for ImageDecoder, both libraries reporting
// errors by longjmp. Each library call runs inside one C-style function whose only locals
// are plain data: the library's error hook longjmps back to that function's setjmp, which
// destroys the decoder and returns false, so no C++ frame with a destructor is ever skipped.
// The pixel buffer is allocated by the caller's RgbImage before decoding starts, through a
// callback that runs between the header read and the pixel read. Built without a library
// (ONYX_WITH_LIBJPEG / ONYX_WITH_LIBPNG unset), that format is NOT_IMPLEMENTED.
#include "kernels/image_codec.h"

#include <csetjmp>
#include <cstdio>
#include <cstring>

#if ONYX_WITH_LIBJPEG
#include <jpeglib.h>
#include <jerror.h>
#endif
#if ONYX_WITH_LIBPNG
#include <png.h>
#endif

namespace onyx::image {
namespace {

// The decoders' pixel-buffer callback: sizes context's RgbImage, or keeps the refusal.
struct Allocation {
  const char* format;
  RgbImage* out;
  Status status;
};

[[maybe_unused]] uint8_t* allocate_for(void* context, int64_t height, int64_t width) {
  auto* allocation = static_cast<Allocation*>(context);
  allocation->status = allocate_rgb(allocation->format, height, width, allocation->out);
  return allocation->status.ok() ? allocation->out->pixels.data() : nullptr;
}

}  // namespace

#if ONYX_WITH_LIBJPEG
namespace {

// At most this many scans of a progressive JPEG (a crafted file can otherwise make the
// decoder spend minutes on a few kilobytes).
constexpr int kMaxJpegScans = 1000;

struct JpegError {
  jpeg_error_mgr manager;  // first: libjpeg hands back a pointer to it
  jmp_buf jump;
  char message[JMSG_LENGTH_MAX];
  bool truncated;  // the data ended early (libjpeg only warns, padding the image with grey)
};

[[noreturn]] void jpeg_fail(j_common_ptr cinfo) {
  auto* error = reinterpret_cast<JpegError*>(cinfo->err);
  (*cinfo->err->format_message)(cinfo, error->message);
  longjmp(error->jump, 1);
}

// Warnings are not printed; a premature end of data or a marker inside the entropy-coded
// data (what truncation looks like) fails the decode instead of giving a grey-padded image.
void jpeg_message(j_common_ptr cinfo, int level) {
  auto* error = reinterpret_cast<JpegError*>(cinfo->err);
  if (level < 0 && (cinfo->err->msg_code == JWRN_JPEG_EOF || cinfo->err->msg_code == JWRN_HIT_MARKER)) {
    if (!error->truncated) (*cinfo->err->format_message)(cinfo, error->message);
    error->truncated = true;
  }
}

void jpeg_progress(j_common_ptr cinfo) {
  auto* d = reinterpret_cast<j_decompress_ptr>(cinfo);
  if (d->input_scan_number > kMaxJpegScans) {
    std::snprintf(reinterpret_cast<JpegError*>(cinfo->err)->message, JMSG_LENGTH_MAX, "more than %d scans", kMaxJpegScans);
    longjmp(reinterpret_cast<JpegError*>(cinfo->err)->jump, 1);
  }
}

// Sizes the output for height x width; returns nullptr to stop the decode.
using PixelsFor = uint8_t* (*)(void* context, int64_t height, int64_t width);

enum class JpegOutcome { kOk, kFailed, kRefused, kUnsupportedColour };

JpegOutcome jpeg_decode_raw(const uint8_t* data, size_t size, JpegError* error, PixelsFor pixels_for, void* context) {
  jpeg_decompress_struct cinfo;
  jpeg_progress_mgr progress;
  std::memset(&cinfo, 0, sizeof cinfo);
  cinfo.err = jpeg_std_error(&error->manager);
  error->manager.error_exit = jpeg_fail;
  error->manager.emit_message = jpeg_message;
  error->truncated = false;
  error->message[0] = 0;
  if (setjmp(error->jump)) {
    jpeg_destroy_decompress(&cinfo);
    return JpegOutcome::kFailed;
  }
  jpeg_create_decompress(&cinfo);
  progress.progress_monitor = jpeg_progress;
  cinfo.progress = &progress;
  jpeg_mem_src(&cinfo, data, static_cast<unsigned long>(size));
  jpeg_read_header(&cinfo, TRUE);
  if (cinfo.jpeg_color_space == JCS_CMYK || cinfo.jpeg_color_space == JCS_YCCK) {
    jpeg_destroy_decompress(&cinfo);
    return JpegOutcome::kUnsupportedColour;
  }
  // Every Huffman-coded block costs at least one bit in its first scan, and one block covers at
  // most 32 x 32 pixels (4 x 4 subsampling): a larger claim is a truncated or forged file, refused
  // before its buffer is allocated. (Arithmetic coding has no such bound.)
  if (!cinfo.arith_code && uint64_t(cinfo.image_width) * cinfo.image_height > uint64_t(size) * 8 * 1024) {
    std::snprintf(error->message, JMSG_LENGTH_MAX, "%ux%u pixels cannot be coded in %zu bytes", cinfo.image_width,
                  cinfo.image_height, size);
    jpeg_destroy_decompress(&cinfo);
    return JpegOutcome::kFailed;
  }
  cinfo.out_color_space = JCS_RGB;  // libjpeg's defaults otherwise: JDCT_ISLOW, fancy upsampling
  uint8_t* pixels = pixels_for(context, cinfo.image_height, cinfo.image_width);
  if (!pixels) {
    jpeg_destroy_decompress(&cinfo);
    return JpegOutcome::kRefused;
  }
  jpeg_start_decompress(&cinfo);
  if (cinfo.output_components != 3 || cinfo.output_width != cinfo.image_width ||
      cinfo.output_height != cinfo.image_height) {
    std::snprintf(error->message, JMSG_LENGTH_MAX, "unexpected output layout");
    jpeg_destroy_decompress(&cinfo);
    return JpegOutcome::kFailed;
  }
  const size_t row_bytes = size_t(cinfo.output_width) * 3;
  while (cinfo.output_scanline < cinfo.output_height && !error->truncated) {
    JSAMPROW row = pixels + size_t(cinfo.output_scanline) * row_bytes;
    if (jpeg_read_scanlines(&cinfo, &row, 1) != 1) break;
  }
  const bool complete = cinfo.output_scanline == cinfo.output_height && !error->truncated;
  if (complete) jpeg_finish_decompress(&cinfo);
  jpeg_destroy_decompress(&cinfo);
  if (!complete && !error->message[0]) std::snprintf(error->message, JMSG_LENGTH_MAX, "the data ends early");
  return complete && !error->truncated ? JpegOutcome::kOk : JpegOutcome::kFailed;
}

}  // namespace

Status decode_jpeg(const uint8_t* data, size_t size, RgbImage* out) {
  JpegError error;
  Allocation allocation{"JPEG", out, Status::Ok()};
  switch (jpeg_decode_raw(data, size, &error, allocate_for, &allocation)) {
    case JpegOutcome::kOk: return Status::Ok();
    case JpegOutcome::kRefused: return allocation.status;
    case JpegOutcome::kUnsupportedColour: return not_implemented("ImageDecoder: CMYK/YCCK JPEG is not supported");
    case JpegOutcome::kFailed: break;
  }
  return invalid_argument("ImageDecoder: JPEG is malformed or truncated: ", error.message);
}
#else
Status decode_jpeg(const uint8_t*, size_t, RgbImage*) {
  return not_implemented("ImageDecoder: JPEG decoding is not built in (libjpeg was not found when onyx was built)");
}
#endif

#if ONYX_WITH_LIBPNG
namespace {

struct PngState {
  jmp_buf jump;
  char message[256];
  const uint8_t* data;
  size_t size;
  size_t pos;
};

[[noreturn]] void png_fail(png_structp png, png_const_charp message) {
  auto* state = static_cast<PngState*>(png_get_error_ptr(png));
  std::snprintf(state->message, sizeof state->message, "%s", message);
  longjmp(state->jump, 1);
}

void png_warn(png_structp, png_const_charp) {}

void png_read_memory(png_structp png, png_bytep dst, png_size_t count) {
  auto* state = static_cast<PngState*>(png_get_io_ptr(png));
  if (count > state->size - state->pos) png_error(png, "the data ends early");
  std::memcpy(dst, state->data + state->pos, count);
  state->pos += count;
}

enum class PngOutcome { kOk, kFailed, kRefused };

struct PngRows {
  uint8_t* (*pixels_for)(void*, int64_t, int64_t);
  void* context;
};

PngOutcome png_decode_raw(PngState* state, PngRows rows) {
  png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, state, png_fail, png_warn);
  if (!png) {
    std::snprintf(state->message, sizeof state->message, "libpng could not start");
    return PngOutcome::kFailed;
  }
  png_infop info = png_create_info_struct(png);
  if (!info) {
    png_destroy_read_struct(&png, nullptr, nullptr);
    std::snprintf(state->message, sizeof state->message, "libpng could not start");
    return PngOutcome::kFailed;
  }
  // png and info are not changed after setjmp, so they need not be volatile.
  if (setjmp(state->jump)) {
    png_destroy_read_struct(&png, &info, nullptr);
    return PngOutcome::kFailed;
  }
  png_set_read_fn(png, state, png_read_memory);
  png_set_user_limits(png, uint32_t(kMaxImagePixels), uint32_t(kMaxImagePixels));
  png_set_chunk_malloc_max(png, 64u << 20);
  png_read_info(png, info);
  const png_uint_32 width = png_get_image_width(png, info), height = png_get_image_height(png, info);
  const int colour = png_get_color_type(png, info);
  // Deflate expands at most 1032-fold and a pixel takes at least one bit: a larger claim is a
  // truncated or forged file, refused before its buffer is allocated.
  if (uint64_t(width) * height > uint64_t(state->size) * 8 * 1032) {
    std::snprintf(state->message, sizeof state->message, "%ux%u pixels cannot be coded in %zu bytes", unsigned(width),
                  unsigned(height), state->size);
    png_destroy_read_struct(&png, &info, nullptr);
    return PngOutcome::kFailed;
  }
  if (png_get_bit_depth(png, info) == 16) png_set_strip_16(png);  // the top 8 bits, as Pillow keeps
  if (colour == PNG_COLOR_TYPE_PALETTE) png_set_palette_to_rgb(png);
  if (colour == PNG_COLOR_TYPE_GRAY && png_get_bit_depth(png, info) < 8) png_set_expand_gray_1_2_4_to_8(png);
  if (colour == PNG_COLOR_TYPE_GRAY || colour == PNG_COLOR_TYPE_GRAY_ALPHA) png_set_gray_to_rgb(png);
  if (colour & PNG_COLOR_MASK_ALPHA) png_set_strip_alpha(png);
  png_set_interlace_handling(png);
  png_read_update_info(png, info);
  if (png_get_rowbytes(png, info) != size_t(width) * 3 || png_get_channels(png, info) != 3) {
    std::snprintf(state->message, sizeof state->message, "unexpected row layout after conversion");
    png_destroy_read_struct(&png, &info, nullptr);
    return PngOutcome::kFailed;
  }
  uint8_t* pixels = rows.pixels_for(rows.context, height, width);
  if (!pixels) {
    png_destroy_read_struct(&png, &info, nullptr);
    return PngOutcome::kRefused;
  }
  const int passes = png_set_interlace_handling(png);
  for (int pass = 0; pass < passes; ++pass)
    for (png_uint_32 y = 0; y < height; ++y) png_read_row(png, pixels + size_t(y) * width * 3, nullptr);
  png_read_end(png, nullptr);
  png_destroy_read_struct(&png, &info, nullptr);
  return PngOutcome::kOk;
}

}  // namespace

Status decode_png(const uint8_t* data, size_t size, RgbImage* out) {
  PngState state;
  state.message[0] = 0;
  state.data = data, state.size = size, state.pos = 0;
  Allocation allocation{"PNG", out, Status::Ok()};
  switch (png_decode_raw(&state, PngRows{allocate_for, &allocation})) {
    case PngOutcome::kOk: return Status::Ok();
    case PngOutcome::kRefused: return allocation.status;
    case PngOutcome::kFailed: break;
  }
  return invalid_argument("ImageDecoder: PNG is malformed or truncated: ", state.message);
}
#else
Status decode_png(const uint8_t*, size_t, RgbImage*) {
  return not_implemented("ImageDecoder: PNG decoding is not built in (libpng was not found when onyx was built)");
}
#endif

}  // namespace onyx::image
