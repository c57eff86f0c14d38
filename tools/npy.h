// Reading and writing numpy .npy files (format 1.0-3.0, little-endian, C order).
#pragma once
#include <string>

#include "core/tensor.h"

namespace onyx::cli {

Result<Tensor> read_npy(const std::string& path);
Status write_npy(const Tensor& tensor, const std::string& path);

}  // namespace onyx::cli
