// The ONNX loader: bytes -> ir::Model. The only room of onyx that sees protobuf.
//
// Accepts IR versions 3..10 (and the older IR 1..2 files some converters still write),
// every initializer encoding (raw_data, typed fields, external data, sparse), and
// If/Loop/Scan subgraphs. External data is resolved relative to the model's folder and
// memory-mapped without a copy; a location that escapes that folder, a missing file or a
// range past the file's end is an INVALID_MODEL error.
#pragma once
#include <map>
#include <set>
#include <memory>
#include <string>

#include "core/status.h"
#include "core/value.h"
#include "ir/graph.h"

namespace onyx::onnx_format {

struct LoadOptions {
  // External-data files the caller holds in memory, by location as the model names them
  // ("weights.bin"): looked up before the model's folder, so that a model loaded from bytes
  // finds its external data. Initializers view these bytes without a copy; the caller keeps
  // them alive and unchanged while the model (and every session made from it) lives.
  std::map<std::string, std::shared_ptr<Buffer>> files_in_memory;
  // Main-graph initializers the caller supplies itself (session initializer overrides, ORT's
  // add_external_initializers): their external data is not read (its file need not exist);
  // they load as placeholders (tensor_placeholder_from_proto) that the session replaces.
  std::set<std::string> supplied_initializers;
};

// Loads a model file. External data paths are resolved against the file's folder.
Result<ir::Model> load_model_file(const std::string& path, const LoadOptions& options = {});

// Loads a serialized ModelProto. `base_dir` resolves external data ("" refuses any that is
// not among options.files_in_memory).
Result<ir::Model> load_model_bytes(const void* data, size_t size, const std::string& base_dir,
                                   const LoadOptions& options = {});

// Reads a serialized TensorProto, SequenceProto or OptionalProto (the ONNX test-data .pb
// files). `expected` picks the message kind; an unknown kind reads a TensorProto.
Result<Value> load_value_file(const std::string& path, const ir::TypeInfo& expected);
// The same from bytes in memory; `what` names them in errors.
Result<Value> load_value_bytes(const void* data, size_t size, const ir::TypeInfo& expected, const std::string& what);

// Serializes a tensor or sequence Value as TensorProto / SequenceProto bytes.
Result<std::string> serialize_value(const Value& value, const std::string& name);
// As above for a value declared `declared`: an optional becomes an OptionalProto around it.
Result<std::string> serialize_value(const Value& value, const std::string& name, const ir::TypeInfo& declared);

}  // namespace onyx::onnx_format
