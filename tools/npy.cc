#include "npy.h"

#include <algorithm>
#include <cstring>
#include <fstream>
#include <regex>
#include <sstream>

#include "kernels/element_copy.h"
#include "onnx/mapped_file.h"

namespace onyx::cli {
namespace {

struct NpyType { const char* descr; DataType dtype; };
const NpyType kTypes[] = {
    {"<f4", DataType::kFloat},  {"<f8", DataType::kDouble}, {"<f2", DataType::kFloat16}, {"|i1", DataType::kInt8},
    {"<i2", DataType::kInt16},  {"<i4", DataType::kInt32},  {"<i8", DataType::kInt64},   {"|u1", DataType::kUInt8},
    {"<u2", DataType::kUInt16}, {"<u4", DataType::kUInt32}, {"<u8", DataType::kUInt64},  {"|b1", DataType::kBool},
    {"<c8", DataType::kComplex64}, {"<c16", DataType::kComplex128},
    // Raw one- and two-byte elements: how numpy saves ml_dtypes arrays (float8, int4, float4,
    // int2 ... as V1; bfloat16 as V2). Read as uint8 / uint16 codes; the declared input type
    // gives them meaning (tools/feeds.h, bits_as_declared).
    {"|V1", DataType::kUInt8}, {"<V1", DataType::kUInt8}, {"|V2", DataType::kUInt16}, {"<V2", DataType::kUInt16},
};

}  // namespace

Result<Tensor> read_npy_bytes(const void* data, size_t size, const std::string& what) {
  const char* bytes = static_cast<const char*>(data);
  size_t pos = 0;
  // The next n bytes, or null when fewer remain.
  auto take = [&](size_t n) -> const char* {
    if (size - pos < n) return nullptr;
    const char* p = bytes + pos;
    pos += n;
    return p;
  };
  const char* magic = take(8);
  if (!magic || std::string(magic, 6) != "\x93NUMPY") return invalid_argument("'", what, "' is not a .npy file");
  uint32_t header_len = 0;
  if (magic[6] == 1) {
    const auto* b = reinterpret_cast<const unsigned char*>(take(2));
    if (!b) return invalid_argument("'", what, "': truncated header");
    header_len = b[0] | (b[1] << 8);
  } else {
    const auto* b = reinterpret_cast<const unsigned char*>(take(4));
    if (!b) return invalid_argument("'", what, "': truncated header");
    header_len = b[0] | (b[1] << 8) | (b[2] << 16) | (uint32_t(b[3]) << 24);
  }
  if (header_len > (1u << 20)) return invalid_argument("'", what, "': header too large");
  const char* header_bytes = take(header_len);
  if (!header_bytes) return invalid_argument("'", what, "': truncated header");
  const std::string header(header_bytes, header_len);
  std::smatch m;
  if (!std::regex_search(header, m, std::regex("'descr':\\s*'([^']+)'")))
    return invalid_argument("'", what, "': no descr in header");
  const std::string descr = m[1];
  if (std::regex_search(header, std::regex("'fortran_order':\\s*True")))
    return not_implemented("'", what, "': Fortran-order arrays are not supported");
  if (!std::regex_search(header, m, std::regex("'shape':\\s*\\(([^)]*)\\)")))
    return invalid_argument("'", what, "': no shape in header");
  Shape shape;
  std::stringstream dims(m[1].str());
  std::string item;
  while (std::getline(dims, item, ',')) {
    if (item.find_first_not_of(" ") == std::string::npos) continue;
    try { shape.push_back(std::stoll(item)); } catch (...) { return invalid_argument("'", what, "': bad shape"); }
    if (shape.back() < 0) return invalid_argument("'", what, "': negative dim ", shape.back(), " in shape");
  }
  DataType dtype = DataType::kUndefined;
  for (const auto& t : kTypes)
    if (descr == t.descr || (descr.size() == 3 && descr.substr(1) == std::string(t.descr).substr(1) && descr[0] == '='))
      dtype = t.dtype;
  if (dtype == DataType::kUndefined) return not_implemented("'", what, "': numpy dtype '", descr, "' is not supported");
  // The data must be there before anything is allocated for it: a header may claim any shape.
  const size_t remaining = size - pos;
  const size_t item_size = data_type_size(dtype);
  size_t count = 1;
  const bool empty = std::find(shape.begin(), shape.end(), int64_t(0)) != shape.end();  // no data at all
  for (int64_t d : shape) {
    if (empty) {
      count = 0;
      break;
    }
    if (count > remaining / item_size / size_t(d))
      return invalid_argument("'", what, "': data is shorter than shape ", shape_to_string(shape), " needs");
    count *= size_t(d);
  }
  if (count * item_size > remaining)
    return invalid_argument("'", what, "': data is shorter than shape ", shape_to_string(shape), " needs");
  ONYX_ASSIGN_OR_RETURN(Tensor t, Tensor::create(dtype, shape));
  if (t.nbytes() > 0) std::memcpy(t.raw_data(), bytes + pos, t.nbytes());
  return t;
}

Result<Tensor> read_npy(const std::string& path) {
  auto file = onnx_format::MappedFile::open(path);
  if (!file.ok()) return not_found("cannot open '", path, "'");
  return read_npy_bytes((*file)->data(), (*file)->size(), path);
}

Status write_npy(const Tensor& given, const std::string& path) {
  const char* descr = nullptr;
  Tensor t = given;
  if (is_narrow_type(given.dtype())) {
    // One code a byte, as ml_dtypes holds these types: np.load(f).view(ml_dtypes.<type>).
    descr = "|V1";
    t = is_packed_type(given.dtype()) ? unpack_codes(given) : Tensor(DataType::kUInt8, given.shape(), given.buffer(), given.offset());
  }
  for (const auto& k : kTypes)
    if (!descr && k.dtype == t.dtype()) descr = k.descr;
  if (!descr) return not_implemented("cannot write ", data_type_name(t.dtype()), " tensors as .npy");
  std::string shape = "(";
  for (int64_t d : t.shape()) shape += std::to_string(d) + ",";
  if (t.rank() > 1) shape.pop_back();
  shape += ")";
  std::string header = std::string("{'descr': '") + descr + "', 'fortran_order': False, 'shape': " + shape + ", }";
  while ((10 + header.size() + 1) % 64) header += ' ';
  header += '\n';
  std::ofstream out(path, std::ios::binary);
  if (!out) return not_found("cannot write '", path, "'");
  const uint16_t len = uint16_t(header.size());
  out.write("\x93NUMPY\x01\x00", 8);
  const char lb[2] = {char(len & 0xff), char(len >> 8)};
  out.write(lb, 2);
  out.write(header.data(), std::streamsize(header.size()));
  out.write(static_cast<const char*>(t.raw_data()), std::streamsize(t.nbytes()));
  return out ? Status::Ok() : runtime_error("write to '", path, "' failed");
}

}  // namespace onyx::cli
