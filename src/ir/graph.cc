#include "ir/graph.h"

namespace onyx::ir {

std::string TypeInfo::to_string() const {
  switch (kind) {
    case Kind::kTensor: return std::string(data_type_name(elem_type)) + shape.to_string();
    case Kind::kSequence: return "seq(" + (inner ? inner->to_string() : "?") + ")";
    case Kind::kOptional: return "optional(" + (inner ? inner->to_string() : "?") + ")";
    case Kind::kMap:
      return std::string("map(") + data_type_name(elem_type) + "," + (inner ? inner->to_string() : "?") + ")";
    case Kind::kUnknown: return "?";
  }
  return "?";
}

std::string Node::label() const {
  return (name.empty() ? std::string("<unnamed>") : "'" + name + "'") + " (" +
         (domain.empty() ? "" : domain + ":") + op_type + ")";
}

int64_t Model::opset(const std::string& d) const {
  auto it = opsets.find(d == "ai.onnx" ? "" : d);
  return it == opsets.end() ? 0 : it->second;
}

}  // namespace onyx::ir
