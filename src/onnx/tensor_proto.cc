#include "onnx/tensor_proto.h"

#include "core/narrow_types.h"

#include <algorithm>
#include <charconv>
#include <cstring>
#include <filesystem>

namespace onyx::onnx_format {
namespace fs = std::filesystem;

namespace {

// The bytes [offset, offset + length) of a file of `size` bytes; length < 0: to the end.
Status check_range(const std::string& location, uint64_t size, int64_t offset, int64_t* length) {
  if (offset < 0 || uint64_t(offset) > size)
    return invalid_model("external data '", location, "': offset ", offset, " is past the end of the file (", size, " bytes)");
  if (*length < 0) *length = int64_t(size - uint64_t(offset));
  if (uint64_t(*length) > size - uint64_t(offset))
    return invalid_model("external data '", location, "': range [", offset, ", ", offset + *length,
                         ") runs past the end of the file (", size, " bytes)");
  return Status::Ok();
}

}  // namespace

Result<std::shared_ptr<Buffer>> ExternalDataResolver::read(const std::string& location, int64_t offset,
                                                           int64_t length) {
  if (auto held = in_memory_.find(location); held != in_memory_.end()) {
    const std::shared_ptr<Buffer>& file = held->second;
    if (!file || (file->size() > 0 && !file->data()))
      return invalid_model("external data file '", location, "' held in memory has no data");
    ONYX_RETURN_IF_ERROR(check_range(location + "' (in memory)", file->size(), offset, &length));
    return std::make_shared<Buffer>(static_cast<char*>(file->data()) + offset, size_t(length), file);
  }
  if (base_dir_.empty())
    return invalid_model("external data '", location,
                         "' given but the model has no folder (loaded from bytes: hold the file in memory instead)");
  if (location.empty()) return invalid_model("external data with an empty location");
  const fs::path rel(location);
  if (rel.is_absolute()) return invalid_model("external data location '", location, "' is absolute");
  for (const auto& part : rel)
    if (part == "..") return invalid_model("external data location '", location, "' escapes the model folder");
  std::error_code ec;
  const fs::path base = fs::weakly_canonical(fs::path(base_dir_), ec);
  const fs::path full = fs::weakly_canonical(base / rel, ec);
  if (ec) return invalid_model("cannot resolve external data location '", location, "'");
  const std::string base_s = base.string(), full_s = full.string();
  if (full_s.compare(0, base_s.size(), base_s) != 0 || (full_s.size() > base_s.size() && full_s[base_s.size()] != '/'))
    return invalid_model("external data location '", location, "' escapes the model folder (resolves to ", full_s, ")");
  auto it = files_.find(full_s);
  if (it == files_.end()) {
    auto mapped = MappedFile::open(full_s);
    if (!mapped.ok()) return invalid_model("external data: ", mapped.status().message());
    it = files_.emplace(full_s, std::move(mapped).value()).first;
  }
  const std::shared_ptr<MappedFile>& file = it->second;
  ONYX_RETURN_IF_ERROR(check_range(location, file->size(), offset, &length));
  return std::make_shared<Buffer>(const_cast<char*>(file->data()) + offset, size_t(length), file);
}

namespace {

template <typename Dst, typename Src>
void copy_field(const Src& field, Tensor& t) {
  Dst* out = t.data<Dst>();
  for (int64_t i = 0; i < t.numel(); ++i) out[i] = static_cast<Dst>(field.Get(int(i)));
}

// The typed repeated field of `p` that holds `dtype` values: its name, how many entries it
// has, and how many entries make one element (two for complex numbers).
struct TypedField {
  const char* name;
  int64_t entries;
  int64_t per_element;
};
TypedField typed_field(const onnx::TensorProto& p, DataType dtype) {
  switch (dtype) {
    case DataType::kFloat: return {"float_data", p.float_data_size(), 1};
    case DataType::kComplex64: return {"float_data", p.float_data_size(), 2};
    case DataType::kDouble: return {"double_data", p.double_data_size(), 1};
    case DataType::kComplex128: return {"double_data", p.double_data_size(), 2};
    case DataType::kInt64: return {"int64_data", p.int64_data_size(), 1};
    case DataType::kUInt32:
    case DataType::kUInt64: return {"uint64_data", p.uint64_data_size(), 1};
    case DataType::kString: return {"string_data", p.string_data_size(), 1};
    default: return {"int32_data", p.int32_data_size(), 1};  // the narrower integers, bool, float16, bfloat16
  }
}

// Checks that the typed field of `p` holds exactly `n` elements of `dtype`: before anything is
// allocated, since the dims of a hostile tensor may claim any size.
Status check_typed_field(const onnx::TensorProto& p, DataType dtype, const Shape& shape, int64_t n) {
  if (dtype == DataType::kUndefined) return invalid_model("tensor '", p.name(), "' has no data type");
  if (data_type_bits(dtype) == 6) {  // float6: one element's code in each int32_data entry (as onnx writes it)
    if (p.int32_data_size() != n)
      return invalid_model("tensor '", p.name(), "' ", data_type_name(dtype), shape_to_string(shape), " needs ", n,
                           " values in int32_data but has ", p.int32_data_size());
    return Status::Ok();
  }
  if (is_narrow_type(dtype)) {  // one byte of the packed form in each int32_data entry
    const int64_t bytes = int64_t(data_type_bytes(dtype, n));
    if (p.int32_data_size() != bytes)
      return invalid_model("tensor '", p.name(), "' ", data_type_name(dtype), shape_to_string(shape), " needs ", bytes,
                           " values in int32_data but has ", p.int32_data_size());
    return Status::Ok();
  }
  const TypedField f = typed_field(p, dtype);
  if (f.entries != n * f.per_element)
    return invalid_model("tensor '", p.name(), "' ", data_type_name(dtype), shape_to_string(shape), " needs ",
                         n * f.per_element, " values in ", f.name, " but has ", f.entries);
  return Status::Ok();
}

// Fills `t` from the typed repeated fields of `p` (their count checked by check_typed_field).
void fill_from_typed_fields(const onnx::TensorProto& p, Tensor& t) {
  const int64_t n = t.numel();
  if (data_type_bits(t.dtype()) == 6) {
    for (int64_t i = 0; i < n; ++i) set_narrow_code(t.raw_data(), t.dtype(), i, uint8_t(p.int32_data(int(i))));
    return;
  }
  if (is_narrow_type(t.dtype())) {
    uint8_t* out = t.data<uint8_t>();
    const size_t bytes = t.nbytes();
    for (size_t i = 0; i < bytes; ++i) out[i] = uint8_t(p.int32_data(int(i)));
    return;
  }
  switch (t.dtype()) {
    case DataType::kFloat: copy_field<float>(p.float_data(), t); break;
    case DataType::kDouble: copy_field<double>(p.double_data(), t); break;
    case DataType::kInt64: copy_field<int64_t>(p.int64_data(), t); break;
    case DataType::kUInt32: copy_field<uint32_t>(p.uint64_data(), t); break;
    case DataType::kUInt64: copy_field<uint64_t>(p.uint64_data(), t); break;
    case DataType::kInt32: copy_field<int32_t>(p.int32_data(), t); break;
    case DataType::kInt16: copy_field<int16_t>(p.int32_data(), t); break;
    case DataType::kInt8: copy_field<int8_t>(p.int32_data(), t); break;
    case DataType::kUInt16: copy_field<uint16_t>(p.int32_data(), t); break;
    case DataType::kUInt8: copy_field<uint8_t>(p.int32_data(), t); break;
    case DataType::kBool: copy_field<bool>(p.int32_data(), t); break;
    case DataType::kFloat16:
    case DataType::kBFloat16: {
      uint16_t* out = t.data<uint16_t>();
      for (int64_t i = 0; i < n; ++i) out[i] = uint16_t(p.int32_data(int(i)));
      break;
    }
    case DataType::kComplex64: {
      float* out = t.data<float>();
      for (int64_t i = 0; i < 2 * n; ++i) out[i] = p.float_data(int(i));
      break;
    }
    case DataType::kComplex128: {
      double* out = t.data<double>();
      for (int64_t i = 0; i < 2 * n; ++i) out[i] = p.double_data(int(i));
      break;
    }
    case DataType::kString: {
      std::string* out = t.data<std::string>();
      for (int64_t i = 0; i < n; ++i) out[i] = p.string_data(int(i));
      break;
    }
    default: break;  // kUndefined; the narrow types were handled above
  }
}

}  // namespace

namespace {

// The checked dtype and shape of a TensorProto, and its size in bytes.
struct ProtoLayout {
  DataType dtype;
  Shape shape;
  size_t nbytes;
};

Result<ProtoLayout> proto_layout(const onnx::TensorProto& p) {
  if (!is_valid_data_type(p.data_type()))
    return invalid_model("tensor '", p.name(), "' has unknown data type ", p.data_type());
  const DataType dtype = DataType(p.data_type());
  Shape shape(p.dims().begin(), p.dims().end());
  for (int64_t d : shape)
    if (d < 0) return invalid_model("tensor '", p.name(), "' has negative dim in ", shape_to_string(shape));
  const int64_t n = shape_size(shape);
  if (n < 0) return invalid_model("tensor '", p.name(), "' shape ", shape_to_string(shape), " overflows");
  if (n > 0 && uint64_t(n) > (uint64_t(1) << 49) / data_type_bits(dtype))
    return invalid_model("tensor '", p.name(), "' ", shape_to_string(shape), " is too large");
  return ProtoLayout{dtype, std::move(shape), data_type_bytes(dtype, n)};
}

}  // namespace

Result<Tensor> tensor_placeholder_from_proto(const onnx::TensorProto& p) {
  ONYX_ASSIGN_OR_RETURN(ProtoLayout layout, proto_layout(p));
  return Tensor(layout.dtype, std::move(layout.shape), std::make_shared<Buffer>(nullptr, layout.nbytes, nullptr));
}

Result<Tensor> tensor_from_proto(onnx::TensorProto& p, ExternalDataResolver* external, ir::ExternalDataRef* ref,
                                 const LiftedBytes* lifted) {
  ONYX_ASSIGN_OR_RETURN(ProtoLayout layout, proto_layout(p));
  const DataType dtype = layout.dtype;
  Shape shape = std::move(layout.shape);
  const size_t item = std::max<size_t>(data_type_size(dtype), 1);  // packed types: bytes
  const size_t nbytes = layout.nbytes;

  if (p.data_location() == onnx::TensorProto::EXTERNAL) {
    if (dtype == DataType::kString) return invalid_model("tensor '", p.name(), "': string tensors cannot use external data");
    if (!external) return invalid_model("tensor '", p.name(), "' uses external data, which is not available here");
    std::string location;
    int64_t offset = 0, length = -1;
    for (const auto& kv : p.external_data()) {
      if (kv.key() == "location") {
        location = kv.value();
      } else if (kv.key() == "offset" || kv.key() == "length") {
        int64_t v = 0;
        const char* end = kv.value().data() + kv.value().size();
        auto [ptr, ec] = std::from_chars(kv.value().data(), end, v);
        if (ec != std::errc() || ptr != end || kv.value().empty())
          return invalid_model("tensor '", p.name(), "': external data ", kv.key(), " '", kv.value(), "' is not an integer");
        (kv.key() == "offset" ? offset : length) = v;
      }
    }
    ONYX_ASSIGN_OR_RETURN(auto buffer, external->read(location, offset, length));
    if (ref) *ref = ir::ExternalDataRef{location, offset, length};
    if (buffer->size() != nbytes)
      return invalid_model("tensor '", p.name(), "' ", data_type_name(dtype), shape_to_string(shape), " needs ", nbytes,
                           " bytes but its external data holds ", buffer->size());
    return Tensor(dtype, std::move(shape), std::move(buffer));
  }

  if (lifted) {
    if (dtype == DataType::kString) return invalid_model("tensor '", p.name(), "': string tensors cannot use raw_data");
    if (lifted->size != nbytes)
      return invalid_model("tensor '", p.name(), "' ", data_type_name(dtype), shape_to_string(shape), " needs ", nbytes,
                           " bytes but raw_data holds ", lifted->size);
    if (reinterpret_cast<uintptr_t>(lifted->data) % std::min<size_t>(item, 8) == 0) {
      if (ref) *ref = ir::ExternalDataRef{lifted->location, int64_t(lifted->offset), int64_t(nbytes)};
      return Tensor(dtype, std::move(shape),
                    std::make_shared<Buffer>(const_cast<char*>(lifted->data), nbytes, lifted->file));
    }
    if (shape_size(shape) < 0) return invalid_model("tensor '", p.name(), "' has an invalid shape");
    // Misaligned for its type: typed code gets an aligned copy, made when data() is first
    // asked for. Weight packing reads the file's bytes instead (Tensor::bytes_in_place), so
    // weights that are only packed are never copied (BERT-base: 350 MB of its 435 sit at
    // misaligned offsets; session create 0.34 -> 0.29 of ORT's). The copy goes in chunks, each
    // populating both sides' pages in bulk (one call maps the file's pages and one faults in
    // the copy's, instead of a trap per 4 KiB page of each) and letting the file's pages go
    // once copied, so a copy made late in session creation holds no more than a chunk of them.
    const char* source = lifted->data;
    auto buffer = Buffer::deferred_copy(source, nbytes, lifted->file, [source, nbytes](void* to) {
      constexpr size_t kChunk = size_t(16) << 20;
      for (size_t done = 0; done < nbytes; done += kChunk) {
        const size_t n = std::min(kChunk, nbytes - done);
        populate_pages(source + done, n, /*for_write=*/false);
        populate_pages(static_cast<char*>(to) + done, n, /*for_write=*/true);
        std::memcpy(static_cast<char*>(to) + done, source + done, n);
        release_mapped_pages(source + done, n);
      }
      release_mapped_pages(source, nbytes);  // the pages that straddled two chunks
    });
    return Tensor(dtype, std::move(shape), std::move(buffer));
  }

  if (p.has_raw_data()) {
    if (dtype == DataType::kString) return invalid_model("tensor '", p.name(), "': string tensors cannot use raw_data");
    if (p.raw_data().size() != nbytes)
      return invalid_model("tensor '", p.name(), "' ", data_type_name(dtype), shape_to_string(shape), " needs ", nbytes,
                           " bytes but raw_data holds ", p.raw_data().size());
    // Take the parsed string without copying it; the tensor keeps it alive.
    std::shared_ptr<std::string> raw(p.release_raw_data());
    if (reinterpret_cast<uintptr_t>(raw->data()) % 16 != 0) {  // keep typed access aligned
      Tensor t(dtype, std::move(shape));
      std::memcpy(t.raw_data(), raw->data(), nbytes);
      return t;
    }
    void* data = raw->data();
    return Tensor(dtype, std::move(shape), std::make_shared<Buffer>(data, nbytes, std::shared_ptr<void>(raw, data)));
  }

  ONYX_RETURN_IF_ERROR(check_typed_field(p, dtype, shape, shape_size(shape)));
  Tensor t(dtype, std::move(shape));
  fill_from_typed_fields(p, t);
  return t;
}

// The largest dense tensor a sparse initializer may become.
constexpr uint64_t kMaxDensifiedBytes = uint64_t(2) << 30;

Result<Tensor> tensor_from_sparse_proto(onnx::SparseTensorProto& sp, ExternalDataResolver* external) {
  ONYX_ASSIGN_OR_RETURN(Tensor values, tensor_from_proto(*sp.mutable_values(), external));
  ONYX_ASSIGN_OR_RETURN(Tensor indices, tensor_from_proto(*sp.mutable_indices(), external));
  Shape shape(sp.dims().begin(), sp.dims().end());
  const std::string& name = sp.values().name();
  if (is_packed_type(values.dtype()))
    return not_implemented("sparse tensor '", name, "' of packed type ", data_type_name(values.dtype()),
                           ": onyx does not densify sub-byte sparse values");
  // onyx densifies sparse initializers; the dims are checked before that allocation.
  const int64_t dense_elements = shape_size(shape);
  if (dense_elements < 0 || uint64_t(dense_elements) > kMaxDensifiedBytes / std::max<size_t>(values.itemsize(), 1))
    return invalid_model("sparse tensor '", name, "' ", shape_to_string(shape), " is too large to make dense (onyx's limit is ",
                         kMaxDensifiedBytes >> 30, " GiB)");
  ONYX_ASSIGN_OR_RETURN(Tensor dense, Tensor::create(values.dtype(), shape));
  if (values.rank() != 1) return invalid_model("sparse tensor '", name, "': values must be 1-D");
  const int64_t nnz = values.numel(), rank = int64_t(shape.size()), total = dense.numel();
  const std::vector<int64_t> idx = indices.to_int64_vector();
  const bool linear = indices.rank() == 1;
  if (!(linear && indices.numel() == nnz) && !(indices.rank() == 2 && indices.dim(0) == nnz && indices.dim(1) == rank))
    return invalid_model("sparse tensor '", name, "': indices ", indices.describe(), " do not match ", nnz, " values of rank ", rank);
  const std::vector<int64_t> strides = shape_strides(shape);
  const size_t item = values.itemsize();
  for (int64_t k = 0; k < nnz; ++k) {
    int64_t pos = 0;
    if (linear) {
      pos = idx[size_t(k)];
    } else {
      for (int64_t d = 0; d < rank; ++d) {
        const int64_t i = idx[size_t(k * rank + d)];
        if (i < 0 || i >= shape[size_t(d)]) return invalid_model("sparse tensor '", name, "': index out of range");
        pos += i * strides[size_t(d)];
      }
    }
    if (pos < 0 || pos >= total) return invalid_model("sparse tensor '", name, "': index ", pos, " out of range");
    if (values.dtype() == DataType::kString)
      dense.data<std::string>()[pos] = values.data<std::string>()[k];
    else
      std::memcpy(static_cast<char*>(dense.raw_data()) + size_t(pos) * item,
                  static_cast<const char*>(values.raw_data()) + size_t(k) * item, item);
  }
  return dense;
}

void tensor_to_proto(const Tensor& t, const std::string& name, onnx::TensorProto* p) {
  p->set_name(name);
  p->set_data_type(int(t.dtype()));
  for (int64_t d : t.shape()) p->add_dims(d);
  if (t.dtype() == DataType::kString) {
    for (int64_t i = 0; i < t.numel(); ++i) p->add_string_data(t.data<std::string>()[i]);
  } else {
    p->set_raw_data(static_cast<const char*>(t.raw_data()), t.nbytes());
  }
}

}  // namespace onyx::onnx_format
