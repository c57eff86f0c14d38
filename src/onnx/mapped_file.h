// A read-only memory mapping of a whole file, shared by every tensor that points into it.
#pragma once
#include <memory>
#include <string>

#include "core/status.h"

namespace onyx::onnx_format {

class MappedFile {
 public:
  static Result<std::shared_ptr<MappedFile>> open(const std::string& path);
  ~MappedFile();
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;
  const char* data() const { return static_cast<const char*>(data_); }
  size_t size() const { return size_; }

 private:
  MappedFile(void* data, size_t size) : data_(data), size_(size) {}
  void* data_;
  size_t size_;
};

}  // namespace onyx::onnx_format
