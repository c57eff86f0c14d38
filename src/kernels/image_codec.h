// Decoders behind ImageDecoder: encoded image bytes in, 8-bit RGB pixels out.
//
// Contract of every decode_* function: reads only data[0, size); never throws, aborts or
// longjmps past its own frame; on success fills `out` with height x width x 3 RGB bytes
// (rows top to bottom, grey images replicated into R = G = B, alpha dropped, samples wider
// than 8 bits reduced to their top 8 bits); on malformed, truncated or oversized input returns
// INVALID_ARGUMENT naming the format and the problem; a valid feature it does not handle (a
// colour space, a compression) or a format whose library was absent when onyx was built is
// NOT_IMPLEMENTED naming it. No image over kMaxImagePixels is decoded.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "core/status.h"

namespace onyx::image {

// 2^28 pixels (16384 x 16384): the largest image decoded, checked before any pixel buffer
// is allocated.
constexpr int64_t kMaxImagePixels = int64_t(1) << 28;

struct RgbImage {
  int64_t height = 0;
  int64_t width = 0;
  std::vector<uint8_t> pixels;  // height * width * 3, HWC
};

enum class ImageFormat { kUnknown, kBmp, kPnm, kPng, kJpeg, kJpeg2000, kTiff, kWebp };

// The format named by the leading magic bytes (kUnknown when none matches).
ImageFormat detect_format(const uint8_t* data, size_t size);
const char* format_name(ImageFormat format);

// Checks height x width against kMaxImagePixels (and positivity) and sizes out->pixels.
Status allocate_rgb(const char* format, int64_t height, int64_t width, RgbImage* out);

Status decode_bmp(const uint8_t* data, size_t size, RgbImage* out);
Status decode_pnm(const uint8_t* data, size_t size, RgbImage* out);
Status decode_png(const uint8_t* data, size_t size, RgbImage* out);
Status decode_jpeg(const uint8_t* data, size_t size, RgbImage* out);
Status decode_jpeg2000(const uint8_t* data, size_t size, RgbImage* out);
Status decode_tiff(const uint8_t* data, size_t size, RgbImage* out);
Status decode_webp(const uint8_t* data, size_t size, RgbImage* out);

// Detects the format and runs its decoder.
Status decode_image(const uint8_t* data, size_t size, RgbImage* out);

}  // namespace onyx::image
