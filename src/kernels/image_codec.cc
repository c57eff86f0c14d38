// Format detection, the shared pixel-buffer check, and the two formats onyx decodes itself:
// BMP (Windows bitmaps: 1/4/8-bit palettes, 16-bit 5-5-5, 24- and 32-bit, uncompressed) and
// PNM (P2/P3 text and P5/P6 binary grey/colour maps, maxval 1..65535). Every field read is
// bounds-checked against the input; the pixel data must be present in full before the output
// is allocated.
#include "kernels/image_codec.h"

#include <cstring>

namespace onyx::image {
namespace {

bool starts_with(const uint8_t* data, size_t size, const char* magic, size_t n) {
  return size >= n && std::memcmp(data, magic, n) == 0;
}

uint32_t le16(const uint8_t* p) { return uint32_t(p[0]) | uint32_t(p[1]) << 8; }
uint32_t le32(const uint8_t* p) { return le16(p) | le16(p + 2) << 16; }

}  // namespace

ImageFormat detect_format(const uint8_t* data, size_t size) {
  if (starts_with(data, size, "\x89PNG\r\n\x1a\n", 8)) return ImageFormat::kPng;
  if (starts_with(data, size, "\xff\xd8\xff", 3)) return ImageFormat::kJpeg;
  if (starts_with(data, size, "\x00\x00\x00\x0cjP  \r\n\x87\n", 12) || starts_with(data, size, "\xff\x4f\xff\x51", 4))
    return ImageFormat::kJpeg2000;
  if (starts_with(data, size, "II*\x00", 4) || starts_with(data, size, "MM\x00*", 4)) return ImageFormat::kTiff;
  if (size >= 12 && starts_with(data, size, "RIFF", 4) && std::memcmp(data + 8, "WEBP", 4) == 0)
    return ImageFormat::kWebp;
  if (starts_with(data, size, "BM", 2)) return ImageFormat::kBmp;
  if (size >= 2 && data[0] == 'P' && data[1] >= '1' && data[1] <= '6') return ImageFormat::kPnm;
  return ImageFormat::kUnknown;
}

const char* format_name(ImageFormat format) {
  switch (format) {
    case ImageFormat::kBmp: return "BMP";
    case ImageFormat::kPnm: return "PNM";
    case ImageFormat::kPng: return "PNG";
    case ImageFormat::kJpeg: return "JPEG";
    case ImageFormat::kJpeg2000: return "JPEG 2000";
    case ImageFormat::kTiff: return "TIFF";
    case ImageFormat::kWebp: return "WebP";
    case ImageFormat::kUnknown: break;
  }
  return "unknown";
}

Status allocate_rgb(const char* format, int64_t height, int64_t width, RgbImage* out) {
  if (height <= 0 || width <= 0)
    return invalid_argument("ImageDecoder: ", format, " image has a non-positive size ", height, "x", width);
  if (height > kMaxImagePixels || width > kMaxImagePixels || height * width > kMaxImagePixels)
    return invalid_argument("ImageDecoder: ", format, " image of ", height, "x", width,
                            " pixels is over the limit of ", kMaxImagePixels, " pixels");
  out->height = height;
  out->width = width;
  out->pixels.assign(size_t(height * width * 3), 0);
  return Status::Ok();
}

Status decode_bmp(const uint8_t* data, size_t size, RgbImage* out) {
  if (size < 26) return invalid_argument("ImageDecoder: BMP is truncated (", size, " bytes, no header)");
  const uint32_t pixel_offset = le32(data + 10);
  const uint32_t header_size = le32(data + 14);
  if (header_size != 12 && header_size < 40)
    return invalid_argument("ImageDecoder: BMP has an unknown info header of ", header_size, " bytes");
  if (size_t(14) + header_size > size) return invalid_argument("ImageDecoder: BMP is truncated in its info header");
  int64_t width, height;
  uint32_t bits, compression = 0, colors_used = 0;
  if (header_size == 12) {
    width = le16(data + 18);
    height = le16(data + 20);
    bits = le16(data + 24);
  } else {
    width = int32_t(le32(data + 18));
    height = int32_t(le32(data + 22));
    bits = le16(data + 28);
    compression = le32(data + 30);
    colors_used = le32(data + 46);
  }
  const bool top_down = height < 0;
  if (top_down) height = -height;
  if (compression != 0 && !(compression == 3 && (bits == 16 || bits == 32)))
    return not_implemented("ImageDecoder: BMP compression ", compression, " (RLE, JPEG or PNG in BMP) is not supported");
  if (compression == 3) return not_implemented("ImageDecoder: BMP with BI_BITFIELDS masks is not supported");
  if (bits != 1 && bits != 4 && bits != 8 && bits != 16 && bits != 24 && bits != 32)
    return invalid_argument("ImageDecoder: BMP has ", bits, " bits per pixel");
  if (width <= 0 || height <= 0 || width > kMaxImagePixels || height > kMaxImagePixels || width * height > kMaxImagePixels)
    return invalid_argument("ImageDecoder: BMP claims ", width, "x", height, " pixels (limit ", kMaxImagePixels, ")");
  // The palette: BGR(A) entries after the info header, 3 bytes each in the 12-byte format.
  std::vector<uint8_t> palette;  // RGB triples
  if (bits <= 8) {
    const uint32_t max_colors = 1u << bits;
    const uint32_t count = colors_used == 0 || colors_used > max_colors ? max_colors : colors_used;
    const size_t entry = header_size == 12 ? 3 : 4;
    const size_t start = 14 + size_t(header_size);
    if (start + count * entry > size) return invalid_argument("ImageDecoder: BMP is truncated in its palette");
    palette.assign(size_t(max_colors) * 3, 0);
    for (uint32_t i = 0; i < count; ++i) {
      const uint8_t* p = data + start + i * entry;
      palette[i * 3] = p[2], palette[i * 3 + 1] = p[1], palette[i * 3 + 2] = p[0];
    }
  }
  const uint64_t row_bytes = ((uint64_t(width) * bits + 31) / 32) * 4;
  if (pixel_offset > size || row_bytes * uint64_t(height) > size - pixel_offset)
    return invalid_argument("ImageDecoder: BMP is truncated: ", width, "x", height, " at ", bits,
                            " bits needs ", row_bytes * uint64_t(height), " bytes of pixels from offset ", pixel_offset,
                            ", the input has ", size);
  ONYX_RETURN_IF_ERROR(allocate_rgb("BMP", height, width, out));
  for (int64_t y = 0; y < height; ++y) {
    const uint8_t* row = data + pixel_offset + row_bytes * uint64_t(top_down ? y : height - 1 - y);
    uint8_t* dst = out->pixels.data() + size_t(y * width * 3);
    for (int64_t x = 0; x < width; ++x, dst += 3) {
      if (bits == 24 || bits == 32) {
        const uint8_t* p = row + x * (bits / 8);
        dst[0] = p[2], dst[1] = p[1], dst[2] = p[0];
      } else if (bits == 16) {  // 5-5-5, the top bit unused
        const uint32_t v = le16(row + x * 2);
        const uint32_t r = (v >> 10) & 31, g = (v >> 5) & 31, b = v & 31;
        dst[0] = uint8_t((r << 3) | (r >> 2)), dst[1] = uint8_t((g << 3) | (g >> 2)), dst[2] = uint8_t((b << 3) | (b >> 2));
      } else {
        const uint64_t bit = uint64_t(x) * bits;
        const uint32_t index = (row[bit / 8] >> (8 - bits - bit % 8)) & ((1u << bits) - 1);
        std::memcpy(dst, palette.data() + index * 3, 3);
      }
    }
  }
  return Status::Ok();
}

namespace {

// Reads PNM header tokens (decimal numbers, '#' comments to the end of a line).
struct PnmReader {
  const uint8_t* data;
  size_t size;
  size_t pos;
  bool skip_space() {
    while (pos < size) {
      if (data[pos] == '#') {
        while (pos < size && data[pos] != '\n' && data[pos] != '\r') ++pos;
      } else if (data[pos] == ' ' || data[pos] == '\t' || data[pos] == '\n' || data[pos] == '\r' ||
                 data[pos] == '\v' || data[pos] == '\f') {
        ++pos;
      } else {
        return true;
      }
    }
    return false;
  }
  // A decimal number no larger than limit; false when absent, malformed or too large.
  bool number(uint32_t limit, uint32_t* value) {
    if (!skip_space() || data[pos] < '0' || data[pos] > '9') return false;
    uint64_t v = 0;
    while (pos < size && data[pos] >= '0' && data[pos] <= '9') {
      v = v * 10 + (data[pos++] - '0');
      if (v > limit) return false;
    }
    *value = uint32_t(v);
    return true;
  }
};

}  // namespace

Status decode_pnm(const uint8_t* data, size_t size, RgbImage* out) {
  if (size < 3) return invalid_argument("ImageDecoder: PNM is truncated");
  const char kind = char(data[1]);
  if (kind == '1' || kind == '4') return not_implemented("ImageDecoder: PNM bitmaps (P1, P4) are not supported");
  const bool colour = kind == '3' || kind == '6';
  const bool binary = kind == '5' || kind == '6';
  PnmReader reader{data, size, 2};
  uint32_t width, height, maxval;
  if (!reader.number(uint32_t(kMaxImagePixels), &width) || !reader.number(uint32_t(kMaxImagePixels), &height) ||
      !reader.number(65535, &maxval))
    return invalid_argument("ImageDecoder: PNM header is malformed or truncated (width, height, maxval expected)");
  if (maxval == 0) return invalid_argument("ImageDecoder: PNM maxval is 0");
  if (width == 0 || height == 0 || uint64_t(width) * height > uint64_t(kMaxImagePixels))
    return invalid_argument("ImageDecoder: PNM claims ", width, "x", height, " pixels (limit ", kMaxImagePixels, ")");
  const uint64_t samples = uint64_t(width) * height * (colour ? 3 : 1);
  const uint32_t sample_bytes = maxval > 255 ? 2 : 1;
  if (binary) {
    // Exactly one whitespace byte separates maxval from the raster.
    if (reader.pos >= size) return invalid_argument("ImageDecoder: PNM is truncated before its pixels");
    ++reader.pos;
    if (samples * sample_bytes > size - reader.pos)
      return invalid_argument("ImageDecoder: PNM is truncated: ", width, "x", height, " needs ", samples * sample_bytes,
                              " bytes of pixels, ", size - reader.pos, " remain");
  } else if (samples > size - reader.pos) {  // each text sample takes at least one byte
    return invalid_argument("ImageDecoder: PNM is truncated: ", samples, " samples cannot fit in ",
                            size - reader.pos, " bytes");
  }
  ONYX_RETURN_IF_ERROR(allocate_rgb("PNM", height, width, out));
  uint8_t* dst = out->pixels.data();
  for (uint64_t i = 0; i < samples; ++i) {
    uint32_t v;
    if (binary) {
      const uint8_t* p = data + reader.pos + i * sample_bytes;
      v = sample_bytes == 2 ? (uint32_t(p[0]) << 8 | p[1]) : p[0];
    } else if (!reader.number(65535, &v)) {
      return invalid_argument("ImageDecoder: PNM sample ", i, " is missing or malformed");
    }
    if (v > maxval) return invalid_argument("ImageDecoder: PNM sample ", v, " is over maxval ", maxval);
    const uint8_t scaled = maxval == 255 ? uint8_t(v) : uint8_t((v * 255u + maxval / 2) / maxval);
    if (colour) {
      *dst++ = scaled;
    } else {
      dst[0] = dst[1] = dst[2] = scaled;
      dst += 3;
    }
  }
  return Status::Ok();
}

Status decode_image(const uint8_t* data, size_t size, RgbImage* out) {
  switch (detect_format(data, size)) {
    case ImageFormat::kBmp: return decode_bmp(data, size, out);
    case ImageFormat::kPnm: return decode_pnm(data, size, out);
    case ImageFormat::kPng: return decode_png(data, size, out);
    case ImageFormat::kJpeg: return decode_jpeg(data, size, out);
    case ImageFormat::kJpeg2000: return decode_jpeg2000(data, size, out);
    case ImageFormat::kTiff: return decode_tiff(data, size, out);
    case ImageFormat::kWebp: return decode_webp(data, size, out);
    case ImageFormat::kUnknown: break;
  }
  return invalid_argument("ImageDecoder: the ", size, " input bytes are not an image format onyx knows "
                          "(BMP, JPEG, JPEG 2000, PNG, PNM, TIFF, WebP)");
}

}  // namespace onyx::image
