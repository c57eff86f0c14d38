// Reading and writing numpy .npy files (format 1.0-3.0, little-endian, C order).
#pragma once
#include <string>

#include "core/tensor.h"

namespace onyx::cli {

Result<Tensor> read_npy(const std::string& path);
// The same from bytes in memory; `what` names them in errors. Nothing is allocated before
// the bytes are known to hold the data the header claims.
Result<Tensor> read_npy_bytes(const void* data, size_t size, const std::string& what);
Status write_npy(const Tensor& tensor, const std::string& path);

}  // namespace onyx::cli
