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

// Drops the resident pages of [data, data + size), part of a MappedFile, from this process's
// memory (the whole pages inside the range; nothing is unmapped). The mapping is read-only
// and private, so a later read faults the same bytes in again from the file: this only frees
// memory, for a weight whose bytes a kernel has copied into a layout of its own.
void release_mapped_pages(const void* data, size_t size);

// Faults in the whole pages of [data, data + size) in one call (MADV_POPULATE_READ for a file
// mapping about to be read, MADV_POPULATE_WRITE for fresh memory about to be written) rather
// than a trap per page as a copy reaches them. Contents are unchanged; a kernel without these
// advices ignores them.
void populate_pages(const void* data, size_t size, bool for_write);

}  // namespace onyx::onnx_format
