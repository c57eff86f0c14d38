#include "core/tensor.h"

#include "core/narrow_types.h"

#include <atomic>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <mutex>
#include <new>

namespace onyx {

std::shared_ptr<Buffer> Buffer::allocate(size_t size, DataType dtype, bool zero_fill) {
  if (dtype == DataType::kString) {
    const size_t n = size / sizeof(std::string);
    std::shared_ptr<std::string[]> strings(new std::string[n ? n : 1]);
    void* p = strings.get();
    return std::make_shared<Buffer>(p, size, std::shared_ptr<void>(strings, p));
  }
  const size_t rounded = ((size ? size : 1) + 63) / 64 * 64;
  void* p = std::aligned_alloc(64, rounded);
  if (!p) throw std::bad_alloc();
  if (zero_fill) std::memset(p, 0, rounded);
  return std::make_shared<Buffer>(p, size, std::shared_ptr<void>(p, [](void* q) { std::free(q); }));
}

struct Buffer::DeferredCopy {
  std::once_flag once;
  std::atomic<bool> done{false};
  const void* source = nullptr;
  std::shared_ptr<void> source_keeper;
  std::function<void(void*)> copy;
};

std::shared_ptr<Buffer> Buffer::deferred_copy(const void* source, size_t size, std::shared_ptr<void> source_keeper,
                                              std::function<void(void* to)> copy) {
  auto b = std::make_shared<Buffer>(nullptr, size, nullptr);
  b->deferred_ = std::make_shared<DeferredCopy>();
  b->deferred_->source = source;
  b->deferred_->source_keeper = std::move(source_keeper);
  b->deferred_->copy = std::move(copy);
  return b;
}

void* Buffer::copied() const {
  // call_once orders the writes of data_ and keeper_ before every return from it.
  std::call_once(deferred_->once, [this] {
    const size_t rounded = ((size_ ? size_ : 1) + 63) / 64 * 64;
    void* p = std::aligned_alloc(64, rounded);
    if (!p) throw std::bad_alloc();
    keeper_ = std::shared_ptr<void>(p, [](void* q) { std::free(q); });
    deferred_->copy(p);
    data_ = p;
    deferred_->done.store(true, std::memory_order_release);
  });
  return data_;
}

const void* Buffer::bytes_in_place() const {
  if (deferred_ && !deferred_->done.load(std::memory_order_acquire)) return deferred_->source;
  return data();
}

bool Buffer::copy_pending() const { return deferred_ && !deferred_->done.load(std::memory_order_acquire); }

Tensor::Tensor(DataType dtype, Shape shape) : dtype_(dtype), shape_(std::move(shape)) {
  numel_ = shape_size(shape_);
  if (numel_ < 0) throw std::bad_alloc();
  buffer_ = Buffer::allocate(data_type_bytes(dtype_, numel_), dtype_);
}

Tensor::Tensor(DataType dtype, Shape shape, std::shared_ptr<Buffer> buffer, size_t offset)
    : dtype_(dtype), shape_(std::move(shape)), buffer_(std::move(buffer)), offset_(offset) {
  numel_ = shape_size(shape_);
}

Result<Tensor> Tensor::create(DataType dtype, const Shape& shape, Allocator* allocator, bool zero_fill) {
  const int64_t n = shape_size(shape);
  if (n < 0) return invalid_argument("invalid tensor shape ", shape_to_string(shape));
  if (data_type_bits(dtype) == 0) return invalid_argument("cannot create a tensor of type ", data_type_name(dtype));
  if (n > 0 && uint64_t(n) > (uint64_t(1) << 49) / data_type_bits(dtype))
    return invalid_argument("tensor ", data_type_name(dtype), shape_to_string(shape), " is too large");
  const size_t bytes = data_type_bytes(dtype, n);
  try {
    if (!allocator) return Tensor(dtype, shape, Buffer::allocate(bytes, dtype, zero_fill));
    std::shared_ptr<Buffer> buffer = allocator->allocate(bytes, dtype, zero_fill);
    if (!buffer)
      return runtime_error("memory limit of ", allocator->limit(), " bytes reached: cannot allocate ", bytes,
                           " bytes for a tensor ", data_type_name(dtype), shape_to_string(shape));
    return Tensor(dtype, shape, std::move(buffer));
  } catch (const std::bad_alloc&) {  // a request the system refuses is an error, never an abort
    return runtime_error("out of memory: cannot allocate ", bytes, " bytes for a tensor ", data_type_name(dtype),
                         shape_to_string(shape));
  }
}

Result<Tensor> Tensor::borrow(DataType dtype, const Shape& shape, void* data, size_t size, Device device) {
  const int64_t n = shape_size(shape);
  if (n < 0) return invalid_argument("invalid tensor shape ", shape_to_string(shape));
  const size_t bits = data_type_bits(dtype);
  if (bits == 0 || dtype == DataType::kString)
    return invalid_argument("cannot wrap caller memory as a tensor of type ", data_type_name(dtype));
  const uint64_t capacity = bits >= 8 ? uint64_t(size) / (bits / 8)
                            : (uint64_t(size) > (UINT64_MAX >> 3) ? UINT64_MAX : uint64_t(size) * 8 / bits);
  if (uint64_t(n) > capacity)
    return invalid_argument("a ", data_type_name(dtype), shape_to_string(shape), " tensor needs ",
                            (uint64_t(n) * bits + 7) / 8, " bytes; the caller's buffer has ", size);
  if (n > 0 && !data) return invalid_argument("null data for a non-empty tensor");
  return Tensor(dtype, shape, std::make_shared<Buffer>(data, size, nullptr, device));
}

Result<Tensor> Tensor::reshaped(const Shape& shape) const {
  if (shape_size(shape) != numel_)
    return invalid_argument("cannot reshape ", describe(), " to ", shape_to_string(shape));
  return Tensor(dtype_, shape, buffer_, offset_);
}

Tensor Tensor::clone() const {
  Tensor t(dtype_, shape_);
  if (dtype_ == DataType::kString) {
    const std::string* src = data<std::string>();
    std::string* dst = t.data<std::string>();
    for (int64_t i = 0; i < numel_; ++i) dst[i] = src[i];
  } else if (nbytes()) {
    std::memcpy(t.raw_data(), raw_data(), nbytes());
  }
  return t;
}

double Tensor::get_double(int64_t i) const {
  switch (dtype_) {
    case DataType::kFloat: return data<float>()[i];
    case DataType::kDouble: return data<double>()[i];
    case DataType::kFloat16: return float(data<Float16>()[i]);
    case DataType::kBFloat16: return float(data<BFloat16>()[i]);
    case DataType::kInt8: return data<int8_t>()[i];
    case DataType::kInt16: return data<int16_t>()[i];
    case DataType::kInt32: return data<int32_t>()[i];
    case DataType::kInt64: return double(data<int64_t>()[i]);
    case DataType::kUInt8: return data<uint8_t>()[i];
    case DataType::kUInt16: return data<uint16_t>()[i];
    case DataType::kUInt32: return data<uint32_t>()[i];
    case DataType::kUInt64: return double(data<uint64_t>()[i]);
    case DataType::kBool: return data<bool>()[i] ? 1.0 : 0.0;
    default: return is_narrow_type(dtype_) ? narrow_element_value(raw_data(), dtype_, i) : 0.0;
  }
}

int64_t Tensor::get_int64(int64_t i) const {
  switch (dtype_) {
    case DataType::kInt8: return data<int8_t>()[i];
    case DataType::kInt16: return data<int16_t>()[i];
    case DataType::kInt32: return data<int32_t>()[i];
    case DataType::kInt64: return data<int64_t>()[i];
    case DataType::kUInt8: return data<uint8_t>()[i];
    case DataType::kUInt16: return data<uint16_t>()[i];
    case DataType::kUInt32: return data<uint32_t>()[i];
    case DataType::kUInt64: return int64_t(data<uint64_t>()[i]);
    case DataType::kBool: return data<bool>()[i] ? 1 : 0;
    default: {
      // A floating value truncates toward zero and saturates: NaN gives 0, values beyond
      // int64's range its min or max (a plain cast would be undefined behaviour).
      const double d = get_double(i);
      if (std::isnan(d)) return 0;
      // 2^63 is exact in double; anything at or past it (or below -2^63) saturates.
      if (d >= 9223372036854775808.0) return std::numeric_limits<int64_t>::max();
      if (d < -9223372036854775808.0) return std::numeric_limits<int64_t>::min();
      return int64_t(d);
    }
  }
}

std::vector<int64_t> Tensor::to_int64_vector() const {
  std::vector<int64_t> v(size_t(numel_ > 0 ? numel_ : 0));
  for (int64_t i = 0; i < numel_; ++i) v[size_t(i)] = get_int64(i);
  return v;
}

std::string Tensor::describe() const {
  return std::string(data_type_name(dtype_)) + shape_to_string(shape_);
}

}  // namespace onyx
