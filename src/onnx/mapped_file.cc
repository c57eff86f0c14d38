#include "onnx/mapped_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>

namespace onyx::onnx_format {

Result<std::shared_ptr<MappedFile>> MappedFile::open(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return not_found("cannot open '", path, "': ", std::strerror(errno));
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    return invalid_argument("'", path, "' is not a regular file");
  }
  const size_t size = size_t(st.st_size);
  void* data = nullptr;
  if (size > 0) {
    data = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (data == MAP_FAILED) {
      ::close(fd);
      return runtime_error("cannot map '", path, "': ", std::strerror(errno));
    }
  }
  ::close(fd);
  return std::shared_ptr<MappedFile>(new MappedFile(data, size));
}

void release_mapped_pages(const void* data, size_t size) {
  static const uintptr_t page = uintptr_t(::sysconf(_SC_PAGESIZE));
  const uintptr_t begin = (reinterpret_cast<uintptr_t>(data) + page - 1) / page * page;
  const uintptr_t end = (reinterpret_cast<uintptr_t>(data) + size) / page * page;
  if (end > begin) ::madvise(reinterpret_cast<void*>(begin), end - begin, MADV_DONTNEED);
}

void populate_pages(const void* data, size_t size, bool for_write) {
#ifndef MADV_POPULATE_READ  // Linux 5.14; older kernels answer EINVAL and the pages fault in as before
#define MADV_POPULATE_READ 22
#define MADV_POPULATE_WRITE 23
#endif
  static const uintptr_t page = uintptr_t(::sysconf(_SC_PAGESIZE));
  const uintptr_t begin = reinterpret_cast<uintptr_t>(data) / page * page;
  const uintptr_t end = (reinterpret_cast<uintptr_t>(data) + size + page - 1) / page * page;
  if (size > 0) ::madvise(reinterpret_cast<void*>(begin), end - begin, for_write ? MADV_POPULATE_WRITE : MADV_POPULATE_READ);
}

MappedFile::~MappedFile() {
  if (data_ && size_) ::munmap(data_, size_);
}

}  // namespace onyx::onnx_format
