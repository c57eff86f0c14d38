// libFuzzer target (c): the readers behind `onyx run --input NAME=FILE` and --inputs-dir:
// .npy files (tools/npy.cc) and the ONNX test-data .pb files (TensorProto, SequenceProto,
// OptionalProto; onnx/loader.h). The first byte picks the reader, the rest is the file.
#include <cstddef>
#include <cstdint>
#include <memory>

#include "npy.h"
#include "onnx/loader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const uint8_t which = data[0] % 4;
  const uint8_t* file = data + 1;
  const size_t file_size = size - 1;
  if (which == 0) {
    auto tensor = onyx::cli::read_npy_bytes(file, file_size, "fuzz.npy");
    (void)tensor;
    return 0;
  }
  onyx::ir::TypeInfo expected;
  expected.kind = which == 1   ? onyx::ir::TypeInfo::Kind::kTensor
                  : which == 2 ? onyx::ir::TypeInfo::Kind::kSequence
                               : onyx::ir::TypeInfo::Kind::kOptional;
  if (which == 2) {
    expected.inner = std::make_shared<onyx::ir::TypeInfo>();
    expected.inner->kind = onyx::ir::TypeInfo::Kind::kTensor;
    expected.inner->elem_type = onyx::DataType::kFloat;
  }
  auto value = onyx::onnx_format::load_value_bytes(file, file_size, expected, "fuzz.pb");
  (void)value;
  return 0;
}
