// TensorProto <-> Tensor conversion (internal to src/onnx).
#pragma once
#include <map>
#include <memory>
#include <string>

#include <onnx/onnx_pb.h>

#include "core/tensor.h"
#include "ir/graph.h"
#include "onnx/mapped_file.h"

namespace onyx::onnx_format {

// Resolves external-data locations against one model folder, mapping each file once.
// Files held in memory (by location, as the model names them) come first.
class ExternalDataResolver {
 public:
  explicit ExternalDataResolver(std::string base_dir,
                                std::map<std::string, std::shared_ptr<Buffer>> files_in_memory = {})
      : base_dir_(std::move(base_dir)), in_memory_(std::move(files_in_memory)) {}
  // The bytes [offset, offset+length) of `location`, kept alive by the returned buffer.
  // length < 0 means "to the end of the file".
  Result<std::shared_ptr<Buffer>> read(const std::string& location, int64_t offset, int64_t length);

 private:
  std::string base_dir_;
  std::map<std::string, std::shared_ptr<Buffer>> in_memory_;
  std::map<std::string, std::shared_ptr<MappedFile>> files_;
};

// The raw_data bytes of a TensorProto that the loader lifted out of the mapped model file
// before parsing (raw_data_lift.h).
struct LiftedBytes {
  const char* data = nullptr;
  size_t size = 0;
  std::shared_ptr<MappedFile> file;  // keeps `data` mapped
  std::string location;              // the model file's name, beside which it lies
  size_t offset = 0;                 // of `data` in that file
};

// Converts a TensorProto. `proto` may be consumed (its raw_data moved into the tensor). When
// its data is external and `ref` is given, *ref says where it lies.
// With `lifted`, the bytes are the TensorProto's raw_data (the proto no longer holds them):
// the tensor views the mapped file when they are aligned for its type (*ref then names the
// model file, as for external data, so the session can drop the pages once a kernel has
// packed them), else it gets an aligned copy and the file's pages are dropped at once.
Result<Tensor> tensor_from_proto(onnx::TensorProto& proto, ExternalDataResolver* external,
                                 ir::ExternalDataRef* ref = nullptr, const LiftedBytes* lifted = nullptr);
// Converts a SparseTensorProto into a dense tensor.
// A tensor of the TensorProto's dtype and shape whose data is not there (a null buffer of the
// right size): a stand-in for an external initializer the caller supplies instead, replaced
// before anything reads it.
Result<Tensor> tensor_placeholder_from_proto(const onnx::TensorProto& proto);

Result<Tensor> tensor_from_sparse_proto(onnx::SparseTensorProto& proto, ExternalDataResolver* external);
// Writes a tensor as a TensorProto (raw_data for numbers, string_data for strings).
void tensor_to_proto(const Tensor& tensor, const std::string& name, onnx::TensorProto* proto);

}  // namespace onyx::onnx_format
