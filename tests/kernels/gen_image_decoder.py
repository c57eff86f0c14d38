#!/usr/bin/python3
"""Kernel cases for ImageDecoder (opset 20). The encoded images are written here by hand
(numpy, zlib): PNM (P2, P3, P5, P6), BMP (24-bit bottom-up, 32-bit top-down, 8-bit palette),
PNG (RGB, grey, RGBA, palette, 16-bit, Sub/Up filters) and a baseline JPEG of flat 8x8 blocks
(DC coefficients only, unit quantisation: every decoder reproduces those pixels exactly). The
expected pixels are what was encoded, in RGB, BGR or Grayscale (Pillow's fixed-point ITU-R 601
luma, (19595 R + 38470 G + 7471 B + 2^15) >> 16). Bad cases: truncated and corrupt files,
garbage, headers claiming huge sizes.

Usage: gen_image_decoder.py OUT_DIR (see kcase.py for the layout)."""
import struct
import zlib

import numpy as np
from onnx import TensorProto as TP

from kcase import Writer

w = Writer()
rng = np.random.default_rng(2020)
OPSET = 20


def luma(rgb):
    r, g, b = (rgb[..., k].astype(np.uint32) for k in range(3))
    return ((19595 * r + 38470 * g + 7471 * b + 0x8000) >> 16).astype(np.uint8)[..., None]


def as_bytes(b):
    return np.frombuffer(bytes(b), np.uint8).copy()


def cases(name, encoded, rgb, formats=("RGB", "BGR", "Grayscale")):
    """One case per pixel format: rgb is the H x W x 3 image the bytes encode."""
    outputs = {"RGB": rgb, "BGR": rgb[..., ::-1].copy(), "Grayscale": luma(rgb)}
    for f in formats:
        w.case(f"{name}_{f.lower()}", "ImageDecoder", [("encoded", as_bytes(encoded))], [("image", outputs[f])],
               opset=OPSET, pixel_format=f)


def bad(name, encoded, error):
    w.bad(name, "ImageDecoder", [("encoded", as_bytes(encoded))], [("image", TP.UINT8)], error, opset=OPSET)


def image(h, w_, levels=256):
    return rng.integers(0, levels, (h, w_, 3), dtype=np.uint8)


# ---------------------------------------------------------------- PNM
def pnm(kind, pixels, maxval=255):
    """pixels: H x W x 3 (P3/P6) or H x W (P2/P5) samples <= maxval."""
    h, w_ = pixels.shape[:2]
    head = f"{kind}\n# onyx kernel case\n{w_} {h}\n{maxval}\n".encode()
    if kind in ("P5", "P6"):
        return head + pixels.astype(">u2" if maxval > 255 else np.uint8).tobytes()
    return head + " ".join(str(int(v)) for v in pixels.reshape(-1)).encode() + b"\n"


def scale_to_8(v, maxval):
    v = v.astype(np.uint32)
    return v.astype(np.uint8) if maxval == 255 else ((v * 255 + maxval // 2) // maxval).astype(np.uint8)


img = image(5, 7)
cases("pnm_p6", pnm("P6", img), img)
cases("pnm_p3", pnm("P3", img), img, ("RGB",))
grey = rng.integers(0, 256, (6, 4), dtype=np.uint8)
cases("pnm_p5", pnm("P5", grey), np.repeat(grey[..., None], 3, axis=2))
grey16 = rng.integers(0, 1000, (3, 5), dtype=np.uint16)
cases("pnm_p5_maxval_999", pnm("P5", grey16, 999), np.repeat(scale_to_8(grey16, 999)[..., None], 3, axis=2), ("RGB",))
small = rng.integers(0, 16, (4, 3, 3), dtype=np.uint8)
cases("pnm_p3_maxval_15", pnm("P3", small, 15), scale_to_8(small, 15), ("RGB",))
bad("pnm_truncated", pnm("P6", img)[:-5], "PNM is truncated")
bad("pnm_huge", b"P6\n99999 99999\n255\n" + bytes(64), "PNM claims")
bad("pnm_no_size", b"P6\n#only a comment", "PNM header is malformed")
bad("pnm_sample_over_maxval", pnm("P2", np.array([[3, 20]]), 15).replace(b"3 20", b"3 99"), "over maxval")


# ---------------------------------------------------------------- BMP
def bmp(pixels, bits=24, top_down=False, palette=None, indices=None):
    h, w_ = (indices if indices is not None else pixels).shape[:2]
    rows = []
    for y in range(h):
        if bits == 8:
            row = indices[y].astype(np.uint8).tobytes()
        else:
            bgr = pixels[y][:, ::-1]
            if bits == 32:
                bgr = np.concatenate([bgr, np.full((w_, 1), 255, np.uint8)], axis=1)
            row = bgr.astype(np.uint8).tobytes()
        rows.append(row + bytes((-len(row)) % 4))
    if not top_down:
        rows.reverse()
    data = b"".join(rows)
    pal = b"" if palette is None else b"".join(bytes([c[2], c[1], c[0], 0]) for c in palette)
    offset = 14 + 40 + len(pal)
    info = struct.pack("<IiiHHIIiiII", 40, w_, -h if top_down else h, 1, bits, 0, len(data), 2835, 2835,
                       0 if palette is None else len(palette), 0)
    return b"BM" + struct.pack("<IHHI", offset + len(data), 0, 0, offset) + info + pal + data


img = image(5, 7)  # 7 * 3 = 21 bytes a row: padded to 24
cases("bmp_24_bottom_up", bmp(img), img)
img32 = image(4, 3)
cases("bmp_32_top_down", bmp(img32, bits=32, top_down=True), img32, ("RGB",))
palette = rng.integers(0, 256, (16, 3), dtype=np.uint8)
indices = rng.integers(0, 16, (3, 6))
cases("bmp_8_palette", bmp(None, bits=8, palette=palette, indices=indices), palette[indices], ("RGB", "Grayscale"))
bad("bmp_truncated", bmp(img)[:-10], "BMP is truncated")
bad("bmp_header_only", bmp(img)[:20], "BMP is truncated")
huge = bytearray(bmp(img))
huge[18:26] = struct.pack("<ii", 100000, 100000)
bad("bmp_huge", bytes(huge), "BMP claims")
rle = bytearray(bmp(img))
rle[30:34] = struct.pack("<I", 1)
bad("bmp_rle", bytes(rle), "BMP compression 1")


# ---------------------------------------------------------------- PNG
def png_chunk(kind, body):
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF)


def png(samples, colour_type, bit_depth=8, palette=None, filters=(0,)):
    """samples: H x W x C array of the raw sample values; filters cycle over the rows (0 None,
    1 Sub, 2 Up)."""
    h, w_, c = samples.shape
    dtype = ">u2" if bit_depth == 16 else np.uint8
    raw_rows = [np.frombuffer(samples[y].astype(dtype).tobytes(), np.uint8).astype(np.int32) for y in range(h)]
    bpp = c * (2 if bit_depth == 16 else 1)
    out = bytearray()
    prev = np.zeros_like(raw_rows[0])
    for y, row in enumerate(raw_rows):
        f = filters[y % len(filters)]
        if f == 0:
            enc = row
        elif f == 1:
            left = np.concatenate([np.zeros(bpp, np.int32), row[:-bpp]])
            enc = (row - left) % 256
        else:
            enc = (row - prev) % 256
        out += bytes([f]) + enc.astype(np.uint8).tobytes()
        prev = row
    ihdr = struct.pack(">IIBBBBB", w_, h, bit_depth, colour_type, 0, 0, 0)
    body = png_chunk(b"IHDR", ihdr)
    if palette is not None:
        body += png_chunk(b"PLTE", palette.astype(np.uint8).tobytes())
    return b"\x89PNG\r\n\x1a\n" + body + png_chunk(b"IDAT", zlib.compress(bytes(out))) + png_chunk(b"IEND", b"")


img = image(6, 5)
cases("png_rgb", png(img, 2, filters=(0, 1, 2)), img)
grey = rng.integers(0, 256, (4, 7, 1), dtype=np.uint8)
cases("png_grey", png(grey, 0), np.repeat(grey, 3, axis=2), ("RGB", "Grayscale"))
rgba = rng.integers(0, 256, (3, 4, 4), dtype=np.uint8)
cases("png_rgba_alpha_dropped", png(rgba, 6, filters=(1,)), rgba[..., :3].copy(), ("RGB",))
palette = rng.integers(0, 256, (7, 3), dtype=np.uint8)
indices = rng.integers(0, 7, (5, 3, 1), dtype=np.uint8)
cases("png_palette", png(indices, 3, palette=palette), palette[indices[..., 0]], ("RGB",))
deep = rng.integers(0, 65536, (2, 3, 3), dtype=np.uint16)
cases("png_16_bit", png(deep, 2, bit_depth=16, filters=(2,)), (deep >> 8).astype(np.uint8), ("RGB",))
good = png(img, 2)
bad("png_truncated", good[: len(good) - 30], "PNG is malformed or truncated")
bad("png_signature_only", good[:8], "PNG is malformed or truncated")
corrupt = bytearray(good)
corrupt[8 + 25 + 8 + 4] ^= 0xFF  # a byte of the compressed IDAT data (zlib and the CRC both break)
bad("png_bad_crc", bytes(corrupt), "PNG is malformed or truncated")
huge_ihdr = png_chunk(b"IHDR", struct.pack(">IIBBBBB", 100000, 100000, 8, 2, 0, 0, 0))
bad("png_huge", good[:8] + huge_ihdr + good[8 + 25:], "cannot be coded in")
forged_ihdr = png_chunk(b"IHDR", struct.pack(">IIBBBBB", 4000, 4000, 8, 2, 0, 0, 0))
bad("png_size_beyond_data", good[:8] + forged_ihdr + good[8 + 25:], "cannot be coded in")


# ---------------------------------------------------------------- JPEG (flat blocks)
def jpeg_flat_grey(levels):
    """A baseline greyscale JPEG, 8 rows by 8 * len(levels) columns, block k flat at levels[k]:
    unit quantisation, DC coefficients only (8 * (level - 128)), every AC coefficient zero."""
    dc = [8 * (int(v) - 128) for v in levels]
    diffs = [dc[0]] + [dc[k] - dc[k - 1] for k in range(1, len(dc))]
    categories = sorted({abs(d).bit_length() for d in diffs})
    # The DC table: one code per category used, all of length len(categories).bit_length().
    length = max(1, (len(categories)).bit_length())
    counts = [0] * 16
    counts[length - 1] = len(categories)
    dht_dc = bytes([0x00]) + bytes(counts) + bytes(categories)
    dht_ac = bytes([0x10]) + bytes([1] + [0] * 15) + bytes([0x00])  # EOB alone, code "0"
    bits = ""
    for d in diffs:
        cat = abs(d).bit_length()
        bits += format(categories.index(cat), f"0{length}b")
        if cat:
            bits += format(d if d > 0 else d + (1 << cat) - 1, f"0{cat}b")
        bits += "0"  # EOB
    bits += "1" * ((-len(bits)) % 8)
    scan = bytearray()
    for i in range(0, len(bits), 8):
        byte = int(bits[i:i + 8], 2)
        scan.append(byte)
        if byte == 0xFF:
            scan.append(0)

    def segment(marker, body):
        return bytes([0xFF, marker]) + struct.pack(">H", len(body) + 2) + body

    width = 8 * len(levels)
    return (b"\xff\xd8" + segment(0xDB, bytes([0]) + bytes([1] * 64)) +
            segment(0xC0, bytes([8]) + struct.pack(">HH", 8, width) + bytes([1, 1, 0x11, 0])) +
            segment(0xC4, dht_dc) + segment(0xC4, dht_ac) +
            segment(0xDA, bytes([1, 1, 0x00, 0, 63, 0])) + bytes(scan) + b"\xff\xd9")


levels = [200, 60, 128, 255, 0]
flat = np.repeat(np.repeat(np.array(levels, np.uint8)[None, :], 8, axis=0), 8, axis=1)
jpeg = jpeg_flat_grey(levels)
cases("jpeg_flat_grey", jpeg, np.repeat(flat[..., None], 3, axis=2))
bad("jpeg_truncated_scan", jpeg[: len(jpeg) - 6], "JPEG is malformed or truncated")
bad("jpeg_truncated_header", jpeg[:30], "JPEG is malformed or truncated")
forged = bytearray(jpeg)
sof = jpeg.index(b"\xff\xc0")
forged[sof + 5:sof + 9] = struct.pack(">HH", 8000, 8000)
bad("jpeg_size_beyond_data", bytes(forged), "cannot be coded in")
bad("jpeg_soi_only", b"\xff\xd8\xff", "JPEG is malformed or truncated")


# ---------------------------------------------------------------- other formats, garbage
bad("garbage", rng.integers(0, 256, 64, dtype=np.uint8).tobytes().replace(b"\xff", b"\x01"), "not an image format")
bad("empty", b"", "not an image format")
bad("webp_garbage", b"RIFF\x20\x00\x00\x00WEBPVP8 " + bytes(20), "WebP")
bad("tiff_garbage", b"II*\x00\x08\x00\x00\x00\xff\xff" + bytes(6), "TIFF")
bad("jpeg2000_garbage", b"\x00\x00\x00\x0cjP  \r\n\x87\n" + bytes(30), "JPEG 2000")

w.done()
