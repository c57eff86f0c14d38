// Buffer and Tensor.
//
// A Buffer is a span of bytes plus a keeper that owns whatever backs it: aligned heap memory,
// a memory-mapped file window, caller memory (no keeper), an array of std::string, or memory
// of another device (Buffer::device(): host code must not read such bytes; a provider's
// copy() moves them).
// A Tensor is (dtype, shape, buffer, byte offset). Copying a Tensor shares the buffer;
// clone() copies the data. Element data is row-major and contiguous.
#pragma once
#include <cstddef>
#include <functional>
#include <memory>
#include <string>

#include "core/allocator.h"
#include "core/data_type.h"
#include "core/shape.h"
#include "core/status.h"

namespace onyx {

class Buffer {
 public:
  Buffer(void* data, size_t size, std::shared_ptr<void> keeper, Device device = Device{})
      : data_(data), size_(size), keeper_(std::move(keeper)), device_(device) {}
  // Aligned (64-byte) heap memory of `size` bytes, zero-filled. For kString, constructs
  // `size / sizeof(std::string)` empty strings.
  static std::shared_ptr<Buffer> allocate(size_t size, DataType dtype = DataType::kUInt8, bool zero_fill = true);
  // Host bytes that typed code must not read where they lie (an initializer's raw_data at an
  // offset of the mapped .onnx that does not suit its element type). `copy(to)` writes the
  // `size` bytes to `to`; data() runs it once, on first use and safely from any thread, into
  // fresh 64-byte-aligned memory. Until then bytes_in_place() hands out `source` itself, for
  // code that reads the bytes as bytes (memcpy) rather than as elements, and the copy is
  // never made if only such code reads them. `source_keeper` keeps `source` alive.
  static std::shared_ptr<Buffer> deferred_copy(const void* source, size_t size, std::shared_ptr<void> source_keeper,
                                               std::function<void(void* to)> copy);
  void* data() const { return deferred_ ? copied() : data_; }
  // data(), or the source of a copy still pending (possibly misaligned: read it as bytes).
  const void* bytes_in_place() const;
  bool copy_pending() const;
  size_t size() const { return size_; }
  const Device& device() const { return device_; }
  // The allocator-specific identity of whoever handed the memory out (Arena::identity), or
  // null: lets a run tell its own arena's blocks from memory a caller lent it.
  const void* origin() const { return origin_; }
  void set_origin(const void* origin) { origin_ = origin; }

 private:
  struct DeferredCopy;
  void* copied() const;

  mutable void* data_;
  size_t size_;
  mutable std::shared_ptr<void> keeper_;
  std::shared_ptr<DeferredCopy> deferred_;
  Device device_;
  const void* origin_ = nullptr;
};

class Tensor {
 public:
  Tensor() = default;
  // Allocates a zero-filled tensor (empty strings for kString).
  Tensor(DataType dtype, Shape shape);
  // Wraps an existing buffer; the caller promises it holds numel * itemsize bytes from offset.
  Tensor(DataType dtype, Shape shape, std::shared_ptr<Buffer> buffer, size_t offset = 0);

  // Checked construction for untrusted sizes (negative dims, overflow); from `allocator` when
  // given, else plain heap memory. Zero-filled unless `zero_fill` is false (then the caller
  // must write every element before anyone reads it; strings are constructed either way).
  static Result<Tensor> create(DataType dtype, const Shape& shape, Allocator* allocator = nullptr,
                               bool zero_fill = true);
  // Wraps caller memory without copying (the Buffer has no keeper): the caller keeps the
  // `size` bytes at `data` alive, and does not free them, for as long as any copy of the
  // tensor lives. Checks that `size` covers the shape; kString is refused (it needs
  // constructed std::string objects, which Tensor::create makes).
  // `device` says where those bytes are (device memory for IO binding on a GPU).
  static Result<Tensor> borrow(DataType dtype, const Shape& shape, void* data, size_t size,
                               Device device = Device{});
  // A scalar tensor (rank 0) holding `v`.
  template <typename T> static Tensor scalar(T v) {
    Tensor t(data_type_of<T>, {});
    *t.data<T>() = v;
    return t;
  }

  bool defined() const { return dtype_ != DataType::kUndefined; }
  DataType dtype() const { return dtype_; }
  const Shape& shape() const { return shape_; }
  int64_t rank() const { return int64_t(shape_.size()); }
  int64_t dim(int64_t i) const { return shape_[size_t(i)]; }
  int64_t numel() const { return numel_; }
  // Bytes per element; 0 for the packed sub-byte types (int4, float4e2m1, int2, ...), whose
  // elements are not byte-addressable (core/narrow_types.h reads them).
  size_t itemsize() const { return data_type_size(dtype_); }
  size_t nbytes() const { return data_type_bytes(dtype_, numel_); }

  void* raw_data() { return buffer_ ? static_cast<char*>(buffer_->data()) + offset_ : nullptr; }
  const void* raw_data() const { return buffer_ ? static_cast<const char*>(buffer_->data()) + offset_ : nullptr; }
  template <typename T> T* data() { return static_cast<T*>(raw_data()); }
  template <typename T> const T* data() const { return static_cast<const T*>(raw_data()); }
  // raw_data() without forcing a pending copy (Buffer::deferred_copy): the bytes wherever they
  // lie, possibly misaligned for the dtype, for code that reads them as bytes.
  const void* bytes_in_place() const {
    return buffer_ ? static_cast<const char*>(buffer_->bytes_in_place()) + offset_ : nullptr;
  }
  bool copy_pending() const { return buffer_ && buffer_->copy_pending(); }

  const std::shared_ptr<Buffer>& buffer() const { return buffer_; }
  // Where the elements live (the CPU for a tensor without a buffer).
  Device device() const { return buffer_ ? buffer_->device() : Device{}; }
  size_t offset() const { return offset_; }

  // Same data, new shape (numel must match; checked).
  Result<Tensor> reshaped(const Shape& shape) const;
  // Deep copy (strings copied element-wise). Host tensors only.
  Tensor clone() const;
  // Element `i` converted to double / int64 (any numeric or bool dtype, the narrow types
  // included); for shape-like inputs.
  double get_double(int64_t i) const;
  int64_t get_int64(int64_t i) const;
  // All elements as int64 (any integer dtype); for shape/axes/indices inputs.
  std::vector<int64_t> to_int64_vector() const;
  // "float32[2,3]"
  std::string describe() const;

 private:
  DataType dtype_ = DataType::kUndefined;
  Shape shape_;
  int64_t numel_ = 0;
  std::shared_ptr<Buffer> buffer_;
  size_t offset_ = 0;
};

}  // namespace onyx
