// Lifting large initializer bytes out of a serialized ModelProto before protobuf parses it.
//
// Protobuf copies every raw_data field into a std::string of fresh memory; for a model of
// hundreds of MB most of load time is those page faults and copies. lift_raw_data walks the
// wire format instead and returns a skeleton: the same model with the raw_data of the main
// graph's large initializers left out, plus where each of those bytes lies in the original.
// The loader parses the skeleton and makes the lifted initializers views of the mapped file
// (or copies, when misaligned for their type).
//
// Scope, kept narrow so that the skeleton always parses to exactly what protobuf would have
// read: only ModelProto.graph (field 7, present once) -> GraphProto.initializer (field 5) ->
// TensorProto.raw_data (field 9, present once in that tensor, at least `min_bytes` long).
// Anything else (subgraphs, sparse initializers, attributes) stays in the skeleton as it is.
// Bytes this walk cannot read (bad varints, lengths past the end, groups, field number 0) lift
// nothing: the caller parses the original bytes and reports protobuf's error.
#pragma once
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace onyx::onnx_format {

struct LiftedRawData {
  int initializer_index = 0;  // position among GraphProto.initializer, in file order
  size_t offset = 0;          // of the raw bytes in the original message
  size_t size = 0;
};

struct ModelSkeleton {
  std::string bytes;                 // the ModelProto without the lifted raw_data fields
  std::vector<LiftedRawData> lifted;  // by increasing initializer_index
};

// The skeleton of the `size` bytes at `data`, or nullopt when nothing is lifted (no raw_data
// of `min_bytes` or more, or bytes this walk does not read; see above).
std::optional<ModelSkeleton> lift_raw_data(const char* data, size_t size, size_t min_bytes);

}  // namespace onyx::onnx_format
