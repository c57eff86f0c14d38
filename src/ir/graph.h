// The IR: Model, Graph, Node, Attribute, ValueInfo. Built once from the ONNX protobuf by
// src/onnx and never sees protobuf itself. Names identify values; "" is an omitted input.
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/shape.h"
#include "core/tensor.h"

namespace onyx::ir {

struct Graph;

// The static type of a value: tensor(elem, shape), sequence(of type), optional(of type).
struct TypeInfo {
  enum class Kind { kUnknown, kTensor, kSequence, kOptional, kMap };
  Kind kind = Kind::kUnknown;
  DataType elem_type = DataType::kUndefined;  // for kTensor; the key type for kMap
  SymbolicShape shape;                        // for kTensor
  std::shared_ptr<TypeInfo> inner;            // for kSequence / kOptional; the value type for kMap
  std::string to_string() const;              // "float32[batch,3]", "seq(float32[?])"
};

struct ValueInfo {
  std::string name;
  TypeInfo type;
  std::string doc;
};

struct Attribute {
  enum class Type { kUndefined, kFloat, kInt, kString, kTensor, kGraph, kFloats, kInts, kStrings, kTensors, kGraphs, kTypeProto };
  std::string name;
  Type type = Type::kUndefined;
  float f = 0;
  int64_t i = 0;
  std::string s;
  Tensor t;
  std::shared_ptr<Graph> g;
  std::vector<float> floats;
  std::vector<int64_t> ints;
  std::vector<std::string> strings;
  std::vector<Tensor> tensors;
  std::vector<std::shared_ptr<Graph>> graphs;
  TypeInfo type_proto;
  std::string ref_attr_name;  // inside a function body: take the value of the caller's attribute
};

struct Node {
  std::string name;
  std::string op_type;
  std::string domain;  // "" for ai.onnx
  std::vector<std::string> inputs;   // "" marks an omitted optional input
  std::vector<std::string> outputs;  // "" marks an omitted optional output
  std::map<std::string, Attribute> attributes;
  const Attribute* attribute(const std::string& n) const {
    auto it = attributes.find(n);
    return it == attributes.end() ? nullptr : &it->second;
  }
  // "'conv1' (Conv)" or "#3 (Conv)" when unnamed; for messages.
  std::string label() const;
};

// Where an initializer's bytes live when the model keeps them in an external file: the
// `location` (relative to the model's folder, or a file held in memory), byte `offset` and
// `length` (-1: to the end of the file).
struct ExternalDataRef {
  std::string location;
  int64_t offset = 0;
  int64_t length = -1;
};

struct Graph {
  std::string name;
  std::string doc;  // GraphProto.doc_string (ORT's graph_description)
  std::vector<Node> nodes;
  std::vector<ValueInfo> inputs;
  std::vector<ValueInfo> outputs;
  std::vector<ValueInfo> value_infos;
  std::map<std::string, Tensor> initializers;
  // For the initializers whose data lies in a mapped file (their tensors view it): external
  // data, and large raw_data that the loader read in place from the model file itself (then
  // `location` is the model file's name). Where it lies; the file must stay unchanged while
  // the model lives. An initializer replaced later (an override, a folded constant) leaves
  // this map.
  std::map<std::string, ExternalDataRef> external_data;
};

struct Model {
  int64_t ir_version = 0;
  std::map<std::string, int64_t> opsets;  // domain ("" = ai.onnx) -> version
  std::string producer_name, producer_version, domain, doc;
  int64_t model_version = 0;
  std::map<std::string, std::string> metadata;
  Graph graph;
  // The model's opset for a domain ("" and "ai.onnx" are the same); 0 when not imported.
  int64_t opset(const std::string& domain) const;
};

}  // namespace onyx::ir

namespace onyx::ir {

// A model-local function (FunctionProto): a body of nodes with formal inputs, outputs and
// attributes. Inlined into the graph at load (see inline_functions.h).
struct Function {
  std::string name;
  std::string domain;
  std::vector<std::string> inputs;
  std::vector<std::string> outputs;
  std::vector<std::string> attribute_names;
  std::map<std::string, Attribute> attribute_defaults;
  std::vector<Node> nodes;
};

}  // namespace onyx::ir
